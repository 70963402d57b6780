/* Routes: adding, removing, replacing and reading them, their data, the router's limits. Each
 * function is a Router method (router.c's class lists them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ------------------------------------------------------------------------------------------- */
/* Routes                                                                                       */

napi_value route_id_value(napi_env env, uint32_t id) {
  napi_value v;
  napi_create_uint32(env, id, &v);
  return v;
}

static int function_or_nullish(napi_env env, napi_value v, const char *what) {
  if (is_nullish(env, v)) return 1;
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t != napi_function) {
    throw_type(env, what, "a function", v);
    return 0;
  }
  return 1;
}

/* Sets route `id`'s data to the JavaScript value `data` (undefined clears it). */
static int set_data(napi_env env, router_native *r, uint32_t id, napi_value data) {
  if (is_nullish(env, data)) {
    napi_valuetype t;
    napi_typeof(env, data, &t);
    if (data == NULL || t == napi_undefined) {
      int rc = ilk_router_set_route_data(r->router, id, NULL, NULL);
      if (rc != ILK_OK) throw_library(env, rc);
      return rc == ILK_OK;
    }
  }
  slot_ref *ref = slot_put(r, data, id);
  if (ref == NULL) return 0;
  int rc = ilk_router_set_route_data(r->router, id, ref, slot_free);
  if (rc != ILK_OK) {
    throw_library(env, rc);
    slot_free(ref);
    return 0;
  }
  route_cache *c = route_cache_of(r, id);
  if (c) {
    c->data_slot = ref->slot;
    c->generation = ++r->generation;
  }
  return 1;
}

/* addRoute(pattern, destination | { name, destination, guard, data }) -> id */
napi_value router_add_route(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL}, dest = NULL, name_v = NULL, guard = NULL, data = NULL;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL) return NULL;
  int has_data = 0;
  if (argc >= 2 && !is_nullish(env, argv[1])) {
    napi_valuetype t;
    napi_typeof(env, argv[1], &t);
    if (t == napi_function) {
      dest = argv[1];
    } else if (t == napi_object) {
      if (get_option(env, argv[1], "destination", &dest) <= 0) dest = NULL;
      if (get_option(env, argv[1], "name", &name_v) <= 0) name_v = NULL;
      if (get_option(env, argv[1], "guard", &guard) <= 0) guard = NULL;
      bool has = false;
      napi_has_named_property(env, argv[1], "data", &has);
      if (has) {
        napi_get_named_property(env, argv[1], "data", &data);
        napi_valuetype dt;
        napi_typeof(env, data, &dt);
        has_data = dt != napi_undefined;
      }
    } else {
      return throw_type(env, "options", "a function (the destination) or an object", argv[1]);
    }
  }
  if (!function_or_nullish(env, dest, "options.destination") || !function_or_nullish(env, guard, "options.guard"))
    return NULL;
  char pattern_stack[1024], name_stack[256];
  text_arg pattern, name = {NULL, 0, NULL};
  if (argc < 1) return throw_type(env, "pattern", "a string", NULL);
  if (get_text(env, argv[0], "pattern", pattern_stack, sizeof pattern_stack, &pattern, 0, 0) != napi_ok) return NULL;
  if (name_v && get_text(env, name_v, "options.name", name_stack, sizeof name_stack, &name, 0, 0) != napi_ok) {
    text_arg_free(&pattern);
    return NULL;
  }
  slot_ref *dest_ref = NULL;
  if (dest && (dest_ref = slot_put(r, dest, 0)) == NULL) goto fail;
  uint32_t id = 0;
  int rc = name.data ? ilk_router_add_named_route(r->router, pattern.data, name.data, dest ? destination_trampoline : NULL,
                                                  dest_ref, dest_ref ? slot_free : NULL, &id)
                     : ilk_router_add_route(r->router, pattern.data, dest ? destination_trampoline : NULL, dest_ref,
                                            dest_ref ? slot_free : NULL, &id);
  if (rc != ILK_OK) {
    throw_library(env, rc);
    if (dest_ref) slot_free(dest_ref);
    goto fail;
  }
  text_arg_free(&pattern);
  text_arg_free(&name);
  if (id > r->last_id) r->last_id = id;
  route_cache_clear(r, id);
  if (has_data && !set_data(env, r, id, data)) return NULL;
  if (guard && !set_route_guard(env, r, id, guard)) return NULL;
  return route_id_value(env, id);
fail:
  text_arg_free(&pattern);
  text_arg_free(&name);
  return NULL;
}

/* Whether route `id` is there; if not, throws the library's error. */
static int route_exists(napi_env env, router_native *r, uint32_t id) {
  const char *pattern;
  int rc = ilk_router_route_pattern(r->router, id, &pattern);
  if (rc != ILK_OK) throw_library(env, rc);
  return rc == ILK_OK;
}

/* After the library changed route `id` (rc: its answer): what it kept of the route is stale. The
 * route's id, or NULL with the library's error thrown. */
static napi_value route_changed(napi_env env, router_native *r, uint32_t id, int rc) {
  if (rc != ILK_OK) return throw_library(env, rc);
  route_cache_clear(r, id);
  return route_id_value(env, id);
}

/* removeRoute(nameOrId) */
napi_value router_remove_route(napi_env env, napi_callback_info info) {
  napi_value argv[1] = {NULL};
  uint32_t id;
  router_native *r = router_and_route(env, info, 1, argv, &id);
  if (r == NULL) return NULL;
  return route_changed(env, r, id, ilk_router_remove_route(r->router, id));
}

/* replaceRoute(nameOrId, pattern) */
napi_value router_replace_route(napi_env env, napi_callback_info info) {
  napi_value argv[2] = {NULL, NULL};
  uint32_t id;
  router_native *r = router_and_route(env, info, 2, argv, &id);
  if (r == NULL) return NULL;
  char stack[1024];
  text_arg pattern;
  if (get_text(env, argv[1], "pattern", stack, sizeof stack, &pattern, 0, 0) != napi_ok) return NULL;
  int rc = ilk_router_replace_route(r->router, id, pattern.data);
  text_arg_free(&pattern);
  return route_changed(env, r, id, rc);
}

/* setRouteData(nameOrId, data) */
napi_value router_set_route_data(napi_env env, napi_callback_info info) {
  napi_value argv[2] = {NULL, NULL};
  uint32_t id;
  router_native *r = router_and_route(env, info, 2, argv, &id);
  return r && set_data(env, r, id, argv[1]) ? route_id_value(env, id) : NULL;
}

/* routeId(name) -> id */
napi_value router_route_id(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL};
  uint32_t id;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  napi_valuetype t;
  if (r == NULL) return NULL;
  napi_typeof(env, argv[0], &t);
  if (argv[0] == NULL || t != napi_string) return throw_type(env, "name", "a string", argv[0]);
  if (!get_route_id(env, r, argv[0], "name", &id)) return NULL;
  return route_id_value(env, id);
}

static napi_value route_info(napi_env env, router_native *r, uint32_t id) {
  static const char *const keys[] = {"id", "name", "pattern"};
  napi_value v[3], out;
  if (!route_strings(env, r, id, &v[1], &v[2])) return NULL;
  v[0] = route_id_value(env, id);
  NAPI_OK(napi_create_object(env, &out));
  NAPI_OK(define_values(env, out, keys, v, 3));
  return out;
}

/* route(nameOrId) -> { id, name, pattern } */
napi_value router_route(napi_env env, napi_callback_info info) {
  napi_value argv[1] = {NULL};
  uint32_t id;
  router_native *r = router_and_route(env, info, 1, argv, &id);
  return r && route_exists(env, r, id) ? route_info(env, r, id) : NULL;
}

/* routes() -> [{ id, name, pattern }] in id order */
napi_value router_routes(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  router_native *r = router_of(env, info, &argc, NULL, NULL);
  if (r == NULL) return NULL;
  napi_value out;
  NAPI_OK(napi_create_array(env, &out));
  uint32_t id = 0, i = 0;
  while (ilk_router_next_route(r->router, id, &id) == ILK_OK) {
    napi_value item = route_info(env, r, id);
    if (item == NULL) return NULL;
    NAPI_OK(napi_set_element(env, out, i++, item));
  }
  return out;
}

napi_value router_size(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  router_native *r = router_of(env, info, &argc, NULL, NULL);
  if (r == NULL) return NULL;
  napi_value v;
  napi_create_double(env, (double)ilk_router_route_count(r->router), &v);
  return v;
}

/* routeValue(nameOrId, key) -> string | null: a loaded route's key=value. */
napi_value router_route_value(napi_env env, napi_callback_info info) {
  napi_value argv[2] = {NULL, NULL};
  uint32_t id;
  router_native *r = router_and_route(env, info, 2, argv, &id);
  if (r == NULL || !route_exists(env, r, id)) return NULL;
  char stack[256];
  text_arg key;
  if (get_text(env, argv[1], "key", stack, sizeof stack, &key, 0, 0) != napi_ok) return NULL;
  const char *value = ilk_router_route_value(r->router, id, key.data);
  text_arg_free(&key);
  return make_string(env, value);
}

napi_value router_compile(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  router_native *r = router_of(env, info, &argc, NULL, NULL);
  if (r == NULL) return NULL;
  int rc = ilk_router_compile(r->router);
  return rc == ILK_OK ? NULL : throw_library(env, rc);
}

/* setLimits(redirects, retries) */
napi_value router_set_limits(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  uint32_t redirects, retries;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_uint32_arg(env, argv[0], "redirects", &redirects) ||
      !get_uint32_arg(env, argv[1], "retries", &retries))
    return NULL;
  int rc = ilk_router_set_limits(r->router, redirects, retries);
  return rc == ILK_OK ? NULL : throw_library(env, rc);
}

/* setMatchLimit(limit) */
napi_value router_set_match_limit(napi_env env, napi_callback_info info) {
  uint32_t limit;
  router_native *r = router_and_uint32(env, info, "limit", &limit);
  if (r == NULL) return NULL;
  int rc = ilk_router_set_match_limit(r->router, limit);
  return rc == ILK_OK ? NULL : throw_library(env, rc);
}
