/* Router.prototype.match: the fast path. One library call (ilk_router_match_packed, the route's id
 * and its parameters packed in the thread's buffer), then the answer built with few N-API calls:
 * the route's name and pattern made once per route as JavaScript strings, the parameters' object
 * in one napi_define_properties. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* The most parameters a route binds (the library's limit, interlock.h's ilk_router_add_route). */
#define MAX_PARAMS 256

/* Route `id`'s name (or null) and pattern, made once after the route last changed. */
int route_strings(napi_env env, router_native *r, uint32_t id, napi_value *name, napi_value *pattern) {
  napi_value strings;
  route_cache *c = route_cache_of(r, id);
  if (c == NULL) {
    throw_error(env, ILK_ENOMEM, "out of memory", ILK_NO_OFFSET);
    return 0;
  }
  if (napi_get_reference_value(env, r->strings, &strings) != napi_ok) return 0;
  if (!c->strings_made) {
    const char *n = NULL, *p = NULL;
    int rc = ilk_router_route_name(r->router, id, &n);
    if (rc == ILK_OK) rc = ilk_router_route_pattern(r->router, id, &p);
    if (rc != ILK_OK) {
      throw_library(env, rc);
      return 0;
    }
    if ((*name = make_string(env, n)) == NULL || (*pattern = make_string(env, p)) == NULL) return 0;
    if (napi_set_element(env, strings, 2 * id, *name) != napi_ok ||
        napi_set_element(env, strings, 2 * id + 1, *pattern) != napi_ok)
      return 0;
    c->strings_made = 1;
    return 1;
  }
  return napi_get_element(env, strings, 2 * id, name) == napi_ok &&
         napi_get_element(env, strings, 2 * id + 1, pattern) == napi_ok;
}

/* The error for a path that routes take only under other methods: MethodNotAllowedError with
 * `allowed`, the methods they take (as resolve's result gives them). */
static napi_value throw_not_allowed(napi_env env, ilk_match *m, const char *uri, size_t uri_len, const char *method) {
  size_t count = ilk_match_allowed_count(m);
  char message[1024];
  int at = snprintf(message, sizeof message, "method %s not allowed for %.*s; allowed:", method ? method : "",
                    (int)(uri_len > 512 ? 512 : uri_len), uri);
  napi_value allowed;
  NAPI_OK(napi_create_array_with_length(env, count, &allowed));
  for (size_t i = 0; i < count; i++) {
    const char *name = ilk_match_allowed_at(m, i);
    if (at > 0 && (size_t)at < sizeof message)
      at += snprintf(message + at, sizeof message - (size_t)at, "%s %s", i ? "," : "", name);
    NAPI_OK(napi_set_element(env, allowed, (uint32_t)i, make_string(env, name)));
  }
  napi_value error = make_library_error(env, ILK_METHOD_NOT_ALLOWED, message, ILK_NO_OFFSET);
  if (error == NULL) return NULL;
  napi_set_named_property(env, error, "allowed", allowed);
  napi_throw(env, error);
  return NULL;
}

/* The parameters' object from the packed "name\0value\0..." text of `len` bytes. */
static napi_value packed_params(napi_env env, const char *text, size_t len) {
  napi_property_descriptor props[MAX_PARAMS];
  size_t count = 0;
  const char *at = text, *end = text + len;
  while (at < end && count < MAX_PARAMS) {
    const char *name = at;
    at += strlen(at) + 1;
    const char *value = at;
    size_t value_len = strlen(value);
    at += value_len + 1;
    napi_value v;
    if (napi_create_string_utf8(env, value, value_len, &v) != napi_ok) return NULL;
    props[count++] = (napi_property_descriptor){name, NULL, NULL, NULL, NULL, v, napi_default_jsproperty, NULL};
  }
  napi_value out;
  NAPI_OK(napi_create_object(env, &out));
  if (count) NAPI_OK(napi_define_properties(env, out, count, props));
  return out;
}

/* The parameters' object read one by one (when they did not fit the packed buffer). */
static napi_value each_param(napi_env env, ilk_match *m) {
  napi_value out;
  NAPI_OK(napi_create_object(env, &out));
  size_t count = ilk_match_param_count(m);
  for (size_t i = 0; i < count; i++) {
    const char *name, *value;
    size_t name_len, value_len;
    if (ilk_match_param_at(m, i, &name, &name_len, &value, &value_len) != ILK_OK) continue;
    napi_value v = make_string_n(env, value, value_len);
    napi_property_descriptor p = {name, NULL, NULL, NULL, NULL, v, napi_default_jsproperty, NULL};
    if (v == NULL) return NULL;
    NAPI_OK(napi_define_properties(env, out, 1, &p));
  }
  return out;
}

/* match(uri, method?) -> { id, name, pattern, params, data } | null; MethodNotAllowedError when
 * routes take the path under other methods only. */
napi_value router_match(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL) return NULL;
  addon_env *a = addon_env_of(env);
  char ustack[2048], mstack[72];
  text_arg uri, method;
  if (argc < 1) return throw_type(env, "uri", "a string", NULL);
  if (get_text(env, argv[0], "uri", ustack, sizeof ustack, &uri, 1, 1) != napi_ok) return NULL;
  if (!method_arg(env, argc > 1 ? argv[1] : NULL, mstack, sizeof mstack, &method)) {
    text_arg_free(&uri);
    return NULL;
  }
  int64_t got = ilk_router_match_packed(r->router, method.data, uri.data, uri.len, a->match);
  napi_value out = NULL;
  if (got >= ((int64_t)1 << 32)) {
    uint32_t id = (uint32_t)(got >> 32);
    size_t len = (size_t)(got & 0xffffffff);
    napi_value name, pattern, params, data, id_v;
    params = len <= a->params_capacity ? packed_params(env, a->params, len) : each_param(env, a->match);
    if (params == NULL || !route_strings(env, r, id, &name, &pattern)) goto done;
    route_cache *c = &r->routes[id];
    if (c->data_slot) {
      slot_ref ref = {r, c->data_slot, id};
      if ((data = slot_get(r, &ref)) == NULL) goto done;
    } else {
      napi_get_null(env, &data);
    }
    napi_create_uint32(env, id, &id_v);
    napi_property_descriptor props[] = {
        {"id", NULL, NULL, NULL, NULL, id_v, napi_default_jsproperty, NULL},
        {"name", NULL, NULL, NULL, NULL, name, napi_default_jsproperty, NULL},
        {"pattern", NULL, NULL, NULL, NULL, pattern, napi_default_jsproperty, NULL},
        {"params", NULL, NULL, NULL, NULL, params, napi_default_jsproperty, NULL},
        {"data", NULL, NULL, NULL, NULL, data, napi_default_jsproperty, NULL},
    };
    if (napi_create_object(env, &out) != napi_ok || napi_define_properties(env, out, 5, props) != napi_ok) out = NULL;
  } else if (got == ILK_NOT_FOUND) {
    napi_get_null(env, &out);
  } else if (got == ILK_METHOD_NOT_ALLOWED) {
    throw_not_allowed(env, a->match, uri.data, uri.len, method.data);
  } else {
    throw_library(env, (int)got);
  }
done:
  text_arg_free(&uri);
  text_arg_free(&method);
  return out;
}
