#!/bin/sh
# Prints one line per finding: the file, then what broke (the invariant, or the sanitizer's
# report and the first frame in Interlock or the target), found by running the target on it.
# Usage: Tests/fuzz/triage.sh TARGET_BINARY FINDING...
set -u
bin=$1; shift
for f in "$@"; do
  [ -f "$f" ] || continue
  out=$(SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 timeout 60 "$bin" -timeout=30 -rss_limit_mb=2048 "$f" 2>&1)
  what=$(printf '%s\n' "$out" | grep -m1 -E 'invariant broken|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|Fatal error|SUMMARY: libFuzzer: timeout' |
         sed 's/^==[0-9]*==//; s/^ *//' | cut -c1-400)
  frame=$(printf '%s\n' "$out" | grep -E '^ +#[0-9]+ .* in ' | grep -v -E 'fuzz_fail|__sanitizer|libFuzzer|fuzzer::|asan_|libc\.so|abort|raise|pthread_kill|swift_|\$ss' |
          grep -m1 -E 'Sources/|Tests/fuzz/' | sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ in //; s|/work/[^ ]*/(Sources\|Tests)/|\1/|' | cut -c1-200)
  printf '%s\n  %s\n  at %s\n' "$(basename "$f")" "${what:-no failure reproduced}" "${frame:--}"
done
