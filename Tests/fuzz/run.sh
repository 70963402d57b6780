#!/bin/sh
# Runs the fuzz targets built by Tests/fuzz/build.sh, each for SECONDS, and prints per target the
# executions, the coverage (libFuzzer's cov and ft at the end), the corpus size and the findings,
# then one summary line. Exits 1 if any target found something (a crash, a broken invariant, a
# leak, a timeout or running out of memory).
#
# Usage: Tests/fuzz/run.sh [-k] SECONDS TARGET...
#   -k  keep going after a finding (libFuzzer's -fork=1 -ignore_crashes=1 ...), so that a long run
#       collects every finding it can instead of stopping at the first (make fuzz); without it the
#       target stops at its first finding (make fuzz-smoke).
# Environment: SCRATCH (default .build-fuzz), FUZZ_TIMEOUT (seconds an input may take before it
# counts as a hang, default 10), FUZZ_ARGS (more libFuzzer flags).
#
# Corpora: the seeds in Tests/fuzz/corpus/<target> are read, never written; what the fuzzer adds
# goes to $SCRATCH/corpus/<target>, kept between runs. Findings go to $SCRATCH/findings/<target>,
# emptied when the target's run starts.
set -u
keep=0
if [ "${1:-}" = "-k" ]; then keep=1; shift; fi
seconds=$1; shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SCRATCH=${SCRATCH:-$ROOT/.build-fuzz}
OUT=$SCRATCH/fuzz
timeout=${FUZZ_TIMEOUT:-10}
# A Swift runtime failure would otherwise wait in the backtracer instead of crashing.
export SWIFT_BACKTRACE=enable=no
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

total_execs=0 total_findings=0 ntargets=0
for t in "$@"; do
  bin=$OUT/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz: $bin is missing (run Tests/fuzz/build.sh)" >&2; exit 2; }
  corpus=$SCRATCH/corpus/$t findings=$SCRATCH/findings/$t log=$SCRATCH/logs/$t.log
  mkdir -p "$corpus" "$findings" "$SCRATCH/logs"
  rm -f "$findings"/*
  case $t in
    uri) max_len=4096 ;;
    patterns) max_len=2048 ;;
    *) max_len=512 ;;
  esac
  dict=
  [ -f "$ROOT/Tests/fuzz/$t.dict" ] && dict=-dict=$ROOT/Tests/fuzz/$t.dict
  mode=
  [ $keep = 1 ] && mode="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
  # shellcheck disable=SC2086
  "$bin" $mode -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len=$max_len \
    -print_final_stats=1 -artifact_prefix="$findings/" $dict ${FUZZ_ARGS:-} \
    "$corpus" "$ROOT/Tests/fuzz/corpus/$t" >"$log" 2>&1
  status=$?
  # executions: the final stats (plain mode) or the last progress line's #N (fork mode)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$execs" ] || execs=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -E 's/^#([0-9]+).*/\1/')
  cov=$(grep -E 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+).*/cov \1, ft \2/')
  found=$(ls "$findings" | grep -v -c '^slow-unit-')
  # a failure libFuzzer could not pin on an input (or one before any input) still counts
  if [ "$found" -eq 0 ] && [ $status -ne 0 ]; then found=1; fi
  echo "fuzz: $t: ${execs:-0} executions, ${cov:-no coverage}, corpus $(ls "$corpus" | wc -l) files, $found findings (log: $log)"
  if [ "$found" -gt 0 ]; then
    ls "$findings" | grep -q -v '^slow-unit-' || echo "  the run failed (status $status) without writing an input: see the log"
    # one line per kind of failure (what broke and where), with how many inputs and one of them;
    # at most 200 inputs are replayed
    "$ROOT/Tests/fuzz/triage.sh" "$bin" $(ls -d "$findings"/* 2>/dev/null | grep -v '/slow-unit-' | head -200) |
      awk 'NR % 3 == 1 { file = $0 } NR % 3 == 2 { what = $0 } NR % 3 == 0 {
             key = what " " $0; gsub(/0x[0-9a-f]+/, "", key); gsub(/ for "[^"]*"/, "", key)
             if (!(key in n)) { order[++k] = key; first[key] = file; shown[key] = what "\n  " $0 }
             n[key]++ }
           END { for (i = 1; i <= k; i++) printf "  %d input(s), e.g. %s\n  %s\n", n[order[i]], first[order[i]], shown[order[i]] }'
  fi
  total_execs=$((total_execs + ${execs:-0}))
  total_findings=$((total_findings + found))
  ntargets=$((ntargets + 1))
done
echo "fuzz: $ntargets targets, $total_execs executions, $total_findings findings"
[ "$total_findings" -eq 0 ]
