"""Interlock: an embeddable routing core, from Python.

    import interlock

    router = interlock.Router()

    @router.route("myapp://user/:id(\\d+)", name="user")
    def user(request):
        return f"user {request.params['id']}"

    result = router.resolve("myapp://user/42?coupon=X")
    assert result.status is interlock.Status.OK and result.response.body == b"user 42"

Patterns, URI rules, precedence and the pipeline are the library's: see the project README.
`interlock.accelerated` says whether `Router.match` runs through the compiled accelerator
(interlock/_speedups.c; INTERLOCK_PURE_PYTHON=1 leaves it unused) or through ctypes alone.
"""

from ._door import accelerated
from ._native import EXPECTED_VERSION as __version__
from ._router import (Abort, CallbackError, ConflictError, Error, InvalidArgumentError,
                      LimitError, LoggingInterceptor, Match, MatchList, MethodNotAllowedError, PatternError,
                      QueryDict, Request, Response, Result, RouteInfo, Router, Routes, Status, TraceEntry, URIError,
                      UnknownRouteError, ValidateStatus, chain_after, chain_before, chain_in_order)

__all__ = [
    "Abort", "CallbackError", "ConflictError", "Error", "InvalidArgumentError", "LimitError",
    "LoggingInterceptor", "Match", "MatchList", "MethodNotAllowedError", "PatternError", "QueryDict",
    "Request", "Response", "Result", "RouteInfo", "Router", "Routes", "Status", "TraceEntry", "URIError",
    "UnknownRouteError", "ValidateStatus", "__version__", "accelerated", "chain_after", "chain_before", "chain_in_order",
]
