/* values.c: requests and responses between the library and JavaScript. Each returns NULL or 0
 * with a JavaScript exception pending when a value is wrong. */
#ifndef INTERLOCK_NODE_VALUES_H
#define INTERLOCK_NODE_VALUES_H

#include "addon.h"

napi_value make_request(napi_env env, router_native *r, const ilk_request *request, napi_value state);
int sync_request(napi_env env, napi_value request_obj, ilk_request *request);
napi_value make_response(napi_env env, const ilk_response *response);
int write_response(napi_env env, ilk_response *response, napi_value object);
int write_returned(napi_env env, ilk_response *response, napi_value returned);
int set_body(napi_env env, ilk_response *response, napi_value body, const char *what);

#endif
