"""Route files (the project's README, "Route files"): `Router.load` adds a file's routes in one
library call (ilk_router_load), `Router.set_destination` and `@router.destination(...)` bind a
Python destination to a route by name or id (ilk_router_set_destination), and
`Router.route_value` reads a loaded route's `key=value` data (ilk_router_route_value). The format
is the library's alone: nothing here parses a route file. `Router` takes these methods from
`_RouteFiles`.

What `load` is given: an `os.PathLike` is a file; a `str` is a file when it holds no line break
and names an existing regular file (os.path.isfile), else the text itself; `bytes` (or a
bytearray, a memoryview) are the text's bytes. A file is read as bytes, whatever its encoding:
the library checks that they are UTF-8 and says where they are not. A str is encoded with
"surrogatepass", so that a lone surrogate reaches the library as ill-formed UTF-8, which it places
("line L, column C: bytes that are not UTF-8") like any other bad byte.

The ids `load` returns: the library writes them (ilk_router_load_ids) into an array of one id a
line of the text, which always holds them. They need not follow one another: a router that
removed routes reuses their slots.

A destination bound to a route is held as `add_route`'s are (_changes.py): the ctypes callback
under a token that is the library's userdata, dropped by the router's free function for held
callbacks when the library lets go of it: when the destination is replaced, the route removed or
the router closed, never while a resolve runs it.

A loaded route's data is the library's own (a string table), not a Python object: `Match.data` and
`request.route_data` are None for it (ilk_match_route_data and ilk_request_route_data give no
pointer for it), and `route_value(name_or_id, key)` reads it one key at a time, since the C
interface has no way to list a route's keys. `set_route_data` on a loaded route replaces that
data."""

from __future__ import annotations

import json
import os
import re
import threading
import ctypes
from ctypes import byref, c_char_p, c_size_t, c_uint32
from typing import Any, Callable, Optional, Union

from . import _native as n
from ._callbacks import Destination, _destination, _tagged
from ._errors import Error, _callable_arg, _OffsetError, _raise, _wrong_type
from ._native import lib, text
from ._text import _b, _method_b, _uri_b

# The beginning of every message ilk_router_load gives (include/interlock.h).
_WHERE = re.compile(r"line (\d+), column (\d+): ")


def _read(path: Any) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def _source(path_or_text: Any) -> tuple[bytes, Optional[str]]:
    """The route file's bytes, and the path they were read from (None for text)."""
    if isinstance(path_or_text, str):
        if "\n" not in path_or_text and "\r" not in path_or_text and os.path.isfile(path_or_text):
            return _read(path_or_text), path_or_text
        return path_or_text.encode("utf-8", "surrogatepass"), None
    if isinstance(path_or_text, bytes):
        return path_or_text, None
    if isinstance(path_or_text, (bytearray, memoryview)):
        return bytes(path_or_text), None
    if isinstance(path_or_text, os.PathLike):
        return _read(path_or_text), os.fsdecode(os.fspath(path_or_text))
    raise _wrong_type("path_or_text", path_or_text, "a str (a path or the text), bytes or an os.PathLike")


def _load_error(rc: int, path: Optional[str]) -> None:
    """Raises the error of a failed ilk_router_load (ilk_errmsg and ilk_erroffset are read first,
    on this thread, before any other library call). Its `offset` is the byte offset in the text
    (in the file's bytes), `line` and `column` (1-based, the column in bytes) come from the
    message's "line L, column C:", and `path` is the file's (None for text). For a file the
    message is "PATH:L:C: ...", as `interlock check` prints it."""
    offset = lib.ilk_erroffset()
    offset = None if offset == n.NO_OFFSET else int(offset)
    try:
        _raise(rc)
    except Error as error:
        message = error.message
        where = _WHERE.match(message)
        line, column = (int(where[1]), int(where[2])) if where else (None, None)
        if path is not None:
            message = f"{path}:{line}:{column}: {message[where.end():]}" if where else f"{path}: {message}"
            if isinstance(error, _OffsetError):
                error = type(error)(message, error.code, offset)
            else:
                error = type(error)(message, error.code)
        error.offset, error.line, error.column, error.path = offset, line, column, path  # type: ignore[attr-defined]
        raise error from None


class _RouteFiles:
    """The `Router` methods of route files: load, set_destination, destination, route_value."""

    _h: int
    _table: threading.RLock
    _names: dict[int, Optional[str]]
    _held: dict[int, Any]
    _free_held: Any
    _route_arg: Callable[..., int]
    _hold: Callable[[Any], int]

    def load(self, path_or_text: Union[str, bytes, "os.PathLike[str]"]) -> list[int]:
        """Adds every route of a route file, or none; returns their ids in the file's order.

        `path_or_text`: an `os.PathLike` (a `pathlib.Path`) is a file; a `str` is a file if it
        holds no line break and names an existing file, else it is the text; `bytes` are the
        text's bytes. A file is read as bytes (the library checks they are UTF-8).

        A bad line adds nothing and gives no id away: PatternError (a malformed line or pattern,
        bytes that are not UTF-8, a NUL byte), ConflictError (a route or name another route has,
        in the router or on an earlier line), LimitError. The message begins "line L, column C:"
        ("PATH:L:C:" for a file); the error's `offset` is the byte offset in the text, `line`
        and `column` (in bytes) where, and `path` the file (None for text). OSError if a file
        cannot be read; TypeError for what is none of these."""
        data, path = _source(path_or_text)
        count = c_size_t()
        capacity = data.count(b"\n") + 1      # a route a line at the most
        ids_array = (c_uint32 * capacity)()
        rc = lib.ilk_router_load_ids(self._h, data, len(data), ids_array, capacity, byref(count))
        if rc < 0:
            _load_error(rc, path)
        ids = list(ids_array[:count.value])
        self._loaded(ids)
        return ids

    def _loaded(self, ids: list[int]) -> None:
        """Records the names of the routes a file added, as add_route records its route's."""
        found = c_char_p()
        with self._table:
            for route_id in ids:
                if lib.ilk_router_route_name(self._h, route_id, byref(found)) == n.OK:
                    self._names[route_id] = text(found.value)

    def set_destination(self, name_or_id: Union[int, str], fn: Destination) -> None:
        """Sets (or replaces) the destination of a route, by name or id: a loaded route, or any
        other. `fn` is as `add_route`'s. The destination it replaces is let go of once no resolve
        runs it; this one when it is replaced in turn, the route removed or the router closed.
        TypeError if `fn` is not callable or `name_or_id` neither an int nor a str;
        UnknownRouteError if no route has the name or id."""
        self._bind(name_or_id, fn)

    def destination(self, name_or_id: Union[int, str]) -> Callable[[Destination], Destination]:
        """Decorator form of `set_destination`: binds the function to the route with this name
        (or id), which must exist already (a loaded route, say), and returns it with the route's
        id as its `route_id` attribute. The name is checked now: UnknownRouteError if no route has
        it, TypeError if it is neither an int nor a str."""
        self._route_arg(name_or_id)

        def bind(fn: Destination) -> Destination:
            return _tagged(fn, self._bind(name_or_id, fn))
        return bind

    def _bind(self, name_or_id: Union[int, str], fn: Destination) -> int:
        _callable_arg(fn, "fn (the destination)")
        route_id = self._route_arg(name_or_id)
        callback = n.DESTINATION_FN(_destination(self, fn))  # type: ignore[arg-type]
        token = self._hold(callback)
        rc = lib.ilk_router_set_destination(self._h, route_id, callback, token, self._free_held)
        if rc < 0:
            self._held.pop(token, None)   # the library did not take it: still ours
            _raise(rc)
        return route_id

    def route_value(self, name_or_id: Union[int, str], key: str) -> Optional[str]:
        """The value of `key` in a loaded route's `key=value` data (ilk_router_route_value), or
        None: no such key (`name` is the route's name, not data: `routes[...]` has it), or data
        that did not come from a route file (a route added with `add_route`, or whose data
        `set_route_data` replaced). UnknownRouteError if no route has the name or id (or it was
        removed); TypeError if `key` is no str."""
        key_b = _b(key, "key", required=True)
        route_id = self._route_arg(name_or_id)
        with self._table:   # the value is valid until the route's data is set again or it is removed
            value = lib.ilk_router_route_value(self._h, route_id, key_b)
            if value is None:
                rc = lib.ilk_router_route_name(self._h, route_id, byref(c_char_p()))
                if rc < 0:
                    _raise(rc)
        return text(value)

    def explain(self, uri: str, method: Optional[str] = None) -> dict:
        """Why `uri` ends where it does (ilk_router_explain): a dict with "answer" (the route and
        its params, or the status and the allowed methods), "reason" (why the winner beat the next
        route that would take the URI), "candidates" (the routes tried, in order, each with
        "route", "name", "pattern", "form", "takes" and "why_not") and "truncated". URIError for a
        malformed URI, InvalidArgumentError for a malformed method."""
        data = _uri_b(uri)
        method_b = _method_b(method)
        length = c_size_t()
        size = 4096
        while True:
            buffer = ctypes.create_string_buffer(size)
            rc = lib.ilk_router_explain(self._h, method_b, data, len(data), buffer, size, byref(length))
            if rc == n.OK:
                return json.loads(buffer.value.decode("utf-8"))
            if rc == n.ELIMIT and length.value >= size:
                size = length.value + 1
                continue
            _raise(rc)
