"""The benchmark driver: builds every harness, runs each door and each peer on the same tables in
one run, checks their answers, and reports medians, spreads, lookups per second and ratios to
Interlock (terminal table, benchmarks/results/latest.json, benchmarks/results/latest.svg, and the
table in benchmarks/README.md). `--smoke` runs every harness briefly on the GitHub table and fails
if one is missing or answers wrong (make test runs it); timings are never asserted.

Every door does the same work for every request: the lookup under the request's method, the
route's id, and every parameter's name and value. Each harness reports what one timed pass added
up (the route ids it answered, the lengths of the names and values it read); `check_sums` holds
them to the table's (tables.expected_sums), so a harness that skipped the method check or the
parameters would be caught, in the smoke run as in the timed one."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUILD = ROOT / "build" / "bench"
RESULTS = HERE / "results"

sys.path.insert(0, str(HERE))
import tables  # noqa: E402

# The 100,000-route tables, each timed batch by batch against the GitHub table in one process.
SCALE_TABLES = ("rest-100k", "deeplinks-100k")
# The table of the same kind at 1,000 routes whose changes are measured beside each scale table's.
SMALL_FOR = {"rest-100k": "rest-1k", "deeplinks-100k": "deeplinks-1k"}

PEERS_FOR = {  # which Interlock door each peer is compared with
    "r3 (C)": "C ilk_router_match",
    "httprouter (Go)": "C ilk_router_match",
    "RoutingKit TrieRouter (Swift)": "Swift Interlock Matcher",
    "falcon CompiledRouter (Python)": "Python interlock match",
    "werkzeug (Python)": "Python interlock match",
    "Express 4 Router (Node)": "Node interlock match",
    "path-to-regexp 6 (Node)": "Node interlock match",
}

# The doors of the Node.js harness (benchmarks/node/bench.js), reported as unavailable together.
NODE_DOORS = ["Node interlock match", "path-to-regexp 6 (Node)", "Express 4 Router (Node)"]


# The doors the C harness runs untimed for benchmarks/instructions.py (ILK_BENCH_DOOR).
COUNTED_DOORS = ("match", "match-bare", "batch", "batch-bare", "resolve", "bare-resolve")


def sh(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def build_interlock_c() -> list[str]:
    """Builds the C harness of Interlock's doors; returns its command."""
    BUILD.mkdir(parents=True, exist_ok=True)
    lib = ROOT / "build" / "lib"
    cc = os.environ.get("CC", "cc")
    sh([cc, "-O2", "-o", str(BUILD / "interlock_bench"), str(HERE / "c" / "interlock_bench.c"), f"-I{ROOT / 'include'}",
        f"-L{lib}", "-linterlock", f"-Wl,-rpath,{lib}", "-lpthread"])
    return [str(BUILD / "interlock_bench")]


def build() -> dict[str, list[str] | str]:
    """Builds the harnesses; returns the command of each, or why it cannot run."""
    cmds: dict[str, list[str] | str] = {"interlock-c": build_interlock_c()}
    cc = os.environ.get("CC", "cc")
    try:
        flags = sh(["pkg-config", "--cflags", "--libs", "r3"]).stdout.split()
        sh([cc, "-O2", "-o", str(BUILD / "r3_bench"), str(HERE / "c" / "r3_bench.c"), *flags])
        cmds["r3"] = [str(BUILD / "r3_bench")]
    except (subprocess.CalledProcessError, FileNotFoundError) as error:
        cmds["r3"] = f"r3 unavailable: {getattr(error, 'stderr', '') or error}".strip()
    if shutil.which("go") and Path("/usr/share/gocode/src/github.com/julienschmidt/httprouter").exists():
        env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOCACHE=str(BUILD / "gocache"))
        sh(["go", "build", "-o", str(BUILD / "httprouter_bench"), str(HERE / "go" / "httprouter_bench.go")], env=env)
        cmds["httprouter"] = [str(BUILD / "httprouter_bench")]
    else:
        cmds["httprouter"] = "httprouter unavailable: needs golang-go and golang-github-julienschmidt-httprouter-dev"
    swift = ["swift", "build", "-c", "release", "--package-path", str(HERE / "swift"),
             "--scratch-path", str(ROOT / "build" / "swiftbench")]
    for attempt in range(2):   # a second try: SwiftPM can trip over a lock another build holds
        try:
            sh(swift)
            cmds["swift"] = [str(ROOT / "build" / "swiftbench" / "release" / "SwiftBench")]
            break
        except subprocess.CalledProcessError as error:
            # The whole output goes to the terminal; the table keeps its end.
            print(error.stdout + error.stderr, file=sys.stderr)
            cmds["swift"] = f"Swift harness failed to build: {(error.stdout + error.stderr)[-600:]}"
    cmds["python"] = [sys.executable, str(HERE / "python" / "bench.py")]
    cmds["lua"] = build_lua()
    node = shutil.which("node")
    addon = ROOT / "bindings" / "node" / "build" / "Release" / "interlock.node"
    if node and addon.exists():
        # Express 4 and path-to-regexp 6 are Debian's (node-express, node-path-to-regexp).
        cmds["node"] = ["env", "NODE_PATH=/usr/share/nodejs", node, str(HERE / "node" / "bench.js")]
    else:
        cmds["node"] = "Node doors unavailable: needs node and the addon (make node-build)"
    return cmds


def build_lua() -> list[str] | str:
    """The LuaJIT harness (benchmarks/lua/ffi_bench.lua) and the C door's pass it calls; its
    command, or why it cannot run."""
    if not shutil.which("luajit"):
        return "LuaJIT unavailable: needs luajit2 (make lua-deps)"
    lib = ROOT / "build" / "lib"
    so = BUILD / "libilkbench_lua.so"
    sh([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", str(so), str(HERE / "lua" / "c_pass.c"),
        f"-I{ROOT / 'include'}", f"-L{lib}", "-linterlock", f"-Wl,-rpath,{lib}"])
    return ["luajit", str(HERE / "lua" / "ffi_bench.lua"), str(so)]


def run(cmds: dict, table: str, seconds: float, threads: int, rounds: int = 1, base: str | None = None) -> list[dict]:
    """Runs every harness on `table`, `rounds` times in turn (A, B, C, A, B, C, ...), so that each
    harness's batches are spread over the same stretch of time as its peers' and a slow spell of
    the machine falls on all of them; the batches of each door are pooled over the rounds. With
    `base`, the C harness also times its lookups on that table, batch by batch with this one's."""
    routes, requests = tables.write(table, BUILD / "tables")
    based = [*tables.write(base, BUILD / "tables"), base] if base else []
    out: list[dict] = []
    by: dict[str, dict] = {}
    for round_number in range(rounds):
        for key, cmd in cmds.items():
            if isinstance(cmd, str):
                if round_number == 0:
                    doors = {"r3": ["r3 (C)"], "httprouter": ["httprouter (Go)"],
                             "swift": ["Swift Interlock Matcher", "RoutingKit TrieRouter (Swift)"],
                             "lua": ["LuaJIT FFI ilk_router_match", "LuaJIT interlock match"], "node": NODE_DOORS}.get(key, [key])
                    out += [{"door": d, "table": table, "unavailable": cmd} for d in doors]
                continue
            args = [*cmd, str(routes), str(requests), table, str(seconds)]
            if key == "interlock-c" and (threads or based):
                args += [str(threads), *map(str, based)]
            try:
                proc = sh(args, timeout=1800)
            except subprocess.CalledProcessError as error:
                out.append({"door": key, "table": table, "failed": (error.stderr or error.stdout)[-500:]})
                continue
            for line in proc.stdout.splitlines():
                if line.startswith("{"):
                    pool(json.loads(line), by, out)
    return out


POOLED = ("ns", "one_thread_per_s", "all_threads_per_s", "control_one_thread_per_s", "control_all_threads_per_s")


def pool(r: dict, by: dict[str, dict], out: list[dict]) -> None:
    """Adds one harness's record for a door to `out`, or, from a later round, its measurements to
    the record already there. Each round's median is kept (`round_medians`): a ratio between
    doors of different harnesses is taken round by round, each from measurements minutes apart
    at most, rather than from medians pooled over the whole run."""
    if "ns" in r:
        r["round_medians"] = [statistics.median(r["ns"])]
    kept = by.get(r.get("door", ""))
    if kept is None:
        by[r.get("door", "")] = r
        out.append(r)
        return
    for field in POOLED + ("round_medians",):
        if field in r:
            kept[field] += r[field]
    for peer, ratios in r.get("ratios_to", {}).items():
        kept.setdefault("ratios_to", {}).setdefault(peer, []).extend(ratios)
    if r.get("wrong"):
        kept["wrong"] = max(kept.get("wrong", 0), r["wrong"])


def check_sums(results: list[dict]) -> list[dict]:
    """Sets each timed record's "sums" to "ok" when its pass's route ids and parameter lengths are
    the table's, else to what is wrong; returns the records that are wrong. On deeplinks, which
    tables.py cannot sum, the doors are held to each other: the Python doors count characters
    (len of a str) and the Node doors UTF-16 code units (a string's length), alike for this
    table, the others bytes, and the table's values hold one "é"."""
    wrong = []
    first: dict[tuple[str, bool], dict] = {}
    for r in results:
        if "ns" not in r:
            continue
        got = {k: r.get(k) for k in ("route_sum", "param_bytes")}
        want = tables.expected_sums(r["table"])
        if want is None:
            python = r["door"].startswith(("Python", "Node")) or "(Python)" in r["door"] or "(Node)" in r["door"]
            want = first.setdefault((r["table"], python), got)
        if "no parameters" in r["door"]:
            want = dict(want, param_bytes=0)
        r["sums"] = "ok" if got == want else f"WRONG: {got}, want {want}"
        if got != want:
            wrong.append(r)
    return wrong


def summarize(results: list[dict]) -> None:
    for r in results:
        if "ns" in r:
            r["median_ns"] = round(statistics.median(r["ns"]), 2)
            r["spread_ns"] = [min(r["ns"]), max(r["ns"])]
            r["lookups_per_s"] = round(1e9 / r["median_ns"])
    by = {(r["table"], r["door"]): r for r in results if "median_ns" in r}
    for r in results:
        base = by.get((r["table"], PEERS_FOR.get(r["door"], "")))
        if base and "median_ns" in r:
            r["ratio_interlock_to_peer"] = round(base["median_ns"] / r["median_ns"], 3)


def paired(a: dict | None, b: dict | None) -> list[float]:
    """The ratios of `a`'s time to `b`'s, each from two measurements taken side by side: batch by
    batch when one harness timed both in turn (its `ratios_to`), else round by round; [] when
    neither was measured."""
    if not a or not b or "median_ns" not in a or "median_ns" not in b:
        return []
    if b["door"] in a.get("ratios_to", {}):
        return a["ratios_to"][b["door"]]
    if a["door"] in b.get("ratios_to", {}):
        return [1 / x for x in b["ratios_to"][a["door"]]]
    ma, mb = a.get("round_medians", []), b.get("round_medians", [])
    if len(ma) == len(mb) and len(ma) > 1:
        return [x / y for x, y in zip(ma, mb)]
    return [a["median_ns"] / b["median_ns"]]


def targets(results: list[dict]) -> list[dict]:
    by = {(r["table"], r["door"]): r for r in results if "median_ns" in r}

    def measured(ratios: list[float]) -> tuple[float | None, tuple[float, float] | None]:
        """The median of side-by-side ratios, and their spread (when there are several)."""
        if not ratios:
            return None, None
        ratios = sorted(ratios)
        return round(statistics.median(ratios), 3), (round(ratios[0], 3), round(ratios[-1], 3)) if len(ratios) > 1 else None

    def ratio(table: str, a: str, b: str) -> tuple[float | None, tuple[float, float] | None]:
        return measured(paired(by.get((table, a)), by.get((table, b))))

    out = []

    def target(name: str, value: tuple[float | None, tuple[float, float] | None] | float | None, limit: float,
               lower_is_better: bool = True, control: float | None = None) -> None:
        value, spread = value if isinstance(value, tuple) else (value, None)
        met = None if value is None else (value <= limit if lower_is_better else value >= limit)
        out.append({"target": name, "measured": value, "limit": limit, "met": met}
                   | ({"spread": spread} if spread else {}) | ({"control": control} if control else {}))

    # Issue 32's targets: every door finds the route, checks the method and reads every parameter.
    target("GitHub: C match time / httprouter time (<= 0.5)", ratio("github", "C ilk_router_match", "httprouter (Go)"), 0.5)
    target("GitHub: C match time / r3 time (<= 0.35)", ratio("github", "C ilk_router_match", "r3 (C)"), 0.35)
    target("Static: C match time / httprouter time (<= 0.8)", ratio("static", "C ilk_router_match", "httprouter (Go)"), 0.8)
    target("GitHub: Python match time / falcon time (<= 0.5)", ratio("github", "Python interlock match", "falcon CompiledRouter (Python)"), 0.5)
    target("GitHub: Python match(uri, method=m) time / falcon time (<= 0.5)",
           ratio("github", "Python interlock match (keyword)", "falcon CompiledRouter (Python)"), 0.5)
    target("GitHub: Python match_many time per URI / falcon time (<= 0.1)", ratio("github", "Python interlock match_many", "falcon CompiledRouter (Python)"), 0.1)
    # Issue 39: Node's match, timed batch by batch with path-to-regexp 6 in one process.
    target("GitHub: Node match time / path-to-regexp 6 time (<= 0.1)", ratio("github", "Node interlock match", "path-to-regexp 6 (Node)"), 0.1)
    for table in SCALE_TABLES:
        # Timed batch by batch against the GitHub table in the same process ("C ilk_router_match (base)").
        big = by.get((table, "C ilk_router_match"))
        target(f"Scale, {table}: lookup time / GitHub C lookup time (<= 1.5)",
               measured(big.get("ratios_to", {}).get("C ilk_router_match (base)")
                        or paired(big, by.get(("github", "C ilk_router_match")))) if big else None, 1.5)
        # From an empty router to the first lookup: adding the routes with their destinations, then
        # compiling them (the compile alone hid adding taking 88 s).
        target(f"Scale, {table}: add and compile 100k routes (ms, < 1000)",
               big and round(big.get("add_ms", 0) + big.get("compile_ms", 0), 2), 1000)
        target(f"Scale, {table}: memory per route (bytes, < 1024)", big and big.get("rss_bytes_per_route"), 1024)
        change = next((r for r in results if r.get("table") == table and r.get("door") == "C remove one route, then a lookup"
                       and "remove_us" in r), None)
        # "Removing one route costs about what adding one costs": within twice, each with its first lookup.
        target(f"Scale, {table}: removing a route and the lookup after / adding one and the lookup after (<= 2)",
               change and round(change["remove_us"] / change["add_us"], 3), 2)
        # Issue 41: a change costs what its part of the table costs, the slower of a removal and an
        # addition (each with its first lookup), and against the same on 1,000 routes of the same
        # kind, changed in turn with these in one process.
        target(f"Scale, {table}: one change and a lookup at 100,000 routes (us, <= 50)",
               change and max(change["remove_us"], change["add_us"]), 50)
        target(f"Scale, {table}: one change and a lookup at 100,000 routes / at 1,000 (<= 2)",
               change and "small_add_us" in change
               and round(max(change["remove_us"], change["add_us"]) / max(change["small_remove_us"], change["small_add_us"]), 3), 2)
    # Issue 39: the FFI's cost, the same C calls made from LuaJIT, against the C door timed in the
    # same LuaJIT process (benchmarks/lua/ffi_bench.lua, in thread CPU time).
    target("GitHub: LuaJIT FFI lookup time / C lookup time (<= 1.3)",
           ratio("github", "LuaJIT FFI ilk_router_match", "C ilk_router_match (called from LuaJIT)"), 1.3)
    target("GitHub: C resolve (filter + 2 interceptors) / C match (<= 5)",
           ratio("github", "C ilk_router_resolve (filter + 2 interceptors)", "C ilk_router_match"), 5)
    # The project's earlier targets, still measured.
    rk = ratio("github", "RoutingKit TrieRouter (Swift)", "Swift Interlock Matcher")
    target("GitHub: RoutingKit time / Swift Interlock time (>= 20)", rk, 20, lower_is_better=False)
    th = next((r for r in results if r.get("door") == "C ilk_router_match threads"), None)
    # A pair with a window that counted no lookup (a thread the loaded machine did not run in the
    # smoke run's short windows) says nothing: left out, rather than divided by.
    ratios = sorted(m / o for o, m in zip(th["one_thread_per_s"], th["all_threads_per_s"]) if o and m) if th else []
    control = sorted(m / o for o, m in zip(th.get("control_one_thread_per_s", []), th.get("control_all_threads_per_s", []))
                     if o and m) if th else []
    target("Two threads / one thread, lookups per second (>= 1.9)", measured(ratios), 1.9, lower_is_better=False,
           control=round(statistics.median(control), 2) if control else None)
    return out


def other_ratios(results: list[dict]) -> list[dict]:
    """Side-by-side ratios that have no target but say what a figure is made of."""
    by = {(r["table"], r["door"]): r for r in results if "median_ns" in r}
    out = []
    for name, table, a, b in [
            ("GitHub: C match reading every parameter / C match reading the route id only", "github",
             "C ilk_router_match", "C ilk_router_match (route id only, no parameters)"),
            ("GitHub: Swift Interlock Matcher / C ilk_router_match (rounds)", "github",
             "Swift Interlock Matcher", "C ilk_router_match"),
            ("GitHub: LuaJIT interlock match (a params table of Lua strings) / C ilk_router_match called from LuaJIT",
             "github", "LuaJIT interlock match", "C ilk_router_match (called from LuaJIT)"),
            ("GitHub: Node match / Express 4 Router (batch by batch)", "github",
             "Node interlock match", "Express 4 Router (Node)"),
            ("GitHub: Node match / C ilk_router_match (rounds)", "github",
             "Node interlock match", "C ilk_router_match")]:
        ratios = sorted(paired(by.get((table, a)), by.get((table, b))))
        if ratios:
            out.append({"ratio": name, "measured": round(statistics.median(ratios), 3),
                        "spread": (round(ratios[0], 3), round(ratios[-1], 3))})
    return out


def machine() -> dict:
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")), "?")
    return {"cpu": cpu, "cores": os.cpu_count(), "system": platform.platform(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def table_text(results: list[dict]) -> str:
    rows = ["| table | door | median ns/lookup | spread | lookups/s | Interlock time ÷ peer time | answers checked; a pass's sums |",
            "| --- | --- | ---: | --- | ---: | ---: | --- |"]
    for r in results:
        if "median_ns" in r:
            check = "" if "checked" not in r else f"{r['checked']} ok" if not r.get("wrong") else f"{r['wrong']} WRONG of {r['checked']}"
            sums = r.get("sums", "not reported")
            check = f"{check}; sums {sums}" if check else f"sums {sums}"
            ratio = r.get("ratio_interlock_to_peer", "")
            rows.append(f"| {r['table']} | {r['door']} | {r['median_ns']:.0f} | {r['spread_ns'][0]:.0f}–{r['spread_ns'][1]:.0f} | "
                        f"{r['lookups_per_s']:,} | {ratio} | {check} |")
        elif "remove_us" in r:
            small = (f"; at {r['small_routes']:,} routes: removing {r['small_remove_us'] * 1000:.0f} ns, adding "
                     f"{r['small_add_us'] * 1000:.0f} ns" if "small_add_us" in r else "")
            rows.append(f"| {r['table']} | {r['door']} | {r['remove_us'] * 1000:.0f} | "
                        f"{r['remove_range_us'][0] * 1000:.0f}–{r['remove_range_us'][1] * 1000:.0f} | – | – | "
                        f"adding one, then a lookup: {r['add_us'] * 1000:.0f} ns (median of 21){small} |")
        elif "door" in r and "threads" not in r:
            why = r.get("unsupported") or r.get("unavailable") or r.get("failed", "")
            rows.append(f"| {r['table']} | {r['door']} | – | – | – | – | {why.splitlines()[0] if why else ''} |")
    return "\n".join(rows)


def chart(results: list[dict], path: Path) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [r for r in results if "median_ns" in r]
    tables_seen = list(dict.fromkeys(r["table"] for r in rows))
    fig, axes = plt.subplots(len(tables_seen), 1, figsize=(9, 1.2 + 0.45 * len(rows)), squeeze=False)
    for ax, t in zip(axes[:, 0], tables_seen):
        sub = [r for r in rows if r["table"] == t]
        names = [r["door"] for r in sub]
        values = [r["median_ns"] for r in sub]
        colors = ["#2b6cb0" if "nterlock" in n or n.startswith(("C ilk", "LuaJIT")) else "#a0aec0" for n in names]
        ax.barh(names, values, color=colors)
        ax.set_xscale("log")
        ax.set_title(f"{t}: median ns per lookup (log scale; blue: Interlock)", fontsize=9, loc="left")
        ax.tick_params(labelsize=8)
        ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def update_readme(text: str, info: dict) -> None:
    """Writes the tables between the bench markers of benchmarks/README.md (the benchmark report;
    the chart's link is relative to that file)."""
    readme = HERE / "README.md"
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    body = readme.read_text()
    if start not in body:
        return
    load = info.get("load_average_1min")
    busy = f" One-minute load average over the run: {min(load)}–{max(load)} on {info['cores']} cores." if load else ""
    block = (f"{start}\nMeasured by `make bench` on {info['date']}: {info['cpu']}, {info['cores']} cores, "
             f"{info['system']}.{busy}\n\n{text}\n\n![benchmark chart](results/latest.svg)\n{end}")
    head, rest = body.split(start, 1)
    readme.write_text(head + block + rest.split(end, 1)[1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="every harness briefly on the GitHub table")
    parser.add_argument("--seconds", type=float, default=0.2, help="length of one timed batch")
    parser.add_argument("--tables", nargs="*", default=["github", "static", "deeplinks", "rest-1k", "rest-10k", "rest-100k",
                                                         "deeplinks-100k"])
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds of every harness in turn on the GitHub and static tables (the targets' ratios)")
    args = parser.parse_args()
    cmds = build()
    if args.smoke:
        results = run(cmds, "github", 0.002, threads=2, rounds=2)
        summarize(results)
        problems = [r for r in results if r.get("wrong") or "failed" in r]
        # Every timed pass found the table's routes and read every parameter (check_sums).
        problems += [{"door": r["door"], "failed": f"a timed pass's sums: {r['sums']}"} for r in check_sums(results)]
        missing = [r for r in results if "unavailable" in r]
        doors = sorted({r["door"] for r in results if "median_ns" in r})
        for d in doors:
            print(f"smoke: {d}: ran, answers checked, a pass's route ids and parameter lengths as the table's")
        for m in missing:
            print(f"smoke: {m['door']}: UNAVAILABLE ({m['unavailable'].splitlines()[0]})")
        # The thread scaling rounds: read and made into a median ratio as the report does.
        scaling = next(g for g in targets(results) if g["target"].startswith("Two threads"))
        if scaling["measured"] and scaling.get("spread") and scaling.get("control"):
            doors.append("C thread rounds")
            print(f"smoke: C thread rounds: ratio {scaling['measured']} (rounds {scaling['spread'][0]}-{scaling['spread'][1]}; "
                  f"control loop {scaling['control']})")
        else:
            problems.append({"door": "C thread rounds", "failed": f"no ratio from {scaling}"})
        # Ratios taken side by side: batch by batch within a harness (resolve against match, Python
        # match against falcon), round by round across harnesses; and the scale ratio's pairing,
        # on a small table against the GitHub table as the rest-100k run does.
        goals = {g["target"].rsplit(" (", 1)[0]: g for g in targets(results)}
        for name in ("GitHub: C resolve (filter + 2 interceptors) / C match", "GitHub: Python match time / falcon time",
                     "GitHub: Python match(uri, method=m) time / falcon time",
                     "GitHub: Python match_many time per URI / falcon time", "GitHub: C match time / httprouter time",
                     "GitHub: LuaJIT FFI lookup time / C lookup time",
                     "GitHub: Node match time / path-to-regexp 6 time"):
            g = goals.get(name, {})
            if g.get("measured") and g.get("spread"):
                doors.append(f"side by side: {name}")
                print(f"smoke: side by side: {name}: {g['measured']} ({g['spread'][0]}-{g['spread'][1]})")
            elif "httprouter" in name and isinstance(cmds.get("httprouter"), str):
                missing.append({"door": name, "unavailable": cmds["httprouter"]})
            elif "LuaJIT" in name and isinstance(cmds.get("lua"), str):
                missing.append({"door": name, "unavailable": cmds["lua"]})
            elif "falcon" in name and any(r["door"].startswith("falcon") and "unsupported" in r for r in results):
                missing.append({"door": name, "unavailable": "falcon is not installed"})
            elif "Node" in name and isinstance(cmds.get("node"), str):
                missing.append({"door": name, "unavailable": cmds["node"]})
            elif "path-to-regexp" in name and any(r["door"].startswith("path-to-regexp") and "unsupported" in r for r in results):
                missing.append({"door": name, "unavailable": "path-to-regexp 6 is not installed (Debian node-path-to-regexp)"})
            else:
                problems.append({"door": f"side by side: {name}", "failed": f"no ratios from {g}"})
        scale = run({"interlock-c": cmds["interlock-c"]}, "rest-1k", 0.002, threads=0, base="github")
        ratios = next((r.get("ratios_to", {}).get("C ilk_router_match (base)") for r in scale
                       if r.get("door") == "C ilk_router_match"), None)
        if ratios and len(ratios) == 7 and all(x > 0 for x in ratios):
            doors.append("C scale pairing")
            print(f"smoke: C scale pairing: rest-1k against github, {len(ratios)} batch ratios")
        else:
            problems.append({"door": "C scale pairing", "failed": f"no batch ratios in {scale}"})
        # The change-cost mode `make bench` runs at 100,000 routes, on rest-1k, with deeplinks-1k
        # changed beside it: it runs and reports both.
        routes_1k, requests_1k = tables.write("rest-1k", BUILD / "tables")
        small_routes, small_requests = tables.write("deeplinks-1k", BUILD / "tables")
        try:
            out = subprocess.run([*cmds["interlock-c"], str(routes_1k), str(requests_1k), "rest-1k"],
                                 env=dict(os.environ, ILK_BENCH_CHANGES=f"{small_routes}:{small_requests}"),
                                 capture_output=True, text=True, check=True).stdout
            change = json.loads(out.strip().splitlines()[-1])
            if change["remove_us"] > 0 and change["add_us"] > 0 and change["small_remove_us"] > 0 and change["small_add_us"] > 0:
                doors.append("C change costs")
                print("smoke: C change costs: a removal and an addition, each with its lookup, on rest-1k and deeplinks-1k")
            else:
                problems.append({"door": "C change costs", "failed": out})
        except (subprocess.CalledProcessError, ValueError, KeyError) as error:
            problems.append({"door": "C change costs", "failed": str(error)})
        # The untimed mode benchmarks/instructions.py counts under valgrind: one pass of each door,
        # its sums as the table's (the bare doors read no parameter).
        routes, requests = tables.write("github", BUILD / "tables")
        for door in COUNTED_DOORS:
            env = dict(os.environ, ILK_BENCH_PASSES="1", ILK_BENCH_DOOR=door)
            try:
                out = sh([*cmds["interlock-c"], str(routes), str(requests), "github"], env=env).stdout
                counted = json.loads(out.strip().splitlines()[-1])
                per_pass = counted["per_pass"]
                if per_pass <= 0:
                    raise ValueError(f"{per_pass} lookups a pass")
                want = dict(tables.expected_sums("github"))
                if door.endswith("-bare"):
                    want["param_bytes"] = 0
                got = {k: counted.get(k) for k in want}
                if got != want:
                    raise ValueError(f"a pass's sums {got}, want {want}")
                doors.append(f"C counted pass ({door})")
                print(f"smoke: C counted pass ({door}): {per_pass} lookups a pass, sums as the table's")
            except (subprocess.CalledProcessError, ValueError, KeyError) as error:
                problems.append({"door": f"C counted pass ({door})", "failed": str(error)})
        for p in problems:
            print(f"smoke: PROBLEM {p}")
        print(f"bench-smoke: {len(doors)} passed, {len(problems)} failed, {len(missing)} skipped")
        interlock_doors = [d for d in doors if "nterlock" in d or d.startswith("C ilk")]
        return 1 if problems or len(interlock_doors) < 4 else 0
    results: list[dict] = []
    load = [os.getloadavg()[0]]
    for t in args.tables:
        print(f"== {t}", flush=True)
        results += run(cmds, t, args.seconds, threads=os.cpu_count() or 2 if t == "github" else 0,
                       rounds=args.rounds if t in ("github", "static") else 1,
                       base="github" if t in SCALE_TABLES else None)
        load.append(os.getloadavg()[0])
    # What one change costs at 100,000 routes: a removal and its first lookup, beside an addition,
    # and beside the same changes at 1,000 routes.
    for t in SCALE_TABLES:
        if t not in args.tables or not isinstance(cmds.get("interlock-c"), list):
            continue
        routes, requests = tables.write(t, BUILD / "tables")
        small_routes, small_requests = tables.write(SMALL_FOR[t], BUILD / "tables")
        try:
            out = subprocess.run([*cmds["interlock-c"], str(routes), str(requests), t],
                                 env=dict(os.environ, ILK_BENCH_CHANGES=f"{small_routes}:{small_requests}"),
                                 capture_output=True, text=True, check=True).stdout
            results.append(json.loads(out.strip().splitlines()[-1]) | {"table": t})
            print(f"{t}: {results[-1]}", flush=True)
        except (subprocess.CalledProcessError, ValueError) as error:
            results.append({"door": "C remove one route, then a lookup", "table": t, "unavailable": str(error)})
    summarize(results)
    for r in check_sums(results):
        print(f"WARNING: {r['table']} {r['door']}: a timed pass's sums are {r['sums']}", file=sys.stderr)
    info = machine() | {"load_average_1min": [round(x, 2) for x in load]}
    goals = targets(results)
    others = other_ratios(results)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps({"machine": info, "results": results, "targets": goals,
                                                     "other_ratios": others}, indent=1))
    text = table_text(results)
    goal_rows = ["| target | measured (median of the side-by-side ratios) | range of those ratios | met |",
                 "| --- | ---: | --- | --- |"] + [
        f"| {g['target']} | {g['measured']}{'; a loop sharing nothing: %s' % g['control'] if 'control' in g else ''} | "
        f"{'%s–%s' % g['spread'] if 'spread' in g else ''} | "
        f"{'yes' if g['met'] else 'no' if g['met'] is False else 'not measured'} |" for g in goals]
    other_rows = ["| ratio (no target) | measured | range |", "| --- | ---: | --- |"] + [
        f"| {o['ratio']} | {o['measured']} | {o['spread'][0]}–{o['spread'][1]} |" for o in others]
    full = text + "\n\n" + "\n".join(goal_rows) + "\n\n" + "\n".join(other_rows)
    print(full)
    chart(results, RESULTS / "latest.svg")
    update_readme(full, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
