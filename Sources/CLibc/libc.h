#ifndef INTERLOCK_CLIBC_H
#define INTERLOCK_CLIBC_H
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* errno, which Swift cannot read as the macro it is. */
static inline int interlock_errno(void) { return errno; }
#endif
