// Nothing to import: the target only binds two libm functions to older symbol versions (hypot.c).
#ifndef ILK_GLIBC_BASELINE_H
#define ILK_GLIBC_BASELINE_H
#ifdef __linux__
#include <features.h>   /* __GLIBC__ */
#endif
double hypot(double x, double y);
float hypotf(float x, float y);
#endif
