/* Requests and responses between the library and JavaScript: a callback's Request made from the
 * library's request in one call (ilk_request_packed), the changes a callback made to its params
 * and metadata written back, and Response objects read from and written to the library's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"
#include "values.h"

/* A cursor over packed text ("1value\0" or "0\0" per optional field; counts in decimal). */
typedef struct cursor {
  const char *at, *end;
} cursor;

static const char *next_text(cursor *c) {
  if (c->at >= c->end) return "";
  const char *s = c->at;
  c->at += strlen(s) + 1;
  return s;
}

static napi_value next_optional(napi_env env, cursor *c) {
  const char *s = next_text(c);
  return s[0] == '1' ? make_string(env, s + 1) : make_string(env, NULL);
}

static size_t next_count(cursor *c) { return (size_t)strtoul(next_text(c), NULL, 10); }

static napi_value get_class(napi_env env, napi_ref ref) {
  napi_value v = NULL;
  napi_get_reference_value(env, ref, &v);
  return v;
}

/* `query`: a key's value, or an array of its values when it comes more than once (as Node's
 * querystring.parse gives them). */
static int add_query(napi_env env, napi_value query, const char *key, const char *value) {
  napi_value v = make_string(env, value), old;
  bool has = false;
  napi_has_own_property(env, query, make_string(env, key), &has);
  if (!has) {
    napi_property_descriptor p = {key, NULL, NULL, NULL, NULL, v, napi_default_jsproperty, NULL};
    return napi_define_properties(env, query, 1, &p) == napi_ok;
  }
  napi_get_named_property(env, query, key, &old);
  bool is_array = false;
  napi_is_array(env, old, &is_array);
  if (!is_array) {
    napi_value list;
    napi_create_array(env, &list);
    napi_set_element(env, list, 0, old);
    napi_set_named_property(env, query, key, list);
    old = list;
  }
  uint32_t n;
  napi_get_array_length(env, old, &n);
  return napi_set_element(env, old, n, v) == napi_ok;
}

static napi_value pairs_object(napi_env env, cursor *c, int as_query) {
  napi_value out;
  NAPI_OK(napi_create_object(env, &out));
  size_t count = next_count(c);
  for (size_t i = 0; i < count; i++) {
    const char *name = next_text(c), *value = next_text(c);
    if (as_query) {
      if (!add_query(env, out, name, value)) return NULL;
    } else {
      napi_property_descriptor p = {name, NULL, NULL, NULL, NULL, make_string(env, value), napi_default_jsproperty, NULL};
      NAPI_OK(napi_define_properties(env, out, 1, &p));
    }
  }
  return out;
}

napi_value make_request(napi_env env, router_native *r, const ilk_request *request, napi_value state) {
  addon_env *a = addon_env_of(env);
  const char *data;
  size_t len;
  if (ilk_request_packed(request, &data, &len) != ILK_OK) return throw_library(env, ILK_EINVAL);
  cursor c = {data, data + len};
  /* The properties, in this order: 8 optional texts, the route's id, then the rest. */
  static const char *const keys[] = {"uri",  "method", "scheme", "host",     "port", "path",  "fragment", "pattern",
                                     "routeId", "name", "params", "query", "metadata", "data", "state"};
  napi_value out, v[15], pattern;
  NAPI_OK(napi_new_instance(env, get_class(env, a->request_class), 0, NULL, &out));
  for (int i = 0; i < 8; i++) v[i] = next_optional(env, &c);
  uint32_t id = (uint32_t)strtoul(next_text(&c) + 1, NULL, 10);
  napi_create_uint32(env, id, &v[8]);
  if ((v[10] = pairs_object(env, &c, 0)) == NULL || (v[11] = pairs_object(env, &c, 1)) == NULL ||
      (v[12] = pairs_object(env, &c, 0)) == NULL)
    return NULL;
  v[9] = make_string(env, NULL);
  if (id != 0 && !route_strings(env, r, id, &v[9], &pattern)) {
    /* A callback of this resolve removed the route: the request keeps its pattern, not a name. */
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
    v[9] = make_string(env, NULL);
  }
  slot_ref *data_ref = ilk_request_route_data(request);
  v[13] = data_ref ? slot_get(r, data_ref) : NULL;
  if (v[13] == NULL) napi_get_null(env, &v[13]);
  v[14] = state;
  if (state == NULL) napi_get_null(env, &v[14]);
  NAPI_OK(define_values(env, out, keys, v, sizeof keys / sizeof *keys));
  return out;
}

/* Writes `object`'s own string properties to the library with `set`, and removes (set to NULL, or
 * `remove`) the library's entries it no longer has. Returns 0 with an exception pending. */
static int sync_map(napi_env env, napi_value request_obj, const char *what, ilk_request *request,
                    int (*set)(ilk_request *, const char *, const char *), int (*remove)(ilk_request *, const char *),
                    size_t (*count)(const ilk_request *),
                    int (*at)(const ilk_request *, size_t, const char **, const char **)) {
  napi_value object, keys;
  napi_valuetype t;
  if (napi_get_named_property(env, request_obj, what, &object) != napi_ok) return 0;
  napi_typeof(env, object, &t);
  bool is_array = false;
  napi_is_array(env, object, &is_array);
  if (t != napi_object || is_array) {
    char name[64];
    snprintf(name, sizeof name, "request.%s", what);
    throw_type(env, name, "an object", object);
    return 0;
  }
  uint32_t n;
  if (napi_get_property_names(env, object, &keys) != napi_ok || napi_get_array_length(env, keys, &n) != napi_ok) return 0;
  for (uint32_t i = 0; i < n; i++) {
    napi_value key, value;
    char kstack[256], vstack[1024], label[320];
    text_arg k, v;
    napi_get_element(env, keys, i, &key);
    napi_get_property(env, object, key, &value);
    snprintf(label, sizeof label, "a key of request.%s", what);
    if (get_text(env, key, label, kstack, sizeof kstack, &k, 0, 0) != napi_ok) return 0;
    snprintf(label, sizeof label, "request.%s.%s", what, k.data);
    if (get_text(env, value, label, vstack, sizeof vstack, &v, 0, 0) != napi_ok) {
      text_arg_free(&k);
      return 0;
    }
    const char *old = NULL;
    int rc = ILK_OK;
    /* Unchanged entries are left alone. */
    for (size_t j = 0, m = count(request); j < m; j++) {
      const char *name, *val;
      if (at(request, j, &name, &val) == ILK_OK && strcmp(name, k.data) == 0) {
        old = val;
        break;
      }
    }
    if (old == NULL || strcmp(old, v.data) != 0) rc = set(request, k.data, v.data);
    text_arg_free(&k);
    text_arg_free(&v);
    if (rc != ILK_OK) {
      throw_library(env, rc);
      return 0;
    }
  }
  for (size_t j = count(request); j-- > 0;) {
    const char *name, *val;
    if (at(request, j, &name, &val) != ILK_OK) continue;
    bool has = false;
    napi_value key = make_string(env, name);
    napi_has_own_property(env, object, key, &has);
    if (!has) {
      int rc = remove ? remove(request, name) : set(request, name, NULL);
      if (rc != ILK_OK) {
        throw_library(env, rc);
        return 0;
      }
    }
  }
  return 1;
}

static int param_at(const ilk_request *r, size_t i, const char **name, const char **value) {
  return ilk_request_param_at(r, i, name, NULL, value, NULL);
}

int sync_request(napi_env env, napi_value request_obj, ilk_request *request) {
  return sync_map(env, request_obj, "params", request, ilk_request_set_param, ilk_request_remove_param,
                  ilk_request_param_count, param_at) &&
         sync_map(env, request_obj, "metadata", request, ilk_request_set_metadata, NULL, ilk_request_metadata_count,
                  ilk_request_metadata_at);
}

napi_value response_object(napi_env env, int status, const void *body, size_t body_len, size_t header_count,
                           header_at_fn at, const void *source) {
  addon_env *a = addon_env_of(env);
  napi_value out, headers, body_v, status_v;
  NAPI_OK(napi_new_instance(env, get_class(env, a->response_class), 0, NULL, &out));
  napi_create_int32(env, status, &status_v);
  void *copy;
  NAPI_OK(napi_create_buffer_copy(env, body_len, body_len ? body : "", &copy, &body_v));
  NAPI_OK(napi_create_array_with_length(env, header_count, &headers));
  for (size_t i = 0; i < header_count; i++) {
    const char *name, *value;
    napi_value pair;
    if (at(source, i, &name, &value) != ILK_OK) continue;
    NAPI_OK(napi_create_array_with_length(env, 2, &pair));
    napi_set_element(env, pair, 0, make_string(env, name));
    napi_set_element(env, pair, 1, make_string(env, value));
    napi_set_element(env, headers, (uint32_t)i, pair);
  }
  napi_set_named_property(env, out, "status", status_v);
  napi_set_named_property(env, out, "body", body_v);
  napi_set_named_property(env, out, "headers", headers);
  return out;
}

static int response_header_at(const void *response, size_t i, const char **name, const char **value) {
  return ilk_response_header_at(response, i, name, value);
}

/* A Response object holding a copy of the library's response; an empty one for none. */
napi_value make_response(napi_env env, const ilk_response *response) {
  if (response == NULL) {
    napi_value out;
    NAPI_OK(napi_new_instance(env, get_class(env, addon_env_of(env)->response_class), 0, NULL, &out));
    return out;
  }
  size_t body_len = 0;
  const void *body = ilk_response_body(response, &body_len);
  return response_object(env, ilk_response_status(response), body, body_len, ilk_response_header_count(response),
                         response_header_at, response);
}

/* A body: a string (UTF-8), a Buffer or Uint8Array, or null/undefined for none. */
int set_body(napi_env env, ilk_response *response, napi_value body, const char *what) {
  if (is_nullish(env, body)) return ilk_response_set_body(response, NULL, 0) == ILK_OK;
  char stack[1024];
  text_arg bytes;
  if (!bytes_arg(env, body, what, stack, sizeof stack, &bytes)) return 0;
  int rc = ilk_response_set_body(response, bytes.data, bytes.len);
  text_arg_free(&bytes);
  if (rc != ILK_OK) throw_library(env, rc);
  return rc == ILK_OK;
}

static int add_header(napi_env env, ilk_response *response, napi_value name, napi_value value) {
  char nstack[256], vstack[1024];
  text_arg n, v;
  if (get_text(env, name, "a header name", nstack, sizeof nstack, &n, 0, 0) != napi_ok) return 0;
  if (get_text(env, value, "a header value", vstack, sizeof vstack, &v, 0, 0) != napi_ok) {
    text_arg_free(&n);
    return 0;
  }
  int rc = ilk_response_add_header(response, n.data, v.data);
  text_arg_free(&n);
  text_arg_free(&v);
  if (rc != ILK_OK) throw_library(env, rc);
  return rc == ILK_OK;
}

/* Headers: an array of [name, value] pairs, or an object of name: value. */
static int set_headers(napi_env env, ilk_response *response, napi_value headers) {
  if (is_nullish(env, headers)) return ilk_response_clear_headers(response) == ILK_OK;
  napi_valuetype t;
  napi_typeof(env, headers, &t);
  if (t != napi_object) {
    throw_type(env, "response headers", "an array of [name, value] pairs or an object", headers);
    return 0;
  }
  ilk_response_clear_headers(response);
  bool is_array = false;
  napi_is_array(env, headers, &is_array);
  napi_value keys = headers;
  uint32_t n;
  if (!is_array && napi_get_property_names(env, headers, &keys) != napi_ok) return 0;
  napi_get_array_length(env, keys, &n);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item, name, value;
    napi_get_element(env, keys, i, &item);
    if (is_array) {
      bool pair = false;
      uint32_t len = 0;
      napi_is_array(env, item, &pair);
      if (pair) napi_get_array_length(env, item, &len);
      if (!pair || len != 2) {
        throw_type(env, "a response header", "a [name, value] pair", item);
        return 0;
      }
      napi_get_element(env, item, 0, &name);
      napi_get_element(env, item, 1, &value);
    } else {
      name = item;
      napi_get_property(env, headers, item, &value);
    }
    if (!add_header(env, response, name, value)) return 0;
  }
  return 1;
}

static int set_status(napi_env env, ilk_response *response, napi_value status) {
  napi_valuetype t;
  double d;
  napi_typeof(env, status, &t);
  if (t != napi_number) {
    throw_type(env, "response status", "a number", status);
    return 0;
  }
  napi_get_value_double(env, status, &d);
  int rc = d == (double)(int)d ? ilk_response_set_status(response, (int)d) : ILK_EINVAL;
  if (rc != ILK_OK) {
    char message[128];
    snprintf(message, sizeof message, "status %g is outside 100...599", d);
    throw_error(env, rc, message, ILK_NO_OFFSET);
  }
  return rc == ILK_OK;
}

/* Writes a Response (or a plain { status, body, headers } object: what it leaves out stays). */
int write_response(napi_env env, ilk_response *response, napi_value object) {
  bool promise = false;
  napi_is_promise(env, object, &promise);
  if (promise) {    /* an async callback's: it has none of a response's fields, and is never awaited */
    napi_throw_type_error(env, "ERR_INVALID_RETURN_VALUE",
                          "a callback returned a Promise: callbacks run synchronously, and their Promise is not awaited");
    return 0;
  }
  const char *keys[] = {"status", "body", "headers"};
  for (int i = 0; i < 3; i++) {
    bool has = false;
    napi_value v;
    napi_has_named_property(env, object, keys[i], &has);
    if (!has) continue;
    if (napi_get_named_property(env, object, keys[i], &v) != napi_ok) return 0;
    int ok = i == 0 ? set_status(env, response, v) : i == 1 ? set_body(env, response, v, "response body")
                                                            : set_headers(env, response, v);
    if (!ok) return 0;
  }
  return 1;
}

/* What a destination (or a filter that stops) returned: undefined or null (nothing: 200, empty), a
 * status, a body, or a response. `who` names it in a TypeError ("a destination's return value"). */
int write_returned(napi_env env, ilk_response *response, napi_value returned, const char *who) {
  napi_valuetype t;
  napi_typeof(env, returned, &t);
  bool typed = false;
  napi_is_typedarray(env, returned, &typed);
  switch (t) {
    case napi_undefined:
    case napi_null: return 1;
    case napi_number: return set_status(env, response, returned);
    case napi_string: return set_body(env, response, returned, "the returned body");
    case napi_object: return typed ? set_body(env, response, returned, "the returned body")
                                   : write_response(env, response, returned);
    default:
      throw_type(env, who, "undefined, a status number, a string, a Buffer or a response object", returned);
      return 0;
  }
}
