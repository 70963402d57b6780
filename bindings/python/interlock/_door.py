"""`Router.match` through the compiled accelerator, interlock/_speedups.c, when it is built and
INTERLOCK_PURE_PYTHON is not set (`accelerated` says which); else `match` is the ctypes path
(`Router._match_ctypes`), which is always there.

With the accelerator, `Router.match` is `method(Router)`, a method in C over Router's base
(RouterBase), which calls the router's door (`router._door`, made with the router). The door only
converts: it calls the library's lookup and makes the common answers (None, or a Match of a route
whose head the router knows: `_heads`, kept as _changes.py says). Whatever else it meets goes to
the ctypes path with the same arguments, so both paths give the same answers and raise the same
errors, from one piece of code."""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, MutableMapping, Optional

from . import _native as n
from . import _text
from ._matches import Match
from ._slot import _SLOT_BUFFER, _match_packed, _MatchSlot

if TYPE_CHECKING:
    from ._router import Router

_speedups = n.speedups
accelerated = _speedups is not None
_MATCH_PACKED = ctypes.cast(_match_packed, ctypes.c_void_p).value


# Router's base: with the accelerator, the C type whose instances keep their door (`_door`) where
# `match` reads it without an attribute lookup.
RouterBase: type = _speedups.RouterBase if _speedups is not None else object


def heads() -> "MutableMapping[int, tuple[int, Optional[str], str]]":
    """A router's `_heads` (route id -> head, as _changes.py keeps them): with the accelerator, a
    mapping its door reads without making an int (_speedups.Heads), else a dict."""
    return _speedups.Heads() if _speedups is not None else {}


def method(router_type: type) -> Any:
    """Router.match with the accelerator: a method in C of `router_type` (Router, made on
    RouterBase), with the doc and parameters of its ctypes path, `router_type._match_ctypes`."""
    return _speedups.match_method(router_type, router_type._match_ctypes.__doc__)


def door(router: "Router") -> Any:
    """`router`'s door, over a match handle and buffer of its own; None without the accelerator.
    Its `close()` must run before the library's router is freed."""
    if _speedups is None:
        return None
    slot = _MatchSlot()
    return _speedups.Door(_MATCH_PACKED, router._pointer, slot.handle.value, ctypes.addressof(slot.buffer),
                          _SLOT_BUFFER, router._heads, _text._METHODS, Match, slot)
