/* The request pipeline through the C ABI: order, stop, redirect, guard and the pending link,
 * abort, retry, state, composition, built-ins, errors, nested resolves, URL generation, trace. */
#include "interlock.h"
#include "check.h"
#include <stdlib.h>

static char order[1024];
static void mark(const char *s) { strcat(order, s); strcat(order, " "); }
static int frees;
static void count_free(void *userdata) { (void)userdata; frees++; }

static int resolve(ilk_router *r, const char *method, const char *uri, ilk_result **out) {
  return ilk_router_resolve(r, method, uri, strlen(uri), out);
}

static int dest_mark(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)req;
  mark("dest");
  if (userdata) ilk_response_set_status(res, *(int *)userdata);
  return ILK_OK;
}

/* What resolving `uri` on `r` gives, its error in `error`; the router is freed. */
static int resolve_once(ilk_router *r, const char *uri, char *error, size_t room) {
  ilk_result *res;
  int rc = resolve(r, NULL, uri, &res);
  snprintf(error, room, "%s", ilk_result_error(res) ? ilk_result_error(res) : "");
  ilk_result_free(res);
  ilk_router_free(r);
  return rc;
}

/* The route /a (no destination) with the global interceptor `i`, resolved. */
static int resolve_with_interceptor(ilk_interceptor *i, char *error, size_t room) {
  ilk_router *r;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/a", NULL, NULL, NULL, NULL);
  ilk_router_add_interceptor(r, i, 0);
  return resolve_once(r, "/a", error, room);
}

/* A router with the route /a to dest_mark behind the one filter `fn`, named `name`. */
/* A router with the one route `pattern` (destination `dest`, which may be NULL) and the one filter `name`. */
static ilk_router *router_with_route_and_filter(const char *pattern, ilk_destination_fn dest, const char *name,
                                                ilk_filter_fn fn, void *userdata) {
  ilk_router *r;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, pattern, dest, NULL, NULL, NULL);
  ilk_router_add_filter(r, name, fn, userdata, NULL);
  return r;
}
static ilk_router *router_with_filter(const char *name, ilk_filter_fn fn, void *userdata) {
  return router_with_route_and_filter("/a", dest_mark, name, fn, userdata);
}

static int req_mark(ilk_request *req, void *userdata) { (void)req; mark(userdata); return ILK_CONTINUE; }
static int res_mark(ilk_request *req, ilk_response *res, void *userdata) { (void)req; (void)res; mark(userdata); return ILK_CONTINUE; }

static int filter_mark(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  char in[32], out[32];
  snprintf(in, sizeof in, "%s-in", (const char *)userdata);
  snprintf(out, sizeof out, "%s-out", (const char *)userdata);
  mark(in);
  int rc = ilk_filter_chain_next(chain, req);
  if (rc < 0) return rc;
  mark(out);
  ilk_response_add_header(ilk_filter_chain_response(chain), "X-Filter", userdata);
  return ILK_CONTINUE;
}

static int guard_allow(const ilk_request *req, void *userdata) { (void)req; mark("guard"); return *(int *)userdata; }

/* A filter that changes its request before passing it on: the change reaches the later stages,
 * and the filter reads it back through its own handle. */
static int filter_tag(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  if (ilk_request_set_metadata(req, "via", "tag") != ILK_OK) return -1;
  if (ilk_request_set_param(req, "x", "changed") != ILK_OK) return -1;
  if (strcmp(ilk_request_metadata(req, "via"), "tag") != 0 || strcmp(ilk_request_param(req, "x"), "changed") != 0) return -1;
  return ilk_filter_chain_next(chain, req) < 0 ? -1 : ILK_CONTINUE;
}
static int filter_seen(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  mark(ilk_request_metadata(req, "via") ? ilk_request_metadata(req, "via") : "none");
  return ilk_filter_chain_next(chain, req) < 0 ? -1 : ILK_CONTINUE;
}
static int guard_seen(const ilk_request *req, void *userdata) {
  (void)userdata;
  mark(ilk_request_param(req, "x"));
  return 1;
}
static int dest_seen(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)userdata; (void)res;
  mark(ilk_request_metadata(req, "via") ? ilk_request_metadata(req, "via") : "none");
  mark(ilk_request_param(req, "x"));
  return ILK_OK;
}

static void test_filter_changes_request(void) {
  ilk_router *r;
  ilk_result *res;
  uint32_t id;
  order[0] = 0;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/a/:x", dest_seen, NULL, NULL, &id);
  ilk_router_set_guard(r, id, guard_seen, NULL, NULL);
  ilk_router_add_filter(r, "seen-before", filter_seen, NULL, NULL);
  ilk_router_add_filter(r, "tag", filter_tag, NULL, NULL);
  ilk_router_add_filter(r, "seen-after", filter_seen, NULL, NULL);
  CHECK_EQ_INT(resolve(r, NULL, "/a/1", &res), ILK_OK);
  CHECK_EQ_STR(order, "none tag changed tag changed ");
  /* the change went down the chain only: the resolve's own request is as the interceptors left it */
  CHECK(ilk_request_metadata(ilk_result_request(res), "via") == NULL);
  CHECK_EQ_STR(ilk_request_param(ilk_result_request(res), "x"), "1");
  /* the same handles serve the next resolve: nothing of this one's change is left in them */
  ilk_result_free(res);
  order[0] = 0;
  CHECK_EQ_INT(resolve(r, NULL, "/a/2", &res), ILK_OK);
  CHECK_EQ_STR(order, "none tag changed tag changed ");
  ilk_result_free(res);
  ilk_router_free(r);
}

static void test_order(void) {
  ilk_router *r;
  ilk_interceptor *i;
  ilk_result *res;
  uint32_t id;
  int allow = 1;
  const char *stage, *name, *decision;
  order[0] = 0;
  ilk_router_new(&r, 0);
  ilk_router_add_named_route(r, "/a/:x", "a", dest_mark, NULL, NULL, &id);
  ilk_router_set_guard(r, id, guard_allow, &allow, NULL);
  ilk_interceptor_new_request(&i, "g1", req_mark, "g1", NULL); ilk_router_add_interceptor(r, i, 0); ilk_interceptor_free(i);
  ilk_interceptor_new_request(&i, "r1", req_mark, "r1", NULL); ilk_router_add_interceptor(r, i, id); ilk_interceptor_free(i);
  ilk_interceptor_new_response(&i, "R1", res_mark, "R1", NULL); ilk_router_add_interceptor(r, i, id); ilk_interceptor_free(i);
  ilk_interceptor_new_response(&i, "G1", res_mark, "G1", NULL); ilk_router_add_interceptor(r, i, 0); ilk_interceptor_free(i);
  ilk_router_add_filter(r, "f1", filter_mark, "f1", NULL);
  ilk_router_add_filter(r, NULL, filter_mark, "f2", NULL);
  CHECK_EQ_INT(resolve(r, NULL, "/a/1", &res), ILK_OK);
  CHECK_EQ_STR(order, "r1 g1 f1-in f2-in guard dest G1 R1 f2-out f1-out ");
  CHECK_EQ_INT(ilk_result_header_count(res), 2);
  CHECK_EQ_INT(ilk_result_trace_count(res), 9);
  CHECK_EQ_INT(ilk_result_trace_at(res, 0, &stage, &name, &decision), ILK_OK);
  CHECK_EQ_STR(stage, "match"); CHECK_EQ_STR(name, "/a/1"); CHECK_EQ_STR(decision, "a");
  ilk_result_trace_at(res, 3, &stage, &name, &decision);
  CHECK_EQ_STR(stage, "filter"); CHECK_EQ_STR(name, "f1"); CHECK_EQ_STR(decision, "continue");
  ilk_result_trace_at(res, 4, &stage, &name, &decision);
  CHECK_EQ_STR(name, "filter 1");
  ilk_result_trace_at(res, 5, &stage, &name, &decision);
  CHECK_EQ_STR(stage, "guard"); CHECK_EQ_STR(decision, "allow");
  ilk_result_trace_at(res, 6, &stage, &name, &decision);
  CHECK_EQ_STR(stage, "destination"); CHECK_EQ_STR(decision, "ran");
  CHECK_EQ_INT(ilk_result_trace_at(res, 9, &stage, &name, &decision), ILK_EINVAL);
  ilk_result_free(res);
  ilk_router_free(r);
}

static int filter_stop(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)req; (void)chain; (void)userdata; return ILK_STOP;
}
static int filter_twice(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  ilk_filter_chain_next(chain, req);
  return ilk_filter_chain_next(chain, req) == ILK_ECALLBACK ? ILK_ECALLBACK : ILK_CONTINUE;
}
static int filter_no_next(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)req; (void)chain; (void)userdata; return ILK_CONTINUE;
}
/* Keeps its chain and request pointers past the call, which the header forbids using: the library
 * still answers a late call with an error, not by running a chain whose resolve has ended. */
static ilk_filter_chain *kept_chain;
static ilk_request *kept_request;
static int filter_keep(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  kept_chain = chain;
  kept_request = req;
  return ilk_filter_chain_next(chain, req) < 0 ? -1 : ILK_CONTINUE;
}
static int filter_move(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  ilk_request_set_state(req, "com.example.moved", "yes");
  if (strncmp(ilk_request_path(req), "/old/", 5) == 0) {
    const char *names[] = {"id"};
    const char *values[] = {ilk_request_param(req, "id")};
    ilk_filter_chain_redirect_to_route(chain, "new", names, values, 1);
    return ILK_REDIRECT;
  }
  if (ilk_filter_chain_next(chain, req) < 0) return -1;
  return ILK_CONTINUE;
}
static int filter_pingpong(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  ilk_filter_chain_redirect(chain, strcmp(ilk_request_path(req), "/a") == 0 ? "/b" : "/a");
  return ILK_REDIRECT;
}
static int dest_state(const ilk_request *req, ilk_response *res, void *userdata) {
  const char *v = ilk_request_state(req, "com.example.moved");
  (void)userdata;
  ilk_response_set_body(res, v ? v : "-", v ? strlen(v) : 1);
  return ILK_OK;
}

static void test_filters(void) {
  ilk_router *r;
  ilk_result *res;
  order[0] = 0;
  frees = 0;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/a", dest_mark, NULL, NULL, NULL);
  ilk_router_add_filter(r, "stop", filter_stop, NULL, count_free);
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_STOPPED);
  CHECK_EQ_STR(order, "");
  ilk_result_free(res);
  ilk_router_free(r);
  CHECK_EQ_INT(frees, 1);

  r = router_with_filter("twice", filter_twice, NULL);
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_ECALLBACK);
  CHECK(strstr(ilk_result_error(res), "twice") != NULL);
  CHECK_EQ_STR(order, "dest ");
  ilk_result_free(res);
  ilk_router_free(r);

  r = router_with_filter("lazy", filter_no_next, NULL);
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_ECALLBACK);
  CHECK(strstr(ilk_result_error(res), "without calling") != NULL);
  ilk_result_free(res);
  ilk_router_free(r);

  r = router_with_filter("keep", filter_keep, NULL);
  order[0] = 0;
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_OK);
  ilk_result_free(res);
  CHECK_EQ_INT(ilk_filter_chain_next(kept_chain, kept_request), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "not in use") != NULL);
  CHECK_EQ_STR(order, "dest ");
  ilk_router_free(r);

  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/old/:id", dest_mark, NULL, NULL, NULL);
  ilk_router_add_named_route(r, "/new/:id", "new", dest_state, NULL, NULL, NULL);
  ilk_router_add_filter(r, "move", filter_move, NULL, NULL);
  CHECK_EQ_INT(resolve(r, NULL, "/old/7", &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_redirect_count(res), 1);
  CHECK_EQ_STR(ilk_result_redirect_at(res, 0), "/new/7");
  CHECK(ilk_result_redirect_at(res, 1) == NULL);
  {
    size_t len;
    const char *body = ilk_result_body(res, &len);
    CHECK(len == 3 && memcmp(body, "yes", 3) == 0);
  }
  CHECK_EQ_STR(ilk_result_state(res, "com.example.moved"), "yes");
  CHECK_EQ_STR(ilk_request_param(ilk_result_request(res), "id"), "7");
  ilk_result_free(res);
  ilk_router_free(r);

  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/a", NULL, NULL, NULL, NULL);
  ilk_router_add_route(r, "/b", NULL, NULL, NULL, NULL);
  ilk_router_add_filter(r, "pingpong", filter_pingpong, NULL, NULL);
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_REDIRECT_LOOP);
  CHECK_EQ_INT(ilk_result_redirect_count(res), ILK_DEFAULT_REDIRECT_LIMIT);
  ilk_result_free(res);
  CHECK_EQ_INT(ilk_router_set_limits(r, 1, 3), ILK_OK);
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_REDIRECT_LOOP);
  CHECK_EQ_INT(ilk_result_redirect_count(res), 1);
  ilk_result_free(res);
  CHECK_EQ_INT(ilk_router_set_limits(NULL, 1, 3), ILK_EINVAL);
  ilk_router_free(r);
}

static void test_guard_and_pending_link(void) {
  ilk_router *r;
  ilk_result *res;
  uint32_t id;
  int allow = 0;
  char buf[64];
  order[0] = 0;
  frees = 0;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "myapp://account/:section", dest_mark, NULL, NULL, &id);
  CHECK_EQ_INT(ilk_router_set_guard(r, 99, guard_allow, &allow, count_free), ILK_ENOROUTE);
  CHECK_EQ_INT(frees, 0);
  CHECK_EQ_INT(ilk_router_set_guard(r, id, guard_allow, &allow, count_free), ILK_OK);
  CHECK_EQ_INT(ilk_router_pending_link(r, buf, sizeof buf), 0);
  CHECK_EQ_STR(buf, "");
  CHECK_EQ_INT(resolve(r, NULL, "myapp://account/billing", &res), ILK_GUARDED);
  ilk_result_free(res);
  CHECK_EQ_STR(order, "guard ");
  CHECK_EQ_INT(ilk_router_pending_link(r, buf, sizeof buf), 23);
  CHECK_EQ_STR(buf, "myapp://account/billing");
  CHECK_EQ_INT(ilk_router_take_pending_link(r, buf, 8), 23);   /* too small: stays pending */
  CHECK_EQ_STR(buf, "myapp:/");
  CHECK_EQ_INT(ilk_router_pending_link(r, NULL, 0), 23);
  CHECK_EQ_INT(ilk_router_replay_pending_link(r, &res), ILK_GUARDED);   /* refused again: pending */
  ilk_result_free(res);
  CHECK_EQ_INT(ilk_router_pending_link(r, NULL, 0), 23);
  allow = 1;
  CHECK_EQ_INT(ilk_router_replay_pending_link(r, &res), ILK_OK);
  ilk_result_free(res);
  CHECK_EQ_STR(order, "guard guard guard dest ");
  CHECK_EQ_INT(ilk_router_pending_link(r, buf, sizeof buf), 0);
  res = (ilk_result *)buf;
  CHECK_EQ_INT(ilk_router_replay_pending_link(r, &res), ILK_OK);
  CHECK(res == NULL);
  allow = 0;
  resolve(r, NULL, "myapp://account/x", &res); ilk_result_free(res);
  CHECK_EQ_INT(ilk_router_take_pending_link(r, buf, sizeof buf), 17);
  CHECK_EQ_STR(buf, "myapp://account/x");
  CHECK_EQ_INT(ilk_router_pending_link(r, NULL, 0), 0);
  /* replacing the guard frees the old userdata at once */
  CHECK_EQ_INT(ilk_router_set_guard(r, id, NULL, NULL, NULL), ILK_OK);
  CHECK_EQ_INT(frees, 1);
  CHECK_EQ_INT(ilk_router_replay_pending_link(NULL, &res), ILK_EINVAL);
  ilk_router_free(r);
}

static int req_abort(ilk_request *req, void *userdata) {
  (void)userdata;
  ilk_request_set_error(req, "no entry");
  return ILK_ABORT;
}
static int req_count(ilk_request *req, void *userdata) {
  const char *c = ilk_request_metadata(req, "count");
  char buf[16];
  (void)userdata;
  snprintf(buf, sizeof buf, "%d", c ? atoi(c) + 1 : 1);
  ilk_request_set_metadata(req, "count", buf);
  ilk_request_set_param(req, "added", "by-interceptor");
  return ILK_CONTINUE;
}
static int attempts;
static int dest_flaky(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)userdata;
  attempts++;
  /* every attempt starts from the original request: the count never piles up */
  CHECK_EQ_STR(ilk_request_metadata(req, "count"), "1");
  CHECK_EQ_STR(ilk_request_param(req, "added"), "by-interceptor");
  ilk_response_set_status(res, attempts < 3 ? 429 : 200);
  return ILK_OK;
}
/* In the manner of CDT's replay-on-429: a retry count in the state, bounded. */
static int replay_429(ilk_request *req, ilk_response *res, void *userdata) {
  const char *n = ilk_request_state(req, "com.example.replay429.count");
  int done = n ? atoi(n) : 0;
  char buf[16];
  (void)userdata;
  if (ilk_response_status(res) != 429 || done >= 5) return ILK_CONTINUE;
  snprintf(buf, sizeof buf, "%d", done + 1);
  ilk_request_set_state(req, "com.example.replay429.count", buf);
  return ILK_RETRY;
}
static int retries_asked;
static int res_retry(ilk_request *req, ilk_response *res, void *userdata) {
  (void)req; (void)res; (void)userdata;
  retries_asked++;
  return ILK_RETRY;
}
static int res_fail(ilk_request *req, ilk_response *res, void *userdata) {
  (void)req; (void)userdata; ilk_response_set_error(res, "interceptor failed"); return -1;
}

static void test_abort_and_retry(void) {
  ilk_router *r;
  ilk_interceptor *i;
  ilk_result *res;
  char error[256];
  int status500 = 500;
  order[0] = 0;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/a", dest_mark, NULL, NULL, NULL);
  ilk_interceptor_new_request(&i, "deny", req_abort, NULL, NULL);
  ilk_router_add_interceptor(r, i, 0);
  ilk_interceptor_free(i);
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_ABORTED);
  CHECK_EQ_STR(ilk_result_error(res), "no entry");
  CHECK_EQ_STR(order, "");
  ilk_result_free(res);
  ilk_router_free(r);

  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/a", dest_mark, &status500, NULL, NULL);
  CHECK_EQ_INT(ilk_interceptor_new_validate_status(&i, 300, 200), ILK_EINVAL);
  CHECK_EQ_INT(ilk_interceptor_new_validate_status(&i, 200, 299), ILK_OK);
  ilk_router_add_interceptor(r, i, 0);
  ilk_interceptor_free(i);
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_ABORTED);
  CHECK_EQ_STR(ilk_result_error(res), "status 500 is outside 200...299");
  CHECK_EQ_INT(ilk_result_response_status(res), 200);   /* the response was discarded */
  ilk_result_free(res);
  ilk_router_free(r);

  attempts = 0;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/flaky", dest_flaky, NULL, NULL, NULL);
  ilk_interceptor_new_request(&i, "count", req_count, NULL, NULL); ilk_router_add_interceptor(r, i, 0); ilk_interceptor_free(i);
  ilk_interceptor_new_response(&i, "replay-429", replay_429, NULL, NULL); ilk_router_add_interceptor(r, i, 0); ilk_interceptor_free(i);
  CHECK_EQ_INT(resolve(r, NULL, "/flaky", &res), ILK_OK);
  CHECK_EQ_INT(attempts, 3);
  CHECK_EQ_INT(ilk_result_response_status(res), 200);
  CHECK_EQ_STR(ilk_result_state(res, "com.example.replay429.count"), "2");
  ilk_result_free(res);
  ilk_router_free(r);

  ilk_interceptor_new_response(&i, "again", res_retry, NULL, NULL);
  retries_asked = 0;
  CHECK_EQ_INT(resolve_with_interceptor(i, error, sizeof error), ILK_RETRY_LIMIT);
  CHECK_EQ_INT(retries_asked, ILK_DEFAULT_RETRY_LIMIT + 1);   /* the retries allowed, then the one refused */
  ilk_interceptor_free(i);

  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/x", NULL, NULL, NULL, NULL);
  ilk_interceptor_new_response(&i, "broken", res_fail, NULL, NULL); ilk_router_add_interceptor(r, i, 0); ilk_interceptor_free(i);
  CHECK_EQ_INT(resolve(r, NULL, "/x", &res), ILK_ECALLBACK);
  CHECK_EQ_STR(ilk_result_error(res), "interceptor failed");
  ilk_result_free(res);
  CHECK_EQ_INT(resolve(r, NULL, "/nothing", &res), ILK_NOT_FOUND);   /* still usable */
  ilk_result_free(res);
  ilk_router_free(r);
}

static void test_composition(void) {
  ilk_router *r;
  ilk_interceptor *a, *b, *c, *d, *ab, *ba, *nested, *list[3], *x, *mixed;
  ilk_result *res;
  order[0] = 0;
  frees = 0;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "/x", NULL, NULL, NULL, NULL);
  ilk_interceptor_new_request(&a, "a", req_mark, "a", count_free);
  ilk_interceptor_new_request(&b, "b", req_mark, "b", NULL);
  ilk_interceptor_new_request(&c, "c", req_mark, "c", NULL);
  ilk_interceptor_new_request(&d, "d", req_mark, "d", NULL);
  CHECK_EQ_INT(ilk_interceptor_chain_before(&ab, a, b), ILK_OK);
  CHECK_EQ_INT(ilk_interceptor_chain_after(&ba, a, b), ILK_OK);
  list[0] = c; list[1] = ab; list[2] = d;
  CHECK_EQ_INT(ilk_interceptor_chain_in_order(&nested, (const ilk_interceptor *const *)list, 3), ILK_OK);
  ilk_router_add_interceptor(r, ab, 0);
  ilk_router_add_interceptor(r, ba, 0);
  ilk_router_add_interceptor(r, nested, 0);
  ilk_interceptor_new_response(&x, "x", res_mark, "x", NULL);
  CHECK_EQ_INT(ilk_interceptor_chain_before(&mixed, a, x), ILK_EINVAL);
  CHECK(mixed == NULL);
  CHECK_EQ_INT(ilk_interceptor_chain_in_order(&mixed, NULL, 0), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_add_interceptor(r, a, 42), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_add_interceptor(NULL, a, 0), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_add_interceptor(r, NULL, 0), ILK_EINVAL);
  ilk_interceptor_free(a); ilk_interceptor_free(b); ilk_interceptor_free(c); ilk_interceptor_free(d);
  ilk_interceptor_free(ab); ilk_interceptor_free(ba); ilk_interceptor_free(nested); ilk_interceptor_free(x);
  ilk_interceptor_free(NULL);
  CHECK_EQ_INT(frees, 0);   /* the router still holds "a" */
  CHECK_EQ_INT(resolve(r, NULL, "/x", &res), ILK_OK);
  CHECK_EQ_STR(order, "a b b a c a b d ");
  ilk_result_free(res);
  ilk_router_free(r);
  CHECK_EQ_INT(frees, 1);
}

static char logged[512];
static void log_line(const char *line, void *userdata) { (void)userdata; strcat(logged, line); strcat(logged, "\n"); }

static void test_logging(void) {
  ilk_router *r;
  ilk_interceptor *req_side, *res_side;
  ilk_result *res;
  int created = 201;
  logged[0] = 0;
  frees = 0;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "GET /u/:id", dest_mark, &created, NULL, NULL);
  CHECK_EQ_INT(ilk_interceptor_new_logging(&req_side, &res_side, log_line, NULL, count_free), ILK_OK);
  ilk_router_add_interceptor(r, req_side, 0);
  ilk_router_add_interceptor(r, res_side, 0);
  ilk_interceptor_free(req_side);
  ilk_interceptor_free(res_side);
  CHECK_EQ_INT(resolve(r, "GET", "/u/7", &res), ILK_OK);
  CHECK_EQ_STR(logged, "-> GET /u/7 route=GET /u/:id params=id=7\n<- status 201, 0 bytes for /u/7\n");
  ilk_result_free(res);
  ilk_router_free(r);
  CHECK_EQ_INT(frees, 1);
  CHECK_EQ_INT(ilk_interceptor_new_logging(NULL, &res_side, NULL, NULL, NULL), ILK_EINVAL);
}

static ilk_router *nested_router;
static int dest_nested(const ilk_request *req, ilk_response *res, void *userdata) {
  ilk_result *inner;
  (void)req; (void)userdata;
  if (ilk_router_resolve(nested_router, NULL, "/inner", 6, &inner) != ILK_OK) return -1;
  ilk_response_set_status(res, ilk_result_response_status(inner));
  ilk_result_free(inner);
  return ilk_router_add_route(nested_router, "/added-later", NULL, NULL, NULL, NULL);
}

static void test_nested_and_url_for(void) {
  ilk_result *res;
  int teapot = 418;
  char buf[64];
  size_t len;
  const char *names[] = {"q", "n"};
  const char *values[] = {"caf\xC3\xA9 au lait", "2"};
  ilk_router_new(&nested_router, 0);
  ilk_router_add_route(nested_router, "/outer", dest_nested, NULL, NULL, NULL);
  ilk_router_add_route(nested_router, "/inner", dest_mark, &teapot, NULL, NULL);
  CHECK_EQ_INT(resolve(nested_router, NULL, "/outer", &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 418);
  ilk_result_free(res);
  CHECK_EQ_INT(resolve(nested_router, NULL, "/added-later", &res), ILK_OK);
  ilk_result_free(res);

  ilk_router_add_named_route(nested_router, "/search(/:q(/page/:n(\\d+)))", "search", NULL, NULL, NULL, NULL);
  CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", names, values, 2, buf, sizeof buf, &len), ILK_OK);
  CHECK_EQ_STR(buf, "/search/caf%C3%A9%20au%20lait/page/2");
  CHECK_EQ_INT(len, strlen(buf));
  CHECK_EQ_INT(resolve(nested_router, NULL, buf, &res), ILK_OK);
  CHECK_EQ_STR(ilk_request_param(ilk_result_request(res), "q"), "caf\xC3\xA9 au lait");
  ilk_result_free(res);
  CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", names, values, 1, buf, sizeof buf, &len), ILK_OK);
  CHECK_EQ_STR(buf, "/search/caf%C3%A9%20au%20lait");
  CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", NULL, NULL, 0, buf, sizeof buf, NULL), ILK_OK);
  CHECK_EQ_STR(buf, "/search");
  values[1] = "two";
  CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", names, values, 2, buf, sizeof buf, NULL), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "constraint") != NULL);
  CHECK_EQ_INT(ilk_router_url_for(nested_router, "nope", NULL, NULL, 0, buf, sizeof buf, NULL), ILK_ENOROUTE);
  CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", names, values, 1, buf, 4, &len), ILK_EINVAL);
  CHECK_EQ_INT(len, 29);
  CHECK_EQ_INT(ilk_router_url_for(nested_router, NULL, NULL, NULL, 0, buf, sizeof buf, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", NULL, values, 1, buf, sizeof buf, NULL), ILK_EINVAL);
  {
    /* A parameter the route does not have, one given twice, or one whose optional part needs
     * another: refused, naming it (they were ignored, or the last one taken). */
    const char *unknown[] = {"q", "zz"}, *twice[] = {"q", "q"}, *inner[] = {"n"}, *page[] = {"page"};
    const char *two[] = {"a", "b"}, *one[] = {"2"};
    CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", unknown, two, 2, buf, sizeof buf, NULL), ILK_EINVAL);
    CHECK_EQ_STR(ilk_errmsg(), "route 'search' has no parameter 'zz' (it has 'q', 'n')");
    CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", twice, two, 2, buf, sizeof buf, NULL), ILK_EINVAL);
    CHECK_EQ_STR(ilk_errmsg(), "parameter 'q' is given twice");
    CHECK_EQ_INT(ilk_router_url_for(nested_router, "search", inner, one, 1, buf, sizeof buf, NULL), ILK_EINVAL);
    CHECK(strstr(ilk_errmsg(), "holds 'n' only in optional parts that also need 'q'") != NULL);
    /* the variant holding exactly the parameters given: a part without them is left out */
    CHECK_EQ_INT(ilk_router_add_named_route(nested_router, "/p(/reviews(/:page(\\d+)))", "p", NULL, NULL, NULL, NULL), ILK_OK);
    CHECK_EQ_INT(ilk_router_url_for(nested_router, "p", NULL, NULL, 0, buf, sizeof buf, NULL), ILK_OK);
    CHECK_EQ_STR(buf, "/p");
    CHECK_EQ_INT(ilk_router_url_for(nested_router, "p", page, one, 1, buf, sizeof buf, NULL), ILK_OK);
    CHECK_EQ_STR(buf, "/p/reviews/2");
  }
  CHECK_EQ_INT(ilk_router_add_named_route(nested_router, "/other", "search", NULL, NULL, NULL, NULL), ILK_ECONFLICT);
  CHECK_EQ_INT(ilk_router_add_named_route(nested_router, "/other", NULL, NULL, NULL, NULL, NULL), ILK_EINVAL);
  ilk_router_free(nested_router);
}

static void test_null_arguments(void) {
  ilk_interceptor *i;
  CHECK_EQ_STR(ilk_errstr(ILK_STOPPED), "stopped");
  CHECK_EQ_STR(ilk_errstr(ILK_GUARDED), "guarded");
  CHECK_EQ_STR(ilk_errstr(ILK_RETRY_LIMIT), "retry limit");
  CHECK_EQ_INT(ilk_router_add_filter(NULL, "f", filter_stop, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_interceptor_new_request(NULL, "x", req_mark, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_interceptor_new_request(&i, "x", NULL, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_interceptor_new_response(&i, "x", NULL, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_interceptor_chain_before(NULL, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_filter_chain_next(NULL, NULL), ILK_EINVAL);
  CHECK(ilk_filter_chain_response(NULL) == NULL);
  CHECK_EQ_INT(ilk_filter_chain_redirect(NULL, "/a"), ILK_EINVAL);
  CHECK_EQ_INT(ilk_filter_chain_redirect_to_route(NULL, "a", NULL, NULL, 0), ILK_EINVAL);
  CHECK_EQ_INT(ilk_router_set_guard(NULL, 1, guard_allow, NULL, NULL), ILK_EINVAL);
  CHECK(ilk_request_metadata(NULL, "k") == NULL);
  CHECK_EQ_INT(ilk_request_set_metadata(NULL, "k", "v"), ILK_EINVAL);
  CHECK_EQ_INT(ilk_request_set_param(NULL, "k", "v"), ILK_EINVAL);
  CHECK(ilk_request_state(NULL, "k") == NULL);
  CHECK_EQ_INT(ilk_request_set_state(NULL, "k", "v"), ILK_EINVAL);
  CHECK_EQ_INT(ilk_request_set_error(NULL, "m"), ILK_EINVAL);
  CHECK_EQ_INT(ilk_response_status(NULL), 0);
  CHECK(ilk_response_body(NULL, NULL) == NULL);
  CHECK_EQ_INT(ilk_result_redirect_count(NULL), 0);
  CHECK(ilk_result_redirect_at(NULL, 0) == NULL);
  CHECK_EQ_INT(ilk_result_trace_count(NULL), 0);
  CHECK_EQ_INT(ilk_result_trace_at(NULL, 0, NULL, NULL, NULL), ILK_EINVAL);
  CHECK(ilk_result_state(NULL, "k") == NULL);
  CHECK_EQ_INT(ilk_router_pending_link(NULL, NULL, 0), 0);
  CHECK_EQ_INT(ilk_router_take_pending_link(NULL, NULL, 0), 0);
  CHECK_EQ_INT(ilk_router_url_for(NULL, "a", NULL, NULL, 0, NULL, 0, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_interceptor_new_validate_status(NULL, 200, 299), ILK_EINVAL);
}

/* A result keeps its trace, never the router's callbacks: freeing the router frees every
 * callback's userdata at once, even while a result of it lives, and the trace still reads. */
static void test_result_outlives_router(void) {
  ilk_router *r;
  ilk_interceptor *i;
  ilk_result *res;
  frees = 0;
  CHECK_EQ_INT(ilk_router_new(&r, 0), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_route(r, "/a/:x", dest_mark, NULL, count_free, NULL), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_filter(r, "a-filter-with-a-long-name", filter_mark, "f", count_free), ILK_OK);
  CHECK_EQ_INT(ilk_interceptor_new_request(&i, "request-side", req_mark, "req", count_free), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_interceptor(r, i, 1), ILK_OK);
  ilk_interceptor_free(i);
  CHECK_EQ_INT(ilk_interceptor_new_response(&i, "response-side", res_mark, "res", count_free), ILK_OK);
  CHECK_EQ_INT(ilk_router_add_interceptor(r, i, 0), ILK_OK);
  ilk_interceptor_free(i);
  CHECK_EQ_INT(resolve(r, NULL, "/a/1", &res), ILK_OK);
  ilk_router_free(r);
  CHECK_EQ_INT(frees, 4);
  CHECK_EQ_INT((int)ilk_result_trace_count(res), 5);
  const char *stage, *name, *decision;
  CHECK_EQ_INT(ilk_result_trace_at(res, 1, &stage, &name, &decision), ILK_OK);
  CHECK_EQ_STR(name, "request-side");
  CHECK_EQ_INT(ilk_result_trace_at(res, 2, &stage, &name, &decision), ILK_OK);
  CHECK_EQ_STR(name, "a-filter-with-a-long-name");
  CHECK_EQ_STR(decision, "continue");
  CHECK_EQ_INT(ilk_result_trace_at(res, 3, &stage, &name, &decision), ILK_OK);
  CHECK_EQ_STR(name, "/a/:x");
  CHECK_EQ_STR(decision, "ran");
  ilk_result_free(res);
  CHECK_EQ_INT(frees, 4);
}

/* Ill-formed UTF-8 in what the library keeps as data (names, keys, values, headers, redirect
   targets) is refused with ILK_EINVAL and the offset where the sequence begins: it used to be
   replaced by U+FFFD, so "a\xFFb" became "a\xEF\xBF\xBDb" without a word. */
static int setter_codes[6];
static int dest_bad_bytes(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)userdata;
  ilk_request *r = (ilk_request *)req;
  setter_codes[0] = ilk_response_add_header(res, "X-Bad", "a\xFF" "b");
  setter_codes[1] = ilk_request_set_metadata(r, "k\xC3", "v");
  setter_codes[2] = ilk_request_set_param(r, "id", "\xE2\x82");
  setter_codes[3] = ilk_request_set_state(r, "k", "\xED\xA0\x80");
  setter_codes[4] = ilk_response_add_header(res, "X-Good", "\xC3\xA9");
  setter_codes[5] = ilk_request_metadata(r, "k\xC3") == NULL;
  return ILK_OK;
}

static int filter_bad_redirect(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)req; (void)userdata;
  CHECK_EQ_INT(ilk_filter_chain_redirect(chain, "/x\xFF"), ILK_EINVAL);
  CHECK_EQ_INT(ilk_erroffset(), 2);
  const char *names[] = {"id"}, *values[] = {"\xFF"};
  CHECK_EQ_INT(ilk_filter_chain_redirect_to_route(chain, "user", names, values, 1), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "parameter value 0 is not valid UTF-8") != NULL);
  return ilk_filter_chain_next(chain, req);
}

static void test_ill_formed_utf8(void) {
  ilk_router *r;
  ilk_router_new(&r, 0);
  CHECK_EQ_INT(ilk_router_add_named_route(r, "/n/:id", "na\xFFme", NULL, NULL, NULL, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_erroffset(), 2);
  CHECK(strstr(ilk_errmsg(), "route name is not valid UTF-8") != NULL);
  CHECK_EQ_INT(ilk_router_route_count(r), 0);
  CHECK_EQ_INT(ilk_router_add_named_route(r, "/u/:id", "user", dest_bad_bytes, NULL, NULL, NULL), ILK_OK);
  char buf[64];
  size_t len = 0;
  const char *names[] = {"id"}, *bad[] = {"a\xFF" "b"}, *good[] = {"\xC3\xA9"};
  CHECK_EQ_INT(ilk_router_url_for(r, "user", names, bad, 1, buf, sizeof buf, &len), ILK_EINVAL);
  CHECK_EQ_INT(ilk_erroffset(), 1);
  CHECK_EQ_INT(ilk_router_url_for(r, "user", names, good, 1, buf, sizeof buf, &len), ILK_OK);
  CHECK_EQ_STR(buf, "/u/%C3%A9");
  frees = 0;
  CHECK_EQ_INT(ilk_router_add_filter(r, "bad\xC3", filter_bad_redirect, NULL, count_free), ILK_EINVAL);
  CHECK_EQ_INT(frees, 0); /* refused: the userdata stays the caller's */
  CHECK_EQ_INT(ilk_router_add_filter(r, "redirects", filter_bad_redirect, NULL, NULL), ILK_OK);
  ilk_interceptor *i = NULL;
  CHECK_EQ_INT(ilk_interceptor_new_request(&i, "\xFF", req_mark, NULL, NULL), ILK_EINVAL);
  CHECK(i == NULL);
  ilk_result *res = NULL;
  CHECK_EQ_INT(resolve(r, NULL, "/u/7", &res), ILK_OK);
  for (int k = 0; k < 4; k++) CHECK_EQ_INT(setter_codes[k], ILK_EINVAL);
  CHECK_EQ_INT(setter_codes[4], ILK_OK);
  CHECK_EQ_INT(setter_codes[5], 1);
  CHECK_EQ_INT((int)ilk_result_header_count(res), 1);
  CHECK_EQ_STR(ilk_request_param(ilk_result_request(res), "id"), "7");
  ilk_result_free(res);
  ilk_router_free(r);
}

/* A filter that calls next and then stops or redirects: the destination already ran, so the
 * resolve is an error naming the filter, not ILK_STOPPED (or a second destination). */
static int filter_next_then_stop(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  ilk_filter_chain_next(chain, req);
  return ILK_STOP;
}
static int filter_next_then_redirect(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  ilk_filter_chain_next(chain, req);
  ilk_filter_chain_redirect(chain, "/b");
  return ILK_REDIRECT;
}
static void test_filter_decides_once(void) {
  ilk_router *r;
  ilk_result *res;
  r = router_with_filter("late-stop", filter_next_then_stop, NULL);
  ilk_router_add_route(r, "/b", dest_mark, NULL, NULL, NULL);
  order[0] = 0;
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_ECALLBACK);
  CHECK(strstr(ilk_result_error(res), "late-stop") != NULL);
  CHECK(strstr(ilk_result_error(res), "returned stop") != NULL);
  ilk_result_free(res);
  ilk_router_free(r);

  r = router_with_filter("late-redirect", filter_next_then_redirect, NULL);
  ilk_router_add_route(r, "/b", dest_mark, NULL, NULL, NULL);
  order[0] = 0;
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_ECALLBACK);
  CHECK(strstr(ilk_result_error(res), "late-redirect") != NULL);
  CHECK_EQ_STR(order, "dest ");                       /* one destination, not two */
  CHECK_EQ_INT(ilk_result_redirect_count(res), 0);
  ilk_result_free(res);
  ilk_router_free(r);
}

/* Turnpike's idiom: a filter returns what ilk_filter_chain_next gave, whatever the rest of the chain
 * ended with (a miss, a 405, a later filter's stop or redirect, a guard's refusal, an abort, a
 * retry), and the resolve ends as if the filter were not there. Each filter records what next gave. */
static char passed[256];
static int filter_pass(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  int rc = ilk_filter_chain_next(chain, req);
  char buf[16];
  snprintf(buf, sizeof buf, "%d ", rc);
  strcat(passed, buf);
  return rc;
}
static int filter_stop_b(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  if (strcmp(ilk_request_path(req), "/b") == 0) return ILK_STOP;
  return ilk_filter_chain_next(chain, req);
}
static int filter_move_c(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  if (strcmp(ilk_request_path(req), "/c") == 0) {
    ilk_filter_chain_redirect(chain, "/a");
    return ILK_REDIRECT;
  }
  return ilk_filter_chain_next(chain, req);
}
static int guard_refuse(const ilk_request *req, void *userdata) { (void)req; (void)userdata; return 0; }
static int res_abort(ilk_request *req, ilk_response *res, void *userdata) {
  (void)req; (void)userdata; ilk_response_set_error(res, "refused"); return ILK_ABORT;
}
static int res_retry_once(ilk_request *req, ilk_response *res, void *userdata) {
  (void)res; (void)userdata;
  if (ilk_request_state(req, "com.example.retried")) return ILK_CONTINUE;
  ilk_request_set_state(req, "com.example.retried", "yes");
  return ILK_RETRY;
}

static void test_filter_passes_on(void) {
  ilk_router *r;
  ilk_result *res;
  ilk_interceptor *i;
  uint32_t guarded, aborted, retried;
  const char *stage, *name, *decision;
  char expect[64];
  /* The verbs are apart from every status a filter may pass on. */
  CHECK(ILK_STOP > ILK_RETRYING && ILK_REDIRECT > ILK_RETRYING && ILK_ABORT > ILK_RETRYING && ILK_RETRY > ILK_RETRYING);
  CHECK_EQ_INT(ILK_CONTINUE, ILK_OK);

  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "GET /a", dest_mark, NULL, NULL, NULL);
  ilk_router_add_route(r, "/g", dest_mark, NULL, NULL, &guarded);
  ilk_router_set_guard(r, guarded, guard_refuse, NULL, NULL);
  ilk_router_add_route(r, "/x", dest_mark, NULL, NULL, &aborted);
  ilk_interceptor_new_response(&i, "no", res_abort, NULL, NULL); ilk_router_add_interceptor(r, i, aborted); ilk_interceptor_free(i);
  ilk_router_add_route(r, "/y", dest_mark, NULL, NULL, &retried);
  ilk_interceptor_new_response(&i, "again", res_retry_once, NULL, NULL); ilk_router_add_interceptor(r, i, retried); ilk_interceptor_free(i);
  ilk_router_add_filter(r, "outer", filter_pass, NULL, NULL);
  ilk_router_add_filter(r, "stop-b", filter_stop_b, NULL, NULL);
  ilk_router_add_filter(r, "move-c", filter_move_c, NULL, NULL);
  ilk_router_add_filter(r, "inner", filter_pass, NULL, NULL);

  passed[0] = 0; order[0] = 0;
  CHECK_EQ_INT(resolve(r, "GET", "/a", &res), ILK_OK);
  CHECK_EQ_STR(passed, "0 0 ");
  CHECK_EQ_STR(order, "dest ");
  CHECK_EQ_INT(ilk_result_trace_at(res, 1, &stage, &name, &decision), ILK_OK);
  CHECK_EQ_STR(name, "outer"); CHECK_EQ_STR(decision, "continue");
  ilk_result_free(res);

  passed[0] = 0;   /* a miss: the 404 response too */
  CHECK_EQ_INT(resolve(r, NULL, "/nothing", &res), ILK_NOT_FOUND);
  snprintf(expect, sizeof expect, "%d %d ", ILK_NOT_FOUND, ILK_NOT_FOUND);
  CHECK_EQ_STR(passed, expect);
  CHECK_EQ_INT(ilk_result_response_status(res), 404);
  ilk_result_free(res);

  passed[0] = 0;   /* a 405, with its Allow header */
  CHECK_EQ_INT(resolve(r, "POST", "/a", &res), ILK_METHOD_NOT_ALLOWED);
  snprintf(expect, sizeof expect, "%d %d ", ILK_METHOD_NOT_ALLOWED, ILK_METHOD_NOT_ALLOWED);
  CHECK_EQ_STR(passed, expect);
  CHECK_EQ_INT(ilk_result_response_status(res), 405);
  CHECK_EQ_INT(ilk_result_allowed_count(res), 1);
  ilk_result_free(res);

  passed[0] = 0;   /* a later filter stops */
  CHECK_EQ_INT(resolve(r, NULL, "/b", &res), ILK_STOPPED);
  snprintf(expect, sizeof expect, "%d ", ILK_STOPPED);
  CHECK_EQ_STR(passed, expect);
  ilk_result_free(res);

  passed[0] = 0; order[0] = 0;   /* a later filter redirects: the resolve follows it */
  CHECK_EQ_INT(resolve(r, "GET", "/c", &res), ILK_OK);
  snprintf(expect, sizeof expect, "%d 0 0 ", ILK_REDIRECTED);
  CHECK_EQ_STR(passed, expect);
  CHECK_EQ_INT(ilk_result_redirect_count(res), 1);
  CHECK_EQ_STR(ilk_result_redirect_at(res, 0), "/a");
  CHECK_EQ_STR(order, "dest ");
  ilk_result_free(res);

  passed[0] = 0;   /* the guard refuses */
  CHECK_EQ_INT(resolve(r, NULL, "/g", &res), ILK_GUARDED);
  snprintf(expect, sizeof expect, "%d %d ", ILK_GUARDED, ILK_GUARDED);
  CHECK_EQ_STR(passed, expect);
  ilk_result_free(res);

  passed[0] = 0;   /* a response interceptor aborts */
  CHECK_EQ_INT(resolve(r, NULL, "/x", &res), ILK_ABORTED);
  snprintf(expect, sizeof expect, "%d %d ", ILK_ABORTED, ILK_ABORTED);
  CHECK_EQ_STR(passed, expect);
  CHECK_EQ_STR(ilk_result_error(res), "refused");
  ilk_result_free(res);

  passed[0] = 0;   /* a response interceptor retries, once */
  CHECK_EQ_INT(resolve(r, NULL, "/y", &res), ILK_OK);
  snprintf(expect, sizeof expect, "%d %d 0 0 ", ILK_RETRYING, ILK_RETRYING);
  CHECK_EQ_STR(passed, expect);
  ilk_result_free(res);
  ilk_router_free(r);
}

/* What a callback may not return: an error naming the callback, the value and what it may return. */
static int filter_returns(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  int rc = ilk_filter_chain_next(chain, req);
  (void)rc;
  return *(int *)userdata;
}
static int filter_returns_early(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)req; (void)chain;
  return *(int *)userdata;
}
static int req_returns(ilk_request *req, void *userdata) { (void)req; return *(int *)userdata; }
static int res_returns(ilk_request *req, ilk_response *res, void *userdata) { (void)req; (void)res; return *(int *)userdata; }

/* The route /a (dest_mark) behind the filter 'odd', `fn`, whose userdata is `returned`. */
static int resolve_with_filter(ilk_filter_fn fn, int returned, const char *uri, char *error, size_t room) {
  return resolve_once(router_with_filter("odd", fn, &returned), uri, error, room);
}


static void test_callback_returns_checked(void) {
  char error[512];
  ilk_interceptor *i;
  int value;

  CHECK_EQ_INT(resolve_with_filter(filter_returns, 57, "/a", error, sizeof error), ILK_ECALLBACK);
  CHECK_EQ_STR(error, "filter 'odd' returned 57; a filter returns what ilk_filter_chain_next gave (or ILK_CONTINUE) "
                      "after calling it, ILK_STOP or ILK_REDIRECT without calling it, or a negative error");
  CHECK_EQ_INT(resolve_with_filter(filter_returns, ILK_NOT_FOUND, "/a", error, sizeof error), ILK_ECALLBACK);
  CHECK(strstr(error, "filter 'odd' returned ILK_NOT_FOUND (1), but ilk_filter_chain_next gave ILK_OK (0); ") == error);
  CHECK_EQ_INT(resolve_with_filter(filter_returns, ILK_OK, "/nothing", error, sizeof error), ILK_NOT_FOUND);  /* continue */
  CHECK_EQ_INT(resolve_with_filter(filter_returns, ILK_REDIRECT_LOOP, "/nothing", error, sizeof error), ILK_ECALLBACK);
  CHECK(strstr(error, "filter 'odd' returned ILK_REDIRECT_LOOP (6); ") == error);   /* next never gives it */
  CHECK_EQ_INT(resolve_with_filter(filter_returns_early, ILK_NOT_FOUND, "/nothing", error, sizeof error), ILK_ECALLBACK);
  CHECK(strstr(error, "filter 'odd' returned ILK_NOT_FOUND (1) without calling ilk_filter_chain_next; ") == error);
  CHECK_EQ_INT(resolve_with_filter(filter_returns_early, ILK_ABORT, "/a", error, sizeof error), ILK_ECALLBACK);
  CHECK(strstr(error, "filter 'odd' returned ILK_ABORT (103); ") == error);
  CHECK_EQ_INT(resolve_with_filter(filter_returns_early, -5, "/a", error, sizeof error), ILK_ECALLBACK);
  CHECK_EQ_STR(error, "filter 'odd' returned -5");

  ilk_interceptor_new_request(&i, "odd-request", req_returns, &value, NULL);
  value = ILK_RETRY;
  CHECK_EQ_INT(resolve_with_interceptor(i, error, sizeof error), ILK_ECALLBACK);
  CHECK_EQ_STR(error, "request interceptor 'odd-request' returned ILK_RETRY (104); "
                      "a request interceptor returns ILK_CONTINUE, ILK_ABORT or a negative error");
  ilk_interceptor_free(i);

  ilk_interceptor_new_response(&i, "odd-response", res_returns, &value, NULL);
  value = ILK_STOP;
  CHECK_EQ_INT(resolve_with_interceptor(i, error, sizeof error), ILK_ECALLBACK);
  CHECK_EQ_STR(error, "response interceptor 'odd-response' returned ILK_STOP (101); "
                      "a response interceptor returns ILK_CONTINUE, ILK_ABORT, ILK_RETRY or a negative error");
  value = 9000;
  CHECK_EQ_INT(resolve_with_interceptor(i, error, sizeof error), ILK_ECALLBACK);
  CHECK(strstr(error, "returned 9000; ") != NULL);
  ilk_interceptor_free(i);
}

/* A filter whose redirect cannot be made (a route no one named) ran: the trace says so, with the
 * error, and so does every filter it ran inside. */
static int filter_to_nowhere(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)req; (void)userdata;
  ilk_filter_chain_redirect_to_route(chain, "nowhere", NULL, NULL, 0);
  return ILK_REDIRECT;
}
static void test_a_failed_redirect_is_traced(void) {
  ilk_router *r;
  ilk_result *res;
  const char *stage, *name, *decision;
  char expect[512];
  r = router_with_filter("outer", filter_pass, NULL);
  ilk_router_add_filter(r, "mover", filter_to_nowhere, NULL, NULL);
  order[0] = 0;
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_ECALLBACK);
  CHECK(strstr(ilk_result_error(res), "nowhere") != NULL);
  snprintf(expect, sizeof expect, "error: %s", ilk_result_error(res));
  CHECK_EQ_INT(ilk_result_trace_count(res), 4);
  CHECK_EQ_INT(ilk_result_trace_at(res, 1, &stage, &name, &decision), ILK_OK);
  CHECK_EQ_STR(name, "outer"); CHECK_EQ_STR(decision, "continue");
  CHECK_EQ_INT(ilk_result_trace_at(res, 2, &stage, &name, &decision), ILK_OK);
  CHECK_EQ_STR(stage, "filter"); CHECK_EQ_STR(name, "mover"); CHECK_EQ_STR(decision, expect);
  CHECK_EQ_INT(ilk_result_trace_at(res, 3, &stage, &name, &decision), ILK_OK);
  CHECK_EQ_STR(stage, "filter"); CHECK_EQ_STR(name, "outer"); CHECK_EQ_STR(decision, expect);
  CHECK_EQ_STR(order, "");
  ilk_result_free(res);
  ilk_router_free(r);
}

/* Removing a parameter reaches the destination; setting one replaces or adds. */
static int filter_unset(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  if (ilk_request_remove_param(req, "a") != ILK_OK) return -1;
  if (ilk_request_remove_param(req, "never-bound") != ILK_OK) return -1;
  if (ilk_request_param(req, "a") != NULL) return -1;
  return ilk_filter_chain_next(chain, req) < 0 ? -1 : ILK_CONTINUE;
}
/* The destination of /p/:a/:b marks the parameters it sees: "count:a:b" ("-" for one unbound). */
static int dest_a_b(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)res; (void)userdata;
  const char *a = ilk_request_param(req, "a"), *b = ilk_request_param(req, "b");
  char buf[64];
  snprintf(buf, sizeof buf, "%zu:%s:%s", ilk_request_param_count(req), a ? a : "-", b ? b : "-");
  mark(buf);
  return ILK_OK;
}
/* The marks of resolving `uri` under /p/:a/:b (dest_a_b) with the one filter `filter`. */
static const char *marks_with_filter(ilk_filter_fn filter, const char *uri) {
  ilk_router *r = router_with_route_and_filter("/p/:a/:b", dest_a_b, "filter", filter, NULL);
  ilk_result *res;
  order[0] = 0;
  CHECK_EQ_INT(resolve(r, NULL, uri, &res), ILK_OK);
  ilk_result_free(res);
  ilk_router_free(r);
  return order;
}
static void test_remove_param(void) {
  CHECK_EQ_STR(marks_with_filter(filter_unset, "/p/1/2"), "1:-:2 ");
  CHECK_EQ_INT(ilk_request_remove_param(NULL, "a"), ILK_EINVAL);
}

/* A parameter read before the request changes stays readable as it was (its strings live as long
 * as the request), and a read after the change sees the change. */
static int filter_reads_then_changes(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  const char *name = NULL, *value = NULL, *name2 = NULL, *value2 = NULL;
  if (ilk_request_param_at(req, 0, &name, NULL, &value, NULL) != ILK_OK) return -1;
  if (ilk_request_set_param(req, "a", "changed") != ILK_OK || ilk_request_remove_param(req, "b") != ILK_OK) return -1;
  if (ilk_request_param_at(req, 0, &name2, NULL, &value2, NULL) != ILK_OK) return -1;
  char buf[96];
  snprintf(buf, sizeof buf, "%s=%s %s=%s %zu", name, value, name2, value2, ilk_request_param_count(req));
  mark(buf);
  return ilk_filter_chain_next(chain, req) < 0 ? -1 : ILK_CONTINUE;
}
static void test_parameters_read_before_a_change(void) {
  CHECK_EQ_STR(marks_with_filter(filter_reads_then_changes, "/p/1%202/3"), "a=1 2 a=changed 1 1:changed:- ");
}

/* The result's response says what happened: 404, 405 with Allow, the last attempt's response. */
static int dest_status(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)req; (void)userdata;
  CHECK_EQ_INT(ilk_response_set_status(res, 99), ILK_EINVAL);
  CHECK(strstr(ilk_errmsg(), "outside 100...599") != NULL);
  CHECK_EQ_INT(ilk_response_set_status(res, 600), ILK_EINVAL);
  CHECK_EQ_INT(ilk_response_set_status(res, -1), ILK_EINVAL);
  CHECK_EQ_INT(ilk_response_set_status(res, 599), ILK_OK);
  return ilk_response_set_status(res, 503);
}
static void test_answer_responses(void) {
  ilk_router *r;
  ilk_result *res;
  ilk_interceptor *i;
  const char *name, *value;
  ilk_router_new(&r, 0);
  ilk_router_add_route(r, "GET /m", NULL, NULL, NULL, NULL);
  ilk_router_add_route(r, "PUT /m", NULL, NULL, NULL, NULL);
  ilk_router_add_route(r, "/again", dest_status, NULL, NULL, NULL);
  CHECK_EQ_INT(resolve(r, "POST", "/m", &res), ILK_METHOD_NOT_ALLOWED);
  CHECK_EQ_INT(ilk_result_response_status(res), 405);
  CHECK_EQ_INT((int)ilk_result_header_count(res), 1);
  CHECK_EQ_INT(ilk_result_header_at(res, 0, &name, &value), ILK_OK);
  CHECK_EQ_STR(name, "Allow");
  CHECK_EQ_STR(value, "GET, PUT");
  ilk_result_free(res);
  CHECK_EQ_INT(resolve(r, NULL, "/none", &res), ILK_NOT_FOUND);
  CHECK_EQ_INT(ilk_result_response_status(res), 404);
  ilk_result_free(res);
  ilk_interceptor_new_response(&i, "again", res_retry, NULL, NULL); ilk_router_add_interceptor(r, i, 0); ilk_interceptor_free(i);
  CHECK_EQ_INT(resolve(r, NULL, "/again", &res), ILK_RETRY_LIMIT);
  CHECK_EQ_INT(ilk_result_response_status(res), 503);
  ilk_result_free(res);
  ilk_router_free(r);
  CHECK_EQ_INT(ilk_response_set_status(NULL, 200), ILK_EINVAL);
}

/* Parameters are read in any order, again, and after a change that copies the request but not its
 * parameters (metadata): each index gives its own name and value. */
static void read_params_backwards(const ilk_request *req, char *buf, size_t room) {
  size_t n = ilk_request_param_count(req), used = 0;
  for (size_t k = n; k-- > 0;) {
    const char *name = NULL, *value = NULL;
    if (ilk_request_param_at(req, k, &name, NULL, &value, NULL) != ILK_OK) { snprintf(buf, room, "error"); return; }
    used += (size_t)snprintf(buf + used, room - used, "%s=%s,", name, value);
  }
  const char *name = NULL, *value = NULL;
  if (n > 0 && ilk_request_param_at(req, n - 1, &name, NULL, &value, NULL) == ILK_OK)
    snprintf(buf + used, room - used, "again %s=%s", name, value);
}
static int filter_reads_in_any_order(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  const char *name = NULL, *value = NULL;
  if (ilk_request_param_at(req, 2, &name, NULL, &value, NULL) != ILK_OK) return -1;
  char buf[160];
  size_t used = (size_t)snprintf(buf, sizeof buf, "%s=%s ", name, value);
  if (ilk_request_set_metadata(req, "k", "v") != ILK_OK) return -1;
  read_params_backwards(req, buf + used, sizeof buf - used);
  mark(buf);
  return ilk_filter_chain_next(chain, req) < 0 ? -1 : ILK_CONTINUE;
}
static void test_parameters_read_in_any_order(void) {
  ilk_router *r = router_with_route_and_filter("/p/:a/:b/:c", NULL, "any-order", filter_reads_in_any_order, NULL);
  ilk_result *res;
  order[0] = 0;
  CHECK_EQ_INT(resolve(r, NULL, "/p/one/two/three", &res), ILK_OK);
  CHECK_EQ_STR(order, "c=three c=three,b=two,a=one,again c=three ");
  char buf[160] = {0};
  read_params_backwards(ilk_result_request(res), buf, sizeof buf);
  CHECK_EQ_STR(buf, "c=three,b=two,a=one,again c=three");
  const char *name = NULL, *value = NULL;
  CHECK_EQ_INT(ilk_request_param_at(ilk_result_request(res), 3, &name, NULL, &value, NULL), ILK_EINVAL);
  CHECK_EQ_INT(ilk_request_param_at(ilk_result_request(res), 1, &name, NULL, &value, NULL), ILK_OK);
  CHECK_EQ_STR(value, "two");
  ilk_result_free(res);
  ilk_router_free(r);
}

/* Stops with a 401 and a body, written to the chain's response before next (which it never calls). */
static int filter_deny(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)req; (void)userdata;
  ilk_response *res = ilk_filter_chain_response(chain);
  if (res == NULL) return -1;
  ilk_response_set_status(res, 401);
  ilk_response_set_body(res, "no", 2);
  ilk_response_add_header(res, "WWW-Authenticate", "Bearer");
  return ILK_STOP;
}

/* Takes the chain's response before next (writing a header a stop would answer with), then sets
 * the status after next through the same pointer: it is now the rest's response. */
static int filter_response_across_next(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  ilk_response *res = ilk_filter_chain_response(chain);
  ilk_response_add_header(res, "X-Dropped", "1");
  int rc = ilk_filter_chain_next(chain, req);
  if (ilk_filter_chain_response(chain) != res) return -1;
  ilk_response_set_status(res, 203);
  return rc;
}
static void test_filter_response_across_next(void) {
  ilk_router *r = router_with_filter("across", filter_response_across_next, NULL);
  ilk_result *res;
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_OK);
  CHECK_EQ_INT(ilk_result_response_status(res), 203);
  CHECK_EQ_INT((int)ilk_result_header_count(res), 0);
  ilk_result_free(res);
  ilk_router_free(r);
}

/* A filter that stops answers with the response it wrote; a stop that wrote none is an empty 200,
 * and no destination runs either way. */
static void test_filter_stops_with_a_response(void) {
  ilk_router *r = router_with_filter("deny", filter_deny, NULL);
  ilk_result *res;
  const char *name = NULL, *value = NULL;
  size_t len;
  order[0] = 0;
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_STOPPED);
  CHECK_EQ_INT(ilk_result_response_status(res), 401);
  CHECK(memcmp(ilk_result_body(res, &len), "no", 2) == 0 && len == 2);
  CHECK(ilk_result_header_count(res) == 1 && ilk_result_header_at(res, 0, &name, &value) == ILK_OK);
  CHECK_EQ_STR(name, "WWW-Authenticate");
  CHECK_EQ_STR(order, "");
  ilk_result_free(res);
  ilk_router_free(r);
  r = router_with_filter("stop", filter_stop, NULL);
  CHECK_EQ_INT(resolve(r, NULL, "/a", &res), ILK_STOPPED);
  CHECK_EQ_INT(ilk_result_response_status(res), 200);
  CHECK(ilk_result_body(res, &len) != NULL && len == 0);
  ilk_result_free(res);
  ilk_router_free(r);
  CHECK(ilk_filter_chain_response(NULL) == NULL);
}

int main(void) {
  test_order();
  test_filter_changes_request();
  test_filters();
  test_guard_and_pending_link();
  test_abort_and_retry();
  test_composition();
  test_logging();
  test_nested_and_url_for();
  test_null_arguments();
  test_result_outlives_router();
  test_ill_formed_utf8();
  test_filter_decides_once();
  test_filter_passes_on();
  test_callback_returns_checked();
  test_a_failed_redirect_is_traced();
  test_remove_param();
  test_parameters_read_before_a_change();
  test_parameters_read_in_any_order();
  test_answer_responses();
  test_filter_stops_with_a_response();
  test_filter_response_across_next();
  return check_summary("test_pipeline");
}
