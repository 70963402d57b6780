"""The packed text the library writes for hosts where every call costs, read in one place: one
decoder per format, each named after the C function that writes it (include/interlock.h).

  - parameter text, "name\\0value\\0...": ilk_router_match_packed, and each answer of a batch;
  - the batch layout (statuses, route ids, offsets, text): ilk_match_batch_copy and the
    ilk_match_batch_view of ilk_router_match_requests;
  - the packed request text: ilk_request_packed. Its grammar (an optional field is "1" and its
    value, or "0" alone; a list is a decimal count, then its items) is that of the result text
    (ilk_result_packed, which ends with a request text) and of the response text;
  - the copy envelope (a uint64_t text length, the text, the body): ilk_result_copy and
    ilk_response_copy.

Values (str, bytes, lists, tuples) come out; the classes made of them are _values.py's."""

from __future__ import annotations

import ctypes
import sys
from ctypes import byref, c_size_t, c_void_p
from typing import Any, Optional

from . import _native as n
from ._errors import Error, _check
from ._native import lib

# ----------------------------------------------------------------------------------------------
# Parameter text: "name\0value\0name\0value\0", split at the NUL bytes (so ending with "").
# Router.match decodes up to three parameters inline (dict displays, on the hot path) and hands
# any more to `param_dict`; everything else hands them all to it.


def param_dict(parts: list[str]) -> dict[str, str]:
    """{name: value} from a parameter text split at its NUL bytes."""
    return {parts[i]: parts[i + 1] for i in range(0, len(parts) - 1, 2)}


# ----------------------------------------------------------------------------------------------
# The batch layout: int32_t statuses[count], uint32_t route_ids[count], size_t offsets[count + 1],
# then the text, each array as long as the header's element sizes make it (ILK_BATCH_*_SIZE).
# Answer i's text, text[offsets[i]:offsets[i + 1]] (UTF-8), is its parameter text, or for an
# error status its message and a NUL.

BatchViews = tuple[memoryview, memoryview, memoryview, memoryview]


def batch_views(blob: bytes, count: int) -> BatchViews:
    """Statuses, route ids, offsets and text of a batch of `count` answers laid out in `blob`."""
    view = memoryview(blob)
    ids_at = n.BATCH_STATUS_SIZE * count
    offsets_at = ids_at + n.BATCH_ROUTE_ID_SIZE * count
    text_at = offsets_at + n.BATCH_OFFSET_SIZE * (count + 1)
    return (view[:ids_at].cast("i"), view[ids_at:offsets_at].cast("I"),
            view[offsets_at:text_at].cast("N"), view[text_at:])


# ----------------------------------------------------------------------------------------------
# The packed grammar: fields of the split text, read from index i on; each reader returns what it
# read and the index after it.


# Each reader checks what it reads (a count is digits, an optional field "0" or "1" then its
# value, a list lies inside the text, the text ends where its last field does): a field holding a
# NUL byte would shift every field after it, and what then comes out must be an interlock.Error,
# not a bare ValueError or IndexError, nor fields read from the wrong places. The decoders below
# turn those two into `malformed`.


def malformed(what: str) -> Error:
    """The error for a packed text that does not read as its grammar says."""
    return Error(f"the library's {what} text is malformed (a field holding a NUL byte?)", n.EINVAL)


def optional(field: str) -> Optional[str]:
    """An optional field: None for "0", the value after the "1" otherwise."""
    if field == "0":
        return None
    if field[:1] != "1":
        raise ValueError("an optional field is neither '0' nor '1' and a value")
    return field[1:]


def count(field: str) -> int:
    """A count: decimal digits, nothing else (int() would take " 1", "+1" or "1_0")."""
    if not (field.isascii() and field.isdigit()):
        raise ValueError("a count is not a decimal number")
    return int(field)


def pairs(parts: list[str], i: int) -> tuple[list[tuple[str, str]], int]:
    """A list of pairs at parts[i]: the count, then each pair's name and value."""
    n_pairs = count(parts[i])
    end = i + 1 + 2 * n_pairs
    if end > len(parts):
        raise IndexError("a list runs past the end of the text")
    return (list(zip(parts[i + 1:end:2], parts[i + 2:end:2])) if n_pairs else []), end


def items(parts: list[str], i: int, width: int = 1) -> tuple[list[str], int]:
    """A list at parts[i]: the count, then `width` strings per item, flat."""
    end = i + 1 + width * count(parts[i])
    if end > len(parts):
        raise IndexError("a list runs past the end of the text")
    return parts[i + 1:end], end


RequestFields = tuple[str, Optional[str], Optional[str], Optional[str], Optional[str], str, Optional[str],
                      Optional[str], Optional[int], list[tuple[str, str]], list[tuple[str, str]],
                      list[tuple[str, str]]]


def request_fields(parts: list[str], i: int) -> RequestFields:
    """The request text at parts[i:] (ilk_request_packed): uri ("" if absent), method, scheme,
    host, port, path ("/" if absent or empty), fragment, pattern, route id (None for none), then
    the parameters, the query pairs and the metadata, each a list of pairs. The text ends there
    (it is the last of a result's). Raises `Error` for a text that does not read so."""
    try:
        f = parts[i:i + 9]
        if len(f) < 9:
            raise IndexError("the request text is cut short")
        route = optional(f[8])
        route_id = count(route) if route else None
        params, i = pairs(parts, i + 9)
        query, i = pairs(parts, i)
        metadata, i = pairs(parts, i)
        if i != len(parts) - 1 or parts[i]:
            raise ValueError("the request text goes on past its last field")
        uri, path = optional(f[0]), optional(f[5])
        return (uri or "", optional(f[1]), optional(f[2]), optional(f[3]), optional(f[4]), path or "/",
                optional(f[6]), optional(f[7]), route_id, params, query, metadata)
    except (ValueError, IndexError):
        raise malformed("request") from None


def request_text(pointer: int) -> list[str]:
    """The text of the library's request at `pointer` (ilk_request_packed), split: valid only
    while the request is (a callback's, while it runs)."""
    data, size = c_void_p(), c_size_t()
    lib.ilk_request_packed(pointer, byref(data), byref(size))
    return ctypes.string_at(data.value, size.value).decode("utf-8", "surrogateescape").split("\0")


# ----------------------------------------------------------------------------------------------
# The copy envelope, and the result and response texts in it.

_result_copy = n.unlocked("ilk_result_copy", typed=False)
_response_copy = n.unlocked("ilk_response_copy", typed=False)
_COPY_BUFFER = 4096
_COPY_CAPACITY = c_size_t(_COPY_BUFFER)
_BYTE_ORDER = sys.byteorder
# Buffers for `copied` not in use: one is taken for a copy and given back after it (list.pop and
# list.append are atomic), so threads, and a finalizer run during a copy, never share one; there
# are as many as copies ever ran at once.
_copy_buffers: list[Any] = []


def copied(copy: Any, handle: c_void_p) -> tuple[list[str], bytes]:
    """What ilk_result_copy or ilk_response_copy (`copy`) writes for `handle`: its text split at
    the NUL bytes, and the body. Written into a buffer of `_copy_buffers`, or into one made for a
    copy larger than that."""
    try:
        buffer = _copy_buffers.pop()
    except IndexError:
        buffer = ctypes.create_string_buffer(_COPY_BUFFER)
    needed = c_size_t()
    if copy(handle, buffer, _COPY_CAPACITY, byref(needed)) != n.OK:
        _copy_buffers.append(buffer)
        buffer = ctypes.create_string_buffer(needed.value)
        _check(copy(handle, buffer, needed, byref(needed)))
    size = needed.value
    text_end = 8 + int.from_bytes(buffer[:8], _BYTE_ORDER)
    parts = buffer[8:text_end].decode("utf-8", "surrogateescape").split("\0")
    body = buffer[text_end:size] if size > text_end else b""
    if len(buffer) == _COPY_BUFFER:
        _copy_buffers.append(buffer)
    return parts, body


ResultFields = tuple[int, Optional[str], list[tuple[str, str]], list[str], list[str], list[str], list[str], int, bytes]


def result(handle: c_void_p) -> ResultFields:
    """The library's result (ilk_result_copy): the response status, the error, the headers, the
    trace (stage, name and decision of each entry, flat), the redirects, the allowed methods, then
    the split text and the index of the request text in it (for `request_fields`), and the body."""
    parts, body = copied(_result_copy, handle)
    try:
        headers, i = pairs(parts, 2)
        trace, i = items(parts, i, 3)
        redirects, i = items(parts, i)
        allowed, i = items(parts, i)
        return status(parts[0]), optional(parts[1]), headers, trace, redirects, allowed, parts, i, body
    except (ValueError, IndexError):
        raise malformed("result") from None


def status(field: str) -> int:
    """A response status: a count, or "-" and one (a callback may leave any int)."""
    return -count(field[1:]) if field[:1] == "-" else count(field)


def response(pointer: int) -> tuple[int, bytes, list[tuple[str, str]]]:
    """The library's response at `pointer` (ilk_response_copy): its status, body and headers."""
    parts, body = copied(_response_copy, c_void_p(pointer))
    try:
        headers, i = pairs(parts, 1)
        if i != len(parts) - 1 or parts[i]:
            raise ValueError("the response text goes on past its last field")
        return status(parts[0]), body, headers
    except (ValueError, IndexError):
        raise malformed("response") from None
