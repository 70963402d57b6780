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
    assert router.resolve("/admin").response.status == 200 and router.resolve("/admin").response.body == b""
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


def test_a_request_kept_past_its_callback_reads_as_it_was():
    """A callback's request is read from the library only when a field is first used, which is
    possible only while the callback runs: one that outlives its callback (kept by the callback,
    by a response or through a cycle, or held by a raised exception's traceback) is copied as the
    callback returns, and reads then as it did in the callback."""
    import gc
    import weakref
    kept = []
    router = interlock.Router()
    router.add_route("GET /k/:id", lambda r: kept.append(("destination", r)))
    router.add_route("/guarded/:id", lambda r: None, guard=lambda r: kept.append(("guard", r)) or True)

    def filter_keeping_its_response(request, next_):
        response = next_(request)
        kept.append(("filter", response.request))
        return response

    def request_interceptor(request):
        kept.append(("request interceptor", request))

    def response_interceptor(response):
        kept.append(("response interceptor", response))   # the response holds the request

    def in_a_cycle(request):
        cycle = {"request": request}
        cycle["self"] = cycle                              # freed only by the collector

    router.add_filter(filter_keeping_its_response)
    router.add_request_interceptor(request_interceptor)
    router.add_response_interceptor(response_interceptor)
    router.add_request_interceptor(in_a_cycle)
    gc.disable()
    try:
        result = router.resolve("/k/caf%C3%A9?q=1#f", "GET")
        cycles = [o for o in gc.get_objects() if isinstance(o, dict) and "request" in o and o.get("self") is o]
    finally:
        gc.enable()
    assert result.status is Status.OK
    router.resolve("/guarded/x", "PUT")
    router.resolve("/nothing")                             # the interceptors only
    assert [name for name, _ in kept] == ["request interceptor", "destination", "response interceptor", "filter",
                                          "request interceptor", "guard", "response interceptor", "filter",
                                          "request interceptor", "filter"]
    requests = [item.request if name == "response interceptor" else item for name, item in kept]
    for request in requests[:4] + [cycles[0]["request"]]:
        assert (request.uri, request.method, request.path, request.params, request.route_id, request.fragment,
                dict(request.query)) == ("/k/caf%C3%A9?q=1#f", "GET", "/k/caf%C3%A9", {"id": "café"}, 1, "f", {"q": "1"})
    assert (requests[5].uri, requests[5].method, requests[5].params) == ("/guarded/x", "PUT", {"id": "x"})
    assert all((r.uri, r.route_id, r.params) == ("/nothing", None, {}) for r in requests[8:])

    # An exception's traceback holds the request of the callback that raised.
    def failing(request):
        raise KeyError("no")

    router.add_route("/fails/:id", failing)
    with pytest.raises(KeyError) as info:
        router.resolve("/fails/9")
    frame = next(entry.frame for entry in info.traceback if entry.name == "failing")
    assert frame.f_locals["request"].params == {"id": "9"} and frame.f_locals["request"].uri == "/fails/9"

    # A request no one keeps is gone with its callback, and the library's request was never read.
    gone = []
    router.add_route("/gone", lambda r: gone.append(weakref.ref(r)))
    router.resolve("/gone")
    assert gone[0]() is None


def test_a_callback_that_reads_nothing_reads_nothing_from_the_library(monkeypatch):
    """The library's request is copied for a callback only when it reads a field (or keeps it)."""
    from interlock import _native
    calls = []
    packed = _native.lib.ilk_request_packed
    monkeypatch.setattr(_native.lib, "ilk_request_packed", lambda *args: calls.append(1) or packed(*args))
    router = interlock.Router()
    router.add_route("/a/:x", lambda r: None)
    router.add_route("/b/:x", lambda r: r.params["x"])
    router.add_route("/s/:x", lambda r: r.state.setdefault("k", "v"))
    router.add_filter(lambda request, next_: next_(request))   # its response holds the request
    router.add_response_interceptor(lambda response: response.status)
    assert router.resolve("/a/1").params == {"x": "1"} and calls == []
    assert router.resolve("/s/1").state == {"k": "v"} and calls == []
    assert router.resolve("/b/1").response.body == b"1" and calls == [1]


def test_results_of_every_size_and_nested_resolves_read_whole():
    """A result is copied from the library in one call into a buffer of the thread's; one larger
    than that buffer, and one resolved from a callback while the outer resolve is under way, read
    whole all the same."""
    router = interlock.Router()
    body = bytes(range(256)) * 40                              # 10,240 bytes, NUL bytes among them
    router.add_route("/big", lambda r: body)
    router.add_route("/long/:value", lambda r: interlock.Response(200, r.params["value"], {"X-Len": str(len(r.params["value"]))}))
    router.add_route("/inner/:n", lambda r: f"inner {r.params['n']}")

    def outer(request):
        inner = [router.resolve(f"/inner/{i}").response.body for i in range(3)]
        return b"|".join(inner + [router.resolve("/big").response.body[:4]])

    router.add_route("/outer", outer)
    for _ in range(2):                                         # the thread's buffer is used again
        assert router.resolve("/big").response.body == body
        value = "é" * 3000                                     # a request text over the buffer
        result = router.resolve("/long/" + value)
        assert result.params == {"value": value} and result.response.body == value.encode()
        assert result.response.headers == [("X-Len", "3000")]
        assert router.resolve("/outer").response.body == b"inner 0|inner 1|inner 2|" + body[:4]
        assert router.resolve("/inner/x").response.body == b"inner x"


@pytest.mark.parametrize("change, expected", [
    (lambda response: response, (201, b"dest", [("A", "1")])),                        # unchanged
    (lambda response: setattr(response, "status", 202) or response, (202, b"dest", [("A", "1")])),
    (lambda response: setattr(response, "body", b"other") or response, (201, b"other", [("A", "1")])),
    (lambda response: response.headers.clear() or response, (201, b"dest", [])),
    (lambda response: interlock.Response(203, "new"), (203, b"new", [])),             # another response
])
def test_a_filter_returns_what_next_gave_changed_or_not(change, expected):
    router = interlock.Router()
    router.add_route("/a", lambda r: interlock.Response(201, "dest", [("A", "1")]))
    router.add_filter(lambda request, next_: change(next_(request)))
    response = router.resolve("/a").response
    assert (response.status, response.body, response.headers) == expected


class Boom(Exception):
    pass


def _raises(*args):
    raise Boom("boom")


class _RaisingInterceptor:
    def intercept(self, _subject):
        raise Boom("boom")


def _filter_raising_after_next(request, next_):
    next_(request)
    raise Boom("boom")


# Every kind of callable the package calls back: how to give it to a router whose route "/a" (named
# "a", loaded from a route file) has a destination that records that it ran.
CALLBACK_KINDS = {
    "destination": lambda router: router.add_route("/b", _raises),
    "default destination": lambda router: router.default(_raises),
    "loaded route's destination": lambda router: router.set_destination("b", _raises),
    "guard": lambda router: router.add_route("/b", lambda r: None, guard=_raises),
    "filter": lambda router: router.add_filter(_raises),
    "filter, after next": lambda router: router.add_filter(_filter_raising_after_next),
    "request interceptor": lambda router: router.add_request_interceptor(_raises),
    "request interceptor object": lambda router: router.add_request_interceptor(_RaisingInterceptor()),
    "request interceptor in a chain": lambda router: router.add_request_interceptor(
        interlock.chain_before(lambda r: None, _raises)),
    "response interceptor": lambda router: router.add_response_interceptor(_raises),
    "response interceptor object": lambda router: router.add_response_interceptor(_RaisingInterceptor()),
    "logger's sink, request side": lambda router: router.add_request_interceptor(interlock.LoggingInterceptor(_raises)),
    "logger's sink, response side": lambda router: router.add_response_interceptor(interlock.LoggingInterceptor(_raises)),
}


@pytest.mark.parametrize("kind", CALLBACK_KINDS)
def test_an_exception_in_any_callback_is_raised_from_resolve(kind):
    """What the README promises: an exception in any callback ends the resolve and is re-raised from
    resolve() (a logger's sink once raised "Exception ignored on calling ctypes callback function"
    and the resolve returned OK)."""
    ran = []
    router = interlock.Router()
    router.load("/b name=b\n" if kind == "loaded route's destination" else "")
    if kind != "destination" and kind != "loaded route's destination" and kind != "guard":
        router.add_route("/b", lambda r: ran.append("destination"))
    CALLBACK_KINDS[kind](router)
    with pytest.raises(Boom):
        router.resolve("/nowhere" if kind == "default destination" else "/b")
    if kind == "logger's sink, request side":
        assert ran == []   # the resolve ended: the destination after it did not run
    assert router.match("/b") is not None   # the router stays usable


@pytest.mark.parametrize("uri, method, later, status", [
    ("/nowhere", None, None, Status.NOT_FOUND),
    ("/a", "POST", None, Status.METHOD_NOT_ALLOWED),
    ("/a", "GET", "stop", Status.STOPPED),
    ("/a", "GET", "redirect", Status.OK),
    ("/g", None, None, Status.GUARDED),
])
def test_a_filter_that_passes_on_what_next_gave_changes_no_outcome(uri, method, later, status):
    seen = []
    router = interlock.Router()
    router.add_route("GET /a", lambda r: "a")
    router.add_route("/b", lambda r: "b")
    router.add_route("/g", lambda r: "g", guard=lambda r: False)

    @router.filter
    def outer(request, next_):
        response = next_(request)
        seen.append(response.status)
        return response

    @router.filter
    def decides(request, next_):
        if later == "stop":
            return None
        if later == "redirect" and request.path == "/a":
            return request.redirect("/b")
        return next_(request)

    result = router.resolve(uri, method)
    assert result.status is status
    assert [t.decision for t in result.trace if t.name == "outer"] == ["continue"] * len(seen)
    if status is Status.OK:
        assert result.response.body == b"b" and result.redirects == ["/b"]


def test_a_filter_whose_redirect_fails_is_in_the_trace():
    router = interlock.Router()
    router.add_route("/a", lambda r: "a")

    @router.filter
    def mover(request, next_):
        return request.redirect_to("nowhere")

    result = router.resolve("/a")
    assert result.status is Status.ERROR and "nowhere" in result.error
    assert [(t.stage, t.name, t.decision) for t in result.trace] == [
        ("match", "/a", "/a"), ("filter", "mover", f"error: {result.error}")]


@pytest.mark.parametrize("returned, status, body", [
    (interlock.Response(401, b"no", [("WWW-Authenticate", "Bearer")]), 401, b"no"),
    (403, 403, b""),
    ("closed", 200, b"closed"),
    (b"closed", 200, b"closed"),
])
def test_a_filter_that_stops_answers_with_what_it_returned(returned, status, body):
    router = interlock.Router()
    ran = []
    router.add_route("/a", lambda request: ran.append("destination"))
    router.add_filter(lambda request, next: returned)
    result = router.resolve("/a")
    assert result.status is Status.STOPPED and ran == []
    assert (result.response.status, result.response.body) == (status, body)
    if isinstance(returned, interlock.Response):
        assert result.response.headers == [("WWW-Authenticate", "Bearer")]


def test_a_filter_that_stops_returning_another_type_is_a_type_error():
    router = interlock.Router()
    router.add_route("/a")
    router.add_filter(lambda request, next: 1.5)
    with pytest.raises(TypeError, match="a filter that stops returns None, an int, str, bytes or Response, not float"):
        router.resolve("/a")


@pytest.mark.parametrize("returned", [401, "replaced", b"replaced"])
def test_a_filter_that_called_next_and_returns_a_status_or_body_is_a_type_error(returned):
    router = interlock.Router()
    router.add_route("/a", lambda request: "a")
    router.add_filter(lambda request, next: (next(request), returned)[1])
    with pytest.raises(TypeError, match=f"a filter that called next\\(\\) returns None or a Response, not {type(returned).__name__}"):
        router.resolve("/a")
    router2 = interlock.Router()
    router2.add_route("/a", lambda request: "a")
    router2.add_filter(lambda request, next: next(request))
    assert router2.resolve("/a").response.body == b"a"
