/* Every size_t argument of the ABI at sizes no array or buffer can have (SIZE_MAX, and 2^63, the
 * first that a signed 64-bit integer cannot hold): each call returns its documented error, or
 * treats a capacity as room enough, and never crashes. Each call runs in a child process, so a
 * crash is counted as a failure naming the call instead of ending the test. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "interlock.h"

static const size_t huge[] = {SIZE_MAX, (size_t)1 << 63};
static size_t H;                   /* the huge size the running case tries */

static ilk_router *router_with_routes(void);

/* What every case works on: a router (router_with_routes), a lookup state and a batch. */
typedef struct fixture {
    ilk_router *r;
    ilk_match *m;
    ilk_match_batch *b;
} fixture;

/* Runs `body` in a child, on a fixture of its own; the child's exit status is the number of
 * checks that failed there. */
static void in_child(const char *what, int (*body)(fixture *f)) {
    fflush(stdout); fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        fixture f = {router_with_routes(), NULL, NULL};
        ilk_match_new(&f.m);
        ilk_match_batch_new(&f.b);
        int failures = body(&f);
        ilk_match_batch_free(f.b);
        ilk_match_free(f.m);
        ilk_router_free(f.r);
        _exit(failures);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) { check_passed++; return; }
    check_failed++;
    if (WIFSIGNALED(status)) fprintf(stderr, "%s with %zu: killed by signal %d\n", what, H, WTERMSIG(status));
    else fprintf(stderr, "%s with %zu: %d checks failed\n", what, H, WEXITSTATUS(status));
}

#define EXPECT(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, ilk_errmsg()); failures++; } } while (0)

static int dest_calls(const ilk_request *req, ilk_response *res, void *u);

static ilk_router *router_with_routes(void) {
    ilk_router *r = NULL;
    ilk_router_new(&r, 0);
    uint32_t id;
    ilk_router_add_named_route(r, "GET /u/:id", "user", dest_calls, NULL, NULL, &id);
    ilk_router_add_route(r, "POST /p", NULL, NULL, NULL, &id);
    return r;
}

static int request_and_response_accessors(const ilk_request *req, ilk_response *res) {
    int failures = 0;
    const char *a = NULL, *b = NULL;
    EXPECT(ilk_request_param_at(req, H, &a, NULL, &b, NULL) == ILK_EINVAL);
    EXPECT(ilk_request_query_at(req, H, &a, &b) == ILK_EINVAL);
    EXPECT(ilk_request_metadata_at(req, H, &a, &b) == ILK_EINVAL);
    ilk_response_add_header(res, "X-A", "1");
    EXPECT(ilk_response_header_at(res, H, &a, &b) == ILK_EINVAL);
    EXPECT(ilk_response_set_body(res, "x", H) == ILK_EINVAL);
    /* A capacity that large is room enough: the copy is written (asked for first with none, so
     * that this buffer is known to hold it). */
    char copy[256];
    size_t needed = 0;
    EXPECT(ilk_response_copy(res, NULL, 0, &needed) == ILK_ELIMIT && needed <= sizeof copy);
    EXPECT(needed <= sizeof copy && ilk_response_copy(res, copy, H, &needed) == ILK_OK);
    return failures;
}

static int dest_failures;
static int dest_calls(const ilk_request *req, ilk_response *res, void *u) {
    (void)u;
    dest_failures += request_and_response_accessors(req, res);
    return ILK_OK;
}

static int redirect_filter(ilk_request *req, ilk_filter_chain *chain, void *u) {
    (void)req;
    const char *names[] = {"id"}, *values[] = {"x"};
    *(int *)u = ilk_filter_chain_redirect_to_route(chain, "user", names, values, H);
    return ILK_STOP;
}

static int case_lookups(fixture *f) {
    int failures = 0;
    EXPECT(ilk_router_match(f->r, "GET", "/u/x", H, f->m) < 0);
    EXPECT(ilk_router_match_packed(f->r, "GET", "/u/x", H, f->m) < 0);
    ilk_result *res = NULL;
    EXPECT(ilk_router_resolve(f->r, "GET", "/u/x", H, &res) < 0 && res == NULL);
    char buf[64];
    /* The packed match says where its parameters end in 32 bits: a buffer over 4 GiB is refused. */
    EXPECT(ilk_match_set_buffer(f->m, buf, H) == ILK_EINVAL && strstr(ilk_errmsg(), "is over 4 GiB") != NULL);
    EXPECT(ilk_router_match_packed(f->r, "GET", "/u/x", 4, f->m) > 0);
    const char *name = NULL, *value = NULL;
    size_t name_len = 0, value_len = 0;
    EXPECT(ilk_match_param_at(f->m, H, &name, &name_len, &value, &value_len) == ILK_EINVAL);
    EXPECT(ilk_router_match(f->r, "GET", "/p", 2, f->m) == ILK_METHOD_NOT_ALLOWED);
    EXPECT(ilk_match_allowed_at(f->m, H) == NULL);
    return failures;
}

static int case_batches(fixture *f) {
    int failures = 0;
    EXPECT(ilk_router_match_many(f->r, "GET", "/u/x", H, f->b) < 0);
    EXPECT(ilk_router_match_requests(f->r, "GET", H, "/u/x", 5, f->b, NULL) < 0);
    EXPECT(ilk_router_match_requests(f->r, "GET", 4, "/u/x", H, f->b, NULL) < 0);
    EXPECT(ilk_router_match_many(f->r, "GET", "/u/x", 5, f->b) == ILK_OK);
    char out[256];
    size_t needed = 0;
    EXPECT(ilk_match_batch_copy(f->b, out, H, &needed) == ILK_OK && needed > 0);
    return failures;
}

static int case_building(fixture *f) {
    int failures = 0;
    const char *names[] = {"id"}, *values[] = {"x"};
    char buf[64];
    size_t length = 0;
    EXPECT(ilk_router_url_for(f->r, "user", names, values, H, buf, sizeof buf, &length) == ILK_EINVAL);
    EXPECT(strstr(ilk_errmsg(), "is larger than any array or buffer") != NULL);
    EXPECT(ilk_router_url_for(f->r, "user", names, values, 1, buf, H, &length) == ILK_OK && strcmp(buf, "/u/x") == 0);
    EXPECT(ilk_router_pending_link(f->r, buf, H) == 0);
    EXPECT(ilk_router_take_pending_link(f->r, buf, H) == 0);
    ilk_interceptor *i = NULL, *chained = NULL;
    ilk_interceptor_new_logging(&i, NULL, NULL, NULL, NULL);
    const ilk_interceptor *list[] = {i};
    EXPECT(ilk_interceptor_chain_in_order(&chained, list, H) == ILK_EINVAL && chained == NULL);
    ilk_interceptor_free(i);
    return failures;
}

static int case_route_files(fixture *f) {
    (void)f;     /* its own router: loading needs an empty one */
    int failures = 0;
    ilk_router *r = NULL;
    ilk_router_new(&r, 0);
    static const char file[] = "GET /a name=a\nGET /b/:id name=b\n";
    size_t count = 9;
    EXPECT(ilk_router_load(r, file, H, &count) == ILK_EINVAL && count == 0);
    EXPECT(strstr(ilk_errmsg(), "is larger than any array or buffer") != NULL);
    uint32_t ids[4] = {0};
    EXPECT(ilk_router_load_ids(r, file, H, ids, 4, &count) == ILK_EINVAL && count == 0);
    EXPECT(ilk_router_route_count(r) == 0);
    EXPECT(ilk_router_load_ids(r, file, sizeof file - 1, ids, H, &count) == ILK_OK && count == 2 && ids[1] != 0);
    char buf[4096];
    size_t length = 0;
    EXPECT(ilk_router_explain(r, "GET", "/b/1", H, buf, sizeof buf, &length) == ILK_EINVAL);
    EXPECT(ilk_router_explain(r, "GET", "/b/1", 4, NULL, 0, &length) == ILK_ELIMIT && length < sizeof buf);
    EXPECT(length < sizeof buf && ilk_router_explain(r, "GET", "/b/1", 4, buf, H, &length) == ILK_OK);
    ilk_router_free(r);
    return failures;
}

static int case_callbacks(fixture *f) {
    int failures = 0;
    ilk_result *res = NULL;
    dest_failures = 0;
    EXPECT(ilk_router_resolve(f->r, "GET", "/u/x", 4, &res) == ILK_OK);
    failures += dest_failures;
    const char *a = NULL, *b = NULL, *c = NULL;
    EXPECT(ilk_result_header_at(res, H, &a, &b) == ILK_EINVAL);
    EXPECT(ilk_result_redirect_at(res, H) == NULL);
    EXPECT(ilk_result_trace_at(res, H, &a, &b, &c) == ILK_EINVAL);
    EXPECT(ilk_result_allowed_at(res, H) == NULL);
    char copy[1024];
    size_t needed = 0;
    EXPECT(ilk_result_copy(res, NULL, 0, &needed) == ILK_ELIMIT && needed <= sizeof copy);
    EXPECT(needed <= sizeof copy && ilk_result_copy(res, copy, H, &needed) == ILK_OK);
    ilk_result_free(res);
    int redirect_rc = 0;
    ilk_router_add_filter(f->r, "redirect", redirect_filter, &redirect_rc, NULL);
    EXPECT(ilk_router_resolve(f->r, "GET", "/u/x", 4, &res) >= 0);
    EXPECT(redirect_rc == ILK_EINVAL);
    ilk_result_free(res);
    return failures;
}

int main(void) {
    for (size_t k = 0; k < sizeof huge / sizeof huge[0]; k++) {
        H = huge[k];
        in_child("lookups", case_lookups);
        in_child("batches", case_batches);
        in_child("building", case_building);
        in_child("route files", case_route_files);
        in_child("callbacks", case_callbacks);
    }
    return check_summary("sizes");
}
