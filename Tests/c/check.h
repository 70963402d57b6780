/* A small test harness: CHECK records a result; check_summary prints "N passed, N failed". */
#ifndef ILK_CHECK_H
#define ILK_CHECK_H
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond) do { \
    if (cond) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
  } while (0)

#define CHECK_EQ_INT(a, b) do { \
    long long _a = (long long)(a), _b = (long long)(b); \
    if (_a == _b) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, _a, _b); } \
  } while (0)

#define CHECK_EQ_STR(a, b) do { \
    const char *_a = (a), *_b = (b); \
    if (_a && _b && strcmp(_a, _b) == 0) { check_passed++; } \
    else { check_failed++; fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); } \
  } while (0)

static int check_summary(const char *suite) {
  printf("%s: %d passed, %d failed\n", suite, check_passed, check_failed);
  return check_failed == 0 ? 0 : 1;
}
#endif
