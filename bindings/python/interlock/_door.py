"""`Router.match` through the compiled accelerator, interlock/_speedups.c, when it is built and
INTERLOCK_PURE_PYTHON is not set (`accelerated` says which). A router then has a door, made with
it, as its `match` attribute; else `match` is the ctypes path (`Router._match_ctypes`), which is
always there.

The door only converts: it calls the library's lookup and makes the common answers (None, or a
Match of a route whose head the router knows: `_heads`, kept as _changes.py says). Whatever else
it meets goes to `fallback`, the ctypes path with the same arguments, so both paths give the same
answers and raise the same errors, from one piece of code."""

from __future__ import annotations

import ctypes
import os
import weakref
from typing import TYPE_CHECKING, Any, Optional

from . import _native as n
from . import _text
from ._errors import InvalidArgumentError
from ._matches import Match
from ._slot import _SLOT_BUFFER, _match_packed, _MatchSlot

if TYPE_CHECKING:
    from ._router import Router

try:
    if os.environ.get("INTERLOCK_PURE_PYTHON", "") not in ("", "0"):
        raise ImportError("INTERLOCK_PURE_PYTHON is set")
    from . import _speedups
except ImportError:
    _speedups = None  # type: ignore[assignment]

accelerated = _speedups is not None
_MATCH_PACKED = ctypes.cast(_match_packed, ctypes.c_void_p).value


def door(router: "Router") -> Any:
    """`router`'s door (its `match`), over a match handle and buffer of its own; None without the
    accelerator. Its `close()` must run before the library's router is freed."""
    if _speedups is None:
        return None
    slot = _MatchSlot()
    return _speedups.Door(_MATCH_PACKED, router._pointer, slot.handle.value, ctypes.addressof(slot.buffer),
                          _SLOT_BUFFER, router._heads, _text._METHODS, Match, slot, weakref.ref(router), fallback)


def fallback(router_ref: "weakref.ref[Router]", *args: Any, **kwargs: Any) -> Optional[Match]:
    """What the door does not answer itself: the ctypes path's answer, or its error."""
    router = router_ref()
    if router is None:      # a door kept after its router was collected
        raise InvalidArgumentError("router is closed", n.EINVAL)
    return router._match_ctypes(*args, **kwargs)
