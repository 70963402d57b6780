/* Random patterns and URIs (a fixed seed, so every run is the same) through the ABI: every call
 * returns a documented code, errors carry an offset inside the input, nothing crashes or hangs. */
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
  return check_summary("test_fuzz");
}
