/* Fuzz target `patterns`: fuzzed route tables, then fixed and fuzzed requests.
 *
 * Input: byte 0 picks the router's options (ILK_CASE_INSENSITIVE, ILK_STRICT_SLASH); the rest is
 * lines. A line "@PATTERN" adds a named route (names n0..n2, so that names collide), a line
 * "-" K removes route K (one byte, modulo the ids given so far, so that removed ids come back), a
 * line "~" K PATTERN replaces route K's pattern, a line ">" M URI is a request (M, one byte, picks
 * its method), any other line is a pattern. At most 24 patterns and 24 requests are used.
 *
 * Invariants (abort() on violation, see fuzz_common.h):
 *   - ilk_router_add_route / ilk_router_add_named_route return ILK_OK, ILK_EPATTERN, ILK_ECONFLICT
 *     or ILK_ELIMIT; an error's ilk_erroffset() lies inside the pattern (or is ILK_NO_OFFSET);
 *   - an accepted route gets the next id, the count grows by one and its pattern reads back;
 *   - a removal of a live route succeeds, the count shrinks by one, the id is unknown afterwards
 *     (and a removed or never given id is ILK_ENOROUTE); a replacement that succeeds reads back
 *     and keeps the count; one that fails (ILK_EPATTERN, ILK_ECONFLICT, ILK_ELIMIT, ILK_ENOROUTE)
 *     leaves the table as it was;
 *   - a refused route leaves the table as it was: the same route count, and the same answer to
 *     every probe request (fixed probes and the fuzzed requests, under any method and GET);
 *   - every request, on the final table, gets the same answer from every lookup door
 *     (ilk_router_match, _packed, _many, _requests, ilk_router_resolve), as in the `uri` target;
 *   - ilk_router_explain's winner is ilk_router_match's answer, for every request;
 *   - a table whose patterns never had a constraint never answers ILK_ELIMIT (a mixed segment's
 *     work is linear in the segment, and no other part of a lookup counts steps that grow with it).
 */
#include "fuzz_common.h"

enum { MAX_PATTERNS = 24, MAX_REQUESTS = 24, PROBE_METHODS = 2 };

static const char *const fixed_probes[] = {
  "/", "/a", "/a/b", "/a/b/c", "/A/B/", "/users/42", "/users/42/posts/7", "/f", "/f/x/y", "/search/x/page/2",
  "/x%2Fy/1", "/caf%C3%A9", "/10:30", "myapp://user/7", "https://example.com/u/1", "http://h/x", "/%41/b?q=1#f",
};
static const char *const request_methods[] = {NULL, "GET", "POST", "PUT", "DELETE", "get", ""};
static const char *const probe_methods[PROBE_METHODS] = {NULL, "GET"};
#define COUNT(a) (sizeof a / sizeof a[0])

typedef struct {
  const char *method;
  const char *uri;
  size_t len;
} request;

static doors d;

/* Whether a pattern may have a constraint: a "(" that is not escaped and opens no optional part. */
static int may_constrain(const char *p) {
  for (size_t i = 0; p[i]; i++) {
    if (p[i] == '\\' && p[i + 1]) { i++; continue; }
    if (p[i] == '(' && p[i + 1] != '/') return 1;
  }
  return 0;
}
static answer *before; /* [probes * PROBE_METHODS] */
static size_t before_cap;

static void snapshot(ilk_router *r, const request *probes, size_t n) {
  if (n * PROBE_METHODS > before_cap) {
    before = realloc(before, n * PROBE_METHODS * sizeof *before);
    if (!before) abort();
    memset(before + before_cap, 0, (n * PROBE_METHODS - before_cap) * sizeof *before);
    before_cap = n * PROBE_METHODS;
  }
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < PROBE_METHODS; k++)
      match_once(r, d.m, probe_methods[k], probes[i].uri, probes[i].len, &before[i * PROBE_METHODS + k]);
}

static void same_as_snapshot(ilk_router *r, const request *probes, size_t n, const char *pattern) {
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < PROBE_METHODS; k++) {
      const answer *b = &before[i * PROBE_METHODS + k];
      match_once(r, d.m, probe_methods[k], probes[i].uri, probes[i].len, &d.other);
      if (d.other.status != b->status || d.other.route != b->route || d.other.len != b->len ||
          (b->len && memcmp(d.other.text, b->text, b->len) != 0))
        FAIL("refusing \"%s\" changed the answer to %s \"%s\": status %d route %u, was %d route %u", SHOWZ(pattern),
             SHOWZ(probe_methods[k]), show(probes[i].uri, probes[i].len), d.other.status, d.other.route, b->status,
             b->route);
    }
}

/* At exit, before LeakSanitizer looks: what is still held is then a leak. */
static void teardown(void) {
  for (size_t i = 0; i < before_cap; i++) free(before[i].text);
  free(before);
  doors_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  if (!ready) { doors_init(&d); atexit(teardown); ready = 1; }
  if (size < 1) return 0;
  uint32_t flags = data[0] & 3;
  /* the input as NUL-terminated lines, in a copy of its own */
  char *text = malloc(size);
  memcpy(text, data + 1, size - 1);
  text[size - 1] = 0;
  char *patterns[MAX_PATTERNS];
  int named[MAX_PATTERNS];
  size_t npatterns = 0;
  request probes[COUNT(fixed_probes) + MAX_REQUESTS];
  size_t nprobes = 0, nrequests = 0;
  for (size_t i = 0; i < COUNT(fixed_probes); i++)
    probes[nprobes++] = (request){NULL, fixed_probes[i], strlen(fixed_probes[i])};
  for (char *line = text, *end = text + size - 1; line <= end;) {
    char *nl = memchr(line, '\n', (size_t)(end - line));
    size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
    line[len] = 0;
    if (line[0] == '>' && len >= 2) {
      if (nrequests < MAX_REQUESTS) {
        probes[nprobes++] = (request){request_methods[(uint8_t)line[1] % COUNT(request_methods)], line + 2, len - 2};
        nrequests++;
      }
    } else if (npatterns < MAX_PATTERNS) {
      named[npatterns] = line[0] == '@';
      patterns[npatterns] = line + named[npatterns];
      npatterns++;
    }
    line += len + 1;
  }

  ilk_router *r;
  if (ilk_router_new(&r, flags) != ILK_OK) abort();
  snapshot(r, probes, nprobes);
  uint32_t issued = 0;
  int constrained = 0;   /* whether a pattern accepted may have had a constraint */
  for (size_t i = 0; i < npatterns; i++) {
    const char *p = patterns[i];
    size_t count = ilk_router_route_count(r);
    uint32_t id = 0;
    if (!named[i] && (p[0] == '-' || p[0] == '~') && p[1]) {
      uint32_t k = 1 + (uint8_t)p[1] % (issued + 1);     /* issued + 1: an id never given */
      const char *was = NULL;
      int live = ilk_router_route_pattern(r, k, &was) == ILK_OK;
      if (p[0] == '-') {
        int rc = ilk_router_remove_route(r, k);
        REQUIRE(rc == (live ? ILK_OK : ILK_ENOROUTE), "removing route %u (live %d) returned %d", k, live, rc);
        REQUIRE(ilk_router_route_count(r) == count - (live ? 1 : 0), "removing route %u left %zu routes of %zu", k,
                ilk_router_route_count(r), count);
        REQUIRE(ilk_router_route_pattern(r, k, &was) == ILK_ENOROUTE, "removed route %u still has a pattern", k);
        if (live) snapshot(r, probes, nprobes); else same_as_snapshot(r, probes, nprobes, p);
      } else {
        const char *q = p + 2, *back = NULL;
        int rc = ilk_router_replace_route(r, k, q);
        REQUIRE(ilk_router_route_count(r) == count, "replacing route %u changed the route count", k);
        if (rc == ILK_OK) {
          REQUIRE(live, "replaced route %u, which is not live", k);
          REQUIRE(ilk_router_route_pattern(r, k, &back) == ILK_OK && back && strcmp(back, q) == 0,
                  "route %u reads back as \"%s\", not \"%s\"", k, SHOWZ(back), SHOWZ(q));
          snapshot(r, probes, nprobes);
          constrained |= may_constrain(q);
        } else {
          REQUIRE(rc == ILK_EPATTERN || rc == ILK_ECONFLICT || rc == ILK_ELIMIT || (rc == ILK_ENOROUTE && !live),
                  "replacing route %u (live %d) with \"%s\" returned %d (%s)", k, live, SHOWZ(q), rc, ilk_errmsg());
          if (rc != ILK_ENOROUTE) check_offset(strlen(q), "pattern", q);
          same_as_snapshot(r, probes, nprobes, p);
        }
      }
      continue;
    }
    char name[8];
    snprintf(name, sizeof name, "n%zu", i % 3);
    int rc = named[i] ? ilk_router_add_named_route(r, p, name, NULL, NULL, NULL, &id)
                      : ilk_router_add_route(r, p, NULL, NULL, NULL, &id);
    if (rc == ILK_OK) {
      const char *back = NULL, *back_name = NULL;
      REQUIRE(ilk_router_route_count(r) == count + 1 && id == ++issued, "route \"%s\" got id %u with %zu routes",
              SHOWZ(p), id, ilk_router_route_count(r));
      REQUIRE(ilk_router_route_pattern(r, id, &back) == ILK_OK && back && strcmp(back, p) == 0,
              "route %u reads back as \"%s\", not \"%s\"", id, SHOWZ(back), SHOWZ(p));
      REQUIRE(ilk_router_route_name(r, id, &back_name) == ILK_OK &&
                  (named[i] ? back_name && strcmp(back_name, name) == 0 : back_name == NULL),
              "route %u's name is \"%s\"", id, SHOWZ(back_name));
      snapshot(r, probes, nprobes);
      constrained |= may_constrain(p);
    } else if (rc == ILK_EPATTERN || rc == ILK_ECONFLICT || rc == ILK_ELIMIT) {
      check_offset(strlen(p), "pattern", p);
      REQUIRE(ilk_router_route_count(r) == count, "refusing \"%s\" (%d) changed the route count", SHOWZ(p), rc);
      same_as_snapshot(r, probes, nprobes, p);
    } else {
      FAIL("ilk_router_add_route(\"%s\") returned %d (%s)", SHOWZ(p), rc, ilk_errmsg());
    }
  }
  /* the fuzzed requests through every door; the fixed probes under any method */
  for (size_t i = 0; i < nprobes; i++) {
    int cap_choice = (int)(i * 37 % 5);
    size_t cap = cap_choice == 0 ? 0 : cap_choice == 1 ? 3 : cap_choice == 2 ? 16 : 4096;
    int status = check_doors(&d, r, probes[i].method, probes[i].uri, probes[i].len, cap);
    REQUIRE_TAG("plain-limit", constrained || status != ILK_ELIMIT, "a table without constraints answered ILK_ELIMIT (%s) for \"%s\"",
                ilk_errmsg(), show(probes[i].uri, probes[i].len));
    check_explain(r, probes[i].method, probes[i].uri, probes[i].len, &d.single, constrained);
  }
  ilk_router_free(r);
  free(text);
  return 0;
}
