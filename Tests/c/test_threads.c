/* Many threads match while another adds routes: every answer is one the table before or after
 * an addition would give; nothing crashes or tears. */
#include "interlock.h"
#include "check.h"
#include <pthread.h>
#include <stdlib.h>

static ilk_router *router;
static volatile int adding_done;
static int wrong[4];

static void *matcher_thread(void *arg) {
  int t = (int)(size_t)arg;
  ilk_match *m;
  char uri[64];
  ilk_match_new(&m);
  for (int i = 0; !adding_done || i < 20000; i++) {
    int k = i % 100;
    snprintf(uri, sizeof uri, "/static/%d/item/x%d", k, i);
    int rc = ilk_router_match(router, "GET", uri, strlen(uri), m);
    const char *v = NULL;
    if (rc != ILK_OK || ilk_match_route_id(m) != 1 ||
        ilk_match_param(m, "id", &v, NULL) != ILK_OK || strncmp(v, "x", 1) != 0) {
      wrong[t]++;
    }
    if (i > 2000000) break;
  }
  ilk_match_free(m);
  return NULL;
}

int main(void) {
  pthread_t threads[3];
  ilk_router_new(&router, 0);
  CHECK_EQ_INT(ilk_router_add_route(router, "GET /static/:n/item/:id", NULL, NULL, NULL, NULL), ILK_OK);
  for (int t = 0; t < 3; t++) pthread_create(&threads[t], NULL, matcher_thread, (void *)(size_t)t);
  for (int i = 0; i < 3000; i++) {
    char pattern[96];
    snprintf(pattern, sizeof pattern, "GET /added/%d/:a/leaf%d", i % 37, i);
    if (ilk_router_add_route(router, pattern, NULL, NULL, NULL, NULL) != ILK_OK) wrong[3]++;
  }
  adding_done = 1;
  for (int t = 0; t < 3; t++) pthread_join(threads[t], NULL);
  CHECK_EQ_INT(wrong[0] + wrong[1] + wrong[2], 0);
  CHECK_EQ_INT(wrong[3], 0);
  CHECK_EQ_INT(ilk_router_route_count(router), 3001);
  {
    ilk_match *m;
    ilk_match_new(&m);
    CHECK_EQ_INT(ilk_router_match(router, "GET", "/added/6/q/leaf2966", 19, m), ILK_OK);
    CHECK_EQ_INT(ilk_match_route_id(m), 2968);
    ilk_match_free(m);
  }
  ilk_router_free(router);
  return check_summary("test_threads");
}
