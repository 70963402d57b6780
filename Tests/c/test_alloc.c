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
  static char text[1 << 16], methods[512][16], paths[512][256];
  int n = 0;
  FILE *f = fopen(argc > 1 ? argv[1] : "github_api.txt", "rb");
  ilk_router *r;
  ilk_match *m;
  size_t count = 0;
  if (!f) { perror("route file"); return 2; }
  size_t length = fread(text, 1, sizeof text, f);
  fclose(f);
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_load(r, text, length, &count), ILK_OK);
  /* A request for each route: its method, and its path with ":owner" filled in as "owner1". */
  for (uint32_t id = 0; n < 512 && ilk_router_next_route(r, id, &id) == ILK_OK; n++) {
    const char *pattern, *p;
    char *o = paths[n];
    ilk_router_route_pattern(r, id, &pattern);
    sscanf(pattern, "%15s", methods[n]);
    for (p = strchr(pattern, ' ') + 1; *p; ) {
      if (*p == ':') { p++; while (*p && *p != '/') *o++ = *p++; *o++ = '1'; } else *o++ = *p++;
    }
    *o = 0;
  }
  CHECK_EQ_INT(n, (int)count);
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
