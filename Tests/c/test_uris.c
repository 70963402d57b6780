/* Every byte of a URI is checked, and every door answers alike: a control byte or a byte that is
 * not UTF-8 in the user info (which takes no part in routing) is ILK_EURI at ilk_router_match,
 * ilk_router_match_packed, both batch doors, ilk_router_resolve and ilk_router_explain, as it is
 * in the path; a host spelt otherwise (escapes, case, a trailing dot, an IPv6 literal written
 * long, an IPv4 address in a resolver's shorthand) is the same host at each door. */
#include "interlock.h"
#include "check.h"
#include <stdint.h>

struct bad { const char *uri; size_t len; size_t offset; const char *words; };

/* Each door refuses `b` with ILK_EURI, its offset and its words. */
static void refused_everywhere(ilk_router *r, ilk_match *m, ilk_match_batch *batch, const struct bad *b) {
  ilk_result *res = NULL;
  char out[4096];
  const int32_t *statuses;
  const size_t *offsets;
  size_t len;
  const char *text;
  char expected[256];
  CHECK_EQ_INT(ilk_router_match(r, NULL, b->uri, b->len, m), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), b->offset);
  CHECK(strstr(ilk_errmsg(), b->words) != NULL);
  CHECK_EQ_INT(ilk_router_match_packed(r, "GET", b->uri, b->len, m), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), b->offset);
  CHECK_EQ_INT(ilk_router_resolve(r, "GET", b->uri, b->len, &res), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), b->offset);
  CHECK(res == NULL);
  CHECK_EQ_INT(ilk_router_explain(r, NULL, b->uri, b->len, out, sizeof out, NULL), ILK_EURI);
  CHECK_EQ_INT(ilk_erroffset(), b->offset);
  CHECK(strstr(ilk_errmsg(), b->words) != NULL);
  /* The batches take URIs ended by NUL bytes (each of these is): one holding one is cut there. */
  if (memchr(b->uri, 0, b->len) == NULL) {
    snprintf(expected, sizeof expected, "(at byte %zu)", b->offset);
    CHECK_EQ_INT(ilk_router_match_many(r, NULL, b->uri, b->len + 1, batch), ILK_OK);
    CHECK_EQ_INT(ilk_match_batch_arrays(batch, &statuses, NULL, &offsets), ILK_OK);
    text = ilk_match_batch_text(batch, &len);
    CHECK_EQ_INT(statuses[0], ILK_EURI);
    CHECK(strstr(text + offsets[0], b->words) != NULL && strstr(text + offsets[0], expected) != NULL);
    CHECK_EQ_INT(ilk_router_match_requests(r, "GET", 4, b->uri, b->len + 1, batch, NULL), ILK_OK);
    CHECK_EQ_INT(ilk_match_batch_arrays(batch, &statuses, NULL, &offsets), ILK_OK);
    text = ilk_match_batch_text(batch, &len);
    CHECK_EQ_INT(statuses[0], ILK_EURI);
    CHECK(strstr(text + offsets[0], b->words) != NULL && strstr(text + offsets[0], expected) != NULL);
  }
}

static void test_every_byte_is_checked(void) {
  static const char nul[] = "https://a\0b@x.example.com/w/v";
  static const char escape[] = "https://a\x1b[2J\xff@x.example.com/w/v";
  static const char not_utf8[] = "https://a\xff@x.example.com/w/v";
  static const char cut[] = "https://a\xc3@x.example.com/w/v";
  static const char in_path[] = "https://x.example.com/w/\x1b[2J";
  static const char in_host[] = "https://x\xff.example.com/w/v";
  static const char in_fragment[] = "https://x.example.com/w/v#\x7f";
  const struct bad bad[] = {
    {nul, sizeof nul - 1, 9, "control byte in user info"},
    {escape, sizeof escape - 1, 9, "control byte in user info"},
    {not_utf8, sizeof not_utf8 - 1, 9, "user info is not valid UTF-8"},
    {cut, sizeof cut - 1, 9, "user info is not valid UTF-8"},
    {in_path, sizeof in_path - 1, 24, "control byte in path"},
    {in_host, sizeof in_host - 1, 9, "invalid character in host"},
    {in_fragment, sizeof in_fragment - 1, 26, "control byte in fragment"},
    {"https://a..example.com/w/v", 26, 10, "empty label in host"},
    {"https://a%2F.example.com/w/v", 28, 9, "decodes to a byte"},
  };
  ilk_router *r;
  ilk_match *m;
  ilk_match_batch *batch;
  uint32_t id;
  size_t i;
  ilk_router_new(&r, 0);
  ilk_match_new(&m);
  ilk_match_batch_new(&batch);
  CHECK_EQ_INT(ilk_router_add_route(r, "https://*.example.com/w/:a", NULL, NULL, NULL, &id), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "/*rest", NULL, NULL, NULL, &id), ILK_OK);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) refused_everywhere(r, m, batch, &bad[i]);
  ilk_match_batch_free(batch);
  ilk_match_free(m);
  ilk_router_free(r);
}

static void test_hosts_spelt_otherwise(void) {
  static const char *const spellings[][2] = {
    {"https://%61dmin.example.com/x", "admin.example.com"},
    {"https://admin.example.com./x", "admin.example.com"},
    {"https://%41DMIN.Example.COM.:443/x", "admin.example.com"},
    {"https://[0:0:0:0:0:0:0:1]/x", "[::1]"},
    {"https://[::0.0.0.1]/x", "[::1]"},
    {"https://127.1/x", "127.0.0.1"},
    {"https://0x7f.0.0.1./x", "127.0.0.1"},
  };
  ilk_router *r;
  ilk_match *m;
  ilk_result *res;
  uint32_t admin, loopback, local, any;
  char out[4096];
  size_t i;
  ilk_router_new(&r, 0);
  ilk_match_new(&m);
  CHECK_EQ_INT(ilk_router_add_route(r, "https://Admin.Example.com./*rest", NULL, NULL, NULL, &admin), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "https://[::1]/*rest", NULL, NULL, NULL, &loopback), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "https://127.0.0.1/*rest", NULL, NULL, NULL, &local), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "/*rest", NULL, NULL, NULL, &any), ILK_OK);
  for (i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
    const char *uri = spellings[i][0], *host = spellings[i][1];
    uint32_t want = host[0] == '[' ? loopback : host[0] == '1' ? local : admin;
    char takes[64];
    CHECK_EQ_INT(ilk_router_match(r, NULL, uri, strlen(uri), m), ILK_OK);
    CHECK_EQ_INT(ilk_match_route_id(m), want);
    CHECK_EQ_INT(ilk_router_match_packed(r, NULL, uri, strlen(uri), m) >> 32, want);
    CHECK_EQ_INT(ilk_router_resolve(r, NULL, uri, strlen(uri), &res), ILK_OK);
    CHECK_EQ_STR(ilk_request_host(ilk_result_request(res)), host);
    CHECK_EQ_STR(ilk_request_uri(ilk_result_request(res)), uri);      /* the URI as received */
    ilk_result_free(res);
    CHECK_EQ_INT(ilk_router_explain(r, NULL, uri, strlen(uri), out, sizeof out, NULL), ILK_OK);
    snprintf(takes, sizeof takes, "\"answer\":{\"route\":%u", (unsigned)want);
    CHECK(strstr(out, takes) != NULL);
  }
  ilk_match_free(m);
  ilk_router_free(r);
}

int main(void) {
  test_every_byte_is_checked();
  test_hosts_spelt_otherwise();
  return check_summary("test_uris");
}
