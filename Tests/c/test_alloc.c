/* ilk_router_match allocates nothing once its ilk_match exists and the table is compiled (hits,
 * misses and method-not-allowed answers alike): malloc,
 * calloc and realloc are counted here (this program's definitions stand in for libc's). */
#define _GNU_SOURCE
#include "interlock.h"
#include "check.h"
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static volatile long allocations;
static volatile int counting;

void *malloc(size_t n) { if (counting) allocations++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { if (counting) allocations++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { if (counting) allocations++; return __libc_realloc(p, n); }
int posix_memalign(void **out, size_t align, size_t n) {
  if (counting) allocations++;
  *out = __libc_memalign(align, n);
  return *out ? 0 : 12;
}

int main(int argc, char **argv) {
  static char methods[512][16], paths[512][256];
  char line[512];
  int n = 0;
  FILE *f = fopen(argc > 1 ? argv[1] : "github_api.txt", "r");
  ilk_router *r;
  ilk_match *m;
  if (!f) { perror("route file"); return 2; }
  ilk_router_new(&r, 0);
  while (n < 512 && fgets(line, sizeof line, f)) {
    char pattern[300], *p, *o;
    if (sscanf(line, "%15s %255s", methods[n], pattern) != 2) continue;
    snprintf(line, sizeof line, "%s %s", methods[n], pattern);
    ilk_router_add_route(r, line, NULL, NULL, NULL, NULL);
    for (p = pattern, o = paths[n]; *p; ) {
      if (*p == ':') { p++; while (*p && *p != '/') *o++ = *p++; *o++ = '1'; } else *o++ = *p++;
    }
    *o = 0;
    n++;
  }
  fclose(f);
  ilk_match_new(&m);
  /* Warm up: the first lookup compiles the table, the first miss its enumerating copy. */
  for (int i = 0; i < n; i++) ilk_router_match(r, methods[i], paths[i], strlen(paths[i]), m);
  ilk_router_match(r, "GET", "/no/such/route", 14, m);
  ilk_router_match(r, "PATCH", "/user/repos", 11, m);
  counting = 1;
  long ok = 0;
  for (int k = 0; k < 20; k++) {
    for (int i = 0; i < n; i++) {
      ok += ilk_router_match(r, methods[i], paths[i], strlen(paths[i]), m) == ILK_OK;
      ilk_match_route_id(m);
      if (ilk_match_param_count(m)) {
        const char *v;
        ilk_match_param_at(m, 0, NULL, NULL, &v, NULL);
      }
    }
    ilk_router_match(r, "GET", "/no/such/route", 14, m);
    ilk_router_match(r, "PATCH", "/user/repos", 11, m);            /* method not allowed */
  }
  counting = 0;
  CHECK_EQ_INT(ok, 20L * n);
  printf("allocations in %d lookups: %ld\n", 20 * (n + 2), allocations);
  CHECK_EQ_INT(allocations, 0);
  ilk_match_free(m);
  ilk_router_free(r);
  return check_summary("test_alloc");
}
