/* The Router class: making and freeing the library's router (with the JavaScript object, by a
 * finalizer, or by close()), adding, changing and reading routes, route files, URL building,
 * explain and the pending link. Lookups are match.c's, the pipeline pipeline.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* ------------------------------------------------------------------------------------------- */
/* The native side, its finalizer, and the slots where callbacks and data live                  */

static void close_native(napi_env env, router_native *r) {
  if (r->router == NULL) return;
  ilk_router_free(r->router);  /* calls slot_free for every callback and datum */
  r->router = NULL;
  if (r->strings) napi_delete_reference(env, r->strings);
  r->strings = NULL;
  for (uint32_t i = 0; i < r->routes_capacity; i++) route_cache_reset(&r->routes[i], 0);
  free(r->routes);
  r->routes = NULL;
  r->routes_capacity = 0;
}

static void finalize_router(napi_env env, void *data, void *hint) {
  (void)hint;
  router_native *r = data;
  addon_env *a = addon_env_of(env);
  if (a && r->number < a->router_capacity && a->routers[r->number] == r) a->routers[r->number] = NULL;
  close_native(env, r);
  if (r->self) napi_delete_reference(env, r->self);
  free(r);
}

route_cache *route_cache_of(router_native *r, uint32_t id) {
  if (id >= r->routes_capacity) {
    uint32_t capacity = r->routes_capacity ? r->routes_capacity : 64;
    while (capacity <= id) capacity *= 2;
    route_cache *grown = realloc(r->routes, capacity * sizeof *grown);
    if (grown == NULL) return NULL;
    memset(grown + r->routes_capacity, 0, (capacity - r->routes_capacity) * sizeof *grown);
    r->routes = grown;
    r->routes_capacity = capacity;
  }
  return &r->routes[id];
}

/* Forgets the strings made for route `id` (its pattern or name changed, or it is gone). */
void route_cache_clear(router_native *r, uint32_t id) {
  if (id < r->routes_capacity) route_cache_reset(&r->routes[id], ++r->generation);
}

/* The router object's array of callbacks and data, or NULL while the object is being collected. */
napi_value slots_of(router_native *r) {
  napi_value self = NULL, key, slots;
  addon_env *a = addon_env_of(r->env);
  if (r->self == NULL || napi_get_reference_value(r->env, r->self, &self) != napi_ok || self == NULL) return NULL;
  if (napi_get_reference_value(r->env, a->slots_key, &key) != napi_ok) return NULL;
  if (napi_get_property(r->env, self, key, &slots) != napi_ok) return NULL;
  return slots;
}

slot_ref *slot_put(router_native *r, napi_value value, uint32_t route_id) {
  napi_value slots = slots_of(r);
  slot_ref *ref = malloc(sizeof *ref);
  if (slots == NULL || ref == NULL) {
    free(ref);
    napi_throw_error(r->env, "ILK_ENOMEM", "cannot keep the value");
    return NULL;
  }
  ref->owner = r;
  ref->slot = ++r->next_slot;
  ref->route_id = route_id;
  if (napi_set_element(r->env, slots, ref->slot, value) != napi_ok) {
    free(ref);
    return NULL;
  }
  return ref;
}

napi_value slot_get(router_native *r, const slot_ref *ref) {
  napi_value slots = slots_of(r), v;
  if (slots == NULL || napi_get_element(r->env, slots, ref->slot, &v) != napi_ok) return NULL;
  return v;
}

/* The library's free function of every slot: drops the value from the router's array (unless
 * the router object is being collected, which drops the array itself). */
void slot_free(void *userdata) {
  slot_ref *ref = userdata;
  router_native *r = ref->owner;
  napi_value slots = slots_of(r);
  if (slots != NULL) {
    bool deleted;
    napi_delete_element(r->env, slots, ref->slot, &deleted);
  }
  if (ref->route_id && ref->route_id < r->routes_capacity && r->routes[ref->route_id].data_slot == ref->slot) {
    r->routes[ref->route_id].data_slot = 0;
    r->routes[ref->route_id].generation = ++r->generation;
  }
  free(ref);
}

/* `this` as a Router whose library router is open, and the call's arguments. */
router_native *router_of(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv, napi_value *self) {
  return router_and_env(env, info, argc, argv, self, NULL);
}

router_native *router_and_env(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv, napi_value *self,
                              addon_env **a) {
  napi_value this_arg;
  router_native *r = NULL;
  if (napi_get_cb_info(env, info, argc, argv, &this_arg, (void **)a) != napi_ok) return NULL;
  if (napi_unwrap(env, this_arg, (void **)&r) != napi_ok || r == NULL) {
    napi_throw_type_error(env, "ERR_INVALID_THIS", "the receiver is not an interlock Router");
    return NULL;
  }
  if (r->router == NULL) {
    throw_error(env, ILK_EINVAL, "the router is closed", ILK_NO_OFFSET);
    return NULL;
  }
  if (self) *self = this_arg;
  return r;
}

/* ------------------------------------------------------------------------------------------- */
/* Construction and options                                                                     */

static int option(napi_env env, napi_value options, const char *key, napi_value *out) {
  bool has = false;
  if (napi_has_named_property(env, options, key, &has) != napi_ok || !has) return 0;
  if (napi_get_named_property(env, options, key, out) != napi_ok) return -1;
  return is_nullish(env, *out) ? 0 : 1;
}

static int bool_option(napi_env env, napi_value options, const char *key, bool *out) {
  napi_value v;
  int got = option(env, options, key, &v);
  if (got <= 0) return got;
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t != napi_boolean) {
    char what[64];
    snprintf(what, sizeof what, "options.%s", key);
    throw_type(env, what, "a boolean", v);
    return -1;
  }
  napi_get_value_bool(env, v, out);
  return 1;
}

static int uint_option(napi_env env, napi_value options, const char *key, uint32_t *out) {
  napi_value v;
  int got = option(env, options, key, &v);
  if (got <= 0) return got;
  char what[64];
  snprintf(what, sizeof what, "options.%s", key);
  return get_uint32_arg(env, v, what, out) ? 1 : -1;
}

/* Gives `r` a number: the first free place in the environment's table. */
static int number_router(addon_env *a, router_native *r) {
  uint32_t i = 0;
  while (i < a->router_capacity && a->routers[i] != NULL) i++;
  if (i == a->router_capacity) {
    uint32_t capacity = a->router_capacity ? 2 * a->router_capacity : 16;
    router_native **grown = realloc(a->routers, capacity * sizeof *grown);
    if (grown == NULL) return 0;
    memset(grown + a->router_capacity, 0, (capacity - a->router_capacity) * sizeof *grown);
    a->routers = grown;
    a->router_capacity = capacity;
  }
  a->routers[i] = r;
  r->number = i;
  return 1;
}

/* The open router numbered `number` (what index.js passes from the router object), else NULL
 * with an exception pending. */
router_native *router_numbered(napi_env env, addon_env *a, napi_value number) {
  uint32_t i;
  if (napi_get_value_uint32(env, number, &i) != napi_ok || i >= a->router_capacity || a->routers[i] == NULL) {
    napi_throw_type_error(env, "ERR_INVALID_THIS", "the receiver is not an interlock Router");
    return NULL;
  }
  router_native *r = a->routers[i];
  if (r->router == NULL) {
    throw_error(env, ILK_EINVAL, "the router is closed", ILK_NO_OFFSET);
    return NULL;
  }
  return r;
}

static napi_value construct(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL}, self, target;
  NAPI_OK(napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  NAPI_OK(napi_get_new_target(env, info, &target));
  if (target == NULL) {
    napi_throw_type_error(env, "ERR_CONSTRUCT_CALL_REQUIRED", "Router must be called with new");
    return NULL;
  }
  uint32_t flags = 0, redirects = 8, retries = 3, match_limit = 0;
  int limits = 0, has_match_limit = 0;
  if (argc >= 1 && !is_nullish(env, argv[0])) {
    napi_valuetype t;
    napi_typeof(env, argv[0], &t);
    if (t != napi_object) return throw_type(env, "options", "an object", argv[0]);
    bool on = false;
    int got;
    if ((got = bool_option(env, argv[0], "caseInsensitive", &on)) < 0) return NULL;
    if (got && on) flags |= ILK_CASE_INSENSITIVE;
    on = false;
    if ((got = bool_option(env, argv[0], "strictSlash", &on)) < 0) return NULL;
    if (got && on) flags |= ILK_STRICT_SLASH;
    if ((got = uint_option(env, argv[0], "redirectLimit", &redirects)) < 0) return NULL;
    limits |= got;
    if ((got = uint_option(env, argv[0], "retryLimit", &retries)) < 0) return NULL;
    limits |= got;
    if ((has_match_limit = uint_option(env, argv[0], "matchLimit", &match_limit)) < 0) return NULL;
  }
  router_native *r = calloc(1, sizeof *r);
  if (r == NULL) return throw_error(env, ILK_ENOMEM, "out of memory", ILK_NO_OFFSET);
  int rc = ilk_router_new(&r->router, flags);
  if (rc == ILK_OK && limits) rc = ilk_router_set_limits(r->router, redirects, retries);
  if (rc == ILK_OK && has_match_limit) rc = ilk_router_set_match_limit(r->router, match_limit);
  if (rc != ILK_OK) {
    throw_library(env, rc);
    ilk_router_free(r->router);
    free(r);
    return NULL;
  }
  r->env = env;
  napi_value slots, key, strings, id_key, number;
  addon_env *a = addon_env_of(env);
  if (!number_router(a, r)) {
    ilk_router_free(r->router);
    free(r);
    return throw_error(env, ILK_ENOMEM, "out of memory", ILK_NO_OFFSET);
  }
  if (napi_create_array(env, &slots) != napi_ok || napi_get_reference_value(env, a->slots_key, &key) != napi_ok ||
      napi_create_array(env, &strings) != napi_ok || napi_create_reference(env, strings, 1, &r->strings) != napi_ok ||
      napi_wrap(env, self, r, finalize_router, NULL, NULL) != napi_ok) {
    ilk_router_free(r->router);
    free(r);
    return NULL;
  }
  NAPI_OK(napi_get_reference_value(env, a->id_key, &id_key));
  NAPI_OK(napi_create_uint32(env, r->number, &number));
  napi_property_descriptor hidden[] = {
      {NULL, key, NULL, NULL, NULL, slots, napi_default, NULL},
      {NULL, id_key, NULL, NULL, NULL, number, napi_default, NULL},
  };
  NAPI_OK(napi_define_properties(env, self, 2, hidden));
  NAPI_OK(napi_create_reference(env, self, 0, &r->self));
  return self;
}

/* close(): frees the library's router now; later calls throw. */
static napi_value router_close(napi_env env, napi_callback_info info) {
  napi_value self;
  router_native *r = NULL;
  NAPI_OK(napi_get_cb_info(env, info, NULL, NULL, &self, NULL));
  if (napi_unwrap(env, self, (void **)&r) != napi_ok || r == NULL) return NULL;
  /* The library's router may not be freed while a call on it runs: a callback closing it. */
  if (r->resolving) return throw_error(env, ILK_EINVAL, "cannot close a router from a callback of its own resolve", ILK_NO_OFFSET);
  close_native(env, r);
  return NULL;
}

/* ------------------------------------------------------------------------------------------- */
/* Routes                                                                                       */

static napi_value route_id_value(napi_env env, uint32_t id) {
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
static napi_value add_route(napi_env env, napi_callback_info info) {
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
      if (option(env, argv[1], "destination", &dest) <= 0) dest = NULL;
      if (option(env, argv[1], "name", &name_v) <= 0) name_v = NULL;
      if (option(env, argv[1], "guard", &guard) <= 0) guard = NULL;
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
  if (guard) {
    slot_ref *g = slot_put(r, guard, 0);
    if (g == NULL) return NULL;
    rc = ilk_router_set_guard(r->router, id, guard_trampoline, g, slot_free);
    if (rc != ILK_OK) {
      slot_free(g);
      return throw_library(env, rc);
    }
  }
  return route_id_value(env, id);
fail:
  text_arg_free(&pattern);
  text_arg_free(&name);
  return NULL;
}

/* removeRoute(nameOrId) */
static napi_value remove_route(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL};
  uint32_t id;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_route_id(env, r, argv[0], "nameOrId", &id)) return NULL;
  int rc = ilk_router_remove_route(r->router, id);
  if (rc != ILK_OK) return throw_library(env, rc);
  route_cache_clear(r, id);
  return route_id_value(env, id);
}

/* replaceRoute(nameOrId, pattern) */
static napi_value replace_route(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  uint32_t id;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_route_id(env, r, argv[0], "nameOrId", &id)) return NULL;
  char stack[1024];
  text_arg pattern;
  if (get_text(env, argv[1], "pattern", stack, sizeof stack, &pattern, 0, 0) != napi_ok) return NULL;
  int rc = ilk_router_replace_route(r->router, id, pattern.data);
  text_arg_free(&pattern);
  if (rc != ILK_OK) return throw_library(env, rc);
  route_cache_clear(r, id);
  return route_id_value(env, id);
}

/* setRouteData(nameOrId, data) */
static napi_value set_route_data(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  uint32_t id;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_route_id(env, r, argv[0], "nameOrId", &id)) return NULL;
  return set_data(env, r, id, argv[1]) ? route_id_value(env, id) : NULL;
}

/* routeId(name) -> id */
static napi_value route_id(napi_env env, napi_callback_info info) {
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
  napi_value name, pattern, out;
  if (!route_strings(env, r, id, &name, &pattern)) return NULL;
  napi_property_descriptor props[] = {
      {"id", NULL, NULL, NULL, NULL, route_id_value(env, id), napi_default_jsproperty, NULL},
      {"name", NULL, NULL, NULL, NULL, name, napi_default_jsproperty, NULL},
      {"pattern", NULL, NULL, NULL, NULL, pattern, napi_default_jsproperty, NULL},
  };
  NAPI_OK(napi_create_object(env, &out));
  NAPI_OK(napi_define_properties(env, out, 3, props));
  return out;
}

/* route(nameOrId) -> { id, name, pattern } */
static napi_value route(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL};
  uint32_t id;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_route_id(env, r, argv[0], "nameOrId", &id)) return NULL;
  const char *pattern;
  int rc = ilk_router_route_pattern(r->router, id, &pattern);
  if (rc != ILK_OK) return throw_library(env, rc);
  return route_info(env, r, id);
}

/* routes() -> [{ id, name, pattern }] in id order */
static napi_value routes(napi_env env, napi_callback_info info) {
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

static napi_value size_getter(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  router_native *r = router_of(env, info, &argc, NULL, NULL);
  if (r == NULL) return NULL;
  napi_value v;
  napi_create_double(env, (double)ilk_router_route_count(r->router), &v);
  return v;
}

/* routeValue(nameOrId, key) -> string | null: a loaded route's key=value. */
static napi_value route_value(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  uint32_t id;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_route_id(env, r, argv[0], "nameOrId", &id)) return NULL;
  const char *pattern;
  int rc = ilk_router_route_pattern(r->router, id, &pattern);
  if (rc != ILK_OK) return throw_library(env, rc);
  char stack[256];
  text_arg key;
  if (get_text(env, argv[1], "key", stack, sizeof stack, &key, 0, 0) != napi_ok) return NULL;
  const char *value = ilk_router_route_value(r->router, id, key.data);
  text_arg_free(&key);
  return make_string(env, value);
}

static napi_value compile(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  router_native *r = router_of(env, info, &argc, NULL, NULL);
  if (r == NULL) return NULL;
  int rc = ilk_router_compile(r->router);
  return rc == ILK_OK ? NULL : throw_library(env, rc);
}

/* setLimits(redirects, retries) */
static napi_value set_limits(napi_env env, napi_callback_info info) {
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
static napi_value set_match_limit(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL};
  uint32_t limit;
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_uint32_arg(env, argv[0], "limit", &limit)) return NULL;
  int rc = ilk_router_set_match_limit(r->router, limit);
  return rc == ILK_OK ? NULL : throw_library(env, rc);
}

/* ------------------------------------------------------------------------------------------- */
/* URL building                                                                                 */

/* Name and value arrays from a plain object of parameters (strings or numbers). The texts live in
 * one block *block that the caller frees. Returns the count, or -1 with an exception pending. */
long param_arrays(napi_env env, napi_value params, const char ***names, const char ***values, char **block) {
  *names = *values = NULL;
  *block = NULL;
  if (is_nullish(env, params)) return 0;
  napi_valuetype t;
  napi_typeof(env, params, &t);
  bool is_array = false;
  napi_is_array(env, params, &is_array);
  if (t != napi_object || is_array) {
    throw_type(env, "params", "an object", params);
    return -1;
  }
  napi_value keys;
  uint32_t count;
  if (napi_get_property_names(env, params, &keys) != napi_ok || napi_get_array_length(env, keys, &count) != napi_ok)
    return -1;
  napi_value *texts = calloc(2 * (size_t)count + 1, sizeof *texts);
  size_t total = 0;
  if (texts == NULL) return -1;
  for (uint32_t i = 0; i < count; i++) {
    napi_value key, value;
    napi_get_element(env, keys, i, &key);
    napi_get_property(env, params, key, &value);
    napi_valuetype vt;
    napi_typeof(env, value, &vt);
    if (vt == napi_number) {
      napi_coerce_to_string(env, value, &value);
    } else if (vt != napi_string) {
      char what[300], kbuf[200];
      size_t klen;
      napi_get_value_string_utf8(env, key, kbuf, sizeof kbuf, &klen);
      snprintf(what, sizeof what, "params.%s", kbuf);
      throw_type(env, what, "a string or a number", value);
      free(texts);
      return -1;
    }
    texts[2 * i] = key;
    texts[2 * i + 1] = value;
    size_t n1, n2;
    napi_get_value_string_utf8(env, key, NULL, 0, &n1);
    napi_get_value_string_utf8(env, value, NULL, 0, &n2);
    total += n1 + n2 + 2;
  }
  *block = malloc(total + 1);
  *names = calloc(count + 1, sizeof **names);
  *values = calloc(count + 1, sizeof **values);
  if (*block == NULL || *names == NULL || *values == NULL) {
    free(texts);
    return -1;
  }
  char *at = *block;
  for (uint32_t i = 0; i < 2 * count; i++) {
    char what[300], kbuf[200];
    size_t klen;
    napi_get_value_string_utf8(env, texts[i & ~1u], kbuf, sizeof kbuf, &klen);
    snprintf(what, sizeof what, i % 2 ? "params.%s" : "parameter name %s", kbuf);
    text_arg text;
    char stack[1];
    if (get_text(env, texts[i], what, stack, sizeof stack, &text, 0, 0) != napi_ok) {
      free(texts);
      return -1;
    }
    memcpy(at, text.data, text.len + 1);
    text_arg_free(&text);
    (i % 2 ? *values : *names)[i / 2] = at;
    at += strlen(at) + 1;
  }
  free(texts);
  return count;
}

/* urlFor(name, params) -> string */
static napi_value url_for(napi_env env, napi_callback_info info) {
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

/* The bytes of a string (UTF-8), a Buffer or another Uint8Array. */
static int bytes_arg(napi_env env, napi_value v, const char *what, char *stack, size_t stack_len, text_arg *out) {
  bool is_typed = false;
  out->owned = NULL;
  napi_is_typedarray(env, v, &is_typed);
  if (is_typed) {
    napi_typedarray_type type;
    size_t length;
    void *data;
    napi_get_typedarray_info(env, v, &type, &length, &data, NULL, NULL);
    if (type != napi_uint8_array) {
      throw_type(env, what, "a string, a Buffer or a Uint8Array", v);
      return 0;
    }
    out->data = data ? data : "";
    out->len = length;
    return 1;
  }
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t != napi_string) {
    throw_type(env, what, "a string, a Buffer or a Uint8Array", v);
    return 0;
  }
  return get_text(env, v, what, stack, stack_len, out, 1, 0) == napi_ok;
}

/* load(text | Buffer) -> [ids] */
static napi_value load(napi_env env, napi_callback_info info) {
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

/* Method argument: undefined, null (any method) or a string. A method is at most 64 bytes of
 * HTTP token characters, which the library checks: one cut short at the stack buffer is still too
 * long for it, and a lone surrogate's U+FFFD is no token character. Only a NUL byte, which would
 * end it early, is checked here. */
int method_arg(napi_env env, napi_value v, char *stack, size_t stack_len, text_arg *out) {
  out->owned = NULL;
  out->data = NULL;
  out->len = 0;
  if (v == NULL) return 1;
  size_t len = 0;
  napi_status status = napi_get_value_string_utf8(env, v, stack, stack_len, &len);
  if (status == napi_string_expected) {
    if (is_nullish(env, v)) return 1;
    throw_type(env, "method", "a string", v);
    return 0;
  }
  if (status != napi_ok) return 0;
  const char *nul = memchr(stack, 0, len);
  if (nul != NULL) {
    throw_error(env, ILK_EINVAL, "method holds a NUL byte", (size_t)(nul - stack));
    return 0;
  }
  out->data = stack;
  out->len = len;
  return 1;
}

/* explainJSON(uri, method) -> the library's JSON text (index.js parses it). */
static napi_value explain_json(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL) return NULL;
  char ustack[2048], mstack[72];
  text_arg uri, method;
  if (get_text(env, argv[0], "uri", ustack, sizeof ustack, &uri, 1, 1) != napi_ok) return NULL;
  if (!method_arg(env, argv[1], mstack, sizeof mstack, &method)) {
    text_arg_free(&uri);
    return NULL;
  }
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
  text_arg_free(&uri);
  text_arg_free(&method);
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

static napi_value pending_link(napi_env env, napi_callback_info info) { return copy_link(env, info, 0); }
static napi_value take_pending_link(napi_env env, napi_callback_info info) { return copy_link(env, info, 1); }

napi_value define_router_class(napi_env env) {
  addon_env *a = addon_env_of(env);
/* Each method gets the environment's state as its data: no lookup of it at each call. */
#define METHOD(name, fn) {name, NULL, fn, NULL, NULL, NULL, napi_writable | napi_configurable, a}
  napi_property_descriptor props[] = {
      METHOD("routeInfo", router_route_info),
      METHOD("addRoute", add_route),
      METHOD("removeRoute", remove_route),
      METHOD("replaceRoute", replace_route),
      METHOD("setRouteData", set_route_data),
      METHOD("routeId", route_id),
      METHOD("route", route),
      METHOD("routes", routes),
      METHOD("routeValue", route_value),
      METHOD("compile", compile),
      METHOD("setLimits", set_limits),
      METHOD("setMatchLimit", set_match_limit),
      METHOD("urlFor", url_for),
      METHOD("load", load),
      METHOD("explainJSON", explain_json),
      METHOD("pendingLink", pending_link),
      METHOD("takePendingLink", take_pending_link),
      METHOD("replayPendingLink", router_replay_pending_link),
      METHOD("resolve", router_resolve),
      METHOD("addFilter", router_add_filter),
      METHOD("setGuard", router_set_guard),
      METHOD("setDefault", router_set_default),
      METHOD("setDestination", router_set_destination),
      METHOD("addInterceptor", router_add_interceptor),
      METHOD("close", router_close),
      {"size", NULL, NULL, size_getter, NULL, NULL, napi_configurable, NULL},
  };
#undef METHOD
  napi_value cls;
  NAPI_OK(napi_define_class(env, "Router", NAPI_AUTO_LENGTH, construct, NULL, sizeof props / sizeof *props, props,
                            &cls));
  return cls;
}
