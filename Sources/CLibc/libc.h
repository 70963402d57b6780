#ifndef INTERLOCK_CLIBC_H
#define INTERLOCK_CLIBC_H
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#endif
