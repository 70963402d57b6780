/* A deep-link walk-through of the pipeline: filters, a guard whose refused link is replayed after
 * a "login", request and response interceptors, and the trace of every resolve. */
#include <interlock.h>
#include <stdio.h>
#include <string.h>

static int logged_in = 0;

static int screen(const ilk_request *req, ilk_response *res, void *userdata) {
  char body[160];
  const char *via = ilk_request_metadata(req, "campaign");
  snprintf(body, sizeof body, "%s %s%s%s", (const char *)userdata,
           ilk_request_param_count(req) ? ilk_request_param(req, "sku") ? ilk_request_param(req, "sku") : ilk_request_param(req, "section") : "",
           via ? " via " : "", via ? via : "");
  ilk_response_set_body(res, body, strlen(body));
  return ILK_OK;
}

/* Filter: old web links become app routes. */
static int legacy_links(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  if (strncmp(ilk_request_path(req), "/old-product/", 13) == 0) {
    const char *names[] = {"sku"};
    const char *values[] = {ilk_request_path(req) + 13};
    ilk_filter_chain_redirect_to_route(chain, "product", names, values, 1);
    return ILK_REDIRECT;
  }
  return ilk_filter_chain_next(chain, req); /* passes on what the rest gave */
}

/* Filter: maintenance mode stops everything under /admin. */
static int maintenance(ilk_request *req, ilk_filter_chain *chain, void *userdata) {
  (void)userdata;
  if (strncmp(ilk_request_path(req), "/admin", 6) == 0) return ILK_STOP;
  return ilk_filter_chain_next(chain, req);
}

static int require_login(const ilk_request *req, void *userdata) {
  (void)req; (void)userdata;
  return logged_in;
}

/* Route-scoped request interceptor: remembers the campaign from the query. */
static int campaign(ilk_request *req, void *userdata) {
  const char *utm = ilk_request_query(req, "utm");
  (void)userdata;
  if (utm) ilk_request_set_metadata(req, "campaign", utm);
  return ILK_CONTINUE;
}

static void log_line(const char *line, void *userdata) { (void)userdata; printf("     log  %s\n", line); }

static void show(ilk_router *router, const char *uri, int rc, ilk_result *result) {
  size_t len;
  const char *body;
  printf("%s\n  => %s", uri, rc < 0 && rc != ILK_ECALLBACK ? ilk_errmsg() : ilk_errstr(rc));
  if (!result) { printf("\n\n"); return; }
  body = ilk_result_body(result, &len);
  if (len) printf(": \"%.*s\"", (int)len, body);
  printf("\n");
  for (size_t i = 0; i < ilk_result_trace_count(result); i++) {
    const char *stage, *name, *decision;
    ilk_result_trace_at(result, i, &stage, &name, &decision);
    printf("     %-20s %-28s %s\n", stage, name, decision);
  }
  {
    char pending[256];
    if (ilk_router_pending_link(router, pending, sizeof pending)) printf("     pending link: %s\n", pending);
  }
  printf("\n");
}

static void resolve(ilk_router *router, const char *uri) {
  ilk_result *result = NULL;
  int rc = ilk_router_resolve(router, NULL, uri, strlen(uri), &result);
  show(router, uri, rc, result);
  ilk_result_free(result);
}

int main(void) {
  ilk_router *router;
  ilk_interceptor *req_log, *res_log, *utm, *valid, *both;
  uint32_t account, product;
  ilk_router_new(&router, 0);
  ilk_router_add_named_route(router, "myapp://home", "home", screen, "Home", NULL, NULL);
  ilk_router_add_named_route(router, "myapp://product/:sku", "product", screen, "Product", NULL, &product);
  ilk_router_add_named_route(router, "myapp://account/:section", "account", screen, "Account", NULL, &account);
  ilk_router_add_route(router, "myapp://admin/*rest", screen, "Admin", NULL, NULL);
  ilk_router_set_guard(router, account, require_login, NULL, NULL);
  ilk_router_add_filter(router, "legacy-links", legacy_links, NULL, NULL);
  ilk_router_add_filter(router, "maintenance", maintenance, NULL, NULL);

  ilk_interceptor_new_logging(&req_log, &res_log, log_line, NULL, NULL);
  ilk_interceptor_new_request(&utm, "campaign", campaign, NULL, NULL);
  ilk_interceptor_new_validate_status(&valid, 200, 299);
  ilk_interceptor_chain_before(&both, res_log, valid);   /* log, then validate: one interceptor */
  ilk_router_add_interceptor(router, req_log, 0);
  ilk_router_add_interceptor(router, both, 0);
  ilk_router_add_interceptor(router, utm, product);
  ilk_interceptor_free(req_log); ilk_interceptor_free(res_log); ilk_interceptor_free(utm);
  ilk_interceptor_free(valid); ilk_interceptor_free(both);

  resolve(router, "myapp://product/X-100?utm=spring");
  resolve(router, "myapp://old-product/X-200");
  resolve(router, "myapp://admin/users");
  resolve(router, "myapp://account/billing?from=push");
  resolve(router, "myapp://home");

  printf("-- the user logs in; the pending link is replayed --\n\n");
  logged_in = 1;
  {
    ilk_result *result;
    char link[256];
    ilk_router_pending_link(router, link, sizeof link);
    int rc = ilk_router_replay_pending_link(router, &result);
    show(router, link, rc, result);
    ilk_result_free(result);
  }
  ilk_router_free(router);
  return 0;
}
