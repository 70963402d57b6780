/* values.c: requests and responses between the library and JavaScript. Each returns NULL or 0
 * with a JavaScript exception pending when a value is wrong. */
#ifndef INTERLOCK_NODE_VALUES_H
#define INTERLOCK_NODE_VALUES_H

#include "addon.h"

napi_value make_request(napi_env env, router_native *r, const ilk_request *request, napi_value state);
int sync_request(napi_env env, napi_value request_obj, ilk_request *request);
napi_value make_response(napi_env env, const ilk_response *response);
/* Reads header `i` of `source` (a response, a result) as the library's *_header_at does. */
typedef int (*header_at_fn)(const void *source, size_t i, const char **name, const char **value);
/* A Response object: the status, a copy of the body (a Buffer), the headers as [name, value] pairs. */
napi_value response_object(napi_env env, int status, const void *body, size_t body_len, size_t header_count,
                           header_at_fn at, const void *source);
int write_response(napi_env env, ilk_response *response, napi_value object);
int write_returned(napi_env env, ilk_response *response, napi_value returned, const char *who);
int set_body(napi_env env, ilk_response *response, napi_value body, const char *what);

#endif
