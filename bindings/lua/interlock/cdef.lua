-- Generated from include/interlock.h by Tools/headergen.py (make lua-cdef); do not edit.
-- cdef: the header's typedefs and prototypes, for ffi.cdef.
-- constants: its integer #defines by name; groups: their names by the header's @defgroup.
return {
  cdef = [[
typedef struct ilk_router ilk_router;
typedef struct ilk_match ilk_match;
typedef struct ilk_request ilk_request;
typedef struct ilk_response ilk_response;
typedef struct ilk_result ilk_result;
typedef struct ilk_filter_chain ilk_filter_chain;
typedef struct ilk_interceptor ilk_interceptor;
typedef void (*ilk_free_fn)(void *userdata);
typedef int (*ilk_destination_fn)(const ilk_request *request, ilk_response *response, void *userdata);
typedef int (*ilk_filter_fn)(ilk_request *request, ilk_filter_chain *chain, void *userdata);
typedef int (*ilk_guard_fn)(const ilk_request *request, void *userdata);
typedef int (*ilk_request_interceptor_fn)(ilk_request *request, void *userdata);
typedef int (*ilk_response_interceptor_fn)(ilk_request *request, ilk_response *response, void *userdata);
typedef void (*ilk_log_fn)(const char *line, void *userdata);
typedef struct ilk_match_batch ilk_match_batch;
typedef struct ilk_match_batch_view { size_t count; size_t first_error; const void *data; size_t size; } ilk_match_batch_view;
const char *ilk_version(void);
int ilk_version_number(void);
const char *ilk_errmsg(void);
size_t ilk_erroffset(void);
const char *ilk_errstr(int code);
int ilk_router_new(ilk_router **out, uint32_t flags);
void ilk_router_free(ilk_router *router);
int ilk_router_add_route(ilk_router *router, const char *pattern, ilk_destination_fn destination, void *userdata, ilk_free_fn free_fn, uint32_t *route_id);
int ilk_router_set_default(ilk_router *router, ilk_destination_fn destination, void *userdata, ilk_free_fn free_fn);
int ilk_router_add_named_route(ilk_router *router, const char *pattern, const char *name, ilk_destination_fn destination, void *userdata, ilk_free_fn free_fn, uint32_t *route_id);
int ilk_router_add_filter(ilk_router *router, const char *name, ilk_filter_fn filter, void *userdata, ilk_free_fn free_fn);
int ilk_router_set_guard(ilk_router *router, uint32_t route_id, ilk_guard_fn guard, void *userdata, ilk_free_fn free_fn);
int ilk_router_add_interceptor(ilk_router *router, const ilk_interceptor *interceptor, uint32_t route_id);
int ilk_router_set_limits(ilk_router *router, unsigned redirect_limit, unsigned retry_limit);
int ilk_router_set_match_limit(ilk_router *router, uint32_t match_limit);
size_t ilk_router_pending_link(ilk_router *router, char *buffer, size_t capacity);
size_t ilk_router_take_pending_link(ilk_router *router, char *buffer, size_t capacity);
int ilk_router_replay_pending_link(ilk_router *router, ilk_result **out);
int ilk_router_url_for(ilk_router *router, const char *name, const char *const *names, const char *const *values, size_t count, char *buffer, size_t capacity, size_t *length);
int ilk_router_route_name(const ilk_router *router, uint32_t route_id, const char **name);
size_t ilk_router_route_count(const ilk_router *router);
int ilk_router_route_pattern(const ilk_router *router, uint32_t route_id, const char **pattern);
int ilk_router_route_id(const ilk_router *router, const char *name, uint32_t *route_id);
int ilk_router_next_route(const ilk_router *router, uint32_t after, uint32_t *route_id);
int ilk_router_remove_route(ilk_router *router, uint32_t route_id);
int ilk_router_replace_route(ilk_router *router, uint32_t route_id, const char *pattern);
int ilk_router_set_route_data(ilk_router *router, uint32_t route_id, void *data, ilk_free_fn free_fn);
int ilk_router_compile(ilk_router *router);
int ilk_router_load(ilk_router *router, const char *text, size_t length, size_t *count);
int ilk_router_load_ids(ilk_router *router, const char *text, size_t length, uint32_t *ids, size_t capacity, size_t *count);
int ilk_router_set_destination(ilk_router *router, uint32_t route_id, ilk_destination_fn destination, void *userdata, ilk_free_fn free_fn);
const char *ilk_router_route_value(const ilk_router *router, uint32_t route_id, const char *key);
int ilk_router_explain(ilk_router *router, const char *method, const char *uri, size_t uri_len, char *buffer, size_t capacity, size_t *length);
int ilk_match_new(ilk_match **out);
void ilk_match_free(ilk_match *m);
int ilk_router_match(ilk_router *router, const char *method, const char *uri, size_t uri_len, ilk_match *m);
uint32_t ilk_match_route_id(const ilk_match *m);
void *ilk_match_route_data(const ilk_match *m);
const char *ilk_match_pattern(const ilk_match *m);
size_t ilk_match_param_count(const ilk_match *m);
int ilk_match_param_at(const ilk_match *m, size_t i, const char **name, size_t *name_len, const char **value, size_t *value_len);
int ilk_match_param(const ilk_match *m, const char *name, const char **value, size_t *value_len);
size_t ilk_match_allowed_count(const ilk_match *m);
const char *ilk_match_allowed_at(const ilk_match *m, size_t i);
int ilk_interceptor_new_request(ilk_interceptor **out, const char *name, ilk_request_interceptor_fn fn, void *userdata, ilk_free_fn free_fn);
int ilk_interceptor_new_response(ilk_interceptor **out, const char *name, ilk_response_interceptor_fn fn, void *userdata, ilk_free_fn free_fn);
int ilk_interceptor_chain_before(ilk_interceptor **out, const ilk_interceptor *a, const ilk_interceptor *b);
int ilk_interceptor_chain_after(ilk_interceptor **out, const ilk_interceptor *a, const ilk_interceptor *b);
int ilk_interceptor_chain_in_order(ilk_interceptor **out, const ilk_interceptor *const *list, size_t count);
int ilk_interceptor_new_logging(ilk_interceptor **request_side, ilk_interceptor **response_side, ilk_log_fn fn, void *userdata, ilk_free_fn free_fn);
int ilk_interceptor_new_validate_status(ilk_interceptor **out, int min_status, int max_status);
void ilk_interceptor_free(ilk_interceptor *interceptor);
int ilk_filter_chain_next(ilk_filter_chain *chain, ilk_request *request);
ilk_response *ilk_filter_chain_response(ilk_filter_chain *chain);
int ilk_filter_chain_redirect(ilk_filter_chain *chain, const char *uri);
int ilk_filter_chain_redirect_to_route(ilk_filter_chain *chain, const char *name, const char *const *names, const char *const *values, size_t count);
int ilk_router_resolve(ilk_router *router, const char *method, const char *uri, size_t uri_len, ilk_result **out);
const char *ilk_request_uri(const ilk_request *request);
const char *ilk_request_method(const ilk_request *request);
const char *ilk_request_scheme(const ilk_request *request);
const char *ilk_request_host(const ilk_request *request);
const char *ilk_request_port(const ilk_request *request);
const char *ilk_request_path(const ilk_request *request);
const char *ilk_request_fragment(const ilk_request *request);
uint32_t ilk_request_route_id(const ilk_request *request);
void *ilk_request_route_data(const ilk_request *request);
const char *ilk_request_pattern(const ilk_request *request);
size_t ilk_request_param_count(const ilk_request *request);
int ilk_request_param_at(const ilk_request *request, size_t i, const char **name, size_t *name_len, const char **value, size_t *value_len);
const char *ilk_request_param(const ilk_request *request, const char *name);
size_t ilk_request_query_count(const ilk_request *request);
int ilk_request_query_at(const ilk_request *request, size_t i, const char **key, const char **value);
const char *ilk_request_query(const ilk_request *request, const char *key);
const char *ilk_request_metadata(const ilk_request *request, const char *key);
size_t ilk_request_metadata_count(const ilk_request *request);
int ilk_request_metadata_at(const ilk_request *request, size_t i, const char **key, const char **value);
int ilk_request_set_metadata(ilk_request *request, const char *key, const char *value);
int ilk_request_set_param(ilk_request *request, const char *name, const char *value);
int ilk_request_remove_param(ilk_request *request, const char *name);
const char *ilk_request_state(const ilk_request *request, const char *key);
int ilk_request_set_state(const ilk_request *request, const char *key, const char *value);
int ilk_request_set_error(ilk_request *request, const char *message);
int ilk_response_status(const ilk_response *response);
const void *ilk_response_body(const ilk_response *response, size_t *len);
size_t ilk_response_header_count(const ilk_response *response);
int ilk_response_header_at(const ilk_response *response, size_t i, const char **name, const char **value);
int ilk_response_clear_headers(ilk_response *response);
int ilk_response_set_status(ilk_response *response, int status);
int ilk_response_set_body(ilk_response *response, const void *body, size_t len);
int ilk_response_add_header(ilk_response *response, const char *name, const char *value);
int ilk_response_set_error(ilk_response *response, const char *message);
int ilk_result_status(const ilk_result *result);
const ilk_request *ilk_result_request(const ilk_result *result);
uint32_t ilk_result_route_id(const ilk_result *result);
int ilk_result_response_status(const ilk_result *result);
const void *ilk_result_body(const ilk_result *result, size_t *len);
size_t ilk_result_header_count(const ilk_result *result);
int ilk_result_header_at(const ilk_result *result, size_t i, const char **name, const char **value);
const char *ilk_result_error(const ilk_result *result);
size_t ilk_result_redirect_count(const ilk_result *result);
const char *ilk_result_redirect_at(const ilk_result *result, size_t i);
size_t ilk_result_trace_count(const ilk_result *result);
int ilk_result_trace_at(const ilk_result *result, size_t i, const char **stage, const char **name, const char **decision);
const char *ilk_result_state(const ilk_result *result, const char *key);
size_t ilk_result_allowed_count(const ilk_result *result);
const char *ilk_result_allowed_at(const ilk_result *result, size_t i);
void ilk_result_free(ilk_result *result);
int64_t ilk_router_match_packed(ilk_router *router, const char *method, const char *uri, size_t uri_len, ilk_match *m);
int ilk_match_set_buffer(ilk_match *m, char *buffer, size_t capacity);
int ilk_match_batch_new(ilk_match_batch **out);
void ilk_match_batch_free(ilk_match_batch *batch);
int ilk_router_match_many(ilk_router *router, const char *method, const char *uris, size_t uris_len, ilk_match_batch *batch);
size_t ilk_match_batch_count(const ilk_match_batch *batch);
int ilk_match_batch_arrays(const ilk_match_batch *batch, const int32_t **statuses, const uint32_t **route_ids, const size_t **offsets);
const char *ilk_match_batch_text(const ilk_match_batch *batch, size_t *len);
int ilk_match_batch_copy(const ilk_match_batch *batch, void *out, size_t out_len, size_t *needed);
int ilk_router_match_requests(ilk_router *router, const char *methods, size_t methods_len, const char *uris, size_t uris_len, ilk_match_batch *batch, ilk_match_batch_view *view);
int ilk_request_packed(const ilk_request *request, const char **data, size_t *len);
int ilk_response_copy(const ilk_response *response, void *out, size_t out_len, size_t *needed);
int ilk_result_packed(const ilk_result *result, const char **data, size_t *len);
int ilk_result_copy(const ilk_result *result, void *out, size_t out_len, size_t *needed);
]],
  constants = {
    ILK_VERSION_MAJOR = 0,
    ILK_VERSION_MINOR = 3,
    ILK_VERSION_PATCH = 0,
    ILK_VERSION_NUMBER = 3000,
    ILK_OK = 0,
    ILK_NOT_FOUND = 1,
    ILK_METHOD_NOT_ALLOWED = 2,
    ILK_STOPPED = 3,
    ILK_GUARDED = 4,
    ILK_ABORTED = 5,
    ILK_REDIRECT_LOOP = 6,
    ILK_RETRY_LIMIT = 7,
    ILK_REDIRECTED = 8,
    ILK_RETRYING = 9,
    ILK_EINVAL = -1,
    ILK_EPATTERN = -2,
    ILK_ECONFLICT = -3,
    ILK_EURI = -4,
    ILK_ENOMEM = -5,
    ILK_ELIMIT = -6,
    ILK_ENOROUTE = -7,
    ILK_ECALLBACK = -8,
    ILK_NO_OFFSET = 18446744073709551615ULL,
    ILK_CONTINUE = 0,
    ILK_STOP = 101,
    ILK_REDIRECT = 102,
    ILK_ABORT = 103,
    ILK_RETRY = 104,
    ILK_CASE_INSENSITIVE = 1,
    ILK_STRICT_SLASH = 2,
    ILK_DEFAULT_REDIRECT_LIMIT = 8,
    ILK_DEFAULT_RETRY_LIMIT = 3,
    ILK_BATCH_STATUS_SIZE = 4,
    ILK_BATCH_ROUTE_ID_SIZE = 4,
    ILK_BATCH_OFFSET_SIZE = 8,
  },
  groups = {
    version = { "ILK_VERSION_MAJOR", "ILK_VERSION_MINOR", "ILK_VERSION_PATCH", "ILK_VERSION_NUMBER" },
    status = { "ILK_OK", "ILK_NOT_FOUND", "ILK_METHOD_NOT_ALLOWED", "ILK_STOPPED", "ILK_GUARDED", "ILK_ABORTED", "ILK_REDIRECT_LOOP", "ILK_RETRY_LIMIT", "ILK_REDIRECTED", "ILK_RETRYING", "ILK_EINVAL", "ILK_EPATTERN", "ILK_ECONFLICT", "ILK_EURI", "ILK_ENOMEM", "ILK_ELIMIT", "ILK_ENOROUTE", "ILK_ECALLBACK", "ILK_NO_OFFSET" },
    callbacks = { "ILK_CONTINUE", "ILK_STOP", "ILK_REDIRECT", "ILK_ABORT", "ILK_RETRY" },
    routers = { "ILK_CASE_INSENSITIVE", "ILK_STRICT_SLASH", "ILK_DEFAULT_REDIRECT_LIMIT", "ILK_DEFAULT_RETRY_LIMIT" },
    per_call = { "ILK_BATCH_STATUS_SIZE", "ILK_BATCH_ROUTE_ID_SIZE", "ILK_BATCH_OFFSET_SIZE" },
  },
}
