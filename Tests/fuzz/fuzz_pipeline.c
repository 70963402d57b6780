/* Fuzz target `pipeline`: the input is a script that decides how a router is set up and what each
 * filter, guard, interceptor and destination does each time it runs.
 *
 * Input: the first bytes set up a router (options, redirect and retry limits, which routes have a
 * destination and a guard, how many filters, request and response interceptors (global, per
 * route, composed, the logging and status-validating built-ins), a default destination), then
 * pick up to three requests (method and URI); every later byte is read by the next callback that
 * runs, to decide what it does: continue (or return what ilk_filter_chain_next gave, another
 * status, or a value no callback returns), stop, redirect (to a URI, a malformed one, or a named
 * route), abort, retry, fail, call ilk_filter_chain_next twice or not at all, change the request's
 * metadata, parameters and state, change the response, replace or remove itself (guards and the
 * default destination), add a route, resolve again from inside (one level deep). A script that
 * runs out reads zeros: continue.
 *
 * Invariants (abort() on violation, see fuzz_common.h):
 *   - ilk_router_resolve and ilk_router_replay_pending_link end with a documented status, the
 *     one ilk_result_status gives; NULL results only with ILK_EURI, ILK_EINVAL or ILK_ELIMIT;
 *     the trace, packed and copied forms of the result read back;
 *   - ilk_filter_chain_next returns one of the statuses its comment lists;
 *   - no callback runs outside a resolve (a filter's chain kept past its resolve answers
 *     ILK_EINVAL and runs nothing), and none runs with userdata already freed or of another kind;
 *   - every userdata handed over with a free function is freed exactly once by the time the
 *     router and the interceptor handles are freed; refused calls free nothing.
 */
#include "fuzz_common.h"

/* ---- the script --------------------------------------------------------------------------- */

static reader script;
static uint8_t next_byte(void) { return take(&script); }

/* ---- userdata: counted, never reused within an input ---------------------------------------- */

enum kind { DEST = 1, FILTER, GUARD, REQUEST_I, RESPONSE_I, LOG, DEFAULT };
enum { MAX_UD = 256, MAGIC = 0x1CEB00DA };

typedef struct {
  uint32_t magic;
  int kind, index;
  uint32_t route; /* guards: their route */
} userdata;

static userdata *uds[MAX_UD];
static int frees[MAX_UD], owned_by_caller[MAX_UD];
static int nud;
static int resolving;  /* how many resolves we are inside */
static int nested;     /* a destination resolved from inside during this resolve */
static ilk_router *router;
static ilk_filter_chain *kept_chain;
static ilk_request *kept_request;

static userdata *new_ud(int kind, uint32_t route) {
  if (nud == MAX_UD) return NULL;
  userdata *u = malloc(sizeof *u);
  *u = (userdata){MAGIC, kind, nud, route};
  uds[nud++] = u;
  return u;
}

static void free_ud(void *p) {
  userdata *u = p;
  REQUIRE(u && u->magic == MAGIC && u->index >= 0 && u->index < nud && uds[u->index] == u, "free_fn got %p", p);
  REQUIRE(!owned_by_caller[u->index], "the library freed userdata %d of a refused call", u->index);
  REQUIRE(frees[u->index] == 0, "userdata %d (kind %d) freed twice", u->index, u->kind);
  frees[u->index]++;
}

/* The call failed: the userdata stays the caller's. */
static void refused(userdata *u) {
  if (u) owned_by_caller[u->index] = 1;
}

static void entering(void *p, int kind) {
  userdata *u = p;
  REQUIRE(resolving > 0, "a callback (kind %d) ran outside any resolve", kind);
  REQUIRE(u && u->magic == MAGIC && uds[u->index] == u, "callback of kind %d got userdata %p", kind, p);
  REQUIRE(u->kind == kind || (kind == DEST && u->kind == DEFAULT), "callback of kind %d got userdata of kind %d", kind,
          u->kind);
  REQUIRE(frees[u->index] == 0, "callback of kind %d ran with its userdata %d already freed", kind, u->index);
}

/* ---- what the script picks from ----------------------------------------------------------- */

static const char *const uris[] = {
  "/a", "/b/1", "/b/x%2Fy", "/c/12", "/c/12/z", "/c/x", "/m/1", "myapp://deep/x/y", "/nothing", "/added/1",
  "/a?x=1&x=2#frag", "/%G1", "https://Example.com/h/1", "/b/%C3%A9", "/c/7/7/", "",
};
static const char *const redirect_targets[] = {"/a", "/b/2", "/c/3/4", "/nothing", "/%G1", "myapp://deep/r", "", "/m/9"};
static const char *const methods[] = {NULL, "GET", "POST", "PUT", ""};
static const char *const added_patterns[] = {"/added/:n", "/a", "/late/*rest", "(", "/b/:y"};
static const char *const route_names[] = {"ra", "rb", "rc", "missing"};

static const char *pick(const char *const *items, size_t n) { return items[next_byte() % n]; }
#define PICK(items) pick(items, sizeof items / sizeof items[0])

static ilk_result *resolve(const char *method, const char *uri);
static void check_result(int rc, ilk_result *res);

/* ---- the callbacks -------------------------------------------------------------------------- */

static int destination(const ilk_request *req, ilk_response *res, void *p) {
  entering(p, DEST);
  REQUIRE(ilk_request_uri(req) != NULL, "a destination's request has no URI");
  switch (next_byte() % 9) {
  case 1: ilk_response_set_status(res, 100 + next_byte() * 2); break;
  case 2:
    ilk_response_set_body(res, "body", 4);
    ilk_response_add_header(res, "X-H", ilk_request_path(req) ? ilk_request_path(req) : "-");
    break;
  case 3: ilk_response_set_error(res, "destination failed"); return -1;
  case 4:
    if (resolving < 2) {  /* one nested resolve */
      nested = 1;
      ilk_result *inner = resolve(PICK(methods), PICK(uris));
      if (inner) ilk_response_set_status(res, ilk_result_response_status(inner));
      ilk_result_free(inner);
    }
    break;
  case 5: {
    uint32_t id;
    ilk_router_add_route(router, PICK(added_patterns), NULL, NULL, NULL, &id);
    break;
  }
  case 6: { /* replace the default destination (perhaps itself) */
    userdata *u = new_ud(DEFAULT, 0);
    if (u && ilk_router_set_default(router, next_byte() & 1 ? destination : NULL, u, free_ud) != ILK_OK) refused(u);
    break;
  }
  case 7: ilk_request_set_state(req, "org.interlock.fuzz.dest", "ran"); break;
  case 8: return 7;  /* any value but ILK_OK is an error */
  }
  return ILK_OK;
}

static int filter(ilk_request *req, ilk_filter_chain *chain, void *p) {
  entering(p, FILTER);
  kept_chain = chain;
  kept_request = req;
  int rc;
  switch (next_byte() % 11) {
  case 2: return ILK_STOP;
  case 3: ilk_filter_chain_redirect(chain, PICK(redirect_targets)); return ILK_REDIRECT;
  case 4: {
    const char *names[] = {"x", "y"}, *values[] = {"1", "2"};
    ilk_filter_chain_redirect_to_route(chain, PICK(route_names), names, values, next_byte() % 3);
    return ILK_REDIRECT;
  }
  case 5: return ILK_CONTINUE; /* without calling next: an error */
  case 6:
    ilk_filter_chain_next(chain, req);
    rc = ilk_filter_chain_next(chain, req);
    REQUIRE(rc == ILK_ECALLBACK, "a second ilk_filter_chain_next returned %d", rc);
    return ILK_CONTINUE;
  case 7:
    ilk_request_set_metadata(req, "k", "v");
    ilk_request_set_param(req, "x", "changed");
    ilk_request_set_state(req, "org.interlock.fuzz.filter", "1");
    break;
  case 8: {
    uint32_t id;
    ilk_router_add_route(router, PICK(added_patterns), NULL, NULL, NULL, &id);
    break;
  }
  case 9: return ILK_REDIRECT; /* without a target */
  case 10: return next_byte() % 2 ? -1 : ILK_RETRY;
  }
  rc = ilk_filter_chain_next(chain, req);
  REQUIRE(rc == ILK_OK || rc == ILK_NOT_FOUND || rc == ILK_METHOD_NOT_ALLOWED || rc == ILK_STOPPED || rc == ILK_GUARDED ||
              rc == ILK_ABORTED || rc == ILK_REDIRECTED || rc == ILK_RETRYING || rc == ILK_ECALLBACK,
          "ilk_filter_chain_next returned %d", rc);
  ilk_response *res = ilk_filter_chain_response(chain);
  if (res && next_byte() % 4 == 1) ilk_response_add_header(res, "X-Filter", "after");
  switch (next_byte() % 4) {
  case 1: return rc;                                  /* passes on what next gave, as ILK_CONTINUE does */
  case 2: return rc >= 0 ? (rc + 1) % 10 : rc;        /* a status next did not give: an error (0 continues) */
  case 3: return rc >= 0 ? 10 + next_byte() : rc;     /* no status at all, or a verb: an error */
  }
  return ILK_CONTINUE;
}

static int guard(const ilk_request *req, void *p) {
  entering(p, GUARD);
  userdata *u = p;
  (void)req;
  switch (next_byte() % 7) {
  case 1: return 0;
  case 2: return -1;
  case 3: { /* replace itself */
    userdata *n = new_ud(GUARD, u->route);
    if (n && ilk_router_set_guard(router, u->route, guard, n, free_ud) != ILK_OK) refused(n);
    return 1;
  }
  case 4: ilk_router_set_guard(router, u->route, NULL, NULL, NULL); return 1; /* remove itself */
  case 5: {
    uint32_t id;
    ilk_router_add_route(router, PICK(added_patterns), NULL, NULL, NULL, &id);
    return 1;
  }
  case 6: return 2; /* not 0 or 1 */
  }
  return 1;
}

static int request_interceptor(ilk_request *req, void *p) {
  entering(p, REQUEST_I);
  switch (next_byte() % 6) {
  case 1: ilk_request_set_error(req, "request aborted"); return ILK_ABORT;
  case 2: return -1;
  case 3:
    ilk_request_set_metadata(req, "m", "1");
    ilk_request_set_param(req, "added", "yes");
    break;
  case 4: ilk_request_set_state(req, "org.interlock.fuzz.count", "1"); break;
  case 5: return 9; /* not a documented answer */
  }
  return ILK_CONTINUE;
}

static int response_interceptor(ilk_request *req, ilk_response *res, void *p) {
  entering(p, RESPONSE_I);
  switch (next_byte() % 7) {
  case 1: ilk_response_set_error(res, "response aborted"); return ILK_ABORT;
  case 2: return ILK_RETRY;
  case 3: return -1;
  case 4: ilk_response_set_status(res, 200 + next_byte()); ilk_response_set_body(res, NULL, 0); break;
  case 5: ilk_request_set_state(req, "org.interlock.fuzz.seen", "1"); break;
  case 6: return 42;
  }
  return ILK_CONTINUE;
}

static void log_line(const char *line, void *p) {
  entering(p, LOG);
  REQUIRE(line != NULL, "a NULL log line");
}

/* ---- resolving and checking -------------------------------------------------------------------- */

static void check_result(int rc, ilk_result *res) {
  if (rc == ILK_EURI || rc == ILK_EINVAL || rc == ILK_ELIMIT) {
    REQUIRE(res == NULL, "status %d with a result", rc);
    return;
  }
  REQUIRE(rc == ILK_OK || rc == ILK_NOT_FOUND || rc == ILK_METHOD_NOT_ALLOWED || rc == ILK_STOPPED || rc == ILK_GUARDED ||
              rc == ILK_ABORTED || rc == ILK_REDIRECT_LOOP || rc == ILK_RETRY_LIMIT || rc == ILK_ECALLBACK,
          "resolve returned %d", rc);
  REQUIRE(res && ilk_result_status(res) == rc, "resolve returned %d, its result says %d", rc, ilk_result_status(res));
  const ilk_request *req = ilk_result_request(res);
  REQUIRE(req != NULL, "a result without its request");
  uint32_t id = ilk_result_route_id(res);
  REQUIRE(id <= ilk_router_route_count(router), "route %u of %zu", id, ilk_router_route_count(router));
  size_t n = ilk_result_trace_count(res);
  REQUIRE(n >= 1, "an empty trace (status %d)", rc);
  for (size_t i = 0; i < n; i++) {
    const char *stage, *name, *decision;
    REQUIRE(ilk_result_trace_at(res, i, &stage, &name, &decision) == ILK_OK && stage && name && decision, "trace %zu", i);
  }
  for (size_t i = 0; i < ilk_result_redirect_count(res); i++)
    REQUIRE(ilk_result_redirect_at(res, i) != NULL, "redirect %zu", i);
  if (rc == ILK_ABORTED || rc == ILK_ECALLBACK) REQUIRE(ilk_result_error(res) != NULL, "status %d without a reason", rc);
  const char *packed;
  size_t packed_len, needed = 0, body_len;
  REQUIRE(ilk_result_packed(res, &packed, &packed_len) == ILK_OK && packed, "result packed");
  ilk_result_body(res, &body_len);
  REQUIRE(ilk_result_copy(res, NULL, 0, &needed) == ILK_ELIMIT && needed == 8 + packed_len + body_len,
          "ilk_result_copy needs %zu, packed %zu + body %zu", needed, packed_len, body_len);
  char *copy = malloc(needed);
  REQUIRE(ilk_result_copy(res, copy, needed, &needed) == ILK_OK && memcmp(copy + 8, packed, packed_len) == 0, "copy");
  free(copy);
}

static ilk_result *resolve(const char *method, const char *uri) {
  ilk_result *res = NULL;
  resolving++;
  int rc = ilk_router_resolve(router, method, uri, strlen(uri), &res);
  resolving--;
  check_result(rc, res);
  return res;
}

/* ---- one input -------------------------------------------------------------------------------- */

enum { ROUTES = 7 };
static const char *const patterns[ROUTES] = {
  "/a", "/b/:x", "/c/:x(\\d+)(/:y)", "GET /m/:x", "POST /m/:x", "myapp://deep/*rest", "https://example.com/h/:id",
};

static ilk_interceptor *make_interceptor(int response) {
  ilk_interceptor *i = NULL;
  userdata *u = new_ud(response ? RESPONSE_I : REQUEST_I, 0);
  if (!u) return NULL;
  int rc = response ? ilk_interceptor_new_response(&i, next_byte() & 1 ? "res" : NULL, response_interceptor, u, free_ud)
                    : ilk_interceptor_new_request(&i, next_byte() & 1 ? "req" : NULL, request_interceptor, u, free_ud);
  if (rc != ILK_OK) { refused(u); return NULL; }
  return i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  script = (reader){data, size, 0};
  nud = 0;
  memset(frees, 0, sizeof frees);
  memset(owned_by_caller, 0, sizeof owned_by_caller);
  kept_chain = NULL;

  if (ilk_router_new(&router, next_byte() & 3) != ILK_OK) abort();
  uint8_t limits = next_byte();
  if (limits & 0x80) ilk_router_set_limits(router, limits & 7, (limits >> 3) & 7);

  /* routes: with or without a destination, named or not, with a guard or not */
  uint32_t ids[ROUTES];
  for (int k = 0; k < ROUTES; k++) {
    uint8_t how = next_byte();
    userdata *u = how & 1 ? NULL : new_ud(DEST, 0);
    int rc = k < 3 ? ilk_router_add_named_route(router, patterns[k], route_names[k], u ? destination : NULL, u,
                                                u ? free_ud : NULL, &ids[k])
                   : ilk_router_add_route(router, patterns[k], u ? destination : NULL, u, u ? free_ud : NULL, &ids[k]);
    REQUIRE(rc == ILK_OK, "the fixed route \"%s\" was refused: %s", patterns[k], ilk_errmsg());
    if (how & 2) {
      userdata *g = new_ud(GUARD, ids[k]);
      if (g && ilk_router_set_guard(router, ids[k], guard, g, free_ud) != ILK_OK) refused(g);
    }
  }
  /* a guard on a route that does not exist: refused, the userdata stays ours */
  userdata *g = new_ud(GUARD, 999);
  REQUIRE(ilk_router_set_guard(router, 999, guard, g, free_ud) == ILK_ENOROUTE, "a guard on route 999");
  refused(g);

  int filters = next_byte() % 4;
  for (int k = 0; k < filters; k++) {
    userdata *u = new_ud(FILTER, 0);
    if (u && ilk_router_add_filter(router, k & 1 ? "f" : NULL, filter, u, free_ud) != ILK_OK) refused(u);
  }

  /* interceptors: plain, composed two ways or in order, global or on a route; the caller's handle
   * freed at once or at the end */
  ilk_interceptor *keep[16];
  int nkeep = 0;
  int interceptors = next_byte() % 5;
  for (int k = 0; k < interceptors; k++) {
    uint8_t how = next_byte();
    int response = how & 1;
    ilk_interceptor *i = make_interceptor(response), *j = NULL, *both = NULL;
    if (!i) continue;
    switch ((how >> 1) & 3) {
    case 1: j = make_interceptor(response); if (j) ilk_interceptor_chain_before(&both, i, j); break;
    case 2: j = make_interceptor(response); if (j) ilk_interceptor_chain_after(&both, i, j); break;
    case 3: {
      const ilk_interceptor *list[3] = {i, i, make_interceptor(response)};
      j = (ilk_interceptor *)list[2];
      if (j) ilk_interceptor_chain_in_order(&both, list, 3);
      break;
    }
    }
    uint32_t scope = how & 8 ? ids[(how >> 4) % ROUTES] : 0;
    ilk_interceptor *added = both ? both : i;
    REQUIRE(ilk_router_add_interceptor(router, added, scope) == ILK_OK, "add interceptor");
    if (how & 0x80 && nkeep < 13) { keep[nkeep++] = i; keep[nkeep++] = j; keep[nkeep++] = both; }
    else { ilk_interceptor_free(i); ilk_interceptor_free(j); ilk_interceptor_free(both); }
  }
  uint8_t builtins = next_byte();
  if (builtins & 1) {
    ilk_interceptor *req_side = NULL, *res_side = NULL;
    userdata *u = new_ud(LOG, 0);
    if (u && ilk_interceptor_new_logging(&req_side, &res_side, log_line, u, free_ud) == ILK_OK) {
      ilk_router_add_interceptor(router, req_side, 0);
      if (builtins & 2) ilk_router_add_interceptor(router, res_side, ids[0]);
      ilk_interceptor_free(req_side);
      ilk_interceptor_free(res_side);
    } else refused(u);
  }
  if (builtins & 4) {
    ilk_interceptor *v = NULL;
    if (ilk_interceptor_new_validate_status(&v, 200, 299 + (builtins >> 4)) == ILK_OK) {
      ilk_router_add_interceptor(router, v, 0);
      ilk_interceptor_free(v);
    }
  }
  if (builtins & 8) {
    userdata *u = new_ud(DEFAULT, 0);
    if (u && ilk_router_set_default(router, destination, u, free_ud) != ILK_OK) refused(u);
  }

  /* up to three requests; a refused link is replayed or taken */
  int requests = 1 + next_byte() % 3;
  for (int k = 0; k < requests; k++) {
    const char *method = PICK(methods), *uri = PICK(uris);
    nested = 0;
    ilk_result *res = resolve(method, uri);
    int status = res ? ilk_result_status(res) : 0;
    ilk_result_free(res);
    if (kept_chain) {
      /* a chain kept past its resolve runs nothing */
      REQUIRE(ilk_filter_chain_next(kept_chain, kept_request) == ILK_EINVAL, "a kept filter chain ran after its resolve");
      kept_chain = NULL;
    }
    char link[256];
    size_t len = ilk_router_pending_link(router, link, sizeof link);
    if (status == ILK_GUARDED && !nested) REQUIRE(len > 0, "refused by a guard, yet no link is pending");
    if (len > 0) {
      uint8_t what = next_byte() % 3;
      if (what == 1) {
        resolving++;
        int rc = ilk_router_replay_pending_link(router, &res);
        resolving--;
        if (res || rc != ILK_OK) check_result(rc, res);
        ilk_result_free(res);
      } else if (what == 2) {
        size_t taken = ilk_router_take_pending_link(router, link, sizeof link);
        REQUIRE(taken == len, "took %zu bytes of a %zu-byte link", taken, len);
        REQUIRE(ilk_router_pending_link(router, NULL, 0) == 0 || taken >= sizeof link, "a taken link is still pending");
      }
    }
  }

  ilk_router_free(router);
  router = NULL;
  for (int k = 0; k < nkeep; k++) ilk_interceptor_free(keep[k]);
  for (int k = 0; k < nud; k++) {
    if (owned_by_caller[k]) REQUIRE(frees[k] == 0, "userdata %d of a refused call was freed", k);
    else REQUIRE(frees[k] == 1, "userdata %d (kind %d) freed %d times", k, uds[k]->kind, frees[k]);
    free(uds[k]);
  }
  return 0;
}
