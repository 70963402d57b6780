/* Compiled as C99 and as C++ with every warning an error: the header must be clean in both. */
#include "interlock.h"
int main(void) { return ilk_version_number() == ILK_VERSION_NUMBER ? 0 : 1; }
