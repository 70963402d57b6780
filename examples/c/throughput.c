/* Match throughput on the GitHub API route table (203 routes): every route's path, parameters
 * filled in, looked up with its method, in a loop. argv[1] is the route file. */
#include <interlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX 512

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  static char methods[MAX][16], paths[MAX][256];
  char line[512];
  int n = 0;
  FILE *f = fopen(argc > 1 ? argv[1] : "benchmarks/routesets/github_api.txt", "r");
  ilk_router *router;
  ilk_match *m;
  if (!f) { perror("route file"); return 1; }
  ilk_router_new(&router, 0);
  while (n < MAX && fgets(line, sizeof line, f)) {
    char pattern[300], *p, *o;
    if (sscanf(line, "%15s %255s", methods[n], pattern) != 2) continue;
    snprintf(line, sizeof line, "%s %s", methods[n], pattern);
    if (ilk_router_add_route(router, line, NULL, NULL, NULL, NULL) != ILK_OK) {
      fprintf(stderr, "%s: %s\n", line, ilk_errmsg());
      return 1;
    }
    for (p = pattern, o = paths[n]; *p; ) {        /* ":owner" becomes "owner1" */
      if (*p == ':') { p++; while (*p && *p != '/') *o++ = *p++; *o++ = '1'; }
      else *o++ = *p++;
    }
    *o = 0;
    n++;
  }
  fclose(f);
  ilk_match_new(&m);
  double t0 = now();
  ilk_router_match(router, "GET", "/", 1, m);             /* compiles the table */
  double compile = now() - t0;
  long lookups = 0, ok = 0;
  t0 = now();
  while (now() - t0 < 0.5) {
    for (int i = 0; i < n; i++) {
      ok += ilk_router_match(router, methods[i], paths[i], strlen(paths[i]), m) == ILK_OK;
    }
    lookups += n;
  }
  double elapsed = now() - t0;
  printf("GitHub API table: %d routes, compiled in %.2f ms\n", n, compile * 1e3);
  printf("%ld lookups (%ld matched) in %.2f s: %.0f ns per lookup, %.1f M lookups/s (one core)\n",
         lookups, ok, elapsed, elapsed / lookups * 1e9, lookups / elapsed / 1e6);
  ilk_match_free(m);
  ilk_router_free(router);
  return ok == lookups ? 0 : 1;
}
