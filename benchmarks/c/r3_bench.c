/* r3 (Debian's libr3), the PCRE-based C router, on the same tables: each lookup creates and frees
 * a match_entry, as r3's API requires, checks the method, and reads every parameter: r3 captures
 * the values (the match_entry's vars, NUL-terminated); their names, which r3 does not give at a
 * match, are read from the route's slugs as this harness noted them when adding it (by the
 * route's id, its data). Usage: r3_bench ROUTES REQUESTS TABLE [seconds] */
#include "common.h"
#include <r3.h>

static node *tree;
static list routes, requests;
static int *timed, timed_count;

/* The names of route i's parameters ("{name}" slugs), one after the other, with their lengths. */
enum { MAX_PARAMS = 16 };
typedef struct { int count; const char *name[MAX_PARAMS]; size_t len[MAX_PARAMS]; } slugs;
static slugs *names;                       /* by route id (1-based) */

static int method_flag(const char *m) {
  if (!strcmp(m, "GET")) return METHOD_GET;
  if (!strcmp(m, "POST")) return METHOD_POST;
  if (!strcmp(m, "PUT")) return METHOD_PUT;
  if (!strcmp(m, "DELETE")) return METHOD_DELETE;
  if (!strcmp(m, "PATCH")) return METHOD_PATCH;
  return 0;
}

/* One request: the lookup under its method, then the route's id and every parameter's name and
 * value (their lengths added to `*bytes`); returns the id, 0 for none. */
static long lookup(const entry *e, unsigned long long *bytes) {
  match_entry *me = match_entry_createl(e->text, (int)strlen(e->text));
  me->request_method = method_flag(e->method);
  route *r = r3_tree_match_route(tree, me);
  long id = 0;
  if (r) {
    id = (long)r->data;
    const slugs *s = &names[id];
    for (int k = 0; k < me->vars->len && k < s->count; k++) *bytes += s->len[k] + strlen(me->vars->tokens[k]);
  }
  match_entry_free(me);
  return id;
}

static void pass(void) {
  unsigned long long ids = 0, bytes = 0;
  for (int k = 0; k < timed_count; k++) ids += lookup(&requests.items[timed[k]], &bytes);
  sum_routes += ids;
  sum_param_bytes += bytes;
}

int main(int argc, char **argv) {
  double seconds = argc > 4 ? atof(argv[4]) : 0.2;
  routes = read_list(argv[1], 0);
  requests = read_list(argv[2], 1);
  long rss0 = rss_kib();
  double t0 = now();
  tree = r3_tree_create(10);
  names = calloc(routes.count + 1, sizeof(slugs));
  for (int i = 0; i < routes.count; i++) {
    /* ":name" becomes "{name}"; r3 has no schemes, constraints in this syntax, or optional parts. */
    char path[4200], *o = path;
    const char *p = routes.items[i].text;
    if (strstr(p, "://") || strchr(p, '(') || strchr(p, '*') || !strcmp(routes.items[i].method, "-")) {
      printf("{\"door\": \"r3 (C)\", \"table\": \"%s\", \"unsupported\": \"patterns with schemes, constraints, optional parts or catch-alls\"}\n", argv[3]);
      return 0;
    }
    slugs *s = &names[i + 1];
    while (*p) {
      if (*p == ':') {
        *o++ = '{'; p++;
        const char *name = p;
        while (*p && *p != '/') *o++ = *p++;
        *o++ = '}';
        if (s->count < MAX_PARAMS) { s->name[s->count] = strndup(name, p - name); s->len[s->count++] = p - name; }
      }
      else *o++ = *p++;
    }
    *o = 0;
    r3_tree_insert_routel(tree, method_flag(routes.items[i].method), path, (int)strlen(path), (void *)(long)(i + 1));
  }
  char *error = NULL;
  if (r3_tree_compile(tree, &error) != 0) { fprintf(stderr, "r3: %s\n", error ? error : "compile failed"); return 1; }
  double compiled = now() - t0;
  long rss = rss_kib() - rss0;
  timed = malloc(sizeof(int) * requests.count);
  int wrong = 0, checked = 0;
  for (int i = 0; i < requests.count; i++) {
    if (requests.expected[i] < 0) continue;        /* malformed URIs: r3 has no notion of them */
    unsigned long long bytes = 0;
    long got = lookup(&requests.items[i], &bytes);
    if (got != requests.expected[i]) {
      if (wrong++ < 3) fprintf(stderr, "r3 wrong: %s %s -> %ld, want %d\n", requests.items[i].method, requests.items[i].text, got, requests.expected[i]);
    }
    checked++;
    timed[timed_count++] = i;
  }
  char extra[512], sums[128];
  pass_sums(pass, sums, sizeof sums);
  snprintf(extra, sizeof extra, "\"routes\": %d, \"checked\": %d, \"wrong\": %d, \"compile_ms\": %.2f, \"rss_bytes_per_route\": %.0f, %s",
           routes.count, checked, wrong, compiled * 1e3, rss * 1024.0 / routes.count, sums);
  time_batches("r3 (C)", argv[3], timed_count, seconds, pass, extra);
  r3_tree_free(tree);
  return 0;
}
