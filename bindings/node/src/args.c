/* Arguments from JavaScript: strings as UTF-8 (checked for what UTF-8 or a C string cannot carry),
 * route ids and names, unsigned integers; and the TypeError that names a wrong argument. */
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
