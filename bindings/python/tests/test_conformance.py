"""The conformance suite (spec/conformance/*.json, described in spec/conformance/README.md) through the
Python door: every table's lookups, url_for and explain cases, every refused pattern and every
conflict. The same data runs through Swift (ConformanceTests.swift) and C (test_conformance.c)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import interlock
from interlock import _native as n

SPEC = Path(__file__).resolve().parents[3] / "spec" / "conformance"


def _files() -> list[Path]:
    files = sorted(SPEC.glob("*.json"))
    assert files, f"no conformance data under {SPEC}"
    return files


def _cases(section: str) -> list[Any]:
    out = []
    for path in _files():
        data = json.loads(path.read_text("utf-8"))
        for i, case in enumerate(data.get(section, [])):
            out.append(pytest.param(case, id=f"{path.stem}:{section}[{i}]:{case.get('name', case.get('pattern', ''))}"))
    return out


def _code(name: str) -> int:
    return getattr(n, name)


def _router(table: dict) -> tuple[interlock.Router, list[int]]:
    options = table.get("options", {})
    router = interlock.Router(case_insensitive=options.get("case_insensitive", False),
                              strict_slash=options.get("strict_slash", False))
    ids = []
    for route in table["routes"]:
        if isinstance(route, str):
            ids.append(router.add_route(route))
        else:
            ids.append(router.add_route(route["pattern"], name=route.get("name")))
    return router, ids


def _answer(router: interlock.Router, uri: str, method: str | None) -> dict:
    """What the door answers, in the data's terms."""
    try:
        found = router.match(uri, method)
    except interlock.MethodNotAllowedError as error:
        return {"status": "METHOD_NOT_ALLOWED", "allowed": sorted(error.allowed)}
    except (interlock.URIError, interlock.InvalidArgumentError, interlock.LimitError) as error:
        return {"status": _status_name(error.code), "offset": getattr(error, "offset", None)}
    if found is None:
        return {"status": "NOT_FOUND"}
    return {"status": "OK", "route_id": found.route_id, "params": dict(found.params)}


def _status_name(code: int) -> str:
    for name in ("OK", "NOT_FOUND", "METHOD_NOT_ALLOWED", "EINVAL", "EPATTERN", "ECONFLICT", "EURI",
                 "ENOMEM", "ELIMIT", "ENOROUTE", "ECALLBACK"):
        if getattr(n, name) == code:
            return name
    return str(code)


@pytest.mark.parametrize("table", _cases("tables"))
def test_table(table: dict) -> None:
    router, ids = _router(table)
    for case in table.get("match", []):
        got = _answer(router, case["uri"], case.get("method"))
        where = f"{table['name']}: {case.get('method') or ''} {case['uri']!r} ({table['rule']})"
        expected_status = case.get("status", "OK")
        assert got["status"] == expected_status, f"{where}: {got}"
        if expected_status == "OK":
            assert got["route_id"] == ids[case["route"]], f"{where}: {got}"
            if "params" in case:
                assert got["params"] == case["params"], where
        if "allowed" in case:
            assert got["allowed"] == sorted(case["allowed"]), where
        if "offset" in case:
            assert got["offset"] == case["offset"], f"{where}: {got}"
    for case in table.get("url_for", []):
        route = table["routes"][case["route"]]
        where = f"{table['name']}: url_for {route['name']} {case['params']} ({table['rule']})"
        if "uri" in case:
            assert router.url_for(route["name"], **case["params"]) == case["uri"], where
        else:
            with pytest.raises(interlock.Error) as raised:
                router.url_for(route["name"], **case["params"])
            assert raised.value.code == _code(case["status"]), where
    for case in table.get("explain", []):
        explained = router.explain(case["uri"], case.get("method"))
        takers = [c["route"] for c in explained["candidates"] if c["takes"]]
        winner = None if case["winner"] is None else ids[case["winner"]]
        where = f"{table['name']}: explain {case['uri']!r} ({table['rule']})"
        assert explained["answer"].get("route") == winner, f"{where}: {explained['answer']}"
        assert takers == ([] if winner is None else [winner]), f"{where}: {explained['candidates']}"


@pytest.mark.parametrize("case", _cases("patterns"))
def test_pattern(case: dict) -> None:
    router = interlock.Router()
    if case["status"] == "OK":
        router.add_route(case["pattern"])
        return
    with pytest.raises(interlock.Error) as raised:
        router.add_route(case["pattern"])
    assert raised.value.code == _code(case["status"]), f"{case['pattern']!r} ({case['rule']}): {raised.value}"
    if "offset" in case:
        assert raised.value.offset == case["offset"], f"{case['pattern']!r} ({case['rule']}): {raised.value}"


@pytest.mark.parametrize("case", _cases("conflicts"))
def test_conflict(case: dict) -> None:
    router = interlock.Router()
    *earlier, last = case["routes"]
    for pattern in earlier:
        router.add_route(pattern)
    if case["with"] is None:
        router.add_route(last)
        return
    with pytest.raises(interlock.ConflictError) as raised:
        router.add_route(last)
    assert repr(earlier[case["with"]]) in str(raised.value) or f"'{earlier[case['with']]}'" in str(raised.value), \
        f"{last!r} ({case['rule']}): the message names the route it conflicts with: {raised.value}"


class _Script:
    """Plays a pipeline scenario's callbacks: each records `kind:name` when it runs, then does what
    its `do` says."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def destination(self, name: str):
        def run(request: interlock.Request) -> None:
            self.ran.append(f"destination:{name}")
        return run

    def guard(self, name: str, allow: bool):
        def run(request: interlock.Request) -> bool:
            self.ran.append(f"guard:{name}")
            return allow
        return run

    def filter(self, spec: dict):
        def run(request: interlock.Request, next_):
            self.ran.append(f"filter:{spec['name']}")
            if spec["do"] == "next" or spec.get("when", request.path) != request.path:
                return next_(request)
            if spec["do"] == "stop":
                answer = spec.get("respond")
                return answer and interlock.Response(answer["status"], answer["body"], [tuple(h) for h in answer["headers"]])
            return request.redirect(spec["to"])
        run.__name__ = spec["name"]
        return run

    def request_interceptor(self, spec: dict):
        def run(request: interlock.Request) -> None:
            self.ran.append(f"request:{spec['name']}")
            if spec["do"] == "abort":
                raise interlock.Abort(f"{spec['name']} aborts")
        return run

    def response_interceptor(self, spec: dict):
        def run(response: interlock.Response) -> None:
            self.ran.append(f"response:{spec['name']}")
            key = f"retried:{spec['name']}"
            if spec["do"] == "abort":
                raise interlock.Abort(f"{spec['name']} aborts")
            if spec["do"] == "retry" or (spec["do"] == "retry_once" and key not in response.state):
                response.state[key] = True
                response.retry()
        return run


@pytest.mark.parametrize("case", _cases("pipelines"))
def test_pipeline(case: dict) -> None:
    router = interlock.Router()
    script = _Script()
    ids = []
    for route in case["routes"]:
        name = route["name"]
        guard = script.guard(name, route["guard"] == "allow") if "guard" in route else None
        ids.append(router.add_route(route["pattern"], script.destination(name), name=name, guard=guard))
        for spec in route.get("request_interceptors", []):
            router.add_request_interceptor(script.request_interceptor(spec), route=name)
        for spec in route.get("response_interceptors", []):
            router.add_response_interceptor(script.response_interceptor(spec), route=name)
    if case.get("default"):
        router.default(script.destination("default"))
    for spec in case.get("filters", []):
        router.add_filter(script.filter(spec))
    for spec in case.get("request_interceptors", []):
        router.add_request_interceptor(script.request_interceptor(spec))
    for spec in case.get("response_interceptors", []):
        router.add_response_interceptor(script.response_interceptor(spec))
    for step in case["resolve"]:
        script.ran.clear()
        result = router.resolve(step["uri"], step.get("method"))
        where = f"{case['name']}: {step['uri']} ({case['rule']})"
        assert result.status.name == step["status"], f"{where}: {result.status} {result.error}"
        assert script.ran == step["ran"], where
        route = step.get("route", None)
        assert (result.route_id or None) == (None if route is None else ids[route]), where
        if "redirects" in step:
            assert list(result.redirects) == step["redirects"], where
        if "pending" in step:
            assert router.pending_link == step["pending"], where
        if "response" in step:
            want = step["response"]
            assert (result.response.status, result.response.headers, result.response.body) == (
                want["status"], [tuple(h) for h in want["headers"]], want["body"].encode()), where
