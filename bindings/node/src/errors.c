/* The header's constants as JavaScript sees them (their names and values come from interlock.h
 * here, and nowhere else in the package), and the one place a library status becomes an error:
 * an instance of the class index.js registered for the code's name, with `code` and `offset`. */
#include <stdio.h>
#include <string.h>

#include "addon.h"

#define ENTRY(name) {#name, name}
static const struct {
  const char *name;
  long value;
} CONSTANTS[] = {
    ENTRY(ILK_OK), ENTRY(ILK_NOT_FOUND), ENTRY(ILK_METHOD_NOT_ALLOWED), ENTRY(ILK_STOPPED),
    ENTRY(ILK_GUARDED), ENTRY(ILK_ABORTED), ENTRY(ILK_REDIRECT_LOOP), ENTRY(ILK_RETRY_LIMIT),
    ENTRY(ILK_REDIRECTED), ENTRY(ILK_RETRYING),
    ENTRY(ILK_EINVAL), ENTRY(ILK_EPATTERN), ENTRY(ILK_ECONFLICT), ENTRY(ILK_EURI), ENTRY(ILK_ENOMEM),
    ENTRY(ILK_ELIMIT), ENTRY(ILK_ENOROUTE), ENTRY(ILK_ECALLBACK),
    ENTRY(ILK_CONTINUE), ENTRY(ILK_STOP), ENTRY(ILK_REDIRECT), ENTRY(ILK_ABORT), ENTRY(ILK_RETRY),
    ENTRY(ILK_CASE_INSENSITIVE), ENTRY(ILK_STRICT_SLASH), ENTRY(ILK_DEFAULT_REDIRECT_LIMIT), ENTRY(ILK_DEFAULT_RETRY_LIMIT),
    ENTRY(ILK_VERSION_MAJOR), ENTRY(ILK_VERSION_MINOR), ENTRY(ILK_VERSION_PATCH), ENTRY(ILK_VERSION_NUMBER),
};
#undef ENTRY

/* The statuses (the header's ILK_* return codes), in the order they are looked up by value. */
static const char *const STATUS_NAMES[] = {
    "ILK_OK", "ILK_NOT_FOUND", "ILK_METHOD_NOT_ALLOWED", "ILK_STOPPED", "ILK_GUARDED", "ILK_ABORTED",
    "ILK_REDIRECT_LOOP", "ILK_RETRY_LIMIT", "ILK_REDIRECTED", "ILK_RETRYING", "ILK_EINVAL", "ILK_EPATTERN",
    "ILK_ECONFLICT", "ILK_EURI", "ILK_ENOMEM", "ILK_ELIMIT", "ILK_ENOROUTE", "ILK_ECALLBACK",
};

const char *code_name(int code) {
  for (size_t i = 0; i < sizeof STATUS_NAMES / sizeof *STATUS_NAMES; i++) {
    for (size_t j = 0; j < sizeof CONSTANTS / sizeof *CONSTANTS; j++) {
      if (strcmp(CONSTANTS[j].name, STATUS_NAMES[i]) == 0 && CONSTANTS[j].value == code) return STATUS_NAMES[i];
    }
  }
  return NULL;
}

/* A status as a resolve reports it: its header name without "ILK_" ("OK", "GUARDED"). */
napi_value status_name(napi_env env, int code) {
  const char *name = code_name(code);
  if (name == NULL) {
    napi_value v;
    napi_create_int32(env, code, &v);
    return v;
  }
  return make_string(env, name + 4);
}

napi_value make_constants(napi_env env) {
  napi_value out, v;
  NAPI_OK(napi_create_object(env, &out));
  for (size_t i = 0; i < sizeof CONSTANTS / sizeof *CONSTANTS; i++) {
    NAPI_OK(napi_create_int64(env, CONSTANTS[i].value, &v));
    NAPI_OK(napi_set_named_property(env, out, CONSTANTS[i].name, v));
  }
  NAPI_OK(napi_create_string_utf8(env, ILK_VERSION, NAPI_AUTO_LENGTH, &v));
  NAPI_OK(napi_set_named_property(env, out, "ILK_VERSION", v));
  return out;
}

/* new Class(message, code, offset): the class registered under the code's name, else "Error". */
napi_value make_library_error(napi_env env, int code, const char *message, size_t offset) {
  addon_env *a = addon_env_of(env);
  napi_value errors, ctor = NULL, args[3], out;
  const char *name = code_name(code);
  char fallback[32];
  if (name == NULL) {
    snprintf(fallback, sizeof fallback, "%d", code);
    name = fallback;
  }
  if (a && a->errors && napi_get_reference_value(env, a->errors, &errors) == napi_ok && errors) {
    bool has = false;
    napi_has_named_property(env, errors, name, &has);
    NAPI_OK(napi_get_named_property(env, errors, has ? name : "Error", &ctor));
  }
  args[0] = make_string(env, message ? message : "error");
  args[1] = make_string(env, name);
  if (offset == ILK_NO_OFFSET) napi_get_undefined(env, &args[2]);
  else napi_create_double(env, (double)offset, &args[2]);
  if (ctor == NULL) {  /* before index.js registered its classes */
    NAPI_OK(napi_create_error(env, args[1], args[0], &out));
    return out;
  }
  NAPI_OK(napi_new_instance(env, ctor, 3, args, &out));
  return out;
}

napi_value throw_error(napi_env env, int code, const char *message, size_t offset) {
  napi_value error = make_library_error(env, code, message, offset);
  if (error != NULL) napi_throw(env, error);
  return NULL;
}

/* Throws the error the last failing library call on this thread left (ilk_errmsg, ilk_erroffset). */
napi_value throw_library(napi_env env, int code) {
  return throw_error(env, code, ilk_errmsg(), ilk_erroffset());
}
