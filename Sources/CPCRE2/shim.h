#ifndef INTERLOCK_PCRE2_SHIM_H
#define INTERLOCK_PCRE2_SHIM_H
/* Swift imports only the width-suffixed PCRE2 names; fix the width before the header. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* A hint to load the cache line at p into every cache level: Swift has no prefetch of its own. */
static inline void interlock_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }
#endif
