/* Fuzz target `uri`: one URI, as a host hands it over, against fixed route tables.
 *
 * Input: byte 0 picks the method (NULL, common ones, lower case, empty, malformed, too long);
 * byte 1 picks the table and the router's options (ILK_CASE_INSENSITIVE, ILK_STRICT_SLASH, both,
 * neither); byte 2 the capacity of ilk_router_match_packed's buffer; the rest is the URI (any
 * bytes, NULs too: ilk_router_match takes a length).
 *
 * Tables: "forms" uses every pattern form (literals, escaped literals, percent-escapes, :params,
 * :p(constraint), *catchall and bare *, nested optional parts, segments mixing text and
 * parameters, methods, schemes, hosts, wildcard hosts, ports) and fits one regex; "literals" is
 * mostly all-literal routes and plain parameters (the whole-path hash and the Swift walk); "large"
 * is big enough to be split into dispatch nodes; "plain" mixes text and parameters in segments,
 * with no constraint, in a table split into dispatch nodes as well.
 *
 * Invariants (abort() on violation, see fuzz_common.h): every return is a documented code; an
 * error's ilk_erroffset() lies inside the URI or method (or is ILK_NO_OFFSET); a match names a
 * route of the table, its pattern and parameters read back alike; ilk_router_match_packed,
 * ilk_router_match_many, ilk_router_match_requests (one method and a method per URI),
 * ilk_match_batch_copy and ilk_router_resolve all agree with ilk_router_match on the status, the
 * route id and the parameter names and values (and an error's message and offset);
 * ilk_router_explain's winner is ilk_router_match's answer, and a URI it refuses it refuses at the
 * same offset; a table without constraints never answers ILK_ELIMIT (a mixed segment's work is
 * linear in the segment). Every byte of a URI is checked: one holding a control byte (below 0x20,
 * or 0x7F) or bytes that are not UTF-8, wherever they stand (user info, host, port, path, query,
 * fragment), is ILK_EURI. A host spelt otherwise (upper case, an unreserved byte percent-encoded, a
 * trailing dot added) gives the same answer.
 */
#include "fuzz_common.h"
#include <ctype.h>
#include <strings.h>

static const char *const forms[] = {
  "/",
  "/users",
  "/users/:id",
  "/users/:id(\\d+)/posts",
  "/users/:id/posts/:post",
  "GET /users/:id/edit",
  "POST /users/:id/edit",
  "PUT /users/:id/edit",
  "GET /files/*path",
  "/f/*rest",
  "/any/*",
  "/search(/:q(/page/:n(\\d+)))",
  "/user/:id(/edit)",
  "/o(/:a)(/:b)",
  "/opt(/a(/b(/c)))",
  "/time/10\\:30",
  "/esc/\\*\\(x\\)",
  "/caf%C3%A9/:x",
  "/x%2Fy/:z",
  "/%7Etilde/:t",
  "/v/:n([0-9]+)/:w([a-z]{2,4})",
  "/hex/:h([0-9a-fA-F]+)",
  "/alt/:c(red|green|blue)",
  "/uni/:u(\\p{L}+)",
  "/dot/:d([^.]+\\.json)",
  "/Mixed/Case/:x",
  "/trail/",
  "/a/b/c/d/e/f/g",
  "myapp://user/:id",
  "myapp://account/:section(/:tab)",
  "otherapp://*rest",
  "https://example.com/u/:id",
  "http://example.org/",
  "wss://chat.example/rooms/:room",
  "DELETE https://api.example.com/items/:id(\\d+)",
  "GET ws://h/x/*",
  "PATCH /users/:id",
  "OPTIONS /users",
  "https://admin.example.com/*rest",
  "https://[::1]/v6/:x",
  "/files/:name.json",
  "/:y-:m-:d.json",
  "/d/:file.:ext",
  "/d/v:major(\\d+).:minor(\\d+)",
  "/s/:slug([a-z]+(?:-[a-z]+)*).json",
  "/assets/v*path",
  "/c/:a-*rest",
  "https://*.example.com/w/:a",
  "http://*.b.example.com:8080/w/:a(/:b)",
};

/* Segments mixing text and parameters, no constraint: never ILK_ELIMIT, however long the URI. */
static const char *const plain[] = {
  "/:y-:m-:d.json", "/:slug", "/:a.:b.:c.:d/end", "/:name/other", "/f/:name.json", "/f/:name.min.json",
  "/f/:a-ab-:b", "/f/:a-*rest", "/f/v*path", "/g/:a.:b/:c-:d/:e~:f.txt", "/g/*all", "GET /h/:a~:b",
  "https://*.example.com/:x.:y", "/:a-:b-:c-:d-:e-:f-:g-:h.x",
};

static const char *const literals[] = {
  "/", "/about", "/about/team", "/api", "/api/v1", "/api/v1/users", "/api/v1/users/me", "/api/v1/orgs",
  "/api/v2/users", "/login", "/logout", "/static/app.js", "/static/app.css", "/caf%C3%A9", "/a%2Fb",
  "GET /health", "POST /health", "/docs/index.html", "/Docs/Other.html", "/x/y/z/w", "/trail/",
  "/api/v1/users/:id", "/api/v1/users/:id/repos/:repo", "/api/:version/status", "/:page", "/blog/:year/:slug",
  "GET /api/v1/orgs/:org", "DELETE /api/v1/orgs/:org",
};

static const char *const methods[] = {
  NULL, NULL, NULL, "GET", "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "get", "",
  "G T", "GET\x01", "M\xC3\xA9", "!#$%&'*+-.^_`|~",
  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",   /* 64: the longest allowed */
  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB",  /* 65 */
};
#define COUNT(a) (sizeof a / sizeof a[0])

static const uint32_t options[] = {0, ILK_CASE_INSENSITIVE, ILK_STRICT_SLASH, ILK_CASE_INSENSITIVE | ILK_STRICT_SLASH};
enum { TABLES = 4 };
static ilk_router *routers[TABLES][4];
static doors d;
static doors variant_doors;   /* the host spelt otherwise */

static void add(ilk_router *r, const char *pattern, int k) {
  char name[32];
  snprintf(name, sizeof name, "r%d", k);
  int rc = ilk_router_add_named_route(r, pattern, name, NULL, NULL, NULL, NULL);
  if (rc != ILK_OK) FAIL("the fixed route \"%s\" was refused: %d %s", pattern, rc, ilk_errmsg());
}

/* At exit, before LeakSanitizer looks: what is still held is then a leak. */
static void teardown(void) {
  for (int o = 0; o < 4; o++)
    for (int t = 0; t < TABLES; t++) ilk_router_free(routers[t][o]);
  doors_free(&d);
  doors_free(&variant_doors);
}

static void build(void) {
  atexit(teardown);
  for (int o = 0; o < 4; o++) {
    for (int t = 0; t < TABLES; t++)
      if (ilk_router_new(&routers[t][o], options[o]) != ILK_OK) abort();
    for (size_t k = 0; k < COUNT(forms); k++) add(routers[0][o], forms[k], (int)k);
    for (size_t k = 0; k < COUNT(literals); k++) add(routers[1][o], literals[k], (int)k);
    /* "large": ~600 routes with constraints, several methods and a scheme, over the regex budget */
    char p[160];
    int k = 0;
    for (int i = 0; i < 150; i++) {
      snprintf(p, sizeof p, "/r%d/:a(\\d+)/x%d", i, i % 7);
      add(routers[2][o], p, k++);
      snprintf(p, sizeof p, "GET /r%d/:a([a-z]+)(/:b(\\d{1,3}))", i);
      add(routers[2][o], p, k++);
      snprintf(p, sizeof p, "POST /r%d/lit%d/*rest", i, i);
      add(routers[2][o], p, k++);
      snprintf(p, sizeof p, "app%d://r%d/:c(v[0-9]+)/:d", i % 3, i);
      add(routers[2][o], p, k++);
    }
    add(routers[2][o], "/r7/:a/:b/:c", k++);
    add(routers[2][o], "/*all", k++);
    for (size_t j = 0; j < COUNT(plain); j++) add(routers[3][o], plain[j], (int)j);
    /* over the regex budget, for dispatch nodes entered by mixed segments */
    for (int i = 0; i < 300; i++) {
      snprintf(p, sizeof p, "/m%d/:a.:b-%d/:c", i, i % 5);
      add(routers[3][o], p, 100 + i);
    }
  }
  doors_init(&d);
  doors_init(&variant_doors);
}

/* ---- every byte is checked; a host has one spelling ------------------------------------------ */

/* Whether `s` holds a control byte or bytes that are not UTF-8 (RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF, no sequence cut short). */
static int has_bad_byte(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n;) {
    uint8_t c = s[i];
    if (c < 0x20 || c == 0x7F) return 1;
    if (c < 0x80) { i++; continue; }
    size_t k = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
    if (k == 0 || i + k >= n) return 1;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (s[i + 1] < lo || s[i + 1] > hi) return 1;
    for (size_t j = 2; j <= k; j++)
      if (s[i + j] < 0x80 || s[i + j] > 0xBF) return 1;
    i += k + 1;
  }
  return 0;
}

/* Where the host of `uri` lies, as the library reads it: a scheme of http, https, ws or wss, "//",
 * then the authority up to "/", "?" or "#", the host after its last "@" and up to ":" (or "]").
 * Returns 0 for a URI without one. */
static int host_span(const char *uri, size_t len, size_t *start, size_t *end) {
  size_t j = 0;
  if (len == 0 || !isalpha((unsigned char)uri[0])) return 0;
  while (j < len && (isalnum((unsigned char)uri[j]) || uri[j] == '+' || uri[j] == '-' || uri[j] == '.')) j++;
  if (j + 2 >= len || uri[j] != ':' || uri[j + 1] != '/' || uri[j + 2] != '/') return 0;
  static const char *const schemes[] = {"http", "https", "ws", "wss"};
  int known = 0;
  for (size_t k = 0; k < 4; k++)
    if (strlen(schemes[k]) == j && strncasecmp(uri, schemes[k], j) == 0) known = 1;
  if (!known) return 0;
  size_t a = j + 3, e = a, h = a;
  while (e < len && uri[e] != '/' && uri[e] != '?' && uri[e] != '#') { if (uri[e] == '@') h = e + 1; e++; }
  size_t c = h;
  if (c < e && uri[c] == '[') { while (c < e && uri[c] != ']') c++; if (c < e) c++; }
  else while (c < e && uri[c] != ':') c++;
  *start = h;
  *end = c;
  return 1;
}

/* The answer to `uri` with its host [start, end) spelt otherwise is `a`'s (an error's message may
 * differ: both are errors). */
static void check_host_spellings(ilk_router *r, const char *method, const char *uri, size_t len, size_t start, size_t end,
                                 const answer *a) {
  if (a->status == ILK_ELIMIT || end <= start || len > 4096) return;
  char *v = malloc(len + 3);
  if (!v) abort();
  for (int kind = 0; kind < 3; kind++) {
    size_t n = len;
    memcpy(v, uri, len);
    if (kind == 0) {                                   /* upper case */
      for (size_t i = start; i < end; i++) v[i] = (char)toupper((unsigned char)v[i]);
    } else if (kind == 1) {                            /* an unreserved byte as an escape */
      size_t i = start;
      while (i < end && !(isalnum((unsigned char)uri[i]) || uri[i] == '-' || uri[i] == '_' || uri[i] == '~'))
        i += uri[i] == '%' ? 3 : 1;                    /* not inside an escape */
      if (i >= end || uri[start] == '[') continue;
      snprintf(v + i, 4, "%%%02X", (unsigned char)uri[i]);
      memcpy(v + i + 3, uri + i + 1, len - i - 1);
      n = len + 2;
    } else {                                           /* a trailing dot */
      if (uri[start] == '[' || uri[end - 1] == '.' ||
          (end - start >= 3 && uri[end - 3] == '%' && uri[end - 2] == '2' && (uri[end - 1] | 0x20) == 'e')) continue;
      v[end] = '.';
      memcpy(v + end + 1, uri + end, len - end);
      n = len + 1;
    }
    answer *b = &variant_doors.single;
    match_once(r, variant_doors.m, method, v, n, b);
    if (b->status == ILK_ELIMIT) continue;
    if (a->status < 0 || b->status < 0) {
      REQUIRE(a->status == b->status, "\"%s\" gives %d, \"%s\" %d", show(uri, len), a->status, show(v, n), b->status);
      continue;
    }
    same_answer("the host spelt otherwise", a, b->status, b->route, b->text, b->len, v, n);
  }
  free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!routers[0][0]) build();
  if (size < 3) return 0;
  const char *method = methods[data[0] % COUNT(methods)];
  ilk_router *r = routers[(data[1] >> 2) % TABLES][data[1] & 3];
  size_t cap = data[2] < 128 ? data[2] : (size_t)(data[2] - 128) * 64;
  const char *uri = (const char *)data + 3;
  size_t len = size - 3;
  /* the URI in a buffer of its own, so that a read past its end is caught */
  char *copy = malloc(len ? len : 1);
  if (len) memcpy(copy, uri, len);
  int table = (data[1] >> 2) % TABLES;
  int status = check_doors(&d, r, method, copy, len, cap);
  REQUIRE_TAG("plain-limit", (table != 1 && table != 3) || status != ILK_ELIMIT, "a table without constraints answered ILK_ELIMIT (%s) for \"%s\"",
              ilk_errmsg(), show(copy, len));
  if (has_bad_byte((const uint8_t *)copy, len))
    REQUIRE(status == ILK_EURI || (status == ILK_EINVAL && method_is_bad(method)),
            "\"%s\" holds a control byte or bytes that are not UTF-8, yet gives %d", show(copy, len), status);
  check_explain(r, method, copy, len, &d.single, table != 3 && table != 1);
  size_t start, end;
  if (host_span(copy, len, &start, &end)) check_host_spellings(r, method, copy, len, start, end, &d.single);
  free(copy);
  return 0;
}
