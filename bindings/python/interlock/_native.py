"""Loading libinterlock with ctypes and declaring its functions. Nothing here decides anything:
every rule lives in the library."""

from __future__ import annotations

import ctypes
import os
from ctypes import (CFUNCTYPE, POINTER, c_char_p, c_int, c_int32, c_size_t, c_uint, c_uint32,
                    c_void_p)
from pathlib import Path

EXPECTED_VERSION = "0.3.0"  # the header's ILK_VERSION (tests/test_version.py checks it)
_LIBRARY_NAME = "libinterlock.so"


def _candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    found: list[Path] = []
    env = os.environ.get("INTERLOCK_LIBRARY")
    if env:
        return [Path(env)]
    found.append(here / _LIBRARY_NAME)                              # installed with the package
    found.append(here.parent.parent.parent / "build" / "lib" / _LIBRARY_NAME)  # a source checkout
    return found


def _load() -> ctypes.CDLL:
    tried: list[str] = []
    for path in _candidates():
        if not path.exists():
            tried.append(f"{path} (missing)")
            continue
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as error:
            tried.append(f"{path} ({error})")
            continue
        try:
            ilk_version = lib.ilk_version
        except AttributeError:
            raise ImportError(f"interlock: {path} is not the Interlock library (it has no ilk_version)") from None
        ilk_version.restype = c_char_p
        version = (ilk_version() or b"?").decode("utf-8", "replace")
        if version != EXPECTED_VERSION:
            raise ImportError(
                f"interlock: {path} is version {version}, this package needs {EXPECTED_VERSION}")
        return lib
    raise ImportError("interlock: cannot load the Interlock library; looked for "
                      + "; ".join(tried)
                      + ". Build it (make build, or pip install ./bindings/python) or set INTERLOCK_LIBRARY.")


lib = _load()
# The same library through PyDLL, which keeps the GIL over a call: for the calls of the hot path
# that take a microsecond or less and call nothing back (a lookup, the copies of a result).
# Releasing and retaking the GIL around them (what CDLL does, about a tenth of a lookup) buys other
# threads nothing. The library's own lock is never held while it calls out, so waiting on it with
# the GIL held cannot deadlock. A resolve, which runs a pipeline, goes through `lib` and lets go of
# the GIL (_slot.py). `pydll[name]` makes a function object of its own, leaving `lib`'s declared.
pydll = ctypes.PyDLL(lib._name, handle=lib._handle)

# The optional compiled accelerator (interlock/_speedups.c; _door.py and _matches.py use it), or
# None: not built, or INTERLOCK_PURE_PYTHON set (to anything but "" or "0") at import.
try:
    if os.environ.get("INTERLOCK_PURE_PYTHON", "") not in ("", "0"):
        raise ImportError("INTERLOCK_PURE_PYTHON is set")
    from . import _speedups as speedups
except ImportError:
    speedups = None

PP = POINTER(c_char_p)

DESTINATION_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p)
FILTER_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p)
GUARD_FN = CFUNCTYPE(c_int, c_void_p, c_void_p)
REQUEST_INTERCEPTOR_FN = CFUNCTYPE(c_int, c_void_p, c_void_p)
RESPONSE_INTERCEPTOR_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p)
LOG_FN = CFUNCTYPE(None, c_char_p, c_void_p)
FREE_FN = CFUNCTYPE(None, c_void_p)


class MatchBatchView(ctypes.Structure):
    """ilk_match_batch_view: where a batch's answers lie (ilk_router_match_requests)."""
    _fields_ = [("count", c_size_t), ("first_error", c_size_t), ("data", c_void_p), ("size", c_size_t)]


def _declare(name: str, restype, *argtypes) -> None:
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)


for _name, _res, _args in [
    ("ilk_version_number", c_int, []),
    ("ilk_errmsg", c_char_p, []),
    ("ilk_erroffset", c_size_t, []),
    ("ilk_errstr", c_char_p, [c_int]),
    ("ilk_router_new", c_int, [POINTER(c_void_p), c_uint32]),
    ("ilk_router_free", None, [c_void_p]),
    ("ilk_router_add_route", c_int, [c_void_p, c_char_p, DESTINATION_FN, c_void_p, c_void_p, POINTER(c_uint32)]),
    ("ilk_router_add_named_route", c_int, [c_void_p, c_char_p, c_char_p, DESTINATION_FN, c_void_p, c_void_p, POINTER(c_uint32)]),
    ("ilk_router_set_default", c_int, [c_void_p, DESTINATION_FN, c_void_p, c_void_p]),
    ("ilk_router_route_count", c_size_t, [c_void_p]),
    ("ilk_router_route_pattern", c_int, [c_void_p, c_uint32, PP]),
    ("ilk_router_route_name", c_int, [c_void_p, c_uint32, PP]),
    ("ilk_router_route_id", c_int, [c_void_p, c_char_p, POINTER(c_uint32)]),
    ("ilk_router_next_route", c_int, [c_void_p, c_uint32, POINTER(c_uint32)]),
    ("ilk_router_remove_route", c_int, [c_void_p, c_uint32]),
    ("ilk_router_replace_route", c_int, [c_void_p, c_uint32, c_char_p]),
    ("ilk_router_set_route_data", c_int, [c_void_p, c_uint32, c_void_p, c_void_p]),
    ("ilk_router_compile", c_int, [c_void_p]),
    ("ilk_router_load", c_int, [c_void_p, c_char_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_router_set_destination", c_int, [c_void_p, c_uint32, DESTINATION_FN, c_void_p, c_void_p]),
    ("ilk_router_route_value", c_char_p, [c_void_p, c_uint32, c_char_p]),
    ("ilk_router_explain", c_int, [c_void_p, c_char_p, c_char_p, c_size_t, c_char_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_router_add_filter", c_int, [c_void_p, c_char_p, FILTER_FN, c_void_p, c_void_p]),
    ("ilk_router_set_guard", c_int, [c_void_p, c_uint32, GUARD_FN, c_void_p, c_void_p]),
    ("ilk_router_add_interceptor", c_int, [c_void_p, c_void_p, c_uint32]),
    ("ilk_router_set_limits", c_int, [c_void_p, c_uint, c_uint]),
    ("ilk_router_set_match_limit", c_int, [c_void_p, c_uint32]),
    ("ilk_router_pending_link", c_size_t, [c_void_p, ctypes.c_char_p, c_size_t]),
    ("ilk_router_take_pending_link", c_size_t, [c_void_p, ctypes.c_char_p, c_size_t]),
    ("ilk_router_replay_pending_link", c_int, [c_void_p, POINTER(c_void_p)]),
    ("ilk_router_url_for", c_int, [c_void_p, c_char_p, PP, PP, c_size_t, ctypes.c_char_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_match_new", c_int, [POINTER(c_void_p)]),
    ("ilk_match_free", None, [c_void_p]),
    ("ilk_router_match", c_int, [c_void_p, c_char_p, c_char_p, c_size_t, c_void_p]),
    ("ilk_router_match_packed", ctypes.c_int64, [c_void_p, c_char_p, c_char_p, c_size_t, c_void_p]),
    ("ilk_match_set_buffer", c_int, [c_void_p, c_char_p, c_size_t]),
    ("ilk_match_route_id", c_uint32, [c_void_p]),
    ("ilk_match_param_count", c_size_t, [c_void_p]),
    ("ilk_match_param_at", c_int, [c_void_p, c_size_t, PP, POINTER(c_size_t), PP, POINTER(c_size_t)]),
    ("ilk_match_allowed_count", c_size_t, [c_void_p]),
    ("ilk_match_allowed_at", c_char_p, [c_void_p, c_size_t]),
    ("ilk_match_batch_new", c_int, [POINTER(c_void_p)]),
    ("ilk_match_batch_free", None, [c_void_p]),
    ("ilk_router_match_many", c_int, [c_void_p, c_char_p, c_char_p, c_size_t, c_void_p]),
    ("ilk_match_batch_count", c_size_t, [c_void_p]),
    ("ilk_match_batch_arrays", c_int, [c_void_p, POINTER(c_void_p), POINTER(c_void_p), POINTER(c_void_p)]),
    ("ilk_match_batch_text", c_void_p, [c_void_p, POINTER(c_size_t)]),
    ("ilk_match_batch_copy", c_int, [c_void_p, c_void_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_router_match_requests", c_int, [c_void_p, c_char_p, c_size_t, c_char_p, c_size_t, c_void_p,
                                          POINTER(MatchBatchView)]),
    ("ilk_router_resolve", c_int, [c_void_p, c_char_p, c_char_p, c_size_t, POINTER(c_void_p)]),
    ("ilk_request_packed", c_int, [c_void_p, POINTER(c_void_p), POINTER(c_size_t)]),
    ("ilk_result_packed", c_int, [c_void_p, POINTER(c_void_p), POINTER(c_size_t)]),
    ("ilk_result_copy", c_int, [c_void_p, c_void_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_response_copy", c_int, [c_void_p, c_void_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_request_uri", c_char_p, [c_void_p]),
    ("ilk_request_method", c_char_p, [c_void_p]),
    ("ilk_request_scheme", c_char_p, [c_void_p]),
    ("ilk_request_host", c_char_p, [c_void_p]),
    ("ilk_request_port", c_char_p, [c_void_p]),
    ("ilk_request_path", c_char_p, [c_void_p]),
    ("ilk_request_fragment", c_char_p, [c_void_p]),
    ("ilk_request_route_id", c_uint32, [c_void_p]),
    ("ilk_request_pattern", c_char_p, [c_void_p]),
    ("ilk_request_param_count", c_size_t, [c_void_p]),
    ("ilk_request_param_at", c_int, [c_void_p, c_size_t, PP, PP]),
    ("ilk_request_query_count", c_size_t, [c_void_p]),
    ("ilk_request_query_at", c_int, [c_void_p, c_size_t, PP, PP]),
    ("ilk_request_metadata_count", c_size_t, [c_void_p]),
    ("ilk_request_metadata_at", c_int, [c_void_p, c_size_t, PP, PP]),
    ("ilk_request_set_metadata", c_int, [c_void_p, c_char_p, c_char_p]),
    ("ilk_request_set_param", c_int, [c_void_p, c_char_p, c_char_p]),
    ("ilk_request_remove_param", c_int, [c_void_p, c_char_p]),
    ("ilk_request_set_error", c_int, [c_void_p, c_char_p]),
    ("ilk_response_set_status", c_int, [c_void_p, c_int]),
    ("ilk_response_set_body", c_int, [c_void_p, c_char_p, c_size_t]),
    ("ilk_response_add_header", c_int, [c_void_p, c_char_p, c_char_p]),
    ("ilk_response_clear_headers", c_int, [c_void_p]),
    ("ilk_response_set_error", c_int, [c_void_p, c_char_p]),
    ("ilk_response_status", c_int, [c_void_p]),
    ("ilk_response_body", c_void_p, [c_void_p, POINTER(c_size_t)]),
    ("ilk_response_header_count", c_size_t, [c_void_p]),
    ("ilk_response_header_at", c_int, [c_void_p, c_size_t, PP, PP]),
    ("ilk_result_status", c_int, [c_void_p]),
    ("ilk_result_request", c_void_p, [c_void_p]),
    ("ilk_result_route_id", c_uint32, [c_void_p]),
    ("ilk_result_response_status", c_int, [c_void_p]),
    ("ilk_result_body", c_void_p, [c_void_p, POINTER(c_size_t)]),
    ("ilk_result_header_count", c_size_t, [c_void_p]),
    ("ilk_result_header_at", c_int, [c_void_p, c_size_t, PP, PP]),
    ("ilk_result_error", c_char_p, [c_void_p]),
    ("ilk_result_allowed_count", c_size_t, [c_void_p]),
    ("ilk_result_allowed_at", c_char_p, [c_void_p, c_size_t]),
    ("ilk_result_redirect_count", c_size_t, [c_void_p]),
    ("ilk_result_redirect_at", c_char_p, [c_void_p, c_size_t]),
    ("ilk_result_trace_count", c_size_t, [c_void_p]),
    ("ilk_result_trace_at", c_int, [c_void_p, c_size_t, PP, PP, PP]),
    ("ilk_result_free", None, [c_void_p]),
    ("ilk_filter_chain_next", c_int, [c_void_p, c_void_p]),
    ("ilk_filter_chain_response", c_void_p, [c_void_p]),
    ("ilk_filter_chain_redirect", c_int, [c_void_p, c_char_p]),
    ("ilk_filter_chain_redirect_to_route", c_int, [c_void_p, c_char_p, PP, PP, c_size_t]),
    ("ilk_interceptor_new_request", c_int, [POINTER(c_void_p), c_char_p, REQUEST_INTERCEPTOR_FN, c_void_p, c_void_p]),
    ("ilk_interceptor_new_response", c_int, [POINTER(c_void_p), c_char_p, RESPONSE_INTERCEPTOR_FN, c_void_p, c_void_p]),
    ("ilk_interceptor_chain_in_order", c_int, [POINTER(c_void_p), POINTER(c_void_p), c_size_t]),
    ("ilk_interceptor_new_logging", c_int, [POINTER(c_void_p), POINTER(c_void_p), LOG_FN, c_void_p, c_void_p]),
    ("ilk_interceptor_new_validate_status", c_int, [POINTER(c_void_p), c_int, c_int]),
    ("ilk_interceptor_free", None, [c_void_p]),
]:
    _declare(_name, _res, *_args)

# The header's integer constants, ILK_X as X (tests/test_contract.py checks them against it).
OK, NOT_FOUND, METHOD_NOT_ALLOWED = 0, 1, 2
STOPPED, GUARDED, ABORTED, REDIRECT_LOOP, RETRY_LIMIT = 3, 4, 5, 6, 7
REDIRECTED, RETRYING = 8, 9  # from ilk_filter_chain_next
EINVAL, EPATTERN, ECONFLICT, EURI, ENOMEM, ELIMIT, ENOROUTE, ECALLBACK = -1, -2, -3, -4, -5, -6, -7, -8
CONTINUE, STOP, REDIRECT, ABORT, RETRY = 0, 101, 102, 103, 104
CASE_INSENSITIVE, STRICT_SLASH = 1, 2
NO_OFFSET = ctypes.c_size_t(-1).value


def text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("utf-8", "surrogateescape")
