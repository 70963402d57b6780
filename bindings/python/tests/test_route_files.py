"""Route files from Python: Router.load (text, bytes, a path), all or nothing with the library's
error placed in the text (and in the file), binding destinations to loaded routes by name or id
(set_destination, @router.destination) and letting go of them, a loaded route's values
(route_value), and the arguments' types."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

import interlock

ROUTES = """\
GET /users/:id            name=user      owner=accounts
# the settings screen
myapp://settings/profile  name=settings  tier=gold   # a comment after the pairs

/health
"""


class Counted:
    """A destination whose releases are counted (`released`: its label, once per release)."""

    released: list[str] = []

    def __init__(self, label: str) -> None:
        self.label = label
        weakref.finalize(self, Counted.released.append, label)

    def __call__(self, request):
        return f"{self.label} {request.params.get('id', '')}".strip()


def released() -> list[str]:
    gc.collect()
    return list(Counted.released)


@pytest.fixture
def router():
    with interlock.Router() as router:
        yield router


# ----------------------------------------------------------------------------------------------
# Loading


def loaded_routes(router):
    return [tuple(route) for route in router.routes]


def test_load_text_adds_every_route_and_returns_their_ids(router):
    first = router.add_route("/before")
    ids = router.load(ROUTES)
    assert ids == [first + 1, first + 2, first + 3]
    assert loaded_routes(router) == [(first, None, "/before"), (ids[0], "user", "GET /users/:id"),
                                     (ids[1], "settings", "myapp://settings/profile"), (ids[2], None, "/health")]
    assert router.match("/users/7", "GET") == (ids[0], "user", "GET /users/:id", {"id": "7"})
    assert router.route_id("settings") == ids[1]
    assert router.add_route("/after") == ids[2] + 1


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview"])
def test_load_bytes(router, kind):
    data = ROUTES.encode()
    given = {"bytes": data, "bytearray": bytearray(data), "memoryview": memoryview(data)}[kind]
    assert router.load(given) == [1, 2, 3]
    assert router.routes["user"].pattern == "GET /users/:id"


def test_load_a_path_given_as_a_path_or_as_a_str(router, tmp_path):
    file = tmp_path / "routes.txt"
    file.write_text(ROUTES)
    assert router.load(file) == [1, 2, 3]
    other = tmp_path / "more.txt"
    other.write_bytes("GET /caf\u00e9 name=caf\u00e9 label=cr\u00e8me\n".encode())
    assert router.load(str(other)) == [4]
    assert router.routes[4] == (4, "caf\u00e9", "GET /caf\u00e9")
    assert router.route_value("caf\u00e9", "label") == "cr\u00e8me"


def test_a_relative_str_path_is_read_from_the_working_directory(router, tmp_path, monkeypatch):
    (tmp_path / "routes.txt").write_text("/from-file name=f\n")
    monkeypatch.chdir(tmp_path)
    assert router.load("routes.txt") == [1]
    assert router.routes[1].pattern == "/from-file"


def test_how_a_str_is_told_from_a_path(router, tmp_path):
    # A str with a line break is text, even if its first line names a file.
    file = tmp_path / "routes.txt"
    file.write_text("/in-the-file\n")
    assert router.load(f"{file}\n") == [1]
    assert router.routes[1].pattern == str(file)
    # A str naming a directory, or nothing, is text: one route (a Path would be an OSError).
    assert router.load(str(tmp_path / "missing.txt")) == [2]
    assert router.routes[2].pattern == str(tmp_path / "missing.txt")
    with pytest.raises(FileNotFoundError):
        router.load(tmp_path / "missing2.txt")
    with pytest.raises(IsADirectoryError):
        router.load(tmp_path)
    assert len(router) == 2


def test_comments_blank_lines_and_empty_text_add_nothing(router):
    assert router.load("") == []
    assert router.load(b"") == []
    assert router.load("# only a comment\n\n   \n") == []
    assert len(router) == 0 and router.add_route("/a") == 1


def test_a_request_kept_past_its_route_keeps_the_routes_name(router):
    router.load("GET /users/:id name=user\n")
    kept = []
    router.set_destination("user", kept.append)     # kept unread: its fields are read later
    router.resolve("/users/7", "GET")
    router.remove_route("user")
    assert (kept[0].route, kept[0].route_id, kept[0].params) == ("user", 1, {"id": "7"})


def test_a_loaded_route_without_a_destination_resolves_to_an_empty_200(router):
    router.load("GET /users/:id name=user\n")
    result = router.resolve("/users/7", "GET")
    assert result.status is interlock.Status.OK
    assert (result.response.status, result.response.body) == (200, b"")


# ----------------------------------------------------------------------------------------------
# All or nothing, and where the error is


def test_a_bad_line_adds_nothing_and_gives_no_id_away(router):
    router.add_route("/kept", name="kept")
    before = loaded_routes(router)
    text = "GET /a name=a\nGET /b( name=b\n"
    with pytest.raises(interlock.PatternError) as error:
        router.load(text)
    e = error.value
    assert e.message == "line 2, column 7: an optional part must begin with '/'"
    assert str(e) == "line 2, column 7: an optional part must begin with '/' (at byte 20)"
    assert (e.offset, e.line, e.column, e.path, e.code) == (20, 2, 7, None, -2)
    assert text.encode()[e.offset:e.offset + 1] == b"("
    assert loaded_routes(router) == before and len(router) == 1
    with pytest.raises(interlock.UnknownRouteError):
        router.route_id("a")
    assert router.add_route("/next") == 2           # the failed load gave no id away
    assert router.load("GET /a name=a\n") == [3]    # nor did it keep the name


def test_load_returns_the_ids_of_its_routes_in_reused_slots(router):
    """A router that removed routes gives their slots to later ones under new ids: a load's ids
    need not follow the last one given (load assumed they did, and returned ids of no route)."""
    ids = [router.add_route(f"/r{k}") for k in range(4098)]
    for route_id in ids:
        router.remove_route(route_id)
    loaded = router.load("GET /l1 name=l1\nGET /l2\n")
    assert loaded == [(1 << 22) + 1, (1 << 22) + 2]          # slots 0 and 1, one generation on
    assert [router.routes[i].pattern for i in loaded] == ["GET /l1", "GET /l2"]
    assert router.route_id("l1") == loaded[0]


def test_a_conflict_with_the_router_or_an_earlier_line(router):
    router.add_route("GET /users/:id", name="user")
    with pytest.raises(interlock.ConflictError) as error:
        router.load("/ok name=ok\nGET /users/:other\n")
    e = error.value
    assert e.message.startswith("line 2, column 5: 'GET /users/:other' conflicts with 'GET /users/:id' (route 1)")
    assert (e.offset, e.line, e.column) == (16, 2, 5)
    with pytest.raises(interlock.ConflictError, match=r"line 1, column 5: route name 'user' is already used"):
        router.load("GET /other name=user\n")
    with pytest.raises(interlock.ConflictError, match=r"line 2, column 1: '/x' conflicts with '/x' \(line 1\)") as error:
        router.load(b"/x\n/x\n")
    assert error.value.offset == 3
    assert len(router) == 1 and router.add_route("/next") == 2


def test_an_error_in_a_file_names_the_file_line_and_column(router, tmp_path):
    file = tmp_path / "routes.txt"
    file.write_text("GET /users/:id name=user\n\n# c\nGET /users/:other\n")
    for given in (file, str(file)):
        with pytest.raises(interlock.ConflictError) as error:
            router.load(given)
        e = error.value
        assert str(e).startswith(f"{file}:4:5: 'GET /users/:other' conflicts with 'GET /users/:id' (line 1)")
        assert (e.offset, e.line, e.column, e.path) == (34, 4, 5, str(file))
        assert file.read_bytes()[e.offset:].startswith(b"/users/:other")
    file.write_text("/a\n/b k\n")
    with pytest.raises(interlock.PatternError) as error:
        router.load(file)
    assert error.value.message == f"{file}:2:4: expected key=value after the pattern"
    assert str(error.value) == f"{file}:2:4: expected key=value after the pattern (at byte 6)"
    assert len(router) == 0


def test_bytes_that_are_not_utf8_a_nul_byte_or_a_lone_surrogate(router, tmp_path):
    with pytest.raises(interlock.PatternError, match="line 2, column 5: bytes that are not UTF-8") as error:
        router.load(b"/ok\n/caf\xff\n")
    assert error.value.offset == 8
    file = tmp_path / "latin1.txt"
    file.write_bytes("/ok\n/caf\u00e9\n".encode("latin-1"))
    with pytest.raises(interlock.PatternError, match=f"^{file}:2:5: bytes that are not UTF-8"):
        router.load(file)
    with pytest.raises(interlock.PatternError, match="line 1, column 3: NUL byte") as error:
        router.load("/a\0b\n")
    assert error.value.offset == 2
    with pytest.raises(interlock.PatternError, match="line 1, column 4: bytes that are not UTF-8") as error:
        router.load("/\u00e9\ud800 name=x\n")       # the offset counts bytes: é is two
    assert error.value.offset == 3
    assert len(router) == 0


# ----------------------------------------------------------------------------------------------
# Destinations bound by name or id


def test_binding_destinations_by_name_then_resolving(router):
    router.load(ROUTES)

    @router.destination("user")
    def user(request):
        return f"user {request.params['id']} ({request.route})"

    assert user.route_id == router.route_id("user")
    router.set_destination(router.route_id("settings"), lambda request: "settings")
    router.set_destination("settings", lambda request: "settings, again")
    assert router.resolve("/users/7", "GET").response.body == b"user 7 (user)"
    assert router.resolve("myapp://settings/profile").response.body == b"settings, again"
    assert router.resolve("/users/7", "POST").status is interlock.Status.METHOD_NOT_ALLOWED


def test_set_destination_replaces_an_added_routes_destination(router):
    route = router.add_route("/a", lambda request: "old")
    router.set_destination(route, lambda request: "new")
    assert router.resolve("/a").response.body == b"new"


def test_binding_to_an_unknown_or_removed_route(router):
    router.load("/a name=a\n")
    with pytest.raises(interlock.UnknownRouteError, match="no route is named 'nope'"):
        router.set_destination("nope", lambda request: None)
    with pytest.raises(interlock.UnknownRouteError, match="no route is named 'nope'"):
        router.destination("nope")
    with pytest.raises(interlock.UnknownRouteError, match="no route has id 9"):
        router.set_destination(9, lambda request: None)
    router.remove_route("a")
    with pytest.raises(interlock.UnknownRouteError, match="route 1 was removed"):
        router.set_destination(1, lambda request: None)
    assert router._held == {}                       # nothing held for what the library refused


def test_a_destination_that_is_not_callable_is_a_type_error_at_the_call(router):
    router.load("/a name=a\n")
    with pytest.raises(TypeError, match="fn \\(the destination\\) must be callable, not int"):
        router.set_destination("a", 3)
    bind = router.destination("a")
    with pytest.raises(TypeError, match="must be callable, not str"):
        bind("not a function")
    with pytest.raises(TypeError, match="name_or_id must be a route's id \\(int\\) or name \\(str\\), not function"):
        router.destination(lambda request: None)          # @router.destination without a name
    with pytest.raises(TypeError, match="name_or_id must be .*, not NoneType"):
        router.set_destination(None, lambda request: None)
    assert router.resolve("/a").response.body == b"" and router._held == {}


def test_a_replaced_destination_is_released_once(router):
    Counted.released.clear()
    router.load("/users/:id name=user\n/other name=other\n")
    router.set_destination("user", Counted("first"))
    router.set_destination("other", Counted("other"))
    assert router.resolve("/users/1").response.body == b"first 1"
    assert released() == []
    router.set_destination("user", Counted("second"))
    assert released() == ["first"]
    assert router.resolve("/users/2").response.body == b"second 2"
    router.destination("user")(Counted("third"))
    assert released() == ["first", "second"]
    assert router.resolve("/users/3").response.body == b"third 3"


def test_bound_destinations_are_released_when_the_route_is_removed_or_the_router_closed():
    Counted.released.clear()
    router = interlock.Router()
    router.load("/a name=a\n/b name=b\n")
    router.set_destination("a", Counted("a"))
    router.set_destination("b", Counted("b"))
    router.remove_route("a")
    assert released() == ["a"]
    router.close()
    assert released() == ["a", "b"]
    assert router._held == {}


def test_a_destination_replaced_during_its_own_resolve_is_released_when_the_resolve_ends(router):
    Counted.released.clear()
    router.load("/a name=a\n")

    class Replacing(Counted):
        def __call__(self, request):
            router.set_destination("a", Counted("next"))
            seen.append(released())
            return "replaced"

    seen: list[list[str]] = []
    router.set_destination("a", Replacing("replacing"))
    assert router.resolve("/a").response.body == b"replaced"
    assert seen == [[]]                                     # still running when it was replaced
    assert released() == ["replacing"]
    assert router.resolve("/a").response.body == b"next"


# ----------------------------------------------------------------------------------------------
# A loaded route's values


def test_route_value(router):
    router.load(ROUTES)
    assert router.route_value("user", "owner") == "accounts"
    assert router.route_value(router.route_id("settings"), "tier") == "gold"
    assert router.route_value("user", "tier") is None         # no such key
    assert router.route_value("user", "name") is None         # the name is not data
    assert router.route_value("user", "") is None
    assert router.route_value(3, "owner") is None             # a loaded route without pairs
    added = router.add_route("/added", data={"owner": "x"})
    assert router.route_value(added, "owner") is None         # data that is no route file's


def test_route_value_of_an_unknown_or_removed_route(router):
    router.load("/a name=a k=v\n")
    with pytest.raises(interlock.UnknownRouteError, match="no route is named 'b'"):
        router.route_value("b", "k")
    with pytest.raises(interlock.UnknownRouteError, match="no route has id 7"):
        router.route_value(7, "k")
    router.remove_route("a")
    with pytest.raises(interlock.UnknownRouteError, match="route 1 was removed"):
        router.route_value(1, "k")


def test_a_loaded_routes_data_is_read_with_route_value_not_match_data(router):
    router.load("GET /users/:id name=user owner=accounts\n")
    seen = []
    router.set_destination("user", lambda request: seen.append(request.route_data))
    assert router.match("/users/7", "GET").data is None
    result = router.resolve("/users/7", "GET")
    assert seen == [None] and result.response.request.route_data is None
    router.set_route_data("user", {"team": "people"})         # replaces the file's data
    assert router.match("/users/7", "GET").data == {"team": "people"}
    assert router.route_value("user", "owner") is None


# ----------------------------------------------------------------------------------------------
# Arguments


@pytest.mark.parametrize("given", [None, 3, 1.5, ["/a"], object()])
def test_load_takes_a_str_bytes_or_a_path(router, given):
    with pytest.raises(TypeError, match=f"path_or_text must be a str .*, bytes or an os.PathLike, not {type(given).__name__}"):
        router.load(given)


def test_route_value_arguments(router):
    router.load("/a name=a k=v\n")
    with pytest.raises(TypeError, match="key must be a str, not bytes"):
        router.route_value("a", b"k")
    with pytest.raises(TypeError, match="key must be a str, not NoneType"):
        router.route_value("a", None)
    with pytest.raises(interlock.InvalidArgumentError, match="key: NUL byte at offset 1"):
        router.route_value("a", "k\0")
    with pytest.raises(TypeError, match="name_or_id must be .*, not bool"):
        router.route_value(True, "k")
    with pytest.raises(interlock.InvalidArgumentError, match="name_or_id 4294967296 is outside"):
        router.route_value(2**32, "k")


def test_a_closed_router_refuses():
    router = interlock.Router()
    router.load("/a name=a\n")
    router.close()
    for call in (lambda: router.load("/b\n"), lambda: router.set_destination("a", print),
                 lambda: router.route_value("a", "k")):
        with pytest.raises(interlock.InvalidArgumentError, match="router is closed"):
            call()


# ----------------------------------------------------------------------------------------------
# Threads


def test_the_ids_load_returns_are_its_routes_while_other_threads_add_routes(router):
    """load knows its ids from the last one given before it: another thread's add_route must not
    come in between."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def add(worker: int) -> None:
        try:
            i = 0
            while not stop.is_set():
                router.add_route(f"/added/{worker}/{i}")
                i += 1
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=add, args=(w,)) for w in range(3)]
    for thread in threads:
        thread.start()
    try:
        for turn in range(150):
            lines = [f"/loaded/{turn}/{i} name=r{turn}_{i}" for i in range(5)]
            ids = router.load("\n".join(lines))
            assert [router.routes[i] for i in ids] == [
                (i, f"r{turn}_{k}", f"/loaded/{turn}/{k}") for k, i in enumerate(ids)]
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []


def test_explain_names_the_winner_the_routes_tried_and_why():
    router = interlock.Router()
    router.load("GET /users/:id name=user\nGET /users/:id(\\d+) name=numeric\nPOST /users/:id\n")
    e = router.explain("/users/42", "GET")
    assert e["answer"] == {"route": 2, "params": {"id": "42"}}
    assert e["reason"] == "at segment 2, a parameter constrained by (\\d+) before a parameter (route 1)"
    assert [(c["route"], c["takes"]) for c in e["candidates"]] == [(2, True), (1, False), (3, False)]
    assert e["candidates"][2]["why_not"] == "method POST only"
    assert router.explain("/users/42", "PUT")["answer"] == {"status": "method not allowed", "allowed": ["GET", "POST"]}
    with pytest.raises(interlock.URIError) as raised:
        router.explain("/a%zz")
    assert raised.value.offset == 2
    with pytest.raises(TypeError):
        router.explain(7)  # type: ignore[arg-type]
