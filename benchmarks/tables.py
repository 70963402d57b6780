"""Route tables and request lists for the benchmarks, written as plain text.

Routes:   one a line, "METHOD PATTERN" (Interlock syntax; `:name` parameters; "-": any method).
Requests: one a line, "METHOD URI EXPECTED" where EXPECTED is the 1-based line of the route that
          must answer, 0 for no route, or "bad" for a malformed URI (only Interlock checks those).
Tables: github (the GitHub API table), static, deeplinks (Interlock only: schemes, constraints,
optional parts, catch-alls, query strings), rest-1k / rest-10k / rest-100k (generated nested
REST resources), and deeplinks-100k (100,000 generated deep links: custom schemes, hosts,
constraints, optional parts, catch-alls; Interlock only) with deeplinks-1k, its first 1,000. Everything is deterministic.

Every harness's timed pass reports two sums over the timed requests (all but the malformed ones):
the ids of the routes it answered (0 for none) and the lengths of every parameter's name and value
it read. `expected_sums` gives both for the tables whose parameters are whole path segments (all
but deeplinks), so that a harness that skips the method check or the parameters is caught."""

from __future__ import annotations

import functools
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def fill(path: str, tag: str) -> str:
    return re.sub(r":(\w+)(\([^)]*\))?", lambda m: ("1" + tag if m.group(2) else m.group(1) + tag), path)


def github() -> tuple[list[str], list[str]]:
    routes = [line.strip() for line in (HERE / "routesets" / "github_api.txt").read_text().splitlines() if line.strip()]
    requests = []
    for i, r in enumerate(routes):
        method, path = r.split()
        requests.append(f"{method} {fill(path, '')} {i + 1}")
    rng = random.Random(7)
    for i in range(20):
        requests.append(f"GET /{rng.choice(['nope', 'repos', 'users', 'gists'])}/x{i}/y/z/w {0}")
    for uri in ["/repos/%G1/x", "/users/%4", "/gists/a%", "/orgs/%00/x", "/user/%C3%28"]:
        requests.append(f"GET {uri} bad")
    return routes, requests


def static() -> tuple[list[str], list[str]]:
    routes, requests = [], []
    sections = ["docs", "guides", "blog", "api", "help", "about", "pricing", "legal", "careers", "status"]
    for s in sections:
        for j in range(20):
            routes.append(f"GET /{s}/topic{j}/index")
    for i, r in enumerate(routes):
        requests.append(f"{r} {i + 1}")
    for i in range(10):
        requests.append(f"GET /docs/missing{i}/index 0")
    return routes, requests


def rest(resources: int) -> tuple[list[str], list[str]]:
    routes, requests = [], []
    for k in range(resources):
        base = f"/api/v{k % 3}/res{k}"
        shapes = [("GET", base), ("POST", base), ("GET", base + "/:id"), ("PUT", base + "/:id"),
                  ("DELETE", base + "/:id"), ("GET", base + "/:id/children"), ("GET", base + "/:id/children/:cid"),
                  ("GET", base + "/:id/children/:cid/owner")]
        for method, path in shapes:
            routes.append(f"{method} {path}")
    for i, r in enumerate(routes):
        method, path = r.split()
        uri = fill(path, str(i))
        requests.append(f"{method} {uri} {i + 1}")
    rng = random.Random(11)
    requests += [f"GET /api/v{rng.randrange(3)}/none{i}/x 0" for i in range(max(10, resources // 50))]
    return routes, requests


def deeplinks() -> tuple[list[str], list[str]]:
    routes = [
        "myapp://user/:id(\\d+)", "myapp://user/me", "myapp://user/:name",
        "myapp://product/:sku(/reviews(/:page(\\d+)))", "myapp://search(/:query)",
        "myapp://files/*path", "https://shop.example.com/p/:sku", "https://shop.example.com/c/:cat/:sub",
        "myapp://settings/:section([a-z]+)", "myapp://settings", "myapp://order/:id([0-9a-f]{8})/track",
        "myapp://invite/:code", "myapp://chat/:room/:thread(\\d+)", "myapp://promo/*rest",
    ]
    requests = [
        "- myapp://user/42?coupon=SPRING 1", "- myapp://user/me 2", "- myapp://user/bob?ref=mail 3",
        "- myapp://product/X-1/reviews/3 4", "- myapp://product/X-1 4", "- myapp://search/caf%C3%A9 5",
        "- myapp://search 5", "- myapp://files/a/b/c.pdf 6", "- HTTPS://Shop.Example.com/p/sku-9#d 7",
        "- https://shop.example.com/c/shoes/running?sort=price 8", "- myapp://settings/privacy 9",
        "- myapp://settings 10", "- myapp://order/deadbeef/track 11", "- myapp://invite/ABC?x=1&y=2 12",
        "- myapp://chat/general/77 13", "- myapp://promo/spring/2024 14", "- otherapp://user/42 0",
        "- myapp://nowhere 0", "- myapp://user/%G1 bad",
    ]
    return [f"- {r}" for r in routes], requests


@functools.lru_cache(maxsize=None)
def expected_sums(name: str) -> dict[str, int] | None:
    """The sums every harness's timed pass must report on table `name`: "route_sum", the ids of
    the routes that answer the timed requests, and "param_bytes", the lengths of the names and
    values of their parameters (each `:name` segment of a route binds the request's segment
    there; these tables' URIs hold no escapes). None for deeplinks, whose optional parts, query
    strings and catch-alls only the router itself reads (its doors are compared with each other);
    deeplinks-100k's generator counts them as it writes its requests."""
    if name == "deeplinks":
        return None
    if name in ("deeplinks-100k", "deeplinks-1k"):
        routes, requests, size = deeplinks_big(12500 if name == "deeplinks-100k" else 125)
        return {"route_sum": sum(int(r.split()[2]) for r in requests if r.split()[2] != "bad"), "param_bytes": size}
    routes, requests = TABLES[name]()
    route_sum = param_bytes = 0
    for line in requests:
        _, uri, expected = line.split()
        if expected == "bad" or expected == "0":
            continue
        route_sum += int(expected)
        pattern = routes[int(expected) - 1].split()[1]
        for part, segment in zip(pattern.split("/"), uri.split("/")):
            if part.startswith(":"):
                param_bytes += len(part) - 1 + len(segment.encode())
    return {"route_sum": route_sum, "param_bytes": param_bytes}


def deeplinks_big(groups: int) -> tuple[list[str], list[str], int]:
    """8 routes a group, under ten custom schemes and ten hosts: a constrained parameter, nested
    optional parts, an optional parameter, a catch-all, hosts with one and two parameters, a
    constraint with a repetition, a constrained second parameter. One request a route (the
    optional parts present or absent in turn), with queries and fragments, then misses (a value
    a constraint refuses, an unknown scheme) and malformed URIs. Returns the routes, the requests
    and the lengths of the parameters' names and values the timed requests bind (ASCII: bytes and
    characters alike)."""
    routes: list[str] = []
    requests: list[str] = []
    size = 0

    def request(uri: str, params: dict[str, str]) -> None:
        nonlocal size
        requests.append(f"- {uri} {len(routes)}")
        size += sum(len(k) + len(v) for k, v in params.items())

    for k in range(groups):
        app, shop = f"app{k % 10}", f"https://shop{k % 10}.example.com"
        routes.append(f"- {app}://user{k}/:id(\\d+)")
        request(f"{app}://user{k}/{k * 7}?ref=mail", {"id": str(k * 7)})
        routes.append(f"- {app}://product{k}/:sku(/reviews(/:page(\\d+)))")
        if k % 2:
            request(f"{app}://product{k}/S{k}/reviews/{k % 9}", {"sku": f"S{k}", "page": str(k % 9)})
        else:
            request(f"{app}://product{k}/S{k}", {"sku": f"S{k}"})
        routes.append(f"- {app}://search{k}(/:query)")
        request(f"{app}://search{k}/q{k}" if k % 2 else f"{app}://search{k}", {"query": f"q{k}"} if k % 2 else {})
        routes.append(f"- {app}://files{k}/*path")
        request(f"{app}://files{k}/a/b{k}.pdf", {"path": f"a/b{k}.pdf"})
        routes.append(f"- {shop}/p{k}/:sku")
        request(f"{shop}/p{k}/sku-{k}#details", {"sku": f"sku-{k}"})
        routes.append(f"- {shop}/c{k}/:cat/:sub")
        request(f"{shop}/c{k}/shoes/run{k}?sort=price", {"cat": "shoes", "sub": f"run{k}"})
        routes.append(f"- {app}://order{k}/:id([0-9a-f]{{8}})/track")
        request(f"{app}://order{k}/{k:08x}/track", {"id": f"{k:08x}"})
        routes.append(f"- {app}://chat{k}/:room/:thread(\\d+)")
        request(f"{app}://chat{k}/general/{k}", {"room": "general", "thread": str(k)})
    rng = random.Random(13)
    for i in range(max(10, groups // 50)):
        k = rng.randrange(groups)
        requests.append(f"- app{k % 10}://user{k}/me{i} 0" if i % 2 else f"- other://user{k}/{i} 0")
    requests += ["- app1://user1/%G1 bad", "- app2://files2/a%ZZ bad"]
    return routes, requests, size


def param_count(name: str) -> int:
    """How many parameters the timed requests of a plain table (not deeplinks) bind, in all."""
    routes, requests = TABLES[name]()
    count = 0
    for line in requests:
        expected = line.split()[2]
        if expected not in ("bad", "0"):
            count += routes[int(expected) - 1].count("/:")
    return count


TABLES = {"github": github, "static": static, "deeplinks": deeplinks,
          "rest-1k": lambda: rest(125), "rest-10k": lambda: rest(1250), "rest-100k": lambda: rest(12500),
          "deeplinks-100k": lambda: deeplinks_big(12500)[:2], "deeplinks-1k": lambda: deeplinks_big(125)[:2]}


def write(name: str, folder: Path) -> tuple[Path, Path]:
    routes, requests = TABLES[name]()
    folder.mkdir(parents=True, exist_ok=True)
    r, q = folder / f"{name}.routes", folder / f"{name}.requests"
    r.write_text("\n".join(routes) + "\n")
    q.write_text("\n".join(requests) + "\n")
    return r, q


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "results" / "tables"
    for name in (sys.argv[2:] or TABLES):
        print(*write(name, out))
