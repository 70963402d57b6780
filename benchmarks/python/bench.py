"""Python doors on the same tables: interlock's match, match_many and resolve, and the Python
peers falcon (CompiledRouter) and werkzeug (Map/MapAdapter), each checked before it is timed.
Every door's pass does the whole work for every request: the lookup under the request's method,
the route's id, and every parameter's name and value (the `Match`'s, the `Result`'s, falcon's and
werkzeug's params dicts), their lengths added up; a pass returns (sum of route ids, sum of those
lengths), which each record carries ("route_sum", "param_bytes") for the driver to check.
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
        d["extra"] = dict(d["extra"], **dict(zip(("route_sum", "param_bytes"), d["run"]())))
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
    pairs = [(u, meth) for (_, u, _), meth in zip(requests, methods)]
    wrong = sum(1 for (m, u, e), meth in zip(requests, methods)
                if ((router.match(u, meth) or interlock.Match(0, None, "", {})).route_id) != int(e))
    checks = {"routes": len(routes), "checked": len(requests), "wrong": wrong, "compile_ms": round(compile_ms, 2)}

    def match_pass_of(match):
        def match_pass() -> tuple[int, int]:
            ids = size = 0
            for uri, method in pairs:
                found = match(uri, method)
                if found is not None:
                    ids += found.route_id
                    for name, value in found.params.items():
                        size += len(name) + len(value)
            return ids, size
        return match_pass

    # The keyword form the README shows, `router.match(uri, method=m)`: its own pass, since a
    # wrapper would add a call of its own.
    def keyword_pass() -> tuple[int, int]:
        ids = size = 0
        match = router.match
        for uri, method in pairs:
            found = match(uri, method=method)
            if found is not None:
                ids += found.route_id
                for name, value in found.params.items():
                    size += len(name) + len(value)
        return ids, size

    # match_many with each request's own method: one call for the whole list, then every answer.
    uris = [u for _, u, _ in requests]

    def many_pass() -> tuple[int, int]:
        ids = size = 0
        for found in router.match_many(uris, methods):
            if found is not None:
                ids += found.route_id
                for name, value in found.params.items():
                    size += len(name) + len(value)
        return ids, size

    got = router.match_many(uris, methods)
    many_wrong = 0
    for u, m, match in zip(uris, methods, got):
        single = router.match(u, m)
        many_wrong += (match.route_id if match else 0) != (single.route_id if single else 0)

    def resolve_pass() -> tuple[int, int]:
        ids = size = 0
        for uri, method in pairs:
            result = router.resolve(uri, method)
            route_id = result.route_id
            if route_id:
                ids += route_id
                for name, value in result.params.items():
                    size += len(name) + len(value)
        return ids, size

    # Interlock's match and match_many are timed batch by batch with falcon (their targets'
    # peer), when falcon can take the table; resolve and werkzeug alone.
    # `match` is the compiled accelerator's door where it is built (interlock.accelerated), and
    # the ctypes path it falls back on is timed beside it.
    paired = [door("Python interlock match", table, len(requests), match_pass_of(router.match),
                   dict(checks, accelerated=interlock.accelerated)),
              door("Python interlock match (keyword)", table, len(requests), keyword_pass, {"checked": len(requests)}),
              door("Python interlock match (ctypes path)", table, len(requests), match_pass_of(router._match_ctypes),
                   {"checked": len(requests)}),
              door("Python interlock match_many", table, len(requests), many_pass,
                   {"checked": len(requests), "wrong": many_wrong})]
    resolve = door("Python interlock resolve", table, len(requests), resolve_pass, {"checked": len(requests)})

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
        # Each route's responder, by the function: falcon fills a resource's other methods with
        # its own responders (405), which are not in it, so one lookup checks the method too.
        route_of: dict = {}
        t = time.perf_counter()
        for template, ids in by_path.items():
            class Resource:
                pass
            resource = Resource()
            for method, route_id in ids.items():
                responder = (lambda rid: lambda req, resp, **kw: rid)(route_id)
                route_of[responder] = route_id
                setattr(resource, "on_" + method.lower(), responder)
            froute.add_route(template, resource)
        froute.find("/")
        fcompile = (time.perf_counter() - t) * 1e3
        get_route = route_of.get

        def flookup(method: str, uri: str) -> int:
            found = froute.find(uri)
            return 0 if found is None else get_route(found[1].get(method), 0)

        def falcon_pass() -> tuple[int, int]:
            ids = size = 0
            for method, uri, _ in requests:
                found = froute.find(uri)        # (resource, method map, params, template) or None
                if found is not None:
                    route_id = get_route(found[1].get(method), 0)
                    if route_id:
                        ids += route_id
                        for name, value in found[2].items():
                            size += len(name) + len(value)
            return ids, size

        fwrong = sum(1 for m, u, e in requests if flookup(m, u) != int(e))
        time_doors(paired + [door("falcon CompiledRouter (Python)", table, len(requests), falcon_pass,
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

        def werkzeug_pass() -> tuple[int, int]:
            ids = size = 0
            match = adapter.match
            for method, uri, _ in requests:
                try:
                    route_id, params = match(uri, method=method)
                except HTTPException:         # werkzeug's answer for no route (404 or 405)
                    continue
                ids += route_id
                for name, value in params.items():
                    size += len(name) + len(value)
            return ids, size

        wwrong = sum(1 for m, u, e in requests if wlookup(m, u) != int(e))
        time_doors([door("werkzeug (Python)", table, len(requests), werkzeug_pass,
                         {"routes": len(routes), "checked": len(requests), "wrong": wwrong,
                          "compile_ms": round(wcompile, 2)})], seconds)


if __name__ == "__main__":
    main()
