"""Instructions per lookup, counted by valgrind's callgrind: the figures benchmarks/README.md quotes beside
the timings, because on a shared machine timings move by a third between runs and these do not.

Each count is the difference between two runs of the C harness that make 3 and 1 untimed passes
over a table's requests (so loading the table and compiling it cancel out), divided by the
lookups of two passes. Every door reads what the timed doors read (the route's id and every
parameter's name and value); beside the GitHub lookup and the batch, the same door reading the
route's id only gives what reading the parameters costs, and the instructions of each function
(callgrind_annotate) in the lookup with the parameters less in the lookup without, per parameter
read, say where that cost goes (`--no-functions` skips this). `make instructions` installs
valgrind if it is missing and runs this (about a minute).

    python3 benchmarks/instructions.py [--tables github static rest-10k] [--cache] [--no-functions]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402  (builds the harness)
import tables  # noqa: E402

RESULTS = HERE / "results" / "instructions.json"

# What each counted door does (ILK_BENCH_DOOR of benchmarks/c/interlock_bench.c), by its row's name.
DOORS = {
    "match": "C ilk_router_match, every parameter read",
    "match-bare": "C ilk_router_match, route id only (no parameter read)",
    "batch": "C ilk_router_match_requests (per URI), every parameter read from the view",
    "batch-bare": "C ilk_router_match_requests (per URI), statuses and ids only",
    "resolve": "C ilk_router_resolve (filter + 2 interceptors + destination), every parameter read",
    "bare-resolve": "C ilk_router_resolve (destination only), every parameter read",
}


def counted(cmd: list[str], env: dict[str, str], cache: bool, keep: Path | None = None) -> tuple[int, int, int]:
    """Instructions and first-level data read misses of one harness run, and its lookups a pass;
    with `keep`, callgrind's output stays there (for callgrind_annotate)."""
    out = keep or run.BUILD / "callgrind.out"
    tool = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    if cache:
        tool.append("--cache-sim=yes")
    proc = subprocess.run(tool + cmd, env=env, capture_output=True, text=True, check=True)
    per_pass = json.loads(proc.stdout.strip().splitlines()[-1])["per_pass"]
    events: list[str] = []
    totals: list[int] = []
    for line in out.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:") or line.startswith("totals:"):
            totals = [int(v) for v in line.split()[1:]]
    if keep is None:
        out.unlink()
    figures = dict(zip(events, totals))
    return figures.get("Ir", 0), figures.get("D1mr", 0), per_pass


def per_lookup(cmd: list[str], door: str, cache: bool) -> dict[str, float]:
    runs = []
    for passes in (1, 3):
        # Swift seeds its hashing per process; fixed, the counts repeat exactly from run to run.
        env = dict(os.environ, ILK_BENCH_PASSES=str(passes), ILK_BENCH_DOOR=door, SWIFT_DETERMINISTIC_HASHING="1")
        runs.append(counted(cmd, env, cache))
    (i1, m1, n), (i3, m3, _) = runs
    lookups = 2 * n
    result = {"instructions": round((i3 - i1) / lookups)}
    if cache:
        result["d1_read_misses"] = round((m3 - m1) / lookups, 2)
    return result


# The harness's loops of the two doors compared, named alike so that their calls line up.
HARNESS_LOOPS = {"match_on": "the harness's loop", "bare_match_pass": "the harness's loop"}


def annotate(out: Path) -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """From a callgrind output (callgrind_annotate --tree=caller): the instructions of each
    function itself, and those of each call from one function to another, the callee's included."""
    text = subprocess.run(["callgrind_annotate", "--tree=caller", "--threshold=100", "--auto=no", str(out)],
                          capture_output=True, text=True, check=True).stdout
    own: dict[str, int] = {}
    calls: dict[tuple[str, str], int] = {}
    callers: list[tuple[str, int]] = []
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+([<*])\s+(.*?)(?: \([\d,]+x\))?(?: \[.*\])?$", line)
        if not m:
            if not line.strip():
                callers = []
            continue
        cost, name = int(m.group(1).replace(",", "")), m.group(3).split(":", 1)[-1]
        name = HARNESS_LOOPS.get(name, name)
        if m.group(2) == "<":
            callers.append((name, cost))
            continue
        own[name] = own.get(name, 0) + cost
        for caller, c in callers:
            calls[caller, name] = calls.get((caller, name), 0) + c
        callers = []
    return own, calls


def demangle(names: list[str]) -> dict[str, str]:
    tool = shutil.which("swift-demangle")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool, "--simplified", "--compact"], input="\n".join(names), capture_output=True,
                         text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def breakdown(harness: list[str]) -> dict[str, list[dict]]:
    """Where reading every parameter of a GitHub match goes: for each function (its own
    instructions) and each call (the callee's included), the instructions in 3 passes less 1 of
    the match that reads them, less the same of the match that does not, per parameter read
    (tables.param_count: 339 in a pass over the GitHub requests)."""
    routes, requests = tables.write("github", run.BUILD / "tables")
    cmd = [*harness, str(routes), str(requests), "github"]
    got = {}
    for door in ("match", "match-bare"):
        for passes in (1, 3):
            out = run.BUILD / f"callgrind.{door}.{passes}"
            env = dict(os.environ, ILK_BENCH_PASSES=str(passes), ILK_BENCH_DOOR=door, SWIFT_DETERMINISTIC_HASHING="1")
            counted(cmd, env, False, keep=out)
            got[door, passes] = annotate(out)
            out.unlink()
    params = 2 * tables.param_count("github")

    def diff(part: int) -> dict:
        keys = set().union(*(g[part] for g in got.values()))
        return {k: (got["match", 3][part].get(k, 0) - got["match", 1][part].get(k, 0))
                - (got["match-bare", 3][part].get(k, 0) - got["match-bare", 1][part].get(k, 0)) for k in keys}

    own, calls = diff(0), diff(1)
    outside = ("main", "(below main)", "__libc_start_main", "pass_sums", "match_pass")
    calls = {k: v for k, v in calls.items() if not k[0].startswith(outside) and not k[1].startswith(outside)}
    shown_own = sorted((n for n in own if abs(own[n]) >= params), key=lambda n: -abs(own[n]))
    shown_calls = sorted((k for k in calls if abs(calls[k]) >= params), key=lambda k: -abs(calls[k]))
    readable = demangle(sorted(set(shown_own) | {n for k in shown_calls for n in k}))
    return {
        "own": [{"function": readable[n], "per_parameter": round(own[n] / params, 1)} for n in shown_own]
        + [{"function": "all functions", "per_parameter": round(sum(own.values()) / params, 1)}],
        "calls": [{"caller": readable[a], "callee": readable[b], "per_parameter": round(calls[a, b] / params, 1)}
                  for a, b in shown_calls],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", nargs="*", default=["github", "static", "rest-10k"],
                        help="tables to count ilk_router_match on (rest-100k takes a few minutes)")
    parser.add_argument("--cache", action="store_true", help="also count first-level data read misses")
    parser.add_argument("--no-functions", dest="functions", action="store_false",
                        help="skip saying, by function, where reading a GitHub match's parameters spends instructions")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        print("valgrind is not installed (make instructions installs it)", file=sys.stderr)
        return 1
    harness = run.build_interlock_c()
    rows = []
    jobs = [(table, door) for table in args.tables for door in ("match", "match-bare")]
    jobs += [("github", "batch"), ("github", "batch-bare"), ("github", "resolve"), ("github", "bare-resolve")]
    for table, door in jobs:
        routes, requests = tables.write(table, run.BUILD / "tables")
        figures = per_lookup([*harness, str(routes), str(requests), table], door, args.cache)
        name = DOORS[door]
        rows.append({"table": table, "door": name, **figures})
        misses = f" | {figures['d1_read_misses']}" if args.cache else ""
        print(f"| {table} | {name} | {figures['instructions']:,}{misses} |", flush=True)
    report = {"machine": run.machine(), "rows": rows}
    if args.functions:
        where = report["parameter_reading"] = breakdown(harness)
        print("\nReading a GitHub match's parameters: instructions per parameter read, by function (its own):")
        for row in where["own"]:
            print(f"| {row['function']} | {row['per_parameter']} |")
        print("\nand by call (the callee's instructions included):")
        for row in where["calls"]:
            print(f"| {row['caller']} → {row['callee']} | {row['per_parameter']} |")
    RESULTS.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written to {RESULTS.relative_to(run.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
