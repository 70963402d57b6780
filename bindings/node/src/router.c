/* The Router class: making and freeing the library's router (with the JavaScript object, by a
 * finalizer, or by close()), the slots where its callbacks and data live, its number, and the
 * class's methods, which routes.c (routes), texts.c (URLs, route files, explain, the pending
 * link), match.c (lookups) and pipeline.c (resolve and callbacks) define. */
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

/* As router_of, for a method whose first argument is a route (its id or name: get_route_id). */
router_native *router_and_route(napi_env env, napi_callback_info info, size_t argc, napi_value *argv, uint32_t *id) {
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_route_id(env, r, argv[0], "nameOrId", id)) return NULL;
  return r;
}

/* As router_of, for a method of one argument, a uint32 (get_uint32_arg). */
router_native *router_and_uint32(napi_env env, napi_callback_info info, const char *what, uint32_t *out) {
  size_t argc = 1;
  napi_value argv[1] = {NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !get_uint32_arg(env, argv[0], what, out)) return NULL;
  return r;
}

/* As router_of, for a lookup's method: its arguments (uri, method?) read into *args. */
router_native *router_and_lookup(napi_env env, napi_callback_info info, uri_method_args *args) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL || !uri_method(env, argc > 0 ? argv[0] : NULL, argc > 1 ? argv[1] : NULL, args)) return NULL;
  return r;
}

/* ------------------------------------------------------------------------------------------- */
/* Construction and options                                                                     */

static int bool_option(napi_env env, napi_value options, const char *key, bool *out) {
  napi_value v;
  int got = get_option(env, options, key, &v);
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
  int got = get_option(env, options, key, &v);
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
  uint32_t flags = 0, redirects = ILK_DEFAULT_REDIRECT_LIMIT, retries = ILK_DEFAULT_RETRY_LIMIT, match_limit = 0;
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
    a->routers[r->number] = NULL;
    if (r->strings) napi_delete_reference(env, r->strings);
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

napi_value define_router_class(napi_env env) {
  addon_env *a = addon_env_of(env);
/* Each method gets the environment's state as its data: no lookup of it at each call. */
#define METHOD(name, fn) {name, NULL, fn, NULL, NULL, NULL, napi_writable | napi_configurable, a}
  napi_property_descriptor props[] = {
      METHOD("routeInfo", router_route_info),
      METHOD("addRoute", router_add_route),
      METHOD("removeRoute", router_remove_route),
      METHOD("replaceRoute", router_replace_route),
      METHOD("setRouteData", router_set_route_data),
      METHOD("routeId", router_route_id),
      METHOD("route", router_route),
      METHOD("routes", router_routes),
      METHOD("routeValue", router_route_value),
      METHOD("compile", router_compile),
      METHOD("setLimits", router_set_limits),
      METHOD("setMatchLimit", router_set_match_limit),
      METHOD("urlFor", router_url_for),
      METHOD("load", router_load),
      METHOD("explainJSON", router_explain_json),
      METHOD("pendingLink", router_pending_link),
      METHOD("takePendingLink", router_take_pending_link),
      METHOD("replayPendingLink", router_replay_pending_link),
      METHOD("resolve", router_resolve),
      METHOD("addFilter", router_add_filter),
      METHOD("setGuard", router_set_guard),
      METHOD("setDefault", router_set_default),
      METHOD("setDestination", router_set_destination),
      METHOD("addInterceptor", router_add_interceptor),
      METHOD("close", router_close),
      {"size", NULL, NULL, router_size, NULL, NULL, napi_configurable, NULL},
  };
#undef METHOD
  napi_value cls;
  NAPI_OK(napi_define_class(env, "Router", NAPI_AUTO_LENGTH, construct, NULL, sizeof props / sizeof *props, props,
                            &cls));
  return cls;
}
