/* What loading the library costs a process: the time from dlopen to the first router made, its
 * first route added and its first match (one cold run per process), and the resident memory the
 * process has then, beside what it had before dlopen. One JSON line. benchmarks/README.md quotes
 * the median of several runs ("The library itself").
 *
 *     cc -O2 -o load_cost benchmarks/c/load_cost.c -Iinclude -ldl && ./load_cost build/lib/libinterlock.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interlock.h"

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  return kib;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

#define LOAD(name) __typeof__(&name) p_##name = (__typeof__(&name))dlsym(lib, #name); \
  if (!p_##name) { fprintf(stderr, "%s: %s\n", #name, dlerror()); return 1; }

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: load_cost LIBRARY\n"); return 2; }
  long before = rss_kib();
  double t0 = now_us();
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  double t_open = now_us();
  LOAD(ilk_router_new) LOAD(ilk_router_add_route) LOAD(ilk_match_new) LOAD(ilk_router_match)
  LOAD(ilk_match_route_id)
  ilk_router *router = NULL;
  ilk_match *m = NULL;
  uint32_t id = 0;
  const char *uri = "/users/42/repos";
  if (p_ilk_router_new(&router, 0) != ILK_OK || p_ilk_match_new(&m) != ILK_OK
      || p_ilk_router_add_route(router, "GET /users/:id/repos", NULL, NULL, NULL, &id) != ILK_OK
      || p_ilk_router_match(router, "GET", uri, strlen(uri), m) != ILK_OK || p_ilk_match_route_id(m) != id) {
    fprintf(stderr, "load_cost: the first router, route or match failed\n");
    return 1;
  }
  double t_match = now_us();
  printf("{\"dlopen_us\": %.0f, \"first_match_us\": %.0f, \"rss_before_kib\": %ld, \"rss_after_kib\": %ld}\n",
         t_open - t0, t_match - t0, before, rss_kib());
  return 0;
}
