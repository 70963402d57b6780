"""`Router.match` through the compiled accelerator, interlock/_speedups.c, when it is built and
INTERLOCK_PURE_PYTHON is not set (`accelerated` says which); else `match` is the ctypes path
(`Router._match_ctypes`), which is always there.

With the accelerator, `Router.match` is `method(...)`, a descriptor: `router.match` is the router
bound with its door (`router._door`, made with the router), as a bound method is. The door only
converts: it calls the library's lookup and makes the common answers (None, or a Match of a route
whose head the router knows: `_heads`, kept as _changes.py says). Whatever else it meets goes to
the ctypes path with the same arguments, so both paths give the same answers and raise the same
errors, from one piece of code."""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Callable

from . import _native as n
from . import _text
from ._matches import Match
from ._slot import _SLOT_BUFFER, _match_packed, _MatchSlot

if TYPE_CHECKING:
    from ._router import Router

_speedups = n.speedups
accelerated = _speedups is not None
_MATCH_PACKED = ctypes.cast(_match_packed, ctypes.c_void_p).value


def method(ctypes_path: Callable[..., Any]) -> Any:
    """Router.match with the accelerator: it wraps the ctypes path (its doc, name, signature)."""
    return _speedups.Method(ctypes_path)


def door(router: "Router") -> Any:
    """`router`'s door, over a match handle and buffer of its own; None without the accelerator.
    Its `close()` must run before the library's router is freed."""
    if _speedups is None:
        return None
    slot = _MatchSlot()
    return _speedups.Door(_MATCH_PACKED, router._pointer, slot.handle.value, ctypes.addressof(slot.buffer),
                          _SLOT_BUFFER, router._heads, _text._METHODS, Match, slot)
