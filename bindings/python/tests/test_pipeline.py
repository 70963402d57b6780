import pytest

import interlock
from interlock import Status


def test_destination_return_types_and_request_fields():
    router = interlock.Router()
    router.add_route("/none", lambda r: None)
    router.add_route("/int", lambda r: 201)
    router.add_route("/str", lambda r: "héllo")
    router.add_route("/bytes", lambda r: b"\x00\x01")
    router.add_route("/resp", lambda r: interlock.Response(202, "x", {"X-A": "1"}))
    assert router.resolve("/none").response.status == 200
    assert router.resolve("/int").response.status == 201
    assert router.resolve("/str").response.body == "héllo".encode()
    assert router.resolve("/bytes").response.body == b"\x00\x01"
    r = router.resolve("/resp")
    assert (r.response.status, r.response.body, r.response.headers) == (202, b"x", [("X-A", "1")])

    seen = {}

    @router.route("GET https://shop.example.com/p/:sku", name="product")
    def product(request):
        seen.update(scheme=request.scheme, host=request.host, path=request.path, fragment=request.fragment,
                    method=request.method, route=request.route, pattern=request.pattern, params=request.params,
                    tags=request.query.getall("tag"), first=request.query["tag"], flag=request.query["flag"])

    assert product.route_id == 6
    result = router.resolve("HTTPS://Shop.Example.com/p/caf%C3%A9?tag=a&tag=b+c&flag#top", "GET")
    assert result.status is Status.OK and result.route == "product" and result.params == {"sku": "café"}
    assert seen == dict(scheme="https", host="shop.example.com", path="/p/caf%C3%A9", fragment="top", method="GET",
                        route="product", pattern="GET https://shop.example.com/p/:sku", params={"sku": "café"},
                        tags=["a", "b c"], first="a", flag="")


def test_order_of_interceptors_filters_guard_destination():
    log = []
    router = interlock.Router()
    rid = router.add_route("/a/:x", lambda r: log.append("dest"), name="a", guard=lambda r: log.append("guard") or True)
    router.add_request_interceptor(lambda r: log.append("g-req-1"))
    router.add_request_interceptor(lambda r: log.append("r-req-1"), route="a")
    router.add_request_interceptor(lambda r: log.append("g-req-2"))
    router.add_request_interceptor(lambda r: log.append("r-req-2"), route=rid)
    router.add_response_interceptor(lambda resp: log.append("r-res-1"), route="a")
    router.add_response_interceptor(lambda resp: log.append("g-res-1"))

    @router.filter
    def f1(request, next):
        log.append("f1-in"); resp = next(request); log.append("f1-out"); return resp

    @router.filter
    def f2(request, next):
        log.append("f2-in"); resp = next(request); log.append("f2-out"); return resp

    result = router.resolve("/a/1")
    assert result.status is Status.OK
    assert log == ["r-req-1", "r-req-2", "g-req-1", "g-req-2", "f1-in", "f2-in", "guard", "dest",
                   "g-res-1", "r-res-1", "f2-out", "f1-out"]
    assert [t.stage for t in result.trace] == ["match", "request-interceptor", "request-interceptor",
                                               "request-interceptor", "request-interceptor", "filter", "filter",
                                               "guard", "destination", "response-interceptor", "response-interceptor"]
    assert result.trace[0] == interlock.TraceEntry("match", "/a/1", "a")
    assert result.trace[5] == interlock.TraceEntry("filter", "f1", "continue")
    # The trace is made once, when first read, and entries read by field or as tuples.
    assert result.trace is result.trace
    stage, name, decision = result.trace[7]
    assert (stage, name, decision) == ("guard", "a", "allow") and result.trace[7].decision == "allow"
    assert "status=Status.OK" in repr(result)


def test_filter_stop_redirect_and_response_changes():
    router = interlock.Router()
    router.add_route("/old/:id", lambda r: pytest.fail("old destination ran"))
    router.add_route("/new/:id", lambda r: f"new {r.params['id']} {r.state.get('com.example.seen')}", name="new")
    router.add_route("/admin", lambda r: pytest.fail("admin ran"))

    @router.filter
    def gate(request, next):
        request.state["com.example.seen"] = True
        if request.path == "/admin":
            return None
        if request.path.startswith("/old/"):
            return request.redirect_to("new", id=request.params["id"])
        response = next(request)
        response.headers.append(("X-Filtered", "yes"))
        return response

    assert router.resolve("/admin").status is Status.STOPPED
    result = router.resolve("/old/7")
    assert result.status is Status.OK and result.redirects == ["/new/7"]
    assert result.response.body == b"new 7 True"
    assert result.response.headers == [("X-Filtered", "yes")]
    assert result.state["com.example.seen"] is True

    loop = interlock.Router()
    loop.add_route("/a")
    loop.add_route("/b")
    loop.add_filter(lambda req, nxt: req.redirect("/b" if req.path == "/a" else "/a"))
    assert loop.resolve("/a").status is Status.REDIRECT_LOOP
    loop.set_limits(redirects=2)
    assert len(loop.resolve("/a").redirects) == 2


def test_next_twice_is_an_error_and_the_destination_runs_once():
    runs = []
    router = interlock.Router()
    router.add_route("/a", lambda r: runs.append(1))
    router.add_filter(lambda req, nxt: (nxt(req), nxt(req))[1])
    with pytest.raises(interlock.CallbackError, match="twice"):
        router.resolve("/a")
    assert runs == [1]


def test_guard_and_pending_link():
    logged_in = False
    router = interlock.Router()
    router.add_route("myapp://account/:section", lambda r: f"account {r.params['section']}",
                     guard=lambda r: logged_in)
    router.add_route("myapp://home", lambda r: "home")
    assert router.pending_link is None
    assert router.resolve("myapp://account/billing?from=push").status is Status.GUARDED
    assert router.pending_link == "myapp://account/billing?from=push"
    router.resolve("myapp://home")
    assert router.pending_link == "myapp://account/billing?from=push"
    assert router.replay_pending_link().status is Status.GUARDED
    assert router.pending_link is not None
    logged_in = True
    replayed = router.replay_pending_link()
    assert replayed.status is Status.OK and replayed.response.body == b"account billing"
    assert router.pending_link is None and router.replay_pending_link() is None
    logged_in = False
    router.resolve("myapp://account/x")
    assert router.take_pending_link() == "myapp://account/x" and router.pending_link is None


def test_abort_retry_and_state():
    attempts = []
    router = interlock.Router()

    def flaky(request):
        attempts.append(request.metadata.get("count"))
        return 429 if len(attempts) < 3 else 200

    router.add_route("/flaky", flaky)

    def count(request):
        request.metadata["count"] = str(int(request.metadata.get("count", "0")) + 1)

    router.add_request_interceptor(count)

    class Replay429:
        """In the manner of CDT's replay-on-429: a bounded retry count kept in the state."""

        def intercept(self, response):
            if response.status == 429 and response.state.get("com.example.replay429", 0) < 5:
                response.state["com.example.replay429"] = response.state.get("com.example.replay429", 0) + 1
                response.retry()

    router.add_response_interceptor(Replay429())
    result = router.resolve("/flaky")
    assert result.status is Status.OK and result.response.status == 200
    assert attempts == ["1", "1", "1"]               # the original request every time
    assert result.state["com.example.replay429"] == 2
    assert [t.stage for t in result.trace].count("retry") == 2

    always = interlock.Router()
    always.add_route("/x")
    always.add_response_interceptor(lambda resp: resp.retry())
    assert always.resolve("/x").status is Status.RETRY_LIMIT

    aborting = interlock.Router()
    aborting.add_route("/x", lambda r: pytest.fail("ran after abort"))

    def deny(request):
        raise interlock.Abort("no entry")

    aborting.add_request_interceptor(deny)
    result = aborting.resolve("/x")
    assert result.status is Status.ABORTED and result.error == "no entry"

    validated = interlock.Router()
    validated.add_route("/x", lambda r: 500)
    validated.add_response_interceptor(interlock.ValidateStatus(range(200, 300)))
    result = validated.resolve("/x")
    assert result.status is Status.ABORTED and "500" in result.error and result.response.body == b""


def test_composition_and_logging():
    log = []

    def mark(name):
        def interceptor(request):
            log.append(name)
        interceptor.__name__ = name
        return interceptor

    a, b, c, d = mark("a"), mark("b"), mark("c"), mark("d")
    router = interlock.Router()
    router.add_route("/x")
    router.add_request_interceptor(interlock.chain_before(a, b))
    router.add_request_interceptor(interlock.chain_after(a, b))
    router.add_request_interceptor(interlock.chain_in_order([c, interlock.chain_before(d, a), b]))
    result = router.resolve("/x")
    assert log == ["a", "b", "b", "a", "c", "d", "a", "b"]
    assert [t.name for t in result.trace if t.stage == "request-interceptor"] == log

    lines = []
    logger = interlock.LoggingInterceptor(lines.append)
    logged = interlock.Router()
    logged.add_route("GET /u/:id", lambda r: b"abc")
    logged.add_request_interceptor(logger)
    logged.add_response_interceptor(logger)
    logged.resolve("/u/7", "GET")
    assert lines == ["-> GET /u/7 route=GET /u/:id params=id=7", "<- status 200, 3 bytes for /u/7"]


def test_nested_resolves_and_adding_routes_from_callbacks():
    router = interlock.Router()
    router.add_route("/inner", lambda r: "inner")

    def outer(request):
        inner = router.resolve("/inner")
        router.add_route("/added-later", lambda r: "later")
        return inner.response.body

    router.add_route("/outer", outer)
    assert router.resolve("/outer").response.body == b"inner"
    assert router.resolve("/added-later").response.body == b"later"


def test_default_and_method_not_allowed():
    router = interlock.Router()
    router.add_route("GET /a", lambda r: "a")
    assert router.resolve("/nowhere").status is Status.NOT_FOUND
    result = router.resolve("/a", "POST")
    assert result.status is Status.METHOD_NOT_ALLOWED and result.allowed == ["GET"]

    @router.default
    def fallback(request):
        return interlock.Response(404, request.path)

    result = router.resolve("/no/./where")
    assert result.status is Status.OK and result.response.status == 404 and result.response.body == b"/no/where"


def test_request_fields_are_read_when_first_used():
    """A request reads its fields from the library's text when one is first used: a field set
    before any is read is kept (and reaches the library), the others read as they were; a
    result's route, parameters and query are its request's."""
    router = interlock.Router()
    router.add_route("GET /items/:id", lambda r: f"{r.params['id']} {r.metadata.get('tag')} {r.uri}", name="item")

    def replace_params(request):
        request.params = {"id": "replaced"}           # set before anything was read

    def tag(request):
        request.metadata = {"tag": "t1"}              # likewise, on the next interceptor
        assert request.params == {"id": "replaced"} and request.path == "/items/7" and request.route == "item"

    router.add_request_interceptor(replace_params)
    router.add_request_interceptor(tag)
    result = router.resolve("/items/7?q=1", "GET")
    assert result.response.body == b"replaced t1 /items/7?q=1"
    assert (result.route, result.route_id, result.pattern) == ("item", 1, "GET /items/:id")
    assert result.params == {"id": "replaced"} and dict(result.query) == {"q": "1"}
    assert result.response.request.metadata == {"tag": "t1"} and result.response.request.method == "GET"

    untouched = interlock.Router()
    untouched.add_route("/a/:x", lambda r: None)
    untouched.add_request_interceptor(lambda r: None)  # reads nothing, sets nothing
    result = untouched.resolve("/a/b")
    assert result.params == {"x": "b"} and result.route is None and result.route_id == 1
    with pytest.raises(AttributeError):
        _ = result.response.request.no_such_field


def test_a_shared_results_request_reads_alike_on_many_threads():
    """Threads reading a result's request for the first time at once all get its fields, and the
    same objects."""
    import sys
    import threading
    router = interlock.Router()
    router.add_route("/items/:id")
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)   # threads switch between bytecodes, as a busy program's may
    try:
        _read_on_threads(router)
    finally:
        sys.setswitchinterval(interval)


def _read_on_threads(router):
    import threading
    for _ in range(500):
        result = router.resolve("/items/7?q=1")
        request = result.response.request
        seen, errors = [], []
        start = threading.Barrier(4)

        def read():
            try:
                start.wait()
                seen.append((request.params, request.query, request.uri))
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert all(p is seen[0][0] and q is seen[0][1] and u == "/items/7?q=1" for p, q, u in seen)
        assert seen[0][0] == {"id": "7"} and result.params is seen[0][0]
