/* What a router builds and reads as text: URLs (urlFor), route files (load), explanations
 * (explain) and the pending link. Each function is a Router method (router.c's class lists them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ------------------------------------------------------------------------------------------- */
/* URL building                                                                                 */

/* urlFor(name, params) -> string */
napi_value router_url_for(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL) return NULL;
  char stack[256];
  text_arg name;
  if (get_text(env, argv[0], "name", stack, sizeof stack, &name, 0, 0) != napi_ok) return NULL;
  const char **names, **values;
  char *block;
  long count = param_arrays(env, argv[1], &names, &values, &block);
  napi_value out = NULL;
  if (count >= 0) {
    char small[512];
    char *buffer = small;
    size_t capacity = sizeof small, length = 0;
    int rc = ilk_router_url_for(r->router, name.data, names, values, (size_t)count, buffer, capacity, &length);
    if (rc == ILK_EINVAL && length >= capacity) {
      buffer = malloc(length + 1);
      capacity = length + 1;
      rc = buffer ? ilk_router_url_for(r->router, name.data, names, values, (size_t)count, buffer, capacity, &length)
                  : ILK_ENOMEM;
    }
    if (rc == ILK_OK) out = make_string_n(env, buffer, length);
    else throw_library(env, rc);
    if (buffer != small) free(buffer);
  }
  free(names);
  free(values);
  free(block);
  text_arg_free(&name);
  return out;
}

/* ------------------------------------------------------------------------------------------- */
/* Route files, explain, the pending link                                                        */

/* load(text | Buffer) -> [ids] */
napi_value router_load(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL) return NULL;
  char stack[4096];
  text_arg text;
  if (!bytes_arg(env, argv[0], "text", stack, sizeof stack, &text)) return NULL;
  uint32_t before = r->last_id;
  size_t count = 0;
  int rc = ilk_router_load(r->router, text.data, text.len, &count);
  text_arg_free(&text);
  if (rc != ILK_OK) {
    const char *message = ilk_errmsg();
    unsigned line = 0, column = 0;
    napi_value error = make_library_error(env, rc, message, ilk_erroffset()), v;
    if (error == NULL) return NULL;
    if (sscanf(message, "line %u, column %u:", &line, &column) == 2) {
      napi_create_uint32(env, line, &v);
      napi_set_named_property(env, error, "line", v);
      napi_create_uint32(env, column, &v);
      napi_set_named_property(env, error, "column", v);
    }
    napi_throw(env, error);
    return NULL;
  }
  napi_value out;
  NAPI_OK(napi_create_array_with_length(env, count, &out));
  /* The library gives a file's routes the next ids, in the file's order. */
  uint32_t id = before;
  for (size_t i = 0; i < count && ilk_router_next_route(r->router, id, &id) == ILK_OK; i++) {
    NAPI_OK(napi_set_element(env, out, (uint32_t)i, route_id_value(env, id)));
    route_cache_clear(r, id);
    if (id > r->last_id) r->last_id = id;
  }
  return out;
}

/* explainJSON(uri, method) -> the library's JSON text (index.js parses it). */
napi_value router_explain_json(napi_env env, napi_callback_info info) {
  uri_method_args args;
  router_native *r = router_and_lookup(env, info, &args);
  if (r == NULL) return NULL;
  const text_arg uri = args.uri, method = args.method;
  size_t capacity = 8192, length = 0;
  char *buffer = malloc(capacity);
  int rc = buffer ? ilk_router_explain(r->router, method.data, uri.data, uri.len, buffer, capacity, &length) : ILK_ENOMEM;
  if (rc == ILK_ELIMIT && length >= capacity) {
    free(buffer);
    capacity = length + 1;
    buffer = malloc(capacity);
    rc = buffer ? ilk_router_explain(r->router, method.data, uri.data, uri.len, buffer, capacity, &length) : ILK_ENOMEM;
  }
  napi_value out = rc == ILK_OK ? make_string_n(env, buffer, length) : throw_library(env, rc);
  free(buffer);
  uri_method_free(&args);
  return out;
}

static napi_value copy_link(napi_env env, napi_callback_info info, int take) {
  size_t argc = 0;
  router_native *r = router_of(env, info, &argc, NULL, NULL);
  if (r == NULL) return NULL;
  for (;;) {
    size_t length = ilk_router_pending_link(r->router, NULL, 0);
    if (length == 0) {
      napi_value v;
      napi_get_null(env, &v);
      return v;
    }
    char *buffer = malloc(length + 1);
    if (buffer == NULL) return throw_error(env, ILK_ENOMEM, "out of memory", ILK_NO_OFFSET);
    size_t got = take ? ilk_router_take_pending_link(r->router, buffer, length + 1)
                      : ilk_router_pending_link(r->router, buffer, length + 1);
    if (got <= length) {
      napi_value v = make_string_n(env, buffer, got);
      free(buffer);
      return v;
    }
    free(buffer);  /* a longer link came meanwhile: read it again */
  }
}

napi_value router_pending_link(napi_env env, napi_callback_info info) { return copy_link(env, info, 0); }
napi_value router_take_pending_link(napi_env env, napi_callback_info info) { return copy_link(env, info, 1); }
