"""Route tables and request lists for the benchmarks, written as plain text.

Routes:   one a line, "METHOD PATTERN" (Interlock syntax; `:name` parameters; "-": any method).
Requests: one a line, "METHOD URI EXPECTED" where EXPECTED is the 1-based line of the route that
          must answer, 0 for no route, or "bad" for a malformed URI (only Interlock checks those).
Tables: github (the GitHub API table), static, deeplinks (Interlock only: schemes, constraints,
optional parts, catch-alls, query strings), and rest-1k / rest-10k / rest-100k (generated nested
REST resources). Everything is deterministic."""

from __future__ import annotations

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


TABLES = {"github": github, "static": static, "deeplinks": deeplinks,
          "rest-1k": lambda: rest(125), "rest-10k": lambda: rest(1250), "rest-100k": lambda: rest(12500)}


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
