/* r3 (Debian's libr3), the PCRE-based C router, on the same tables: each lookup creates and frees
 * a match_entry, as r3's API requires, and checks the method. Usage: r3_bench ROUTES REQUESTS TABLE [seconds] */
#include "common.h"
#include <r3.h>

static node *tree;
static list routes, requests;
static int *timed, timed_count;

static int method_flag(const char *m) {
  if (!strcmp(m, "GET")) return METHOD_GET;
  if (!strcmp(m, "POST")) return METHOD_POST;
  if (!strcmp(m, "PUT")) return METHOD_PUT;
  if (!strcmp(m, "DELETE")) return METHOD_DELETE;
  if (!strcmp(m, "PATCH")) return METHOD_PATCH;
  return 0;
}

static route *lookup(const entry *e) {
  match_entry *me = match_entry_createl(e->text, (int)strlen(e->text));
  me->request_method = method_flag(e->method);
  route *r = r3_tree_match_route(tree, me);
  match_entry_free(me);
  return r;
}

static void pass(void) {
  for (int k = 0; k < timed_count; k++) lookup(&requests.items[timed[k]]);
}

int main(int argc, char **argv) {
  double seconds = argc > 4 ? atof(argv[4]) : 0.2;
  routes = read_list(argv[1], 0);
  requests = read_list(argv[2], 1);
  long rss0 = rss_kib();
  double t0 = now();
  tree = r3_tree_create(10);
  for (int i = 0; i < routes.count; i++) {
    /* ":name" becomes "{name}"; r3 has no schemes, constraints in this syntax, or optional parts. */
    char path[4200], *o = path;
    const char *p = routes.items[i].text;
    if (strstr(p, "://") || strchr(p, '(') || strchr(p, '*') || !strcmp(routes.items[i].method, "-")) {
      printf("{\"door\": \"r3 (C)\", \"table\": \"%s\", \"unsupported\": \"patterns with schemes, constraints, optional parts or catch-alls\"}\n", argv[3]);
      return 0;
    }
    while (*p) {
      if (*p == ':') { *o++ = '{'; p++; while (*p && *p != '/') *o++ = *p++; *o++ = '}'; }
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
    route *r = lookup(&requests.items[i]);
    long got = r ? (long)r->data : 0;
    if (got != requests.expected[i]) {
      if (wrong++ < 3) fprintf(stderr, "r3 wrong: %s %s -> %ld, want %d\n", requests.items[i].method, requests.items[i].text, got, requests.expected[i]);
    }
    checked++;
    timed[timed_count++] = i;
  }
  char extra[256];
  snprintf(extra, sizeof extra, "\"routes\": %d, \"checked\": %d, \"wrong\": %d, \"compile_ms\": %.2f, \"rss_bytes_per_route\": %.0f",
           routes.count, checked, wrong, compiled * 1e3, rss * 1024.0 / routes.count);
  time_batches("r3 (C)", argv[3], timed_count, seconds, pass, extra);
  r3_tree_free(tree);
  return 0;
}
