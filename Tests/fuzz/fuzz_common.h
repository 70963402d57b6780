/* Shared by the libFuzzer targets in Tests/fuzz: a failed invariant prints what broke and calls
 * abort(), so that libFuzzer records the input as a crash; every lookup door is compared with
 * ilk_router_match (check_doors). Built by Tests/fuzz/build.sh, run by `make fuzz` (mk/fuzz.mk). */
#ifndef INTERLOCK_FUZZ_COMMON_H
#define INTERLOCK_FUZZ_COMMON_H

#include "interlock.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- failing ------------------------------------------------------------------------------ */

__attribute__((noreturn, format(printf, 3, 4))) static inline void fuzz_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "\n==interlock-fuzz== invariant broken at %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  abort();
}
#define FAIL(...) fuzz_fail(__FILE__, __LINE__, __VA_ARGS__)
#define REQUIRE(cond, ...) do { if (!(cond)) FAIL("(" #cond ") " __VA_ARGS__); } while (0)

/* An invariant with a tag: the environment variable ILK_FUZZ_TOLERATE (tags separated by commas)
 * lets a long exploring run go past a finding already reported, without dropping the invariant
 * for anyone else. `make fuzz` and `make fuzz-smoke` leave it unset. */
static inline int tolerated(const char *tag) {
  const char *t = getenv("ILK_FUZZ_TOLERATE");
  size_t n = strlen(tag);
  while (t && *t) {
    size_t k = strcspn(t, ",");
    if (k == n && strncmp(t, tag, n) == 0) return 1;
    t += k + (t[k] == ',');
  }
  return 0;
}
#define REQUIRE_TAG(tag, cond, ...) \
  do { if (!(cond) && !tolerated(tag)) FAIL("[" tag "] (" #cond ") " __VA_ARGS__); } while (0)

/* Text for messages: `s` (n bytes) with non-printable bytes as \xNN, cut at 200 bytes. */
static inline const char *show(const char *s, size_t n) {
  static char out[4][900];
  static int turn;
  char *o = out[turn++ & 3];
  size_t k = 0;
  if (!s) return "(null)";
  for (size_t i = 0; i < n && k < sizeof out[0] - 8; i++) {
    unsigned char c = (unsigned char)s[i];
    if (i == 200) { k += (size_t)snprintf(o + k, 8, "..."); break; }
    if (c >= 0x20 && c < 0x7F && c != '\\') o[k++] = (char)c;
    else k += (size_t)snprintf(o + k, 8, "\\x%02X", c);
  }
  o[k] = 0;
  return o;
}
#define SHOWZ(s) ((s) ? show((s), strlen(s)) : "(null)")

/* ---- reading the input -------------------------------------------------------------------- */

typedef struct {
  const uint8_t *data;
  size_t size, pos;
} reader;

/* The next byte, or 0 once the input is used up. */
static inline uint8_t take(reader *r) { return r->pos < r->size ? r->data[r->pos++] : 0; }

/* ---- codes -------------------------------------------------------------------------------- */

static inline int is_documented_code(int rc) { return rc >= ILK_ECALLBACK && rc <= ILK_RETRYING; }

/* The statuses ilk_router_match may return (ELIMIT: a constraint ran past PCRE2's match limit). */
static inline int is_match_code(int rc) {
  return rc == ILK_OK || rc == ILK_NOT_FOUND || rc == ILK_METHOD_NOT_ALLOWED || rc == ILK_EURI ||
         rc == ILK_EINVAL || rc == ILK_ELIMIT;
}

/* An error's place must lie inside the input it names, or at its end (where something missing,
 * such as the empty host of "http://", would begin), or be ILK_NO_OFFSET. */
static inline void check_offset(size_t input_len, const char *what, const char *input) {
  size_t off = ilk_erroffset();
  if (off != ILK_NO_OFFSET && off > input_len)
    FAIL("error offset %zu outside the %s of %zu bytes \"%s\" (%s)", off, what, input_len, show(input, input_len),
         ilk_errmsg());
}

/* ---- one lookup's answer -------------------------------------------------------------------- */

/* As ilk_router_match leaves it: the status, the route, the parameters packed as the other doors
 * pack them ("name\0value\0..."), or for ILK_EURI the message and offset as a batch writes them. */
typedef struct {
  int status;
  uint32_t route;
  size_t allowed;
  size_t offset;
  char *text;
  size_t len, cap;
} answer;

static inline void answer_put(answer *a, const char *s, size_t n) {
  if (a->len + n > a->cap) {
    a->cap = (a->len + n) * 2 + 64;
    a->text = realloc(a->text, a->cap);
    if (!a->text) abort();
  }
  memcpy(a->text + a->len, s, n);
  a->len += n;
}

static inline int method_is_bad(const char *method) {
  if (!method) return 0;
  size_t n = strlen(method);
  if (n > 64) return 1;                  /* "" is any method, as NULL is */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)method[i];
    /* RFC 9110 tchar */
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || strchr("!#$%&'*+-.^_`|~", c)))
      return 1;
  }
  return 0;
}

/* ilk_router_match, checked against the header's promises, its answer kept in `a`. */
static inline void match_once(ilk_router *r, ilk_match *m, const char *method, const char *uri, size_t len, answer *a) {
  int rc = ilk_router_match(r, method, uri, len, m);
  a->status = rc;
  a->route = 0;
  a->allowed = 0;
  a->len = 0;
  a->offset = ILK_NO_OFFSET;
  if (!is_match_code(rc)) FAIL("ilk_router_match returned %d for \"%s\"", rc, show(uri, len));
  if (rc == ILK_EINVAL) {
    REQUIRE(method_is_bad(method), "EINVAL for the good method \"%s\" and URI \"%s\": %s", SHOWZ(method),
            show(uri, len), ilk_errmsg());
    check_offset(strlen(method), "method", method);
  } else if (method_is_bad(method) && rc != ILK_EURI) {
    /* a malformed URI too may be reported first */
    FAIL("the malformed method \"%s\" was not refused (status %d)", SHOWZ(method), rc);
  }
  if (rc == ILK_EURI) {
    char msg[2048];
    a->offset = ilk_erroffset();
    check_offset(len, "URI", uri);
    int n = snprintf(msg, sizeof msg, "%s (at byte %lld)", ilk_errmsg(), (long long)a->offset);
    if (n < 0 || (size_t)n >= sizeof msg) FAIL("error message too long");
    answer_put(a, msg, (size_t)n + 1);
  }
  if (rc == ILK_OK) {
    a->route = ilk_match_route_id(m);
    REQUIRE(a->route >= 1, "route id 0 for a match");    /* a live route: its pattern reads back below */
    const char *pattern = NULL, *mp = ilk_match_pattern(m);
    REQUIRE(ilk_router_route_pattern(r, a->route, &pattern) == ILK_OK && pattern && mp && strcmp(pattern, mp) == 0,
            "ilk_match_pattern \"%s\" is not route %u's \"%s\"", SHOWZ(mp), a->route, SHOWZ(pattern));
    size_t count = ilk_match_param_count(m);
    for (size_t k = 0; k < count; k++) {
      const char *name = NULL, *value = NULL, *again = NULL;
      size_t nl = 0, vl = 0, al = 0;
      REQUIRE(ilk_match_param_at(m, k, &name, &nl, &value, &vl) == ILK_OK && name && value, "param %zu", k);
      REQUIRE(strlen(name) == nl && strlen(value) == vl, "param %zu lengths", k);
      REQUIRE(ilk_match_param(m, name, &again, &al) == ILK_OK && al == vl && memcmp(again, value, vl) == 0,
              "ilk_match_param(\"%s\") disagrees with ilk_match_param_at", SHOWZ(name));
      answer_put(a, name, nl + 1);
      answer_put(a, value, vl + 1);
    }
    REQUIRE(ilk_match_param_at(m, count, NULL, NULL, NULL, NULL) == ILK_EINVAL, "param past the count");
  } else {
    REQUIRE(ilk_match_route_id(m) == 0 && ilk_match_param_count(m) == 0, "a miss (%d) left route %u", rc,
            ilk_match_route_id(m));
  }
  if (rc == ILK_METHOD_NOT_ALLOWED) {
    a->allowed = ilk_match_allowed_count(m);
    REQUIRE(a->allowed > 0, "method not allowed without allowed methods");
    for (size_t k = 0; k < a->allowed; k++) {
      const char *am = ilk_match_allowed_at(m, k);
      REQUIRE(am != NULL, "allowed method %zu", k);
      REQUIRE(!method || strcmp(am, method) != 0, "\"%s\" not allowed, yet listed as allowed", am);
    }
    REQUIRE(ilk_match_allowed_at(m, a->allowed) == NULL, "allowed method past the count");
  }
}

/* ---- every door against ilk_router_match ------------------------------------------------------ */

typedef struct {
  ilk_match *m;
  ilk_match_batch *batch;
  answer single, other;
} doors;

static inline void doors_init(doors *d) {
  memset(d, 0, sizeof *d);
  if (ilk_match_new(&d->m) != ILK_OK || ilk_match_batch_new(&d->batch) != ILK_OK) abort();
}

static inline void doors_free(doors *d) {
  ilk_match_free(d->m);
  ilk_match_batch_free(d->batch);
  free(d->single.text);
  free(d->other.text);
}

static inline void same_answer(const char *door, const answer *a, int status, uint32_t route, const char *text, size_t len,
                        const char *uri, size_t uri_len) {
  if (status != a->status || route != a->route || len != a->len || (len && memcmp(text, a->text, len) != 0))
    FAIL("%s answers \"%s\" with status %d route %u text \"%s\"; ilk_router_match: status %d route %u text \"%s\"",
         door, show(uri, uri_len), status, route, show(text, len), a->status, a->route, show(a->text, a->len));
}

/* Checks one batch (as ilk_match_batch_copy lays it out) of `n` answers, each `a`, at data. */
static inline void check_image(const char *door, const void *data, size_t size, size_t n, const answer *a, const char *uri,
                        size_t uri_len) {
  const int32_t *st = data;
  const uint32_t *ids = (const uint32_t *)(st + n);
  const size_t *off = (const size_t *)(ids + n);
  const char *text = (const char *)(off + n + 1);
  REQUIRE(off[0] == 0 && size == 16 * n + 8 + off[n], "%s image of %zu bytes for %zu answers", door, size, n);
  for (size_t i = 0; i < n; i++) {
    REQUIRE(off[i] <= off[i + 1], "%s offsets", door);
    same_answer(door, a, st[i], ids[i], text + off[i], off[i + 1] - off[i], uri, uri_len);
  }
}

/* The batch doors read URIs as NUL-terminated text, one after the other: three copies of the
 * URI, so that the answers after the first show state left over from it. */
enum { BATCH_COPIES = 3 };

static inline void check_batch(doors *d, ilk_router *r, const char *method, const char *uri, size_t len, const answer *a) {
  static char *uris;
  static size_t uris_cap;
  size_t uris_len = BATCH_COPIES * (len + 1);
  if (uris_len > uris_cap) {
    uris_cap = uris_len * 2;
    uris = realloc(uris, uris_cap);
    if (!uris) abort();
  }
  for (int k = 0; k < BATCH_COPIES; k++) {
    memcpy(uris + k * (len + 1), uri, len);
    uris[k * (len + 1) + len] = 0;
  }

  /* ilk_router_match_many */
  int rc = ilk_router_match_many(r, method, uris, uris_len, d->batch);
  if (method_is_bad(method) && !(rc == ILK_OK && a->status == ILK_EURI && tolerated("batch-method"))) {
    REQUIRE_TAG("batch-method", rc == ILK_EINVAL, "match_many took the malformed method \"%s\" (%d) for \"%s\"", SHOWZ(method), rc, show(uri, len));
    REQUIRE(ilk_match_batch_count(d->batch) == 0, "a refused batch is not empty");
  } else {
    REQUIRE(rc == ILK_OK, "ilk_router_match_many returned %d for \"%s\"", rc, show(uri, len));
    REQUIRE(ilk_match_batch_count(d->batch) == BATCH_COPIES, "batch count %zu", ilk_match_batch_count(d->batch));
    const int32_t *st;
    const uint32_t *ids;
    const size_t *off;
    size_t text_len;
    REQUIRE(ilk_match_batch_arrays(d->batch, &st, &ids, &off) == ILK_OK, "batch arrays");
    const char *text = ilk_match_batch_text(d->batch, &text_len);
    REQUIRE(off[BATCH_COPIES] == text_len, "batch text length");
    for (int k = 0; k < BATCH_COPIES; k++)
      same_answer("ilk_router_match_many", a, st[k], ids[k], text + off[k], off[k + 1] - off[k], uri, len);
    /* ilk_match_batch_copy into a buffer of exactly the size it asks for */
    size_t needed = 0;
    REQUIRE(ilk_match_batch_copy(d->batch, NULL, 0, &needed) == ILK_ELIMIT || needed == 0, "copy into nothing");
    void *image = malloc(needed ? needed : 1);
    REQUIRE(ilk_match_batch_copy(d->batch, image, needed, &needed) == ILK_OK, "batch copy");
    check_image("ilk_match_batch_copy", image, needed, BATCH_COPIES, a, uri, len);
    free(image);
  }

  /* ilk_router_match_requests: one method for all, then one per URI. An empty method means any
   * method there (not a malformed one, as for ilk_router_match), so it is not compared. */
  if (method && !*method) return;
  static char methods[3 * 80];
  size_t mlen = method ? strlen(method) : 0;
  if (mlen > 70) return;
  ilk_match_batch_view view;
  for (int per_uri = 0; per_uri < 2; per_uri++) {
    size_t methods_len = 0;
    for (int k = 0; k < (per_uri ? BATCH_COPIES : 1); k++) {
      memcpy(methods + methods_len, method ? method : "", mlen + 1);
      methods_len += mlen + 1;
    }
    const char *mp = methods;
    if (!method && !per_uri) { mp = NULL; methods_len = 0; } /* NULL: any method */
    memset(&view, 0xA5, sizeof view);
    rc = ilk_router_match_requests(r, mp, methods_len, uris, uris_len, d->batch, &view);
    if (method_is_bad(method) && !(rc == ILK_OK && a->status == ILK_EURI && tolerated("batch-method"))) {
      REQUIRE_TAG("batch-method", rc == ILK_EINVAL, "match_requests took the malformed method \"%s\" (%d) for \"%s\"", SHOWZ(method), rc, show(uri, len));
      continue;
    }
    REQUIRE(rc == ILK_OK, "ilk_router_match_requests returned %d for \"%s\"", rc, show(uri, len));
    REQUIRE(view.count == BATCH_COPIES, "view count %zu", view.count);
    REQUIRE(view.first_error == (a->status < 0 ? 0 : BATCH_COPIES), "first_error %zu for status %d",
            view.first_error, a->status);
    check_image("ilk_router_match_requests", view.data, view.size, BATCH_COPIES, a, uri, len);
  }
}

/* ilk_router_match_packed with a parameter buffer of exactly `cap` bytes (on the heap, so that
 * AddressSanitizer sees a write past it). */
static inline void check_packed(doors *d, ilk_router *r, const char *method, const char *uri, size_t len, const answer *a,
                         size_t cap) {
  char *buf = cap ? malloc(cap) : NULL;
  if (cap) memset(buf, 0x5A, cap);
  REQUIRE(ilk_match_set_buffer(d->m, buf, cap) == ILK_OK, "set buffer of %zu", cap);
  int64_t v = ilk_router_match_packed(r, method, uri, len, d->m);
  if (a->status == ILK_OK) {
    REQUIRE(v >= ((int64_t)1 << 32), "match_packed gave %lld for a match of \"%s\"", (long long)v, show(uri, len));
    uint32_t route = (uint32_t)(v >> 32);
    size_t plen = (size_t)(v & 0xFFFFFFFF);
    if (plen <= cap) same_answer("ilk_router_match_packed", a, ILK_OK, route, buf, plen, uri, len);
    else {
      same_answer("ilk_router_match_packed", a, ILK_OK, route, a->text, plen, uri, len);
      for (size_t i = 0; i < cap; i++) REQUIRE(buf[i] == 0x5A, "match_packed wrote %zu bytes into %zu", plen, cap);
    }
  } else {
    REQUIRE(v == a->status, "match_packed gave %lld, ilk_router_match %d for \"%s\"", (long long)v, a->status,
            show(uri, len));
    if (a->status == ILK_EURI) REQUIRE(ilk_erroffset() == a->offset, "match_packed's offset %zu, match's %zu",
                                       ilk_erroffset(), a->offset);
  }
  /* the match left in m is the one ilk_router_match leaves */
  REQUIRE(ilk_match_route_id(d->m) == a->route, "match_packed left route %u", ilk_match_route_id(d->m));
  ilk_match_set_buffer(d->m, NULL, 0);
  free(buf);
}

/* ilk_router_resolve on a router without callbacks gives what ilk_router_match gives. */
static inline void check_resolve(ilk_router *r, const char *method, const char *uri, size_t len, const answer *a) {
  ilk_result *res = (ilk_result *)(uintptr_t)1;
  int rc = ilk_router_resolve(r, method, uri, len, &res);
  if (a->status < 0) {
    /* a malformed method and a malformed URI: either may be reported */
    int either = method_is_bad(method) && (rc == ILK_EINVAL || rc == ILK_EURI);
    REQUIRE((rc == a->status || either) && res == NULL, "resolve: %d (result %p); match: %d for \"%s\"", rc, (void *)res,
            a->status, show(uri, len));
    if (rc == ILK_EURI && a->status == ILK_EURI) REQUIRE(ilk_erroffset() == a->offset, "resolve's offset %zu, match's %zu", ilk_erroffset(),
                                a->offset);
    return;
  }
  REQUIRE(rc == a->status && res && ilk_result_status(res) == rc, "resolve: %d; match: %d for \"%s\"", rc, a->status,
          show(uri, len));
  const ilk_request *req = ilk_result_request(res);
  REQUIRE(req && ilk_result_route_id(res) == a->route && ilk_request_route_id(req) == a->route,
          "resolve's route %u, match's %u for \"%s\"", ilk_result_route_id(res), a->route, show(uri, len));
  size_t count = ilk_request_param_count(req), pos = 0;
  for (size_t k = 0; k < count; k++) {
    const char *name, *value;
    REQUIRE(ilk_request_param_at(req, k, &name, NULL, &value, NULL) == ILK_OK && name && value, "resolve param %zu", k);
    size_t nl = strlen(name) + 1, vl = strlen(value) + 1;
    REQUIRE(pos + nl + vl <= a->len && memcmp(a->text + pos, name, nl) == 0 && memcmp(a->text + pos + nl, value, vl) == 0,
            "resolve's parameter %s=%s differs from match's for \"%s\"", SHOWZ(name), SHOWZ(value), show(uri, len));
    pos += nl + vl;
  }
  REQUIRE(pos == a->len, "resolve bound fewer parameters than match for \"%s\"", show(uri, len));
  if (rc == ILK_METHOD_NOT_ALLOWED)
    REQUIRE(ilk_result_allowed_count(res) == a->allowed, "resolve allows %zu methods, match %zu",
            ilk_result_allowed_count(res), a->allowed);
  REQUIRE(ilk_result_trace_count(res) >= 1, "no trace");
  ilk_result_free(res);
}

/* ilk_router_explain agrees with ilk_router_match (`a`): the one candidate it marks as taking the
 * request is the route match answered, and none when match found none (issue 38: the explanation
 * reports the matcher's decision). It fails where match failed; besides, only with ILK_EURI for a
 * URI that is not UTF-8 (it takes text), or ILK_ELIMIT from a constraint on a route the lookup
 * did not need to try (never on a table without constraints: `constrained` 0). */
static inline void check_explain(ilk_router *r, const char *method, const char *uri, size_t len, const answer *a,
                                 int constrained) {
  static char *buf;
  static size_t cap;
  if (!buf) {
    cap = 1 << 16;
    buf = malloc(cap);
    if (!buf) abort();
  }
  size_t n = 0;
  int rc = ilk_router_explain(r, method, uri, len, buf, cap, &n);
  if (rc == ILK_ELIMIT && n + 1 > cap) {
    cap = n + 1;
    buf = realloc(buf, cap);
    if (!buf) abort();
    rc = ilk_router_explain(r, method, uri, len, buf, cap, &n);
  }
  if (a->status == ILK_EURI && !method_is_bad(method)) {
    REQUIRE_TAG("explain", rc == ILK_EURI && ilk_erroffset() == a->offset,
                "ilk_router_explain returned %d at %zu where ilk_router_match refused the URI at %zu for \"%s\"", rc,
                ilk_erroffset(), a->offset, show(uri, len));
    return;
  }
  if (a->status != ILK_OK && a->status != ILK_NOT_FOUND && a->status != ILK_METHOD_NOT_ALLOWED) {
    REQUIRE_TAG("explain", rc == a->status || rc == ILK_EURI || rc == ILK_EINVAL,
                "ilk_router_explain returned %d where ilk_router_match returned %d for \"%s\"", rc, a->status, show(uri, len));
    return;
  }
  if (rc == ILK_ELIMIT && constrained) return;
  REQUIRE_TAG("explain", rc == ILK_OK, "ilk_router_explain returned %d (%s) for \"%s\", which ilk_router_match answered %d",
              rc, ilk_errmsg(), show(uri, len), a->status);
  /* The candidates follow the answer; strings in them are quoted, so "takes":true is a field. */
  const char *list = strstr(buf, "\"candidates\":[");
  REQUIRE_TAG("explain", list != NULL, "no candidates in %s", buf);
  uint32_t winner = 0;
  int takers = 0;
  for (const char *t = strstr(list, "\"takes\":true"); t; t = strstr(t + 1, "\"takes\":true")) {
    const char *c = t;
    while (c > list && strncmp(c, "{\"route\":", 9) != 0) c--;
    winner = (uint32_t)strtoul(c + 9, NULL, 10);
    takers++;
  }
  REQUIRE_TAG("explain", takers <= 1, "%d candidates take \"%s\"", takers, show(uri, len));
  if (a->status == ILK_OK) {
    /* a winner past the 200 listed is not shown */
    REQUIRE_TAG("explain", winner == a->route || (takers == 0 && strstr(buf, "\"truncated\":true")),
                "ilk_router_explain's winner is route %u, ilk_router_match's route %u, for \"%s\"", winner, a->route,
                show(uri, len));
  } else {
    REQUIRE_TAG("explain", takers == 0, "ilk_router_explain lists route %u as taking \"%s\", which ilk_router_match "
                "answered %d", winner, show(uri, len), a->status);
  }
}

/* Looks up `uri` through every door and checks that they all agree with ilk_router_match.
 * `packed_cap` is the capacity of ilk_router_match_packed's buffer. Returns match's status. */
static inline int check_doors(doors *d, ilk_router *r, const char *method, const char *uri, size_t len, size_t packed_cap) {
  answer *a = &d->single;
  match_once(r, d->m, method, uri, len, a);
  /* the same lookup again gives the same answer (nothing left over from the first) */
  match_once(r, d->m, method, uri, len, &d->other);
  same_answer("a second ilk_router_match", a, d->other.status, d->other.route, d->other.text, d->other.len, uri, len);
  check_packed(d, r, method, uri, len, a, packed_cap);
  if (!memchr(uri, 0, len)) check_batch(d, r, method, uri, len, a);
  check_resolve(r, method, uri, len, a);
  return a->status;
}

#endif
