/* The worst lookup: a table of constraints known to backtrack badly (nested and adjacent unbounded
 * repetition), beside ordinary ones and segments mixing text and parameters (with and without
 * constraints), under every router option, and URIs built to make them backtrack (segments up to
 * the 64 KiB limit, with and without a long rest of the path after them). Each lookup is timed
 * (the median of five); the slowest is the row. Every answer must be a match, a miss or
 * ILK_ELIMIT, and never ILK_ELIMIT under a prefix whose routes have no constraint ("t", "u"):
 * anything else exits 1.
 *
 *   worst_lookup [match_limit]      prints one JSON line */
#include "interlock.h"
#include "common.h"

static const char *routes[] = {
  "/a/:x(.*.*.*=.*)", "/b/:x((a+)+b)", "/c/:x((.*a){12}b)", "/d/:x((?:.*a)+b)", "/e/:x(.*a.*a.*a.*b)",
  "/f/:x(\\w*\\w*\\w*\\w*\\w*x)", "/g/:x([a-z]+(?:-[a-z]+)*)", "/h/:id(\\d+)", "/h/:x(.*.*.*=.*)/:y",
  "/m/:x((a|aa)+b)", "/m/:y((.*a){12}b)/t", "/m/:z(.*.*=.*)/t/:w((a+)+b)", "/:root((?:a*)*b)/r",
  "/n/:a(.*.*=.*)/:b(.*.*=.*)/:c((.*a){8}b)", "/p/:x([^/]*[^/]*[^/]*c)", "GET /q/:x((a+)+b)", "/q/:y",
  /* mixed segments: each split tried in turn ran out of the limit on a few dozen bytes */
  "/s/:slug([a-z]+(?:-[a-z]+)*).json", "/t/:y-:m-:d.json", "/t/:slug", "/u/:a.:b.:c.:d/end", "/u/:name/other",
  "/w/:x((a+)+b).json", "/k/:a-:b(.*.*=.*)-:c.txt",
};
static const char *prefixes[] = {"a", "b", "c", "d", "e", "f", "g", "h", "m", "n", "p", "q", "zz", "s", "t", "u", "w", "k"};
static const char *fills[] = {"a", "ab-", "a=", "aaaab", "a-", "a."};
static const char *ends[] = {"", "bc", "=", "c", ".json"};
static const size_t lengths[] = {100, 1000, 8000, 30000, 65000};
static const size_t tails[] = {0, 200, 30000};

static char uri[70000];

/* Builds "/prefix/SEGMENT[/a/a/...]" of at most 65536 bytes; returns its length. */
static size_t build(const char *prefix, const char *fill, const char *end, size_t length, size_t tail) {
  size_t n = (size_t)snprintf(uri, sizeof uri, "/%s/", prefix);
  size_t fl = strlen(fill), el = strlen(end);
  while (n + fl + el + tail < 65536 && n < length) { memcpy(uri + n, fill, fl); n += fl; }
  memcpy(uri + n, end, el); n += el;
  for (size_t i = 0; i < tail && n + 2 <= 65536; i += 2) { uri[n++] = '/'; uri[n++] = 'a'; }
  return n;
}

static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

int main(int argc, char **argv) {
  unsigned limit = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 0;
  unsigned options[] = {0, ILK_CASE_INSENSITIVE, ILK_STRICT_SLASH};
  double worst = 0;
  char worst_text[160] = "";
  int lookups = 0, limited = 0;
  ilk_match *m;
  ilk_match_new(&m);
  for (size_t o = 0; o < sizeof options / sizeof options[0]; o++) {
    ilk_router *r;
    ilk_router_new(&r, options[o]);
    if (limit) ilk_router_set_match_limit(r, limit);
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
      if (ilk_router_add_route(r, routes[i], NULL, NULL, NULL, NULL) != ILK_OK) {
        fprintf(stderr, "route %s: %s\n", routes[i], ilk_errmsg());
        return 1;
      }
    }
    for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; p++)
      for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++)
        for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++)
          for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
            for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
              size_t n = build(prefixes[p], fills[f], ends[e], lengths[l], tails[t]);
              double times[5];
              int rc = 0;
              for (int k = 0; k < 5; k++) {
                double t0 = now();
                rc = ilk_router_match(r, k % 2 ? "GET" : NULL, uri, n, m);
                times[k] = now() - t0;
              }
              if (rc != ILK_OK && rc != ILK_NOT_FOUND && rc != ILK_METHOD_NOT_ALLOWED && rc != ILK_ELIMIT) {
                fprintf(stderr, "unexpected %d for /%s/ (%zu bytes): %s\n", rc, prefixes[p], n, ilk_errmsg());
                return 1;
              }
              if (rc == ILK_ELIMIT && (strcmp(prefixes[p], "t") == 0 || strcmp(prefixes[p], "u") == 0)) {
                fprintf(stderr, "ILK_ELIMIT without a constraint for /%s/ (%zu bytes): %s\n", prefixes[p], n, ilk_errmsg());
                return 1;
              }
              lookups++;
              limited += rc == ILK_ELIMIT;
              qsort(times, 5, sizeof times[0], cmp);
              if (times[2] > worst) {
                worst = times[2];
                snprintf(worst_text, sizeof worst_text, "/%s/ + %zu x \\\"%s\\\" + \\\"%s\\\" + %zu-byte rest, options %u: %d",
                         prefixes[p], lengths[l], fills[f], ends[e], tails[t], options[o], rc);
              }
            }
    ilk_router_free(r);
  }
  ilk_match_free(m);
  printf("{\"door\": \"C ilk_router_match, worst lookup\", \"match_limit\": %u, \"lookups\": %d, \"limited\": %d, "
         "\"worst_us\": %.1f, \"worst\": \"%s\"}\n", limit ? limit : 10000, lookups, limited, worst * 1e6, worst_text);
  return 0;
}
