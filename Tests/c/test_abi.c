/* Every exported function through the header: results, NULL arguments, userdata freed once. */
#include "interlock.h"
#include "check.h"
#include <stdlib.h>
#include <stdint.h>

static int frees[16];
static void count_free(void *userdata) { frees[(int)(size_t)userdata]++; }

static int echo_destination(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)userdata;
  const char *id = ilk_request_param(req, "id");
  ilk_response_set_status(res, 201);
  ilk_response_add_header(res, "X-Route", ilk_request_pattern(req));
  if (id) ilk_response_set_body(res, id, strlen(id));
  return ILK_OK;
}

static int failing_destination(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)req; (void)userdata;
  ilk_response_set_error(res, "database is down");
  return -1;
}

static int default_destination(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)userdata;
  ilk_response_set_status(res, 404);
  ilk_response_set_body(res, ilk_request_path(req), strlen(ilk_request_path(req)));
  return ILK_OK;
}

static int match(ilk_router *r, ilk_match *m, const char *method, const char *uri) {
  return ilk_router_match(r, method, uri, strlen(uri), m);
}

static int resolve(ilk_router *r, const char *method, const char *uri, ilk_result **out) {
  return ilk_router_resolve(r, method, uri, strlen(uri), out);
}

static void test_version_and_errors(void) {
  CHECK_EQ_STR(ilk_version(), ILK_VERSION);
  CHECK_EQ_INT(ilk_version_number(), ILK_VERSION_NUMBER);
  CHECK_EQ_STR(ilk_errstr(ILK_EPATTERN), "pattern error");
  CHECK_EQ_STR(ilk_errstr(12345), "unknown status code");
  CHECK(ilk_errmsg() != NULL);
}

static void test_router_lifecycle(void) {
  ilk_router *r = NULL;
  CHECK_EQ_INT(ilk_router_new(NULL, 0), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "out") != NULL);
  CHECK_EQ_INT(ilk_erroffset(), ILK_NO_OFFSET);
  CHECK_EQ_INT(ilk_router_new(&r, 0x80), ILK_EINVAL);
  CHECK(r == NULL);
  CHECK_EQ_INT(ilk_router_new(&r, ILK_CASE_INSENSITIVE | ILK_STRICT_SLASH), ILK_OK);
  CHECK(r != NULL);
  ilk_router_free(r);
  ilk_router_free(NULL);
  ilk_match_free(NULL);
  ilk_result_free(NULL);
}

static void test_add_route(void) {
  ilk_router *r;
  uint32_t id = 0;
  const char *pattern = NULL;
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_add_route(NULL, "/a", NULL, NULL, NULL, &id), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_add_route(r, NULL, NULL, NULL, NULL, &id), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_add_route(r, "GET /users/:id", NULL, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(id, 1);
  CHECK_EQ_INT(ilk_router_add_route(r, "/users/:id/posts", NULL, NULL, NULL, NULL), ILK_OK);
  CHECK_EQ_INT(ilk_router_route_count(r), 2);
  CHECK_EQ_INT(ilk_router_route_count(NULL), 0);

  /* malformed: message and offset (an offset of -1 or no text: not checked) */
  static const struct {
    const char *pattern;
    int offset;
    const char *says;
  } malformed[] = {
      {"/a(b", 2, "must begin with '/'"},
      {"/a//b", 3, "empty segment"},
      {"/a/:id/:id", 7, "duplicate"},
      {"/a/:n([0-9]+", -1, NULL},
      {"/a/:n(\\d*)", -1, "empty string"},
      {"/ab\xC3(", 3, "UTF-8"},
      {"/\xFF", 1, NULL},
  };
  for (size_t k = 0; k < sizeof malformed / sizeof *malformed; k++) {
    CHECK_EQ_INT(ilk_router_add_route(r, malformed[k].pattern, NULL, NULL, NULL, NULL), ILK_EPATTERN);
    if (malformed[k].offset >= 0) CHECK_EQ_INT(ilk_erroffset(), malformed[k].offset);
    if (malformed[k].says) CHECK(strstr(ilk_errmsg(), malformed[k].says) != NULL);
  }
  /* the root, with and without a method */
  CHECK_EQ_INT(ilk_router_add_route(r, "GET /", NULL, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "/", NULL, NULL, NULL, NULL), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "", NULL, NULL, NULL, NULL), ILK_ECONFLICT);
  {
    ilk_match *m;
    ilk_match_new(&m);
    CHECK_EQ_INT(ilk_router_match(r, "GET", "https://example.com", 19, m), ILK_OK);
    CHECK_EQ_INT(ilk_match_route_id(m), id);
    CHECK_EQ_INT(ilk_router_match(r, "PUT", "/?x=1", 5, m), ILK_OK);
    CHECK_EQ_INT(ilk_match_route_id(m), id + 1);
    ilk_match_free(m);
  }

  /* conflict names the existing pattern; the failed call does not take the userdata */
  frees[1] = 0;
  CHECK_EQ_INT(ilk_router_add_route(r, "GET /users/:name", echo_destination, (void *)1, count_free, NULL), ILK_ECONFLICT);
  CHECK(strstr(ilk_errmsg(), "GET /users/:id") != NULL);
  CHECK_EQ_INT(frees[1], 0);

  CHECK_EQ_INT(ilk_router_route_pattern(r, 1, &pattern), ILK_OK);
  CHECK_EQ_STR(pattern, "GET /users/:id");
  CHECK_EQ_INT(ilk_router_route_pattern(r, 99, &pattern), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_route_pattern(NULL, 1, &pattern), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_route_pattern(r, 1, NULL), ILK_EINVAL);
  ilk_router_free(r);
}

static void test_match(void) {
  ilk_router *r;
  ilk_match *m;
  const char *name, *value;
  size_t name_len, value_len;
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_match_new(NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_match_new(&m), ILK_OK);
  ilk_router_add_route(r, "GET /repos/:owner/:repo", NULL, NULL, NULL, NULL);
  ilk_router_add_route(r, "POST /repos/:owner/:repo", NULL, NULL, NULL, NULL);
  ilk_router_add_route(r, "/files/*path", NULL, NULL, NULL, NULL);
  ilk_router_add_route(r, "myapp://user/:id(\\d+)", NULL, NULL, NULL, NULL);

  /* "" is any method, as NULL is (and as in a batch, whose methods cannot hold a NULL) */
  CHECK_EQ_INT(match(r, m, "", "/repos/a/b"), ILK_OK);
  CHECK_EQ_INT(match(r, m, "", "myapp://user/7"), ILK_OK);
  /* malformed methods: over 64 bytes (64 is fine), a byte that is no token character */
  char long_method[80];
  memset(long_method, 'A', sizeof long_method - 1);
  long_method[sizeof long_method - 1] = 0;
  CHECK_EQ_INT(match(r, m, long_method, "/repos/a/b"), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "longer than 64") != NULL);
  long_method[64] = 0;
  CHECK_EQ_INT(match(r, m, long_method, "/repos/a/b"), ILK_METHOD_NOT_ALLOWED);
  CHECK_EQ_INT(match(r, m, "GE T", "/repos/a/b"), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "invalid character in method") != NULL);
  CHECK_EQ_INT(ilk_erroffset(), 2);

  CHECK_EQ_INT(match(r, m, "GET", "/repos/apple/swift?tab=1"), ILK_OK);
  CHECK_EQ_INT(ilk_match_route_id(m), 1);
  CHECK_EQ_STR(ilk_match_pattern(m), "GET /repos/:owner/:repo");
  CHECK_EQ_INT(ilk_match_param_count(m), 2);
  CHECK_EQ_INT(ilk_match_param_at(m, 1, &name, &name_len, &value, &value_len), ILK_OK);
  CHECK_EQ_STR(name, "repo");
  CHECK_EQ_INT(name_len, 4);
  CHECK_EQ_STR(value, "swift");
  CHECK_EQ_INT(value_len, 5);
  CHECK_EQ_INT(ilk_match_param_at(m, 2, &name, NULL, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_match_param_at(NULL, 0, &name, NULL, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_match_param(m, "owner", &value, &value_len), ILK_OK);
  CHECK_EQ_STR(value, "apple");
  CHECK_EQ_INT(ilk_match_param(m, "nope", &value, NULL), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_match_param(m, NULL, &value, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_match_param(NULL, "owner", &value, NULL), ILK_EINVAL);

  /* The packed form: id and length in the return value, parameters in the caller's buffer. */
  {
    char buffer[64], small[8];
    const char *uri = "/repos/apple/swift%2Dnio";
    int64_t got = ilk_router_match_packed(r, "GET", uri, strlen(uri), m);  /* no buffer yet */
    CHECK_EQ_INT(got >> 32, 1);
    CHECK_EQ_INT(got & 0xffffffff, 27);                 /* "owner\0apple\0repo\0swift-nio\0" */
    CHECK_EQ_INT(ilk_match_set_buffer(m, buffer, sizeof buffer), ILK_OK);
    got = ilk_router_match_packed(r, "GET", uri, strlen(uri), m);
    CHECK_EQ_INT(got & 0xffffffff, 27);
    CHECK(memcmp(buffer, "owner\0apple\0repo\0swift-nio\0", 27) == 0);
    CHECK_EQ_INT(ilk_match_set_buffer(m, small, sizeof small), ILK_OK);
    memset(small, 'x', sizeof small);
    got = ilk_router_match_packed(r, "GET", uri, strlen(uri), m);
    CHECK_EQ_INT(got & 0xffffffff, 27);                 /* too long: nothing written */
    CHECK(small[0] == 'x');
    CHECK_EQ_STR(ilk_match_param(m, "repo", &value, NULL) == ILK_OK ? value : "", "swift-nio");
    /* Buffers that fit with no byte to spare, with a few, and with many (copied eight bytes at a
     * time): the same text, and nothing written past the buffer. */
    for (size_t capacity = 27; capacity <= 40; capacity++) {
      char exact[48];
      memset(exact, 'x', sizeof exact);
      CHECK_EQ_INT(ilk_match_set_buffer(m, exact, capacity), ILK_OK);
      got = ilk_router_match_packed(r, "GET", uri, strlen(uri), m);
      CHECK_EQ_INT(got & 0xffffffff, 27);
      CHECK(memcmp(exact, "owner\0apple\0repo\0swift-nio\0", 27) == 0);
      CHECK(exact[capacity] == 'x');
    }
    CHECK_EQ_INT(ilk_match_set_buffer(m, buffer, sizeof buffer), ILK_OK);
    got = ilk_router_match_packed(r, "GET", "/repos/a-longer-owner-name/r", 28, m);
    CHECK_EQ_INT(got & 0xffffffff, 33);
    CHECK(memcmp(buffer, "owner\0a-longer-owner-name\0repo\0r\0", 33) == 0);
    CHECK_EQ_INT(ilk_match_set_buffer(m, small, sizeof small), ILK_OK);
    CHECK_EQ_INT(ilk_router_match_packed(r, "PUT", uri, strlen(uri), m), ILK_METHOD_NOT_ALLOWED);
    CHECK_EQ_INT(ilk_router_match_packed(r, "GET", "/nope", 5, m), ILK_NOT_FOUND);
    CHECK_EQ_INT(ilk_router_match_packed(r, "GET", "/%zz", 4, m), ILK_EURI);
    CHECK_EQ_INT(ilk_router_match_packed(NULL, "GET", "/", 1, m), ILK_EINVAL);
    CHECK_EQ_INT(ilk_router_match_packed(r, "GET", "/", 1, NULL), ILK_EINVAL);
    got = ilk_router_match_packed(r, NULL, "/files/a/b", 10, m);
    CHECK_EQ_INT(got >> 32, 3);
    /* A catch-all that binds nothing: an empty value, read from no byte outside the URI (the
     * packed copy read 8 bytes before the subject buffer; the AddressSanitizer suite fails so). */
    CHECK_EQ_INT(ilk_match_set_buffer(m, buffer, sizeof buffer), ILK_OK);
    got = ilk_router_match_packed(r, NULL, "/files", 6, m);
    CHECK_EQ_INT(got >> 32, 3);
    CHECK_EQ_INT(got & 0xffffffff, 6);
    CHECK(memcmp(buffer, "path\0\0", 6) == 0);
    /* A length no buffer has (over PTRDIFF_MAX) is refused, not taken as a negative count. */
    CHECK_EQ_INT(ilk_router_match_packed(r, NULL, "/files", (size_t)PTRDIFF_MAX + 1, m), ILK_EINVAL);
    CHECK_EQ_INT(ilk_router_match(r, NULL, "/files", SIZE_MAX, m), ILK_EINVAL);
    CHECK(strstr(ilk_errmsg(), "uri_len") != NULL);
    CHECK_EQ_INT(ilk_match_set_buffer(m, NULL, 5), ILK_EINVAL);
    CHECK_EQ_INT(ilk_match_set_buffer(NULL, buffer, 5), ILK_EINVAL);
    CHECK_EQ_INT(ilk_match_set_buffer(m, NULL, 0), ILK_OK);
  }

  /* %2F stays inside one segment and is decoded after matching */
  CHECK_EQ_INT(match(r, m, NULL, "/files/a/b%2Fc%20d"), ILK_OK);
  CHECK_EQ_INT(ilk_match_param(m, "path", &value, &value_len), ILK_OK);
  CHECK_EQ_STR(value, "a/b/c d");

  CHECK_EQ_INT(match(r, m, NULL, "myapp://user/42"), ILK_OK);
  CHECK_EQ_INT(ilk_match_route_id(m), 4);
  CHECK_EQ_INT(match(r, m, NULL, "otherapp://user/42"), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_match_route_id(m), 0);
  CHECK(ilk_match_pattern(m) == NULL);
  CHECK_EQ_INT(ilk_match_param_count(m), 0);

  CHECK_EQ_INT(match(r, m, "DELETE", "/repos/a/b"), ILK_METHOD_NOT_ALLOWED);
  CHECK_EQ_INT(ilk_match_allowed_count(m), 2);
  CHECK_EQ_STR(ilk_match_allowed_at(m, 0), "GET");
  CHECK_EQ_STR(ilk_match_allowed_at(m, 1), "POST");
  CHECK(ilk_match_allowed_at(m, 2) == NULL);
  CHECK_EQ_INT(ilk_match_allowed_count(NULL), 0);

  /* bad input */
  CHECK_EQ_INT(match(r, m, NULL, "/repos/%G1/x"), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), 7);
  CHECK(strstr(ilk_errmsg(), "escape") != NULL);
  CHECK_EQ_INT(ilk_router_match(r, NULL, "/a\0b", 4, m), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), 2);
  /* ill-formed UTF-8 is named where its sequence begins: not at the byte after it, nor past the end */
  CHECK_EQ_INT(ilk_router_match(r, NULL, "/p/\xE9", 4, m), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), 3);
  CHECK_EQ_INT(ilk_router_match(r, NULL, "/p/a\xE9x", 6, m), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), 4);
  CHECK_EQ_INT(ilk_router_match(r, NULL, "/p?q=\xE2\x82", 7, m), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), 5);
  CHECK_EQ_INT(match(r, m, "GE T", "/repos/a/b"), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match(NULL, NULL, "/a", 2, m), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match(r, NULL, NULL, 2, m), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match(r, NULL, "/a", 2, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_match_route_id(NULL), 0);
  CHECK(ilk_match_pattern(NULL) == NULL);
  CHECK_EQ_INT(ilk_match_param_count(NULL), 0);

  /* a URI of exactly 64 KiB is accepted, one byte more is refused */
  {
    size_t n = 65536;
    char *big = malloc(n + 2);
    memset(big, 'a', n + 1);
    big[0] = '/';
    CHECK_EQ_INT(ilk_router_match(r, NULL, big, n, m), ILK_NOT_FOUND);
    CHECK_EQ_INT(ilk_router_match(r, NULL, big, n + 1, m), ILK_EURI);
    CHECK_EQ_INT(ilk_erroffset(), 65536);
    free(big);
  }

  /* a constraint with catastrophic backtracking stops at PCRE2's match limit: ILK_ELIMIT, no hang */
  {
    char evil[80];
    ilk_router *slow;
    ilk_router_new(&slow, 0);
    CHECK_EQ_INT(ilk_router_add_route(slow, "/r/:x((a+)+b)", NULL, NULL, NULL, NULL), ILK_OK);
    strcpy(evil, "/r/");
    memset(evil + 3, 'a', 60);
    strcpy(evil + 63, "bc");   /* a "b", so that PCRE2 cannot refuse it before backtracking */
    CHECK_EQ_INT(ilk_router_match(slow, NULL, evil, strlen(evil), m), ILK_ELIMIT);
    CHECK(strstr(ilk_errmsg(), "match limit") != NULL);
    CHECK(strstr(ilk_errmsg(), "route '/r/:x((a+)+b)'") != NULL);
    CHECK_EQ_INT(ilk_router_match(slow, NULL, "/r/aab", 6, m), ILK_OK);
    ilk_router_free(slow);
  }

  /* The match limit is the router's: a higher one lets a long legitimate constraint match (each
   * iteration of a group is a step), a lower one stops it; 0 restores the default. A constraint
   * sees its own segment only: the "a" after it does not satisfy (.*a){3}. */
  {
    char slug[4000];
    ilk_router *lim;
    ilk_router_new(&lim, 0);
    CHECK_EQ_INT(ilk_router_add_route(lim, "/s/:slug([a-z]+(?:-[a-z]+)*)", NULL, NULL, NULL, NULL), ILK_OK);
    CHECK_EQ_INT(ilk_router_add_route(lim, "/t/:x((.*a){3})/:y", NULL, NULL, NULL, NULL), ILK_OK);
    strcpy(slug, "/s/");
    for (int i = 0; i < 1300; i++) memcpy(slug + 3 + 3 * i, "ab-", 3);
    strcpy(slug + 3 + 3 * 1300, "ab");
    CHECK_EQ_INT(ilk_router_match(lim, NULL, slug, strlen(slug), m), ILK_OK);
    CHECK_EQ_INT(ilk_router_set_match_limit(lim, 100), ILK_OK);
    CHECK_EQ_INT(ilk_router_match(lim, NULL, slug, strlen(slug), m), ILK_ELIMIT);
    CHECK(strstr(ilk_errmsg(), "limit 100 steps") != NULL);
    CHECK_EQ_INT(ilk_router_set_match_limit(lim, 0), ILK_OK);
    CHECK_EQ_INT(ilk_router_match(lim, NULL, slug, strlen(slug), m), ILK_OK);
    CHECK_EQ_INT(ilk_router_set_match_limit(NULL, 5), ILK_EINVAL);
    CHECK_EQ_INT(ilk_router_match(lim, NULL, "/t/xaxa/a", 9, m), ILK_NOT_FOUND);
    CHECK_EQ_INT(ilk_router_match(lim, NULL, "/t/aaa/b", 8, m), ILK_OK);
    ilk_router_free(lim);
  }

  /* optional parts nested 100,000 deep (the parser recursed per level and overflowed the stack):
     ILK_ELIMIT at the first part too deep, and the router stays usable */
  {
    size_t depth = 100000, n = 2 + 4 * depth;
    char *nested = malloc(n + 1);
    memcpy(nested, "/a", 2);
    for (size_t i = 0; i < depth; i++) memcpy(nested + 2 + 3 * i, "(/a", 3);
    memset(nested + 2 + 3 * depth, ')', depth);
    nested[n] = 0;
    CHECK_EQ_INT(ilk_router_add_route(r, nested, NULL, NULL, NULL, NULL), ILK_ELIMIT);
    CHECK_EQ_INT(ilk_erroffset(), 2 + 3 * 64);
    CHECK(strstr(ilk_errmsg(), "nested more than 64 deep") != NULL);
    free(nested);
    CHECK_EQ_INT(match(r, m, "GET", "/repos/a/b"), ILK_OK);
  }

  /* a match survives routes added between lookups (the table is recompiled lazily) */
  ilk_router_add_route(r, "GET /repos/:owner/:repo/issues", NULL, NULL, NULL, NULL);
  CHECK_EQ_INT(match(r, m, "GET", "/repos/a/b/issues"), ILK_OK);
  CHECK_EQ_INT(ilk_match_route_id(m), 5);

  ilk_match_free(m);
  ilk_router_free(r);
}

static void test_resolve(void) {
  ilk_router *r;
  ilk_result *res = NULL;
  const char *k, *v;
  size_t len;
  const char *body;
  memset(frees, 0, sizeof frees);
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_add_route(r, "GET myapp://item/:id", echo_destination, (void *)2, count_free, NULL), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "/broken", failing_destination, (void *)3, count_free, NULL), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "/no-destination", NULL, (void *)4, count_free, NULL), ILK_OK);

  CHECK_EQ_INT(resolve(r, "GET", "myapp://item/7?tag=a&tag=b+c&flag#top", &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_status(res), ILK_OK);
  CHECK_EQ_INT(ilk_result_route_id(res), 1);
  CHECK_EQ_INT(ilk_result_response_status(res), 201);
  body = ilk_result_body(res, &len);
  CHECK_EQ_INT(len, 1);
  CHECK(body && memcmp(body, "7", 1) == 0);
  CHECK_EQ_INT(ilk_result_header_count(res), 1);
  CHECK_EQ_INT(ilk_result_header_at(res, 0, &k, &v), ILK_OK);
  CHECK_EQ_STR(k, "X-Route");
  CHECK_EQ_STR(v, "GET myapp://item/:id");
  CHECK_EQ_INT(ilk_result_header_at(res, 1, &k, &v), ILK_EINVAL);
  CHECK(ilk_result_error(res) == NULL);
  {
    const ilk_request *req = ilk_result_request(res);
    CHECK_EQ_STR(ilk_request_uri(req), "myapp://item/7?tag=a&tag=b+c&flag#top");
    CHECK_EQ_STR(ilk_request_method(req), "GET");
    CHECK_EQ_STR(ilk_request_scheme(req), "myapp");
    CHECK(ilk_request_host(req) == NULL);
    CHECK(ilk_request_port(req) == NULL);
    CHECK_EQ_STR(ilk_request_path(req), "/item/7");
    CHECK_EQ_STR(ilk_request_fragment(req), "top");
    CHECK_EQ_INT(ilk_request_route_id(req), 1);
    CHECK_EQ_STR(ilk_request_pattern(req), "GET myapp://item/:id");
    CHECK_EQ_INT(ilk_request_param_count(req), 1);
    size_t k_len = 0, v_len = 0;
    CHECK_EQ_INT(ilk_request_param_at(req, 0, &k, &k_len, &v, &v_len), ILK_OK);
    CHECK_EQ_STR(k, "id");
    CHECK_EQ_STR(v, "7");
    CHECK_EQ_INT(k_len, 2);
    CHECK_EQ_INT(v_len, 1);
    CHECK_EQ_INT(ilk_request_param_at(req, 1, &k, NULL, &v, NULL), ILK_EINVAL);
    CHECK(ilk_request_param(req, "nope") == NULL);
    CHECK_EQ_INT(ilk_request_query_count(req), 3);
    CHECK_EQ_INT(ilk_request_query_at(req, 1, &k, &v), ILK_OK);
    CHECK_EQ_STR(k, "tag");
    CHECK_EQ_STR(v, "b c");
    CHECK_EQ_INT(ilk_request_query_at(req, 3, &k, &v), ILK_EINVAL);
    CHECK_EQ_STR(ilk_request_query(req, "tag"), "a");
    CHECK_EQ_STR(ilk_request_query(req, "flag"), "");
    CHECK(ilk_request_query(req, "none") == NULL);
  }
  ilk_result_free(res);

  /* NULL-safety of accessors */
  CHECK(ilk_request_uri(NULL) == NULL);
  CHECK(ilk_request_path(NULL) == NULL);
  CHECK_EQ_INT(ilk_request_param_count(NULL), 0);
  CHECK_EQ_INT(ilk_request_query_count(NULL), 0);
  CHECK_EQ_INT(ilk_request_param_at(NULL, 0, &k, NULL, &v, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_request_query_at(NULL, 0, &k, &v), ILK_EINVAL);
  CHECK(ilk_request_param(NULL, "id") == NULL);
  CHECK(ilk_request_query(NULL, "id") == NULL);
  CHECK_EQ_INT(ilk_request_route_id(NULL), 0);
  CHECK_EQ_INT(ilk_result_status(NULL), ILK_EINVAL);
  CHECK(ilk_result_request(NULL) == NULL);
  CHECK_EQ_INT(ilk_result_route_id(NULL), 0);
  CHECK_EQ_INT(ilk_result_response_status(NULL), 0);
  CHECK(ilk_result_body(NULL, &len) == NULL);
  CHECK_EQ_INT(ilk_result_header_count(NULL), 0);
  CHECK_EQ_INT(ilk_result_header_at(NULL, 0, &k, &v), ILK_EINVAL);
  CHECK(ilk_result_error(NULL) == NULL);
  CHECK_EQ_INT(ilk_result_allowed_count(NULL), 0);
  CHECK(ilk_result_allowed_at(NULL, 0) == NULL);
  CHECK_EQ_INT(ilk_response_set_status(NULL, 200), ILK_EINVAL);
  CHECK_EQ_INT(ilk_response_set_body(NULL, "x", 1), ILK_EINVAL);
  CHECK_EQ_INT(ilk_response_add_header(NULL, "a", "b"), ILK_EINVAL);
  CHECK_EQ_INT(ilk_response_set_error(NULL, "x"), ILK_EINVAL);

  /* a destination's error */
  CHECK_EQ_INT(resolve(r, NULL, "/broken", &res), ILK_ECALLBACK);
  CHECK_EQ_STR(ilk_result_error(res), "database is down");
  ilk_result_free(res);

  /* a route with no destination: OK, nothing ran */
  CHECK_EQ_INT(resolve(r, NULL, "/no-destination", &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_route_id(res), 3);
  CHECK_EQ_INT(ilk_result_response_status(res), 200);
  ilk_result_free(res);

  /* not found, then the default destination; method not allowed */
  CHECK_EQ_INT(resolve(r, NULL, "/nowhere", &res), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_result_route_id(res), 0);
  ilk_result_free(res);
  CHECK_EQ_INT(resolve(r, "POST", "myapp://item/7", &res), ILK_METHOD_NOT_ALLOWED);
  CHECK_EQ_INT(ilk_result_allowed_count(res), 1);
  CHECK_EQ_STR(ilk_result_allowed_at(res, 0), "GET");
  CHECK(ilk_result_allowed_at(res, 1) == NULL);
  ilk_result_free(res);

  CHECK_EQ_INT(ilk_router_set_default(NULL, default_destination, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_set_default(r, default_destination, (void *)5, count_free), ILK_OK);
  CHECK_EQ_INT(ilk_router_set_default(r, default_destination, (void *)6, count_free), ILK_OK);
  CHECK_EQ_INT(frees[5], 1); /* replaced: freed at once */
  CHECK_EQ_INT(resolve(r, NULL, "/no/./where/..", &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 404);
  body = ilk_result_body(res, &len);
  CHECK(len == 3 && memcmp(body, "/no", 3) == 0);
  ilk_result_free(res);

  /* bad arguments and URIs: no result */
  res = (ilk_result *)&len;
  CHECK_EQ_INT(resolve(r, NULL, "/a%4", &res), ILK_EURI);
  CHECK(res == NULL);
  CHECK_EQ_INT(ilk_erroffset(), 2);
  CHECK_EQ_INT(ilk_router_resolve(NULL, NULL, "/a", 2, &res), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_resolve(r, NULL, NULL, 2, &res), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_resolve(r, NULL, "/a", SIZE_MAX, &res), ILK_EINVAL);
  CHECK(res == NULL);
  CHECK_EQ_INT(ilk_router_resolve(r, NULL, "/a", 2, NULL), ILK_EINVAL);

  CHECK_EQ_INT(frees[2] + frees[3] + frees[4] + frees[6], 0);
  ilk_router_free(r);
  CHECK_EQ_INT(frees[2], 1);
  CHECK_EQ_INT(frees[3], 1);
  CHECK_EQ_INT(frees[4], 1);
  CHECK_EQ_INT(frees[5], 1);
  CHECK_EQ_INT(frees[6], 1);
}

static int headers_destination(const ilk_request *req, ilk_response *res, void *userdata) {
  const char *name, *value;
  (void)userdata;
  ilk_response_add_header(res, "A", "1");
  ilk_response_add_header(res, "B", "2");
  if (ilk_response_header_count(res) != 2 || ilk_response_header_at(res, 1, &name, &value) != ILK_OK ||
      strcmp(name, "B") || strcmp(value, "2") || ilk_response_header_at(res, 2, &name, &value) != ILK_EINVAL) return -1;
  ilk_response_clear_headers(res);
  ilk_response_add_header(res, "C", ilk_request_metadata_count(req) == 0 ? "no-metadata" : "metadata");
  {
    /* "1uri\0" "1GET\0" "0\0" (scheme) ... then the lists. */
    const char *data;
    size_t len;
    static const char expected[] = "1/u/1?k=v\0" "1GET\0" "0\0" "0\0" "0\0" "1/u/1\0" "0\0" "1GET /u/:id\0" "11\0"
                                   "1\0" "id\0" "1\0" "1\0" "k\0" "v\0" "0\0";
    if (ilk_request_packed(req, &data, &len) != ILK_OK || len != sizeof expected - 1 || memcmp(data, expected, len) != 0) return -2;
    if (ilk_request_packed(NULL, &data, &len) != ILK_EINVAL || ilk_request_packed(req, NULL, &len) != ILK_EINVAL) return -3;
  }
  return ILK_OK;
}

/* A callback that replaces itself while it runs (callbacks may change the router) must keep its
 * userdata until it returns: the replaced userdata is freed once nothing runs it. */
static ilk_router *replacing_router;
static int freed_while_running;

static int self_replacing_default(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)req;
  ilk_router_set_default(replacing_router, default_destination, (void *)10, count_free);
  if (frees[(int)(size_t)userdata] != 0) freed_while_running++;
  ilk_response_set_status(res, 299);
  return 0;
}

static int self_replacing_guard(const ilk_request *req, void *userdata) {
  ilk_router_set_guard(replacing_router, ilk_request_route_id(req), NULL, NULL, NULL);
  if (frees[(int)(size_t)userdata] != 0) freed_while_running++;
  return 1;
}

static void test_replacing_a_running_callback(void) {
  ilk_router *r;
  ilk_result *res;
  uint32_t id;
  memset(frees, 0, sizeof frees);
  ilk_router_new(&r, 0);
  replacing_router = r;
  CHECK_EQ_INT(ilk_router_add_route(r, "/guarded", echo_destination, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_router_set_guard(r, id, self_replacing_guard, (void *)11, count_free), ILK_OK);
  CHECK_EQ_INT(ilk_router_set_default(r, self_replacing_default, (void *)9, count_free), ILK_OK);
  CHECK_EQ_INT(resolve(r, NULL, "/nowhere", &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 299);
  ilk_result_free(res);
  CHECK_EQ_INT(resolve(r, NULL, "/guarded", &res), ILK_OK);
  ilk_result_free(res);
  CHECK_EQ_INT(freed_while_running, 0);
  CHECK_EQ_INT(frees[9], 1);      /* freed once its resolve ended */
  CHECK_EQ_INT(frees[11], 1);
  CHECK_EQ_INT(frees[10], 0);     /* the default now */
  CHECK_EQ_INT(resolve(r, NULL, "/nowhere", &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 404);
  ilk_result_free(res);
  ilk_router_free(r);
  CHECK_EQ_INT(frees[9], 1);
  CHECK_EQ_INT(frees[10], 1);
  CHECK_EQ_INT(frees[11], 1);
}

static void test_names_headers_and_batches(void) {
  ilk_router *r;
  ilk_match_batch *b;
  ilk_result *res;
  uint32_t id;
  const char *name, *text;
  const int32_t *statuses;
  const uint32_t *ids;
  const size_t *offsets;
  size_t len;
  static const char uris[] = "/u/1\0/nothing\0/u/%zz\0/u/caf%C3%A9";  /* the literal adds the last NUL */
  size_t uris_len = sizeof uris;
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_add_named_route(r, "GET /u/:id", "user", headers_destination, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_router_route_name(r, id, &name), ILK_OK);
  CHECK_EQ_STR(name, "user");
  CHECK_EQ_INT(ilk_router_add_route(r, "/other", NULL, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_router_route_name(r, id, &name), ILK_OK);
  CHECK(name == NULL);
  CHECK_EQ_INT(ilk_router_route_name(r, 77, &name), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_route_name(NULL, 1, &name), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_resolve(r, "GET", "/u/1?k=v", 8, &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_header_count(res), 1);
  CHECK_EQ_INT(ilk_result_header_at(res, 0, &name, &text), ILK_OK);
  CHECK_EQ_STR(name, "C");
  CHECK_EQ_STR(text, "no-metadata");
  CHECK_EQ_INT(ilk_request_metadata_count(ilk_result_request(res)), 0);
  CHECK_EQ_INT(ilk_request_metadata_at(ilk_result_request(res), 0, &name, &text), ILK_EINVAL);
  {
    /* Status, no error, one header, the trace (match and destination), no redirects, no allowed
     * methods, then the request as ilk_request_packed writes it. */
    static const char expected[] = "200\0" "0\0" "1\0" "C\0" "no-metadata\0"
                                   "2\0" "match\0" "/u/1?k=v\0" "user\0" "destination\0" "user\0" "ran\0"
                                   "0\0" "0\0"
                                   "1/u/1?k=v\0" "1GET\0" "0\0" "0\0" "0\0" "1/u/1\0" "0\0" "1GET /u/:id\0" "11\0"
                                   "1\0" "id\0" "1\0" "1\0" "k\0" "v\0" "0\0";
    const char *data;
    CHECK_EQ_INT(ilk_result_packed(res, &data, &len), ILK_OK);
    CHECK_EQ_INT(len, sizeof expected - 1);
    CHECK(memcmp(data, expected, sizeof expected - 1) == 0);
    CHECK_EQ_INT(ilk_result_packed(NULL, &data, &len), ILK_EINVAL);
    CHECK_EQ_INT(ilk_result_packed(res, NULL, &len), ILK_EINVAL);
  }
  ilk_result_free(res);
  CHECK_EQ_INT(ilk_response_header_count(NULL), 0);
  CHECK_EQ_INT(ilk_response_header_at(NULL, 0, &name, &text), ILK_EINVAL);
  CHECK_EQ_INT(ilk_response_clear_headers(NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_request_metadata_count(NULL), 0);

  CHECK_EQ_INT(ilk_match_batch_new(NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_match_batch_new(&b), ILK_OK);
  {
    size_t needed = 0, zero = 1;                          /* a batch that holds nothing yet */
    CHECK_EQ_INT(ilk_match_batch_copy(b, &zero, sizeof zero, &needed), ILK_OK);
    CHECK_EQ_INT(needed, 8);
    CHECK_EQ_INT(zero, 0);
  }
  CHECK_EQ_INT(ilk_router_match_many(r, "GET", uris, uris_len, b), ILK_OK);
  CHECK_EQ_INT(ilk_match_batch_count(b), 4);
  CHECK_EQ_INT(ilk_match_batch_arrays(b, &statuses, &ids, &offsets), ILK_OK);
  text = ilk_match_batch_text(b, &len);
  CHECK_EQ_INT(statuses[0], ILK_OK);
  CHECK_EQ_INT(ids[0], 1);
  CHECK(offsets[1] - offsets[0] == 5 && memcmp(text + offsets[0], "id\0" "1\0", 5) == 0);
  CHECK_EQ_INT(statuses[1], ILK_NOT_FOUND);
  CHECK_EQ_INT(ids[1], 0);
  CHECK_EQ_INT(offsets[2], offsets[1]);
  CHECK_EQ_INT(statuses[2], ILK_EURI);
  CHECK(strstr(text + offsets[2], "bad percent-escape") != NULL);
  CHECK_EQ_INT(statuses[3], ILK_OK);
  CHECK(memcmp(text + offsets[3], "id\0caf\xC3\xA9\0", 9) == 0);
  CHECK_EQ_INT(offsets[4], len);
  {
    /* The same answers copied into one buffer: statuses, route ids, offsets, then the text. */
    size_t needed = 0, want = 16 * 4 + 8 + len;
    union { char bytes[512]; size_t align; } out;
    memset(out.bytes, 0x5A, sizeof out.bytes);
    CHECK_EQ_INT(ilk_match_batch_copy(b, out.bytes, want - 1, &needed), ILK_ELIMIT);
    CHECK_EQ_INT(needed, want);
    CHECK((unsigned char)out.bytes[0] == 0x5A);                                   /* nothing written */
    CHECK(strstr(ilk_errmsg(), "needs") != NULL);
    CHECK_EQ_INT(ilk_match_batch_copy(b, NULL, want, &needed), ILK_EINVAL);
    CHECK_EQ_INT(ilk_match_batch_copy(NULL, out.bytes, sizeof out.bytes, &needed), ILK_EINVAL);
    CHECK_EQ_INT(needed, 0);
    CHECK_EQ_INT(ilk_match_batch_copy(b, out.bytes, sizeof out.bytes, NULL), ILK_OK);
    CHECK(memcmp(out.bytes, statuses, 4 * 4) == 0);
    CHECK(memcmp(out.bytes + 16, ids, 4 * 4) == 0);
    CHECK(memcmp(out.bytes + 32, offsets, 8 * 5) == 0);
    CHECK(memcmp(out.bytes + 72, text, len) == 0);
    CHECK((unsigned char)out.bytes[72 + len] == 0x5A);                          /* no more than that */
  }
  CHECK_EQ_INT(ilk_router_match_many(r, "G T", uris, uris_len, b), ILK_EINVAL);
  /* ... even when no URI gets as far as a lookup (found by the uri fuzz target: every URI
   * malformed gave ILK_OK and a batch of ILK_EURI answers). */
  CHECK_EQ_INT(ilk_router_match_many(r, "G T", "/\xff", 3, b), ILK_EINVAL);
  CHECK_EQ_INT(ilk_erroffset(), 1);
  CHECK_EQ_INT(ilk_match_batch_count(b), 0);
  CHECK_EQ_INT(ilk_router_match_many(r, "", "/\xff", 3, b), ILK_OK);   /* "": any method */
  {
    ilk_match_batch_view none;
    CHECK_EQ_INT(ilk_router_match_requests(r, "G T", 4, "/\xff", 3, b, &none), ILK_EINVAL);
    CHECK(strstr(ilk_errmsg(), "invalid character in method") != NULL);
    CHECK_EQ_INT(ilk_match_batch_count(b), 0);
  }
  CHECK_EQ_INT(ilk_router_match_many(r, NULL, NULL, uris_len, b), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match_many(r, NULL, uris, uris_len - 1, b), ILK_EINVAL);  /* no final NUL */
  CHECK(strstr(ilk_errmsg(), "NUL") != NULL);
  CHECK_EQ_INT(ilk_router_match_many(r, NULL, "\0", 1, b), ILK_OK);               /* one empty URI */
  CHECK_EQ_INT(ilk_match_batch_count(b), 1);
  CHECK_EQ_INT(ilk_router_match_many(r, NULL, uris, 0, b), ILK_OK);
  CHECK_EQ_INT(ilk_match_batch_count(b), 0);
  {
    size_t needed = 0, zero = 1;
    CHECK_EQ_INT(ilk_match_batch_copy(b, &zero, sizeof zero, &needed), ILK_OK);   /* offsets[0] alone */
    CHECK_EQ_INT(needed, 8);
    CHECK_EQ_INT(zero, 0);
  }
  CHECK_EQ_INT(ilk_router_match_many(NULL, NULL, uris, uris_len, b), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match_many(r, NULL, uris, uris_len, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_match_batch_count(NULL), 0);
  CHECK_EQ_INT(ilk_match_batch_arrays(NULL, &statuses, &ids, &offsets), ILK_EINVAL);
  CHECK(ilk_match_batch_text(NULL, &len) == NULL);
  {
    /* A batch whose answers' text outgrows the first buffer: every value still reads back. */
    enum { COUNT = 500 };
    static char many[COUNT * 40];
    size_t at = 0;
    int all = 1;
    for (int i = 0; i < COUNT; i++) at += (size_t)sprintf(many + at, "/u/value-%030d", i) + 1;
    CHECK_EQ_INT(ilk_router_match_many(r, "GET", many, at, b), ILK_OK);
    CHECK_EQ_INT(ilk_match_batch_count(b), COUNT);
    CHECK_EQ_INT(ilk_match_batch_arrays(b, &statuses, &ids, &offsets), ILK_OK);
    text = ilk_match_batch_text(b, &len);
    CHECK(len > 8192);
    for (int i = 0; i < COUNT; i++) {
      char want[48];
      sprintf(want, "value-%030d", i);
      all &= statuses[i] == ILK_OK && strcmp(text + offsets[i], "id") == 0 && strcmp(text + offsets[i] + 3, want) == 0;
    }
    CHECK(all);
  }
  ilk_match_batch_free(b);
  ilk_match_batch_free(NULL);
  ilk_router_free(r);
}

/* Batches of requests, each a method and a URI (ilk_router_match_requests): one method for all,
 * one per URI, any; the view of the answers; every way the methods can be wrong. */
static void test_batches_of_requests(void) {
  ilk_router *r;
  ilk_match_batch *b;
  ilk_match_batch_view view;
  uint32_t id;
  const int32_t *statuses;
  const uint32_t *ids;
  const size_t *offsets;
  size_t len;
  const char *text;
  static const char uris[] = "/u/1\0/u/2\0/any\0/u/%zz\0/u/3";
  static const char methods[] = "GET\0POST\0\0GET\0DELETE";
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_add_route(r, "GET /u/:id", NULL, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "POST /u/:id", NULL, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "/any", NULL, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_match_batch_new(&b), ILK_OK);

  /* One method per URI, "" for any. */
  memset(&view, 0x5A, sizeof view);
  CHECK_EQ_INT(ilk_router_match_requests(r, methods, sizeof methods, uris, sizeof uris, b, &view), ILK_OK);
  CHECK_EQ_INT(view.count, 5);
  CHECK_EQ_INT(ilk_match_batch_count(b), 5);
  CHECK_EQ_INT(view.first_error, 3);
  CHECK_EQ_INT(ilk_match_batch_arrays(b, &statuses, &ids, &offsets), ILK_OK);
  text = ilk_match_batch_text(b, &len);
  CHECK(statuses[0] == ILK_OK && ids[0] == 1 && memcmp(text + offsets[0], "id\0" "1\0", 5) == 0);
  CHECK(statuses[1] == ILK_OK && ids[1] == 2 && memcmp(text + offsets[1], "id\0" "2\0", 5) == 0);
  CHECK(statuses[2] == ILK_OK && ids[2] == 3 && offsets[3] == offsets[2]);
  CHECK(statuses[3] == ILK_EURI && strstr(text + offsets[3], "bad percent-escape") != NULL);
  CHECK(statuses[4] == ILK_METHOD_NOT_ALLOWED && ids[4] == 0);
  {
    /* The view is the batch as ilk_match_batch_copy writes it. */
    size_t needed = 0;
    union { char bytes[512]; size_t align; } out;
    CHECK_EQ_INT(ilk_match_batch_copy(b, out.bytes, sizeof out.bytes, &needed), ILK_OK);
    CHECK_EQ_INT(view.size, needed);
    CHECK_EQ_INT(view.size, 16 * 5 + 8 + len);
    CHECK(view.data != NULL && memcmp(view.data, out.bytes, needed) == 0);
  }

  /* One method for every URI; none (NULL, or an empty methods buffer, or ""): any method. */
  CHECK_EQ_INT(ilk_router_match_requests(r, "POST", 5, uris, sizeof uris, b, &view), ILK_OK);
  CHECK_EQ_INT(ilk_match_batch_arrays(b, &statuses, &ids, &offsets), ILK_OK);
  CHECK(ids[0] == 2 && ids[1] == 2 && statuses[2] == ILK_OK && ids[4] == 2);
  CHECK_EQ_INT(view.first_error, 3);
  CHECK_EQ_INT(ilk_router_match_requests(r, NULL, 0, uris, sizeof uris, b, NULL), ILK_OK);
  CHECK_EQ_INT(ilk_match_batch_arrays(b, &statuses, &ids, &offsets), ILK_OK);
  CHECK(ids[0] == 1 && ids[1] == 1 && ids[2] == 3 && ids[4] == 1);
  CHECK_EQ_INT(ilk_router_match_requests(r, "", 1, "/u/1\0/any", 10, b, &view), ILK_OK);
  CHECK_EQ_INT(ilk_match_batch_arrays(b, &statuses, &ids, &offsets), ILK_OK);
  CHECK(view.count == 2 && view.first_error == 2 && ids[0] == 1 && ids[1] == 3);

  /* Methods that do not fit the URIs: an error naming both counts, and an empty batch. */
  CHECK_EQ_INT(ilk_router_match_requests(r, "GET\0POST", 9, uris, sizeof uris, b, &view), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "2 entries for 5 URIs") != NULL);
  CHECK_EQ_INT(ilk_match_batch_count(b), 0);
  CHECK_EQ_INT(ilk_router_match_requests(r, "GET\0GET\0GET\0GET\0GET\0GET", 24, uris, sizeof uris, b, &view),
               ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "6 entries for 5 URIs") != NULL);
  CHECK_EQ_INT(ilk_match_batch_count(b), 0);
  /* A malformed method: named by its index. */
  CHECK_EQ_INT(ilk_router_match_requests(r, "GET\0P T\0\0GET\0GET", 17, uris, sizeof uris, b, &view), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "method 1") != NULL);
  CHECK_EQ_INT(ilk_match_batch_count(b), 0);
  /* Buffers without their last NUL, NULL arguments. */
  CHECK_EQ_INT(ilk_router_match_requests(r, methods, sizeof methods - 1, uris, sizeof uris, b, &view), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "methods does not end with a NUL") != NULL);
  CHECK_EQ_INT(ilk_router_match_requests(r, methods, sizeof methods, uris, sizeof uris - 1, b, &view), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match_requests(r, NULL, 4, uris, sizeof uris, b, &view), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match_requests(r, NULL, 0, NULL, 3, b, &view), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match_requests(NULL, NULL, 0, uris, sizeof uris, b, &view), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_match_requests(r, NULL, 0, uris, sizeof uris, NULL, &view), ILK_EINVAL);
  /* No URIs and no methods: an empty batch. */
  CHECK_EQ_INT(ilk_router_match_requests(r, NULL, 0, NULL, 0, b, &view), ILK_OK);
  CHECK(view.count == 0 && view.first_error == 0 && view.size == 8);
  {
    /* A batch that outgrows its first buffer, each URI under its own method: the view still
     * holds every answer where the header says. */
    enum { COUNT = 400 };
    static char many[COUNT * 40], each[COUNT * 5];
    size_t at = 0, mat = 0;
    int all = 1;
    for (int i = 0; i < COUNT; i++) {
      at += (size_t)sprintf(many + at, "/u/value-%030d", i) + 1;
      mat += (size_t)sprintf(each + mat, "%s", i % 2 ? "POST" : "GET") + 1;
    }
    CHECK_EQ_INT(ilk_router_match_requests(r, each, mat, many, at, b, &view), ILK_OK);
    CHECK(view.count == COUNT && view.first_error == COUNT && view.size > 8192);
    statuses = view.data;
    ids = (const uint32_t *)((const char *)view.data + 4 * COUNT);
    offsets = (const size_t *)((const char *)view.data + 8 * COUNT);
    text = (const char *)view.data + 16 * COUNT + 8;
    for (int i = 0; i < COUNT; i++) {
      char want[48];
      sprintf(want, "value-%030d", i);
      all &= statuses[i] == ILK_OK && ids[i] == (uint32_t)(i % 2 ? 2 : 1) && strcmp(text + offsets[i], "id") == 0 &&
             strcmp(text + offsets[i] + 3, want) == 0;
    }
    CHECK(all);
    CHECK_EQ_INT(view.size, 16 * COUNT + 8 + offsets[COUNT]);
  }
  ilk_match_batch_free(b);
  ilk_router_free(r);
}

/* The method a resolve reports is the one given, byte for byte: the common ones and others,
 * prefixes and extensions of common ones included. */
static void test_resolve_methods(void) {
  static const char *methods[] = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS",
                                  "PURGE", "GE", "GETS", "OPTIONSX", "get", "M-SEARCH", "OPTIONSXYZ"};
  ilk_router *r;
  ilk_result *res;
  uint32_t id;
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_add_route(r, "/any", NULL, NULL, NULL, &id), ILK_OK);
  for (size_t i = 0; i < sizeof methods / sizeof *methods; i++) {
    CHECK_EQ_INT(resolve(r, methods[i], "/any", &res), ILK_OK);
    CHECK_EQ_STR(ilk_request_method(ilk_result_request(res)), methods[i]);
    ilk_result_free(res);
  }
  CHECK_EQ_INT(resolve(r, NULL, "/any", &res), ILK_OK);
  CHECK(ilk_request_method(ilk_result_request(res)) == NULL);
  ilk_result_free(res);
  ilk_router_free(r);
}

static int status_from_userdata(const ilk_request *req, ilk_response *res, void *u) {
  (void)req;
  return ilk_response_set_status(res, (int)(intptr_t)u);
}

/* ilk_result_packed writes numbers in decimal: statuses of every length a valid one has (three
 * digits, at both ends of 100...599), route ids past nine. */
static void test_packed_numbers(void) {
  static const int statuses[] = {100, 101, 200, 404, 503, 599};
  static const char *texts[] = {"100", "101", "200", "404", "503", "599"};
  ilk_router *r;
  ilk_result *res;
  uint32_t id = 0;
  char pattern[32], uri[32];
  ilk_router_new(&r, 0);
  for (int i = 0; i < 6; i++) {
    for (int k = 0; k < 3; k++) {   /* ids 1, 2, 3 for the first status, and so on up to 18 */
      snprintf(pattern, sizeof pattern, "/s%d/k%d", i, k);
      CHECK_EQ_INT(ilk_router_add_route(r, pattern, status_from_userdata, (void *)(intptr_t)statuses[i], NULL, &id), ILK_OK);
    }
  }
  for (int i = 0; i < 6; i++) {
    const char *data;
    size_t len;
    char want[16];
    snprintf(uri, sizeof uri, "/s%d/k2", i);
    CHECK_EQ_INT(resolve(r, NULL, uri, &res), ILK_OK);
    CHECK_EQ_INT(ilk_result_packed(res, &data, &len), ILK_OK);
    CHECK_EQ_STR(data, texts[i]);                          /* the status is the first field */
    snprintf(want, sizeof want, "1%d", 3 * i + 3);         /* the route id is the last field but the lists */
    int found = 0;
    for (size_t at = 0; at < len; at += strlen(data + at) + 1) found |= strcmp(data + at, want) == 0;
    CHECK(found);
    ilk_result_free(res);
  }
  ilk_router_free(r);
}

/* A body with a NUL byte inside, which only a length can carry. */
static int binary_destination(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)req; (void)userdata;
  ilk_response_add_header(res, "X", "y");
  return ilk_response_set_body(res, "a\0b", 3);
}

/* ilk_response_copy from a response interceptor: the text, then the body, as set before it. */
static int copy_checked;
static int copying_interceptor(ilk_request *req, ilk_response *res, void *userdata) {
  static const char text[] = "418\0" "1\0" "X\0" "y\0";
  unsigned char buffer[64];
  size_t needed = 0;
  uint64_t len;
  (void)req; (void)userdata;
  ilk_response_set_status(res, 418);
  if (ilk_response_copy(res, NULL, 0, &needed) != ILK_ELIMIT || needed != 8 + sizeof text - 1 + 3) return -1;
  if (ilk_response_copy(res, buffer, needed - 1, NULL) != ILK_ELIMIT) return -1;
  if (ilk_response_copy(res, buffer + 1, needed, &needed) != ILK_OK) return -1;
  memcpy(&len, buffer + 1, 8);
  if (len != sizeof text - 1 || memcmp(buffer + 9, text, len) != 0 || memcmp(buffer + 9 + len, "a\0b", 3) != 0) return -1;
  if (ilk_response_copy(NULL, buffer, sizeof buffer, &needed) != ILK_EINVAL || needed != 0) return -1;
  if (ilk_response_copy(res, NULL, sizeof buffer, &needed) != ILK_EINVAL) return -1;
  copy_checked = 1;
  return ILK_CONTINUE;
}

static void test_result_copy(void) {
  ilk_router *r;
  ilk_result *res;
  uint32_t id;
  const char *text;
  size_t text_len, needed = 99;
  unsigned char buffer[1024];
  uint64_t copied_len;
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_add_route(r, "GET /b/:id", binary_destination, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_router_resolve(r, "GET", "/b/7?q=1", 8, &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_packed(res, &text, &text_len), ILK_OK);
  /* Asking with no room says the size and writes nothing. */
  CHECK_EQ_INT(ilk_result_copy(res, NULL, 0, &needed), ILK_ELIMIT);
  CHECK_EQ_INT(needed, 8 + text_len + 3);
  CHECK(needed + 1 < sizeof buffer);
  memset(buffer, 0xAA, sizeof buffer);
  CHECK_EQ_INT(ilk_result_copy(res, buffer, needed - 1, &needed), ILK_ELIMIT);
  CHECK(buffer[0] == 0xAA && buffer[needed - 2] == 0xAA);
  /* At an odd address (no alignment needed): the text's length, the text, then the body. */
  CHECK_EQ_INT(ilk_result_copy(res, buffer + 1, needed, &needed), ILK_OK);
  CHECK(buffer[0] == 0xAA && buffer[needed + 1] == 0xAA);
  memcpy(&copied_len, buffer + 1, 8);
  CHECK_EQ_INT(copied_len, text_len);
  CHECK(memcmp(buffer + 9, text, text_len) == 0);
  CHECK(memcmp(buffer + 9 + text_len, "a\0b", 3) == 0);
  /* The same again (the text is made once), and with no size asked for. */
  memset(buffer, 0, sizeof buffer);
  CHECK_EQ_INT(ilk_result_copy(res, buffer, sizeof buffer, NULL), ILK_OK);
  CHECK(memcmp(buffer + 8, text, text_len) == 0);
  CHECK_EQ_INT(ilk_result_copy(res, NULL, sizeof buffer, &needed), ILK_EINVAL);
  CHECK_EQ_INT(ilk_result_copy(NULL, buffer, sizeof buffer, &needed), ILK_EINVAL);
  CHECK_EQ_INT(needed, 0);
  ilk_result_free(res);
  {
    ilk_interceptor *i;
    CHECK_EQ_INT(ilk_interceptor_new_response(&i, "copy", copying_interceptor, NULL, NULL), ILK_OK);
    CHECK_EQ_INT(ilk_router_add_interceptor(r, i, 0), ILK_OK);
    ilk_interceptor_free(i);
    CHECK_EQ_INT(ilk_router_resolve(r, "GET", "/b/8", 4, &res), ILK_OK);
    CHECK(copy_checked);
    CHECK_EQ_INT(ilk_result_response_status(res), 418);
    ilk_result_free(res);
  }
  /* A result with no body: the copy ends with the text. */
  CHECK_EQ_INT(ilk_router_resolve(r, "GET", "/nothing", 8, &res), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_result_packed(res, &text, &text_len), ILK_OK);
  CHECK_EQ_INT(ilk_result_copy(res, buffer, sizeof buffer, &needed), ILK_OK);
  CHECK_EQ_INT(needed, 8 + text_len);
  CHECK(memcmp(buffer + 8, text, text_len) == 0);
  ilk_result_free(res);
  ilk_router_free(r);
}

/* Routes removed and replaced, their ids found by name and in order, their data, compiling. */
/* Reads its route's data and a parameter: what the parameter lends (the request's own bytes) must
 * not keep the request, and with it the route's data, past the call (the data of a route removed
 * later is freed at once). */
static int data_destination(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)userdata;
  void *data = ilk_request_route_data(req);
  const char *name = NULL, *value = NULL;
  if (ilk_request_param_at(req, 0, &name, NULL, &value, NULL) != ILK_OK || strcmp(name, "x") != 0) return ILK_ABORT;
  return ilk_response_set_status(res, data ? 200 + (int)(size_t)data : 299);
}
static void test_changing_routes(void) {
  ilk_router *r;
  ilk_match *m;
  ilk_result *res;
  uint32_t a, b, c, id = 99;
  const char *text;
  memset(frees, 0, sizeof frees);
  ilk_router_new(&r, 0);
  ilk_match_new(&m);
  CHECK_EQ_INT(ilk_router_add_named_route(r, "GET /a/:x", "a", data_destination, (void *)12, count_free, &a), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_named_route(r, "GET /b/:x", "b", data_destination, (void *)13, count_free, &b), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "GET /c", NULL, NULL, NULL, &c), ILK_OK);
  CHECK_EQ_INT(ilk_router_compile(r), ILK_OK);

  /* names to ids, and every id in order */
  CHECK_EQ_INT(ilk_router_route_id(r, "b", &id), ILK_OK);
  CHECK_EQ_INT(id, b);
  CHECK_EQ_INT(ilk_router_route_id(r, "zz", &id), ILK_ENOROUTE);
  CHECK(strstr(ilk_errmsg(), "'zz'") != NULL);
  CHECK_EQ_INT(ilk_router_next_route(r, 0, &id), ILK_OK);
  CHECK_EQ_INT(id, a);
  CHECK_EQ_INT(ilk_router_next_route(r, a, &id), ILK_OK);
  CHECK_EQ_INT(id, b);

  /* data: read from a match and from a request; replaced data is freed, the new kept */
  CHECK_EQ_INT(ilk_router_set_route_data(r, a, (void *)14, count_free), ILK_OK);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/a/1", 4, m), ILK_OK);
  CHECK(ilk_match_route_data(m) == (void *)14);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/b/1", 4, m), ILK_OK);
  CHECK(ilk_match_route_data(m) == NULL);
  CHECK_EQ_INT(ilk_router_resolve(r, "GET", "/a/1", 4, &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 214);
  ilk_result_free(res);
  CHECK_EQ_INT(ilk_router_set_route_data(r, a, (void *)15, count_free), ILK_OK);
  CHECK_EQ_INT(frees[14], 1);
  CHECK_EQ_INT(ilk_router_set_route_data(r, 77, (void *)9, count_free), ILK_ENOROUTE);
  CHECK_EQ_INT(frees[9], 0);                                 /* refused: still the caller's */

  /* replace: same id, name, destination and data; the old pattern no longer matches */
  CHECK_EQ_INT(ilk_router_replace_route(r, a, "GET /alpha/:x"), ILK_OK);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/a/1", 4, m), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/alpha/1", 8, m), ILK_OK);
  CHECK_EQ_INT(ilk_match_route_id(m), a);
  CHECK(ilk_match_route_data(m) == (void *)15);
  CHECK_EQ_INT(ilk_router_route_pattern(r, a, &text), ILK_OK);
  CHECK_EQ_STR(text, "GET /alpha/:x");
  CHECK_EQ_INT(ilk_router_route_id(r, "a", &id), ILK_OK);
  CHECK_EQ_INT(id, a);
  CHECK_EQ_INT(ilk_router_resolve(r, "GET", "/alpha/1", 8, &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 215);
  ilk_result_free(res);
  /* a replacement that conflicts, or is malformed, leaves the route as it was */
  CHECK_EQ_INT(ilk_router_replace_route(r, a, "GET /b/:y"), ILK_ECONFLICT);
  CHECK(strstr(ilk_errmsg(), "/b/:x") != NULL);
  CHECK_EQ_INT(ilk_router_replace_route(r, a, "GET /al//x"), ILK_EPATTERN);
  CHECK_EQ_INT(ilk_erroffset(), 8);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/alpha/1", 8, m), ILK_OK);
  /* its own shape under a new method is no conflict with itself */
  CHECK_EQ_INT(ilk_router_replace_route(r, a, "PUT /alpha/:x"), ILK_OK);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/alpha/1", 8, m), ILK_METHOD_NOT_ALLOWED);

  /* remove: gone from lookups, iteration and names; userdata and data freed; its id names no route */
  CHECK_EQ_INT(ilk_router_remove_route(r, a), ILK_OK);
  CHECK_EQ_INT(frees[12], 1);
  CHECK_EQ_INT(frees[15], 1);
  CHECK_EQ_INT(ilk_router_match(r, "PUT", "/alpha/1", 8, m), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_router_route_count(r), 2);
  CHECK_EQ_INT(ilk_router_next_route(r, 0, &id), ILK_OK);
  CHECK_EQ_INT(id, b);
  CHECK_EQ_INT(ilk_router_next_route(r, c, &id), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_router_route_id(r, "a", &id), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_remove_route(r, a), ILK_ENOROUTE);
  CHECK(strstr(ilk_errmsg(), "route 1 was removed") != NULL);
  CHECK_EQ_INT(ilk_router_replace_route(r, a, "/x"), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_route_pattern(r, a, &text), ILK_ENOROUTE);
  CHECK(strstr(ilk_errmsg(), "route 1 was removed") != NULL);
  CHECK_EQ_INT(ilk_router_route_name(r, a, &text), ILK_ENOROUTE);
  CHECK(strstr(ilk_errmsg(), "route 1 was removed") != NULL);
  CHECK_EQ_INT(ilk_router_remove_route(r, 1000), ILK_ENOROUTE);
  CHECK(strstr(ilk_errmsg(), "no route has id 1000") != NULL);
  CHECK_EQ_INT(ilk_router_add_named_route(r, "GET /a/:x", "a", NULL, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(id, 4);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/a/1", 4, m), ILK_OK);
  CHECK_EQ_INT(ilk_match_route_id(m), 4);
  CHECK_EQ_INT(ilk_router_remove_route(r, c), ILK_OK);          /* the last all-literal route */
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/c", 2, m), ILK_NOT_FOUND);

  /* NULL arguments */
  CHECK_EQ_INT(ilk_router_remove_route(NULL, 1), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_replace_route(NULL, 1, "/x"), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_replace_route(r, b, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_route_id(NULL, "a", &id), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_route_id(r, NULL, &id), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_route_id(r, "a", NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_next_route(NULL, 0, &id), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_next_route(r, 0, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_set_route_data(NULL, 1, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_compile(NULL), ILK_EINVAL);
  CHECK(ilk_match_route_data(NULL) == NULL);
  CHECK(ilk_request_route_data(NULL) == NULL);

  ilk_match_free(m);
  ilk_router_free(r);
  CHECK_EQ_INT(frees[13], 1);
  CHECK_EQ_INT(frees[12] + frees[14] + frees[15], 3);      /* each once */
}

/* A route file loaded in one call: names, data as strings, destinations bound by name, all or
 * nothing, errors placed by line and column. */
static int file_destination(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)req;
  return ilk_response_set_status(res, 200 + (int)(size_t)userdata);
}
static int refusing_guard(const ilk_request *req, void *userdata) {
  (void)req;
  (void)userdata;
  return 0;
}

/* A removed route's slot is reused (once more than 4,096 slots are free) under another id: the
 * removed route's id names no route at any function that takes one, and a table that changes
 * forever stays the size of the most routes it held at once plus that reserve. */
static void test_slots_reused(void) {
  enum { HELD = 4098 };
  ilk_router *r;
  ilk_match *m;
  ilk_result *res;
  ilk_interceptor *i;
  uint32_t ids[HELD], d, id, most = 0;
  const char *text;
  char pattern[32];
  int k;
  memset(frees, 0, sizeof frees);
  ilk_router_new(&r, 0);
  ilk_match_new(&m);
  CHECK_EQ_INT(ilk_router_add_named_route(r, "GET /a", "a", data_destination, (void *)2, count_free, &ids[0]), ILK_OK);
  CHECK_EQ_INT(ids[0], 1);
  for (k = 1; k < HELD; k++) {
    snprintf(pattern, sizeof pattern, "/r%d", k);
    CHECK_EQ_INT(ilk_router_add_route(r, pattern, NULL, NULL, NULL, &ids[k]), ILK_OK);
    CHECK_EQ_INT(ids[k], (uint32_t)k + 1);     /* 1, 2, 3, ... while no route was removed */
  }
  for (k = 0; k < HELD; k++) CHECK_EQ_INT(ilk_router_remove_route(r, ids[k]), ILK_OK);
  CHECK_EQ_INT(frees[2], 1);
  /* More than 4,096 slots free: the one freed first (route 1's) is reused, one generation on. */
  CHECK_EQ_INT(ilk_router_add_named_route(r, "GET /d/:x", "d", data_destination, (void *)3, count_free, &d), ILK_OK);
  CHECK_EQ_INT(d, (1u << 22) + 1);
  CHECK_EQ_INT(ilk_router_set_route_data(r, d, (void *)4, count_free), ILK_OK);

  /* Route 1's id names no route, at every function that takes an id. */
  CHECK_EQ_INT(ilk_router_route_name(r, 1, &text), ILK_ENOROUTE);
  CHECK(strstr(ilk_errmsg(), "route 1 was removed") != NULL);
  CHECK_EQ_INT(ilk_router_route_pattern(r, 1, &text), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_remove_route(r, 1), ILK_ENOROUTE);
  CHECK(strstr(ilk_errmsg(), "route 1 was removed") != NULL);
  CHECK_EQ_INT(ilk_router_replace_route(r, 1, "/x"), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_set_route_data(r, 1, (void *)5, count_free), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_set_destination(r, 1, data_destination, (void *)6, count_free), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_set_guard(r, 1, refusing_guard, (void *)7, count_free), ILK_ENOROUTE);
  CHECK(strstr(ilk_errmsg(), "route 1 was removed") != NULL);
  CHECK_EQ_INT(ilk_interceptor_new_response(&i, "copy", copying_interceptor, NULL, NULL), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_interceptor(r, i, 1), ILK_ENOROUTE);
  ilk_interceptor_free(i);
  CHECK(ilk_router_route_value(r, 1, "k") == NULL);
  CHECK_EQ_INT(frees[5] + frees[6] + frees[7], 0);            /* refused: still the caller's */
  /* ... and the new route is untouched: its name, pattern, data and destination */
  CHECK_EQ_INT(ilk_router_route_id(r, "d", &id), ILK_OK);
  CHECK_EQ_INT(id, d);
  CHECK_EQ_INT(ilk_router_route_pattern(r, d, &text), ILK_OK);
  CHECK_EQ_STR(text, "GET /d/:x");
  CHECK_EQ_INT(ilk_router_next_route(r, 0, &id), ILK_OK);
  CHECK_EQ_INT(id, d);
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/d/1", 4, m), ILK_OK);
  CHECK_EQ_INT(ilk_match_route_id(m), d);
  CHECK(ilk_match_route_data(m) == (void *)4);
  CHECK_EQ_INT(ilk_router_resolve(r, "GET", "/d/1", 4, &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 204);
  CHECK_EQ_INT(ilk_result_route_id(res), d);
  ilk_result_free(res);

  /* 100,000 more additions, each removed again: the slots stay those of the most routes held at
   * once (4,098) plus the reserve, and never a refusal (ids once ran out at 4,194,304 additions). */
  for (k = 0; k < 100000; k++) {
    CHECK_EQ_INT(ilk_router_add_route(r, (k & 1) ? "/churn/:x" : "/churn", NULL, NULL, NULL, &id), ILK_OK);
    if (((id - 1) & 0x3FFFFF) > most) most = (id - 1) & 0x3FFFFF;
    CHECK_EQ_INT(ilk_router_remove_route(r, id), ILK_OK);
  }
  CHECK(most < HELD + 4096 + 1);
  CHECK_EQ_INT(ilk_router_route_count(r), 1);
  /* A load's ids, in reused slots, are read back with ilk_router_load_ids (they were the next
   * `count` ids after the last one given, which Python's load assumed). */
  {
    static const char three[] = "/l1\n/l2 name=l2\n/l3\n";
    uint32_t got[4] = {0, 0, 0, 0};
    size_t n = 9;
    const char *want[] = {"/l1", "/l2", "/l3"};
    CHECK_EQ_INT(ilk_router_load_ids(r, three, strlen(three), got, 2, &n), ILK_ELIMIT);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(ilk_router_route_count(r), 1);                /* nothing added */
    CHECK_EQ_INT(ilk_router_load_ids(r, three, strlen(three), NULL, 4, &n), ILK_EINVAL);
    CHECK_EQ_INT(ilk_router_load_ids(r, three, strlen(three), got, 4, &n), ILK_OK);
    CHECK_EQ_INT(n, 3);
    /* the first in a reused slot (4,097 free, more than the reserve), the others in new ones */
    CHECK(got[0] > (1u << 22));
    CHECK_EQ_INT(got[1], HELD + 1);
    CHECK_EQ_INT(got[2], HELD + 2);
    for (k = 0; k < 3; k++) {
      CHECK_EQ_INT(ilk_router_route_pattern(r, got[k], &text), ILK_OK);
      CHECK_EQ_STR(text, want[k]);
    }
    CHECK_EQ_INT(ilk_router_route_id(r, "l2", &id), ILK_OK);
    CHECK_EQ_INT(id, got[1]);
    CHECK_EQ_INT(ilk_router_load_ids(r, NULL, 0, NULL, 0, &n), ILK_OK);
    CHECK_EQ_INT(n, 0);
  }
  CHECK_EQ_INT(ilk_router_match(r, "GET", "/d/1", 4, m), ILK_OK);
  CHECK_EQ_INT(ilk_match_route_id(m), d);

  ilk_match_free(m);
  ilk_router_free(r);
  CHECK_EQ_INT(frees[3], 1);
  CHECK_EQ_INT(frees[4], 1);
}

static void test_route_files(void) {
  static const char file[] = "# deep links\n"
                             "GET /users/:id   name=user owner=accounts\n"
                             "myapp://settings name=settings\n"
                             "\n";
  ilk_router *r;
  ilk_result *res;
  size_t count = 99;
  uint32_t id = 0;
  memset(frees, 0, sizeof frees);
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_load(r, file, strlen(file), &count), ILK_OK);
  CHECK_EQ_INT(count, 2);
  CHECK_EQ_INT(ilk_router_route_id(r, "user", &id), ILK_OK);
  CHECK_EQ_STR(ilk_router_route_value(r, id, "owner"), "accounts");
  CHECK(ilk_router_route_value(r, id, "missing") == NULL);
  CHECK(ilk_router_route_value(r, 77, "owner") == NULL);
  CHECK_EQ_INT(ilk_router_set_destination(r, id, file_destination, (void *)1, count_free), ILK_OK);
  CHECK_EQ_INT(ilk_router_resolve(r, "GET", "/users/7", 8, &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 201);
  ilk_result_free(res);
  CHECK_EQ_INT(ilk_router_set_destination(r, id, file_destination, (void *)2, count_free), ILK_OK);
  CHECK_EQ_INT(frees[1], 1);                                 /* the replaced userdata */
  CHECK_EQ_INT(ilk_router_set_destination(r, 55, file_destination, (void *)3, count_free), ILK_ENOROUTE);
  CHECK_EQ_INT(frees[3], 0);
  /* a bad line: nothing added, the line and column named, the offset in the text */
  {
    static const char bad[] = "/ok\n/also//bad name=x\n";
    CHECK_EQ_INT(ilk_router_load(r, bad, strlen(bad), &count), ILK_EPATTERN);
    CHECK_EQ_INT(count, 0);
    CHECK(strncmp(ilk_errmsg(), "line 2, column 7: empty segment", 31) == 0);
    CHECK_EQ_INT(ilk_erroffset(), 10);
    CHECK_EQ_INT(ilk_router_route_count(r), 2);
    static const char binary[] = "/a\n/b\xff\n";
    CHECK_EQ_INT(ilk_router_load(r, binary, strlen(binary), &count), ILK_EPATTERN);
    CHECK(strstr(ilk_errmsg(), "line 2, column 3: bytes that are not UTF-8") != NULL);
    static const char dup[] = "/n1 name=user\n";
    CHECK_EQ_INT(ilk_router_load(r, dup, strlen(dup), NULL), ILK_ECONFLICT);    /* with no count too */
  }
  /* an explained match: the answer, and the routes tried with why */
  {
    char out[2048];
    size_t len = 0;
    CHECK_EQ_INT(ilk_router_explain(r, "GET", "/users/7", 8, out, 4, &len), ILK_ELIMIT);
    CHECK(len > 4);
    CHECK_EQ_INT(ilk_router_explain(r, "GET", "/users/7", 8, out, sizeof out, &len), ILK_OK);
    CHECK(strstr(out, "\"answer\":{\"route\":1,\"params\":{\"id\":\"7\"}}") != NULL);
    CHECK(strstr(out, "\"takes\":true") != NULL);
    CHECK_EQ_INT(strlen(out), len);
    CHECK_EQ_INT(ilk_router_explain(r, "PUT", "/users/7", 8, out, sizeof out, NULL), ILK_OK);
    CHECK(strstr(out, "\"status\":\"method not allowed\"") != NULL);
    CHECK_EQ_INT(ilk_router_explain(r, NULL, "/a%zz", 5, out, sizeof out, NULL), ILK_EURI);
    CHECK_EQ_INT(ilk_erroffset(), 2);
    CHECK_EQ_INT(ilk_router_explain(NULL, NULL, "/", 1, out, sizeof out, NULL), ILK_EINVAL);
    CHECK_EQ_INT(ilk_router_explain(r, NULL, NULL, 1, out, sizeof out, NULL), ILK_EINVAL);
  }
  CHECK_EQ_INT(ilk_router_load(NULL, file, 1, &count), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_load(r, NULL, 3, &count), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_load(r, NULL, 0, &count), ILK_OK);
  CHECK_EQ_INT(ilk_router_set_destination(NULL, id, file_destination, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_set_destination(r, id, NULL, NULL, NULL), ILK_EINVAL);
  CHECK(ilk_router_route_value(NULL, id, "owner") == NULL);
  CHECK(ilk_router_route_value(r, id, NULL) == NULL);
  ilk_router_free(r);
  CHECK_EQ_INT(frees[2], 1);
}

int main(void) {
  test_result_copy();
  test_resolve_methods();
  test_packed_numbers();
  test_names_headers_and_batches();
  test_batches_of_requests();
  test_version_and_errors();
  test_router_lifecycle();
  test_add_route();
  test_match();
  test_resolve();
  test_replacing_a_running_callback();
  test_changing_routes();
  test_slots_reused();
  test_route_files();
  return check_summary("test_abi");
}
