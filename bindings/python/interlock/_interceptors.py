"""Interceptors as values (compositions, the library's logger and status validator) and the
library interceptor each Python interceptor becomes."""

from __future__ import annotations

from ctypes import byref, c_void_p
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence

from . import _native as n
from ._callbacks import _request_interceptor, _response_interceptor, _sink
from ._errors import INT, InvalidArgumentError, _callable_arg, _check, _int_arg, _wrong_type
from ._native import lib
from ._text import _b

if TYPE_CHECKING:
    from ._router import Router


class _Composite:
    def __init__(self, parts: Sequence[tuple[str, Any]]) -> None:
        if not parts:
            raise ValueError("nothing to chain")
        for what, part in parts:
            _check_interceptor(part, what)
        self.parts = [part for _, part in parts]


def _check_interceptor(item: Any, what: str) -> None:
    """A TypeError naming `what` unless `item` is an interceptor: a callable, an object with a
    callable `intercept`, a composition or a built-in."""
    if not isinstance(item, (_Composite, LoggingInterceptor, ValidateStatus)):
        if not callable(getattr(item, "intercept", item)):
            raise _wrong_type(what, item, "an interceptor (a callable, or an object with intercept())")


def chain_before(a: Any, b: Any) -> Any:
    """`a` then `b`, as one interceptor."""
    return _Composite([("a", a), ("b", b)])


def chain_after(a: Any, b: Any) -> Any:
    """`b` then `a`: `a` chained after `b`."""
    return _Composite([("b", b), ("a", a)])


def chain_in_order(interceptors: Iterable[Any]) -> Any:
    """The interceptors one after the other, as one interceptor."""
    if isinstance(interceptors, (str, bytes)) or not hasattr(interceptors, "__iter__"):
        raise _wrong_type("interceptors", interceptors, "an iterable of interceptors")
    return _Composite([(f"interceptors[{i}]", item) for i, item in enumerate(interceptors)])


class LoggingInterceptor:
    """The library's logger: one line per request and per response, to `sink(line)` or stderr.
    Add it as a request interceptor, a response interceptor, or both."""

    def __init__(self, sink: Optional[Callable[[str], None]] = None) -> None:
        self.sink = sink if sink is None else _callable_arg(sink, "sink")
        self._sides: Optional[tuple[int, int, Any]] = None


class ValidateStatus:
    """The library's status validator: aborts a response whose status is outside `allowed`."""

    def __init__(self, allowed: range = range(200, 300)) -> None:
        if not isinstance(allowed, range):
            raise _wrong_type("allowed", allowed, "a range")
        if allowed.step != 1 or len(allowed) == 0:
            raise InvalidArgumentError("allowed must be a non-empty range with step 1", n.EINVAL)
        _int_arg(allowed.start, "allowed's start", INT)
        _int_arg(allowed.stop - 1, "allowed's last status", INT)
        self.allowed = allowed


def _handle(router: "Router", item: Any, response: bool) -> int:
    """A new library interceptor handle for `item` (the caller frees it); the callbacks it holds
    are kept alive by `router`."""
    out = c_void_p()
    if isinstance(item, _Composite):
        handles = [_handle(router, part, response) for part in item.parts]
        try:
            _check(lib.ilk_interceptor_chain_in_order(byref(out), (c_void_p * len(handles))(*handles), len(handles)))
        finally:
            for h in handles:
                lib.ilk_interceptor_free(h)
        return out.value  # type: ignore[return-value]
    if isinstance(item, ValidateStatus):
        _check(lib.ilk_interceptor_new_validate_status(byref(out), item.allowed.start, item.allowed.stop - 1))
        return out.value  # type: ignore[return-value]
    if isinstance(item, LoggingInterceptor):
        request_side, response_side = c_void_p(), c_void_p()
        sink = item.sink
        log = router._retain(n.LOG_FN(_sink(sink))) if sink else n.LOG_FN()
        _check(lib.ilk_interceptor_new_logging(byref(request_side), byref(response_side), log, None, None))
        keep, drop = (response_side, request_side) if response else (request_side, response_side)
        lib.ilk_interceptor_free(drop)
        return keep.value  # type: ignore[return-value]
    _check_interceptor(item, "interceptor")
    fn = getattr(item, "intercept", item)
    label = _b(getattr(item, "__name__", type(item).__name__), "interceptor name")
    if response:
        callback = router._retain(n.RESPONSE_INTERCEPTOR_FN(_response_interceptor(router, fn)))
        _check(lib.ilk_interceptor_new_response(byref(out), label, callback, None, None))
    else:
        callback = router._retain(n.REQUEST_INTERCEPTOR_FN(_request_interceptor(router, fn)))
        _check(lib.ilk_interceptor_new_request(byref(out), label, callback, None, None))
    return out.value  # type: ignore[return-value]
