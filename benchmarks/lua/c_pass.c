/* The C door's pass (benchmarks/c/interlock_bench.c, "C ilk_router_match"), as a function that
 * benchmarks/lua/ffi_bench.lua calls once a pass through the FFI: the C door timed in the same
 * process, on the same router and requests, batch by batch with the LuaJIT doors. */
#include <interlock.h>
#include <string.h>

/* One pass over `count` requests: the lookup under the request's method (NULL for any), the
 * route's id, every parameter's name and value (their lengths added to *param_bytes). Returns the
 * sum of the ids of the routes found. */
unsigned long long ilkbench_c_pass(ilk_router *router, ilk_match *m, const char *const *methods,
                                   const char *const *uris, int count, unsigned long long *param_bytes) {
  unsigned long long routes = 0, bytes = 0;
  for (int k = 0; k < count; k++) {
    if (ilk_router_match(router, methods[k], uris[k], strlen(uris[k]), m) != ILK_OK) continue;
    size_t n = ilk_match_param_count(m);
    for (size_t i = 0; i < n; i++) {
      const char *name, *value;
      size_t name_len, value_len;
      ilk_match_param_at(m, i, &name, &name_len, &value, &value_len);
      bytes += name_len + value_len;
    }
    routes += ilk_match_route_id(m);
  }
  *param_bytes += bytes;
  return routes;
}
