/* The addon's entry: one state per environment (the main thread and each worker thread that loads
 * it get their own lookup state and classes: a Router is used on the thread that made it), the
 * header's constants, the library's version, and `setup`, through which index.js hands over the
 * JavaScript classes the addon makes instances of. */
#include <stdlib.h>
#include <string.h>

#include "addon.h"

/* Room for the packed parameters of the longest URI (64 KiB), and the bytes past them the library
 * may write. */
#define PARAMS_CAPACITY (65536 + 4096)

addon_env *addon_env_of(napi_env env) {
  addon_env *a = NULL;
  napi_get_instance_data(env, (void **)&a);
  return a;
}

static void delete_ref(napi_env env, napi_ref *ref) {
  if (*ref) napi_delete_reference(env, *ref);
  *ref = NULL;
}

static void free_env(napi_env env, void *data, void *hint) {
  (void)hint;
  addon_env *a = data;
  delete_ref(env, &a->errors);
  delete_ref(env, &a->response_class);
  delete_ref(env, &a->redirect_class);
  delete_ref(env, &a->abort_class);
  delete_ref(env, &a->request_class);
  delete_ref(env, &a->slots_key);
  delete_ref(env, &a->id_key);
  free(a->routers);
  ilk_match_free(a->match);
  delete_ref(env, &a->scratch_array);
  free(a->params);
  free(a->values);
  free(a);
}

static napi_value keep(napi_env env, napi_value from, const char *key, napi_ref *into) {
  napi_value v;
  napi_valuetype t;
  NAPI_OK(napi_get_named_property(env, from, key, &v));
  NAPI_OK(napi_typeof(env, v, &t));
  if (t != napi_function && t != napi_object) {
    napi_throw_type_error(env, NULL, "setup: a class is missing");
    return NULL;
  }
  if (*into) napi_delete_reference(env, *into);
  NAPI_OK(napi_create_reference(env, v, 1, into));
  return v;
}

/* setup({ errors, Response, Redirect, Abort, Request }): the classes index.js defines. */
static napi_value setup(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  NAPI_OK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  addon_env *a = addon_env_of(env);
  if (argc < 1 || a == NULL) return throw_type(env, "setup's argument", "an object", NULL);
  if (!keep(env, argv[0], "errors", &a->errors)) return NULL;
  if (!keep(env, argv[0], "Response", &a->response_class)) return NULL;
  if (!keep(env, argv[0], "Redirect", &a->redirect_class)) return NULL;
  if (!keep(env, argv[0], "Abort", &a->abort_class)) return NULL;
  if (!keep(env, argv[0], "Request", &a->request_class)) return NULL;
  return NULL;
}

static napi_value version(napi_env env, napi_callback_info info) {
  (void)info;
  return make_string(env, ilk_version());
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  addon_env *a = calloc(1, sizeof *a);
  if (a == NULL) {
    napi_throw_error(env, "ILK_ENOMEM", "interlock: out of memory");
    return NULL;
  }
  a->params = malloc(PARAMS_CAPACITY);
  a->values = malloc(PARAMS_CAPACITY);
  if (a->params == NULL || a->values == NULL || ilk_match_new(&a->match) != ILK_OK ||
      ilk_match_set_buffer(a->match, a->params, PARAMS_CAPACITY - 16) != ILK_OK) {
    free(a->params);
    free(a->values);
    ilk_match_free(a->match);
    free(a);
    napi_throw_error(env, "ILK_ENOMEM", "interlock: cannot make lookup state");
    return NULL;
  }
  a->params_capacity = PARAMS_CAPACITY - 16;
  if (napi_set_instance_data(env, a, free_env, NULL) != napi_ok) {
    free_env(env, a, NULL);
    return NULL;
  }
  napi_value symbol, description;
  NAPI_OK(napi_create_string_utf8(env, "interlock.slots", NAPI_AUTO_LENGTH, &description));
  NAPI_OK(napi_create_symbol(env, description, &symbol));
  NAPI_OK(napi_create_reference(env, symbol, 1, &a->slots_key));
  napi_value id_key;
  NAPI_OK(napi_create_string_utf8(env, "interlock.number", NAPI_AUTO_LENGTH, &description));
  NAPI_OK(napi_create_symbol(env, description, &id_key));
  NAPI_OK(napi_create_reference(env, id_key, 1, &a->id_key));

  napi_value buffer, scratch;
  NAPI_OK(napi_create_arraybuffer(env, SCRATCH_LENGTH * sizeof(uint32_t), (void **)&a->scratch, &buffer));
  NAPI_OK(napi_create_typedarray(env, napi_uint32_array, SCRATCH_LENGTH, buffer, 0, &scratch));
  NAPI_OK(napi_create_reference(env, scratch, 1, &a->scratch_array));

  /* The scratch's layout (addon.h), for index.js to read it by name. */
  napi_value layout, v;
  const struct {
    const char *name;
    uint32_t value;
  } fields[] = {{"id", SCRATCH_ID}, {"count", SCRATCH_COUNT}, {"generation", SCRATCH_GENERATION}, {"params", SCRATCH_PARAMS}};
  NAPI_OK(napi_create_object(env, &layout));
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
    NAPI_OK(napi_create_uint32(env, fields[i].value, &v));
    NAPI_OK(napi_set_named_property(env, layout, fields[i].name, v));
  }

  napi_value router_class = define_router_class(env);
  if (router_class == NULL) return NULL;
  napi_property_descriptor props[] = {
      {"Router", NULL, NULL, NULL, NULL, router_class, napi_enumerable, NULL},
      {"constants", NULL, NULL, NULL, NULL, make_constants(env), napi_enumerable, NULL},
      {"scratch", NULL, NULL, NULL, NULL, scratch, napi_enumerable, NULL},
      {"numberKey", NULL, NULL, NULL, NULL, id_key, napi_enumerable, NULL},
      {"scratchLayout", NULL, NULL, NULL, NULL, layout, napi_enumerable, NULL},
      {"matchRaw", NULL, router_match_raw, NULL, NULL, NULL, napi_enumerable, a},
      {"setup", NULL, setup, NULL, NULL, NULL, napi_enumerable, NULL},
      {"version", NULL, version, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  NAPI_OK(napi_define_properties(env, exports, sizeof props / sizeof *props, props));
  return exports;
}
