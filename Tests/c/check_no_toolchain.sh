#!/bin/sh
# The library carries the Swift runtime: ldd lists no Swift library, and a C program runs with the
# Swift toolchain hidden (an empty tmpfs mounted over it in a private mount namespace).
set -eu
library=$1 program=$2 toolchain=$3
shift 3
if ldd "$library" | grep -i swift; then echo "no_toolchain: 0 passed, 1 failed (links a Swift library)"; exit 1; fi
libdir=$(dirname "$library")
if unshare -m --propagation private true 2>/dev/null; then
  unshare -m --propagation private sh -c "mount -t tmpfs none '$toolchain' && env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH='$libdir' '$program' \"\$@\"" sh "$@"
  echo "no_toolchain: 2 passed, 0 failed (ran with $toolchain hidden)"
else
  env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$libdir" "$program" "$@"
  echo "no_toolchain: 1 passed, 0 failed (could not hide $toolchain here: checked ldd and ran with a bare environment)"
fi
