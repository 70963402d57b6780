"""The compiled accelerator of `Router.match` (interlock/_speedups.c, through _door.py) against the
ctypes path it falls back on: the same answers and the same errors for the same calls, on tables
that change; INTERLOCK_PURE_PYTHON=1 forcing the ctypes path; a closed or collected router."""

from __future__ import annotations

import copy
import gc
import importlib.util
import inspect
import pickle
import random
import re
import subprocess
import sys
import weakref

import pytest

import interlock
from conftest import PACKAGE, clean_environment

needs_accelerator = pytest.mark.skipif(not interlock.accelerated,
                                       reason="the accelerator is not built (make py-speedups) or INTERLOCK_PURE_PYTHON is set")


class Data:
    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __repr__(self) -> str:
        return f"Data({self.tag!r})"


def outcome(call, *args, **kwargs):
    """What a call gave, comparable across the two paths: the answer with its type and data,
    or the error with its type, message and fields."""
    try:
        answer = call(*args, **kwargs)
    except Exception as error:  # noqa: BLE001
        return ("error", type(error), str(error), getattr(error, "code", None), getattr(error, "offset", None),
                getattr(error, "allowed", None))
    if answer is None:
        return ("none",)
    return ("match", type(answer), tuple(answer), repr(answer), answer.data)


def table(github_routes) -> interlock.Router:
    router = interlock.Router()
    for method, path in github_routes:
        router.add_route(f"{method} {path}")
    router.add_route("myapp://user/:id(\\d+)", name="user")
    router.add_route("/files/:name.json", name="file")
    router.add_route("/assets/*path", name="assets")
    router.add_route("https://*.example.com:8443/t/:x", name="wild")
    router.add_route("/with/data/:x", name="data", data=Data("first"))
    return router


CALLS = [
    ("/users/octocat/repos", "GET"), ("/users/octocat/repos", None), ("/users/octocat/repos", ""),
    ("/users/octocat/repos", "POST"),            # method not allowed
    ("/nowhere", "GET"), ("/nowhere", None),      # not found
    ("/repos/o/r/issues/7", "GET"), ("/repos/%6F/r%20x/issues/7", "GET"),   # escapes decoded
    ("myapp://user/42", None), ("myapp://user/forty-two", None),
    ("/files/report.json", "GET"), ("/assets/a/b/c.css", None), ("/assets/" + "x/" * 3000 + "end", None),
    ("https://a.b.example.com:8443/t/1", None), ("https://example.com:8443/t/1", None),
    ("/with/data/1", None), ("/users/\u00e9t\u00e9/repos", "GET"),
    ("/bad%zzescape", None), ("/nul\0byte", None), ("/lone\ud800surrogate", None), ("/ctl\x01", None),
    ("/users/x/repos", "G\0ET"), ("/users/x/repos", "X" * 80), ("/users/x/repos", "G T"),
    ("/users/x/repos", "\u00c9T\u00c9"), ("/users/x/repos", "get"), ("/users/x/repos", "PATCH"),
    (5, None), (b"/users/x/repos", None), (None, None), ("/users/x/repos", 5), ("/users/x/repos", b"GET"),
    ("/users/x/repos", ["GET"]),
]


def parameters(function) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@needs_accelerator
def test_match_is_a_method_of_the_routers_c_base() -> None:
    """With the accelerator, Router.match is a method in C of Router's base (so that a call makes
    no bound method and no argument tuple): `router.match` is a builtin method bound to the router,
    with the ctypes path's doc, name and parameters."""
    router = interlock.Router()
    router.add_route("/u/:id", name="u")
    assert type(router.match).__name__ == "builtin_function_or_method" and router.match.__self__ is router
    assert isinstance(router, interlock._speedups.RouterBase) and router._door is not None
    assert router.match.__doc__ == interlock.Router.match.__doc__ == interlock.Router._match_ctypes.__doc__
    assert router.match.__name__ == interlock.Router.match.__name__ == "match"
    assert router.match.__qualname__ == interlock.Router.match.__qualname__ == "Router.match"
    assert parameters(router.match) == parameters(router._match_ctypes)
    # (the router is given first, as ever; a method in C takes it by position only)
    assert parameters(interlock.Router.match)[1:] == parameters(interlock.Router._match_ctypes)[1:]
    assert interlock.Router.match(router, "/u/1") == router.match("/u/1") == (1, "u", "/u/:id", {"id": "1"})
    with pytest.raises(TypeError, match="match"):
        interlock.Router.match(object(), "/u/1")

    class Own(interlock.Router):            # a subclass's own match is its own
        def match(self, uri, method=None):
            return ("own", uri)
    assert Own().match("/u/1") == ("own", "/u/1")

    class Sub(interlock.Router):            # a subclass's router calls Router's match
        pass
    sub = Sub()
    sub.add_route("/s/:x")
    assert sub.match("/s/1") == (1, None, "/s/:x", {"x": "1"}) and interlock.Router.match(sub, uri="/s/2").params == {"x": "2"}


def behaviour(match_type, fields: tuple) -> list:
    """What a user can do with a Match made of `fields`, as comparable values (an error as its
    type and message)."""
    def attempt(call):
        try:
            made = call()
        except Exception as error:  # noqa: BLE001
            return (type(error), str(error))
        return (type(made).__name__, tuple(made) if isinstance(made, tuple) else made)
    m = match_type(*fields)
    route_id, route, pattern, params = m
    again = pickle.loads(pickle.dumps(m))
    return [repr(m), tuple(m), m == fields, fields == m, len(m), m[3], m[-1], m[1:3], (route_id, route, pattern, params),
            (m.route_id, m.route, m.pattern, m.params), m._asdict(), m._fields, m._field_defaults,
            match_type.__match_args__, m.data, match_type.__doc__, str(m),
            type(again) is match_type, again == m, type(copy.copy(m)) is match_type, copy.deepcopy(m) == m,
            attempt(lambda: m._replace(params={"x": "1"})), attempt(lambda: m._replace(route="other", route_id=9)),
            attempt(lambda: m._replace(nonsense=1)), attempt(lambda: match_type._make(list(fields))),
            attempt(lambda: match_type._make(fields[:2])), attempt(lambda: match_type._make(fields + (5,))),
            attempt(lambda: match_type(route_id=fields[0], route=fields[1], pattern=fields[2], params=fields[3])),
            attempt(lambda: hash(m)), attempt(lambda: m.__getnewargs__()), attempt(lambda: setattr(m, "route", "x"))[0],   # (the messages differ)
            attempt(lambda: m.count(fields[0])), attempt(lambda: m.index(fields[2]))]


@needs_accelerator
def test_the_accelerators_match_is_the_named_tuple() -> None:
    """With the accelerator, Match is a type of its own in C (made and freed without a Python
    class's steps, its fields read without a call): it behaves as the named tuple it stands for,
    the ctypes-only package's Match, kept as _matches._NamedTupleMatch."""
    named_tuple = interlock._matches._NamedTupleMatch
    assert interlock.Match is not named_tuple and interlock.Match.__name__ == named_tuple.__name__ == "Match"
    for fields in [(1, "u", "/u/:id", {"id": "1"}), (7, None, "GET /a", {}), (3, "x", None, {"k": "v", "é": "\0"})]:
        assert behaviour(interlock.Match, fields) == behaviour(named_tuple, fields), fields
    router = interlock.Router()
    router.add_route("/u/:id", name="u")
    assert router.match("/u/1") == named_tuple(1, "u", "/u/:id", {"id": "1"}) == interlock.Match(1, "u", "/u/:id", {"id": "1"})
    match router.match("/u/2"):
        case interlock.Match(route_id, route, pattern, {"id": value}):
            assert (route_id, route, pattern, value) == (1, "u", "/u/:id", "2")
        case _:
            pytest.fail("a Match is matched by its fields")
    # A Match has four items, no fewer: its fields are read where a tuple's items lie.
    for made in (lambda: tuple.__new__(interlock.Match, (1,)), lambda: interlock._speedups.new_match(interlock.Match, (1, 2)),
                 lambda: interlock._speedups.new_match(tuple, (1, 2, 3, 4)), lambda: interlock.Match(1, 2, 3)):
        with pytest.raises(TypeError):
            made()
    assert interlock._speedups.new_match(interlock.Match, [1, None, "p", {}]) == (1, None, "p", {})

    class Own(interlock.Match):        # a subclass keeps the fields and the named tuple's ways
        def __repr__(self) -> str:
            return "own " + super().__repr__()
    own = Own._make((1, "u", "p", {}))
    assert type(own) is Own and own.route == "u" and repr(own._replace(route="v")) == "own Own(route_id=1, route='v', pattern='p', params={})"


@needs_accelerator
def test_both_paths_give_the_same_answers_and_errors(github_routes) -> None:
    router = table(github_routes)
    for args in CALLS:
        for _ in range(2):     # the first call of a route finds its head, the second uses it
            door, ctypes_path = outcome(router.match, *args), outcome(router._match_ctypes, *args)
            assert door == ctypes_path, args
    for args, kwargs in [(("/users/x/repos",), {"method": "GET"}), ((), {"uri": "/users/x/repos"}), ((), {}),
                         ((), {"method": "POST", "uri": "/users/x/repos"}), (("/a",), {"uri": "/a"}),
                         (("/a", "GET"), {"method": "GET"}), (("/a", "GET", "extra"), {}), (("/a",), {"nonsense": 1})]:
        for _ in range(2):
            assert outcome(router.match, *args, **kwargs) == outcome(router._match_ctypes, *args, **kwargs), (args, kwargs)

    class Text(str):      # a str of its own kind: the ctypes path's, as it encodes it
        def encode(self, *args: object, **kwargs: object) -> bytes:
            return b"/users/other/repos"
    assert router.match(Text("/users/octocat/repos")) == router._match_ctypes(Text("/users/octocat/repos"))
    assert router.match(Text("/users/octocat/repos")).params == {"user": "other"}
    # Every route of the table, through both.
    for method, path in github_routes:
        uri = path.replace(":", "v-").replace("*", "")
        assert outcome(router.match, uri, method) == outcome(router._match_ctypes, uri, method), uri


@needs_accelerator
def test_random_calls_give_the_same_answers_and_errors(github_routes) -> None:
    """Random URIs and methods, built from the pieces that matter (escapes, NULs, surrogates,
    schemes, hosts, long segments), through both paths, in several rounds of changes."""
    router = table(github_routes)
    rng = random.Random(32)
    pieces = ["/", "users", "repos", "octocat", "%20", "%zz", "%", "\0", "\ud800", "\u00e9", "?q=1", "#f", ".json",
              "myapp://user/", "https://a.example.com:8443/t/", "files", "assets", "x" * 300, "//", "..", ";", "+"]
    values = ["octocat", "42", "%20", "\u00e9", "a.b", "%zz"]
    methods = [None, "", "GET", "GET", "POST", "get", "G\0T", "\u00c9", "X" * 70, 7]
    for round_ in range(4):
        for _ in range(500):
            if rng.random() < 0.5:     # a route's own shape, its parameters random
                _, path = rng.choice(github_routes)
                uri = re.sub(r":\w+", lambda _: "".join(rng.choice(values) for _ in range(rng.randrange(1, 3))), path)
            else:
                uri = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 7)))
            method = rng.choice(methods)
            assert outcome(router.match, uri, method) == outcome(router._match_ctypes, uri, method), (uri, method)
        name = rng.choice(["user", "file", "assets", "data"])
        if round_ % 2 == 0:
            router.replace_route(name, {"user": "myapp://user/:id(\\d+)/v{r}", "file": "/files/:name.v{r}.json",
                                        "assets": "/assets/v{r}/*path", "data": "/with/data/v{r}/:x"}[name].format(r=round_))
        else:
            router.set_route_data(name, Data(f"round {round_}"))


@needs_accelerator
def test_a_batchs_answers_are_made_the_same_in_c(github_routes) -> None:
    """match_many's entries, made at once by the accelerator, against MatchList._at, the Python
    path: the same values and types, on a batch whose routes change between the lookup and the
    read (a removed route's pattern is None)."""
    router = table(github_routes)
    uris = [args[0] for args in CALLS if isinstance(args[0], str) and "\0" not in args[0]
            and "\ud800" not in args[0] and "%zz" not in args[0] and "\x01" not in args[0]]
    uris += [path.replace(":", "v-").replace("*", "") for _, path in github_routes]
    for method in (None, "GET", "POST"):
        answers = router.match_many(uris, method)
        python_path = [answers._at(i) for i in range(len(answers))]
        made = list(answers)
        assert [type(a) for a in made] == [type(a) for a in python_path]
        assert [repr(a) for a in made] == [repr(a) for a in python_path]
        assert answers[3] == python_path[3] and answers[-1] == python_path[-1] and answers[2:5] == python_path[2:5]
        assert any(a is not None for a in made) and any(a is None for a in made)
    later = router.match_many(["/with/data/1", "/files/a.json"])
    router.remove_route("file")
    assert list(later) == [later._at(0), later._at(1)] == [(later[0].route_id, "data", "/with/data/:x", {"x": "1"}),
                                                          (later[1].route_id, "file", None, {"name": "a"})]


@needs_accelerator
def test_methods_the_door_keeps_are_each_calls_own() -> None:
    """The door keeps the methods it met by their text (a few slots): with more methods than
    slots, each a str made anew, and methods that are no str the package made, every call still
    matches under its own method, as the ctypes path does."""
    router = interlock.Router()
    methods = ["GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "M1", "M2", "M3", "M4"]
    ids = {method: router.add_route(f"{method} /r/:x") for method in methods}
    for round_ in range(3):
        for method in methods + methods[::-1]:
            fresh = "".join(list(method))            # equal, not the same str
            found = router.match(f"/r/{round_}", fresh)
            assert found == router._match_ctypes(f"/r/{round_}", fresh) == (ids[method], None, f"{method} /r/:x",
                                                                               {"x": str(round_)})
    for odd in ("get", "G\0T", "G\ud800T", "\u00c9T\u00c9", "", None):
        assert outcome(router.match, "/r/1", odd) == outcome(router._match_ctypes, "/r/1", odd), odd


@needs_accelerator
def test_keywords_spelt_at_run_time_and_a_router_without_a_door() -> None:
    """A keyword the compiler did not intern (made at run time) is the ctypes path's, which takes
    it as any; a router whose door is gone (`_door` None) answers through the ctypes path."""
    router = interlock.Router()
    router.add_route("GET /u/:id", name="u")
    uri_name, method_name = "".join(["ur", "i"]), "".join(["meth", "od"])
    assert router.match(**{uri_name: "/u/1", method_name: "GET"}) == (1, "u", "GET /u/:id", {"id": "1"})
    assert outcome(router.match, **{uri_name: "/u/1", "methods": "GET"}) == outcome(router._match_ctypes, uri="/u/1",
                                                                                      methods="GET")
    router._door = None
    assert router.match("/u/2", method="GET") == (1, "u", "GET /u/:id", {"id": "2"})


@needs_accelerator
def test_the_heads_a_door_reads_are_kept_by_route_id() -> None:
    """A router's `_heads` (what _changes.py keeps for the door) is, with the accelerator, a table
    by route id: it sets, gets, pops and forgets as a dict, refuses keys that are no route id,
    and keeps no id past its bound (a cache: such a route's matches are the ctypes path's)."""
    heads = interlock._speedups.Heads()
    assert type(interlock.Router()._heads) is interlock._speedups.Heads
    head = (3, "r", "/r")
    heads[3] = head
    heads[200] = (200, None, "/x")          # past the first table: it grows
    assert heads[3] is head and heads.get(3) is head and heads.get(4) is None and heads.get(4, "no") == "no"
    assert len(heads) == 2 and heads.pop(3, None) is head and heads.pop(3, None) is None and len(heads) == 1
    with pytest.raises(KeyError):
        heads[3]
    with pytest.raises(KeyError):
        heads.pop(3)
    del heads[200]
    with pytest.raises(KeyError):
        del heads[200]
    for key, error in (("3", TypeError), (3.0, TypeError), (-1, ValueError)):
        with pytest.raises(error):
            heads[key] = head
        with pytest.raises(error):
            heads.get(key)
    heads[1 << 23] = head                    # past the bound, or past any index: not kept
    heads[1 << 70] = head
    assert heads.get(1 << 23) is None and heads.get(1 << 70) is None and len(heads) == 0
    del heads                                # frees what it holds
    router = interlock.Router()
    ids = [router.add_route(f"/r{i}/:x") for i in range(300)]
    for _ in range(2):
        for route_id in ids:
            assert router.match(f"/r{route_id - 1}/v") == (route_id, None, f"/r{route_id - 1}/:x", {"x": "v"})
    assert len(router._heads) == 300


@needs_accelerator
def test_parameter_names_the_door_keeps_are_each_routes_own() -> None:
    """The door makes each parameter name once and keeps it (by a hash of its bytes, one name a
    slot): with far more names than slots, names that share a slot, and names of every length
    (past what a slot holds), every match still has its route's own names."""
    router = interlock.Router()
    names = [f"p{i}" for i in range(700)] + ["n" * 31, "n" * 32, "n" * 33, "x_y"]
    for i, name in enumerate(names):
        router.add_route(f"/r{i}/:{name}/:{name}_2")
    for _ in range(2):
        for i, name in enumerate(names):
            found = router.match(f"/r{i}/v{i}/w")
            assert found == router._match_ctypes(f"/r{i}/v{i}/w")
            assert list(found.params.items()) == [(name, f"v{i}"), (f"{name}_2", "w")]


@needs_accelerator
def test_the_door_follows_changes_to_the_table() -> None:
    router = interlock.Router()
    item = router.add_route("GET /old/:x", name="item")
    assert router.match("/old/1", "GET") == (item, "item", "GET /old/:x", {"x": "1"})
    assert router.match("/old/2", "GET") == (item, "item", "GET /old/:x", {"x": "2"})    # the door's own answer
    router.replace_route("item", "GET /new/:x")
    assert router.match("/old/1", "GET") is None
    assert router.match("/new/1", "GET") == (item, "item", "GET /new/:x", {"x": "1"})
    data = Data("d")
    router.set_route_data("item", data)
    assert router.match("/new/3", "GET").data is data
    router.set_route_data("item", None)
    found = router.match("/new/4", "GET")
    assert found.data is None and type(found) is interlock.Match
    router.remove_route("item")
    assert router.match("/new/4", "GET") is None


@needs_accelerator
def test_a_closed_router_is_refused_and_a_kept_match_keeps_its_router() -> None:
    router = interlock.Router()
    router.add_route("/x")
    assert router.match("/x") is not None
    router.close()
    with pytest.raises(interlock.InvalidArgumentError, match="router is closed"):
        router.match("/x")
    kept = interlock.Router()
    kept.add_route("/x")
    match = kept.match                 # as a bound method does, it holds the router
    collected = weakref.ref(kept)
    del kept
    gc.collect()
    assert collected() is not None and match("/x").pattern == "/x"
    del match                          # and no cycle holds it after: freed at once
    assert collected() is None


GC_DURING_A_MATCH = """
import gc, interlock
r = interlock.Router()
rid = r.add_route("/u/:id", name="u")
r.match("/u/0")                          # the router now knows the route's head
class Cycle:
    def __init__(self): self.me = self
    def __del__(self): r.replace_route(rid, "/u/:id")     # a change: the head is forgotten
gc.disable()
keep = [tuple(range(i, i + 4)) for i in range(5000)]      # no spare 4-tuples: the door allocates one
Cycle()
gc.set_threshold(1)
gc.enable()
found = r.match("/u/1")                  # the collector runs the finalizer inside the door
gc.set_threshold(700)
print(tuple(found))
"""


@needs_accelerator
def test_a_change_made_by_a_finalizer_during_a_match_is_safe() -> None:
    """The door holds the route's head while it allocates: a finalizer the garbage collector runs
    meanwhile may make the router forget it (it used to be freed under the door: a crash)."""
    out = subprocess.run([sys.executable, "-c", GC_DURING_A_MATCH], cwd=PACKAGE, capture_output=True, text=True,
                         env=clean_environment())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(1, 'u', '/u/:id', {'id': '1'})"


def test_interlock_pure_python_forces_the_ctypes_path() -> None:
    script = ("import interlock; r = interlock.Router(); r.add_route('/u/:id'); "
              "print(interlock.accelerated, type(r.match).__name__, r.match('/u/7').params)")
    built = importlib.util.find_spec("interlock._speedups") is not None
    for value, expected in (("1", "False method {'id': '7'}"),
                            ("0", f"{built} {'builtin_function_or_method' if built else 'method'} {{'id': '7'}}")):
        out = subprocess.run([sys.executable, "-c", script], cwd=PACKAGE, capture_output=True, text=True,
                             env=clean_environment(INTERLOCK_PURE_PYTHON=value))
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == expected


def test_the_wheels_tag_is_the_accelerators_limited_api() -> None:
    """setup.py tags the wheel, and builds the accelerator from, the CPython that _speedups.c's
    Py_LIMITED_API names (a wheel tagged older would install where the accelerator cannot load)."""
    source = (PACKAGE / "interlock" / "_speedups.c").read_text()
    setup = (PACKAGE / "setup.py").read_text()
    limited = int(re.search(r"^#define Py_LIMITED_API (0x[0-9A-Fa-f]+)$", source, re.M).group(1), 16)
    major, minor = limited >> 24, (limited >> 16) & 0xFF
    assert re.search(rf"^ABI3_FLOOR = \({major}, {minor}\)$", setup, re.M)
    assert re.search(rf'^ABI3_TAG = "cp{major}{minor}"$', setup, re.M)

