#!/bin/sh
# Builds the libFuzzer targets of Tests/fuzz into $OUT (default .build-fuzz/fuzz):
#   1. libinterlock.so by SwiftPM with the Swift code instrumented for libFuzzer's coverage and
#      AddressSanitizer. One -sanitize=fuzzer,address flag: SwiftPM's --sanitize=fuzzer
#      --sanitize=address passes two, and swiftc then drops the coverage instrumentation of Swift
#      code. The Swift runtime is linked in statically (-static-stdlib), as the CMake build does,
#      so the targets need no toolchain path at run time.
#   2. each Tests/fuzz/fuzz_<target>.c with the toolchain's clang, -fsanitize=fuzzer,address,
#      undefined (UBSan for the C side: Swift has none on Linux), linked to that library.
# Usage: Tests/fuzz/build.sh [target...]   (default: every fuzz_*.c)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SCRATCH=${SCRATCH:-$ROOT/.build-fuzz}
OUT=${OUT:-$SCRATCH/fuzz}
SWIFT=${SWIFT:-swift}
# The clang beside swift: its sanitizer runtimes are the ones swiftc instrumented against.
CLANG=${CLANG:-$(dirname "$(readlink -f "$(command -v "$SWIFT")")")/clang}
CFLAGS=${FUZZ_CFLAGS:--g -O1 -fno-omit-frame-pointer}

cd "$ROOT"
# A source file edited while SwiftPM builds fails the build: try again a few times.
tries=0
until "$SWIFT" build -c release --product interlock --scratch-path "$SCRATCH" \
        -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -static-stdlib; do
  tries=$((tries + 1))
  [ $tries -lt 3 ] || { echo "fuzz build: swift build failed" >&2; exit 1; }
  echo "fuzz build: swift build failed, retrying in 20 s" >&2
  sleep 20
done

mkdir -p "$OUT/lib"
# The SONAME is libinterlock.so.0; copy only when it changed (keeps the targets' mtime logic simple).
cmp -s "$SCRATCH/release/libinterlock.so" "$OUT/lib/libinterlock.so.0" ||
  cp "$SCRATCH/release/libinterlock.so" "$OUT/lib/libinterlock.so.0"
ln -sf libinterlock.so.0 "$OUT/lib/libinterlock.so"

if [ $# -eq 0 ]; then
  set -- $(cd Tests/fuzz && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
fi
for t in "$@"; do
  "$CLANG" $CFLAGS -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -fuse-ld=lld -Iinclude -ITests/fuzz "Tests/fuzz/fuzz_$t.c" -L"$OUT/lib" -linterlock -Wl,-rpath,'$ORIGIN/lib' \
    -o "$OUT/fuzz_$t"
  echo "fuzz build: $OUT/fuzz_$t"
done
