/* The pipeline: JavaScript functions as the library's destinations, guards, filters and
 * interceptors (trampolines that find the function in the router's slots, call it and turn what it
 * returned or threw into the library's answer), and resolve, which throws again the first exception
 * a callback threw. Callbacks run on the thread that called resolve, inside its call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"
#include "values.h"

/* ------------------------------------------------------------------------------------------- */
/* What every trampoline shares                                                                 */

typedef struct call {
  napi_env env;
  router_native *r;
  napi_handle_scope scope;
  napi_value fn;
  napi_value state;
} call;

/* Opens a handle scope and finds the callback; 0 if the router object is gone. */
static int call_begin(call *c, slot_ref *ref) {
  c->r = ref->owner;
  c->env = c->r->env;
  c->state = NULL;
  if (napi_open_handle_scope(c->env, &c->scope) != napi_ok) return 0;
  c->fn = slot_get(c->r, ref);
  addon_env *a = addon_env_of(c->env);
  if (a->frame && a->frame->state) napi_get_reference_value(c->env, a->frame->state, &c->state);
  return c->fn != NULL;
}

static void call_end(call *c) { napi_close_handle_scope(c->env, c->scope); }

/* The text of a thrown value, "Name: message" for an Error, for the library's error message. */
static void describe(napi_env env, napi_value error, char *out, size_t len) {
  napi_value name = NULL, message = NULL, text;
  napi_valuetype t;
  size_t n = 0;
  napi_typeof(env, error, &t);
  out[0] = 0;
  if (t == napi_object) {
    napi_get_named_property(env, error, "name", &name);
    napi_get_named_property(env, error, "message", &message);
  }
  if (message && name && napi_coerce_to_string(env, name, &name) == napi_ok &&
      napi_coerce_to_string(env, message, &message) == napi_ok) {
    napi_get_value_string_utf8(env, name, out, len, &n);
    if (n + 2 < len) {
      memcpy(out + n, ": ", 3);
      napi_get_value_string_utf8(env, message, out + n + 2, len - n - 2, &n);
    }
  } else if (napi_coerce_to_string(env, error, &text) == napi_ok) {
    napi_get_value_string_utf8(env, text, out, len, &n);
  }
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) {  /* a toString that throws: the text is what it is */
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
  }
}

/* Keeps the pending exception as the resolve's first (thrown again from resolve), and returns the
 * error code the callback gives the library, with the message set. */
static int failed(napi_env env, ilk_request *request, ilk_response *response) {
  napi_value error;
  char message[1024];
  napi_get_and_clear_last_exception(env, &error);
  addon_env *a = addon_env_of(env);
  napi_value holder;
  if (a->frame && !a->frame->thrown && napi_get_reference_value(env, a->frame->holder, &holder) == napi_ok &&
      napi_set_named_property(env, holder, "error", error) == napi_ok)
    a->frame->thrown = 1;
  describe(env, error, message, sizeof message);
  if (response) ilk_response_set_error(response, message);
  else if (request) ilk_request_set_error(request, message);
  return -1;
}

/* Whether the pending exception is an Abort; if so, clears it and writes its reason. */
static int aborted(napi_env env, ilk_request *request, ilk_response *response) {
  napi_value error, cls, reason;
  bool is = false;
  addon_env *a = addon_env_of(env);
  napi_get_and_clear_last_exception(env, &error);
  napi_get_reference_value(env, a->abort_class, &cls);
  napi_valuetype t;
  napi_typeof(env, error, &t);
  if (t == napi_object) napi_instanceof(env, error, cls, &is);
  if (!is) {
    napi_throw(env, error);
    return 0;
  }
  char message[1024] = "aborted";
  size_t n;
  if (napi_get_named_property(env, error, "reason", &reason) == napi_ok &&
      napi_coerce_to_string(env, reason, &reason) == napi_ok)
    napi_get_value_string_utf8(env, reason, message, sizeof message, &n);
  if (response) ilk_response_set_error(response, message);
  else ilk_request_set_error(request, message);
  return 1;
}

/* ------------------------------------------------------------------------------------------- */
/* The trampolines                                                                              */

int destination_trampoline(const ilk_request *request, ilk_response *response, void *userdata) {
  call c;
  int rc = -1;
  if (!call_begin(&c, userdata)) return (call_end(&c), ilk_response_set_error(response, "the router is gone"), -1);
  napi_value req = make_request(c.env, c.r, request, c.state), undefined, returned;
  napi_get_undefined(c.env, &undefined);
  if (req && napi_call_function(c.env, undefined, c.fn, 1, &req, &returned) == napi_ok &&
      write_returned(c.env, response, returned, "a destination's return value"))
    rc = ILK_OK;
  else
    rc = failed(c.env, NULL, response);
  call_end(&c);
  return rc;
}

int guard_trampoline(const ilk_request *request, void *userdata) {
  call c;
  int rc;
  if (!call_begin(&c, userdata)) return (call_end(&c), -1);
  napi_value req = make_request(c.env, c.r, request, c.state), undefined, returned;
  napi_get_undefined(c.env, &undefined);
  bool allow = false;
  if (req && napi_call_function(c.env, undefined, c.fn, 1, &req, &returned) == napi_ok &&
      napi_coerce_to_bool(c.env, returned, &returned) == napi_ok && napi_get_value_bool(c.env, returned, &allow) == napi_ok)
    rc = allow ? 1 : 0;
  else
    rc = failed(c.env, (ilk_request *)request, NULL);
  call_end(&c);
  return rc;
}

/* Ends an interceptor's call: `rc` if it ran to the end, else ILK_ABORT for an Abort it threw, or
 * the error of what else it threw. */
static int intercepted(call *c, int ran, int rc, ilk_request *request, ilk_response *response) {
  if (!ran) rc = aborted(c->env, request, response) ? ILK_ABORT : failed(c->env, request, response);
  call_end(c);
  return rc;
}

static int request_interceptor_trampoline(ilk_request *request, void *userdata) {
  call c;
  if (!call_begin(&c, userdata)) return (call_end(&c), -1);
  napi_value req = make_request(c.env, c.r, request, c.state), undefined, returned;
  napi_get_undefined(c.env, &undefined);
  int ran = req && napi_call_function(c.env, undefined, c.fn, 1, &req, &returned) == napi_ok &&
            sync_request(c.env, req, request);
  return intercepted(&c, ran, ILK_CONTINUE, request, NULL);
}

static int response_interceptor_trampoline(ilk_request *request, ilk_response *response, void *userdata) {
  call c;
  if (!call_begin(&c, userdata)) return (call_end(&c), -1);
  napi_value args[2], undefined, returned, retrying;
  args[1] = make_request(c.env, c.r, request, c.state);
  args[0] = args[1] ? make_response(c.env, response) : NULL;
  napi_get_undefined(c.env, &undefined);
  bool retry = false;
  int ran = args[0] && napi_set_named_property(c.env, args[0], "request", args[1]) == napi_ok &&
            napi_call_function(c.env, undefined, c.fn, 2, args, &returned) == napi_ok &&
            write_response(c.env, response, args[0]) &&
            napi_get_named_property(c.env, args[0], "retrying", &retrying) == napi_ok &&
            napi_coerce_to_bool(c.env, retrying, &retrying) == napi_ok &&
            napi_get_value_bool(c.env, retrying, &retry) == napi_ok;
  return intercepted(&c, ran, retry ? ILK_RETRY : ILK_CONTINUE, NULL, response);
}

/* A filter's `next`: valid only while its filter runs, once. */
typedef struct filter_frame {
  ilk_filter_chain *chain;
  ilk_request *request;
  router_native *r;
  int active;
  int called;
  napi_ref response;  /* the Response next() gave */
} filter_frame;

static void free_filter_frame(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

static napi_value filter_next(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL}, self;
  filter_frame *f;
  NAPI_OK(napi_get_cb_info(env, info, &argc, argv, &self, (void **)&f));
  if (!f->active) return throw_error(env, ILK_ECALLBACK, "next() called after its filter returned", ILK_NO_OFFSET);
  if (f->called) return throw_error(env, ILK_ECALLBACK, "next() called twice by one filter", ILK_NO_OFFSET);
  f->called = 1;
  if (argc >= 1 && !is_nullish(env, argv[0]) && !sync_request(env, argv[0], f->request)) return NULL;
  int rc = ilk_filter_chain_next(f->chain, f->request);
  addon_env *a = addon_env_of(env);
  if (rc < 0) {
    napi_value error = frame_exception(env, a->frame);
    if (error != NULL) {
      napi_throw(env, error);
      return NULL;
    }
    return throw_library(env, rc);
  }
  napi_value response = make_response(env, ilk_filter_chain_response(f->chain));
  if (response == NULL) return NULL;
  if (argc >= 1 && !is_nullish(env, argv[0])) napi_set_named_property(env, response, "request", argv[0]);
  if (f->response) napi_delete_reference(env, f->response);
  napi_create_reference(env, response, 1, &f->response);
  return response;
}

/* A Redirect a filter returned: its target, set on the chain. */
static int set_redirect(napi_env env, ilk_filter_chain *chain, napi_value redirect) {
  napi_value uri, name, params;
  napi_get_named_property(env, redirect, "uri", &uri);
  char stack[2048];
  text_arg text;
  int rc;
  if (!is_nullish(env, uri)) {
    if (get_text(env, uri, "the redirect URI", stack, sizeof stack, &text, 0, 1) != napi_ok) return 0;
    rc = ilk_filter_chain_redirect(chain, text.data);
  } else {
    napi_get_named_property(env, redirect, "name", &name);
    napi_get_named_property(env, redirect, "params", &params);
    if (get_text(env, name, "the redirect's route name", stack, sizeof stack, &text, 0, 0) != napi_ok) return 0;
    const char **names, **values;
    char *block;
    long count = param_arrays(env, params, &names, &values, &block);
    rc = count < 0 ? ILK_EINVAL : ilk_filter_chain_redirect_to_route(chain, text.data, names, values, (size_t)count);
    free(names);
    free(values);
    free(block);
    if (count < 0) {
      text_arg_free(&text);
      return 0;
    }
  }
  text_arg_free(&text);
  if (rc != ILK_OK) throw_library(env, rc);
  return rc == ILK_OK;
}

static int filter_trampoline(ilk_request *request, ilk_filter_chain *chain, void *userdata) {
  call c;
  int rc = -1;
  if (!call_begin(&c, userdata)) return (call_end(&c), -1);
  addon_env *a = addon_env_of(c.env);
  filter_frame *f = calloc(1, sizeof *f);
  napi_value args[2], undefined, returned, redirect_class;
  if (f == NULL) return (call_end(&c), ilk_request_set_error(request, "out of memory"), -1);
  *f = (filter_frame){chain, request, c.r, 1, 0, NULL};
  args[0] = make_request(c.env, c.r, request, c.state);
  napi_get_undefined(c.env, &undefined);
  /* The frame belongs to `next` once its finalizer is attached: `next` may outlive the call. */
  if (args[0] == NULL || napi_create_function(c.env, "next", NAPI_AUTO_LENGTH, filter_next, f, &args[1]) != napi_ok ||
      napi_add_finalizer(c.env, args[1], f, free_filter_frame, NULL, NULL) != napi_ok) {
    free(f);
    rc = failed(c.env, request, NULL);
    call_end(&c);
    return rc;
  }
  if (napi_call_function(c.env, undefined, c.fn, 2, args, &returned) != napi_ok) {
    rc = failed(c.env, request, NULL);
    goto done;
  }
  napi_get_reference_value(c.env, a->redirect_class, &redirect_class);
  bool is_redirect = false;
  napi_valuetype t;
  napi_typeof(c.env, returned, &t);
  if (t == napi_object) napi_instanceof(c.env, returned, redirect_class, &is_redirect);
  if (is_redirect) {
    rc = set_redirect(c.env, chain, returned) ? ILK_REDIRECT : failed(c.env, request, NULL);
  } else if (!f->called) {
    /* A stop, answering with what it returned, read as a destination's (undefined: 200, empty). */
    rc = write_returned(c.env, ilk_filter_chain_response(chain), returned, "a stopping filter's return value")
           ? ILK_STOP : failed(c.env, request, NULL);
  } else if (t != napi_undefined && t != napi_null && t != napi_object) {
    /* After next() a status or a body would have changed nothing: said, not dropped. */
    throw_type(c.env, "a filter's return value after next()", "undefined or a response object", returned);
    rc = failed(c.env, request, NULL);
  } else {
    /* The response the filter returned, or the one next() gave, as the filter left it. */
    napi_value response = returned;
    if (t != napi_object && f->response) napi_get_reference_value(c.env, f->response, &response);
    napi_typeof(c.env, response, &t);
    ilk_response *target = ilk_filter_chain_response(chain);
    if (t == napi_object && target != NULL && !write_response(c.env, target, response))
      rc = failed(c.env, request, NULL);
    else
      rc = ILK_CONTINUE;
  }
done:
  f->active = 0;
  if (f->response) napi_delete_reference(c.env, f->response);
  f->response = NULL;
  call_end(&c);
  return rc;
}

/* ------------------------------------------------------------------------------------------- */
/* Resolve                                                                                      */

static napi_value string_list(napi_env env, size_t count, const char *(*at)(const ilk_result *, size_t),
                              const ilk_result *result) {
  napi_value out;
  NAPI_OK(napi_create_array_with_length(env, count, &out));
  for (size_t i = 0; i < count; i++) NAPI_OK(napi_set_element(env, out, (uint32_t)i, make_string(env, at(result, i))));
  return out;
}

static int result_header_at(const void *result, size_t i, const char **name, const char **value) {
  return ilk_result_header_at(result, i, name, value);
}

static napi_value make_result(napi_env env, router_native *r, ilk_result *result, napi_value state) {
  napi_value out, request, response, trace, v;
  int status = ilk_result_status(result);
  request = make_request(env, r, ilk_result_request(result), state);
  if (request == NULL) return NULL;
  NAPI_OK(napi_create_object(env, &out));
  NAPI_OK(napi_set_named_property(env, out, "status", status_name(env, status)));
  napi_value route_id, name, params, pattern;
  napi_get_named_property(env, request, "routeId", &route_id);
  napi_get_named_property(env, request, "name", &name);
  napi_get_named_property(env, request, "pattern", &pattern);
  napi_get_named_property(env, request, "params", &params);
  napi_set_named_property(env, out, "routeId", route_id);
  napi_set_named_property(env, out, "name", name);
  napi_set_named_property(env, out, "pattern", pattern);
  napi_set_named_property(env, out, "params", params);

  /* The response, as a Response object (the result's own copy). */
  size_t body_len = 0;
  const void *body = ilk_result_body(result, &body_len);
  response = response_object(env, ilk_result_response_status(result), body, body_len, ilk_result_header_count(result),
                             result_header_at, result);
  if (response == NULL) return NULL;
  napi_set_named_property(env, response, "request", request);
  napi_set_named_property(env, out, "response", response);
  napi_set_named_property(env, out, "request", request);
  napi_set_named_property(env, out, "error", make_string(env, ilk_result_error(result)));

  size_t count = ilk_result_trace_count(result);
  NAPI_OK(napi_create_array_with_length(env, count, &trace));
  for (size_t i = 0; i < count; i++) {
    const char *stage, *tname, *decision;
    napi_value entry;
    if (ilk_result_trace_at(result, i, &stage, &tname, &decision) != ILK_OK) continue;
    napi_create_object(env, &entry);
    napi_set_named_property(env, entry, "stage", make_string(env, stage));
    napi_set_named_property(env, entry, "name", make_string(env, tname));
    napi_set_named_property(env, entry, "decision", make_string(env, decision));
    napi_set_element(env, trace, (uint32_t)i, entry);
  }
  napi_set_named_property(env, out, "trace", trace);
  v = string_list(env, ilk_result_redirect_count(result), ilk_result_redirect_at, result);
  if (v == NULL) return NULL;
  napi_set_named_property(env, out, "redirects", v);
  v = string_list(env, ilk_result_allowed_count(result), ilk_result_allowed_at, result);
  if (v == NULL) return NULL;
  napi_set_named_property(env, out, "allowed", v);
  napi_set_named_property(env, out, "state", state);
  return out;
}

typedef int (*resolve_fn)(router_native *r, const char *method, const text_arg *uri, ilk_result **out);

static int resolve_uri(router_native *r, const char *method, const text_arg *uri, ilk_result **out) {
  return ilk_router_resolve(r->router, method, uri->data, uri->len, out);
}

static int replay_link(router_native *r, const char *method, const text_arg *uri, ilk_result **out) {
  (void)method;
  (void)uri;
  return ilk_router_replay_pending_link(r->router, out);
}

napi_value frame_exception(napi_env env, resolve_frame *frame) {
  napi_value holder, error;
  if (frame == NULL || !frame->thrown || napi_get_reference_value(env, frame->holder, &holder) != napi_ok ||
      napi_get_named_property(env, holder, "error", &error) != napi_ok)
    return NULL;
  return error;
}

/* Runs one resolve with its frame; the result object, null (no pending link to replay), or NULL
 * with an exception pending (the first a callback threw, or the library's error). */
static napi_value run(napi_env env, router_native *r, resolve_fn fn, const char *method, const text_arg *uri) {
  addon_env *a = addon_env_of(env);
  resolve_frame frame = {NULL, 0, NULL, a->frame};
  napi_value state, holder, out = NULL;
  NAPI_OK(napi_create_object(env, &state));
  NAPI_OK(napi_create_object(env, &holder));
  NAPI_OK(napi_create_reference(env, state, 1, &frame.state));
  if (napi_create_reference(env, holder, 1, &frame.holder) != napi_ok) {
    napi_delete_reference(env, frame.state);
    return NULL;
  }
  a->frame = &frame;
  ilk_result *result = NULL;
  r->resolving++;
  int rc = fn(r, method, uri, &result);
  r->resolving--;
  a->frame = frame.outer;
  napi_delete_reference(env, frame.state);
  napi_value error = frame_exception(env, &frame);
  napi_delete_reference(env, frame.holder);
  if (error != NULL) {
    ilk_result_free(result);
    napi_throw(env, error);
    return NULL;
  }
  if (result == NULL) {
    if (rc == ILK_OK) napi_get_null(env, &out);
    else throw_library(env, rc);
    return out;
  }
  if (rc == ILK_ECALLBACK) {
    throw_error(env, ILK_ECALLBACK, ilk_result_error(result), ILK_NO_OFFSET);
  } else {
    out = make_result(env, r, result, state);
  }
  ilk_result_free(result);
  return out;
}

/* resolve(uri, method?) -> result */
napi_value router_resolve(napi_env env, napi_callback_info info) {
  uri_method_args args;
  router_native *r = router_and_lookup(env, info, &args);
  if (r == NULL) return NULL;
  napi_value out = run(env, r, resolve_uri, args.method.data, &args.uri);
  uri_method_free(&args);
  return out;
}

/* replayPendingLink() -> result | null */
napi_value router_replay_pending_link(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  router_native *r = router_of(env, info, &argc, NULL, NULL);
  if (r == NULL) return NULL;
  return run(env, r, replay_link, NULL, NULL);
}

/* ------------------------------------------------------------------------------------------- */
/* Registering callbacks                                                                        */

static int function_arg(napi_env env, napi_value v, const char *what) {
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (v == NULL || t != napi_function) {
    throw_type(env, what, "a function", v);
    return 0;
  }
  return 1;
}

/* An optional name: undefined/null for none. */
static int name_arg(napi_env env, napi_value v, char *stack, size_t len, text_arg *out) {
  out->data = NULL;
  out->owned = NULL;
  if (v == NULL || is_nullish(env, v)) return 1;
  return get_text(env, v, "name", stack, len, out, 0, 0) == napi_ok;
}

/* addFilter(fn, name?) */
napi_value router_add_filter(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2] = {NULL, NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  char stack[256];
  text_arg name;
  if (r == NULL || !function_arg(env, argv[0], "filter") || !name_arg(env, argv[1], stack, sizeof stack, &name))
    return NULL;
  slot_ref *ref = slot_put(r, argv[0], 0);
  int rc = ref ? ilk_router_add_filter(r->router, name.data, filter_trampoline, ref, slot_free) : ILK_ENOMEM;
  text_arg_free(&name);
  if (rc != ILK_OK) {
    if (ref) slot_free(ref);
    return ref ? throw_library(env, rc) : NULL;
  }
  return NULL;
}

/* Hands the library a callback in a slot (ref), or clears it (ref NULL): one per kind of callback. */
typedef int (*install_fn)(ilk_router *router, uint32_t id, slot_ref *ref);

static int install_guard(ilk_router *router, uint32_t id, slot_ref *ref) {
  return ilk_router_set_guard(router, id, ref ? guard_trampoline : NULL, ref, ref ? slot_free : NULL);
}

static int install_default(ilk_router *router, uint32_t id, slot_ref *ref) {
  (void)id;
  return ilk_router_set_default(router, ref ? destination_trampoline : NULL, ref, ref ? slot_free : NULL);
}

static int install_destination(ilk_router *router, uint32_t id, slot_ref *ref) {
  return ilk_router_set_destination(router, id, destination_trampoline, ref, slot_free);
}

/* Sets the callback `fn` (a function; or undefined/null, which clears it, where `clearable`).
 * Returns 0 with an exception pending. */
static int set_callback(napi_env env, router_native *r, uint32_t id, napi_value fn, const char *what, int clearable,
                        install_fn install) {
  slot_ref *ref = NULL;
  if (!(clearable && is_nullish(env, fn))) {
    if (!function_arg(env, fn, what) || (ref = slot_put(r, fn, 0)) == NULL) return 0;
  }
  int rc = install(r->router, id, ref);
  if (rc != ILK_OK) {
    if (ref) slot_free(ref);
    throw_library(env, rc);
  }
  return rc == ILK_OK;
}

int set_route_guard(napi_env env, router_native *r, uint32_t id, napi_value guard) {
  return set_callback(env, r, id, guard, "guard", 1, install_guard);
}

/* setGuard(nameOrId, fn | null) */
napi_value router_set_guard(napi_env env, napi_callback_info info) {
  napi_value argv[2] = {NULL, NULL};
  uint32_t id;
  router_native *r = router_and_route(env, info, 2, argv, &id);
  if (r) set_route_guard(env, r, id, argv[1]);
  return NULL;
}

/* setDefault(fn | null): the destination when no route matches. */
napi_value router_set_default(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r) set_callback(env, r, 0, argv[0], "destination", 1, install_default);
  return NULL;
}

/* setDestination(nameOrId, fn) */
napi_value router_set_destination(napi_env env, napi_callback_info info) {
  napi_value argv[2] = {NULL, NULL};
  uint32_t id;
  router_native *r = router_and_route(env, info, 2, argv, &id);
  if (r) set_callback(env, r, id, argv[1], "destination", 0, install_destination);
  return NULL;
}

/* addInterceptor(isResponse, fn, nameOrId?, name?): a route's scope, or the global one. */
napi_value router_add_interceptor(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4] = {NULL, NULL, NULL, NULL};
  router_native *r = router_of(env, info, &argc, argv, NULL);
  if (r == NULL) return NULL;
  bool response = false;
  napi_get_value_bool(env, argv[0], &response);
  uint32_t id = 0;
  if (!function_arg(env, argv[1], "interceptor")) return NULL;
  if (argv[2] && !is_nullish(env, argv[2]) && !get_route_id(env, r, argv[2], "options.route", &id)) return NULL;
  char stack[256];
  text_arg name;
  if (!name_arg(env, argv[3], stack, sizeof stack, &name)) return NULL;
  slot_ref *ref = slot_put(r, argv[1], 0);
  ilk_interceptor *interceptor = NULL;
  int rc = ref == NULL ? ILK_ENOMEM
           : response  ? ilk_interceptor_new_response(&interceptor, name.data, response_interceptor_trampoline, ref, slot_free)
                       : ilk_interceptor_new_request(&interceptor, name.data, request_interceptor_trampoline, ref, slot_free);
  text_arg_free(&name);
  if (rc != ILK_OK) {
    if (ref) slot_free(ref);
    return ref ? throw_library(env, rc) : NULL;
  }
  rc = ilk_router_add_interceptor(r->router, interceptor, id);
  ilk_interceptor_free(interceptor);  /* the router holds its own reference */
  return rc == ILK_OK ? NULL : throw_library(env, rc);
}
