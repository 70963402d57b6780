/* Random patterns and URIs (a fixed seed, so every run is the same) through the ABI: every call
 * returns a documented code, errors carry an offset inside the input, nothing crashes or hangs.
 * Then every door a host looks up through (ilk_router_match, ilk_router_match_packed,
 * ilk_router_match_requests, ilk_router_match_many, ilk_router_resolve) must give the same answer
 * for the same request on a random table of routes with parameters. */
#include "interlock.h"
#include "check.h"
#include <stdlib.h>

static unsigned long long seed = 0x1234567887654321ULL;
static unsigned next(void) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return (unsigned)seed; }

static const char *pieces[] = {"/", "/", "/", "a", "users", ":id", ":n(\\d+)", ":x([a-z]+)", "*rest", "*", "(", ")", "(/", "\\:",
                               "%2F", "%41", "%G1", "%", ".", "..", "GET ", "myapp://", "https://h.example", "?", "#", ":",
                               "\xC3\xA9", "\xFF", " ", "{", "[", "(?<x>a)", "\\", "a{2,1}", "//", "(*ACCEPT)", "\t"};

static void random_text(char *out, size_t cap) {
  size_t n = 0;
  int parts = 1 + next() % 9;
  out[0] = 0;
  for (int i = 0; i < parts; i++) {
    const char *p = pieces[next() % (sizeof pieces / sizeof pieces[0])];
    size_t len = strlen(p);
    if (n + len + 1 >= cap) break;
    memcpy(out + n, p, len);
    n += len;
    out[n] = 0;
  }
}

static const char *pick(const char *const *items, size_t n) { return items[next() % n]; }
#define PICK(items) pick(items, sizeof items / sizeof items[0])

/* Appends `s` to out (capacity cap, length *n), if it fits. */
static void append(char *out, size_t cap, size_t *n, const char *s) {
  size_t len = strlen(s);
  if (*n + len + 1 >= cap) return;
  memcpy(out + *n, s, len);
  *n += len;
  out[*n] = 0;
}

static const char *const route_literals[] = {"a", "b", "users", "%41", "caf%C3%A9", "x%2Fy", "v1", "z"};
static const char *const uri_segments[] = {"a", "b", "users", "A", "%41", "12", "7", "abc", "caf%C3%A9", "caf\xC3\xA9",
                                           "x%2Fy", "x/y", "v1", ".", "..", "", "%G1", "%2e", "AbC", "%00"};
static const char *const methods[] = {NULL, NULL, "GET", "POST", "PUT", "get"};

static void random_route(char *out, size_t cap, int k) {
  size_t n = 0;
  char name[32];
  out[0] = 0;
  if (next() % 4 == 0) append(out, cap, &n, next() % 2 ? "GET " : "POST ");
  if (next() % 5 == 0) append(out, cap, &n, "myapp:/");
  int segments = 1 + next() % 4;
  for (int i = 0; i < segments; i++) {
    append(out, cap, &n, "/");
    /* Mostly a literal first, so that requests also match nothing or only under other methods. */
    switch (i == 0 && next() % 8 ? 0 : next() % 6) {
    case 0: case 1: append(out, cap, &n, PICK(route_literals)); break;
    case 2: snprintf(name, sizeof name, ":p%d_%d", k, i); append(out, cap, &n, name); break;
    case 3: snprintf(name, sizeof name, ":n%d(\\d+)", i); append(out, cap, &n, name); break;
    case 4: snprintf(name, sizeof name, ":x%d([a-c]+)", i); append(out, cap, &n, name); break;
    default:
      if (i > 0 && i == segments - 1) { append(out, cap, &n, "*rest"); return; }
      append(out, cap, &n, PICK(route_literals));
    }
  }
  if (next() % 4 == 0) { snprintf(name, sizeof name, "(/opt/:o%d)", k); append(out, cap, &n, name); }
}

static void random_uri(char *out, size_t cap) {
  size_t n = 0;
  out[0] = 0;
  if (next() % 5 == 0) append(out, cap, &n, "myapp://");
  int segments = next() % 6;
  for (int i = 0; i < segments; i++) {
    if (i > 0 || n == 0) append(out, cap, &n, "/");
    append(out, cap, &n, PICK(uri_segments));
  }
  if (next() % 4 == 0) append(out, cap, &n, next() % 2 ? "?q=1" : "#f");
}

/* One lookup's answer, as ilk_router_match gives it: the status, the route, and the parameters
 * packed as the other doors pack them ("name\0value\0..."), or the error message. */
typedef struct {
  int status;
  uint32_t route;
  char text[512];
  size_t text_len;
} answer;

static void single(ilk_router *r, ilk_match *m, const char *method, const char *uri, answer *a) {
  int rc = ilk_router_match(r, method, uri, strlen(uri), m);
  a->status = rc;
  a->route = rc == ILK_OK ? ilk_match_route_id(m) : 0;
  a->text_len = 0;
  if (rc == ILK_EURI) {   /* a batch gives the message, the offset, and a NUL byte */
    int n = snprintf(a->text, sizeof a->text, "%s (at byte %lld)", ilk_errmsg(), (long long)ilk_erroffset());
    a->text_len = n > 0 && (size_t)n < sizeof a->text ? (size_t)n + 1 : 0;
  }
  for (size_t k = 0; rc == ILK_OK && k < ilk_match_param_count(m); k++) {
    const char *name, *value;
    size_t nl, vl;
    ilk_match_param_at(m, k, &name, &nl, &value, &vl);
    if (a->text_len + nl + vl + 2 > sizeof a->text) break;
    memcpy(a->text + a->text_len, name, nl + 1);
    a->text_len += nl + 1;
    memcpy(a->text + a->text_len, value, vl + 1);
    a->text_len += vl + 1;
  }
}

enum { DOOR_URIS = 3000 };

static void compare_doors(void) {
  ilk_router *r;
  ilk_match *m;
  ilk_match_batch *b;
  char text[256], params[4096];
  static char uris[DOOR_URIS][128];
  static const char *uri_methods[DOOR_URIS];
  static answer answers[DOOR_URIS];
  static char uri_buf[DOOR_URIS * 128], method_buf[DOOR_URIS * 8];
  size_t uri_len = 0, method_len = 0, first_error = DOOR_URIS;
  int added = 0, matched = 0, refused = 0, not_allowed = 0;
  ilk_router_new(&r, next() % 2 ? ILK_STRICT_SLASH : 0);
  ilk_match_new(&m);
  ilk_match_batch_new(&b);
  ilk_match_set_buffer(m, params, sizeof params);
  for (int k = 0; k < 300; k++) {
    random_route(text, sizeof text, k);
    if (ilk_router_add_route(r, text, NULL, NULL, NULL, NULL) == ILK_OK) added++;
  }
  for (int i = 0; i < DOOR_URIS; i++) {
    random_uri(uris[i], sizeof uris[i]);
    uri_methods[i] = PICK(methods);
    single(r, m, uri_methods[i], uris[i], &answers[i]);
    if (answers[i].status == ILK_OK) matched++;
    if (answers[i].status == ILK_METHOD_NOT_ALLOWED) not_allowed++;
    if (answers[i].status == ILK_EURI) { refused++; if (first_error == DOOR_URIS) first_error = (size_t)i; }
    memcpy(uri_buf + uri_len, uris[i], strlen(uris[i]) + 1);
    uri_len += strlen(uris[i]) + 1;
    const char *mt = uri_methods[i] ? uri_methods[i] : "";
    memcpy(method_buf + method_len, mt, strlen(mt) + 1);
    method_len += strlen(mt) + 1;
  }
  printf("doors: %d routes, %d URIs: %d matched, %d not allowed, %d refused\n", added, DOOR_URIS, matched, not_allowed, refused);
  CHECK(added > 100 && matched > 300 && refused > 100 && not_allowed > 0 && matched + not_allowed + refused < DOOR_URIS - 100);

  /* ilk_router_match_packed, and ilk_router_resolve. */
  int packed_bad = 0, resolve_bad = 0;
  for (int i = 0; i < DOOR_URIS; i++) {
    const answer *a = &answers[i];
    int64_t v = ilk_router_match_packed(r, uri_methods[i], uris[i], strlen(uris[i]), m);
    if (v >= ((int64_t)1 << 32)) {
      if (a->status != ILK_OK || (uint32_t)(v >> 32) != a->route || (size_t)(v & 0xFFFFFFFF) != a->text_len ||
          memcmp(params, a->text, a->text_len) != 0) packed_bad++;
    } else if (v != a->status) packed_bad++;
    ilk_result *res = NULL;
    int rc = ilk_router_resolve(r, uri_methods[i], uris[i], strlen(uris[i]), &res);
    if (rc != a->status || (res && ilk_result_route_id(res) != a->route)) resolve_bad++;
    if (rc == ILK_EURI && strncmp(ilk_errmsg(), a->text, strlen(ilk_errmsg())) != 0) resolve_bad++;
    ilk_result_free(res);
  }
  CHECK_EQ_INT(packed_bad, 0);
  CHECK_EQ_INT(resolve_bad, 0);

  /* ilk_router_match_requests, a method per URI; then ilk_router_match_many under each method. */
  ilk_match_batch_view view;
  CHECK_EQ_INT(ilk_router_match_requests(r, method_buf, method_len, uri_buf, uri_len, b, &view), ILK_OK);
  CHECK_EQ_INT(view.count, DOOR_URIS);
  CHECK_EQ_INT(view.first_error, first_error);
  const int32_t *statuses = view.data;
  const uint32_t *ids = (const uint32_t *)(statuses + view.count);
  const size_t *offsets = (const size_t *)(ids + view.count);
  const char *packed = (const char *)(offsets + view.count + 1);
  int batch_bad = 0;
  for (size_t i = 0; i < view.count && i < DOOR_URIS; i++) {
    const answer *a = &answers[i];
    size_t len = offsets[i + 1] - offsets[i];
    if (statuses[i] != a->status || ids[i] != a->route || len != a->text_len || memcmp(packed + offsets[i], a->text, len) != 0) {
      if (batch_bad++ < 5) fprintf(stderr, "match_requests differs on %s %s\n", uri_methods[i] ? uri_methods[i] : "(any)", uris[i]);
    }
  }
  CHECK_EQ_INT(batch_bad, 0);
  for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
    const char *method = methods[k];
    int many_bad = 0;
    CHECK_EQ_INT(ilk_router_match_many(r, method, uri_buf, uri_len, b), ILK_OK);
    const int32_t *st;
    const uint32_t *id;
    const size_t *off;
    size_t text_len;
    ilk_match_batch_arrays(b, &st, &id, &off);
    const char *t = ilk_match_batch_text(b, &text_len);
    CHECK_EQ_INT(ilk_match_batch_count(b), DOOR_URIS);
    for (int i = 0; i < DOOR_URIS; i++) {
      answer a;
      single(r, m, method, uris[i], &a);
      size_t len = off[i + 1] - off[i];
      if (st[i] != a.status || id[i] != a.route || len != a.text_len || memcmp(t + off[i], a.text, len) != 0) many_bad++;
    }
    CHECK_EQ_INT(many_bad, 0);
  }
  ilk_match_batch_free(b);
  ilk_match_free(m);
  ilk_router_free(r);
}

int main(void) {
  ilk_router *r;
  ilk_match *m;
  char text[256];
  int bad_codes = 0, bad_offsets = 0, added = 0;
  ilk_router_new(&r, 0);
  ilk_match_new(&m);
  for (int i = 0; i < 4000; i++) {
    random_text(text, sizeof text);
    int rc = ilk_router_add_route(r, text, NULL, NULL, NULL, NULL);
    if (rc == ILK_OK) added++;
    else if (rc != ILK_EPATTERN && rc != ILK_ECONFLICT && rc != ILK_ELIMIT) bad_codes++;
    else if (rc == ILK_EPATTERN && ilk_erroffset() != ILK_NO_OFFSET && ilk_erroffset() > strlen(text)) bad_offsets++;
  }
  for (int i = 0; i < 20000; i++) {
    random_text(text, sizeof text);
    const char *method = (next() % 3) ? NULL : (next() % 2 ? "GET" : "POST");
    int rc = ilk_router_match(r, method, text, strlen(text), m);
    if (rc != ILK_OK && rc != ILK_NOT_FOUND && rc != ILK_METHOD_NOT_ALLOWED && rc != ILK_EURI) bad_codes++;
    if (rc == ILK_EURI && ilk_erroffset() > strlen(text)) bad_offsets++;
    if (rc == ILK_OK) {
      for (size_t k = 0; k < ilk_match_param_count(m); k++) {
        const char *name, *value;
        if (ilk_match_param_at(m, k, &name, NULL, &value, NULL) != ILK_OK || !name || !value) bad_codes++;
      }
    }
    if (i % 10 == 0) {
      ilk_result *res = NULL;
      rc = ilk_router_resolve(r, method, text, strlen(text), &res);
      if (rc >= 0 && !res) bad_codes++;
      ilk_result_free(res);
    }
  }
  printf("fuzz: %d patterns accepted of 4000; 20000 URIs matched\n", added);
  CHECK(added > 20);
  CHECK_EQ_INT(bad_codes, 0);
  CHECK_EQ_INT(bad_offsets, 0);
  ilk_match_free(m);
  ilk_router_free(r);
  for (int round = 0; round < 4; round++) compare_doors();
  return check_summary("test_fuzz");
}
