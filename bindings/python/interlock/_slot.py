"""The fast path's plumbing: per-thread lookup state (a match handle with its parameter buffer,
a batch with its view), the library functions Router.match and Router.resolve call, made once,
and what `match` and `match_many` do off their common path (a method-not-allowed answer, the
URIs and methods of a batch, a batch's call and its errors)."""

from __future__ import annotations

import ctypes
import weakref
from ctypes import byref, c_size_t, c_void_p
from typing import Any, Optional, Sequence

from . import _native as n
from . import _wire
from ._errors import InvalidArgumentError, MethodNotAllowedError, URIError, _check, _wrong_type
from ._native import lib, text
from ._text import _b, _uri_b

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
        # Route id -> (id, name, pattern), the head `match` makes a Match of by adding the
        # parameters, of the routes without data (`routes`: the fast path's) and with
        # (`data_routes`), remembered and forgotten as _changes.py says.
        self.routes: dict[int, tuple[int, Optional[str], str]] = {}
        self.data_routes: dict[int, tuple[int, Optional[str], str]] = {}
        self._finalizer = weakref.finalize(self, _free_slot, handle.value, batch.value)


def _free_slot(handle: int, batch: int) -> None:
    lib.ilk_match_free(handle)
    lib.ilk_match_batch_free(batch)


def _match_params(handle: c_void_p) -> list[tuple[str, str]]:
    """The last match's parameters one by one (when they did not fit the slot's buffer)."""
    name, value, name_size, value_size = c_void_p(), c_void_p(), c_size_t(), c_size_t()
    out = []
    for i in range(lib.ilk_match_param_count(handle)):
        _check(lib.ilk_match_param_at(handle, i, byref(name), byref(name_size), byref(value), byref(value_size)))
        out.append((text(ctypes.string_at(name.value, name_size.value)) or "",
                    text(ctypes.string_at(value.value, value_size.value)) or ""))
    return out


def not_allowed(handle: c_void_p, uri: str, method: Optional[str]) -> MethodNotAllowedError:
    """The error for a lookup that left ILK_METHOD_NOT_ALLOWED in `handle`: the allowed methods
    read from it (ilk_match_allowed_*)."""
    allowed = tuple(text(lib.ilk_match_allowed_at(handle, i)) or ""
                    for i in range(lib.ilk_match_allowed_count(handle)))
    return MethodNotAllowedError(f"method {method} not allowed for {uri}; allowed: {', '.join(allowed)}",
                                 n.METHOD_NOT_ALLOWED, allowed)


# ----------------------------------------------------------------------------------------------
# Batches (Router.match_many)


def refuse_uris(uris: Any) -> None:
    """What is wrong with `uris`, which could not be made the text of a batch: not a sequence of
    str (a TypeError), or a URI no str or holding a lone surrogate (named by its index)."""
    if isinstance(uris, (str, bytes, bytearray)) or not hasattr(uris, "__len__"):
        raise _wrong_type("uris", uris, "a sequence of str")
    for i, u in enumerate(uris):
        _uri_b(u, f"URI {i}")


def batch_methods(methods: Any, count: int) -> Optional[bytes]:
    """A method per URI for the library: the methods one after another, each followed by a NUL
    (None and "" as "": any method), or None where every one is None (any method for all)."""
    if isinstance(methods, (bytes, bytearray)) or not hasattr(methods, "__len__"):
        raise _wrong_type("method", methods, "None, a str or a sequence of str or None")
    if len(methods) != count:
        raise InvalidArgumentError(f"{len(methods)} methods for {count} URIs", n.EINVAL)
    if not count:
        return None
    try:
        joined = "\0".join(methods)
    except TypeError:
        for i, m in enumerate(methods):
            if m is not None and not isinstance(m, str):
                raise _wrong_type(f"method {i}", m, "a str or None") from None
        if all(m is None for m in methods):
            return None
        joined = "\0".join(["" if m is None else m for m in methods])
    try:
        return joined.encode()
    except UnicodeEncodeError:
        for i, m in enumerate(methods):
            _b(m, f"method {i}")
        raise


def batch(router: int, slot: _MatchSlot, methods: Optional[bytes], data: bytes, count: int,
          uris: Sequence[str], given: Any) -> tuple[bytes, int]:
    """One ilk_router_match_requests for `count` URIs (`data`: joined by NULs, UTF-8) under `methods`
    (one method, or one per URI; None: any): the answers as the library laid them out, copied, and
    the index of the first malformed URI (`count` if none). `uris` and `given` (the method or
    methods as given) name what the library refused."""
    methods_len = len(methods) + 1 if methods is not None else 0    # with the NUL that ends bytes
    rc = lib.ilk_router_match_requests(router, methods, methods_len, data, len(data) + 1 if count else 0,
                                       slot.batch, slot.view_ref)
    view = slot.view
    if rc != n.OK or view.count != count:
        # The library counted URIs or methods otherwise than we did: one holds a NUL byte.
        for i, u in enumerate(uris):
            if "\0" in u:
                offset = u.encode().index(0)
                raise URIError(f"URI {i}: NUL byte at offset {offset}", n.EURI, offset)
        if methods is not None and not isinstance(given, str):
            for i, m in enumerate(given):
                if m and "\0" in m:
                    raise InvalidArgumentError(f"method {i}: NUL byte at offset {m.index(chr(0))}", n.EINVAL)
        _check(rc)
        raise InvalidArgumentError(f"the library counted {view.count} URIs where {count} were given", n.EINVAL)
    # One copy of the answers, which the next batch on this thread overwrites.
    return ctypes.string_at(view.data, view.size), view.first_error


def batch_each(router: int, slot: _MatchSlot, data: bytes, uris: Sequence[str], method: Any) -> tuple[bytes, int]:
    """`batch` for a method per URI (`method`, a sequence)."""
    return batch(router, slot, batch_methods(method, len(uris)), data, len(uris), uris, method)


def refuse_first_error(blob: bytes, count: int, first_error: int) -> None:
    """The URIError for the first malformed URI of a batch."""
    statuses, _, offsets, text_ = _wire.batch_views(blob, count)
    i = first_error
    message = str(text_[offsets[i]:offsets[i + 1]], "utf-8").rstrip("\0")
    # The library's message ends with " (at byte N)" (ilk_match_batch_arrays): the offset, as the
    # other doors give it.
    head, at, tail = message.rpartition(" (at byte ")
    if at and tail[:-1].isdigit() and tail.endswith(")"):
        raise URIError(f"URI {i}: {head}", statuses[i], int(tail[:-1]))
    raise URIError(f"URI {i}: {message}", statuses[i], None)


# ----------------------------------------------------------------------------------------------
# The library functions of the hot paths, made once

# ilk_router_match_packed for `match`, the hot path, declared without argument types: each argument
# is passed as what the C side takes already (the router's and the slot's c_void_p, bytes or None
# for char *, a c_size_t), which skips one conversion per argument on every call (about a third of
# the call's cost). Called through `n.pydll`, which keeps the GIL over the call (see _native.py).
# Prebuilt lengths for URIs of up to 256 bytes.
_match_packed = n.unlocked("ilk_router_match_packed", typed=False)
# The call of every `resolve`, the same way, but through `lib` (CDLL), which lets go of the GIL
# over the call: a resolve runs the pipeline, and whatever of it is the library's (the lookup, the
# stages, the built-in interceptors, copying the result) lets other threads run meanwhile. A Python
# callback the resolve calls takes the GIL back for itself (ctypes' callbacks do), on this thread,
# so it sees this resolve's context. Arguments: the router's c_void_p, bytes or None, a c_size_t
# and byref() for the result.
_resolve = lib["ilk_router_resolve"]
_result_free = n.unlocked("ilk_result_free", typed=False)
_LENGTHS = [c_size_t(i) for i in range(257)]
