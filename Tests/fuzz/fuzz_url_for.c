/* Fuzz target `url_for`: values for a named route's parameters, through ilk_router_url_for, and
 * the URI it builds looked up again: a property, not only the absence of crashes.
 *
 * Input: byte 0 picks the named route; byte 1 the router's options (bits 0-1), whether an unknown
 * parameter name is passed too (bit 2) and the buffer's capacity (bits 3-7); byte 2 which of the
 * route's parameters are given (a bit each); the rest is their values, separated by NUL bytes.
 *
 * Invariants (abort() on violation, see fuzz_common.h):
 *   - url_for returns ILK_OK or ILK_EINVAL; the URI is NUL-terminated, strlen == *length; into a
 *     smaller buffer it gives the same URI if it fits, else ILK_EINVAL and the same *length;
 *   - an unknown parameter name, or a given parameter whose optional part needs one not given (its
 *     part, or one enclosing it, not filled), is refused (ILK_EINVAL): every value given is in
 *     the URI;
 *   - given every required parameter (and, on a route with optional parts, every parameter), each
 *     a plain value ([A-Za-z0-9_-], not empty) for a parameter without a constraint, url_for
 *     succeeds;
 *   - round trip: the built URI, looked up under the route's method, matches that route, and binds
 *     exactly the parameters of the parts that are filled (a required parameter, or an optional
 *     part whose parameters are all given and whose enclosing part is filled) to the values given;
 *   - the built URI gets the same answer from every lookup door (as in the `uri` target).
 * Once known: `/o(/:a)(/:b)` with a=10 built "/o/10", which matches as b=10 (now refused); an
 * unknown name, or a value its part could not hold, was dropped without a word (now refused).
 */
#include "fuzz_common.h"

enum { MAXP = 6 };

/* A route and its parameters: part[i] is the optional part parameter i is in (0: required),
 * parent[k] the part enclosing part k; plain[i] is 1 for a parameter without a constraint. */
typedef struct {
  const char *pattern, *method;
  const char *params[MAXP];
  int part[MAXP], parent[MAXP], plain[MAXP];
} spec;

static const spec specs[] = {
  {"/users/:id", NULL, {"id"}, {0}, {0}, {1}},
  {"/users/:id(\\d+)/posts/:post", NULL, {"id", "post"}, {0, 0}, {0}, {0, 1}},
  {"/search(/:q(/page/:n(\\d+)))", NULL, {"q", "n"}, {1, 2}, {0, 0, 1}, {1, 0}},
  {"/o(/:a)(/:b)", NULL, {"a", "b"}, {1, 2}, {0, 0, 0}, {1, 1}},
  {"/files/*path", NULL, {"path"}, {0}, {0}, {1}},
  {"myapp://user/:id", NULL, {"id"}, {0}, {0}, {1}},
  {"https://example.com/u/:id/:tab([a-z]+)", NULL, {"id", "tab"}, {0, 0}, {0}, {1, 0}},
  {"GET /g/:x", "GET", {"x"}, {0}, {0}, {1}},
  {"/v/:n([0-9]+)/:w([a-z]{2,4})", NULL, {"n", "w"}, {0, 0}, {0}, {0, 0}},
  {"/opt/:a(/x/:b)(/y/:c(/z/:d))", NULL, {"a", "b", "c", "d"}, {0, 1, 2, 3}, {0, 0, 0, 2}, {1, 1, 1, 1}},
  {"/any/*", NULL, {"*"}, {0}, {0}, {1}},
  {"/caf%C3%A9/:x", NULL, {"x"}, {0}, {0}, {1}},
  {"/alt/:c(red|green|blue)", NULL, {"c"}, {0}, {0}, {0}},
  {"/user/:id(/edit)", NULL, {"id"}, {0}, {0}, {1}},
  {"POST /m/:a/:b(/:c)", "POST", {"a", "b", "c"}, {0, 0, 1}, {0, 0}, {1, 1, 1}},
  {"/deep(/:a(/:b(/:c)))/end", NULL, {"a", "b", "c"}, {1, 2, 3}, {0, 0, 1, 2}, {1, 1, 1}},
  {"wss://chat.example/rooms/:room/*rest", NULL, {"room", "rest"}, {0, 0}, {0}, {1, 1}},
  {"/esc/\\:lit/:x(v\\d)", NULL, {"x"}, {0}, {0}, {0}},
};
#define COUNT(a) (sizeof a / sizeof a[0])
static const uint32_t options[] = {0, ILK_CASE_INSENSITIVE, ILK_STRICT_SLASH, ILK_CASE_INSENSITIVE | ILK_STRICT_SLASH};

static ilk_router *routers[4];
static uint32_t ids[COUNT(specs)];
static doors d;

/* At exit, before LeakSanitizer looks: what is still held is then a leak. */
static void teardown(void) {
  for (int o = 0; o < 4; o++) ilk_router_free(routers[o]);
  doors_free(&d);
}

static void build(void) {
  atexit(teardown);
  for (int o = 0; o < 4; o++) {
    if (ilk_router_new(&routers[o], options[o]) != ILK_OK) abort();
    for (size_t k = 0; k < COUNT(specs); k++) {
      char name[16];
      snprintf(name, sizeof name, "u%zu", k);
      int rc = ilk_router_add_named_route(routers[o], specs[k].pattern, name, NULL, NULL, NULL, &ids[k]);
      if (rc != ILK_OK) FAIL("the fixed route \"%s\" was refused: %d %s", specs[k].pattern, rc, ilk_errmsg());
    }
  }
  doors_init(&d);
}

static int plain_value(const char *v) {
  if (!*v) return 0;
  for (; *v; v++)
    if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') || (*v >= '0' && *v <= '9') || *v == '_' || *v == '-'))
      return 0;
  return 1;
}

static int filled(const spec *s, int part, const char *const given[MAXP]) {
  if (part == 0) return 1;
  for (int i = 0; i < MAXP && s->params[i]; i++)
    if (s->part[i] == part && !given[i]) return 0;
  return filled(s, s->parent[part], given);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!routers[0]) build();
  if (size < 3) return 0;
  size_t which = data[0] % COUNT(specs);
  const spec *s = &specs[which];
  ilk_router *r = routers[data[1] & 3];
  int extra = (data[1] >> 2) & 1;
  size_t cap_choice = data[1] >> 3;
  uint8_t mask = data[2];

  /* the values: NUL-separated, in a copy that ends with a NUL */
  char *text = malloc(size - 2);
  memcpy(text, data + 3, size - 3);
  text[size - 3] = 0;
  const char *given[MAXP] = {0};
  const char *names[MAXP + 1], *values[MAXP + 1];
  size_t count = 0, nparams = 0;
  char *v = text;
  for (int i = 0; i < MAXP && s->params[i]; i++, nparams++) {
    if (!(mask >> i & 1)) continue;
    given[i] = v;
    names[count] = s->params[i];
    values[count++] = v;
    size_t l = strlen(v); /* the next value, or the final NUL again once they run out */
    v += l + (v + l < text + size - 3);
  }
  if (extra) { names[count] = "zz"; values[count++] = "extra"; }

  char name[16];
  snprintf(name, sizeof name, "u%zu", which);
  /* first with room enough, then with a buffer of `cap` bytes (on the heap: a write past it is
   * caught), which must give the same URI if it fits, else ILK_EINVAL and the length it needs */
  static char big[1 << 17];
  size_t length = 0, small_length = 0, cap = cap_choice == 31 ? 0 : cap_choice * 4;
  int rc = ilk_router_url_for(r, name, names, values, count, big, sizeof big, &length);
  REQUIRE(rc == ILK_OK || rc == ILK_EINVAL, "url_for returned %d", rc);
  if (rc == ILK_OK) REQUIRE(length < sizeof big && strlen(big) == length, "url_for wrote %zu bytes, said %zu",
                            strlen(big), length);
  char *small = cap ? malloc(cap) : NULL;
  int rc_small = ilk_router_url_for(r, name, names, values, count, small, cap, &small_length);
  if (rc != ILK_OK) REQUIRE(rc_small == rc, "url_for gave %d with a small buffer, %d with a large one", rc_small, rc);
  else if (length < cap)
    REQUIRE(rc_small == ILK_OK && small_length == length && memcmp(small, big, length + 1) == 0,
            "url_for into %zu bytes gave %d \"%s\", into a large buffer \"%s\"", cap, rc_small, SHOWZ(small), SHOWZ(big));
  else
    REQUIRE(rc_small == ILK_EINVAL && small_length == length, "url_for into %zu bytes gave %d and length %zu (needs %zu)",
            cap, rc_small, small_length, length);
  free(small);
  const char *buf = big;

  int required = 1, all_plain = 1, optional = 0; /* optional: the route has optional parameters */
  for (size_t i = 0; i < nparams; i++) {
    if (s->part[i] == 0 && !given[i]) required = 0;
    if (s->part[i] != 0) optional = 1;
    if (given[i] && (!s->plain[i] || !plain_value(given[i]))) all_plain = 0;
  }
  /* (not when only some optional parameters are given: "/o(/:a)(/:b)" with a alone would read
   * back as b, and url_for refuses it) */
  int all_given = 1, orphan = 0;
  for (size_t i = 0; i < nparams; i++) {
    all_given &= given[i] != NULL;
    if (given[i] && !filled(s, s->part[i], given)) orphan = 1;
  }
  if (extra || orphan)
    REQUIRE(rc == ILK_EINVAL, "url_for built \"%s\" for \"%s\" from %s", rc == ILK_OK ? show(buf, length) : "",
            s->pattern, extra ? "an unknown parameter" : "a value whose optional part needs another");
  if (required && all_plain && !extra && (!optional || all_given))
    REQUIRE(rc == ILK_OK, "url_for refused plain values for every parameter of \"%s\": %s", s->pattern, ilk_errmsg());

  if (rc == ILK_OK) {
    check_doors(&d, r, s->method, buf, length, 4096);
    const answer *a = &d.single;
    REQUIRE(a->status == ILK_OK && a->route == ids[which], "url_for built \"%s\" for \"%s\"; it matches route %u (status %d)",
            show(buf, length), s->pattern, a->route, a->status);
    /* exactly the parameters of the filled parts, with the values given */
    size_t bound = ilk_match_param_count(d.m), expected = 0;
    for (size_t i = 0; i < nparams; i++) {
      const char *got = NULL;
      int has = ilk_match_param(d.m, s->params[i], &got, NULL) == ILK_OK;
      if (given[i] && filled(s, s->part[i], given)) {
        expected++;
        REQUIRE_TAG("url-for-optional", (has && strcmp(got, given[i]) == 0) || (optional && tolerated("url-for-optional")), "url_for built \"%s\" for \"%s\" with %s=\"%s\"; it binds %s=\"%s\"",
                show(buf, length), s->pattern, s->params[i], SHOWZ(given[i]), s->params[i], has ? SHOWZ(got) : "(unbound)");
      } else {
        REQUIRE_TAG("url-for-optional", !has || (optional && tolerated("url-for-optional")), "url_for built \"%s\" for \"%s\" without %s; it binds %s=\"%s\"", show(buf, length), s->pattern,
                s->params[i], s->params[i], SHOWZ(got));
      }
    }
    REQUIRE_TAG("url-for-optional", bound == expected || (optional && tolerated("url-for-optional")), "\"%s\" binds %zu parameters, %zu expected", show(buf, length), bound, expected);
  }
  free(text);
  return 0;
}
