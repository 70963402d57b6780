#ifndef INTERLOCK_PCRE2_SHIM_H
#define INTERLOCK_PCRE2_SHIM_H
/* Swift imports only the width-suffixed PCRE2 names; fix the width before the header. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif
