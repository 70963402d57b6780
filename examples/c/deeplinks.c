/* Registers deep-link routes and resolves a list of URIs, printing each request. */
#include <interlock.h>
#include <stdio.h>
#include <string.h>

static int show(const ilk_request *req, ilk_response *res, void *userdata) {
  const char *screen = userdata;
  printf("  -> %-14s route %u  %s\n", screen, ilk_request_route_id(req), ilk_request_pattern(req));
  printf("     scheme=%s host=%s path=%s", ilk_request_scheme(req) ? ilk_request_scheme(req) : "-",
         ilk_request_host(req) ? ilk_request_host(req) : "-", ilk_request_path(req));
  if (ilk_request_fragment(req)) printf(" fragment=%s", ilk_request_fragment(req));
  printf("\n");
  for (size_t i = 0; i < ilk_request_param_count(req); i++) {
    const char *name, *value;
    ilk_request_param_at(req, i, &name, NULL, &value, NULL);
    printf("     param %s = \"%s\"\n", name, value);
  }
  for (size_t i = 0; i < ilk_request_query_count(req); i++) {
    const char *key, *value;
    ilk_request_query_at(req, i, &key, &value);
    printf("     query %s = \"%s\"\n", key, value);
  }
  ilk_response_set_body(res, screen, strlen(screen));
  return ILK_OK;
}

static int fallback(const ilk_request *req, ilk_response *res, void *userdata) {
  (void)userdata;
  printf("  -> no route: showing the home screen for %s\n", ilk_request_path(req));
  ilk_response_set_status(res, 404);
  return ILK_OK;
}

int main(void) {
  static const struct { const char *pattern, *screen; } routes[] = {
    {"myapp://user/:id(\\d+)", "UserProfile"},
    {"myapp://user/me", "MyProfile"},
    {"myapp://product/:sku(/reviews(/:page(\\d+)))", "Product"},
    {"myapp://search(/:query)", "Search"},
    {"myapp://files/*path", "FileBrowser"},
    {"https://shop.example.com/p/:sku", "Product (web)"},
    {"GET /api/orders/:id", "OrderAPI"},
    {"settings/profile", "Settings"},
  };
  static const char *uris[] = {
    "myapp://user/42?coupon=SPRING%2024",
    "myapp://user/me",
    "myapp://user/bob",
    "myapp://product/X-100/reviews/3",
    "myapp://product/X-100",
    "myapp://search/caf%C3%A9+cr%C3%A8me",
    "myapp://files/docs/2024/report%2Fv2.pdf",
    "HTTPS://Shop.Example.COM/p/sku-9#details",
    "/api/orders/./17/../18",
    "settings/profile",
    "myapp://nowhere",
    "myapp://user/%G1",
  };
  ilk_router *router;
  if (ilk_router_new(&router, 0) != ILK_OK) return 1;
  for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
    if (ilk_router_add_route(router, routes[i].pattern, show, (void *)routes[i].screen, NULL, NULL) != ILK_OK) {
      fprintf(stderr, "cannot add %s: %s\n", routes[i].pattern, ilk_errmsg());
      return 1;
    }
  }
  ilk_router_set_default(router, fallback, NULL, NULL);
  printf("%zu routes registered\n\n", ilk_router_route_count(router));
  for (size_t i = 0; i < sizeof uris / sizeof uris[0]; i++) {
    ilk_result *result;
    printf("%s\n", uris[i]);
    int rc = ilk_router_resolve(router, NULL, uris[i], strlen(uris[i]), &result);
    if (rc < 0 && rc != ILK_ECALLBACK) {
      printf("  !! %s: %s (byte %zu)\n", ilk_errstr(rc), ilk_errmsg(), ilk_erroffset());
      continue;
    }
    ilk_result_free(result);
  }
  /* A bad pattern is refused with the problem and where it is. */
  if (ilk_router_add_route(router, "myapp://user/:id/:id", NULL, NULL, NULL, NULL) != ILK_OK) {
    printf("\nrefused \"myapp://user/:id/:id\": %s (byte %zu)\n", ilk_errmsg(), ilk_erroffset());
  }
  ilk_router_free(router);
  return 0;
}
