"""The Router: routes, the fast path (match, match_many) and the pipeline (resolve). Values are
_values.py's, the packed text is read by _wire.py, callbacks are _callbacks.py's trampolines;
changing routes, route data and what the router knows of its routes are _changes.py's; route files
(load, binding destinations by name, a loaded route's values) are _routefiles.py's.

The public names of `__all__` are importable from here as before the package was split by concern
(__init__.py takes them from here)."""

from __future__ import annotations

import ctypes
import threading
import weakref
from ctypes import byref, c_size_t, c_uint32, c_void_p
from typing import Any, Callable, Optional, Sequence, Union

from . import _door, _interceptors, _slot, _text, _values, _wire
from . import _native as n
from ._callbacks import Destination, _Context, _destination, _filter, _local, _name_value_arrays, _tagged
from ._changes import RouteInfo, Routes, _Changes, _free_router
from ._routefiles import _RouteFiles
from ._errors import (UINT, UINT32, Abort, CallbackError, ConflictError, Error, InvalidArgumentError, LimitError,
                      MethodNotAllowedError, PatternError, UnknownRouteError, URIError, _bool_arg, _callable_arg,
                      _check, _int_arg, _raise)
from ._interceptors import LoggingInterceptor, ValidateStatus, chain_after, chain_before, chain_in_order
from ._native import lib
from ._slot import _LENGTHS, _MATCHED, _SLOT_BUFFER, _match_packed, _match_params, _MatchSlot, _resolve, _result_free
from ._text import _b, _method_b, _uri_b, _url_params
from ._matches import Match, MatchList, _new_match
from ._values import QueryDict, Result, Status, TraceEntry
from ._wire import param_dict as _param_dict

# Names whose methods the hot paths call (`_METHODS.get(...)`, `Response._of(...)`), bound by
# assignment, not by `from ... import`: CPython 3.11 compiles `name.method(...)` on a name an import
# binds as an attribute load, which makes a bound method on every call, and on any other name as a
# method call that makes none (LOAD_METHOD).
_METHODS = _text._METHODS
_STATUS_OF = _values._STATUS_OF
Request, Response = _values.Request, _values.Response

__all__ = [
    "Abort", "CallbackError", "ConflictError", "Error", "InvalidArgumentError", "LimitError",
    "LoggingInterceptor", "Match", "MethodNotAllowedError", "PatternError", "Request", "Response", "Result",
    "RouteInfo", "Router", "Routes", "Status", "TraceEntry", "URIError", "UnknownRouteError", "ValidateStatus",
    "chain_after", "chain_before", "chain_in_order",
]


_NOT_FOUND = n.NOT_FOUND
_EMPTY_QUERY = QueryDict._of([])     # a Result's own query, unused: a resolve's is its request's


class Router(_Changes, _RouteFiles, _door.RouterBase):
    """A route table with its pipeline. Safe to use from several threads at once. Removing and
    replacing routes, route data, `routes` and `compile` are _Changes' (_changes.py); `load`,
    `set_destination`, `destination` and `route_value` _RouteFiles' (_routefiles.py)."""

    def __init__(self, case_insensitive: bool = False, strict_slash: bool = False) -> None:
        """An empty router. `case_insensitive`: literal segments compare ASCII case-insensitively;
        `strict_slash`: a trailing slash is significant. Close it with `close()` or `with`."""
        handle = c_void_p()
        flags = ((n.CASE_INSENSITIVE if _bool_arg(case_insensitive, "case_insensitive") else 0)
                 | (n.STRICT_SLASH if _bool_arg(strict_slash, "strict_slash") else 0))
        _check(lib.ilk_router_new(byref(handle), flags))
        self._handle = handle
        self._keep: list[Any] = []          # callbacks the library holds, alive as long as the router
        self._lock = threading.Lock()
        self._slots = threading.local()
        self._init_changes()                # route names, heads and data, and their free functions
        self._pointer: Optional[int] = handle.value
        self._door = _door.door(self)        # what `match` calls, with the accelerator (_door.py)
        self._finalizer = weakref.finalize(self, _free_router, handle.value, (self._free_object, self._free_held),
                                           self._door)

    # -- lifecycle

    def close(self) -> None:
        """Frees the library's router now (also done when the router is garbage-collected)."""
        self._pointer = None
        self._finalizer()
        self._keep.clear()

    def __enter__(self) -> "Router":
        """`with interlock.Router() as router:` gives the router itself, closed at the block's end."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Closes the router (`close()`) however the `with` block ends; an exception goes on."""
        self.close()

    @property
    def _h(self) -> int:
        pointer = self._pointer
        if pointer is None:
            raise InvalidArgumentError("router is closed", n.EINVAL)
        return pointer

    def _retain(self, callback: Any) -> Any:
        with self._lock:
            self._keep.append(callback)
        return callback

    # -- routes

    def add_route(self, pattern: str, fn: Optional[Destination] = None, name: Optional[str] = None,
                  guard: Optional[Callable[[Request], bool]] = None, *, data: Any = None) -> int:
        """Adds a route; returns its id. `data`, any object, is the route's data (`set_route_data`),
        set right after the route is added. Raises PatternError (with `offset`) or ConflictError, and
        TypeError for an argument of the wrong type (a `fn` or `guard` that is not callable)."""
        pattern_b, name_b = self._route_args(pattern, name, guard)
        if fn is not None:
            _callable_arg(fn, "fn (the destination)")
        # The destination is held under a token the library gets as its userdata: it lets go of it
        # (_free_held) once the route is removed and no resolve runs it, or the router is freed.
        callback = n.DESTINATION_FN(_destination(self, fn)) if fn is not None else n.DESTINATION_FN()
        token, free = (self._hold(callback), self._free_held) if fn is not None else (None, None)
        route_id = c_uint32()
        if name is None:
            rc = lib.ilk_router_add_route(self._h, pattern_b, callback, token, free, byref(route_id))
        else:
            rc = lib.ilk_router_add_named_route(self._h, pattern_b, name_b, callback, token, free, byref(route_id))
        self._added(rc, token, route_id.value, name, guard, data)
        return route_id.value

    def route(self, pattern: str, name: Optional[str] = None, guard: Optional[Callable[[Request], bool]] = None,
              *, data: Any = None) -> Callable[[Destination], Destination]:
        """Decorator form of `add_route`: returns the function, with the route's id as its
        `route_id` attribute."""
        self._route_args(pattern, name, guard)

        def register(fn: Destination) -> Destination:
            _callable_arg(fn, "fn (the destination)")
            return _tagged(fn, self.add_route(pattern, fn, name=name, guard=guard, data=data))
        return register

    @staticmethod
    def _route_args(pattern: str, name: Optional[str], guard: Any) -> tuple[Optional[bytes], Optional[bytes]]:
        """A route's pattern and name as the library takes them, its guard checked: before anything is added."""
        if guard is not None:
            _callable_arg(guard, "guard")
        return _b(pattern, "pattern", required=True), _b(name, "route name")

    def default(self, fn: Destination) -> Destination:
        """Decorator: the destination for requests no route matched."""
        _callable_arg(fn, "fn (the default destination)")
        callback = self._retain(n.DESTINATION_FN(_destination(self, fn)))
        _check(lib.ilk_router_set_default(self._h, callback, None, None))
        return fn

    def _request(self, pointer: int, ctx: _Context) -> Request:
        return Request(pointer, ctx.state, self)

    def __len__(self) -> int:
        return int(lib.ilk_router_route_count(self._h))

    # -- the fast path

    def _slot(self) -> _MatchSlot:
        try:
            return self._slots.slot
        except AttributeError:
            slot = self._slots.slot = self._new_slot()
            return slot

    def match(self, uri: str, method: Optional[str] = None) -> Optional[Match]:
        """The route `uri` matches under `method` (None or "": any method), or None if no route does.
        No Python callback runs. Raises MethodNotAllowedError (with `allowed`) if routes match
        `uri` only under other methods, URIError for a malformed URI, InvalidArgumentError for a
        malformed method (a NUL byte in it, among others), TypeError for what is no str.
        With the compiled accelerator (`interlock.accelerated`) the lookup and the common answers
        are made in C, with the same answers and errors (this method is then `_match_ctypes`)."""
        try:
            slot = self._slots.slot
        except AttributeError:
            slot = self._slot()
        pointer = self._pointer
        if pointer is None:
            raise InvalidArgumentError("router is closed", n.EINVAL)
        try:
            data = uri.encode()        # UTF-8 (the default: naming it costs a lookup a call)
        except (UnicodeEncodeError, AttributeError):
            data = _uri_b(uri)         # raises, naming the URI
        length = len(data)
        # The method as `_method_b` makes it, inline: a call costs more than the rest of it.
        try:
            method_bytes = None if method is None else (_METHODS.get(method) or _method_b(method))
        except TypeError:
            method_bytes = _method_b(method)       # raises, naming the method
        rc = _match_packed(self._handle, method_bytes, data,
                           _LENGTHS[length] if length <= 256 else c_size_t(length), slot.handle)
        if rc < _MATCHED:
            if rc == _NOT_FOUND:
                return None
            if rc < 0:
                _raise(rc)
            raise _slot.not_allowed(slot.handle, uri, method)
        route_id = rc >> 32
        size = rc & 0xFFFFFFFF
        if not size:
            params: dict[str, str] = {}
        elif size <= _SLOT_BUFFER:
            # "name\0value\0..." split ends with an empty string. Dict displays for up to three
            # parameters: building a dict from an iterator costs several times more.
            parts = slot.buffer[:size].decode().split("\0")
            count = len(parts)
            if count == 3:
                params = {parts[0]: parts[1]}
            elif count == 5:
                params = {parts[0]: parts[1], parts[2]: parts[3]}
            elif count == 7:
                params = {parts[0]: parts[1], parts[2]: parts[3], parts[4]: parts[5]}
            else:
                params = _param_dict(parts)
        else:
            params = dict(_match_params(slot.handle))
        # The route's head (id, name, pattern) as this thread last matched it; none for a route
        # with data, or one changed since (_changes.py).
        head = slot.routes.get(route_id)
        if head is None:
            return self._matched(slot, route_id, params)
        return _new_match(Match, head + (params,))

    _match_ctypes = match   # the ctypes path, which the accelerator's door falls back on

    def match_many(self, uris: Sequence[str],
                   method: Union[None, str, Sequence[Optional[str]]] = None) -> "MatchList":
        """`match` for a whole sequence in one call into the library. `method` is one method for
        every URI, or a sequence of one per URI (None or "": any method). Returns a `MatchList`: a
        sequence of `Match` or None, one per URI, each made when first read (`status(i)` tells a
        URI no route matches from one routes match only under other methods). Raises URIError for
        the first malformed URI (the message names its index), TypeError for `uris` given as a
        str or holding what is no str."""
        slot = self._slot()
        try:
            if isinstance(uris, (str, bytes, bytearray)):
                raise TypeError
            count = len(uris)
            data = "\0".join(uris).encode()
        except (TypeError, UnicodeEncodeError):
            _slot.refuse_uris(uris)
            raise
        if method is None or isinstance(method, str):
            blob, first_error = _slot.batch(self._h, slot, _method_b(method), data, count, uris, method)
        else:
            blob, first_error = _slot.batch_each(self._h, slot, data, uris, method)
        if first_error < count:
            _slot.refuse_first_error(blob, count, first_error)
        return MatchList(self, blob, count)

    # -- the pipeline

    def add_filter(self, fn: Callable[[Request, Callable[[Request], Response]], Any]) -> Callable[..., Any]:
        """Appends a filter `fn(request, next)`: return `next(request)` (possibly changed) to
        continue; return without calling it to stop, answering with what it returned as a
        destination's is read (None: an empty response; an int status, str or bytes body, or a
        Response); or return `request.redirect(uri)` / `request.redirect_to(name, **params)` to
        redirect."""
        _callable_arg(fn, "fn (the filter)")
        _check(lib.ilk_router_add_filter(self._h, _b(getattr(fn, "__name__", None), "filter name"),
                                         self._retain(n.FILTER_FN(_filter(self, fn))), None, None))
        return fn

    filter = add_filter

    def add_request_interceptor(self, interceptor: Any, route: Union[int, str, None] = None) -> None:
        """Adds a request interceptor (`fn(request)`, an object with `intercept(request)`, a
        composition or a built-in) globally or to a route's scope (its name or id)."""
        self._add_interceptor(interceptor, route, response=False)

    def add_response_interceptor(self, interceptor: Any, route: Union[int, str, None] = None) -> None:
        """Adds a response interceptor (`fn(response)`, an object with `intercept(response)`, a
        composition or a built-in) globally or to a route's scope (its name or id)."""
        self._add_interceptor(interceptor, route, response=True)

    def _add_interceptor(self, interceptor: Any, route: Union[int, str, None], response: bool) -> None:
        _interceptors._check_interceptor(interceptor, "interceptor")
        route_id = 0 if route is None else self._route_arg(route, "route")
        handle = _interceptors._handle(self, interceptor, response)
        try:
            _check(lib.ilk_router_add_interceptor(self._h, handle, route_id))
        finally:
            lib.ilk_interceptor_free(handle)

    def set_limits(self, redirects: int = n.DEFAULT_REDIRECT_LIMIT, retries: int = n.DEFAULT_RETRY_LIMIT) -> None:
        """How many redirects and retries one resolve may take (each 0...4294967295; unless set,
        the header's ILK_DEFAULT_REDIRECT_LIMIT and ILK_DEFAULT_RETRY_LIMIT)."""
        _check(lib.ilk_router_set_limits(self._h, _int_arg(redirects, "redirects", UINT),
                                         _int_arg(retries, "retries", UINT)))

    def set_match_limit(self, limit: int) -> None:
        """Bounds the work one lookup may do on a hostile URI: each regex a lookup runs (a
        constraint, on its own segment, or a part of the table compiled to one regex) may take at
        most `limit` backtracking steps (10000 unless set; 0 restores that). Past it the lookup
        raises LimitError naming the route whose constraint ran out."""
        _check(lib.ilk_router_set_match_limit(self._h, _int_arg(limit, "limit", UINT32)))

    def resolve(self, uri: str, method: Optional[str] = None) -> Result:
        """Runs the pipeline for `uri` under `method` (None or "": any method). A Python exception
        raised by any callback is re-raised here with its own type and traceback; URIError for a
        malformed URI, InvalidArgumentError for a malformed method, TypeError for what is
        no str. Other threads run while the library works (the GIL is let go of over the call, and
        taken back by each Python callback for its run)."""
        data = _uri_b(uri)
        length = len(data)
        if self._pointer is None:
            raise InvalidArgumentError("router is closed", n.EINVAL)
        handle = self._handle
        try:
            method_bytes = None if method is None else (_METHODS.get(method) or _method_b(method))
        except TypeError:
            method_bytes = _method_b(method)       # raises, naming the method
        return self._run(lambda out: _resolve(handle, method_bytes, data,
                                              _LENGTHS[length] if length <= 256 else c_size_t(length), out))

    def _run(self, call: Callable[[Any], int]) -> Result:
        ctx = _Context()
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(ctx)
        out = c_void_p()
        try:
            rc = call(byref(out))
        finally:
            stack.pop()
        if out.value is None:
            if ctx.exception is not None:
                raise ctx.exception
            if rc < 0:
                _raise(rc)
            return None  # type: ignore[return-value]  (replay with nothing pending)
        try:
            if ctx.exception is not None:
                raise ctx.exception
            return self._result(out, rc, ctx)
        finally:
            _result_free(out)

    def _result(self, r: c_void_p, rc: int, ctx: _Context) -> Result:
        # One library call: the packed text (everything but the body), then the body.
        status, error, headers, trace, redirects, allowed, parts, i, body = _wire.result(r)
        request = Request._unpacked(parts, i, ctx.state, self)
        if self._objects:   # some route has data: this one's, held by the result until it is freed
            request.__dict__["route_data"] = self._result_data(r)
        response = Response._of(status, body, headers)
        response.request = request
        return Result(
            status=_STATUS_OF.get(rc) or Status(rc), response=response, route=None, route_id=None, pattern=None,
            params={}, query=_EMPTY_QUERY, redirects=redirects, state=ctx.state, trace=None, error=error, allowed=allowed,
            _trace_fields=trace, _request=request)  # the trace made into entries when read (Result.trace)

    # -- pending link and URLs

    @property
    def pending_link(self) -> Optional[str]:
        """The last URI a guard refused, if not taken or replayed since."""
        return self._copy_link(lib.ilk_router_pending_link)

    def take_pending_link(self) -> Optional[str]:
        """The pending link, cleared."""
        return self._copy_link(lib.ilk_router_take_pending_link)

    def _copy_link(self, function: Any) -> Optional[str]:
        size = 256
        while True:
            buffer = ctypes.create_string_buffer(size)
            length = function(self._h, buffer, size)
            if length == 0:
                return None
            if length < size:
                return buffer.value.decode("utf-8")
            size = length + 1

    def replay_pending_link(self) -> Optional[Result]:
        """Resolves the pending link again (None if there is none); it stays cleared unless refused again."""
        return self._run(lambda out: lib.ilk_router_replay_pending_link(self._h, out))

    def url_for(self, name: str, /, **params: Any) -> str:
        """The URI of the named route with these parameter values (encoded, constraints checked),
        from the variant that holds exactly the parameters given (README, "URL generation"). A value
        is a str or an int (not a bool); None leaves the parameter out; anything else is a
        TypeError naming it. A parameter the route does not have is InvalidArgumentError naming it.
        `name` is positional-only, so that a route parameter may be called `name`."""
        name_b = _b(name, "route name", required=True)
        values = _url_params(params)
        names_array, values_array = _name_value_arrays(values)
        length = c_size_t()
        size = 256
        while True:
            buffer = ctypes.create_string_buffer(size)
            rc = lib.ilk_router_url_for(self._h, name_b, names_array, values_array, len(values), buffer, size, byref(length))
            if rc == n.OK:
                return buffer.value.decode("utf-8")
            if rc == n.EINVAL and length.value >= size:
                size = length.value + 1
                continue
            _raise(rc)


# With the accelerator, `match` is its method in C (_door.py), made for Router itself, whose
# routers CPython then calls it on straight; `_match_ctypes` stays the ctypes path.
if _door.accelerated:
    Router.match = _door.method(Router)  # type: ignore[method-assign]
