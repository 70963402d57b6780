"""Python doors on the same tables: interlock's match, match_many and resolve, and the Python
peers falcon (CompiledRouter) and werkzeug (Map/MapAdapter), each checked before it is timed.
Usage: bench.py ROUTES REQUESTS TABLE [seconds]. One JSON line per door."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))


def read(path: str, expected: bool) -> list[tuple]:
    out = []
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) >= (3 if expected else 2):
            out.append(tuple(parts[:3] if expected else parts[:2]))
    return out


def time_doors(doors: list[dict], seconds: float) -> None:
    """Times each door (`run`: one pass over `per_pass` lookups) in batches of about `seconds`,
    after a warm-up, the doors in turn batch by batch, so that batch b of every door falls in the
    same stretch of time; prints one JSON line per door. With several doors, every record but the
    last door's carries each batch's ratio to the last door's (the peer they are compared with)."""
    for d in doors:
        d["run"]()
        t = time.perf_counter()
        d["run"]()
        one = time.perf_counter() - t
        d["passes"] = max(1, int(seconds / one) + 1) if one > 0 else 1
        d["ns"] = []
    for _ in range(7):
        for d in doors:
            t = time.perf_counter()
            for _ in range(d["passes"]):
                d["run"]()
            d["ns"].append(round((time.perf_counter() - t) / (d["passes"] * d["per_pass"]) * 1e9, 2))
    peer = doors[-1]
    for d in doors:
        extra = dict(d["extra"])
        if d is not peer:
            extra["ratios_to"] = {peer["door"]: [round(a / b, 4) for a, b in zip(d["ns"], peer["ns"])]}
        print(json.dumps({"door": d["door"], "table": d["table"], "lookups_per_batch": d["passes"] * d["per_pass"],
                          "ns": d["ns"], **extra}), flush=True)


def door(name: str, table: str, per_pass: int, run, extra: dict) -> dict:
    return {"door": name, "table": table, "per_pass": per_pass, "run": run, "extra": extra}


def unsupported(door: str, table: str, why: str) -> None:
    print(json.dumps({"door": door, "table": table, "unsupported": why}), flush=True)


def main() -> None:
    routes_path, requests_path, table = sys.argv[1:4]
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 0.2
    routes = read(routes_path, False)
    requests = [(m, u, e) for m, u, e in read(requests_path, True) if e != "bad"]
    plain = all(m != "-" and "://" not in p and "(" not in p and "*" not in p for m, p in routes)

    import interlock
    router = interlock.Router()
    t = time.perf_counter()
    for i, (method, pattern) in enumerate(routes):
        router.add_route(pattern if method == "-" else f"{method} {pattern}", lambda r: None)
    router.match("/")
    compile_ms = (time.perf_counter() - t) * 1e3
    methods = [None if m == "-" else m for m, _, _ in requests]
    wrong = sum(1 for (m, u, e), meth in zip(requests, methods)
                if ((router.match(u, meth) or interlock.Match(0, None, "", {})).route_id) != int(e))
    checks = {"routes": len(routes), "checked": len(requests), "wrong": wrong, "compile_ms": round(compile_ms, 2)}
    # Interlock's match and match_many are timed batch by batch with falcon (their targets'
    # peer), when falcon can take the table; resolve and werkzeug alone.
    paired = [door("Python interlock match", table, len(requests),
                   lambda: [router.match(u, m) for (_, u, _), m in zip(requests, methods)], checks)]
    # match_many with each request's own method: one call for the whole list.
    uris = [u for _, u, _ in requests]
    got = router.match_many(uris, methods)
    many_wrong = 0
    for u, m, match in zip(uris, methods, got):
        single = router.match(u, m)
        many_wrong += (match.route_id if match else 0) != (single.route_id if single else 0)
    paired.append(door("Python interlock match_many", table, len(requests),
                       lambda: router.match_many(uris, methods), {"checked": len(requests), "wrong": many_wrong}))
    resolve = door("Python interlock resolve", table, len(requests),
                   lambda: [router.resolve(u, m) for (_, u, _), m in zip(requests, methods)], {"checked": len(requests)})

    if not plain:
        for d in paired + [resolve]:
            time_doors([d], seconds)
        unsupported("falcon CompiledRouter (Python)", table, "schemes, constraints, optional parts or routes without a method")
        unsupported("werkzeug (Python)", table, "schemes, constraints, optional parts or routes without a method")
        return
    try:
        import falcon.routing
    except ImportError:
        for d in paired:
            time_doors([d], seconds)
        unsupported("falcon CompiledRouter (Python)", table, "falcon is not installed")
    else:
        froute = falcon.routing.CompiledRouter()
        by_path: dict = {}
        for i, (method, pattern) in enumerate(routes):
            by_path.setdefault(re.sub(r":(\w+)", r"{\1}", pattern), {})[method] = i + 1
        t = time.perf_counter()
        for template, ids in by_path.items():
            class Resource:
                pass
            resource = Resource()
            for method, route_id in ids.items():
                setattr(resource, "on_" + method.lower(), (lambda rid: lambda req, resp, **kw: rid)(route_id))
            froute.add_route(template, resource)
        froute.find("/")
        fcompile = (time.perf_counter() - t) * 1e3

        def flookup(method: str, uri: str) -> int:
            found = froute.find(uri)
            if found is None:
                return 0
            responder = found[1].get(method)
            return responder(None, None) if responder and getattr(responder, "__name__", "") == "<lambda>" else 0

        fwrong = sum(1 for m, u, e in requests if flookup(m, u) != int(e))
        time_doors(paired + [door("falcon CompiledRouter (Python)", table, len(requests),
                                  lambda: [flookup(m, u) for m, u, _ in requests],
                                  {"routes": len(routes), "checked": len(requests), "wrong": fwrong,
                                   "compile_ms": round(fcompile, 2)})], seconds)
    time_doors([resolve], seconds)
    try:
        from werkzeug.exceptions import HTTPException
        from werkzeug.routing import Map, Rule
    except ImportError:
        unsupported("werkzeug (Python)", table, "werkzeug is not installed")
    else:
        t = time.perf_counter()
        rules = Map([Rule(re.sub(r":(\w+)", r"<\1>", p), endpoint=i + 1, methods=[m]) for i, (m, p) in enumerate(routes)])
        adapter = rules.bind("example.com")
        wcompile = (time.perf_counter() - t) * 1e3

        def wlookup(method: str, uri: str) -> int:
            try:
                return adapter.match(uri, method=method)[0]
            except HTTPException:
                return 0

        wwrong = sum(1 for m, u, e in requests if wlookup(m, u) != int(e))
        time_doors([door("werkzeug (Python)", table, len(requests), lambda: [wlookup(m, u) for m, u, _ in requests],
                         {"routes": len(routes), "checked": len(requests), "wrong": wwrong,
                          "compile_ms": round(wcompile, 2)})], seconds)


if __name__ == "__main__":
    main()
