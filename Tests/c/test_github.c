/* All 203 GitHub API routes: each pattern, its parameters filled in, resolves to its own route
 * with the right values; the same paths under an unregistered method answer 405 with the methods
 * that exist. argv[1] is the route file. */
#include "interlock.h"
#include "check.h"
#include <stdlib.h>

#define MAX_ROUTES 512

struct route { char method[16]; char path[256]; };

int main(int argc, char **argv) {
  static struct route routes[MAX_ROUTES];
  int n = 0;
  FILE *f = fopen(argc > 1 ? argv[1] : "github_api.txt", "r");
  char line[512];
  ilk_router *r;
  ilk_match *m;
  if (!f) { perror("route file"); return 2; }
  while (n < MAX_ROUTES && fgets(line, sizeof line, f)) {
    if (sscanf(line, "%15s %255s", routes[n].method, routes[n].path) == 2) n++;
  }
  fclose(f);
  CHECK_EQ_INT(n, 203);

  ilk_router_new(&r, 0);
  ilk_match_new(&m);
  for (int i = 0; i < n; i++) {
    char pattern[300];
    uint32_t id = 0;
    snprintf(pattern, sizeof pattern, "%s %s", routes[i].method, routes[i].path);
    CHECK_EQ_INT(ilk_router_add_route(r, pattern, NULL, NULL, NULL, &id), ILK_OK);
    CHECK_EQ_INT(id, i + 1);
  }
  for (int i = 0; i < n; i++) {
    /* "/repos/:owner/:repo" becomes "/repos/v-owner-3/v-repo-3" */
    char uri[512], expected[16][64];
    int params = 0, o = 0;
    const char *p = routes[i].path;
    while (*p) {
      if (*p == ':') {
        const char *s = ++p;
        while (*p && *p != '/') p++;
        snprintf(expected[params], sizeof expected[params], "v-%.*s-%d", (int)(p - s), s, i);
        o += snprintf(uri + o, sizeof uri - o, "%s", expected[params]);
        params++;
      } else {
        uri[o++] = *p++;
      }
    }
    uri[o] = 0;
    int rc = ilk_router_match(r, routes[i].method, uri, strlen(uri), m);
    CHECK_EQ_INT(rc, ILK_OK);
    if (ilk_match_route_id(m) != (uint32_t)(i + 1)) {
      fprintf(stderr, "%s %s matched route %u (%s)\n", routes[i].method, uri, ilk_match_route_id(m),
              ilk_match_pattern(m) ? ilk_match_pattern(m) : "none");
    }
    CHECK_EQ_INT(ilk_match_route_id(m), i + 1);
    CHECK_EQ_INT(ilk_match_param_count(m), params);
    for (int k = 0; k < params && k < (int)ilk_match_param_count(m); k++) {
      const char *value;
      ilk_match_param_at(m, (size_t)k, NULL, NULL, &value, NULL);
      CHECK_EQ_STR(value, expected[k]);
    }
    /* the same path under a method no route has */
    rc = ilk_router_match(r, "PATCH", uri, strlen(uri), m);
    CHECK_EQ_INT(rc, ILK_METHOD_NOT_ALLOWED);
    CHECK(ilk_match_allowed_count(m) >= 1);
  }
  /* requests that match nothing */
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/nothing/here", 13, m), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/repos/a", 8, m), ILK_NOT_FOUND);
  ilk_match_free(m);
  ilk_router_free(r);
  return check_summary("test_github");
}
