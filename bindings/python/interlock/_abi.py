# Generated from include/interlock.h by Tools/headergen.py (make python-abi); do not edit.
"""The C contract as ctypes sees it, every fact of it the header's: its integer constants
(ILK_X as X), its callback types (ilk_x_fn as X_FN), its structs, and `PROTOTYPES`, each
function's (name, restype, argtypes). _native.py loads the library and declares them."""

from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int32, c_int64, c_size_t,
                    c_uint, c_uint32, c_uint64, c_void_p)

# @defgroup version
VERSION_MAJOR = 0
VERSION_MINOR = 3
VERSION_PATCH = 0
VERSION_NUMBER = 3000

# @defgroup status
OK = 0
NOT_FOUND = 1
METHOD_NOT_ALLOWED = 2
STOPPED = 3
GUARDED = 4
ABORTED = 5
REDIRECT_LOOP = 6
RETRY_LIMIT = 7
REDIRECTED = 8
RETRYING = 9
EINVAL = -1
EPATTERN = -2
ECONFLICT = -3
EURI = -4
ENOMEM = -5
ELIMIT = -6
ENOROUTE = -7
ECALLBACK = -8
NO_OFFSET = 18446744073709551615

# @defgroup callbacks
CONTINUE = 0
STOP = 101
REDIRECT = 102
ABORT = 103
RETRY = 104

# @defgroup routers
CASE_INSENSITIVE = 1
STRICT_SLASH = 2
DEFAULT_REDIRECT_LIMIT = 8
DEFAULT_RETRY_LIMIT = 3

# @defgroup per_call
BATCH_STATUS_SIZE = 4
BATCH_ROUTE_ID_SIZE = 4
BATCH_OFFSET_SIZE = 8


def _callback(*signature):
    """A callback type (CFUNCTYPE) that also takes None, as NULL: every callback the header
    takes may be NULL."""
    proto = CFUNCTYPE(*signature)

    class Callback(proto):
        _flags_, _argtypes_, _restype_ = proto._flags_, proto._argtypes_, proto._restype_

        @classmethod
        def from_param(cls, value):
            return None if value is None else proto.from_param(value)
    return Callback


FREE_FN = _callback(None, c_void_p)
DESTINATION_FN = _callback(c_int, c_void_p, c_void_p, c_void_p)
FILTER_FN = _callback(c_int, c_void_p, c_void_p, c_void_p)
GUARD_FN = _callback(c_int, c_void_p, c_void_p)
REQUEST_INTERCEPTOR_FN = _callback(c_int, c_void_p, c_void_p)
RESPONSE_INTERCEPTOR_FN = _callback(c_int, c_void_p, c_void_p, c_void_p)
LOG_FN = _callback(None, c_char_p, c_void_p)


class MatchBatchView(Structure):
    """ilk_match_batch_view."""

    _fields_ = [("count", c_size_t), ("first_error", c_size_t), ("data", c_void_p), ("size", c_size_t)]


PROTOTYPES = [
    ("ilk_version", c_char_p, []),
    ("ilk_version_number", c_int, []),
    ("ilk_errmsg", c_char_p, []),
    ("ilk_erroffset", c_size_t, []),
    ("ilk_errstr", c_char_p, [c_int]),
    ("ilk_router_new", c_int, [POINTER(c_void_p), c_uint32]),
    ("ilk_router_free", None, [c_void_p]),
    ("ilk_router_add_route", c_int, [c_void_p, c_char_p, DESTINATION_FN, c_void_p, FREE_FN, POINTER(c_uint32)]),
    ("ilk_router_set_default", c_int, [c_void_p, DESTINATION_FN, c_void_p, FREE_FN]),
    ("ilk_router_add_named_route", c_int, [c_void_p, c_char_p, c_char_p, DESTINATION_FN, c_void_p, FREE_FN, POINTER(c_uint32)]),
    ("ilk_router_add_filter", c_int, [c_void_p, c_char_p, FILTER_FN, c_void_p, FREE_FN]),
    ("ilk_router_set_guard", c_int, [c_void_p, c_uint32, GUARD_FN, c_void_p, FREE_FN]),
    ("ilk_router_add_interceptor", c_int, [c_void_p, c_void_p, c_uint32]),
    ("ilk_router_set_limits", c_int, [c_void_p, c_uint, c_uint]),
    ("ilk_router_set_match_limit", c_int, [c_void_p, c_uint32]),
    ("ilk_router_pending_link", c_size_t, [c_void_p, c_char_p, c_size_t]),
    ("ilk_router_take_pending_link", c_size_t, [c_void_p, c_char_p, c_size_t]),
    ("ilk_router_replay_pending_link", c_int, [c_void_p, POINTER(c_void_p)]),
    ("ilk_router_url_for", c_int, [c_void_p, c_char_p, POINTER(c_char_p), POINTER(c_char_p), c_size_t, c_char_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_router_route_name", c_int, [c_void_p, c_uint32, POINTER(c_char_p)]),
    ("ilk_router_route_count", c_size_t, [c_void_p]),
    ("ilk_router_route_pattern", c_int, [c_void_p, c_uint32, POINTER(c_char_p)]),
    ("ilk_router_route_id", c_int, [c_void_p, c_char_p, POINTER(c_uint32)]),
    ("ilk_router_next_route", c_int, [c_void_p, c_uint32, POINTER(c_uint32)]),
    ("ilk_router_remove_route", c_int, [c_void_p, c_uint32]),
    ("ilk_router_replace_route", c_int, [c_void_p, c_uint32, c_char_p]),
    ("ilk_router_set_route_data", c_int, [c_void_p, c_uint32, c_void_p, FREE_FN]),
    ("ilk_router_compile", c_int, [c_void_p]),
    ("ilk_router_load", c_int, [c_void_p, c_char_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_router_load_ids", c_int, [c_void_p, c_char_p, c_size_t, POINTER(c_uint32), c_size_t, POINTER(c_size_t)]),
    ("ilk_router_set_destination", c_int, [c_void_p, c_uint32, DESTINATION_FN, c_void_p, FREE_FN]),
    ("ilk_router_route_value", c_char_p, [c_void_p, c_uint32, c_char_p]),
    ("ilk_router_explain", c_int, [c_void_p, c_char_p, c_char_p, c_size_t, c_char_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_match_new", c_int, [POINTER(c_void_p)]),
    ("ilk_match_free", None, [c_void_p]),
    ("ilk_router_match", c_int, [c_void_p, c_char_p, c_char_p, c_size_t, c_void_p]),
    ("ilk_match_route_id", c_uint32, [c_void_p]),
    ("ilk_match_route_data", c_void_p, [c_void_p]),
    ("ilk_match_pattern", c_char_p, [c_void_p]),
    ("ilk_match_param_count", c_size_t, [c_void_p]),
    ("ilk_match_param_at", c_int, [c_void_p, c_size_t, POINTER(c_void_p), POINTER(c_size_t), POINTER(c_void_p), POINTER(c_size_t)]),
    ("ilk_match_param", c_int, [c_void_p, c_char_p, POINTER(c_void_p), POINTER(c_size_t)]),
    ("ilk_match_allowed_count", c_size_t, [c_void_p]),
    ("ilk_match_allowed_at", c_char_p, [c_void_p, c_size_t]),
    ("ilk_interceptor_new_request", c_int, [POINTER(c_void_p), c_char_p, REQUEST_INTERCEPTOR_FN, c_void_p, FREE_FN]),
    ("ilk_interceptor_new_response", c_int, [POINTER(c_void_p), c_char_p, RESPONSE_INTERCEPTOR_FN, c_void_p, FREE_FN]),
    ("ilk_interceptor_chain_before", c_int, [POINTER(c_void_p), c_void_p, c_void_p]),
    ("ilk_interceptor_chain_after", c_int, [POINTER(c_void_p), c_void_p, c_void_p]),
    ("ilk_interceptor_chain_in_order", c_int, [POINTER(c_void_p), POINTER(c_void_p), c_size_t]),
    ("ilk_interceptor_new_logging", c_int, [POINTER(c_void_p), POINTER(c_void_p), LOG_FN, c_void_p, FREE_FN]),
    ("ilk_interceptor_new_validate_status", c_int, [POINTER(c_void_p), c_int, c_int]),
    ("ilk_interceptor_free", None, [c_void_p]),
    ("ilk_filter_chain_next", c_int, [c_void_p, c_void_p]),
    ("ilk_filter_chain_response", c_void_p, [c_void_p]),
    ("ilk_filter_chain_redirect", c_int, [c_void_p, c_char_p]),
    ("ilk_filter_chain_redirect_to_route", c_int, [c_void_p, c_char_p, POINTER(c_char_p), POINTER(c_char_p), c_size_t]),
    ("ilk_router_resolve", c_int, [c_void_p, c_char_p, c_char_p, c_size_t, POINTER(c_void_p)]),
    ("ilk_request_uri", c_char_p, [c_void_p]),
    ("ilk_request_method", c_char_p, [c_void_p]),
    ("ilk_request_scheme", c_char_p, [c_void_p]),
    ("ilk_request_host", c_char_p, [c_void_p]),
    ("ilk_request_port", c_char_p, [c_void_p]),
    ("ilk_request_path", c_char_p, [c_void_p]),
    ("ilk_request_fragment", c_char_p, [c_void_p]),
    ("ilk_request_route_id", c_uint32, [c_void_p]),
    ("ilk_request_route_data", c_void_p, [c_void_p]),
    ("ilk_request_pattern", c_char_p, [c_void_p]),
    ("ilk_request_param_count", c_size_t, [c_void_p]),
    ("ilk_request_param_at", c_int, [c_void_p, c_size_t, POINTER(c_void_p), POINTER(c_size_t), POINTER(c_void_p), POINTER(c_size_t)]),
    ("ilk_request_param", c_char_p, [c_void_p, c_char_p]),
    ("ilk_request_query_count", c_size_t, [c_void_p]),
    ("ilk_request_query_at", c_int, [c_void_p, c_size_t, POINTER(c_char_p), POINTER(c_char_p)]),
    ("ilk_request_query", c_char_p, [c_void_p, c_char_p]),
    ("ilk_request_metadata", c_char_p, [c_void_p, c_char_p]),
    ("ilk_request_metadata_count", c_size_t, [c_void_p]),
    ("ilk_request_metadata_at", c_int, [c_void_p, c_size_t, POINTER(c_char_p), POINTER(c_char_p)]),
    ("ilk_request_set_metadata", c_int, [c_void_p, c_char_p, c_char_p]),
    ("ilk_request_set_param", c_int, [c_void_p, c_char_p, c_char_p]),
    ("ilk_request_remove_param", c_int, [c_void_p, c_char_p]),
    ("ilk_request_state", c_char_p, [c_void_p, c_char_p]),
    ("ilk_request_set_state", c_int, [c_void_p, c_char_p, c_char_p]),
    ("ilk_request_set_error", c_int, [c_void_p, c_char_p]),
    ("ilk_response_status", c_int, [c_void_p]),
    ("ilk_response_body", c_void_p, [c_void_p, POINTER(c_size_t)]),
    ("ilk_response_header_count", c_size_t, [c_void_p]),
    ("ilk_response_header_at", c_int, [c_void_p, c_size_t, POINTER(c_char_p), POINTER(c_char_p)]),
    ("ilk_response_clear_headers", c_int, [c_void_p]),
    ("ilk_response_set_status", c_int, [c_void_p, c_int]),
    ("ilk_response_set_body", c_int, [c_void_p, c_void_p, c_size_t]),
    ("ilk_response_add_header", c_int, [c_void_p, c_char_p, c_char_p]),
    ("ilk_response_set_error", c_int, [c_void_p, c_char_p]),
    ("ilk_result_status", c_int, [c_void_p]),
    ("ilk_result_request", c_void_p, [c_void_p]),
    ("ilk_result_route_id", c_uint32, [c_void_p]),
    ("ilk_result_response_status", c_int, [c_void_p]),
    ("ilk_result_body", c_void_p, [c_void_p, POINTER(c_size_t)]),
    ("ilk_result_header_count", c_size_t, [c_void_p]),
    ("ilk_result_header_at", c_int, [c_void_p, c_size_t, POINTER(c_char_p), POINTER(c_char_p)]),
    ("ilk_result_error", c_char_p, [c_void_p]),
    ("ilk_result_redirect_count", c_size_t, [c_void_p]),
    ("ilk_result_redirect_at", c_char_p, [c_void_p, c_size_t]),
    ("ilk_result_trace_count", c_size_t, [c_void_p]),
    ("ilk_result_trace_at", c_int, [c_void_p, c_size_t, POINTER(c_char_p), POINTER(c_char_p), POINTER(c_char_p)]),
    ("ilk_result_state", c_char_p, [c_void_p, c_char_p]),
    ("ilk_result_allowed_count", c_size_t, [c_void_p]),
    ("ilk_result_allowed_at", c_char_p, [c_void_p, c_size_t]),
    ("ilk_result_free", None, [c_void_p]),
    ("ilk_router_match_packed", c_int64, [c_void_p, c_char_p, c_char_p, c_size_t, c_void_p]),
    ("ilk_match_set_buffer", c_int, [c_void_p, c_char_p, c_size_t]),
    ("ilk_match_batch_new", c_int, [POINTER(c_void_p)]),
    ("ilk_match_batch_free", None, [c_void_p]),
    ("ilk_router_match_many", c_int, [c_void_p, c_char_p, c_char_p, c_size_t, c_void_p]),
    ("ilk_match_batch_count", c_size_t, [c_void_p]),
    ("ilk_match_batch_arrays", c_int, [c_void_p, POINTER(c_void_p), POINTER(c_void_p), POINTER(c_void_p)]),
    ("ilk_match_batch_text", c_void_p, [c_void_p, POINTER(c_size_t)]),
    ("ilk_match_batch_copy", c_int, [c_void_p, c_void_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_router_match_requests", c_int, [c_void_p, c_char_p, c_size_t, c_char_p, c_size_t, c_void_p, POINTER(MatchBatchView)]),
    ("ilk_request_packed", c_int, [c_void_p, POINTER(c_void_p), POINTER(c_size_t)]),
    ("ilk_response_copy", c_int, [c_void_p, c_void_p, c_size_t, POINTER(c_size_t)]),
    ("ilk_result_packed", c_int, [c_void_p, POINTER(c_void_p), POINTER(c_size_t)]),
    ("ilk_result_copy", c_int, [c_void_p, c_void_p, c_size_t, POINTER(c_size_t)]),
]
