"""The fast path's plumbing: per-thread lookup state (a match handle with its parameter buffer,
a batch with its view), and the library functions Router.match and Router.resolve call through
PyDLL, made once."""

from __future__ import annotations

import ctypes
import weakref
from ctypes import byref, c_char_p, c_size_t, c_void_p

from . import _native as n
from ._errors import _check
from ._native import lib, text

_SLOT_BUFFER = 4096
_MATCHED = 1 << 32


class _MatchSlot:
    def __init__(self) -> None:
        handle = c_void_p()
        _check(lib.ilk_match_new(byref(handle)))
        batch = c_void_p()
        _check(lib.ilk_match_batch_new(byref(batch)))
        self.handle, self.batch = handle, batch
        # Where ilk_router_match_packed writes parameters: one library call per match, and the
        # answer (route id, parameter length) in its return value.
        self.buffer = ctypes.create_string_buffer(_SLOT_BUFFER)
        _check(lib.ilk_match_set_buffer(handle, self.buffer, _SLOT_BUFFER))
        # Where ilk_router_match_requests says where a batch's answers lie (match_many).
        self.view = n.MatchBatchView()
        self.view_ref = byref(self.view)
        self._finalizer = weakref.finalize(self, _free_slot, handle.value, batch.value)


def _free_slot(handle: int, batch: int) -> None:
    lib.ilk_match_free(handle)
    lib.ilk_match_batch_free(batch)


def _match_params(handle: c_void_p) -> list[tuple[str, str]]:
    """The last match's parameters one by one (when they did not fit the slot's buffer)."""
    name, value = c_char_p(), c_char_p()
    out = []
    for i in range(lib.ilk_match_param_count(handle)):
        _check(lib.ilk_match_param_at(handle, i, byref(name), None, byref(value), None))
        out.append((text(name.value) or "", text(value.value) or ""))
    return out


# ilk_router_match_packed for `match`, the hot path, declared without argument types: each argument
# is passed as what the C side takes already (the router's and the slot's c_void_p, bytes or None
# for char *, a c_size_t), which skips one conversion per argument on every call (about a third of
# the call's cost). Called through `n.pydll`, which keeps the GIL over the call (see _native.py).
# Prebuilt lengths for URIs of up to 256 bytes.
_match_packed = n.pydll["ilk_router_match_packed"]
_match_packed.restype = ctypes.c_int64
# The calls of every `resolve`, the same way: the router's c_void_p, bytes or None, a c_size_t and
# byref() for the resolve (a Python callback the resolve calls takes the GIL it already holds).
_resolve = n.pydll["ilk_router_resolve"]
_result_free = n.pydll["ilk_result_free"]
_result_free.restype = None
_LENGTHS = [c_size_t(i) for i in range(257)]
