/* Arguments from JavaScript: strings as UTF-8 (checked for what UTF-8 or a C string cannot carry),
 * bytes, methods, route ids and names, unsigned integers, objects of parameters; and the
 * TypeError that names a wrong argument. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

const char *type_name(napi_env env, napi_value value) {
  napi_valuetype t;
  if (napi_typeof(env, value, &t) != napi_ok) return "unknown";
  switch (t) {
    case napi_undefined: return "undefined";
    case napi_null: return "null";
    case napi_boolean: return "boolean";
    case napi_number: return "number";
    case napi_string: return "string";
    case napi_symbol: return "symbol";
    case napi_object: {
      bool is_array = false;
      napi_is_array(env, value, &is_array);
      return is_array ? "Array" : "object";
    }
    case napi_function: return "function";
    case napi_external: return "external";
    case napi_bigint: return "bigint";
  }
  return "unknown";
}

/* Throws TypeError("<what> must be <expected>, not <type>") with code ERR_INVALID_ARG_TYPE. */
napi_value throw_type(napi_env env, const char *what, const char *expected, napi_value got) {
  char message[512];
  snprintf(message, sizeof message, "%s must be %s, not %s", what, expected, got ? type_name(env, got) : "undefined");
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return NULL;
}

int is_nullish(napi_env env, napi_value value) {
  napi_valuetype t;
  if (value == NULL) return 1;
  if (napi_typeof(env, value, &t) != napi_ok) return 0;
  return t == napi_undefined || t == napi_null;
}

napi_value make_string(napi_env env, const char *s) {
  napi_value v;
  if (s == NULL) {
    napi_get_null(env, &v);
    return v;
  }
  return napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v) == napi_ok ? v : NULL;
}

napi_value make_string_n(napi_env env, const char *s, size_t len) {
  napi_value v;
  return napi_create_string_utf8(env, s, len, &v) == napi_ok ? v : NULL;
}

/* Defines the plain properties keys[i]: values[i] (at most 16) on `object`, in one call. */
napi_status define_values(napi_env env, napi_value object, const char *const *keys, const napi_value *values,
                          size_t count) {
  napi_property_descriptor props[16];
  if (count > sizeof props / sizeof *props) return napi_invalid_arg;
  for (size_t i = 0; i < count; i++)
    props[i] = (napi_property_descriptor){keys[i], NULL, NULL, NULL, NULL, values[i], napi_default_jsproperty, NULL};
  return napi_define_properties(env, object, count, props);
}

/* The UTF-8 offset at which the first lone surrogate of `value` would begin, or -1 if it has none.
 * N-API would write U+FFFD in its place, which the library would take as the text. */
static long lone_surrogate_offset(napi_env env, napi_value value) {
  size_t units = 0;
  if (napi_get_value_string_utf16(env, value, NULL, 0, &units) != napi_ok) return -1;
  char16_t *s = malloc((units + 1) * sizeof *s);
  if (s == NULL) return -1;
  napi_get_value_string_utf16(env, value, s, units + 1, &units);
  long offset = 0, found = -1;
  for (size_t i = 0; i < units; i++) {
    unsigned c = s[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < units && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
      offset += 4;
      i++;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      found = offset;
      break;
    } else {
      offset += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    }
  }
  free(s);
  return found;
}

napi_status get_text(napi_env env, napi_value value, const char *what, char *stack, size_t stack_len,
                     text_arg *out, int allow_nul, int is_uri) {
  out->owned = NULL;
  size_t len = 0;
  /* The conversion checks the type: one N-API call on the lookup path, not two. */
  napi_status status = napi_get_value_string_utf8(env, value, stack, stack_len, &len);
  if (status == napi_string_expected) {
    throw_type(env, what, "a string", value);
    return napi_string_expected;
  }
  if (status != napi_ok) return napi_generic_failure;
  /* N-API stops short of a character that does not fit whole (up to 4 bytes), without a word:
   * unless that much room was left, the text may have been cut, so take its whole length. */
  if (len + 4 >= stack_len) {
    size_t full = 0;
    napi_get_value_string_utf8(env, value, NULL, 0, &full);
    if (full > len) {
      out->owned = malloc(full + 1);
      if (out->owned == NULL) {
        napi_throw_error(env, "ILK_ENOMEM", "out of memory");
        return napi_generic_failure;
      }
      napi_get_value_string_utf8(env, value, out->owned, full + 1, &len);
      stack = out->owned;
    }
  }
  out->data = stack;
  out->len = len;
  /* U+FFFD is EF BF BD: only then may a lone surrogate have been replaced. */
  if (memchr(stack, 0xEF, len) != NULL) {
    long at = lone_surrogate_offset(env, value);
    if (at >= 0) {
      char message[300];
      snprintf(message, sizeof message, "%s holds a lone surrogate, which UTF-8 cannot encode", what);
      throw_error(env, is_uri ? ILK_EURI : ILK_EINVAL, message, (size_t)at);
      text_arg_free(out);
      return napi_generic_failure;
    }
  }
  if (!allow_nul) {
    const char *nul = memchr(stack, 0, len);
    if (nul != NULL) {
      char message[300];
      snprintf(message, sizeof message, "%s holds a NUL byte", what);
      throw_error(env, ILK_EINVAL, message, (size_t)(nul - stack));
      text_arg_free(out);
      return napi_generic_failure;
    }
  }
  return napi_ok;
}

void text_arg_free(text_arg *t) {
  free(t->owned);
  t->owned = NULL;
}

/* A uint32 argument: a number that is an integer in 0...4294967295. */
int get_uint32_arg(napi_env env, napi_value value, const char *what, uint32_t *out) {
  napi_valuetype t;
  double d;
  if (napi_typeof(env, value, &t) != napi_ok) return 0;
  if (t != napi_number) {
    throw_type(env, what, "a number", value);
    return 0;
  }
  napi_get_value_double(env, value, &d);
  if (!(d >= 0 && d <= 4294967295.0) || d != (double)(uint32_t)d) {
    char message[300];
    snprintf(message, sizeof message, "%s %.17g is not an integer in 0...4294967295", what, d);
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", message);
    return 0;
  }
  *out = (uint32_t)d;
  return 1;
}

/* A route given by id (a number) or by name (a string the library looks up). */
int get_route_id(napi_env env, router_native *r, napi_value value, const char *what, uint32_t *id) {
  napi_valuetype t;
  if (napi_typeof(env, value, &t) != napi_ok) return 0;
  if (t == napi_number) return get_uint32_arg(env, value, what, id);
  if (t != napi_string) {
    throw_type(env, what, "a route id (number) or name (string)", value);
    return 0;
  }
  char stack[256];
  text_arg name;
  if (get_text(env, value, what, stack, sizeof stack, &name, 0, 0) != napi_ok) return 0;
  int rc = ilk_router_route_id(r->router, name.data, id);
  text_arg_free(&name);
  if (rc != ILK_OK) {
    throw_library(env, rc);
    return 0;
  }
  return 1;
}

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

/* The bytes of a string (UTF-8), a Buffer or another Uint8Array. */
int bytes_arg(napi_env env, napi_value v, const char *what, char *stack, size_t stack_len, text_arg *out) {
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

/* A lookup's URI (a string; NULL when not given) and method (method_arg). */
int uri_method(napi_env env, napi_value uri, napi_value method, uri_method_args *out) {
  if (uri == NULL) {
    throw_type(env, "uri", "a string", NULL);
    return 0;
  }
  if (get_text(env, uri, "uri", out->ustack, sizeof out->ustack, &out->uri, 1, 1) != napi_ok) return 0;
  if (!method_arg(env, method, out->mstack, sizeof out->mstack, &out->method)) {
    text_arg_free(&out->uri);
    return 0;
  }
  return 1;
}

void uri_method_free(uri_method_args *a) {
  text_arg_free(&a->uri);
  text_arg_free(&a->method);
}

/* options[key]: 1 with *out set when present and neither undefined nor null, 0 when not, -1 on
 * an error (an exception pending). */
int get_option(napi_env env, napi_value options, const char *key, napi_value *out) {
  bool has = false;
  if (napi_has_named_property(env, options, key, &has) != napi_ok || !has) return 0;
  if (napi_get_named_property(env, options, key, out) != napi_ok) return -1;
  return is_nullish(env, *out) ? 0 : 1;
}
