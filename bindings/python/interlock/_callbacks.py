"""Python callables as the library's callbacks: the trampolines for destinations, guards, filters,
request and response interceptors and the logger's sink, and what they share (the resolve under
way, lending the library's request, reading and writing responses, reporting a Python exception).

The first exception a callback raises is kept in the resolve's context and re-raised by resolve().
Once it is kept, the resolve's later Python callbacks fail at once without running (the logger's
sink cannot end the resolve: the library ignores what it returns)."""

from __future__ import annotations

import threading
import weakref
from ctypes import c_char_p
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional

from . import _native as n
from . import _values, _wire
from ._errors import INT, Abort, CallbackError, _check, _int_arg
from ._native import lib, text
from ._text import _b, _body, _headers, _message_b, _text_of
from ._values import Request, _Redirect

if TYPE_CHECKING:
    from ._router import Router

Destination = Callable[[Request], Any]


def _tagged(fn: Destination, route_id: int) -> Destination:
    """`fn` with `route_id` as its attribute, where it takes attributes: what the route decorators
    return."""
    try:
        fn.route_id = route_id  # type: ignore[attr-defined]
    except AttributeError:
        pass
    return fn
# Bound by assignment so that `Response._of(...)` compiles as a method call (see _router.py).
Response = _values.Response

# ----------------------------------------------------------------------------------------------
# Per-resolve context: Python state and the first exception a callback raised


class _Context:
    __slots__ = ("state", "exception")

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self.exception: Optional[BaseException] = None


_local = threading.local()


def _settle(lent: "weakref.ref[Request]") -> None:
    """After the callback a request was lent to, which has dropped its own reference to it: a
    request still alive (the callback kept it, or an exception's traceback holds it) copies the
    library's request now, while the pointer is valid."""
    request = lent()
    if request is not None:
        request._keep()


def _context() -> _Context:
    stack = getattr(_local, "stack", None)
    if stack:
        return stack[-1]
    return _Context()   # a callback outside any resolve (a replay from C): private state


# ----------------------------------------------------------------------------------------------
# Shared plumbing


def _failed(ctx: _Context, error: BaseException, request_pointer: int, request: Optional[Request] = None) -> int:
    if request is not None:
        request._keep()   # the exception's traceback holds it past the callback
    if ctx.exception is None:
        ctx.exception = error
    lib.ilk_request_set_error(request_pointer, _message_b(f"{type(error).__name__}: {_text_of(error)}"))
    return -1


def _name_value_arrays(values: Mapping[str, str]) -> tuple[Any, Any]:
    keys = list(values)
    names = (c_char_p * max(len(keys), 1))(*[_b(k, "parameter name") for k in keys])
    vals = (c_char_p * max(len(keys), 1))(*[_b(values[k], f"parameter {k!r}") for k in keys])
    return names, vals


def _read_response(pointer: int) -> Response:
    """The library's response at `pointer`, in one call (ilk_response_copy)."""
    return Response._of(*_wire.response(pointer))


def _unchanged(response: Response, given: Optional[tuple[Response, int, bytes, list[tuple[str, str]]]]) -> bool:
    """Whether `response` is the one next() gave (`given`: it and what it held), as it was: the
    library's already, with nothing to write."""
    return given is not None and given[0] is response and (response.status, response.body, response.headers) == given[1:]


def _write_response(pointer: int, response: Response) -> None:
    """Writes `response` (as a callback may have changed it: each field is checked again) to the
    library's response at `pointer`. A status outside 100...599 is the library's InvalidArgumentError."""
    status = _int_arg(response.status, "response status", INT)
    body = _body(response.body, "response body")
    headers = _headers(response.headers, "response headers")
    _check(lib.ilk_response_set_status(pointer, status))
    _check(lib.ilk_response_set_body(pointer, body, len(body)))
    _check(lib.ilk_response_clear_headers(pointer))
    for k, v in headers:
        _check(lib.ilk_response_add_header(pointer, _b(k, "header name"), _b(v, f"header {k!r}")))


# ----------------------------------------------------------------------------------------------
# The trampolines: each returns the Python function the library's callback type wraps.


def _lend(router: "Router", request_pointer: int, body: Callable[[_Context, Request], int]) -> int:
    """Runs a callback's `body` with the request it is lent: an exception `body` lets through is
    the resolve's (_failed), and the request is settled after it (_settle), `body`'s frame and its
    references gone."""
    ctx = _context()
    if ctx.exception is not None:
        return _failed(ctx, ctx.exception, request_pointer)
    request = router._request(request_pointer, ctx)
    try:
        return body(ctx, request)
    except BaseException as error:  # noqa: BLE001 - re-raised from resolve()
        return _failed(ctx, error, request_pointer, request)
    finally:
        lent = weakref.ref(request)
        del request
        _settle(lent)


def _answer(response_pointer: int, returned: Any, who: str) -> None:
    """Writes what a destination (or a filter that stops) returned to the library's response: an
    int is the status, str or bytes the body, a Response all of it, None nothing."""
    if returned is None:
        return
    if isinstance(returned, bool):
        raise TypeError(f"{who} returns None, an int, str, bytes or Response, not bool")
    if isinstance(returned, int):
        _check(lib.ilk_response_set_status(response_pointer, _int_arg(returned, "status", INT)))
    elif isinstance(returned, (str, bytes, bytearray)):
        data = returned.encode("utf-8") if isinstance(returned, str) else bytes(returned)
        lib.ilk_response_set_body(response_pointer, data, len(data))
    elif isinstance(returned, Response):
        _write_response(response_pointer, returned)
    else:
        raise TypeError(f"{who} returns None, an int, str, bytes or Response, not {type(returned).__name__}")


def _destination(router: "Router", fn: Destination) -> Callable[[int, int, Any], int]:
    def body(request_pointer: int, response_pointer: int, request: Request) -> int:
        _answer(response_pointer, fn(request), "a destination")
        return n.OK

    def call(request_pointer: int, response_pointer: int, _userdata: Any) -> int:
        return _lend(router, request_pointer, lambda _ctx, request: body(request_pointer, response_pointer, request))
    return call


def _guard(router: "Router", guard: Callable[[Request], bool]) -> Callable[[int, Any], int]:
    def call(pointer: int, _userdata: Any) -> int:
        return _lend(router, pointer, lambda _ctx, request: 1 if guard(request) else 0)
    return call


def _filter(router: "Router", fn: Callable[[Request, Callable[[Request], Response]], Any]) -> Callable[[int, int, Any], int]:
    def body(request_pointer: int, chain: int, ctx: _Context, request: Request) -> int:
        # One entry per call of next(): the response it gave and what it held (None if it failed).
        called: list[Optional[tuple[Response, int, bytes, list[tuple[str, str]]]]] = []

        def next_(req: Request) -> Response:
            req._sync(request_pointer)
            rc = lib.ilk_filter_chain_next(chain, request_pointer)
            called.append(None)
            if rc < 0:
                if ctx.exception is not None:
                    raise ctx.exception
                raise CallbackError(text(lib.ilk_errmsg()) or "next failed", rc)
            response = _read_response(lib.ilk_filter_chain_response(chain))
            response.request = req
            called[-1] = (response, response.status, response.body, list(response.headers))
            return response

        try:
            returned = fn(request, next_)
            if isinstance(returned, _Redirect):
                if returned.uri is not None:
                    lib.ilk_filter_chain_redirect(chain, _b(returned.uri, "redirect URI"))
                else:
                    names, values = _name_value_arrays(returned.params)
                    lib.ilk_filter_chain_redirect_to_route(chain, _b(returned.name, "route name"), names, values, len(returned.params))
                return n.REDIRECT
            if not called:      # a stop, answering with what it returned (None: an empty response)
                _answer(lib.ilk_filter_chain_response(chain), returned, "a filter that stops")
                return n.STOP
            if returned is not None and not isinstance(returned, Response):
                # After next() a status or a body would change nothing: said, not dropped.
                raise TypeError(f"a filter that called next() returns None or a Response, not {type(returned).__name__}")
            if isinstance(returned, Response) and not _unchanged(returned, called[-1]):
                _write_response(lib.ilk_filter_chain_response(chain), returned)
            return n.CONTINUE
        finally:
            returned = None   # a response from next() holds the request it was given
            called.clear()    # next_ may outlive the call

    def call(request_pointer: int, chain: int, _userdata: Any) -> int:
        return _lend(router, request_pointer, lambda ctx, request: body(request_pointer, chain, ctx, request))
    return call


def _response_interceptor(router: "Router", fn: Callable[[Response], Any]) -> Callable[[int, int, Any], int]:
    def body(response_pointer: int, request: Request) -> int:
        current = _read_response(response_pointer)
        current.request = request
        before = (current.status, current.body, list(current.headers))
        try:
            fn(current)
        except Abort as abort:
            lib.ilk_response_set_error(response_pointer, _message_b(abort.reason))
            return n.ABORT
        if (current.status, current.body, current.headers) != before:
            _write_response(response_pointer, current)
        return n.RETRY if current._retry else n.CONTINUE

    def call_response(request_pointer: int, response_pointer: int, _userdata: Any) -> int:
        return _lend(router, request_pointer, lambda _ctx, request: body(response_pointer, request))
    return call_response


def _request_interceptor(router: "Router", fn: Callable[[Request], Any]) -> Callable[[int, Any], int]:
    def body(request_pointer: int, request: Request) -> int:
        try:
            fn(request)
        except Abort as abort:
            lib.ilk_request_set_error(request_pointer, _message_b(abort.reason))
            return n.ABORT
        request._sync(request_pointer)
        return n.CONTINUE

    def call_request(request_pointer: int, _userdata: Any) -> int:
        return _lend(router, request_pointer, lambda _ctx, request: body(request_pointer, request))
    return call_request


def _sink(sink: Callable[[str], Any]) -> Callable[[Optional[bytes], Any], None]:
    """The logger's line callback. It returns nothing the library reads, so an exception is kept
    for resolve() to re-raise (and the resolve's later Python callbacks refuse to run). Outside any
    resolve of this package (a replay from C) there is none to re-raise it: ctypes reports it."""
    def call_sink(line: Optional[bytes], _userdata: Any) -> None:
        if not getattr(_local, "stack", None):
            sink(text(line) or "")
            return
        ctx = _local.stack[-1]
        if ctx.exception is not None:
            return
        try:
            sink(text(line) or "")
        except BaseException as error:  # noqa: BLE001 - re-raised from resolve()
            ctx.exception = error
    return call_sink
