import re

import pytest

import interlock


def filled(path: str, i: int) -> tuple[str, dict[str, str]]:
    values: dict[str, str] = {}

    def fill(m: re.Match) -> str:
        values[m.group(1)] = f"v-{m.group(1)}-{i}"
        return values[m.group(1)]

    return re.sub(r":(\w+)", fill, path), values


def test_github_routes_through_match_and_match_many(github_routes):
    router = interlock.Router()
    for i, (method, path) in enumerate(github_routes):
        assert router.add_route(f"{method} {path}", name=f"r{i}") == i + 1
    assert len(router) == 203
    uris, expected = [], []
    for i, (method, path) in enumerate(github_routes):
        uri, values = filled(path, i)
        m = router.match(uri, method)
        assert m is not None and m.route_id == i + 1 and m.params == values
        assert m.route == f"r{i}" and m.pattern == f"{method} {path}"
        if method == "GET":
            uris.append(uri)
            expected.append((i + 1, values))
    many = router.match_many(uris + ["/nothing/here"], "GET")
    assert [(m.route_id, m.params) for m in many[:-1]] == expected
    assert many[-1] is None
    assert many.route_ids() == [e[0] for e in expected] + [0]
    assert len(many) == len(uris) + 1 and many[-2] == many[len(uris) - 1]
    # The answers are copied out of the library: the next batch on this thread does not change them.
    router.match_many(["/nothing", uris[0]], "GET")
    assert [(m.route_id, m.params) for m in many[:-1]] == expected
    assert many == list(many) and many != list(many)[1:]
    with pytest.raises(IndexError):
        many[len(uris) + 1]
    with pytest.raises(interlock.MethodNotAllowedError) as not_allowed:
        router.match("/repos/a/b/stargazers", "PATCH")
    assert set(not_allowed.value.allowed) == {m for m, p in github_routes if p == "/repos/:owner/:repo/stargazers"}
    # Every route under its own method in one call: the same answers as one match at a time.
    every = [filled(path, i)[0] for i, (_, path) in enumerate(github_routes)]
    methods = [method for method, _ in github_routes]
    both = router.match_many(every, methods)
    assert both.route_ids() == [m.route_id for m in (router.match(u, me) for u, me in zip(every, methods))]
    assert both.route_ids() == list(range(1, 204))
    assert [m.params for m in both] == [filled(path, i)[1] for i, (_, path) in enumerate(github_routes)]


def test_match_many_takes_one_method_or_one_per_uri():
    router = interlock.Router()
    router.add_route("GET /u/:id")
    router.add_route("POST /u/:id")
    router.add_route("/any")
    uris = ["/u/1", "/u/2", "/any", "/u/3"]
    ids = lambda answers: [m and m.route_id for m in answers]
    assert ids(router.match_many(uris, ["GET", "POST", None, "DELETE"])) == [1, 2, 3, None]
    assert ids(router.match_many(uris, ("POST", "GET", "", "POST"))) == [2, 1, 3, 2]
    assert ids(router.match_many(uris, [None, "POST", "GET", None])) == [1, 2, 3, 1]
    assert ids(router.match_many(uris, [None] * 4)) == ids(router.match_many(uris)) == [1, 1, 3, 1]
    assert ids(router.match_many(uris, [""] * 4)) == ids(router.match_many(uris, "")) == [1, 1, 3, 1]
    assert ids(router.match_many(uris, "POST")) == [2, 2, 3, 2]
    assert ids(router.match_many(["/u/9"], ["POST"])) == [2]
    with pytest.raises(interlock.InvalidArgumentError, match="3 methods for 4 URIs"):
        router.match_many(uris, ["GET", "GET", "GET"])
    with pytest.raises(interlock.InvalidArgumentError, match="method 2"):
        router.match_many(uris, ["GET", "GET", "G T", "GET"])
    with pytest.raises(interlock.InvalidArgumentError, match="method 1: NUL byte at offset 2"):
        router.match_many(uris, ["GET", "GE\0T", "GET", "GET"])
    with pytest.raises(interlock.InvalidArgumentError, match="method: NUL byte at offset 1"):
        router.match_many(uris[:2], "G\0ET")
    with pytest.raises(interlock.URIError, match="URI 1: NUL byte at offset 2"):
        router.match_many(["/u/1", "/u\0/2"], ["GET", "GET"])
    with pytest.raises(interlock.URIError, match="URI 2: bad percent-escape"):
        router.match_many(["/u/1", "/any", "/u/%zz", "/u/%yy"], ["GET", None, "GET", "GET"])


def test_parameters_longer_than_the_match_buffer():
    router = interlock.Router()
    router.add_route("/files/*path")
    router.add_route("/u/:a/:b")
    long = "/".join(f"segment{i:04}" for i in range(600))          # 7,199 bytes of parameter text
    m = router.match("/files/" + long)
    assert m is not None and m.params == {"path": long}
    assert router.match("/u/x/y").params == {"a": "x", "b": "y"}    # the short path again
    assert router.match_many(["/files/" + long])[0].params == {"path": long}
    # Parameter text longer than the URIs (a long name): the batch is copied again, at its size.
    name = "n" * 300
    router.add_route(f"/p/:{name}")
    assert [m.params for m in router.match_many(["/p/1", "/p/2"])] == [{name: "1"}, {name: "2"}]


def test_options():
    loose = interlock.Router(case_insensitive=True)
    loose.add_route("/Users/:id")
    assert loose.match("/uSERS/1") is not None
    strict = interlock.Router(strict_slash=True)
    slash = strict.add_route("/a/")
    plain = strict.add_route("/a")
    assert strict.match("/a/").route_id == slash and strict.match("/a").route_id == plain


def test_errors_carry_messages_and_offsets():
    router = interlock.Router()
    with pytest.raises(interlock.PatternError) as e:
        router.add_route("/a/:id/:id")
    assert e.value.offset == 7 and "duplicate" in e.value.message
    assert isinstance(e.value, interlock.Error) and e.value.code == -2
    router.add_route("GET /users/:id")
    with pytest.raises(interlock.ConflictError, match="GET /users/:id"):
        router.add_route("GET /users/:name")
    with pytest.raises(interlock.URIError) as u:
        router.match("/users/%G1")
    assert u.value.offset == 7
    with pytest.raises(interlock.URIError):
        router.resolve("/users/%4")
    with pytest.raises(interlock.URIError, match="URI 1"):
        router.match_many(["/users/1", "/bad%zz"])
    with pytest.raises(interlock.URIError, match="URI 2: NUL byte at offset 3"):
        router.match_many(["/users/1", "/users/2", "/us\0ers/3"])
    assert list(router.match_many([])) == []
    assert router.match_many(["", "/users/x"])[1].params == {"id": "x"}      # "" is the root path
    with pytest.raises(interlock.InvalidArgumentError):
        router.match("/users/1", "BAD METHOD")


def test_url_for_round_trips():
    router = interlock.Router()
    router.add_route("/search(/:q(/page/:n(\\d+)))", name="search")
    router.add_route("myapp://user/:id(\\d+)", name="user")
    uri = router.url_for("search", q="café au lait", n=2)
    assert uri == "/search/caf%C3%A9%20au%20lait/page/2"
    assert router.match(uri).params == {"q": "café au lait", "n": "2"}
    assert router.url_for("search") == "/search"
    assert router.url_for("user", id=7) == "myapp://user/7"
    with pytest.raises(interlock.InvalidArgumentError, match="constraint"):
        router.url_for("user", id="x")
    with pytest.raises(interlock.UnknownRouteError):
        router.url_for("nope")
    long_value = "x" * 1000
    assert router.url_for("search", q=long_value).endswith(long_value)


def test_url_for_builds_the_variant_holding_exactly_the_parameters_given():
    router = interlock.Router()
    router.add_route("/p(/reviews(/:page(\\d+)))", name="p")
    router.add_route("/q(/reviews)", name="q")
    router.add_route("/dl/:file.:ext", name="dl")
    assert router.url_for("p") == "/p"                       # was /p/reviews
    assert router.url_for("p", page=2) == "/p/reviews/2"
    assert router.url_for("q") == "/q"                       # was /q/reviews, /q never built
    with pytest.raises(interlock.InvalidArgumentError) as error:
        router.url_for("dl", file="a.b", ext="c")
    assert str(error.value).endswith("the values make a URI the route reads differently "
                                     "(a value holds text that separates the parameters of its segment)")


def test_closed_router():
    router = interlock.Router()
    router.close()
    with pytest.raises(interlock.InvalidArgumentError):
        router.match("/a")


def test_parameters_of_every_count_come_back_in_order():
    # Zero to six parameters: the binding builds small dicts one way and larger ones another.
    router = interlock.Router()
    for count in range(7):
        pattern = "/p" + str(count) + "".join(f"/:n{i}" for i in range(count))
        router.add_route(pattern)
    for count in range(7):
        uri = "/p" + str(count) + "".join(f"/v{i}%20x" for i in range(count))
        expected = {f"n{i}": f"v{i} x" for i in range(count)}
        found = router.match(uri)
        assert found is not None and found.params == expected
        assert list(found.params) == [f"n{i}" for i in range(count)]
        batch = router.match_many([uri])
        assert batch[0].params == expected


def test_match_takes_uris_of_every_length_and_refuses_nul_bytes():
    # The binding passes short URIs' lengths from a table and longer ones made per call.
    router = interlock.Router()
    router.add_route("/a/:x")
    for size in (0, 1, 255, 256, 257, 1000, 5000):
        value = "y" * size
        found = router.match("/a/" + value)
        assert (found is not None and found.params == {"x": value}) == (size > 0)
    with pytest.raises(interlock.URIError) as caught:
        router.match("/a/b\0c")
    assert caught.value.offset == 4


def test_matches_on_threads_while_routes_are_added_and_from_inside_a_resolve():
    """`match` keeps the GIL over its call: threads matching while another adds routes (each
    addition makes the next lookup compile) and a destination that matches from inside a resolve
    all get their answers, and nothing waits forever."""
    import sys
    import threading

    router = interlock.Router()
    router.add_route("GET /users/:id", lambda request: router.match(f"/teams/{request.params['id']}", "GET").params["t"])
    router.add_route("GET /teams/:t")
    failures: list[str] = []
    stop = threading.Event()

    def matching(k: int) -> None:
        i = 0
        while not stop.is_set():
            m = router.match(f"/users/{k}-{i}", "GET")
            if m is None or m.params != {"id": f"{k}-{i}"}:
                failures.append(f"thread {k}: /users/{k}-{i} gave {m}")
                return
            result = router.resolve(f"/users/{k}-{i}")
            if result.response.body != f"{k}-{i}".encode():
                failures.append(f"thread {k}: resolve gave {result.response.body!r}")
                return
            i += 1

    def adding() -> None:
        for i in range(300):
            router.add_route(f"GET /added/{i}/:x")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=matching, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        adder = threading.Thread(target=adding)
        adder.start()
        adder.join(timeout=60)
        stop.set()
        for t in threads:
            t.join(timeout=60)
        assert not adder.is_alive() and not any(t.is_alive() for t in threads), "a thread never finished"
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
    assert len(router) == 302
    assert router.match("/added/299/y", "GET").params == {"x": "y"}


def test_every_public_method_of_router_says_what_it_does():
    """help(interlock.Router) documents each method, `with` included (__enter__, __exit__)."""
    names = [name for name, value in vars(interlock.Router).items()
             if callable(value) and (not name.startswith("_") or name in ("__enter__", "__exit__", "__init__"))]
    assert "__enter__" in names and "__exit__" in names
    assert [name for name in names if not (getattr(interlock.Router, name).__doc__ or "").strip()] == []
