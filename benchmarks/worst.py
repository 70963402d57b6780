"""The worst lookup found on hostile input: builds benchmarks/c/worst_lookup.c against the library,
runs it (a constraint-heavy table under every router option, URIs built to make its constraints
backtrack) and writes benchmarks/results/worst.json. Nothing is asserted on time; the harness
itself fails if any answer is not a match, a miss or ILK_ELIMIT.

    python3 benchmarks/worst.py [--match-limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402  (paths, machine description)

RESULTS = HERE / "results" / "worst.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--match-limit", type=int, default=0, help="the router's match limit (0: the default)")
    parser.add_argument("--smoke", action="store_true", help="check the answers; write no results")
    args = parser.parse_args()
    run.BUILD.mkdir(parents=True, exist_ok=True)
    lib = run.ROOT / "build" / "lib"
    exe = run.BUILD / "worst_lookup"
    run.sh([os.environ.get("CC", "cc"), "-O2", "-o", str(exe), str(HERE / "c" / "worst_lookup.c"),
            f"-I{run.ROOT / 'include'}", f"-L{lib}", "-linterlock", f"-Wl,-rpath,{lib}"])
    out = subprocess.run([str(exe), str(args.match_limit)], capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        print("worst lookup: 0 passed, 1 failed")
        return 1
    row = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"worst lookup: {row['worst_us']:.0f} us of {row['lookups']} hostile lookups "
          f"({row['limited']} stopped by the match limit of {row['match_limit']}): {row['worst']}")
    if not args.smoke:
        RESULTS.write_text(json.dumps({"machine": run.machine(), "row": row}, indent=1) + "\n")
        print(f"written to {RESULTS.relative_to(run.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
