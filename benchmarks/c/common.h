/* Shared by the C benchmark harnesses: reading tables, timing batches, printing JSON. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { char method[16]; char *text; } entry;          /* a route or a request */
typedef struct { entry *items; int *expected; int count; } list; /* expected: route line, 0 none, -1 bad */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static list read_list(const char *path, int with_expected) {
  list l = {0};
  FILE *f = fopen(path, "r");
  char line[4096];
  int cap = 1024;
  if (!f) { perror(path); exit(2); }
  l.items = malloc(sizeof(entry) * cap);
  l.expected = malloc(sizeof(int) * cap);
  while (fgets(line, sizeof line, f)) {
    char method[16], text[4000], expected[16] = "0";
    int n = sscanf(line, "%15s %3999s %15s", method, text, expected);
    if (n < 2 || (with_expected && n < 3)) continue;
    if (l.count == cap) {
      cap *= 2;
      l.items = realloc(l.items, sizeof(entry) * cap);
      l.expected = realloc(l.expected, sizeof(int) * cap);
    }
    strcpy(l.items[l.count].method, method);
    l.items[l.count].text = strdup(text);
    l.expected[l.count] = strcmp(expected, "bad") == 0 ? -1 : atoi(expected);
    l.count++;
  }
  fclose(f);
  return l;
}

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = 0;
  while (f && fgets(line, sizeof line, f)) if (strncmp(line, "VmRSS:", 6) == 0) v = atol(line + 6);
  if (f) fclose(f);
  return v;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Runs `pass` (one pass over `per_pass` lookups) in batches of about `batch_seconds`, after a
 * warm-up; prints one JSON line with the ns per lookup of each batch. */
#define BATCHES 7
static void time_batches(const char *door, const char *table, long per_pass, double batch_seconds,
                         void (*pass)(void), const char *extra) {
  double ns[BATCHES];
  long passes = 1;
  double t0 = now();
  pass();
  double one = now() - t0;
  if (one > 0) passes = (long)(batch_seconds / one) + 1;
  for (int b = 0; b < BATCHES; b++) {
    t0 = now();
    for (long p = 0; p < passes; p++) pass();
    ns[b] = (now() - t0) / (passes * (double)per_pass) * 1e9;
  }
  printf("{\"door\": \"%s\", \"table\": \"%s\", \"lookups_per_batch\": %ld, \"ns\": [", door, table, passes * per_pass);
  for (int b = 0; b < BATCHES; b++) printf("%s%.2f", b ? ", " : "", ns[b]);
  printf("]%s%s}\n", extra && *extra ? ", " : "", extra ? extra : "");
  fflush(stdout);
}
#endif
