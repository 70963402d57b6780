/* Many threads match while another adds routes: every answer is one the table before or after
 * an addition would give; nothing crashes or tears. Then threads resolve through the default
 * destination and a guard while another replaces both: no callback sees its userdata freed. */
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

/* Userdata that its free function poisons (and leaks, so that a late read finds the poison). */
typedef struct { int magic; } tagged;
enum { ALIVE = 0x5AFE, FREED = 0xDEAD };
static int poisoned_reads, frees_seen;
static pthread_mutex_t frees_lock = PTHREAD_MUTEX_INITIALIZER;
static void poison(void *u) {
  ((tagged *)u)->magic = FREED;
  pthread_mutex_lock(&frees_lock);
  frees_seen++;
  pthread_mutex_unlock(&frees_lock);
}
static tagged *fresh(void) { tagged *t = malloc(sizeof *t); t->magic = ALIVE; return t; }
static int reading_default(const ilk_request *q, ilk_response *s, void *u) {
  (void)q;
  for (int i = 0; i < 50; i++) if (((volatile tagged *)u)->magic != ALIVE) { __atomic_add_fetch(&poisoned_reads, 1, __ATOMIC_RELAXED); break; }
  ilk_response_set_status(s, 404);
  return 0;
}
static int reading_guard(const ilk_request *q, void *u) {
  (void)q;
  for (int i = 0; i < 50; i++) if (((volatile tagged *)u)->magic != ALIVE) { __atomic_add_fetch(&poisoned_reads, 1, __ATOMIC_RELAXED); break; }
  return 1;
}
static volatile int replacing_done;
static void *resolver_thread(void *arg) {
  (void)arg;
  for (int i = 0; !replacing_done && i < 2000000; i++) {
    ilk_result *res = NULL;
    int rc = ilk_router_resolve(router, "GET", i % 2 ? "/nowhere" : "/guarded", i % 2 ? 8 : 8, &res);
    if (rc != ILK_OK) __atomic_add_fetch(&wrong[0], 1, __ATOMIC_RELAXED);
    ilk_result_free(res);
  }
  return NULL;
}

static void replacing_while_resolving(void) {
  pthread_t threads[2];
  uint32_t id;
  ilk_router_new(&router, 0);
  wrong[0] = 0;
  CHECK_EQ_INT(ilk_router_add_route(router, "/guarded", NULL, NULL, NULL, &id), ILK_OK);
  ilk_router_set_default(router, reading_default, fresh(), poison);
  ilk_router_set_guard(router, id, reading_guard, fresh(), poison);
  for (int t = 0; t < 2; t++) pthread_create(&threads[t], NULL, resolver_thread, NULL);
  for (int i = 0; i < 3000; i++) {
    ilk_router_set_default(router, reading_default, fresh(), poison);
    ilk_router_set_guard(router, id, reading_guard, fresh(), poison);
  }
  replacing_done = 1;
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  CHECK_EQ_INT(poisoned_reads, 0);
  CHECK_EQ_INT(wrong[0], 0);
  ilk_router_free(router);
  CHECK_EQ_INT(frees_seen, 2 * 3001);     /* every userdata freed, once */
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
  replacing_while_resolving();
  return check_summary("test_threads");
}
