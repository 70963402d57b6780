"""Requests per second inside nginx: the same table as Interlock routes (the LuaJIT module in a
content_by_lua_block) and as nginx's own `location ~` regex blocks, measured by wrk on loopback,
at 200 routes (the GitHub API table) and at 10,000 (rest-10k of tables.py).

Each side answers every request with the id of its route (404 when none, 405 when only other
methods take the path); both are checked on every request of the table before they are timed.
nginx's side (`pcre_jit on`): one `location ~ ^...$` a distinct path (a parameter is `[^/]+`), literal paths
first (fewer parameters first: nginx takes the first regex that matches), and in it one
`if ($request_method = M) { return 200 "ID"; }` a method, then `return 405`. Interlock's side:
`router:match(ngx.var.request_uri, method, params)` and `ngx.print(id)`.

One nginx a side (Debian's, `master_process off`, one worker), all running; wrk (one thread, 32
connections) cycles through the table's requests, the sides in turn for ROUNDS rounds. A third
side is the control: a Lua handler that routes nothing (what a request costs nginx and the Lua
module before any routing).
Writes benchmarks/results/nginx.json and prints a table; `--smoke` checks both sides' answers on
the GitHub table and runs wrk for a second on each (no timing asserted).

Usage: python3 benchmarks/lua/nginx_bench.py [--smoke] [--seconds S] [--rounds N] [--tables github rest-10k]"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(ROOT / "bindings" / "lua" / "test"))
import tables  # noqa: E402
from nginx_host import Nginx, missing  # noqa: E402

TABLES = {"github": "200 routes (GitHub API, 203)", "rest-10k": "10,000 routes (rest-10k)"}

INTERLOCK_HTTP = """
    server {
        listen 127.0.0.1:{port} backlog=4096;
        location / { content_by_lua_block { require("nginx_app")() } }
    }
"""


# The control: a Lua handler that routes nothing, the same for every request: what nginx and
# the Lua module cost a request before any routing (its answers are not checked).
CONTROL_HTTP = """
    server {
        listen 127.0.0.1:{port} backlog=4096;
        location / { content_by_lua_block { ngx.print("0") } }
    }
"""


def regex_of(pattern: str) -> str:
    return "^" + re.sub(r":\w+", "[^/]+", re.escape(pattern).replace("\\:", ":")) + "$"


def nginx_locations(routes: list[str]) -> str:
    """nginx's own routing of the table: a regex location a distinct path, literal ones first."""
    paths: dict[str, list[tuple[str, int]]] = {}
    for i, line in enumerate(routes, start=1):
        method, pattern = line.split()
        paths.setdefault(pattern, []).append((method, i))
    blocks = []
    for pattern in sorted(paths, key=lambda p: (p.count(":"), p)):   # stable: literals first
        body = "".join(f'            if ($request_method = {m}) {{ return 200 "{i}"; }}\n' for m, i in paths[pattern])
        blocks.append(f"        location ~ {regex_of(pattern)} {{\n{body}            return 405;\n        }}\n")
    return ("    server {\n        listen 127.0.0.1:{port} backlog=4096;\n        default_type text/plain;\n"
            + "".join(blocks) + "        location / { return 404; }\n    }\n")


def requests_of(table: str) -> list[tuple[str, str, int]]:
    _, requests = tables.TABLES[table]()
    out = []
    for line in requests:
        method, uri, expected = line.split()
        if expected != "bad":
            out.append((method, uri, int(expected)))
    return out


def check(server: Nginx, requests: list[tuple[str, str, int]], routes: list[str]) -> list[str]:
    """Every request's answer: its route's id, or 404 (no route) / 405 (other methods only)."""
    wrong = []
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    paths = {line.split()[1] for line in routes}
    for method, uri, expected in requests:
        connection.request(method, uri)
        response = connection.getresponse()
        body = response.read().decode()
        if expected:
            ok = response.status == 200 and body == str(expected)
        else:
            ok = response.status in (404, 405)
        if not ok and len(wrong) < 5:
            wrong.append(f"{method} {uri}: {response.status} {body[:40]!r}, want {expected or '404/405'}")
        elif not ok:
            wrong.append("...")
    connection.close()
    return wrong


def wrk_script(requests: list[tuple[str, str, int]], path: Path) -> None:
    entries = ",\n".join(f'{{"{m}", "{u}"}}' for m, u, _ in requests)
    path.write_text(f"""local requests = {{
{entries}
}}
local i = 0
request = function()
  i = i % #requests + 1
  return wrk.format(requests[i][1], requests[i][2])
end
""")


def wrk(port: int, script: Path, seconds: float) -> dict:
    out = subprocess.run(["wrk", "-t1", "-c32", f"-d{max(1, round(seconds))}s", "-s", str(script), f"http://127.0.0.1:{port}/"],
                         capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "socket_errors": errors.group(1) if errors else None}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", nargs="*", default=list(TABLES), choices=list(TABLES))
    args = parser.parse_args()
    absent = missing() + ([] if shutil.which("wrk") else ["wrk"])
    if absent:
        print(f"nginx bench: unavailable: {', '.join(absent)} missing (make lua-deps; apt-get install wrk)")
        return 0 if args.smoke else 1
    work = ROOT / "build" / "bench" / "nginx"
    work.mkdir(parents=True, exist_ok=True)
    chosen = ["github"] if args.smoke else args.tables
    seconds, rounds = (1, 1) if args.smoke else (args.seconds, args.rounds)
    results, problems = [], []
    for table in chosen:
        routes, _ = tables.TABLES[table]()
        requests = requests_of(table)
        script = work / f"{table}.wrk.lua"
        wrk_script(requests, script)
        interlock = Nginx(INTERLOCK_HTTP, extra_path=f"{HERE}/?.lua", connections=4096, log_level="error")
        # PCRE's JIT for nginx's regexes too (off unless set), as Interlock's are compiled.
        native = Nginx(nginx_locations(routes), connections=4096, log_level="error", main="pcre_jit on;")
        control = Nginx(CONTROL_HTTP, connections=4096, log_level="error")
        for server in (interlock, native):
            (server.prefix / "routes.txt").write_text("\n".join(routes) + "\n")
        with interlock, native, control:
            sides = {"Interlock (LuaJIT module)": interlock, "nginx location ~ regex": native,
                     "control: a Lua handler, no routing": control}
            for name, server in list(sides.items())[:2]:
                wrong = check(server, requests, routes)
                if wrong:
                    problems.append(f"{table}, {name}: {len(wrong)} wrong answers: {wrong[:5]}")
            measured: dict[str, list[float]] = {name: [] for name in sides}
            load = [os.getloadavg()[0]]
            for _ in range(rounds):
                for name, server in sides.items():
                    measured[name].append(wrk(server.port, script, seconds)["rps"])
                load.append(os.getloadavg()[0])
        ratios = [a / b for a, b in zip(measured["Interlock (LuaJIT module)"], measured["nginx location ~ regex"])]
        record = {"table": table, "routes": len(routes), "requests_cycled": len(requests),
                  "rps": {name: round(statistics.median(v)) for name, v in measured.items()},
                  "rps_rounds": {name: [round(x) for x in v] for name, v in measured.items()},
                  "interlock_over_nginx": round(statistics.median(ratios), 3),
                  "ratio_rounds": [round(x, 3) for x in ratios],
                  "load_average_1min": [round(x, 2) for x in load]}
        results.append(record)
        print(f"{TABLES[table]}: Interlock {record['rps']['Interlock (LuaJIT module)']:,} req/s, "
              f"nginx regex {record['rps']['nginx location ~ regex']:,} req/s, "
              f"control {record['rps']['control: a Lua handler, no routing']:,} req/s, "
              f"ratio {record['interlock_over_nginx']} (rounds {record['ratio_rounds']})", flush=True)
    for p in problems:
        print("nginx bench: PROBLEM", p)
    if not args.smoke:
        (HERE.parent / "results").mkdir(exist_ok=True)
        (HERE.parent / "results" / "nginx.json").write_text(json.dumps(
            {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seconds_per_run": seconds,
             "wrk": "1 thread, 32 connections", "results": results}, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
