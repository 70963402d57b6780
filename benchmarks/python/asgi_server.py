"""Requests per second through uvicorn for one app routed by Starlette's router and by
interlock.asgi, at 200 and 10,000 routes (the rest tables of tables.py), and each router alone
(its ASGI call in-process, no server). Every route's endpoint is the same plain ASGI app, which
answers its route's number and its parameters: the smoke run and the timed run check the answers
of every router before measuring it. wrk (Debian) drives the server through a Lua script that
cycles over the table's requests (404s included). uvicorn runs in a process of its own, h11 and
asyncio (uvicorn's defaults without its optional speedups), one worker.

Usage: asgi_server.py [--smoke] [--seconds S]. The timed run writes benchmarks/results/asgi.json
and the table between the asgi markers of benchmarks/README.md. Internal: --serve ROUTER ROUTES."""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import platform
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import tables  # noqa: E402

SIZES = {200: 25, 10_000: 1250}     # routes -> resources of tables.rest (8 routes each)
ROUTERS = ("starlette", "interlock")


class Endpoint:
    """A plain ASGI app (an object, so Starlette calls it as one, not as a request endpoint):
    answers "NUMBER name=value ..."."""

    def __init__(self, number: int) -> None:
        self.number = number

    async def __call__(self, scope, receive, send) -> None:
        params = " ".join(f"{k}={v}" for k, v in scope["path_params"].items())
        body = f"{self.number} {params}".encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def table(routes: int) -> tuple[list[tuple[str, str]], list[tuple[str, str, int]]]:
    lines, requests = tables.rest(SIZES[routes])
    pairs = [tuple(line.split()) for line in lines]
    asked = []
    for line in requests:
        method, uri, expected = line.split()
        asked.append((method, uri, int(expected)))
    return pairs, asked  # type: ignore[return-value]


def app(router: str, routes: int):
    pairs, _ = table(routes)
    if router == "interlock":
        from interlock.asgi import Router
        r = Router()
        for number, (method, path) in enumerate(pairs, 1):
            r.add_route(f"{method} {path}", Endpoint(number))
        r.core.compile()
        return r
    from starlette.routing import Route, Router as StarletteRouter
    # Starlette's way: one Route per path with its methods; each method's endpoint apart, so one
    # Route per (path, method), in table order (Starlette answers 405 where only others match).
    routes_ = [Route(re.sub(r":(\w+)", r"{\1}", path), Endpoint(number), methods=[method])
               for number, (method, path) in enumerate(pairs, 1)]
    return StarletteRouter(routes=routes_)


def expected_body(pairs, number: int, uri: str) -> str:
    if number == 0:
        return "Not Found"
    names = re.findall(r":(\w+)", pairs[number - 1][1])
    values = [segment for segment, pattern in zip(uri.split("/"), pairs[number - 1][1].split("/")) if pattern.startswith(":")]
    return f"{number} " + " ".join(f"{n}={v}" for n, v in zip(names, values))


# -- the router alone


async def alone(application, requests, seconds: float) -> tuple[float, int]:
    """µs per request of the router's ASGI call (lookup, scope, the endpoint's two sends into a
    list), cycling over `requests` for about `seconds`; returns (µs, requests timed)."""
    sent: list = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)
    scopes = [{"type": "http", "method": m, "path": uri, "raw_path": uri.encode(), "root_path": "", "headers": [],
               "query_string": b"", "scheme": "http", "server": ("127.0.0.1", 80)} for m, uri, _ in requests]
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for scope in scopes[done % len(scopes):][:100]:
            await application(dict(scope), receive, send)
            done += 1
        sent.clear()
    return (time.perf_counter() - start) / done * 1e6, done


def check_alone(router: str, routes: int, every: int = 1) -> int:
    """Checks the answer of every `every`-th request of the table; returns how many."""
    pairs, requests = table(routes)
    application = app(router, routes)

    async def run():
        for method, uri, number in requests[::every]:
            sent = []

            async def send(message):
                sent.append(message)

            async def receive():
                return {"type": "http.request", "body": b""}
            scope = {"type": "http", "method": method, "path": uri, "raw_path": uri.encode(), "root_path": "",
                     "headers": [], "query_string": b"", "scheme": "http"}
            await application(scope, receive, send)
            body = b"".join(m.get("body", b"") for m in sent[1:]).decode()
            assert body == expected_body(pairs, number, uri), (router, method, uri, body)
    asyncio.run(run())
    return len(requests[::every])


# -- through uvicorn


def serve(router: str, routes: int) -> None:
    """The child process: uvicorn on a loopback port it binds, which it prints."""
    import uvicorn
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that say so (socket.socket()'s
    # proto is 0), and without it a response written in two parts waits for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    server = uvicorn.Server(uvicorn.Config(app(router, routes), log_level="error", access_log=False,
                                           lifespan="off", loop="asyncio", http="h11"))
    server.run(sockets=[sock])


class Child:
    def __init__(self, router: str, routes: int) -> None:
        self.process = subprocess.Popen([sys.executable, __file__, "--serve", router, str(routes)],
                                        stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline())
        deadline = time.monotonic() + 60
        while True:         # ready once it answers (polled)
            try:
                self.get("GET", "/")
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{router} server did not start")
                time.sleep(0.05)

    def get(self, method: str, uri: str) -> tuple[int, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, uri)
            response = connection.getresponse()
            return response.status, response.read().decode()
        finally:
            connection.close()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def check_server(child: Child, pairs, requests, every: int) -> int:
    checked = 0
    for method, uri, number in requests[::every]:
        status, body = child.get(method, uri)
        assert status == (200 if number else 404) and body == expected_body(pairs, number, uri), (method, uri, status, body)
        checked += 1
    return checked


def wrk(port: int, requests, seconds: float, connections: int = 16) -> tuple[float, int]:
    # Formatted in init, once wrk has set the Host header (a request without one is a 400).
    lines = ",\n".join(f'{{"{m}", "{uri}"}}' for m, uri, _ in requests)
    script = ("local asked = {\n" + lines + "\n}\nlocal requests = {}\nlocal i = 0\n"
              "init = function(args)\n  for k, r in ipairs(asked) do requests[k] = wrk.format(r[1], r[2]) end\nend\n"
              "request = function()\n  i = i % #requests + 1\n  return requests[i]\nend\n")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script)
    try:
        out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{round(seconds)}s", "-s", f.name, f"http://127.0.0.1:{port}"],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    return rps, int(errors.group(1)) if errors else 0


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def readme_table(records: list[dict]) -> str:
    rows = ["| routes | router | requests/s through uvicorn | × Starlette's, by round | router alone, µs per request | Starlette's time ÷ this, by round |",
            "| ---: | --- | ---: | --- | ---: | --- |"]
    for r in records:
        rps_ratios = ", ".join(f"{x:g}" for x in r.get("rps_ratios", []))
        alone_ratios = ", ".join(f"{x:g}" for x in r.get("alone_ratios", []))
        rows.append(f"| {r['routes']:,} | {r['router']} | {r['rps']:,.0f} | {rps_ratios} | {r['alone_us']:,.1f} | {alone_ratios} |")
    return "\n".join(rows)


def update_readme(text: str, info: str) -> None:
    readme = ROOT / "benchmarks" / "README.md"
    content = readme.read_text()
    begin, end = "<!-- asgi:begin -->", "<!-- asgi:end -->"
    if begin in content and end in content:
        head, rest = content.split(begin, 1)
        _, tail = rest.split(end, 1)
        readme.write_text(f"{head}{begin}\n{info}\n\n{text}\n{end}{tail}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="answers checked, nothing timed")
    parser.add_argument("--seconds", type=float, default=15, help="wrk time per router and table")
    parser.add_argument("--serve", nargs=2, metavar=("ROUTER", "ROUTES"))
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]))
        return 0
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as error:
        print(f"smoke: asgi (uvicorn): UNAVAILABLE ({error})")
        return 0
    if args.smoke:
        for router in ROUTERS:
            check_alone(router, 200)
            pairs, requests = table(200)
            child = Child(router, 200)
            try:
                checked = check_server(child, pairs, requests, 7)
            finally:
                child.stop()
            print(f"smoke: asgi {router}: every answer of the 200-route table right alone, {checked} through uvicorn")
        return 0
    if shutil.which("wrk") is None:
        print("asgi: wrk is not installed (make bench-deps)", file=sys.stderr)
        return 1
    records = []
    rounds = 5
    for routes in SIZES:
        pairs, requests = table(routes)
        # In an order of their own (the same every run): a slow router gets through a part of the
        # cycle in a round, which must be a sample of the whole table, not its first routes.
        random.Random(5).shuffle(requests)
        misses = sum(1 for *_, n in requests if n == 0)
        children = {}
        applications = {router: app(router, routes) for router in ROUTERS}
        load = os.getloadavg()[0]
        try:
            for router in ROUTERS:
                check_alone(router, routes, max(1, len(requests) // 500))
                children[router] = Child(router, routes)
                check_server(children[router], pairs, requests, max(1, len(requests) // 200))
                wrk(children[router].port, requests, 2)                       # warm-up
            # The routers in turn, round by round, so that each round's pair shares the machine's
            # load (other work on it moves both); each round also times each router alone.
            rps = {router: [] for router in ROUTERS}
            us = {router: [] for router in ROUTERS}
            for _ in range(rounds):
                for router in ROUTERS:
                    rps[router].append(wrk(children[router].port, requests, args.seconds / rounds)[0])
                    us[router].append(round(asyncio.run(alone(applications[router], requests, 1))[0], 2))
        finally:
            for child in children.values():
                child.stop()
        for router in ROUTERS:
            record = {"routes": routes, "router": router, "rps": median(rps[router]), "rps_rounds": rps[router],
                      "alone_us": median(us[router]), "alone_us_rounds": us[router],
                      "requests_in_cycle": len(requests), "misses_in_cycle": misses, "load_before": round(load, 1)}
            if router != "starlette":
                record["rps_ratios"] = [round(a / b, 2) for a, b in zip(rps[router], rps["starlette"])]
                record["alone_ratios"] = [round(b / a, 1) for a, b in zip(us[router], us["starlette"])]
            records.append(record)
            print(json.dumps(record), flush=True)
    import starlette
    import uvicorn
    info = (f"Measured {time.strftime('%Y-%m-%d')}: {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, uvicorn {uvicorn.__version__} (h11, asyncio, one worker), Starlette "
            f"{starlette.__version__}; wrk -t1 -c16, {rounds} rounds of {args.seconds / rounds:g} s a router, the routers "
            "in turn, after a 2 s warm-up, cycling over the table's requests (404s included) in a shuffled order; "
            "alone: 1 s a router a "
            "round; medians of the rounds. One-minute load average before each table: "
            + ", ".join(f"{r['load_before']}" for r in records[::len(ROUTERS)]) + f" on {os.cpu_count()} cores.")
    text = readme_table(records)
    print(text)
    (ROOT / "benchmarks" / "results").mkdir(exist_ok=True)
    (ROOT / "benchmarks" / "results" / "asgi.json").write_text(json.dumps({"info": info, "records": records}, indent=1) + "\n")
    update_readme(text, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
