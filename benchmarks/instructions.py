"""Instructions per lookup, counted by valgrind's callgrind: the figures benchmarks/README.md quotes beside
the timings, because on a shared machine timings move by a third between runs and these do not.

Each count is the difference between two runs of the C harness that make 3 and 1 untimed passes
over a table's requests (so loading the table and compiling it cancel out), divided by the
lookups of two passes. `make instructions` installs valgrind if it is missing and runs this.

    python3 benchmarks/instructions.py [--tables github static rest-10k] [--cache]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402  (builds the harness)
import tables  # noqa: E402

RESULTS = HERE / "results" / "instructions.json"


def counted(cmd: list[str], env: dict[str, str], cache: bool) -> tuple[int, int, int]:
    """Instructions and first-level data read misses of one harness run, and its lookups a pass."""
    out = run.BUILD / "callgrind.out"
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", nargs="*", default=["github", "static", "rest-10k"],
                        help="tables to count ilk_router_match on (rest-100k takes a few minutes)")
    parser.add_argument("--cache", action="store_true", help="also count first-level data read misses")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        print("valgrind is not installed (make instructions installs it)", file=sys.stderr)
        return 1
    harness = run.build_interlock_c()
    rows = []
    jobs = [(table, "match") for table in args.tables]
    jobs += [("github", "batch"), ("github", "resolve"), ("github", "bare-resolve")]
    for table, door in jobs:
        routes, requests = tables.write(table, run.BUILD / "tables")
        figures = per_lookup([*harness, str(routes), str(requests), table], door, args.cache)
        name = {"match": "C ilk_router_match", "batch": "C ilk_router_match_requests (per URI)", "resolve": "C ilk_router_resolve (filter + 2 interceptors + destination)",
                "bare-resolve": "C ilk_router_resolve (destination only)"}[door]
        rows.append({"table": table, "door": name, **figures})
        misses = f" | {figures['d1_read_misses']}" if args.cache else ""
        print(f"| {table} | {name} | {figures['instructions']:,}{misses} |", flush=True)
    RESULTS.write_text(json.dumps({"machine": run.machine(), "rows": rows}, indent=1) + "\n")
    print(f"written to {RESULTS.relative_to(run.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
