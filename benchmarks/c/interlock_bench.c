/* Interlock through its C header: ilk_router_match, ilk_router_resolve with one filter and one
 * request and one response interceptor (all C callbacks), and lookups from several threads.
 * Every door does the whole work for every request: the lookup under the request's method, the
 * route's id, and every parameter's name and value (ilk_match_param_count and ilk_match_param_at;
 * for a resolve, the result's request; for a batch, the answers its view gives), their lengths
 * added to the sums of common.h. One door reads the route's id only, no parameter: it says what
 * reading them costs.
 * Usage: interlock_bench ROUTES REQUESTS TABLE [seconds-per-batch] [threads] [BASE_ROUTES BASE_REQUESTS BASE_TABLE]
 * With a base table, ilk_router_match is timed on both tables in turn, batch by batch, and the
 * record carries each batch's ratio to the base table's (how a lookup's cost grows with the table).
 * With ILK_BENCH_PASSES=N set it times nothing: it runs N untimed passes over the requests of one
 * door (ILK_BENCH_DOOR: match; match-bare, the route's id without the parameters; batch for
 * ilk_router_match_requests over every timed request, batch-bare reading its statuses and ids only;
 * resolve, or bare-resolve for a resolve with no callback) and prints how many lookups a pass
 * makes and its sums, for benchmarks/instructions.py to count instructions. */
#include "common.h"
#include <interlock.h>
#include <pthread.h>
#include <sched.h>

/* A table loaded into a router, with the requests that are timed: all but malformed ones. */
typedef struct {
  list routes, requests;
  ilk_router *router;
  int *timed, timed_count;
  double added, compiled;                 /* seconds to add the routes, then to compile them */
  long rss_kib;                           /* what the process grew by while adding and compiling */
  uint32_t *ids;                          /* each route's id, as changes give new ones (or NULL) */
} table;

static table measured, base;              /* the table measured, and the base of the scale ratio */
static ilk_match *m;

static const char *method_of(const entry *e) { return strcmp(e->method, "-") == 0 ? NULL : e->method; }

/* One request: the lookup, the route's id, and every parameter's name and value (their lengths
 * added to `*bytes`); returns the route's id, 0 if none took the request under its method. */
static inline uint32_t match_one(const table *on, ilk_match *into, const entry *e, unsigned long long *bytes) {
  if (ilk_router_match(on->router, method_of(e), e->text, strlen(e->text), into) != ILK_OK) return 0;
  size_t count = ilk_match_param_count(into);
  for (size_t i = 0; i < count; i++) {
    const char *name, *value;
    size_t name_len, value_len;
    ilk_match_param_at(into, i, &name, &name_len, &value, &value_len);
    *bytes += name_len + value_len;
  }
  return ilk_match_route_id(into);
}

static void match_on(const table *on) {
  unsigned long long routes = 0, bytes = 0;
  for (int k = 0; k < on->timed_count; k++) routes += match_one(on, m, &on->requests.items[on->timed[k]], &bytes);
  sum_routes += routes;
  sum_param_bytes += bytes;
}
static void match_pass(void) { match_on(&measured); }
static void base_match_pass(void) { match_on(&base); }

/* The lookup and the route's id, no parameter read: beside match_pass, the cost of reading them. */
static void bare_match_pass(void) {
  unsigned long long routes = 0;
  for (int k = 0; k < measured.timed_count; k++) {
    entry *e = &measured.requests.items[measured.timed[k]];
    if (ilk_router_match(measured.router, method_of(e), e->text, strlen(e->text), m) == ILK_OK) routes += ilk_match_route_id(m);
  }
  sum_routes += routes;
}

/* The timed requests as one batch (ilk_router_match_requests): URIs and methods, NUL-separated. */
static char *batch_uris, *batch_methods;
static size_t batch_uris_len, batch_methods_len;
static ilk_match_batch *batch;

static ilk_match_batch_view batch_view;

/* The answers as the view lays them out (ilk_match_batch_copy's layout): statuses, route ids,
 * offsets into the text, the text ("name\0value\0..." for each answer). */
static void batch_read(int with_params) {
  size_t n = batch_view.count;
  const char *data = batch_view.data;
  const int32_t *statuses = (const int32_t *)data;
  const uint32_t *ids = (const uint32_t *)(data + ILK_BATCH_ROUTE_IDS_AT(n));
  const size_t *offsets = (const size_t *)(data + ILK_BATCH_OFFSETS_AT(n));
  const char *text = data + ILK_BATCH_TEXT_AT(n);
  unsigned long long routes = 0, bytes = 0;
  for (size_t i = 0; i < n; i++) {
    if (statuses[i] != ILK_OK) continue;
    routes += ids[i];
    if (!with_params) continue;
    for (const char *p = text + offsets[i], *end = text + offsets[i + 1]; p < end;) {
      size_t len = strlen(p);                                     /* a name, then its value */
      bytes += len;
      p += len + 1;
    }
  }
  sum_routes += routes;
  sum_param_bytes += bytes;
}

static void batch_pass(void) {      /* with the view, as the Python binding asks for it */
  ilk_router_match_requests(measured.router, batch_methods, batch_methods_len, batch_uris, batch_uris_len, batch, &batch_view);
  batch_read(1);
}

static void bare_batch_pass(void) {
  ilk_router_match_requests(measured.router, batch_methods, batch_methods_len, batch_uris, batch_uris_len, batch, &batch_view);
  batch_read(0);
}

static void batch_setup(void) {
  size_t ul = 0, ml = 0;
  for (int k = 0; k < measured.timed_count; k++) {
    entry *e = &measured.requests.items[measured.timed[k]];
    ul += strlen(e->text) + 1;
    ml += strlen(e->method) + 1;
  }
  batch_uris = malloc(ul);
  batch_methods = malloc(ml);
  for (int k = 0; k < measured.timed_count; k++) {
    entry *e = &measured.requests.items[measured.timed[k]];
    const char *method = method_of(e) ? method_of(e) : "";
    memcpy(batch_uris + batch_uris_len, e->text, strlen(e->text) + 1);
    batch_uris_len += strlen(e->text) + 1;
    memcpy(batch_methods + batch_methods_len, method, strlen(method) + 1);
    batch_methods_len += strlen(method) + 1;
  }
  ilk_match_batch_new(&batch);
}

static int destination(const ilk_request *req, ilk_response *res, void *u) { (void)req; (void)u; return ilk_response_set_status(res, 200); }
static int pass_filter(ilk_request *req, ilk_filter_chain *chain, void *u) { (void)u; return ilk_filter_chain_next(chain, req); }
static int req_interceptor(ilk_request *req, void *u) { (void)req; (void)u; return ILK_CONTINUE; }
static int res_interceptor(ilk_request *req, ilk_response *res, void *u) { (void)req; (void)res; (void)u; return ILK_CONTINUE; }

/* The resolve door's pipeline: one filter, one request and one response interceptor (C callbacks). */
static void add_pipeline(ilk_router *router) {
  ilk_router_add_filter(router, "pass", pass_filter, NULL, NULL);
  ilk_interceptor *i;
  ilk_interceptor_new_request(&i, "req", req_interceptor, NULL, NULL); ilk_router_add_interceptor(router, i, 0); ilk_interceptor_free(i);
  ilk_interceptor_new_response(&i, "res", res_interceptor, NULL, NULL); ilk_router_add_interceptor(router, i, 0); ilk_interceptor_free(i);
}

/* A resolve reads its route and parameters from the result's request (NUL-terminated, no lengths). */
static void resolve_pass(void) {
  unsigned long long routes = 0, bytes = 0;
  for (int k = 0; k < measured.timed_count; k++) {
    entry *e = &measured.requests.items[measured.timed[k]];
    ilk_result *r = NULL;
    if (ilk_router_resolve(measured.router, method_of(e), e->text, strlen(e->text), &r) == ILK_OK && ilk_result_route_id(r)) {
      routes += ilk_result_route_id(r);
      const ilk_request *req = ilk_result_request(r);
      size_t count = ilk_request_param_count(req);
      for (size_t i = 0; i < count; i++) {
        const char *name, *value;
        ilk_request_param_at(req, i, &name, NULL, &value, NULL);
        bytes += strlen(name) + strlen(value);
      }
    }
    ilk_result_free(r);
  }
  sum_routes += routes;
  sum_param_bytes += bytes;
}

static volatile int stop_threads;
/* Threads of the current measurement that have begun: the clock starts once all have, so that a
 * thread the scheduler starts late (a busy machine) is not timed as having done nothing. */
static int started_threads;
static long thread_counts[64];
static volatile unsigned long long thread_sums[64];   /* volatile: written, never read, yet kept */
static void *thread_body(void *arg) {
  long t = (long)arg, n = 0;
  unsigned long long routes = 0, bytes = 0;
  ilk_match *mine;
  ilk_match_new(&mine);
  __atomic_add_fetch(&started_threads, 1, __ATOMIC_SEQ_CST);
  while (!stop_threads) {
    for (int k = 0; k < measured.timed_count; k++) routes += match_one(&measured, mine, &measured.requests.items[measured.timed[k]], &bytes);
    n += measured.timed_count;
  }
  thread_counts[t] = n;
  thread_sums[t] = routes + bytes;
  ilk_match_free(mine);
  return NULL;
}

/* The control: arithmetic on the thread's own stack, sharing nothing, counted like lookups; how
   it scales is what the machine allows any program. */
static void *control_body(void *arg) {
  long t = (long)arg, n = 0;
  unsigned long x = (unsigned long)t + 1;
  unsigned char own[4096] = {0};
  __atomic_add_fetch(&started_threads, 1, __ATOMIC_SEQ_CST);
  while (!stop_threads) {
    for (int k = 0; k < 1000; k++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; own[x & 4095]++; }
    n += 1000;
  }
  thread_counts[t] = n;
  thread_sums[t] = x + own[x & 4095];   /* used, so that the compiler keeps the loop */
  return NULL;
}

static double per_second(void *(*body)(void *), int threads, double seconds) {
  pthread_t ids[64];
  stop_threads = 0;
  __atomic_store_n(&started_threads, 0, __ATOMIC_SEQ_CST);
  for (long t = 0; t < threads; t++) pthread_create(&ids[t], NULL, body, (void *)t);
  while (__atomic_load_n(&started_threads, __ATOMIC_SEQ_CST) < threads) sched_yield();
  double t0 = now();
  while (now() - t0 < seconds) { struct timespec ts = {0, 10000000}; nanosleep(&ts, NULL); }
  stop_threads = 1;
  long total = 0;
  for (int t = 0; t < threads; t++) { pthread_join(ids[t], NULL); total += thread_counts[t]; }
  return total / (now() - t0);
}

/* Loads `routes_path` into a new router (every route with `destination`), compiles it, and checks
 * every answer against `requests_path`; returns the number of wrong answers. */
static int load(table *into, const char *routes_path, const char *requests_path) {
  into->routes = read_list(routes_path, 0);
  into->requests = read_list(requests_path, 1);
  long rss0 = rss_kib();
  double t0 = now();
  ilk_router_new(&into->router, 0);
  for (int i = 0; i < into->routes.count; i++) {
    char pattern[4200];
    uint32_t id;
    entry *r = &into->routes.items[i];
    if (strcmp(r->method, "-") == 0) snprintf(pattern, sizeof pattern, "%s", r->text);
    else snprintf(pattern, sizeof pattern, "%s %s", r->method, r->text);
    if (ilk_router_add_route(into->router, pattern, destination, NULL, NULL, &id) != ILK_OK || id != (uint32_t)(i + 1)) {
      fprintf(stderr, "route %d (%s): %s\n", i + 1, pattern, ilk_errmsg());
      exit(1);
    }
  }
  into->added = now() - t0;
  t0 = now();
  ilk_router_match(into->router, NULL, "/", 1, m);                /* compiles the table */
  into->compiled = now() - t0;
  into->rss_kib = rss_kib() - rss0;

  /* Correctness first: every answer as the request list says. */
  into->timed = malloc(sizeof(int) * into->requests.count);
  int wrong = 0;
  for (int i = 0; i < into->requests.count; i++) {
    entry *e = &into->requests.items[i];
    int rc = ilk_router_match(into->router, method_of(e), e->text, strlen(e->text), m);
    int want = into->requests.expected[i];
    int ok = want < 0 ? rc == ILK_EURI : want == 0 ? (rc == ILK_NOT_FOUND || rc == ILK_METHOD_NOT_ALLOWED)
                                                   : rc == ILK_OK && ilk_match_route_id(m) == (uint32_t)want;
    if (!ok) { if (wrong++ < 5) fprintf(stderr, "wrong: %s %s -> %d route %u, want %d\n", e->method, e->text, rc, ilk_match_route_id(m), want); }
    if (want >= 0) into->timed[into->timed_count++] = i;
  }
  return wrong;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* A resolve (untimed) before each change: it holds the pipeline as it stood, as a router serving
 * requests always has one, so the change pays for what it must not write in place. */
static void resolve_once(table *t) {
  ilk_result *res = NULL;
  ilk_router_resolve(t->router, NULL, "/", 1, &res);   /* a result for every status but an error */
  ilk_result_free(res);
}

/* Removes route `i` of `t`, then looks up (which compiles what the removal touched); adds it back
 * under a new id, then looks up; a resolve comes before each. Stores the seconds each took. */
static void change_once(table *t, int i, double *removing, double *adding) {
  entry *r = &t->routes.items[i];
  char pattern[4200];
  if (strcmp(r->method, "-") == 0) snprintf(pattern, sizeof pattern, "%s", r->text);
  else snprintf(pattern, sizeof pattern, "%s %s", r->method, r->text);
  uint32_t id = t->ids ? t->ids[i] : (uint32_t)i + 1;
  resolve_once(t);
  double t0 = now();
  if (ilk_router_remove_route(t->router, id) != ILK_OK) { fprintf(stderr, "remove %u: %s\n", id, ilk_errmsg()); exit(1); }
  ilk_router_match(t->router, NULL, "/", 1, m);
  *removing = now() - t0;
  resolve_once(t);
  t0 = now();
  if (ilk_router_add_route(t->router, pattern, destination, NULL, NULL, &id) != ILK_OK) { fprintf(stderr, "add %s: %s\n", pattern, ilk_errmsg()); exit(1); }
  ilk_router_match(t->router, NULL, "/", 1, m);
  *adding = now() - t0;
  if (t->ids) t->ids[i] = id;
}

/* What one change costs on a loaded table (ILK_BENCH_CHANGES): removing a route, then the first
 * lookup after it (which compiles what the removal touched), against adding one and its first
 * lookup; 21 routes spread over the table, each removed and added back under a new id. With a
 * base table (`small`, the same kind of table at 1,000 routes), the same changes to it are made
 * in turn with these, so that both are measured side by side. Prints the medians and ranges in
 * microseconds. The tables are changed: nothing is timed after it. */
static void change_costs(table *t, table *small) {
  enum { N = 21 };
  double removing[N], adding[N], small_removing[N], small_adding[N];
  for (int k = 0; k < N; k++) {
    change_once(t, (int)((long)t->routes.count * (2 * k + 1) / (2 * N)), &removing[k], &adding[k]);
    if (small) change_once(small, (int)((long)small->routes.count * (2 * k + 1) / (2 * N)), &small_removing[k], &small_adding[k]);
  }
  qsort(removing, N, sizeof removing[0], compare_doubles);
  qsort(adding, N, sizeof adding[0], compare_doubles);
  printf("{\"door\": \"C remove one route, then a lookup\", \"routes\": %d, \"remove_us\": %.1f, \"remove_range_us\": [%.1f, %.1f], "
         "\"add_us\": %.1f, \"add_range_us\": [%.1f, %.1f]", t->routes.count, removing[N / 2] * 1e6, removing[0] * 1e6,
         removing[N - 1] * 1e6, adding[N / 2] * 1e6, adding[0] * 1e6, adding[N - 1] * 1e6);
  if (small) {
    qsort(small_removing, N, sizeof small_removing[0], compare_doubles);
    qsort(small_adding, N, sizeof small_adding[0], compare_doubles);
    printf(", \"small_routes\": %d, \"small_remove_us\": %.1f, \"small_add_us\": %.1f", small->routes.count,
           small_removing[N / 2] * 1e6, small_adding[N / 2] * 1e6);
  }
  printf("}\n");
}

int main(int argc, char **argv) {
  if (argc < 4 || (argc > 6 && argc != 9)) {
    fprintf(stderr, "usage: %s ROUTES REQUESTS TABLE [seconds] [threads] [BASE_ROUTES BASE_REQUESTS BASE_TABLE]\n", argv[0]);
    return 2;
  }
  double seconds = argc > 4 ? atof(argv[4]) : 0.2;
  int threads = argc > 5 ? atoi(argv[5]) : 0;
  ilk_match_new(&m);
  int wrong = load(&measured, argv[1], argv[2]);
  if (wrong) { fprintf(stderr, "%d wrong answers\n", wrong); return 1; }

  if (getenv("ILK_BENCH_CHANGES")) {
    /* ILK_BENCH_CHANGES=SMALL_ROUTES:SMALL_REQUESTS: the same changes to that table, side by side. */
    char *paths = strdup(getenv("ILK_BENCH_CHANGES"));
    char *colon = strchr(paths, ':');
    table *small = NULL;
    if (colon) {
      *colon = 0;
      if (load(&base, paths, colon + 1)) { fprintf(stderr, "wrong answers on %s\n", paths); return 1; }
      small = &base;
    }
    measured.ids = calloc(measured.routes.count, sizeof(uint32_t));
    for (int i = 0; i < measured.routes.count; i++) measured.ids[i] = (uint32_t)i + 1;
    if (small) {
      small->ids = calloc(small->routes.count, sizeof(uint32_t));
      for (int i = 0; i < small->routes.count; i++) small->ids[i] = (uint32_t)i + 1;
    }
    change_costs(&measured, small);
    return 0;
  }

  if (getenv("ILK_BENCH_PASSES")) {
    long passes = atol(getenv("ILK_BENCH_PASSES"));
    const char *door = getenv("ILK_BENCH_DOOR") ? getenv("ILK_BENCH_DOOR") : "match";
    void (*pass)(void) = match_pass;
    if (strcmp(door, "match-bare") == 0) {
      pass = bare_match_pass;
    } else if (strcmp(door, "resolve") == 0 || strcmp(door, "bare-resolve") == 0) {
      pass = resolve_pass;
      if (strcmp(door, "resolve") == 0) {
        add_pipeline(measured.router);
      }
      pass();                                                     /* the first resolve fills pools */
    } else if (strcmp(door, "batch") == 0 || strcmp(door, "batch-bare") == 0) {
      batch_setup();
      pass = strcmp(door, "batch") == 0 ? batch_pass : bare_batch_pass;
      pass();                                                     /* the first batch sizes its buffer */
    } else if (strcmp(door, "match") != 0) {
      fprintf(stderr, "unknown door %s\n", door);
      return 2;
    }
    for (long p = 1; p < passes; p++) pass();
    char sums[128];
    pass_sums(pass, sums, sizeof sums);                           /* the last of the N passes */
    printf("{\"per_pass\": %d, %s}\n", measured.timed_count, sums);
    return 0;
  }

  char extra[1024], sums[128];
  pass_sums(match_pass, sums, sizeof sums);
  snprintf(extra, sizeof extra, "\"routes\": %d, \"checked\": %d, \"add_ms\": %.2f, \"compile_ms\": %.2f, \"rss_bytes_per_route\": %.0f, %s",
           measured.routes.count, measured.requests.count, measured.added * 1e3, measured.compiled * 1e3, measured.rss_kib * 1024.0 / measured.routes.count, sums);
  door match = {"C ilk_router_match", match_pass, measured.timed_count, 0, {0}};
  if (argc == 9) {
    /* The scale ratio: this table's lookups against the base table's, batch by batch. */
    if ((wrong = load(&base, argv[6], argv[7]))) { fprintf(stderr, "%d wrong answers on %s\n", wrong, argv[8]); return 1; }
    door doors[2] = {match, {"C ilk_router_match (base)", base_match_pass, base.timed_count, 0, {0}}};
    time_doors(doors, 2, seconds);
    char ratios[512];
    paired_ratios(ratios, sizeof ratios, &doors[0], &doors[1]);
    size_t n = strlen(extra);
    snprintf(extra + n, sizeof extra - n, ", \"base_table\": \"%s\", %s", argv[8], ratios);
    print_door(&doors[0], argv[3], extra);
  } else if (threads > 0) {
    /* ilk_router_resolve against ilk_router_match, batch by batch, on the same router (its filter
       and interceptors take no part in a match), and beside them the match that reads no
       parameter: what reading them costs, in time. */
    add_pipeline(measured.router);
    door doors[3] = {match, {"C ilk_router_resolve (filter + 2 interceptors)", resolve_pass, measured.timed_count, 0, {0}},
                     {"C ilk_router_match (route id only, no parameters)", bare_match_pass, measured.timed_count, 0, {0}}};
    char resolve_extra[768], bare_extra[768], ratios[512];
    pass_sums(resolve_pass, sums, sizeof sums);
    time_doors(doors, 3, seconds);
    paired_ratios(ratios, sizeof ratios, &doors[1], &doors[0]);
    snprintf(resolve_extra, sizeof resolve_extra, "%s, %s", sums, ratios);
    pass_sums(bare_match_pass, sums, sizeof sums);
    paired_ratios(ratios, sizeof ratios, &doors[2], &doors[0]);
    snprintf(bare_extra, sizeof bare_extra, "%s, %s", sums, ratios);
    print_door(&doors[0], argv[3], extra);
    print_door(&doors[1], argv[3], resolve_extra);
    print_door(&doors[2], argv[3], bare_extra);
  } else {
    time_batches(match.name, argv[3], measured.timed_count, seconds, match_pass, extra);
  }

  if (threads > 0) {
    /* Rounds of one thread then all threads, back to back, so that each ratio compares two
       measurements taken under the same load on the machine; the report takes their median. Each
       round also measures the control loop the same way: the scaling the machine itself allows. */
    enum { ROUNDS = 7 };
    double one[ROUNDS], many[ROUNDS], control_one[ROUNDS], control_many[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
      one[k] = per_second(thread_body, 1, seconds);
      many[k] = per_second(thread_body, threads, seconds);
      control_one[k] = per_second(control_body, 1, seconds / 2);
      control_many[k] = per_second(control_body, threads, seconds / 2);
    }
    printf("{\"door\": \"C ilk_router_match threads\", \"table\": \"%s\", \"threads\": %d", argv[3], threads);
    const char *names[] = {"one_thread_per_s", "all_threads_per_s", "control_one_thread_per_s", "control_all_threads_per_s"};
    double *series[] = {one, many, control_one, control_many};
    for (int s = 0; s < 4; s++) {
      printf(", \"%s\": [", names[s]);
      for (int k = 0; k < ROUNDS; k++) printf("%s%.0f", k ? ", " : "", series[s][k]);
      printf("]");
    }
    printf("}\n");
  }
  ilk_match_free(m);
  ilk_router_free(measured.router);
  if (base.router) ilk_router_free(base.router);
  return 0;
}
