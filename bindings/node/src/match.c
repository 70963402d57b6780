/* The fast path under Router.prototype.match. One library call (ilk_router_match_packed: the
 * route's id, and its parameters packed in the thread's buffer), then one JavaScript string of
 * the parameters' values, one after the other; the route's id, its generation, and each
 * parameter's name (an index into the route's names) and end go to the thread's scratch array.
 * index.js makes the answer from them with what it keeps of the route (routeInfo): making the
 * object in JavaScript costs a fraction of making it through N-API, which internalizes every
 * property name at every call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"


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

void route_cache_reset(route_cache *c, uint32_t generation) {
  for (uint32_t i = 0; i < c->name_count; i++) free(c->names[i]);
  free(c->names);
  c->names = NULL;
  c->name_count = 0;
  c->strings_made = 0;
  c->generation = generation;
}

/* The index of parameter name `name` in the route's names, added if new (a new generation). */
static long name_index(router_native *r, route_cache *c, const char *name, size_t len) {
  for (uint32_t i = 0; i < c->name_count; i++) {
    if (strncmp(c->names[i], name, len) == 0 && c->names[i][len] == 0) return i;
  }
  char **grown = realloc(c->names, (c->name_count + 1) * sizeof *grown);
  if (grown == NULL) return -1;
  c->names = grown;
  if ((c->names[c->name_count] = strndup(name, len)) == NULL) return -1;
  c->generation = ++r->generation;
  return c->name_count++;
}

/* matchRaw(number, uri, method?) -> the values string, or null for no route;
 * MethodNotAllowedError when routes take the path under other methods only. A function, not a
 * method: the router comes by its number (napi_unwrap's lookup of the wrapped pointer cost an
 * eighth of a lookup's time). */
napi_value router_match_raw(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3] = {NULL, NULL, NULL};
  addon_env *a = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, (void **)&a) != napi_ok) return NULL;
  router_native *r = router_numbered(env, a, argv[0]);
  if (r == NULL) return NULL;
  uri_method_args args;
  if (!uri_method(env, argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL, &args)) return NULL;
  const text_arg uri = args.uri, method = args.method;
  int64_t got = ilk_router_match_packed(r->router, method.data, uri.data, uri.len, a->match);
  napi_value out = NULL;
  if (got >= ((int64_t)1 << 32)) {
    uint32_t id = (uint32_t)(got >> 32);
    size_t len = (size_t)(got & 0xffffffff);
    route_cache *c = route_cache_of(r, id);
    if (c == NULL) {
      throw_error(env, ILK_ENOMEM, "out of memory", ILK_NO_OFFSET);
      goto done;
    }
    /* Parameters that did not fit the buffer: read them one by one into it. */
    size_t count = 0, bytes = 0, units = 0;
    int ascii = 1;
    uint32_t *scratch = a->scratch;
    char *values = a->values;
    for (size_t i = 0;; i++) {
      const char *name, *value;
      size_t name_len, value_len;
      if (len <= a->params_capacity) {
        if (bytes >= len) break;
        name = a->params + bytes;
        name_len = strlen(name);
        value = name + name_len + 1;
        value_len = strlen(value);
        bytes += name_len + value_len + 2;
      } else if (ilk_match_param_at(a->match, i, &name, &name_len, &value, &value_len) != ILK_OK) {
        break;
      }
      long index = name_index(r, c, name, name_len);
      if (index < 0 || count >= 256) {
        throw_error(env, ILK_ENOMEM, "out of memory", ILK_NO_OFFSET);
        goto done;
      }
      memcpy(values + units, value, value_len);
      for (size_t k = 0; ascii && k < value_len; k++) ascii = (unsigned char)value[k] < 0x80;
      scratch[SCRATCH_PARAMS + 2 * count] = (uint32_t)index;
      count++;
      units += value_len;
      scratch[SCRATCH_PARAMS + 2 * count - 1] = (uint32_t)units;
    }
    scratch[SCRATCH_ID] = id;
    scratch[SCRATCH_COUNT] = (uint32_t)count;
    scratch[SCRATCH_GENERATION] = c->generation;
    if (ascii) {
      napi_create_string_latin1(env, values, units, &out);
    } else {
      /* Ends in UTF-16 code units: one per byte that starts a sequence, two for a four-byte one. */
      size_t at = 0, u = 0;
      for (size_t p = 0; p < count; p++) {
        size_t end = scratch[SCRATCH_PARAMS + 2 * p + 1];
        for (; at < end; at++) {
          unsigned char b = (unsigned char)values[at];
          if ((b & 0xC0) != 0x80) u += b >= 0xF0 ? 2 : 1;
        }
        scratch[SCRATCH_PARAMS + 2 * p + 1] = (uint32_t)u;
      }
      napi_create_string_utf8(env, values, units, &out);
    }
  } else if (got == ILK_NOT_FOUND) {
    napi_get_null(env, &out);
  } else if (got == ILK_METHOD_NOT_ALLOWED) {
    throw_not_allowed(env, a->match, uri.data, uri.len, method.data);
  } else {
    throw_library(env, (int)got);
  }
done:
  uri_method_free(&args);
  return out;
}

/* routeInfo(id) -> { name, pattern, names, data, generation }: what index.js keeps of a route
 * for lookups, until the route's generation changes. */
napi_value router_route_info(napi_env env, napi_callback_info info) {
  uint32_t id;
  router_native *r = router_and_uint32(env, info, "id", &id);
  if (r == NULL) return NULL;
  static const char *const keys[] = {"name", "pattern", "names", "data", "generation"};
  route_cache *c = route_cache_of(r, id);
  napi_value v[5], out;
  if (c == NULL) return throw_error(env, ILK_ENOMEM, "out of memory", ILK_NO_OFFSET);
  if (!route_strings(env, r, id, &v[0], &v[1])) return NULL;
  NAPI_OK(napi_create_array_with_length(env, c->name_count, &v[2]));
  for (uint32_t i = 0; i < c->name_count; i++) NAPI_OK(napi_set_element(env, v[2], i, make_string(env, c->names[i])));
  if (c->data_slot) {
    slot_ref ref = {r, c->data_slot, id};
    if ((v[3] = slot_get(r, &ref)) == NULL) return NULL;
  } else {
    napi_get_null(env, &v[3]);
  }
  napi_create_uint32(env, c->generation, &v[4]);
  NAPI_OK(napi_create_object(env, &out));
  NAPI_OK(define_values(env, out, keys, v, 5));
  return out;
}
