import gc
import sys
import threading
import weakref

import pytest

import interlock
from interlock import Status


class Boom(Exception):
    pass


@pytest.mark.parametrize("stage", ["destination", "filter", "guard", "request", "response", "default"])
def test_exceptions_from_every_kind_of_callback_are_reraised(stage):
    router = interlock.Router()

    def fail(*_args):
        raise Boom(f"from {stage}")

    def ok(*_args):
        return None

    router.add_route("/a", fail if stage == "destination" else ok, guard=fail if stage == "guard" else (lambda r: True))
    router.add_filter(fail if stage == "filter" else (lambda req, nxt: nxt(req)))
    router.add_request_interceptor(fail if stage == "request" else ok)
    router.add_response_interceptor(fail if stage == "response" else ok)
    router.default(fail if stage == "default" else ok)
    with pytest.raises(Boom, match=f"from {stage}") as info:
        router.resolve("/nothing" if stage == "default" else "/a")
    # The traceback reaches into the callback that raised.
    assert any(frame.name == "fail" for frame in info.traceback)
    # The router stays usable: the same resolve fails the same way again, lookups work.
    with pytest.raises(Boom):
        router.resolve("/nothing" if stage == "default" else "/a")
    assert router.match("/a").route_id == 1


def test_callbacks_stay_alive_and_are_released_with_the_router():
    router = interlock.Router()

    class Destination:
        def __call__(self, request):
            return "alive"

    destination = Destination()
    ref = weakref.ref(destination)
    router.add_route("/a", destination)
    router.add_request_interceptor(lambda r: None)
    del destination
    gc.collect()
    assert ref() is not None
    assert router.resolve("/a").response.body == b"alive"
    del router
    gc.collect()
    assert ref() is None


def test_resolving_from_several_threads():
    router = interlock.Router()
    router.add_route("/n/:n", lambda r: r.params["n"] + ":" + str(r.state.setdefault("k", r.params["n"])))
    router.add_request_interceptor(lambda r: r.metadata.update(seen="1"))
    errors = []

    def work(t):
        try:
            for i in range(300):
                n = f"{t}-{i}"
                result = router.resolve(f"/n/{n}")
                assert result.response.body == f"{n}:{n}".encode()
                assert router.match(f"/n/{n}").params == {"n": n}
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_many_resolves_keep_memory_flat():
    router = interlock.Router()
    router.add_route("/u/:id", lambda r: "x" * 100)
    router.add_request_interceptor(lambda r: r.metadata.update(k="v"))
    router.add_response_interceptor(lambda resp: None)
    router.add_filter(lambda req, nxt: nxt(req))
    for i in range(3000):
        router.resolve(f"/u/{i}")
        router.match(f"/u/{i}")
    gc.collect()
    before = rss_kib()
    for i in range(30000):
        router.resolve(f"/u/{i}")
        router.match(f"/u/{i}")
    gc.collect()
    growth = rss_kib() - before
    assert growth < 4096, f"RSS grew by {growth} KiB over 30,000 resolves"
    assert sys.getrefcount(router) < 10


def _nul_router():
    router = interlock.Router()
    router.add_route("GET /a", lambda req: None)
    router.add_route("GET /u/:id", lambda req: None, name="user")
    return router


@pytest.mark.parametrize("what, call", [
    ("pattern", lambda r: r.add_route("GET /b\0/c", lambda req: None)),
    ("route name", lambda r: r.add_route("GET /b", lambda req: None, name="bb\0c")),
    ("route name", lambda r: r.url_for("us\0er", id="x")),
    ("parameter 'id'", lambda r: r.url_for("user", id="a\0b")),
    ("method", lambda r: r.match("/a", "GET\0X")),
    ("method", lambda r: r.resolve("/a", "GET\0X")),
    ("method", lambda r: r.match_many(["/a"], "GET\0X")),
])
def test_a_nul_byte_in_a_string_for_the_library_is_refused_with_its_offset(what, call):
    # C strings end at a NUL: passed on, "GET /b\0/c" would have added "GET /b", and
    # url_for(id="a\0b") built "/u/a".
    router = _nul_router()
    offset = {"pattern": 6, "route name": 2, "parameter 'id'": 1, "method": 3}[what]
    with pytest.raises(interlock.InvalidArgumentError, match=f"^{what}: NUL byte at offset {offset}$"):
        call(router)
    # Nothing was added or changed: the table answers as before.
    assert router.match("/b") is None
    assert router.match("/a", "GET").route_id == 1
    assert router.url_for("user", id="x") == "/u/x"


def _set_metadata(req):
    req.metadata["k"] = "v\0w"


def _set_param(req):
    req.params["id"] = "a\0b"


@pytest.mark.parametrize("what, install, uri", [
    ("header 'X-A'", lambda r: r.add_route("GET /h", lambda req: interlock.Response(200, b"", [("X-A", "v\0w")])), "/h"),
    ("metadata 'k'", lambda r: r.add_request_interceptor(_set_metadata), "/u/x"),
    ("parameter 'id'", lambda r: r.add_request_interceptor(_set_param), "/u/x"),
    ("redirect URI", lambda r: r.add_filter(lambda req, nxt: req.redirect("/\0b")), "/u/x"),
])
def test_a_nul_byte_a_callback_hands_back_fails_the_resolve_naming_it(what, install, uri):
    router = _nul_router()
    install(router)
    with pytest.raises(interlock.InvalidArgumentError, match=f"^{what}: NUL byte at offset 1$"):
        router.resolve(uri)


def test_an_empty_method_means_any_method_at_every_door():
    # One meaning for the whole library: None and "" (NULL and "" in C) are any method.
    router = interlock.Router()
    router.add_route("POST /a", lambda req: None)
    assert router.match("/a", "") == router.match("/a", None) == router.match("/a", "POST")
    assert router.match_many(["/a", "/a"], "")[1] == router.match("/a")
    assert [m.route_id for m in router.match_many(["/a", "/a", "/a"], ["POST", "", None])] == [1, 1, 1]
    assert router.resolve("/a", "").status == Status.OK
    assert router.match("/a", None) == router.match("/a") == router.match("/a", "POST")
    assert router.match_many(["/a"])[0] == router.match_many(["/a"], [None])[0] == router.match("/a")
    assert router.resolve("/a", None).status == router.resolve("/a").status == Status.OK
    assert router.resolve("/a", "GET").status == Status.METHOD_NOT_ALLOWED


@pytest.mark.parametrize("what, call, offset", [
    ("pattern", lambda r: r.add_route("GET /b\ud800/c", lambda req: None), 6),
    ("route name", lambda r: r.add_route("GET /b", lambda req: None, name="b\udfffc"), 1),
    ("parameter 'id'", lambda r: r.url_for("user", id="é\ud800"), 2),
    ("method", lambda r: r.match("/a", "GET\ud800"), 3),
    ("method", lambda r: r.resolve("/a", "G\udc00"), 1),
    ("method 1", lambda r: r.match_many(["/a", "/a"], ["GET", "P\ud800"]), 1),
])
def test_a_lone_surrogate_in_a_string_for_the_library_is_refused_with_its_offset(what, call, offset):
    # UTF-8 cannot hold a lone surrogate: the library's error, not a UnicodeEncodeError.
    router = _nul_router()
    with pytest.raises(interlock.InvalidArgumentError,
                       match=f"^{what}: lone surrogate U\\+D[89A-F][0-9A-F]{{2}} is not valid UTF-8 at offset {offset}$"):
        call(router)
    assert router.match("/b") is None
    assert router.match("/a", "GET").route_id == 1


@pytest.mark.parametrize("call, what, offset", [
    (lambda r: r.match("/u/é\ud800"), "URI", 5),
    (lambda r: r.resolve("/u/\udbff"), "URI", 3),
    (lambda r: r.match_many(["/a", "/u/x\ud800y"]), "URI 1", 4),
])
def test_a_lone_surrogate_in_a_uri_is_a_malformed_uri_at_its_byte_offset(call, what, offset):
    router = _nul_router()
    with pytest.raises(interlock.URIError, match=f"^{what}: lone surrogate U\\+D[89A-F][0-9A-F]{{2}} is not valid UTF-8") as e:
        call(router)
    assert e.value.offset == offset and e.value.code == -4     # ILK_EURI


@pytest.mark.parametrize("reason, kept", [
    ("no\0pe", "no\\x00pe"),          # a NUL byte would cut it short
    ("no\ud800pe", "no\\ud800pe"),    # UTF-8 cannot hold a lone surrogate
    (42, "42"),                       # not text
])
def test_an_abort_reason_is_kept_whole_as_text(reason, kept, monkeypatch):
    # An exception escaping the callback plumbing reaches sys.unraisablehook, and the library
    # gets no answer (ctypes hands it an undefined value): none may.
    escaped = []
    monkeypatch.setattr(sys, "unraisablehook", escaped.append)
    router = interlock.Router()
    router.add_route("GET /a", lambda req: None)

    def stop(req):
        raise interlock.Abort(reason)
    router.add_request_interceptor(stop)
    result = router.resolve("/a")
    assert result.status == Status.ABORTED
    assert result.error == kept
    assert escaped == []


def test_an_error_whose_text_cannot_be_made_still_ends_the_resolve_as_it_should(monkeypatch):
    escaped = []
    monkeypatch.setattr(sys, "unraisablehook", escaped.append)

    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no text")

    def fail(req):
        raise Unprintable()
    other = interlock.Router()
    other.add_route("GET /a", fail)
    other.add_request_interceptor(lambda req: None)
    with pytest.raises(Unprintable):
        other.resolve("/a")
    assert other.resolve("/none").status == Status.NOT_FOUND
    assert escaped == []


def test_match_limit_bounds_a_hostile_constraint() -> None:
    router = interlock.Router()
    router.add_route("/r/:x((a+)+b)")
    router.add_route("/s/:slug([a-z]+(?:-[a-z]+)*)")
    hostile = "/r/" + "a" * 60 + "bc"
    with pytest.raises(interlock.LimitError, match=r"route '/r/:x\(\(a\+\)\+b\)'"):
        router.match(hostile)
    slug = "/s/" + "ab-" * 1300 + "ab"
    assert router.match(slug) is not None
    router.set_match_limit(100)
    with pytest.raises(interlock.LimitError, match="limit 100 steps"):
        router.match(slug)
    router.set_match_limit(0)
    assert router.match(slug) is not None
    with pytest.raises(TypeError, match="limit"):
        router.set_match_limit("100")  # type: ignore[arg-type]
    with pytest.raises(interlock.InvalidArgumentError):
        router.set_match_limit(-1)


def test_a_resolve_lets_other_threads_run_while_the_library_works():
    """A resolve that runs no Python callback lets go of the GIL over the library's work. Here that
    work is the first lookup after 20,000 routes were added, which compiles them, and nothing
    matches (no callback runs). The switch interval is made so long that this thread never hands
    the GIL over on its own: the other thread, let through its gate just before the resolve, can
    run only while this thread lets go of the GIL, which it does only in the resolve's library call
    (with the GIL kept over that call, the other thread could not run until the resolve returned,
    whatever the call took). No time is measured; a resolve too quick for the other thread to wake
    is tried again with a new table, a few times."""
    interval = sys.getswitchinterval()
    ran_during: list[bool] = []
    for attempt in range(5):
        router = interlock.Router()
        for i in range(20000):
            router.add_route(f"GET /t{attempt}/r{i}/:x")
        gate = threading.Lock()
        gate.acquire()
        ran: list[int] = []

        def other() -> None:
            with gate:
                ran.append(1)
        thread = threading.Thread(target=other)
        gc.disable()               # no finalizer (a router's free lets go of the GIL) in between
        sys.setswitchinterval(1000.0)
        try:
            thread.start()         # returns once `other` runs; it then waits at the gate
            gate.release()
            result = router.resolve("/none")
            ran_during.append(bool(ran))     # read before anything else lets go of the GIL
        finally:
            sys.setswitchinterval(interval)
            gc.enable()
        thread.join(timeout=60)
        assert not thread.is_alive() and ran == [1]
        assert result.status is Status.NOT_FOUND and result.trace[0].stage == "match"
        router.close()
        if ran_during[-1]:
            break
    assert ran_during[-1], f"no other thread ran during any of {len(ran_during)} resolves"


# Every byte of a URI is checked, wherever it stands, and every door answers alike: the user info
# (which takes no part in routing) was skipped, so a NUL byte before the "@" was matched, cut
# request.uri short and added a field to the packed result (Router.resolve raised a bare
# ValueError), and an escape sequence reached request.uri as it was.
def _doors(router: interlock.Router):
    """Each door a URI goes through, by name: the accelerator's match (when built) and the ctypes
    path's, resolve, explain and the batch."""
    doors = {
        "match": router.match,
        "ctypes match": lambda uri: interlock.Router._match_ctypes(router, uri),
        "resolve": router.resolve,
        "explain": router.explain,
    }
    return doors


@pytest.mark.parametrize("uri, words", [
    ("https://a\0b@x.example.com/w/v", "control byte in user info"),
    ("https://a\x1b[2J\xff@x.example.com/w/v", "control byte in user info"),
    ("https://a%00@x.example.com/w/v", "NUL"),
    ("https://a%C3%28@x.example.com/w/v", "user info is not valid UTF-8"),
    ("https://a%2F.example.com/w/v", "decodes to a byte a host name cannot hold"),
    ("https://x\x7f.example.com/w/v", "invalid character in host"),
    ("https://a..example.com/w/v", "empty label in host"),
    ("https://[fe80::1%25eth0]/w/v", "zone identifier"),
])
def test_every_byte_of_a_uri_is_checked_at_every_door(uri, words):
    router = interlock.Router()
    router.add_route("https://*.example.com/w/:a", lambda req: None)
    router.add_route("/*rest", lambda req: None)
    answers = {}
    for name, door in _doors(router).items():
        with pytest.raises(interlock.URIError) as e:
            door(uri)
        answers[name] = (e.value.message, e.value.offset, e.value.code)
    if "\0" not in uri:       # the batch separates URIs by NUL bytes
        with pytest.raises(interlock.URIError) as e:
            router.match_many(["/ok", uri])
        answers["batch"] = (e.value.message.removeprefix("URI 1: "), e.value.offset, e.value.code)
    assert len(set(answers.values())) == 1, answers
    message, offset, code = answers["match"]
    assert words in message and code == -4          # ILK_EURI
    assert offset == (uri.index("\x7f") if "\x7f" in uri else uri.index("[fe80::1") + 8 if "fe80" in uri
                      else uri.index("..") + 1 if ".." in uri else 9)


@pytest.mark.parametrize("uri, host, route", [
    ("https://%61dmin.example.com/x", "admin.example.com", "admin"),
    ("https://admin.example.com./x", "admin.example.com", "admin"),
    ("https://%41DMIN.Example.COM.:443/x", "admin.example.com", "admin"),
    ("https://[0:0:0:0:0:0:0:1]/x", "[::1]", "loopback"),
    ("https://other.example.com/x", "other.example.com", "any"),
])
def test_a_host_spelt_otherwise_is_the_same_host_at_every_door(uri, host, route):
    router = interlock.Router()
    ids = {"admin": router.add_route("https://Admin.Example.com./*rest", lambda req: None),
           "loopback": router.add_route("https://[::1]/*rest", lambda req: None),
           "any": router.add_route("/*rest", lambda req: None)}
    assert router.match(uri).route_id == ids[route]
    assert router._match_ctypes(uri).route_id == ids[route]
    assert router.match_many([uri])[0].route_id == ids[route]
    assert router.explain(uri)["answer"]["route"] == ids[route]
    request = router.resolve(uri).response.request
    assert request.host == host and request.uri == uri and request.route_id == ids[route]


def _request_text(router: interlock.Router, uri: str) -> list[str]:
    """The packed request text a resolve of `uri` gives, split (as _wire reads it)."""
    from interlock import _wire
    seen = []
    router.add_request_interceptor(lambda req: seen.append(_wire.request_text(req._lent[0])) and None)
    router.resolve(uri)
    return seen[0]


def test_a_packed_text_that_does_not_read_as_its_grammar_says_raises_interlock_error():
    # A field holding a NUL byte shifts every field after it: the decoders say so with an
    # interlock.Error, never a bare ValueError or IndexError, nor fields read from wrong places.
    import random
    from interlock import _wire
    router = interlock.Router()
    router.add_route("https://*.example.com/w/:a", lambda req: None)
    parts = _request_text(router, "https://x.example.com/w/v?k=v#f")
    assert _wire.request_fields(parts, 0)[0] == "https://x.example.com/w/v?k=v#f"
    # The text the NUL of "https://a\0b@x.example.com/w/v" made, before the user info was checked.
    shifted = ["1https://a", "b@x.example.com/w/v"] + parts[1:]
    with pytest.raises(interlock.Error, match="request text is malformed"):
        _wire.request_fields(shifted, 0)
    rng = random.Random(37)
    for _ in range(2000):
        mutated = list(parts)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(mutated) + 1)
            choice = rng.random()
            if choice < 0.4:
                mutated.insert(at, rng.choice(["", "0", "1", "1x", "7", "-1", "x"]))
            elif choice < 0.8 and mutated:
                del mutated[min(at, len(mutated) - 1)]
            elif mutated:
                mutated[min(at, len(mutated) - 1)] = rng.choice(["", "0", "1", "12", "99999", "1a", "a"])
        try:
            _wire.request_fields(mutated, 0)
        except interlock.Error:
            pass
