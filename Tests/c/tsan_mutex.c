/* Preloaded into the ThreadSanitizer runs (CMakeLists.txt, ILK_SANITIZE=thread): stands in for
 * Synchronization.Mutex's two contended paths, which run inside the uninstrumented Swift runtime, so
 * that TSan sees the happens-before the lock gives (see the comment in CMakeLists.txt). x86-64 only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"
/* Weak: processes without TSan (swift test's driver inherits the preload too) skip the calls. */
extern void __tsan_acquire(void *) __attribute__((weak));
extern void __tsan_release(void *) __attribute__((weak));
__attribute__((visibility("hidden"))) void ilk_after_lock(void *h) { if (__tsan_acquire) __tsan_acquire(h); }
__attribute__((visibility("hidden"))) void ilk_before_unlock(void *h) { if (__tsan_release) __tsan_release(h); }
static void *next(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) { fprintf(stderr, "ilk_tsan_mutex: %s not found\n", name); abort(); }
  return f;
}
__attribute__((visibility("hidden"))) void *ilk_lock_target(void) { static void *f; if (!f) f = next(LOCK_SLOW); return f; }
__attribute__((visibility("hidden"))) void *ilk_unlock_target(void) { static void *f; if (!f) f = next(UNLOCK_SLOW); return f; }
/* Swift's convention: the handle (the lock word's address) comes in r13 (swiftself), _lockSlow's
 * thread id in edi. Both are kept for the real call; r13 is restored for the caller. */
__asm__(
  ".text\n"
  ".globl \"" LOCK_SLOW "\"\n"
  ".type \"" LOCK_SLOW "\", @function\n"
  "\"" LOCK_SLOW "\":\n"
  "  push %r13\n"
  "  push %rdi\n"
  "  sub $8, %rsp\n"
  "  call ilk_lock_target\n"
  "  mov 8(%rsp), %rdi\n"
  "  mov 16(%rsp), %r13\n"
  "  call *%rax\n"
  "  mov 16(%rsp), %rdi\n"
  "  call ilk_after_lock\n"
  "  add $16, %rsp\n"
  "  pop %r13\n"
  "  ret\n"
  ".size \"" LOCK_SLOW "\", .-\"" LOCK_SLOW "\"\n"
  ".globl \"" UNLOCK_SLOW "\"\n"
  ".type \"" UNLOCK_SLOW "\", @function\n"
  "\"" UNLOCK_SLOW "\":\n"
  "  push %r13\n"
  "  mov %r13, %rdi\n"
  "  call ilk_before_unlock\n"
  "  call ilk_unlock_target\n"
  "  mov (%rsp), %r13\n"
  "  call *%rax\n"
  "  pop %r13\n"
  "  ret\n"
  ".size \"" UNLOCK_SLOW "\", .-\"" UNLOCK_SLOW "\"\n");
