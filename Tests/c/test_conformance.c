/* The conformance suite (the JSON files of spec/conformance, described in its README.md) through
 * the C door: every table's lookups, url_for and explain cases, every refused pattern and every
 * conflict. The same data runs through Swift (ConformanceTests.swift) and Python
 * (test_conformance.py). Usage: test_conformance SPEC_DIR */
#include <cJSON.h>
#include <dirent.h>
#include <stdlib.h>

#include "check.h"
#include "interlock.h"

/* The data names statuses as the header does, without the ILK_ prefix. */
static const struct { const char *name; int code; } statuses[] = {
  {"OK", ILK_OK}, {"NOT_FOUND", ILK_NOT_FOUND}, {"METHOD_NOT_ALLOWED", ILK_METHOD_NOT_ALLOWED},
  {"EINVAL", ILK_EINVAL}, {"EPATTERN", ILK_EPATTERN}, {"ECONFLICT", ILK_ECONFLICT},
  {"EURI", ILK_EURI}, {"ENOMEM", ILK_ENOMEM}, {"ELIMIT", ILK_ELIMIT}, {"ENOROUTE", ILK_ENOROUTE},
  {"ECALLBACK", ILK_ECALLBACK},
};

static int status_code(const char *name) {
  for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
    if (strcmp(statuses[i].name, name) == 0) return statuses[i].code;
  fprintf(stderr, "unknown status name in the data: %s\n", name);
  exit(2);
}

static const char *str(const cJSON *object, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
  return cJSON_IsString(item) ? item->valuestring : NULL;
}

static int has(const cJSON *object, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(object, key) != NULL;
}

static int integer(const cJSON *object, const char *key) {
  return (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(object, key));
}

/* Reports a failed case with where it comes from, and counts it. */
#define EXPECT(cond, table, uri, ...) do { \
    if (cond) { check_passed++; } else { \
      check_failed++; fprintf(stderr, "%s: %s: %s: ", str(table, "name"), str(table, "rule"), uri); \
      fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
  } while (0)

static const char *route_pattern(const cJSON *route) {
  return cJSON_IsString(route) ? route->valuestring : str(route, "pattern");
}

static ilk_router *make_router(const cJSON *table, uint32_t *ids, size_t capacity) {
  const cJSON *options = cJSON_GetObjectItemCaseSensitive(table, "options");
  uint32_t flags = 0;
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(options, "case_insensitive"))) flags |= ILK_CASE_INSENSITIVE;
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(options, "strict_slash"))) flags |= ILK_STRICT_SLASH;
  ilk_router *router = NULL;
  if (ilk_router_new(&router, flags) != ILK_OK) exit(2);
  size_t i = 0;
  const cJSON *route;
  cJSON_ArrayForEach(route, cJSON_GetObjectItemCaseSensitive(table, "routes")) {
    if (i == capacity) exit(2);
    const char *name = cJSON_IsString(route) ? NULL : str(route, "name");
    int rc = name ? ilk_router_add_named_route(router, route_pattern(route), name, NULL, NULL, NULL, &ids[i])
                  : ilk_router_add_route(router, route_pattern(route), NULL, NULL, NULL, &ids[i]);
    EXPECT(rc == ILK_OK, table, route_pattern(route), "add_route: %d %s", rc, ilk_errmsg());
    i++;
  }
  return router;
}

/* The match's parameters equal the case's `params` object, names and decoded values. */
static int same_params(const ilk_match *m, const cJSON *params) {
  size_t count = ilk_match_param_count(m);
  if ((int)count != cJSON_GetArraySize(params)) return 0;
  for (size_t i = 0; i < count; i++) {
    const char *name, *value;
    size_t name_len, value_len;
    if (ilk_match_param_at(m, i, &name, &name_len, &value, &value_len) != ILK_OK) return 0;
    const char *expected = str(params, name);
    if (!expected || strlen(expected) != value_len || memcmp(expected, value, value_len) != 0) return 0;
  }
  return 1;
}

static int allowed_contains(const ilk_match *m, const char *method) {
  for (size_t i = 0; i < ilk_match_allowed_count(m); i++)
    if (strcmp(ilk_match_allowed_at(m, i), method) == 0) return 1;
  return 0;
}

static void run_match(const cJSON *table, ilk_router *router, const uint32_t *ids, ilk_match *m) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(table, "match")) {
    const char *uri = str(c, "uri");
    int expected = has(c, "status") ? status_code(str(c, "status")) : ILK_OK;
    int rc = ilk_router_match(router, str(c, "method"), uri, strlen(uri), m);
    EXPECT(rc == expected, table, uri, "status %d, expected %d (%s)", rc, expected, rc < 0 ? ilk_errmsg() : "");
    if (rc != expected) continue;
    if (rc == ILK_OK) {
      uint32_t want = ids[integer(c, "route")];
      EXPECT(ilk_match_route_id(m) == want, table, uri, "route %u, expected %u", ilk_match_route_id(m), want);
      if (has(c, "params"))
        EXPECT(same_params(m, cJSON_GetObjectItemCaseSensitive(c, "params")), table, uri, "parameters differ");
    }
    if (has(c, "allowed")) {
      const cJSON *allowed = cJSON_GetObjectItemCaseSensitive(c, "allowed"), *method;
      EXPECT((int)ilk_match_allowed_count(m) == cJSON_GetArraySize(allowed), table, uri, "allowed count %zu",
             ilk_match_allowed_count(m));
      cJSON_ArrayForEach(method, allowed)
        EXPECT(allowed_contains(m, method->valuestring), table, uri, "%s not allowed", method->valuestring);
    }
    if (has(c, "offset"))
      EXPECT(ilk_erroffset() == (size_t)integer(c, "offset"), table, uri, "offset %zu, expected %d",
             ilk_erroffset(), integer(c, "offset"));
  }
}

static void run_url_for(const cJSON *table, ilk_router *router) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(table, "url_for")) {
    const cJSON *route = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "routes"), integer(c, "route"));
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(c, "params"), *p;
    const char *names[64], *values[64];
    size_t count = 0;
    cJSON_ArrayForEach(p, params) {
      if (count == 64) exit(2);
      names[count] = p->string;
      values[count++] = p->valuestring;
    }
    char buffer[1024];
    size_t length = 0;
    int rc = ilk_router_url_for(router, str(route, "name"), names, values, count, buffer, sizeof buffer, &length);
    if (has(c, "uri")) {
      EXPECT(rc == ILK_OK && strcmp(buffer, str(c, "uri")) == 0, table, str(c, "uri"), "url_for gave %d %s",
             rc, rc == ILK_OK ? buffer : ilk_errmsg());
    } else {
      EXPECT(rc == status_code(str(c, "status")), table, str(route, "name"), "url_for gave %d, expected %s", rc,
             str(c, "status"));
    }
  }
}

static void run_explain(const cJSON *table, ilk_router *router, const uint32_t *ids) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(table, "explain")) {
    const char *uri = str(c, "uri");
    static char buffer[1 << 20];
    size_t length = 0;
    int rc = ilk_router_explain(router, str(c, "method"), uri, strlen(uri), buffer, sizeof buffer, &length);
    EXPECT(rc == ILK_OK, table, uri, "explain gave %d", rc);
    if (rc != ILK_OK) continue;
    cJSON *explained = cJSON_Parse(buffer);
    EXPECT(explained != NULL, table, uri, "explain's JSON does not parse: %s", buffer);
    if (!explained) continue;
    const cJSON *winner = cJSON_GetObjectItemCaseSensitive(c, "winner");
    const cJSON *answer = cJSON_GetObjectItemCaseSensitive(explained, "answer");
    const cJSON *answered = cJSON_GetObjectItemCaseSensitive(answer, "route");
    long want = cJSON_IsNull(winner) ? -1 : (long)ids[(int)winner->valuedouble];
    long got = cJSON_IsNumber(answered) ? (long)answered->valuedouble : -1;
    EXPECT(got == want, table, uri, "explain's answer %ld, expected %ld", got, want);
    long takers = 0, taker = -1;
    const cJSON *candidate;
    cJSON_ArrayForEach(candidate, cJSON_GetObjectItemCaseSensitive(explained, "candidates"))
      if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(candidate, "takes"))) {
        takers++;
        taker = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(candidate, "route"));
      }
    EXPECT(want < 0 ? takers == 0 : (takers == 1 && taker == want), table, uri,
           "explain lists %ld routes as taking the request (route %ld), expected %ld", takers, taker, want);
    cJSON_Delete(explained);
  }
}

static void run_patterns(const cJSON *root) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "patterns")) {
    ilk_router *router;
    ilk_router_new(&router, 0);
    int rc = ilk_router_add_route(router, str(c, "pattern"), NULL, NULL, NULL, NULL);
    int expected = status_code(str(c, "status"));
    EXPECT(rc == expected, c, str(c, "pattern"), "add_route gave %d (%s), expected %s", rc, ilk_errmsg(),
           str(c, "status"));
    if (rc == expected && has(c, "offset"))
      EXPECT(ilk_erroffset() == (size_t)integer(c, "offset"), c, str(c, "pattern"), "offset %zu, expected %d",
             ilk_erroffset(), integer(c, "offset"));
    ilk_router_free(router);
  }
}

static void run_conflicts(const cJSON *root) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "conflicts")) {
    const cJSON *routes = cJSON_GetObjectItemCaseSensitive(c, "routes");
    const cJSON *with = cJSON_GetObjectItemCaseSensitive(c, "with");
    int last = cJSON_GetArraySize(routes) - 1;
    ilk_router *router;
    ilk_router_new(&router, 0);
    for (int i = 0; i < last; i++)
      EXPECT(ilk_router_add_route(router, cJSON_GetArrayItem(routes, i)->valuestring, NULL, NULL, NULL, NULL) == ILK_OK,
             c, cJSON_GetArrayItem(routes, i)->valuestring, "an earlier route was refused");
    const char *pattern = cJSON_GetArrayItem(routes, last)->valuestring;
    int rc = ilk_router_add_route(router, pattern, NULL, NULL, NULL, NULL);
    if (cJSON_IsNull(with)) {
      EXPECT(rc == ILK_OK, c, pattern, "refused: %d %s", rc, ilk_errmsg());
    } else {
      char quoted[512];
      snprintf(quoted, sizeof quoted, "'%s'", cJSON_GetArrayItem(routes, (int)with->valuedouble)->valuestring);
      EXPECT(rc == ILK_ECONFLICT && strstr(ilk_errmsg(), quoted) != NULL, c, pattern,
             "gave %d (%s), expected a conflict naming %s", rc, ilk_errmsg(), quoted);
    }
    ilk_router_free(router);
  }
}

/* Pipeline scenarios: each callback records "kind:name" in `ran` when it runs, then does what its
 * spec's `do` says (the spec, a cJSON object, is its userdata). */
static char ran[64][96];
static int ran_count;

static void record(const char *kind, const char *name) {
  if (ran_count < 64) snprintf(ran[ran_count++], sizeof ran[0], "%s:%s", kind, name);
}

static int play_destination(const ilk_request *request, ilk_response *response, void *userdata) {
  (void)request;
  (void)response;
  record("destination", (const char *)userdata);
  return ILK_OK;
}

static int play_guard(const ilk_request *request, void *userdata) {
  (void)request;
  const cJSON *route = userdata;
  record("guard", str(route, "name"));
  return strcmp(str(route, "guard"), "allow") == 0;
}

static int play_filter(ilk_request *request, ilk_filter_chain *chain, void *userdata) {
  const cJSON *spec = userdata;
  const char *todo = str(spec, "do"), *when = str(spec, "when");
  record("filter", str(spec, "name"));
  /* Turnpike's idiom: pass on what the rest of the chain gave. */
  if (strcmp(todo, "next") == 0 || (when && strcmp(when, ilk_request_path(request)) != 0))
    return ilk_filter_chain_next(chain, request);
  if (strcmp(todo, "stop") == 0) {
    /* A stop's answer: written to the chain's response before it returns. */
    const cJSON *answer = cJSON_GetObjectItemCaseSensitive(spec, "respond"), *header;
    if (answer) {
      ilk_response *response = ilk_filter_chain_response(chain);
      const char *body = str(answer, "body");
      ilk_response_set_status(response, integer(answer, "status"));
      cJSON_ArrayForEach(header, cJSON_GetObjectItemCaseSensitive(answer, "headers"))
        ilk_response_add_header(response, cJSON_GetArrayItem(header, 0)->valuestring,
                                cJSON_GetArrayItem(header, 1)->valuestring);
      ilk_response_set_body(response, body, strlen(body));
    }
    return ILK_STOP;
  }
  ilk_filter_chain_redirect(chain, str(spec, "to"));
  return ILK_REDIRECT;
}

static int play_request(ilk_request *request, void *userdata) {
  const cJSON *spec = userdata;
  record("request", str(spec, "name"));
  if (strcmp(str(spec, "do"), "abort") == 0) {
    ilk_request_set_error(request, "aborted by the script");
    return ILK_ABORT;
  }
  return ILK_CONTINUE;
}

static int play_response(ilk_request *request, ilk_response *response, void *userdata) {
  const cJSON *spec = userdata;
  const char *todo = str(spec, "do");
  char key[128];
  snprintf(key, sizeof key, "retried:%s", str(spec, "name"));
  record("response", str(spec, "name"));
  if (strcmp(todo, "abort") == 0) {
    ilk_response_set_error(response, "aborted by the script");
    return ILK_ABORT;
  }
  if (strcmp(todo, "retry") == 0 || (strcmp(todo, "retry_once") == 0 && ilk_request_state(request, key) == NULL)) {
    ilk_request_set_state(request, key, "1");
    return ILK_RETRY;
  }
  return ILK_CONTINUE;
}

static void add_interceptors(ilk_router *router, const cJSON *list, int response, uint32_t route_id) {
  const cJSON *spec;
  cJSON_ArrayForEach(spec, list) {
    ilk_interceptor *i = NULL;
    if (response)
      ilk_interceptor_new_response(&i, str(spec, "name"), play_response, (void *)spec, NULL);
    else
      ilk_interceptor_new_request(&i, str(spec, "name"), play_request, (void *)spec, NULL);
    CHECK(ilk_router_add_interceptor(router, i, route_id) == ILK_OK);
    ilk_interceptor_free(i);
  }
}

static const struct { const char *name; int code; } endings[] = {
  {"OK", ILK_OK}, {"NOT_FOUND", ILK_NOT_FOUND}, {"METHOD_NOT_ALLOWED", ILK_METHOD_NOT_ALLOWED},
  {"STOPPED", ILK_STOPPED}, {"GUARDED", ILK_GUARDED}, {"ABORTED", ILK_ABORTED},
  {"REDIRECT_LOOP", ILK_REDIRECT_LOOP}, {"RETRY_LIMIT", ILK_RETRY_LIMIT}, {"ERROR", ILK_ECALLBACK},
};

static int ending_code(const char *name) {
  for (size_t i = 0; i < sizeof endings / sizeof endings[0]; i++)
    if (strcmp(endings[i].name, name) == 0) return endings[i].code;
  fprintf(stderr, "unknown ending in the data: %s\n", name);
  exit(2);
}

static void run_pipelines(const cJSON *root) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "pipelines")) {
    ilk_router *router;
    ilk_router_new(&router, 0);
    uint32_t ids[64];
    int n = 0;
    const cJSON *route;
    cJSON_ArrayForEach(route, cJSON_GetObjectItemCaseSensitive(c, "routes")) {
      const char *name = str(route, "name");
      EXPECT(ilk_router_add_named_route(router, str(route, "pattern"), name, play_destination, (void *)name, NULL,
                                        &ids[n]) == ILK_OK, c, str(route, "pattern"), "add: %s", ilk_errmsg());
      if (has(route, "guard")) ilk_router_set_guard(router, ids[n], play_guard, (void *)route, NULL);
      add_interceptors(router, cJSON_GetObjectItemCaseSensitive(route, "request_interceptors"), 0, ids[n]);
      add_interceptors(router, cJSON_GetObjectItemCaseSensitive(route, "response_interceptors"), 1, ids[n]);
      n++;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "default")))
      ilk_router_set_default(router, play_destination, (void *)"default", NULL);
    const cJSON *spec;
    cJSON_ArrayForEach(spec, cJSON_GetObjectItemCaseSensitive(c, "filters"))
      ilk_router_add_filter(router, str(spec, "name"), play_filter, (void *)spec, NULL);
    add_interceptors(router, cJSON_GetObjectItemCaseSensitive(c, "request_interceptors"), 0, 0);
    add_interceptors(router, cJSON_GetObjectItemCaseSensitive(c, "response_interceptors"), 1, 0);
    const cJSON *step;
    cJSON_ArrayForEach(step, cJSON_GetObjectItemCaseSensitive(c, "resolve")) {
      const char *uri = str(step, "uri");
      ilk_result *result = NULL;
      ran_count = 0;
      int rc = ilk_router_resolve(router, str(step, "method"), uri, strlen(uri), &result);
      EXPECT(rc == ending_code(str(step, "status")), c, uri, "ended %d, expected %s (%s)", rc, str(step, "status"),
             result && ilk_result_error(result) ? ilk_result_error(result) : "");
      const cJSON *expected_ran = cJSON_GetObjectItemCaseSensitive(step, "ran"), *stage;
      int same = cJSON_GetArraySize(expected_ran) == ran_count, k = 0;
      cJSON_ArrayForEach(stage, expected_ran) same = same && strcmp(stage->valuestring, ran[k++]) == 0;
      EXPECT(same, c, uri, "ran %d callbacks, in another order than the data's (first: %s)", ran_count,
             ran_count ? ran[0] : "none");
      const cJSON *want_route = cJSON_GetObjectItemCaseSensitive(step, "route");
      uint32_t want = cJSON_IsNumber(want_route) ? ids[(int)want_route->valuedouble] : 0;
      EXPECT(result && ilk_result_route_id(result) == want, c, uri, "route %u, expected %u",
             result ? ilk_result_route_id(result) : 0, want);
      const cJSON *redirects = cJSON_GetObjectItemCaseSensitive(step, "redirects"), *r;
      if (redirects && result) {
        int same_redirects = (size_t)cJSON_GetArraySize(redirects) == ilk_result_redirect_count(result);
        size_t j = 0;
        cJSON_ArrayForEach(r, redirects)
          same_redirects = same_redirects && j < ilk_result_redirect_count(result)
                           && strcmp(r->valuestring, ilk_result_redirect_at(result, j++)) == 0;
        EXPECT(same_redirects, c, uri, "redirects differ (%zu)", ilk_result_redirect_count(result));
      }
      const cJSON *pending = cJSON_GetObjectItemCaseSensitive(step, "pending");
      if (pending) {
        char link[512];
        size_t length = ilk_router_pending_link(router, link, sizeof link);
        EXPECT(cJSON_IsNull(pending) ? length == 0 : (length > 0 && strcmp(link, pending->valuestring) == 0), c, uri,
               "pending link %s", length ? link : "(none)");
      }
      const cJSON *response = cJSON_GetObjectItemCaseSensitive(step, "response"), *header;
      if (response && result) {
        size_t body_len = 0, j = 0;
        const char *body = ilk_result_body(result, &body_len), *name = NULL, *value = NULL;
        int same_headers = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(response, "headers"))
                           == ilk_result_header_count(result);
        cJSON_ArrayForEach(header, cJSON_GetObjectItemCaseSensitive(response, "headers"))
          same_headers = same_headers && ilk_result_header_at(result, j++, &name, &value) == ILK_OK
                         && strcmp(name, cJSON_GetArrayItem(header, 0)->valuestring) == 0
                         && strcmp(value, cJSON_GetArrayItem(header, 1)->valuestring) == 0;
        EXPECT(ilk_result_response_status(result) == integer(response, "status") && same_headers
               && body_len == strlen(str(response, "body")) && memcmp(body, str(response, "body"), body_len) == 0,
               c, uri, "response %d with %zu headers and %zu bytes, not the data's", ilk_result_response_status(result),
               ilk_result_header_count(result), body_len);
      }
      ilk_result_free(result);
    }
    ilk_router_free(router);
  }
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (text && fread(text, 1, (size_t)size, f) != (size_t)size) { free(text); text = NULL; }
  if (text) text[size] = 0;
  fclose(f);
  return text;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: %s SPEC_DIR\n", argv[0]); return 2; }
  DIR *dir = opendir(argv[1]);
  if (!dir) { perror(argv[1]); return 2; }
  ilk_match *m;
  ilk_match_new(&m);
  int files = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    size_t len = strlen(entry->d_name);
    if (len < 5 || strcmp(entry->d_name + len - 5, ".json") != 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], entry->d_name);
    char *text = read_file(path);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    if (!root) { fprintf(stderr, "%s: cannot read or parse\n", path); return 2; }
    files++;
    const cJSON *table;
    cJSON_ArrayForEach(table, cJSON_GetObjectItemCaseSensitive(root, "tables")) {
      uint32_t ids[256];
      ilk_router *router = make_router(table, ids, 256);
      run_match(table, router, ids, m);
      run_url_for(table, router);
      run_explain(table, router, ids);
      ilk_router_free(router);
    }
    run_patterns(root);
    run_conflicts(root);
    run_pipelines(root);
    cJSON_Delete(root);
    free(text);
  }
  closedir(dir);
  ilk_match_free(m);
  CHECK(files > 0);
  return check_summary("conformance");
}
