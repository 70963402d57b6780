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

/* How many passes make a batch of about `batch_seconds` (one pass timed after a warm-up one). */
static long passes_per_batch(void (*pass)(void), double batch_seconds) {
  pass();
  double t0 = now();
  pass();
  double one = now() - t0;
  return one > 0 ? (long)(batch_seconds / one) + 1 : 1;
}

/* One door timed by `time_doors`: its pass over `per_pass` lookups, and the ns per lookup of
 * each batch. */
#define BATCHES 7
typedef struct { const char *name; void (*pass)(void); long per_pass, passes; double ns[BATCHES]; } door;

/* Times `count` doors in turn, batch by batch (a batch of the first, of the second, ..., then the
 * first again), so that batch b of every door falls in the same stretch of time: the ratio of two
 * doors' batch b compares measurements under the same load on the machine. */
static void time_doors(door *doors, int count, double batch_seconds) {
  for (int d = 0; d < count; d++) doors[d].passes = passes_per_batch(doors[d].pass, batch_seconds);
  for (int b = 0; b < BATCHES; b++)
    for (int d = 0; d < count; d++) {
      double t0 = now();
      for (long p = 0; p < doors[d].passes; p++) doors[d].pass();
      doors[d].ns[b] = (now() - t0) / (doors[d].passes * (double)doors[d].per_pass) * 1e9;
    }
}

/* Prints `d`'s batches as one JSON line, with `extra` (JSON members, or "") before the closing brace. */
static void print_door(const door *d, const char *table, const char *extra) {
  printf("{\"door\": \"%s\", \"table\": \"%s\", \"lookups_per_batch\": %ld, \"ns\": [", d->name, table, d->passes * d->per_pass);
  for (int b = 0; b < BATCHES; b++) printf("%s%.2f", b ? ", " : "", d->ns[b]);
  printf("]%s%s}\n", extra && *extra ? ", " : "", extra ? extra : "");
  fflush(stdout);
}

/* `a`'s batch b over `b`'s, for each batch, as the JSON member "ratios_to": {"<b's name>": [...]}. */
static inline void paired_ratios(char *out, size_t size, const door *a, const door *b) {
  int n = snprintf(out, size, "\"ratios_to\": {\"%s\": [", b->name);
  for (int k = 0; k < BATCHES && n < (int)size; k++) n += snprintf(out + n, size - n, "%s%.4f", k ? ", " : "", a->ns[k] / b->ns[k]);
  if (n < (int)size) snprintf(out + n, size - n, "]}");
}

/* What a pass did, added up by every harness's lookups (never reset while timing, so no lookup's
 * work can be left out): the ids of the routes found (0 for none) and the lengths of every
 * parameter's name and value read. The driver checks one pass's sums against the table's. */
static unsigned long long sum_routes, sum_param_bytes;

/* One pass of `pass` with the sums counted from zero, as the JSON members "route_sum" and
 * "param_bytes" (the sums then go on from where they were). */
static void pass_sums(void (*pass)(void), char *out, size_t size) {
  unsigned long long routes = sum_routes, bytes = sum_param_bytes;
  sum_routes = sum_param_bytes = 0;
  pass();
  snprintf(out, size, "\"route_sum\": %llu, \"param_bytes\": %llu", sum_routes, sum_param_bytes);
  sum_routes += routes;
  sum_param_bytes += bytes;
}

/* One door timed alone, printed with `extra`. */
static void time_batches(const char *name, const char *table, long per_pass, double batch_seconds,
                         void (*pass)(void), const char *extra) {
  door d = {name, pass, per_pass, 0, {0}};
  time_doors(&d, 1, batch_seconds);
  print_door(&d, table, extra);
}
#endif
