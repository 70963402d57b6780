/* What the addon's files share: the per-environment state (one per Node.js thread that loads the
 * addon: the main thread and each worker), the native side of a Router, and the helpers that
 * convert arguments and report errors. The addon only converts: every decision is the library's. */
#ifndef INTERLOCK_NODE_ADDON_H
#define INTERLOCK_NODE_ADDON_H

#include <stddef.h>
#include <stdint.h>

#define NAPI_VERSION 8
#include <node_api.h>

#include "interlock.h"

/* A failed N-API call leaves an exception pending (or is a bug of ours): return at once. */
#define NAPI_OK(call)                                                                              \
  do {                                                                                             \
    if ((call) != napi_ok) return NULL;                                                            \
  } while (0)

/* The per-resolve state callbacks share: the first JavaScript exception a callback threw (thrown
 * again from resolve) and the resolve's `state` object. Resolves nest (a callback may resolve). */
typedef struct resolve_frame {
  napi_ref holder;     /* an object whose `error` is the exception (which may be no object) */
  int thrown;          /* whether a callback threw */
  napi_ref state;      /* the object every request of this resolve shows as `state` */
  struct resolve_frame *outer;
} resolve_frame;

/* One environment's state (napi_set_instance_data): a thread's lookup state and scratch buffers,
 * and the JavaScript classes index.js registers (errors, Response, Redirect, Abort, Request). */
typedef struct addon_env {
  ilk_match *match;
  char *params;          /* ilk_match_set_buffer's buffer: the packed parameters of a lookup */
  size_t params_capacity;
  char *values;          /* a lookup's parameter values, one after the other */
  uint32_t *scratch;     /* SCRATCH_LENGTH uint32s, the data of a Uint32Array index.js reads */
  napi_ref scratch_array;
  napi_ref errors;       /* { ILK_EPATTERN: PatternError, ..., TypeError-like classes } */
  napi_ref response_class, redirect_class, abort_class, request_class;
  napi_ref slots_key;    /* the symbol under which a router keeps its callbacks and data */
  napi_ref id_key;       /* the symbol under which a router keeps its number in `routers` */
  struct router_native **routers;  /* by number: the lookup path finds its router without napi_unwrap */
  uint32_t router_capacity;
  resolve_frame *frame;  /* the innermost resolve under way on this thread, or NULL */
} addon_env;

/* What the addon knows of a route for lookups: whether its name and pattern are made as JavaScript
 * strings (in the router's `strings` array, at 2 * id and 2 * id + 1), the slot of its data (0:
 * none), the parameter names its lookups bound so far (a lookup reports each parameter by its
 * index here), and its generation: a number, new whenever any of that changes, by which index.js
 * knows that what it keeps of the route (routeInfo) is still right. */
typedef struct route_cache {
  uint32_t strings_made;
  uint32_t data_slot;
  uint32_t generation;
  uint32_t name_count;
  char **names;
} route_cache;

/* The layout of the lookup scratch (a Uint32Array shared with index.js, per environment): the
 * matched route's id, its parameter count, its generation, then for each parameter the index of
 * its name and the end of its value in the values string (UTF-16 code units). */
enum {
  SCRATCH_ID = 0,
  SCRATCH_COUNT = 1,
  SCRATCH_GENERATION = 2,
  SCRATCH_PARAMS = 3,
  SCRATCH_LENGTH = SCRATCH_PARAMS + 2 * 256
};

/* The native side of a Router. Callbacks and route data live in a JavaScript array on the router
 * object (under env->slots_key), so that a closure that holds the router is no root keeping it
 * alive; the library holds only slot numbers. */
typedef struct router_native {
  ilk_router *router;
  napi_env env;
  napi_ref self;          /* weak: the Router object */
  napi_ref strings;       /* an array of the routes' names and patterns (strings hold nothing alive) */
  route_cache *routes;    /* by route id */
  uint32_t routes_capacity;
  uint32_t next_slot;
  uint32_t last_id;       /* the highest route id given */
  uint32_t generation;    /* the last generation given to a route */
  uint32_t number;        /* its index in the environment's `routers` */
  uint32_t resolving;     /* resolves of this router under way (close() waits for none) */
} router_native;

/* What the library holds for a callback or a route's data: where to find the JavaScript value. */
typedef struct slot_ref {
  router_native *owner;
  uint32_t slot;
  uint32_t route_id;      /* for route data: the route whose cache names the slot */
} slot_ref;

/* pipeline.c: the exception the innermost resolve keeps, or NULL. */
napi_value frame_exception(napi_env env, resolve_frame *frame);

/* addon.c */
addon_env *addon_env_of(napi_env env);

/* args.c: arguments. Each returns NULL (an exception pending) when the argument is wrong. */
typedef struct text_arg {
  const char *data;  /* NUL-terminated UTF-8 */
  size_t len;
  char *owned;       /* free()d by text_arg_free when the text did not fit the caller's buffer */
} text_arg;
napi_status get_text(napi_env env, napi_value value, const char *what, char *stack, size_t stack_len,
                     text_arg *out, int allow_nul, int is_uri);
void text_arg_free(text_arg *t);
int is_nullish(napi_env env, napi_value value);
napi_value make_string(napi_env env, const char *s);
napi_value make_string_n(napi_env env, const char *s, size_t len);
napi_status define_values(napi_env env, napi_value object, const char *const *keys, const napi_value *values,
                          size_t count);
const char *type_name(napi_env env, napi_value value);
napi_value throw_type(napi_env env, const char *what, const char *expected, napi_value got);
int get_route_id(napi_env env, router_native *r, napi_value value, const char *what, uint32_t *id);
int get_uint32_arg(napi_env env, napi_value value, const char *what, uint32_t *out);
long param_arrays(napi_env env, napi_value params, const char ***names, const char ***values, char **block);
int method_arg(napi_env env, napi_value v, char *stack, size_t stack_len, text_arg *out);
int bytes_arg(napi_env env, napi_value v, const char *what, char *stack, size_t stack_len, text_arg *out);
int get_option(napi_env env, napi_value options, const char *key, napi_value *out);
/* A lookup's URI and method, read into the struct's own buffers; uri_method_free frees them. */
typedef struct uri_method_args {
  char ustack[2048], mstack[72];
  text_arg uri, method;
} uri_method_args;
int uri_method(napi_env env, napi_value uri, napi_value method, uri_method_args *out);
void uri_method_free(uri_method_args *a);

/* errors.c */
napi_value throw_library(napi_env env, int code);
napi_value throw_error(napi_env env, int code, const char *message, size_t offset);
napi_value make_library_error(napi_env env, int code, const char *message, size_t offset);
const char *code_name(int code);
napi_value status_name(napi_env env, int code);
napi_value make_constants(napi_env env);

/* router.c */
router_native *router_of(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv, napi_value *self);
/* As router_of, and the environment's state (the method's data) in *a. */
router_native *router_and_env(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv, napi_value *self,
                              addon_env **a);
/* As router_of, and the route its first argument names (an id or a name) in *id. */
router_native *router_and_route(napi_env env, napi_callback_info info, size_t argc, napi_value *argv, uint32_t *id);
/* As router_of, and its one argument, a uint32, in *out. */
router_native *router_and_uint32(napi_env env, napi_callback_info info, const char *what, uint32_t *out);
/* As router_of, and its arguments (uri, method?) in *args (free them with uri_method_free). */
router_native *router_and_lookup(napi_env env, napi_callback_info info, uri_method_args *args);
route_cache *route_cache_of(router_native *r, uint32_t id);
void route_cache_clear(router_native *r, uint32_t id);
napi_value slots_of(router_native *r);
slot_ref *slot_put(router_native *r, napi_value value, uint32_t route_id);
napi_value slot_get(router_native *r, const slot_ref *ref);
void slot_free(void *userdata);
napi_value define_router_class(napi_env env);


/* routes.c */
napi_value route_id_value(napi_env env, uint32_t id);
napi_value router_add_route(napi_env env, napi_callback_info info);
napi_value router_remove_route(napi_env env, napi_callback_info info);
napi_value router_replace_route(napi_env env, napi_callback_info info);
napi_value router_set_route_data(napi_env env, napi_callback_info info);
napi_value router_route_id(napi_env env, napi_callback_info info);
napi_value router_route(napi_env env, napi_callback_info info);
napi_value router_routes(napi_env env, napi_callback_info info);
napi_value router_size(napi_env env, napi_callback_info info);
napi_value router_route_value(napi_env env, napi_callback_info info);
napi_value router_compile(napi_env env, napi_callback_info info);
napi_value router_set_limits(napi_env env, napi_callback_info info);
napi_value router_set_match_limit(napi_env env, napi_callback_info info);

/* texts.c */
napi_value router_url_for(napi_env env, napi_callback_info info);
napi_value router_load(napi_env env, napi_callback_info info);
napi_value router_explain_json(napi_env env, napi_callback_info info);
napi_value router_pending_link(napi_env env, napi_callback_info info);
napi_value router_take_pending_link(napi_env env, napi_callback_info info);

/* match.c */
napi_value router_match_raw(napi_env env, napi_callback_info info);
router_native *router_numbered(napi_env env, addon_env *a, napi_value number);
napi_value router_route_info(napi_env env, napi_callback_info info);
void route_cache_reset(route_cache *c, uint32_t generation);
int route_strings(napi_env env, router_native *r, uint32_t id, napi_value *name, napi_value *pattern);

/* pipeline.c */
napi_value router_resolve(napi_env env, napi_callback_info info);
napi_value router_replay_pending_link(napi_env env, napi_callback_info info);
napi_value router_add_filter(napi_env env, napi_callback_info info);
napi_value router_set_guard(napi_env env, napi_callback_info info);
napi_value router_set_default(napi_env env, napi_callback_info info);
napi_value router_set_destination(napi_env env, napi_callback_info info);
napi_value router_add_interceptor(napi_env env, napi_callback_info info);
int destination_trampoline(const ilk_request *request, ilk_response *response, void *userdata);
int guard_trampoline(const ilk_request *request, void *userdata);
/* Sets route `id`'s guard to the function `guard`, or clears it (undefined or null). Returns 0
 * with an exception pending. */
int set_route_guard(napi_env env, router_native *r, uint32_t id, napi_value guard);

#endif
