"""The values the package hands out and takes: Status, QueryDict, Response, Request, TraceEntry
and Result (Match and MatchList are _matches.py's). They are read from the library's packed text
(_wire.py), each when first used: most callers read few fields or none."""

from __future__ import annotations

import enum
import threading
from typing import TYPE_CHECKING, Any, Iterator, Mapping, NamedTuple, Optional, Sequence, Union

from . import _native as n
from . import _wire
from ._errors import INT, _check, _int_arg, _mapping_arg, _wrong_type
from ._native import lib
from ._text import _b, _body, _headers, _url_params

if TYPE_CHECKING:
    from ._router import Router

# Taken to copy a lent request (`Request._keep`): a callback may hand its request to another
# thread, and the library's request is not to be read from two threads at once (reentrant: a
# finalizer run during a copy may read another request).
_lending = threading.RLock()
_UNREAD = object()


class Status(enum.Enum):
    """How a resolve ended."""

    OK = n.OK
    NOT_FOUND = n.NOT_FOUND
    METHOD_NOT_ALLOWED = n.METHOD_NOT_ALLOWED
    STOPPED = n.STOPPED
    GUARDED = n.GUARDED
    ABORTED = n.ABORTED
    REDIRECT_LOOP = n.REDIRECT_LOOP
    RETRY_LIMIT = n.RETRY_LIMIT
    ERROR = n.ECALLBACK


_STATUS_OF = {s.value: s for s in Status}


class QueryDict(Mapping[str, str]):
    """A multi-valued query: `q["tag"]` is the first value, `q.getall("tag")` every value."""

    def __init__(self, pairs: Sequence[tuple[str, str]] = ()) -> None:
        self._pairs = _headers(pairs, "pairs", "query")

    @classmethod
    def _of(cls, pairs: list[tuple[str, str]]) -> "QueryDict":
        """A query of pairs already of the right types (a request's): no checks."""
        query = cls.__new__(cls)
        query._pairs = pairs
        return query

    def __getitem__(self, key: str) -> str:
        for k, v in self._pairs:
            if k == key:
                return v
        raise KeyError(key)

    def getall(self, key: str) -> list[str]:
        """Every value of `key`, in order."""
        return [v for k, v in self._pairs if k == key]

    def items_all(self) -> list[tuple[str, str]]:
        """Every pair, in order."""
        return list(self._pairs)

    def __iter__(self) -> Iterator[str]:
        seen: dict[str, None] = {}
        for k, _ in self._pairs:
            seen.setdefault(k, None)
        return iter(seen)

    def __len__(self) -> int:
        return len(set(k for k, _ in self._pairs))

    def __repr__(self) -> str:
        return f"QueryDict({self._pairs!r})"


Headers = Union[Mapping[str, str], Sequence[tuple[str, str]], None]


class Response:
    """A response: status (200 unless set), body bytes and headers (a list of pairs)."""

    def __init__(self, status: int = 200, body: Union[bytes, str] = b"", headers: Headers = None) -> None:
        # An int ctypes can pass whole; 100...599 is the library's check, as the response is written.
        self.status = _int_arg(status, "status", INT)
        self.body = _body(body)
        self.headers: list[tuple[str, str]] = _headers(headers)
        self.request: Optional[Request] = None
        self._retry = False

    @classmethod
    def _of(cls, status: int, body: bytes, headers: list[tuple[str, str]]) -> "Response":
        """A response from values already of the right types (a resolve's result): no checks."""
        response = cls.__new__(cls)
        response.status, response.body, response.headers = status, body, headers
        response.request, response._retry = None, False
        return response

    @property
    def state(self) -> dict[str, Any]:
        """The state of the resolve this response belongs to."""
        return self.request.state if self.request is not None else {}

    def retry(self) -> None:
        """From a response interceptor: ask for a retry once every response interceptor ran."""
        self._retry = True

    def __repr__(self) -> str:
        return f"Response(status={self.status}, body={self.body!r}, headers={self.headers!r})"


class _Redirect:
    def __init__(self, uri: Optional[str] = None, name: Optional[str] = None,
                 params: Optional[dict[str, str]] = None) -> None:
        self.uri, self.name, self.params = uri, name, params or {}


class Request:
    """A request as the pipeline sees it. `metadata` and `params` may be changed by interceptors
    and filters; `state` is shared by the whole resolve."""

    uri: str
    method: Optional[str]
    scheme: Optional[str]
    host: Optional[str]
    port: Optional[str]
    path: str
    fragment: Optional[str]
    pattern: Optional[str]
    route_id: Optional[int]
    route: Optional[str]
    params: dict[str, str]
    query: "QueryDict"
    metadata: dict[str, str]
    state: dict[str, Any]

    # What `_read` sets. Until one of them is first read, a request holds the library's packed
    # text only: most callbacks, and most results, read few of its fields or none, and reading
    # them all costs more than the library's whole resolve.
    _FIELDS = frozenset(("uri", "method", "scheme", "host", "port", "path", "fragment", "pattern", "route_id",
                         "route", "params", "query", "metadata", "state", "_seen"))

    def __init__(self, pointer: int, state: dict[str, Any], router: Optional["Router"] = None) -> None:
        # A request lent to a callback: the library's, read through `pointer` (one call for the
        # whole request, ilk_request_packed) only when a field is first used, as most callbacks
        # use none. The pointer is valid only while the callback runs: when it returns, a request
        # still referenced copies the library's then (`_keep`), and any other is gone.
        self._lent = (pointer, state, router)

    @classmethod
    def _unpacked(cls, parts: list[str], start: int, state: dict[str, Any],
                  router: Optional["Router"] = None) -> "Request":
        """The request written at `parts[start:]` (by ilk_result_packed), not tied to a callback."""
        request = cls.__new__(cls)
        request._packed = (parts, start, state, router)
        return request

    def __getattr__(self, name: str) -> Any:
        # Called only for an attribute not set: a field not read yet reads them all. The text is
        # let go of after the fields are set, and reading twice changes nothing (`_read` keeps
        # what is set), so two threads reading a shared result's request at once both get them.
        d = self.__dict__
        if name in Request._FIELDS:
            packed = d.get("_packed")
            if packed is None and "_lent" in d:
                if name == "state":     # the resolve's, known without the library's request
                    return d.setdefault("state", d["_lent"][1])
                packed = self._keep()
            if packed is not None:
                self._read(*packed)
                d.pop("_packed", None)
            if name in d:
                return d[name]
        raise AttributeError(f"'Request' object has no attribute {name!r}")

    @property
    def route_data(self) -> Any:
        """The route's data (`Router.set_route_data`) as the resolve matched it, or None: read
        through the library's request while a callback has it (ilk_request_route_data), else as
        kept when the request outlived its callback, or read with the result."""
        d = self.__dict__
        found = d.get("route_data", _UNREAD)
        if found is _UNREAD:
            with _lending:
                lent = d.get("_lent")
                router = lent[2] if lent is not None else None
                found = d.setdefault("route_data", router._request_data(lent[0]) if router is not None else None)
        return found

    def _keep(self) -> Optional[tuple[list[str], int, dict[str, Any], Optional["Router"]]]:
        """A lent request's text, copied from the library now (while its callback runs) and held
        in place of the pointer; None once the request holds its fields (or the text) already."""
        with _lending:
            d = self.__dict__
            lent = d.pop("_lent", None)
            if lent is None:
                return d.get("_packed")
            pointer, state, router = lent
            if router is not None and router._objects:    # some route has data: keep this one's
                d.setdefault("route_data", router._request_data(pointer))
            packed = d["_packed"] = (_wire.request_text(pointer), 0, state, router)
            return packed

    def _read(self, parts: list[str], i: int, state: dict[str, Any], router: Optional["Router"]) -> None:
        # The request text at parts[i:] (see _wire.request_fields). A field set before it was
        # read is kept.
        (uri, method, scheme, host, port, path, fragment, pattern, route_id,
         params, query, metadata) = _wire.request_fields(parts, i)
        fields = {
            "uri": uri, "method": method, "scheme": scheme, "host": host, "port": port, "path": path,
            "fragment": fragment, "pattern": pattern, "route_id": route_id,
            "route": router._route_name(route_id) if router is not None and route_id else None,
            "params": dict(params),
            "query": QueryDict._of(query),
            "metadata": dict(metadata),
            "state": state,
            # What `_sync` compares against: the pairs as read (the dicts above are copies of them).
            "_seen": (params, metadata),
        }
        # Field by field, each kept if set: one step each, so threads reading a shared request
        # at once all end with the same object for every field.
        setdefault = self.__dict__.setdefault
        for key, value in fields.items():
            setdefault(key, value)

    def redirect(self, uri: str) -> Any:
        """From a filter: `return request.redirect(uri)` runs the pipeline again for `uri`."""
        if not isinstance(uri, str):
            raise _wrong_type("uri", uri, "a str")
        return _Redirect(uri=uri)

    def redirect_to(self, name: str, /, **params: Any) -> Any:
        """From a filter: redirect to the named route, its URI built from `params` (`name` is
        positional-only, so that a route parameter may be called `name`); values as `url_for`
        takes them (a str or an int; None leaves the parameter out)."""
        if not isinstance(name, str):
            raise _wrong_type("route name", name, "a str")
        return _Redirect(name=name, params=_url_params(params))

    def _sync(self, pointer: int) -> None:
        """Writes changed parameters and metadata back to the library's request: set, changed and
        removed (whatever removed them: del, pop, clear, a new dict)."""
        d = self.__dict__
        if ("_packed" in d or "_lent" in d) and "params" not in d and "metadata" not in d:
            return   # neither read nor set: nothing changed
        params, metadata = dict(self._seen[0]), dict(self._seen[1])
        # As a callback left them: it may have set either attribute to anything.
        now_params = _mapping_arg(self.params, "request.params")
        now_metadata = _mapping_arg(self.metadata, "request.metadata")
        for k in params:
            if k not in now_params:
                _check(lib.ilk_request_remove_param(pointer, _b(k, "parameter name")))
        for k, v in now_params.items():
            if params.get(k) != v:
                _check(lib.ilk_request_set_param(pointer, _b(k, "parameter name"), _b(str(v), f"parameter {k!r}")))
        for k in metadata:
            if k not in now_metadata:
                _check(lib.ilk_request_set_metadata(pointer, _b(k, "metadata key"), None))
        for k, v in now_metadata.items():
            if metadata.get(k) != v:
                _check(lib.ilk_request_set_metadata(pointer, _b(k, "metadata key"), _b(str(v), f"metadata {k!r}")))
        self._seen = (list(now_params.items()), list(now_metadata.items()))

    def __repr__(self) -> str:
        return f"Request({self.method or '*'} {self.uri!r}, route={self.route!r}, params={self.params!r})"


class TraceEntry(NamedTuple):
    """One stage that ran: its stage, the name of what ran, and what it decided."""

    stage: str
    name: str
    decision: str


class Result:
    """What `Router.resolve` produced. The trace is made into `TraceEntry` values when first read
    (most callers never read it, and each entry costs about as much as the rest of the result)."""

    __slots__ = ("status", "response", "redirects", "state", "error", "allowed", "_trace", "_trace_parts",
                 "_route", "_route_id", "_pattern", "_params", "_query", "_request")

    def __init__(self, status: Status, response: Response, route: Optional[str], route_id: Optional[int],
                 pattern: Optional[str], params: dict[str, str], query: QueryDict, redirects: list[str],
                 state: dict[str, Any], trace: Optional[list[TraceEntry]], error: Optional[str],
                 allowed: Optional[list[str]] = None, *, _trace_fields: Optional[list[str]] = None,
                 _request: Optional[Request] = None) -> None:
        self.status, self.response, self.redirects = status, response, redirects
        self.state, self.error, self.allowed = state, error, allowed if allowed is not None else []
        # From a resolve, the route, its parameters and the query are its request's, read from
        # the request when first asked for (see `Request`); otherwise as given.
        self._route, self._route_id, self._pattern, self._params, self._query = route, route_id, pattern, params, query
        self._request = _request
        # The entries, or (from a resolve) their fields flat as the library wrote them: stage, name,
        # decision, stage, ...
        self._trace, self._trace_parts = trace, _trace_fields

    @property
    def route(self) -> Optional[str]:
        """The matched route's name, or None."""
        return self._route if self._request is None else self._request.route

    @property
    def route_id(self) -> Optional[int]:
        """The matched route's id, or None."""
        return self._route_id if self._request is None else self._request.route_id

    @property
    def pattern(self) -> Optional[str]:
        """The matched route's pattern, or None."""
        return self._pattern if self._request is None else self._request.pattern

    @property
    def params(self) -> dict[str, str]:
        """The matched route's parameters, decoded."""
        return self._params if self._request is None else self._request.params

    @property
    def query(self) -> "QueryDict":
        """The query's pairs, decoded."""
        return self._query if self._request is None else self._request.query

    @property
    def trace(self) -> list[TraceEntry]:
        """One entry per stage that ran, in order."""
        if self._trace is None:
            p = self._trace_parts or []
            self._trace = [TraceEntry(p[k], p[k + 1], p[k + 2]) for k in range(0, len(p), 3)]
            self._trace_parts = None
        return self._trace

    def __repr__(self) -> str:
        return (f"Result(status={self.status}, route={self.route!r}, params={self.params!r}, "
                f"response={self.response!r}, error={self.error!r})")
