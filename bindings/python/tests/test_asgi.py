"""interlock.asgi in a real server: uvicorn on a loopback port, real HTTP requests (http.client,
which sends the request target byte for byte), answers, parameters, 404, 405 with Allow, hosts,
mounts and their root path, url_path_for, the lifespan, filters and guards. Starlette (for its
endpoints and mounts) and uvicorn come from the Makefile's py-test-deps."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import interlock
from conftest import http_request
from interlock.asgi import Mount, NoMatchFound, Route, Router

uvicorn = pytest.importorskip("uvicorn")
starlette = pytest.importorskip("starlette")
from starlette.applications import Starlette  # noqa: E402
from starlette.responses import JSONResponse, PlainTextResponse  # noqa: E402
from starlette.routing import Mount as StarletteMount  # noqa: E402
from starlette.routing import Route as StarletteRoute  # noqa: E402


# -- a server on a free loopback port


class Server:
    """uvicorn serving `app` in a thread, on a socket bound to port 0 here (no race for the port);
    ready once it answers a request (polled, with a generous deadline), stopped by should_exit."""

    def __init__(self, app, lifespan: str = "off", **config) -> None:
        # IPPROTO_TCP named, so that asyncio sets TCP_NODELAY (a proto of 0 leaves Nagle on).
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan=lifespan, access_log=False,
                                                    **config))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> "Server":
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            assert self.thread.is_alive(), "uvicorn stopped before it started"
            assert time.monotonic() < deadline, "uvicorn did not start within 15 s"
            self.thread.join(0.01)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.socket.close()
        assert not self.thread.is_alive(), "uvicorn did not stop within 15 s"

    def request(self, method: str, target: str, host: str | None = None, headers: dict | None = None):
        """(status, headers as a dict with lower-case names, body) of one request."""
        return http_request(self.port, method, target, host, headers)

    def get_json(self, target: str, **kwargs):
        status, _, body = self.request("GET", target, **kwargs)
        assert status == 200, (target, status, body)
        return json.loads(body)


# -- the app under test


async def echo(scope, receive, send):
    """An ASGI app answering what the router gave it."""
    body = json.dumps({"params": scope.get("path_params"), "path": scope["path"],
                       "root_path": scope.get("root_path", ""), "app": "echo"}).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def tagged(tag):
    async def app(scope, receive, send):
        body = json.dumps({"app": tag, "params": scope.get("path_params")}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})
    return app


async def user(request):
    """A Starlette endpoint: the parameter, and URLs built from route names."""
    return JSONResponse({"id": request.path_params["id"], "self": str(request.url_for("user", id=request.path_params["id"])),
                         "file": request.scope["router"].url_path_for("file", name="a/b c")})


def make_router() -> Router:
    router = Router()
    router.add_route("GET /files/:name", echo, name="file")
    router.add_route("/users/:id(\\d+)", user, methods=["GET", "PUT"], name="user")
    router.add_route("GET /search(/:q(/page/:n(\\d+)))", echo, name="search")
    router.add_route("GET /assets/*path", echo, name="assets")
    router.add_route("http://admin.example.com/dashboard", tagged("admin"), name="dashboard")
    router.host("api.example.com", tagged("api"), name="api")

    sub = Router()
    sub.add_route("GET /repos/:repo", echo, name="repo")
    sub.add_route("GET /", echo, name="home")
    router.mount("/orgs/:org", sub, name="orgs")

    async def listing(request):
        return PlainTextResponse(f"{request.scope['root_path']} {request.url_for('shop:item', sku='x1')}")

    async def item(request):
        return JSONResponse({"params": request.path_params, "root_path": request.scope["root_path"]})

    shop = Starlette(routes=[StarletteRoute("/items/{sku}", item, name="item"),
                             StarletteRoute("/", listing, name="list")])
    router.mount("/shop", shop, name="shop")
    return router


@pytest.fixture(scope="module")
def server():
    with Server(make_router()) as running:
        yield running


# -- answers and parameters


def test_an_asgi_app_gets_its_parameters_decoded(server):
    got = server.get_json("/files/report%20v2.pdf")
    assert got == {"params": {"name": "report v2.pdf"}, "path": "/files/report v2.pdf", "root_path": "", "app": "echo"}


def test_an_encoded_slash_stays_inside_its_parameter(server):
    # uvicorn's decoded path is /files/a/b, which a router of the decoded path sends nowhere (or
    # to another route); the raw path keeps it one segment, decoded afterwards.
    assert server.get_json("/files/a%2Fb")["params"] == {"name": "a/b"}
    assert server.get_json("/assets/css/a%2Fb.css")["params"] == {"path": "css/a/b.css"}


def test_a_starlette_endpoint_and_constraints(server):
    status, headers, body = server.request("GET", "/users/42")
    assert status == 200 and headers["content-type"] == "application/json"
    port = server.port
    assert json.loads(body) == {"id": "42", "self": f"http://127.0.0.1:{port}/users/42", "file": "/files/a%2Fb%20c"}
    assert server.request("PUT", "/users/7")[0] == 200
    assert server.request("GET", "/users/x")[0] == 404       # the constraint (\d+)


def test_optional_parts(server):
    assert server.get_json("/search")["params"] == {}
    assert server.get_json("/search/cats")["params"] == {"q": "cats"}
    assert server.get_json("/search/cats/page/3")["params"] == {"q": "cats", "n": "3"}
    assert server.request("GET", "/search/cats/page/x")[0] == 404


def test_405_names_the_allowed_methods(server):
    status, headers, body = server.request("DELETE", "/users/42")
    assert status == 405 and body == b"Method Not Allowed"
    assert headers["allow"] == "GET, HEAD, PUT"
    status, headers, _ = server.request("POST", "/files/x")
    assert status == 405 and headers["allow"] == "GET, HEAD"


def test_head_is_answered_by_a_get_route(server):
    status, headers, body = server.request("HEAD", "/users/42")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0


def test_404(server):
    status, headers, body = server.request("GET", "/nowhere")
    assert (status, body) == (404, b"Not Found")
    assert headers["content-type"].startswith("text/plain")


def test_a_path_that_is_no_uri_is_a_400(server):
    status, _, body = server.request("GET", "/files/%FF")    # decodes to a byte that is not UTF-8
    assert status == 400 and body.startswith(b"Bad Request: ")


# -- hosts


def test_host_routes(server):
    assert server.get_json("/anything/here", host="api.example.com")["app"] == "api"
    assert server.get_json("/x", host="API.example.com:8000")["app"] == "api"     # any port, any case
    assert server.get_json("/dashboard", host="admin.example.com")["app"] == "admin"
    assert server.request("GET", "/dashboard", host="other.example.com")[0] == 404
    status, _, body = server.request("GET", "/dashboard", host="bad host")     # the library's URI error
    assert status == 400 and b"host" in body
    # The most specific path wins before the origin counts (the library's precedence): the
    # route /files/:name beats the host's mount, which takes any path.
    assert server.get_json("/files/a", host="api.example.com")["app"] == "echo"


# -- mounts and the root path


def test_a_mounted_router_gets_the_root_path_and_the_prefix_parameters(server):
    got = server.get_json("/orgs/acme%2Fwest/repos/a%2Fb")
    assert got["params"] == {"org": "acme/west", "repo": "a/b"}
    assert got["root_path"] == "/orgs/acme/west" and got["path"] == "/orgs/acme/west/repos/a/b"
    home = server.get_json("/orgs/acme")
    assert home["params"] == {"org": "acme"} and home["root_path"] == "/orgs/acme"


def test_a_mounted_starlette_app(server):
    got = server.get_json("/shop/items/sku-1")
    assert got["params"] == {"sku": "sku-1"} and got["root_path"] == "/shop"
    status, _, body = server.request("GET", "/shop/")
    assert status == 200
    assert body.decode() == f"/shop http://127.0.0.1:{server.port}/shop/items/x1"


def test_url_path_for():
    router = make_router()
    assert router.url_path_for("file", name="a/b") == "/files/a%2Fb"
    assert router.url_path_for("user", id=42) == "/users/42"
    assert router.url_path_for("search") == "/search"
    assert router.url_path_for("search", q="x", n=2) == "/search/x/page/2"
    assert router.url_path_for("orgs:repo", org="a b", repo="r") == "/orgs/a%20b/repos/r"
    assert router.url_path_for("orgs", org="o", path="/x/y") == "/orgs/o/x/y"
    assert router.url_path_for("shop:item", sku="k") == "/shop/items/k"
    dashboard = router.url_path_for("dashboard")
    assert (dashboard, dashboard.host) == ("/dashboard", "admin.example.com")
    with pytest.raises(NoMatchFound, match="no route is named 'nope'"):
        router.url_path_for("nope")
    with pytest.raises(NoMatchFound, match="does not match its constraint"):
        router.url_path_for("user", id="x")
    with pytest.raises(NoMatchFound, match="missing parameter 'id'"):
        router.url_path_for("user")
    with pytest.raises(LookupError):                      # a LookupError, and Starlette's
        router.url_path_for("orgs:nope", org="o")
    with pytest.raises(starlette.routing.NoMatchFound):
        router.url_path_for("nope")


def test_mounted_in_starlette_and_fastapi():
    """The router as a Starlette Mount's app: the matched prefix arrives as root_path, with the
    raw path still holding it; Starlette's url_path_for finds the router's names; inside a
    Starlette app a 404 and a 405 are its HTTPException, answered by its handlers."""
    router = Router()
    router.add_route("GET /files/:name", echo, name="file")
    outer = Starlette(routes=[StarletteMount("/api", app=router, name="api")])
    assert outer.url_path_for("api:file", name="a/b") == "/api/files/a%2Fb"
    apps = [outer]
    fastapi = pytest.importorskip("fastapi")
    app = fastapi.FastAPI()
    app.mount("/v2", router)
    apps.append(app)
    for app, prefix in zip(apps, ["/api", "/v2"]):
        with Server(app) as server:
            got = server.get_json(f"{prefix}/files/a%2Fb")
            assert got["params"] == {"name": "a/b"} and got["root_path"] == prefix
            status, headers, _ = server.request("PUT", f"{prefix}/files/x")
            assert status == 405 and headers["allow"] == "GET, HEAD"
            assert server.request("GET", f"{prefix}/nope")[0] == 404


def test_behind_a_proxy_that_strips_a_prefix():
    """uvicorn --root-path /api: the path and the raw path hold the prefix the proxy took off;
    the router matches below it, raw."""
    router = Router()
    router.add_route("GET /files/:name", echo, name="file")
    with Server(router, root_path="/api") as server:
        got = server.get_json("/files/a%2Fb")
        assert got == {"params": {"name": "a/b"}, "path": "/api/files/a/b", "root_path": "/api", "app": "echo"}


def test_the_router_as_a_starlette_apps_router():
    """`app.router = interlock_router`: Starlette's middleware, exception handlers and url_for
    over Interlock's routing."""
    app = Starlette()
    router = Router()
    router.add_route("GET /users/:id", user, name="user")
    router.add_route("GET /files/:name", echo, name="file")
    app.router = router
    app.add_route("/about", PlainTextResponse("about"), methods=["GET"], name="about")   # Starlette's call, ours
    assert app.url_path_for("user", id=1) == "/users/1" and app.url_path_for("about") == "/about"
    with Server(app) as server:
        assert server.get_json("/users/5")["self"] == f"http://127.0.0.1:{server.port}/users/5"
        assert server.request("GET", "/about")[::2] == (200, b"about")
        assert server.request("GET", "/nope")[0] == 404


# -- the lifespan


def test_the_lifespan_reaches_mounted_apps_and_the_routers_own():
    events = []

    @contextlib.asynccontextmanager
    async def mounted_lifespan(app):
        events.append("mounted up")
        yield
        events.append("mounted down")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        events.append("router up")
        yield {"ready": True}
        events.append("router down")

    async def state(scope, receive, send):
        body = json.dumps({"ready": scope["state"].get("ready"), "events": events}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    async def no_lifespan(scope, receive, send):    # refuses lifespan, as many apps do: left out
        assert scope["type"] == "http"

    router = Router(lifespan=lifespan)
    router.mount("/a", Starlette(lifespan=mounted_lifespan))
    router.mount("/b", no_lifespan)
    router.add_route("GET /state", state)
    with Server(router, lifespan="on") as server:
        assert server.get_json("/state") == {"ready": True, "events": ["mounted up", "router up"]}
    assert events == ["mounted up", "router up", "router down", "mounted down"]


def test_a_mounted_app_that_fails_to_start_fails_the_startup():
    @contextlib.asynccontextmanager
    async def failing(app):
        raise RuntimeError("no database")
        yield

    router = Router()
    router.mount("/a", Starlette(lifespan=failing))
    messages = []

    async def run():
        inbox = asyncio.Queue()
        await inbox.put({"type": "lifespan.startup"})

        async def send(message):
            messages.append(message)
        with pytest.raises(RuntimeError, match="failed to start"):
            await router({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, inbox.get, send)
    asyncio.run(run())
    assert messages[0]["type"] == "lifespan.startup.failed" and "no database" in messages[0]["message"]


# -- filters and guards


def test_filters_and_guards_as_steps():
    router = Router()

    def has_key(request):
        headers = dict(request.state["scope"]["headers"])
        return headers.get(b"x-key") == b"secret"

    router.add_route("GET /admin/:page", echo, name="admin", guard=has_key)
    router.add_route("GET /users/:id", echo, name="user")

    @router.filter
    def legacy(request, next):
        if request.path.startswith("/old/"):                 # an internal rewrite
            return request.redirect_to("user", id=request.path.rsplit("/", 1)[1])
        if request.path == "/gone":
            return interlock.Response(410, "gone for good", {"X-Why": "moved"})
        return next(request)

    with Server(router) as server:
        assert server.request("GET", "/admin/stats")[0] == 403
        got = server.get_json("/admin/stats", headers={"X-Key": "secret"})
        assert got["params"] == {"page": "stats"}
        got = server.get_json("/old/7?x=1")
        assert got["params"] == {"id": "7"} and got["path"] == "/users/7"
        status, headers, body = server.request("GET", "/gone")
        assert (status, body, headers["x-why"]) == (410, b"gone for good", "moved")
        assert server.request("GET", "/nope")[0] == 404
        status, headers, _ = server.request("POST", "/users/1")
        assert status == 405 and headers["allow"] == "GET, HEAD"


# -- what is refused when added


def test_endpoints_and_arguments_are_checked_when_added():
    router = Router()
    with pytest.raises(TypeError, match=r"endpoint must take \(scope, receive, send\)"):
        router.add_route("/a", lambda a, b: None)
    with pytest.raises(TypeError, match="is not async"):
        router.add_route("/a", lambda scope, receive, send: None)
    with pytest.raises(TypeError, match="endpoint must be callable, not int"):
        router.add_route("/a", 42)
    with pytest.raises(TypeError, match="methods must be a collection of str, not str"):
        router.add_route("/a", echo, methods="GET")
    with pytest.raises(ValueError, match="methods given twice"):
        router.add_route("GET /a", echo, methods=["GET"])
    with pytest.raises(interlock.PatternError) as error:
        router.add_route("/a/:id(", echo)
    assert error.value.offset is not None
    router.add_route("PUT /b", echo)
    with pytest.raises(interlock.ConflictError):       # GET added, then PUT conflicts: neither stays
        router.add_route("/b", echo, methods=["GET", "PUT"])
    assert len(router.core) == 1 and len(router.routes) == 1
    route = Route("/c", echo)
    router.add(route)
    with pytest.raises(ValueError, match="in a router already"):
        Router().add(route)
    assert isinstance(Router(routes=[Route("/x", echo), Mount("/y", echo)]).routes[1], Mount)
    router.mount("https://h.example.com", echo)
    with pytest.raises(interlock.ConflictError):        # the https mount conflicts: the http one goes too
        router.host("h.example.com", echo)
    assert len(router.core) == 3 and [r.path for r in router.routes] == ["PUT /b", "/c", "https://h.example.com"]


def test_without_starlette():
    """The package needs no Starlette: ASGI apps route, answer and build URLs; a Starlette
    endpoint is refused when added, saying what to do."""
    code = """
import asyncio, sys
sys.modules["starlette"] = None           # import starlette fails, as where it is not installed
from interlock.asgi import NoMatchFound, Router, URLPath

async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": scope["path_params"]["name"].encode()})

router = Router()
router.add_route("GET /files/:name", app, name="file")
router.add_route("https://cdn.example.com/s/:name", app, name="cdn")
try:
    router.add_route("/r", lambda request: None)
except TypeError as error:
    print(error)

async def call(path, raw):
    sent = []
    async def send(message):
        sent.append(message)
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": raw, "root_path": "", "headers": [],
             "query_string": b"", "scheme": "http"}
    await router(scope, None, send)
    return sent[0]["status"], sent[1]["body"]
print(asyncio.run(call("/files/a/b", b"/files/a%2Fb")), asyncio.run(call("/nope", b"/nope")))
url = router.url_path_for("cdn", name="x y")
print(type(url) is URLPath, url, url.host, url.make_absolute_url("http://testserver/app/"))
try:
    router.url_path_for("nope")
except LookupError as error:
    print(type(error).__name__, error)
print("starlette" in sys.modules and sys.modules["starlette"] is None)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=str(Path(interlock.__file__).parents[1]))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "endpoint takes one argument, a Starlette request, but Starlette is not installed (pip install starlette), "
        "or make it an ASGI app: async def app(scope, receive, send)",
        "(200, b'a/b') (404, b'Not Found')",
        "True /s/x%20y cdn.example.com http://cdn.example.com/app/s/x%20y",
        "NoMatchFound no route is named 'nope'",
        "True"]


def test_a_filter_that_stops_with_what_is_no_answer_is_a_type_error():
    router = Router()
    router.add_route("/x", echo)
    router.add_filter(lambda request, next: ["no", "answer"])

    async def send(message):
        pass
    scope = {"type": "http", "method": "GET", "path": "/x", "raw_path": b"/x", "root_path": "", "headers": [],
             "query_string": b"", "scheme": "http"}
    with pytest.raises(TypeError, match="filter <lambda> stopped with a list: a filter that stops returns a Response"):
        asyncio.run(router(scope, None, send))


def test_a_websocket_is_routed_and_closed_when_no_route_takes_it():
    seen = []

    async def socket_app(scope, receive, send):
        seen.append((scope["type"], scope["path_params"]))
        await send({"type": "websocket.close", "code": 1000})

    router = Router()
    router.add_route("/ws/:room", socket_app)

    async def run(path):
        sent = []

        async def send(message):
            sent.append(message)

        async def receive():
            return {"type": "websocket.connect"}
        scope = {"type": "websocket", "path": path, "raw_path": path.encode(), "root_path": "", "headers": [],
                 "scheme": "ws", "query_string": b""}
        await router(scope, receive, send)
        return sent
    assert asyncio.run(run("/ws/lobby")) == [{"type": "websocket.close", "code": 1000}]
    assert seen == [("websocket", {"room": "lobby"})]
    assert asyncio.run(run("/nope")) == [{"type": "websocket.close", "code": 1000, "reason": ""}]
