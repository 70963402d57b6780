/* Many threads match while another adds routes: every answer is one the table before or after
 * an addition would give; nothing crashes or tears. Then threads resolve through the default
 * destination and a guard while another replaces both: no callback sees its userdata freed. */
#include "interlock.h"
#include "check.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

/* Routes added, given data, replaced and removed while two threads resolve them: every answer is
 * one the table before or after a change gives, no callback or request reads freed userdata or
 * data, and each is freed exactly once, as soon as no resolve runs it. */
enum { CHURN = 2000 };
static int churning_done;                 /* read and written atomically (no suppression needed) */
static uint32_t churn_ids[CHURN];
static int churn_dest(const ilk_request *q, ilk_response *s, void *u) {
  void *data = ilk_request_route_data(q);
  for (int i = 0; i < 20; i++) {
    if (((volatile tagged *)u)->magic != ALIVE || (data && ((volatile tagged *)data)->magic != ALIVE)) {
      __atomic_add_fetch(&poisoned_reads, 1, __ATOMIC_RELAXED);
      break;
    }
  }
  return ilk_response_set_status(s, 202);   /* not 200: a route found without its destination answers 200 */
}
static int stable_dest(const ilk_request *q, ilk_response *s, void *u) {
  (void)u;
  if (ilk_request_route_id(q) != 1) __atomic_add_fetch(&wrong[1], 1, __ATOMIC_RELAXED);
  return ilk_response_set_status(s, 201);
}
static void *churn_resolver(void *arg) {
  unsigned seed = (unsigned)(size_t)arg;
  char uri[64];
  for (int i = 0; !__atomic_load_n(&churning_done, __ATOMIC_ACQUIRE) && i < 4000000; i++) {
    ilk_result *res = NULL;
    seed = seed * 1103515245u + 12345u;
    int k = (int)((seed >> 8) % CHURN);
    int kind = i % 3;
    if (kind == 0) snprintf(uri, sizeof uri, "/stable/%d", k);
    else snprintf(uri, sizeof uri, kind == 1 ? "/churn/%d" : "/moved/%d", k);
    int rc = ilk_router_resolve(router, "GET", uri, strlen(uri), &res);
    if (kind == 0) {
      if (rc != ILK_OK || ilk_result_response_status(res) != 201) __atomic_add_fetch(&wrong[0], 1, __ATOMIC_RELAXED);
    } else if (rc == ILK_OK) {
      /* the route that matched is k's (whose id the main thread wrote before adding it) */
      uint32_t id = ilk_request_route_id(ilk_result_request(res));
      if (id != __atomic_load_n(&churn_ids[k], __ATOMIC_ACQUIRE) || ilk_result_response_status(res) != 202)
        __atomic_add_fetch(&wrong[2], 1, __ATOMIC_RELAXED);
    } else if (rc != ILK_NOT_FOUND) {
      __atomic_add_fetch(&wrong[3], 1, __ATOMIC_RELAXED);
    }
    ilk_result_free(res);
  }
  return NULL;
}
static void removing_while_resolving(void) {
  pthread_t threads[2];
  char pattern[64];
  ilk_router_new(&router, 0);
  poisoned_reads = 0; frees_seen = 0;
  memset(wrong, 0, sizeof wrong);
  CHECK_EQ_INT(ilk_router_add_route(router, "GET /stable/:n", stable_dest, NULL, NULL, NULL), ILK_OK);
  for (int t = 0; t < 2; t++) pthread_create(&threads[t], NULL, churn_resolver, (void *)(size_t)(t + 1));
  int failed = 0;
  for (int k = 0; k < CHURN; k++) {
    uint32_t id;
    /* ids are given in order: k's route will be k + 2 (route 1 is the stable one) */
    __atomic_store_n(&churn_ids[k], (uint32_t)k + 2, __ATOMIC_RELEASE);
    snprintf(pattern, sizeof pattern, "GET /churn/%d", k);
    failed |= ilk_router_add_route(router, pattern, churn_dest, fresh(), poison, &id) != ILK_OK || id != (uint32_t)k + 2;
    failed |= ilk_router_set_route_data(router, id, fresh(), poison) != ILK_OK;
    snprintf(pattern, sizeof pattern, "GET /moved/%d", k);
    failed |= ilk_router_replace_route(router, id, pattern) != ILK_OK;
    failed |= ilk_router_set_route_data(router, id, fresh(), poison) != ILK_OK;    /* the first freed */
    if (k % 2 == 0) failed |= ilk_router_remove_route(router, id) != ILK_OK;
  }
  __atomic_store_n(&churning_done, 1, __ATOMIC_RELEASE);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  CHECK_EQ_INT(failed, 0);
  CHECK_EQ_INT(poisoned_reads, 0);
  CHECK_EQ_INT(wrong[0] + wrong[1] + wrong[2] + wrong[3], 0);
  /* every removed route's userdata and both data (3 each) and the replaced data of the others
   * are freed already; the rest with the router */
  CHECK_EQ_INT(frees_seen, 3 * (CHURN / 2) + CHURN / 2);
  CHECK_EQ_INT(ilk_router_route_count(router), 1 + CHURN / 2);
  ilk_router_free(router);
  CHECK_EQ_INT(frees_seen, 3 * CHURN);
}

/* A route added with its destination is never found without it: one thread removes and adds the
 * same route again and again while two resolve it; every answer is not found or the
 * destination's 202 (added, then given its destination, a route answered an empty 200 between). */
enum { READDINGS = 100000 };
static volatile int readding_done;
static int readded_dest(const ilk_request *q, ilk_response *s, void *u) {
  (void)q; (void)u;
  return ilk_response_set_status(s, 202);
}
static void *readded_resolver(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&readding_done, __ATOMIC_ACQUIRE)) {
    ilk_result *res = NULL;
    int rc = ilk_router_resolve(router, NULL, "/r/1", 4, &res);
    if (rc == ILK_OK ? ilk_result_response_status(res) != 202 : rc != ILK_NOT_FOUND)
      __atomic_add_fetch(&wrong[0], 1, __ATOMIC_RELAXED);
    ilk_result_free(res);
  }
  return NULL;
}
static void adding_with_a_destination_while_resolving(void) {
  pthread_t threads[2];
  ilk_router_new(&router, 0);
  memset(wrong, 0, sizeof wrong);
  for (int t = 0; t < 2; t++) pthread_create(&threads[t], NULL, readded_resolver, NULL);
  int failed = 0;
  /* Fewer under valgrind (ILK_TEST_READDINGS), which runs one thread at a time: it looks for
   * memory errors there, not for the race. */
  const char *given = getenv("ILK_TEST_READDINGS");
  int readdings = given ? atoi(given) : READDINGS;
  for (int i = 0; i < readdings; i++) {
    uint32_t id;
    failed |= ilk_router_add_route(router, "/r/:n", readded_dest, NULL, NULL, &id) != ILK_OK;
    failed |= ilk_router_remove_route(router, id) != ILK_OK;
  }
  __atomic_store_n(&readding_done, 1, __ATOMIC_RELEASE);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  CHECK_EQ_INT(failed, 0);
  CHECK_EQ_INT(wrong[0], 0);
  ilk_router_free(router);
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
  removing_while_resolving();
  adding_with_a_destination_while_resolving();
  return check_summary("test_threads");
}
