// glibc 2.35 gave hypot and hypotf new symbol versions. The Swift Glibc overlay the command links
// statically refers to both (the command never calls them), and the linker binds such a reference
// to the newest version of the build machine's libm: the command, and the wheel that carries it,
// would then need glibc 2.35 where the library needs 2.34. Defined here, over the versions every
// x86-64 glibc has, the references are the command's own and ask nothing newer of libm.
#include "glibc_baseline.h"
#if defined(__x86_64__) && defined(__GLIBC__)

__asm__(".symver ilk_glibc_hypot, hypot@GLIBC_2.2.5");
__asm__(".symver ilk_glibc_hypotf, hypotf@GLIBC_2.2.5");
double ilk_glibc_hypot(double x, double y);
float ilk_glibc_hypotf(float x, float y);

// Hidden: the command's own, not offered to the shared libraries it loads in place of libm's.
__attribute__((visibility("hidden"))) double hypot(double x, double y) { return ilk_glibc_hypot(x, y); }
__attribute__((visibility("hidden"))) float hypotf(float x, float y) { return ilk_glibc_hypotf(x, y); }
#endif
