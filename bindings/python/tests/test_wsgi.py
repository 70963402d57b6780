"""interlock.wsgi in a real server: werkzeug's (which gives the raw target as REQUEST_URI, as
gunicorn, uWSGI and mod_wsgi do) and the standard library's wsgiref (which does not), on loopback
ports; parameters, %2F, 404, 405 with Allow, hosts, mounts (SCRIPT_NAME and PATH_INFO),
url_path_for, filters and guards."""

from __future__ import annotations

import json
import threading
import wsgiref.simple_server

import pytest

import interlock
from conftest import http_request
from interlock.wsgi import NoMatchFound, Router

serving = pytest.importorskip("werkzeug.serving")


def echo(environ, start_response):
    body = json.dumps({"params": environ["wsgiorg.routing_args"][1], "script_name": environ.get("SCRIPT_NAME", ""),
                       "path_info": environ.get("PATH_INFO", ""), "query": environ.get("QUERY_STRING", "")}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


def tagged(tag):
    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps({"app": tag}).encode()]
    return app


def make_router() -> Router:
    router = Router()
    router.add_route("GET /files/:name", echo, name="file")
    router.add_route("/users/:id(\\d+)", echo, methods=["GET", "PUT"], name="user")
    router.add_route("GET /search(/:q)", echo, name="search")
    router.host("api.example.com", tagged("api"))
    sub = Router()
    sub.add_route("GET /repos/:repo", echo, name="repo")
    router.mount("/orgs/:org", sub, name="orgs")

    def has_key(request):
        return request.state["environ"].get("HTTP_X_KEY") == "secret"
    router.add_route("GET /admin", echo, guard=has_key)

    @router.filter
    def legacy(request, next):
        if request.path.startswith("/old/"):
            return request.redirect_to("user", id=request.path.rsplit("/", 1)[1])
        if request.path == "/gone":
            return interlock.Response(410, "gone")
        return next(request)
    return router


class Server:
    def __init__(self, server) -> None:
        self.server = server
        self.port = server.server_port
        self.thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "Server":
        self.thread.start()        # the socket listens already: requests wait in its backlog
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
        assert not self.thread.is_alive()

    def request(self, method, target, host=None, headers=None):
        return http_request(self.port, method, target, host, headers)

    def get_json(self, target, **kwargs):
        status, _, body = self.request("GET", target, **kwargs)
        assert status == 200, (target, status, body)
        return json.loads(body)


@pytest.fixture(scope="module")
def server():
    with Server(serving.make_server("127.0.0.1", 0, make_router(), threaded=True)) as running:
        yield running


def test_parameters_and_an_encoded_slash(server):
    assert server.get_json("/files/a%2Fb")["params"] == {"name": "a/b"}
    assert server.get_json("/files/caf%C3%A9")["params"] == {"name": "café"}
    assert server.get_json("/search/x%20y")["params"] == {"q": "x y"}
    assert server.request("GET", "/users/x")[0] == 404


def test_404_405_and_head(server):
    assert server.request("GET", "/nope")[:1] == (404,)
    status, headers, body = server.request("DELETE", "/users/1")
    assert (status, headers["allow"], body) == (405, "GET, HEAD, PUT", b"Method Not Allowed")
    status, _, body = server.request("HEAD", "/users/1")
    assert status == 200 and body == b""


def test_hosts_and_mounts(server):
    assert server.get_json("/x", host="api.example.com")["app"] == "api"
    got = server.get_json("/orgs/a%2Fb/repos/r1?x=1")
    assert got == {"params": {"org": "a/b", "repo": "r1"}, "script_name": "/orgs/a/b", "path_info": "/repos/r1",
                   "query": "x=1"}


def test_filters_and_guards(server):
    assert server.request("GET", "/admin")[0] == 403
    assert server.get_json("/admin", headers={"X-Key": "secret"})["params"] == {}
    got = server.get_json("/old/7")
    assert got["params"] == {"id": "7"} and got["path_info"] == "/users/7"
    assert server.request("GET", "/gone")[::2] == (410, b"gone")


def test_without_the_raw_target_the_decoded_path_is_matched():
    """wsgiref gives no REQUEST_URI: PATH_INFO is all there is, and %2F is a separator there."""
    with Server(wsgiref.simple_server.make_server("127.0.0.1", 0, make_router())) as server:
        assert server.get_json("/files/a%20b")["params"] == {"name": "a b"}
        assert server.request("GET", "/files/a%2Fb")[0] == 404


def test_url_path_for():
    router = make_router()
    assert router.url_path_for("file", name="a/b") == "/files/a%2Fb"
    assert router.url_path_for("orgs:repo", org="o", repo="r") == "/orgs/o/repos/r"
    with pytest.raises(NoMatchFound, match="no route is named 'nope'"):
        router.url_path_for("nope")
    with pytest.raises(TypeError, match="endpoint must be a WSGI app"):
        router.add_route("/x", 42)
