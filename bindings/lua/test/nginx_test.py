"""The Lua module inside a real nginx: Debian's nginx with its Lua module serves
bindings/lua/test/nginx_app.lua, and real HTTP requests check its answers: the GitHub API table
(every route, with its parameters), misses, a 405 with its Allow header, a malformed URI, hosts
and deep links through the pipeline, a guard that refuses, a filter that redirects, a filter that
stops answering 401 with a header and a body. Exit status 1
on any wrong answer. Run by `make lua-test`."""

from __future__ import annotations

import http.client
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nginx_host import ROOT, Nginx, missing  # noqa: E402

HTTP = """
    server {
        listen 127.0.0.1:{port};
        server_name _;
        location / {
            access_by_lua_block { require("nginx_app").access() }
            content_by_lua_block { require("nginx_app").content() }
        }
    }
"""


class Client:
    """One keep-alive connection; `get` returns (status, headers, body)."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def request(self, method: str, path: str, host: str = "api.test", headers: dict | None = None):
        self.connection.request(method, path, headers={"Host": host, **(headers or {})})
        response = self.connection.getresponse()
        body = response.read().decode()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def github_routes() -> list[tuple[str, str]]:
    lines = (ROOT / "benchmarks" / "routesets" / "github_api.txt").read_text().splitlines()
    return [tuple(line.split()) for line in lines if line.strip()]


def main() -> int:
    absent = missing()
    if absent:
        print(f"nginx test: {', '.join(absent)} missing: apt-get install nginx-light libnginx-mod-http-lua lua-resty-core")
        return 1
    failures: list[str] = []
    checked = 0

    def expect(what: str, got: object, want: object) -> None:
        nonlocal checked
        checked += 1
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    with Nginx(HTTP, extra_path=f"{ROOT}/bindings/lua/test/?.lua") as server:
        client = Client(server.port)
        # The GitHub table through the fast path: every route by its own path, its parameters.
        routes = github_routes()
        for i, (method, pattern) in enumerate(routes, start=1):
            path = re.sub(r":(\w+)", lambda m: f"{m.group(1)}-{i}", pattern)
            names = sorted(re.findall(r":(\w+)", pattern))
            want = " ".join([f"route={i}"] + [f"{n}={n}-{i}" for n in names])
            status, _, body = client.request(method, path)
            expect(f"{method} {path}", (status, body), (200, want))
        # A miss; a path other methods take: 405 with the methods in Allow; a malformed URI.
        expect("a miss", client.request("GET", "/no/such/route")[0], 404)
        allowed = sorted({m for m, p in routes if p == "/authorizations/:id"})
        status, headers, _ = client.request("POST", "/authorizations/7")
        expect("405", status, 405)
        expect("405 Allow", sorted(headers.get("allow", "").split(", ")), allowed)
        # (nginx answers a bad escape itself: this one, ill-formed UTF-8 once decoded, is Interlock's)
        status, _, body = client.request("GET", "/repos/%C3%28/x")
        expect("malformed URI", (status, body.strip()), (400, "path is not valid UTF-8 once decoded"))
        # Hosts through the pipeline.
        status, headers, body = client.request("GET", "/p/X-1?ref=mail", host="shop.example.com")
        expect("a host's route", (status, body, headers.get("x-route")), (200, "product X-1", "product"))
        expect("a wildcard host", client.request("GET", "/u/42", host="eu.example.com")[::2],
               (200, "user 42 on eu.example.com"))
        status, headers, _ = client.request("POST", "/u/42", host="eu.example.com")
        expect("405 through the pipeline", (status, headers.get("allow")), (405, "GET"))
        expect("a constraint refuses", client.request("GET", "/u/abc", host="eu.example.com")[0], 404)
        expect("a host no route has", client.request("GET", "/p/X-1", host="other.test")[0], 404)
        # The guard refuses without the header, allows with it.
        expect("guard refuses", client.request("GET", "/admin/billing", host="admin.example.com")[0], 403)
        expect("guard allows", client.request("GET", "/admin/billing", host="admin.example.com",
                                              headers={"X-User": "ada"})[::2], (200, "admin billing"))
        # A filter redirects a legacy link inside the pipeline.
        expect("filter redirect", client.request("GET", "/old-product/Z-9", host="shop.example.com")[::2],
               (200, "product Z-9"))
        # A filter stops a request without a token, answering 401 with its header and body.
        status, headers, body = client.request("GET", "/secret/plans", host="vault.example.com")
        expect("a filter that stops answers", (status, headers.get("www-authenticate"), body),
               (401, 'Bearer realm="vault"', "a token is needed\n"))
        expect("a filter that lets through", client.request("GET", "/secret/plans", host="vault.example.com",
                                                            headers={"Authorization": "Bearer ada"})[::2],
               (200, "secret plans"))
        # Deep links to their web pages, built by url_for.
        status, headers, _ = client.request("GET", "/open?link=myapp%3A%2F%2Fproduct%2FQ%207", host="shop.example.com")
        expect("deep link to page", (status, headers.get("location")), (302, "http://shop.example.com/p/Q%207"))
        status, headers, _ = client.request("GET", "/open?link=myapp%3A%2F%2Fuser%2F42", host="eu.example.com")
        expect("deep link to a host's page", (status, headers.get("location")), (302, "http://eu.example.com/u/42"))
        expect("unknown deep link", client.request("GET", "/open?link=myapp%3A%2F%2Fnowhere", host="eu.example.com")[0], 404)
        client.connection.close()
        server.stop()
        errors = [line for line in server.error_log().splitlines() if "[error]" in line or "[alert]" in line or "[crit]" in line]
        expect("nginx's error log", errors, [])
    for failure in failures:
        print("FAIL", failure)
    print(f"nginx test: {checked - len(failures)} of {checked} answers right (nginx {server.port and 'on port ' + str(server.port)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
