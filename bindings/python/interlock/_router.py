"""The Pythonic surface over the C ABI. Matching and the pipeline run in the library; this module
converts values and turns Python callables into the library's callbacks."""

from __future__ import annotations

import ctypes
import enum
import sys
import threading
import weakref
from ctypes import byref, c_char_p, c_size_t, c_uint32, c_void_p
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Optional, Sequence, Union

from . import _native as n
from ._native import lib, text

__all__ = [
    "Abort", "CallbackError", "ConflictError", "Error", "InvalidArgumentError", "LimitError",
    "LoggingInterceptor", "Match", "PatternError", "Request", "Response", "Result", "Router",
    "Status", "TraceEntry", "URIError", "UnknownRouteError", "ValidateStatus", "chain_after",
    "chain_before", "chain_in_order",
]

# ----------------------------------------------------------------------------------------------
# Errors


class Error(Exception):
    """An error the library reported: `code` is its ILK_E* value, `message` its words."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class InvalidArgumentError(Error, ValueError):
    """An argument is out of its domain (ILK_EINVAL)."""


class _OffsetError(Error, ValueError):
    def __init__(self, message: str, code: int, offset: Optional[int]) -> None:
        super().__init__(message if offset is None else f"{message} (at byte {offset})", code)
        self.message = message
        self.offset = offset


class PatternError(_OffsetError):
    """A route pattern is malformed; `offset` is the byte where."""


class URIError(_OffsetError):
    """A URI is malformed; `offset` is the byte where."""


class ConflictError(Error):
    """A route (or name) conflicts with one registered earlier; the message names it."""


class LimitError(Error):
    """A limit was reached (route count, pattern size, match work)."""


class UnknownRouteError(Error, LookupError):
    """No route has this id or name."""


class CallbackError(Error):
    """A callback failed in a way that has no Python exception of its own (next called twice...)."""


class Abort(Exception):
    """Raise from an interceptor to abort the resolve (the result is Status.ABORTED)."""

    def __init__(self, reason: str = "aborted") -> None:
        super().__init__(reason)
        self.reason = reason


_ERRORS: dict[int, type[Error]] = {
    n.EINVAL: InvalidArgumentError, n.ECONFLICT: ConflictError, n.ELIMIT: LimitError,
    n.ENOROUTE: UnknownRouteError, n.ECALLBACK: CallbackError,
}


def _raise(code: int) -> None:
    message = text(lib.ilk_errmsg()) or "error"
    offset = lib.ilk_erroffset()
    offset_or_none = None if offset == n.NO_OFFSET else int(offset)
    if code == n.EPATTERN:
        raise PatternError(message, code, offset_or_none)
    if code == n.EURI:
        raise URIError(message, code, offset_or_none)
    if code == n.ENOMEM:
        raise MemoryError(message)
    raise _ERRORS.get(code, Error)(message, code)


def _check(code: int) -> int:
    if code < 0:
        _raise(code)
    return code


def _surrogate(text: str, error: UnicodeEncodeError) -> tuple[str, int]:
    """What a string with a lone surrogate (which UTF-8 cannot hold) says about it: the problem,
    and the byte offset where its encoding would hold the surrogate."""
    at = len(text[:error.start].encode("utf-8", "surrogatepass"))
    return f"lone surrogate U+{ord(text[error.start]):04X} is not valid UTF-8", at


def _b(value: Optional[str], what: str) -> Optional[bytes]:
    """`value` (named `what` in errors) as the library takes it: UTF-8, ended by a NUL byte. One
    inside would end it early (a pattern, a parameter value or a header cut short without a word),
    so it is refused with its byte offset, as is a lone surrogate."""
    if value is None:
        return None
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError as e:
        message, at = _surrogate(value, e)
        raise InvalidArgumentError(f"{what}: {message} at offset {at}", n.EINVAL) from None
    if b"\0" in data:
        raise InvalidArgumentError(f"{what}: NUL byte at offset {data.index(0)}", n.EINVAL)
    return data


def _text_of(value: Any) -> str:
    """`value` as text for a message: a callback's reason or exception may be any object, and a
    callback plumbing that raised would hand the library no answer at all."""
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except BaseException:  # noqa: BLE001
        return f"<{type(value).__name__} object whose str() raised>"


def _message_b(message: Any) -> bytes:
    """A message for the library (an abort's reason, a callback's error): a NUL byte is written as
    "\\x00" and a lone surrogate as "\\udXXX", so that the message is neither cut short nor, raised
    from the callback reporting it, lost."""
    return _text_of(message).replace("\0", "\\x00").encode("utf-8", "backslashreplace")


def _uri_b(uri: str, what: str = "URI") -> bytes:
    """A URI for the library: UTF-8 (a lone surrogate is a malformed URI, named with its byte
    offset, as the library names ill-formed UTF-8)."""
    try:
        return uri.encode()
    except UnicodeEncodeError as e:
        message, at = _surrogate(uri, e)
        raise URIError(f"{what}: {message}", n.EURI, at) from None


# Methods as the library takes them, made once each: requests carry few distinct methods, and
# looking one up costs less than encoding it. At most this many, so odd methods cannot grow it.
_METHODS: dict[str, bytes] = {}
_METHODS_KEPT = 64


def _method_b(method: Optional[str]) -> Optional[bytes]:
    """A request's method for the library: None for None or "" (any method, as in `match_many`),
    refused if it holds a NUL byte (the library would read the method before it)."""
    if not method:
        return None
    data = _METHODS.get(method)
    if data is None:
        data = _b(method, "method")
        if len(_METHODS) < _METHODS_KEPT:
            _METHODS[method] = data
    return data


# ----------------------------------------------------------------------------------------------
# Values


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
        self._pairs = list(pairs)

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
        self.status = status
        self.body = body.encode("utf-8") if isinstance(body, str) else bytes(body)
        if headers is None:
            self.headers: list[tuple[str, str]] = []
        elif isinstance(headers, Mapping):
            self.headers = list(headers.items())
        else:
            self.headers = list(headers)
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
        if name in Request._FIELDS:
            d = self.__dict__
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

    def _keep(self) -> Optional[tuple[list[str], int, dict[str, Any], Optional["Router"]]]:
        """A lent request's text, copied from the library now (while its callback runs) and held
        in place of the pointer; None once the request holds its fields (or the text) already."""
        with _lending:
            d = self.__dict__
            lent = d.pop("_lent", None)
            if lent is None:
                return d.get("_packed")
            pointer, state, router = lent
            data, size = c_void_p(), c_size_t()
            lib.ilk_request_packed(pointer, byref(data), byref(size))
            packed = d["_packed"] = (ctypes.string_at(data.value, size.value).decode("utf-8", "surrogateescape").split("\0"),
                                     0, state, router)
            return packed

    def _read(self, parts: list[str], i: int, state: dict[str, Any], router: Optional["Router"]) -> None:
        # Nine fields, each "0" for none or "1" followed by the text; then three counted lists of
        # pairs (parameters, query, metadata). A field set before it was read is kept.
        f = parts[i:i + 9]
        route_id = int(f[8][1:]) if f[8] != "0" and f[8] != "1" else None
        i += 9
        lists = []
        for _ in range(3):
            count = int(parts[i])
            lists.append(list(zip(parts[i + 1:i + 1 + 2 * count:2], parts[i + 2:i + 2 + 2 * count:2])) if count else [])
            i += 1 + 2 * count
        fields = {
            "uri": f[0][1:] if f[0] != "0" else "",
            "method": f[1][1:] if f[1] != "0" else None,
            "scheme": f[2][1:] if f[2] != "0" else None,
            "host": f[3][1:] if f[3] != "0" else None,
            "port": f[4][1:] if f[4] != "0" else None,
            "path": (f[5][1:] or "/") if f[5] != "0" else "/",
            "fragment": f[6][1:] if f[6] != "0" else None,
            "pattern": f[7][1:] if f[7] != "0" else None,
            "route_id": route_id,
            "route": router._route_info(route_id)[1] if router is not None and route_id else None,
            "params": dict(lists[0]),
            "query": QueryDict(lists[1]),
            "metadata": dict(lists[2]),
            "state": state,
            # What `_sync` compares against: the pairs as read (the dicts above are copies of them).
            "_seen": (lists[0], lists[2]),
        }
        # Field by field, each kept if set: one step each, so threads reading a shared request
        # at once all end with the same object for every field.
        setdefault = self.__dict__.setdefault
        for key, value in fields.items():
            setdefault(key, value)

    def redirect(self, uri: str) -> Any:
        """From a filter: `return request.redirect(uri)` runs the pipeline again for `uri`."""
        return _Redirect(uri=uri)

    def redirect_to(self, name: str, **params: Any) -> Any:
        """From a filter: redirect to the named route, its URI built from `params`."""
        return _Redirect(name=name, params={k: str(v) for k, v in params.items()})

    def _sync(self, pointer: int) -> None:
        """Writes changed parameters and metadata back to the library's request."""
        d = self.__dict__
        if ("_packed" in d or "_lent" in d) and "params" not in d and "metadata" not in d:
            return   # neither read nor set: nothing changed
        params, metadata = dict(self._seen[0]), dict(self._seen[1])
        for k, v in self.params.items():
            if params.get(k) != v:
                lib.ilk_request_set_param(pointer, _b(k, "parameter name"), _b(str(v), f"parameter {k!r}"))
        for k, v in self.metadata.items():
            if metadata.get(k) != v:
                lib.ilk_request_set_metadata(pointer, _b(k, "metadata key"), _b(str(v), f"metadata {k!r}"))
        for k in metadata:
            if k not in self.metadata:
                lib.ilk_request_set_metadata(pointer, _b(k, "metadata key"), None)
        self._seen = (list(self.params.items()), list(self.metadata.items()))

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


class Match(NamedTuple):
    """A route that matched (`Router.match`). A named tuple: cheap to make on the fast path."""

    route_id: int
    route: Optional[str]
    pattern: str
    params: dict[str, str]


class MatchList(Sequence[Optional[Match]]):
    """The answers of `Router.match_many`, in order: a `Match` for each URI that matched, None for
    the others. The answers are held as the library laid them out (one bytes object) and made
    into `Match` values when read, so a batch costs little more than the lookups; `route_ids()`
    reads every id at once."""

    __slots__ = ("_router", "_count", "_blob", "_views")

    def __init__(self, router: "Router", blob: bytes, count: int) -> None:
        self._router, self._blob, self._count = router, blob, count
        self._views: Optional[tuple[memoryview, memoryview, memoryview, memoryview]] = None

    def _parts(self) -> tuple[memoryview, memoryview, memoryview, memoryview]:
        """Statuses, route ids, offsets and text, as ilk_match_batch_copy documents them: cut
        when first read, since a caller that reads nothing need not pay for it."""
        views = self._views
        if views is None:
            count = self._count
            view = memoryview(self._blob)
            text_start = 16 * count + 8
            views = self._views = (view[:4 * count].cast("i"), view[4 * count:8 * count].cast("I"),
                                   view[8 * count:text_start].cast("N"), view[text_start:])
        return views

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(self._count))]
        count = self._count
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("MatchList index out of range")
        return self._at(index)

    def _at(self, i: int) -> Optional[Match]:
        statuses, ids, offsets, text = self._parts()
        if statuses[i] != n.OK:
            return None
        route_id = ids[i]
        parts = str(text[offsets[i]:offsets[i + 1]], "utf-8").split("\0")
        return _new_tuple(Match, self._router._route_info(route_id) + (_pairs(parts),))

    def route_ids(self) -> list[int]:
        """Every answer's route id at once, 0 where none matched."""
        return self._parts()[1].tolist()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (MatchList, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"MatchList({list(self)!r})"


# ----------------------------------------------------------------------------------------------
# Interceptors as values


class _Composite:
    def __init__(self, parts: Sequence[Any]) -> None:
        if not parts:
            raise ValueError("nothing to chain")
        self.parts = list(parts)


def chain_before(a: Any, b: Any) -> Any:
    """`a` then `b`, as one interceptor."""
    return _Composite([a, b])


def chain_after(a: Any, b: Any) -> Any:
    """`b` then `a`: `a` chained after `b`."""
    return _Composite([b, a])


def chain_in_order(interceptors: Iterable[Any]) -> Any:
    """The interceptors one after the other, as one interceptor."""
    return _Composite(list(interceptors))


class LoggingInterceptor:
    """The library's logger: one line per request and per response, to `sink(line)` or stderr.
    Add it as a request interceptor, a response interceptor, or both."""

    def __init__(self, sink: Optional[Callable[[str], None]] = None) -> None:
        self.sink = sink
        self._sides: Optional[tuple[int, int, Any]] = None


class ValidateStatus:
    """The library's status validator: aborts a response whose status is outside `allowed`."""

    def __init__(self, allowed: range = range(200, 300)) -> None:
        if allowed.step != 1 or len(allowed) == 0:
            raise ValueError("allowed must be a non-empty range with step 1")
        self.allowed = allowed


# ----------------------------------------------------------------------------------------------
# Per-resolve context: Python state and the first exception a callback raised


class _Context:
    __slots__ = ("state", "exception")

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self.exception: Optional[BaseException] = None


_local = threading.local()
# Taken to copy a lent request (`Request._keep`): a callback may hand its request to another
# thread, and the library's request is not to be read from two threads at once (reentrant: a
# finalizer run during a copy may read another request).
_lending = threading.RLock()


def _settle(lent: "weakref.ref[Request]") -> None:
    """After the callback a request was lent to, which has dropped its own reference to it: a
    request still alive (the callback kept it, or an exception's traceback holds it) copies the
    library's request now, while the pointer is valid."""
    request = lent()
    if request is not None:
        request._keep()


def _context() -> _Context:
    stack = getattr(_local, "stack", None)
    if stack:
        return stack[-1]
    return _Context()   # a callback outside any resolve (a replay from C): private state


# ----------------------------------------------------------------------------------------------
# The router


_SLOT_BUFFER = 4096
_MATCHED = 1 << 32


class _MatchSlot:
    def __init__(self) -> None:
        handle = c_void_p()
        _check(lib.ilk_match_new(byref(handle)))
        batch = c_void_p()
        _check(lib.ilk_match_batch_new(byref(batch)))
        self.handle, self.batch = handle, batch
        # Where ilk_router_match_packed writes parameters: one library call per match, and the
        # answer (route id, parameter length) in its return value.
        self.buffer = ctypes.create_string_buffer(_SLOT_BUFFER)
        _check(lib.ilk_match_set_buffer(handle, self.buffer, _SLOT_BUFFER))
        # Where ilk_router_match_requests says where a batch's answers lie (match_many).
        self.view = n.MatchBatchView()
        self.view_ref = byref(self.view)
        self._finalizer = weakref.finalize(self, _free_slot, handle.value, batch.value)


def _free_slot(handle: int, batch: int) -> None:
    lib.ilk_match_free(handle)
    lib.ilk_match_batch_free(batch)


def _match_params(handle: c_void_p) -> list[tuple[str, str]]:
    """The last match's parameters one by one (when they did not fit the slot's buffer)."""
    name, value = c_char_p(), c_char_p()
    out = []
    for i in range(lib.ilk_match_param_count(handle)):
        _check(lib.ilk_match_param_at(handle, i, byref(name), None, byref(value), None))
        out.append((text(name.value) or "", text(value.value) or ""))
    return out


_new_tuple = tuple.__new__


def _pairs(parts: list[str]) -> dict[str, str]:
    """{name: value} from ["name", "value", ..., ""] (a packed parameter text, split)."""
    return {parts[i]: parts[i + 1] for i in range(0, len(parts) - 1, 2)}
Destination = Callable[[Request], Any]
# ilk_router_match_packed for `match`, the hot path, declared without argument types: each argument
# is passed as what the C side takes already (the router's and the slot's c_void_p, bytes or None
# for char *, a c_size_t), which skips one conversion per argument on every call (about a third of
# the call's cost). `lib[...]` makes a function object of its own, leaving `lib.ilk_router_match_packed`
# declared. Prebuilt lengths for URIs of up to 256 bytes.
# Called through PyDLL, the same library, which keeps the GIL over the call: a lookup calls nothing
# back and takes well under a microsecond, so releasing and retaking the GIL around it (what CDLL
# does, about a tenth of the call here) buys other threads nothing. The library's own lock is never
# held while it calls out, so waiting on it with the GIL held cannot deadlock.
_pydll = ctypes.PyDLL(lib._name, handle=lib._handle)
_match_packed = _pydll["ilk_router_match_packed"]
_match_packed.restype = ctypes.c_int64
# The calls of every `resolve`, the same way: the router's c_void_p, bytes or None, a c_size_t and
# byref() for the resolve; the result's c_void_p, a buffer, a c_size_t and byref() for the copy.
# Keeping the GIL over a resolve is safe for the same reason (the library's lock is never held
# while it calls out), and a Python callback the resolve calls takes the GIL it already holds.
_resolve = _pydll["ilk_router_resolve"]
_result_copy = _pydll["ilk_result_copy"]
_result_free = _pydll["ilk_result_free"]
_result_free.restype = None
_response_copy = _pydll["ilk_response_copy"]
_COPY_BUFFER = 4096
_COPY_CAPACITY = c_size_t(_COPY_BUFFER)
_BYTE_ORDER = sys.byteorder
# Buffers for `_copied` not in use: one is taken for a copy and given back after it (list.pop and
# list.append are atomic), so threads, and a finalizer run during a copy, never share one; there
# are as many as copies ever ran at once.
_copy_buffers: list[Any] = []


def _copied(copy: Any, handle: c_void_p) -> tuple[list[str], bytes]:
    """What ilk_result_copy or ilk_response_copy (`copy`) writes for `handle`: its text split at
    the NUL bytes, and the body. Written into a buffer of `_copy_buffers`, or into one made for a
    copy larger than that."""
    try:
        buffer = _copy_buffers.pop()
    except IndexError:
        buffer = ctypes.create_string_buffer(_COPY_BUFFER)
    needed = c_size_t()
    if copy(handle, buffer, _COPY_CAPACITY, byref(needed)) != n.OK:
        _copy_buffers.append(buffer)
        buffer = ctypes.create_string_buffer(needed.value)
        _check(copy(handle, buffer, needed, byref(needed)))
    size = needed.value
    text_end = 8 + int.from_bytes(buffer[:8], _BYTE_ORDER)
    parts = buffer[8:text_end].decode("utf-8", "surrogateescape").split("\0")
    body = buffer[text_end:size] if size > text_end else b""
    if len(buffer) == _COPY_BUFFER:
        _copy_buffers.append(buffer)
    return parts, body
_LENGTHS = [c_size_t(i) for i in range(257)]


class Router:
    """A route table with its pipeline. Safe to use from several threads at once."""

    def __init__(self, case_insensitive: bool = False, strict_slash: bool = False) -> None:
        handle = c_void_p()
        flags = (n.CASE_INSENSITIVE if case_insensitive else 0) | (n.STRICT_SLASH if strict_slash else 0)
        _check(lib.ilk_router_new(byref(handle), flags))
        self._handle = handle
        self._keep: list[Any] = []          # callbacks the library holds, alive as long as the router
        self._lock = threading.Lock()
        self._slots = threading.local()
        # Route id -> (id, name, pattern): the head of every Match for that route, so that a match
        # makes its Match by adding the parameters to it.
        self._routes: dict[int, tuple[int, Optional[str], str]] = {}
        self._finalizer = weakref.finalize(self, lib.ilk_router_free, handle.value)
        self._pointer: Optional[int] = handle.value

    # -- lifecycle

    def close(self) -> None:
        """Frees the library's router now (also done when the router is garbage-collected)."""
        self._pointer = None
        self._finalizer()
        self._keep.clear()

    def __enter__(self) -> "Router":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def _h(self) -> int:
        pointer = self._pointer
        if pointer is None:
            raise InvalidArgumentError("router is closed", n.EINVAL)
        return pointer

    def _retain(self, callback: Any) -> Any:
        with self._lock:
            self._keep.append(callback)
        return callback

    # -- routes

    def add_route(self, pattern: str, fn: Optional[Destination] = None, name: Optional[str] = None,
                  guard: Optional[Callable[[Request], bool]] = None) -> int:
        """Adds a route; returns its id. Raises PatternError (with `offset`) or ConflictError."""
        callback = self._retain(n.DESTINATION_FN(_destination(self, fn))) if fn is not None else n.DESTINATION_FN()
        route_id = c_uint32()
        if name is None:
            _check(lib.ilk_router_add_route(self._h, _b(pattern, "pattern"), callback, None, None, byref(route_id)))
        else:
            _check(lib.ilk_router_add_named_route(self._h, _b(pattern, "pattern"), _b(name, "route name"), callback, None, None, byref(route_id)))
        if guard is not None:
            self._set_guard(route_id.value, guard)
        return route_id.value

    def route(self, pattern: str, name: Optional[str] = None,
              guard: Optional[Callable[[Request], bool]] = None) -> Callable[[Destination], Destination]:
        """Decorator form of `add_route`: returns the function, with the route's id as its
        `route_id` attribute."""
        def register(fn: Destination) -> Destination:
            route_id = self.add_route(pattern, fn, name=name, guard=guard)
            try:
                fn.route_id = route_id  # type: ignore[attr-defined]
            except AttributeError:
                pass
            return fn
        return register

    def default(self, fn: Destination) -> Destination:
        """Decorator: the destination for requests no route matched."""
        callback = self._retain(n.DESTINATION_FN(_destination(self, fn)))
        _check(lib.ilk_router_set_default(self._h, callback, None, None))
        return fn

    def _set_guard(self, route_id: int, guard: Callable[[Request], bool]) -> None:
        def call(pointer: int, _userdata: Any) -> int:
            ctx = _context()
            request = self._request(pointer, ctx)
            try:
                return 1 if guard(request) else 0
            except BaseException as error:  # noqa: BLE001 - re-raised from resolve()
                return _failed(ctx, error, pointer, request)
            finally:
                lent = weakref.ref(request)
                del request
                _settle(lent)
        _check(lib.ilk_router_set_guard(self._h, route_id, self._retain(n.GUARD_FN(call)), None, None))

    def _route_info(self, route_id: int) -> tuple[int, Optional[str], str]:
        """(route id, name, pattern) of a route, asked of the library once."""
        info = self._routes.get(route_id)
        if info is None:
            name, pattern = c_char_p(), c_char_p()
            _check(lib.ilk_router_route_name(self._h, route_id, byref(name)))
            _check(lib.ilk_router_route_pattern(self._h, route_id, byref(pattern)))
            info = (route_id, text(name.value), text(pattern.value) or "")
            self._routes[route_id] = info
        return info

    def _request(self, pointer: int, ctx: _Context) -> Request:
        return Request(pointer, ctx.state, self)

    def __len__(self) -> int:
        return int(lib.ilk_router_route_count(self._h))

    # -- the fast path

    def _slot(self) -> _MatchSlot:
        try:
            return self._slots.slot
        except AttributeError:
            slot = self._slots.slot = _MatchSlot()
            return slot

    def match(self, uri: str, method: Optional[str] = None) -> Optional[Match]:
        """The route `uri` matches under `method` (None or "": any method), or None (no route, or
        only under other methods). No Python callback runs. Raises URIError for a malformed URI,
        InvalidArgumentError for a malformed method (a NUL byte in it, among others)."""
        try:
            slot = self._slots.slot
        except AttributeError:
            slot = self._slot()
        pointer = self._pointer
        if pointer is None:
            raise InvalidArgumentError("router is closed", n.EINVAL)
        try:
            data = uri.encode()        # UTF-8 (the default: naming it costs a lookup a call)
        except UnicodeEncodeError:
            data = _uri_b(uri)
        length = len(data)
        # The method as `_method_b` makes it, inline: a call costs more than the rest of it.
        method_bytes = (_METHODS.get(method) or _method_b(method)) if method else None
        rc = _match_packed(self._handle, method_bytes, data,
                           _LENGTHS[length] if length <= 256 else c_size_t(length), slot.handle)
        if rc < _MATCHED:
            if rc < 0:
                _raise(rc)
            return None
        route_id = rc >> 32
        size = rc & 0xFFFFFFFF
        if not size:
            params: dict[str, str] = {}
        elif size <= _SLOT_BUFFER:
            # "name\0value\0..." split ends with an empty string. Dict displays for up to three
            # parameters: building a dict from an iterator costs several times more.
            parts = slot.buffer[:size].decode().split("\0")
            count = len(parts)
            if count == 3:
                params = {parts[0]: parts[1]}
            elif count == 5:
                params = {parts[0]: parts[1], parts[2]: parts[3]}
            elif count == 7:
                params = {parts[0]: parts[1], parts[2]: parts[3], parts[4]: parts[5]}
            else:
                params = _pairs(parts)
        else:
            params = dict(_match_params(slot.handle))
        return _new_tuple(Match, (self._routes.get(route_id) or self._route_info(route_id)) + (params,))

    def match_many(self, uris: Sequence[str],
                   method: Union[None, str, Sequence[Optional[str]]] = None) -> "MatchList":
        """`match` for a whole sequence in one call into the library. `method` is one method for
        every URI, or a sequence of one per URI (None or "" for any method). Returns a `MatchList`:
        a sequence of `Match` or None, one per URI, each made when first read. Raises URIError for
        the first malformed URI (the message names its index)."""
        slot = self._slot()
        count = len(uris)
        # The URIs one after another, each followed by a NUL: the last by the one that ends every
        # bytes object, which c_char_p hands over (not appending it spares a copy of them all).
        try:
            data = "\0".join(uris).encode()
        except UnicodeEncodeError:
            for i, u in enumerate(uris):
                _uri_b(u, f"URI {i}")
            raise
        data_len = len(data) + 1 if count else 0
        if method is None or isinstance(method, str):
            methods = _method_b(method)
            methods_len = len(methods) + 1 if methods else 0     # with the NUL that ends bytes
        else:
            if len(method) != count:
                raise InvalidArgumentError(f"{len(method)} methods for {count} URIs", n.EINVAL)
            try:
                joined = "\0".join(method)
            except TypeError:
                joined = "\0".join(m or "" for m in method)
            try:
                methods = joined.encode()
            except UnicodeEncodeError:
                for i, m in enumerate(method):
                    _b(m, f"method {i}")
                raise
            methods_len = len(methods) + 1
        rc = lib.ilk_router_match_requests(self._h, methods, methods_len, data, data_len, slot.batch,
                                           slot.view_ref)
        view = slot.view
        if rc != n.OK or view.count != count:
            # The library counted URIs or methods otherwise than we did: one holds a NUL byte.
            for i, u in enumerate(uris):
                if "\0" in u:
                    raise URIError(f"URI {i}: NUL byte at offset {u.encode().index(0)}", n.EURI, u.encode().index(0))
            if methods_len and not isinstance(method, str):
                for i, m in enumerate(method):
                    if m and "\0" in m:
                        raise InvalidArgumentError(f"method {i}: NUL byte at offset {m.index(chr(0))}", n.EINVAL)
            _check(rc)
            raise InvalidArgumentError(f"the library counted {view.count} URIs where {count} were given", n.EINVAL)
        # One copy of the answers, which the next batch on this thread overwrites.
        blob = ctypes.string_at(view.data, view.size)
        if view.first_error < count:
            answers = MatchList(self, blob, count)
            statuses, _, offsets, text_ = answers._parts()
            i = view.first_error
            message = str(text_[offsets[i]:offsets[i + 1]], "utf-8").rstrip("\0")
            raise URIError(f"URI {i}: {message}", statuses[i], None)
        return MatchList(self, blob, count)

    # -- the pipeline

    def add_filter(self, fn: Callable[[Request, Callable[[Request], Response]], Any]) -> Callable[..., Any]:
        """Appends a filter `fn(request, next)`: return `next(request)` (possibly changed) to
        continue, return without calling it to stop, or return `request.redirect(uri)` /
        `request.redirect_to(name, **params)` to redirect."""
        router = self

        def call(request_pointer: int, chain: int, _userdata: Any) -> int:
            ctx = _context()
            request = router._request(request_pointer, ctx)
            returned = None
            # One entry per call of next(): the response it gave and what it held (None if it failed).
            called: list[Optional[tuple[Response, int, bytes, list[tuple[str, str]]]]] = []
            try:
                def next_(req: Request) -> Response:
                    req._sync(request_pointer)
                    rc = lib.ilk_filter_chain_next(chain, request_pointer)
                    called.append(None)
                    if rc < 0:
                        if ctx.exception is not None:
                            raise ctx.exception
                        raise CallbackError(text(lib.ilk_errmsg()) or "next failed", rc)
                    response = _read_response(lib.ilk_filter_chain_response(chain))
                    response.request = req
                    called[-1] = (response, response.status, response.body, list(response.headers))
                    return response

                returned = fn(request, next_)
                if isinstance(returned, _Redirect):
                    if returned.uri is not None:
                        lib.ilk_filter_chain_redirect(chain, _b(returned.uri, "redirect URI"))
                    else:
                        names, values = _name_value_arrays(returned.params)
                        lib.ilk_filter_chain_redirect_to_route(chain, _b(returned.name, "route name"), names, values, len(returned.params))
                    return n.REDIRECT
                if not called:
                    return n.STOP
                if isinstance(returned, Response) and not _unchanged(returned, called[-1]):
                    _write_response(lib.ilk_filter_chain_response(chain), returned)
                return n.CONTINUE
            except BaseException as error:  # noqa: BLE001 - re-raised from resolve()
                return _failed(ctx, error, request_pointer, request)
            finally:
                returned = None   # a response from next() holds the request it was given
                called.clear()
                lent = weakref.ref(request)
                del request
                _settle(lent)

        _check(lib.ilk_router_add_filter(self._h, _b(getattr(fn, "__name__", None), "filter name"),
                                         self._retain(n.FILTER_FN(call)), None, None))
        return fn

    filter = add_filter

    def add_request_interceptor(self, interceptor: Any, route: Union[int, str, None] = None) -> None:
        """Adds a request interceptor (`fn(request)`, an object with `intercept(request)`, a
        composition or a built-in) globally or to a route's scope (its name or id)."""
        self._add_interceptor(interceptor, route, response=False)

    def add_response_interceptor(self, interceptor: Any, route: Union[int, str, None] = None) -> None:
        """Adds a response interceptor (`fn(response)`, an object with `intercept(response)`, a
        composition or a built-in) globally or to a route's scope (its name or id)."""
        self._add_interceptor(interceptor, route, response=True)

    def _route_id(self, route: Union[int, str, None]) -> int:
        if route is None:
            return 0
        if isinstance(route, int):
            return route
        for route_id in range(1, len(self) + 1):
            if self._route_info(route_id)[1] == route:
                return route_id
        raise UnknownRouteError(f"no route is named '{route}'", n.ENOROUTE)

    def _add_interceptor(self, interceptor: Any, route: Union[int, str, None], response: bool) -> None:
        route_id = self._route_id(route)
        handle = self._interceptor(interceptor, response)
        try:
            _check(lib.ilk_router_add_interceptor(self._h, handle, route_id))
        finally:
            lib.ilk_interceptor_free(handle)

    def _interceptor(self, item: Any, response: bool) -> int:
        """A new library interceptor handle for `item` (the caller frees it)."""
        out = c_void_p()
        if isinstance(item, _Composite):
            handles = [self._interceptor(part, response) for part in item.parts]
            try:
                _check(lib.ilk_interceptor_chain_in_order(byref(out), (c_void_p * len(handles))(*handles), len(handles)))
            finally:
                for h in handles:
                    lib.ilk_interceptor_free(h)
            return out.value  # type: ignore[return-value]
        if isinstance(item, ValidateStatus):
            _check(lib.ilk_interceptor_new_validate_status(byref(out), item.allowed.start, item.allowed.stop - 1))
            return out.value  # type: ignore[return-value]
        if isinstance(item, LoggingInterceptor):
            request_side, response_side = c_void_p(), c_void_p()
            sink = item.sink
            log = self._retain(n.LOG_FN(lambda line, _u: sink(text(line) or ""))) if sink else n.LOG_FN()
            _check(lib.ilk_interceptor_new_logging(byref(request_side), byref(response_side), log, None, None))
            keep, drop = (response_side, request_side) if response else (request_side, response_side)
            lib.ilk_interceptor_free(drop)
            return keep.value  # type: ignore[return-value]
        fn = getattr(item, "intercept", item)
        if not callable(fn):
            raise TypeError(f"not an interceptor: {item!r}")
        label = _b(getattr(item, "__name__", type(item).__name__), "interceptor name")
        router = self
        if response:
            def call_response(request_pointer: int, response_pointer: int, _userdata: Any) -> int:
                ctx = _context()
                request = router._request(request_pointer, ctx)
                current = None
                try:
                    current = _read_response(response_pointer)
                    current.request = request
                    before = (current.status, current.body, list(current.headers))
                    fn(current)
                    if (current.status, current.body, current.headers) != before:
                        _write_response(response_pointer, current)
                    return n.RETRY if current._retry else n.CONTINUE
                except Abort as abort:
                    lib.ilk_response_set_error(response_pointer, _message_b(abort.reason))
                    return n.ABORT
                except BaseException as error:  # noqa: BLE001
                    return _failed(ctx, error, request_pointer, request)
                finally:
                    current = None   # the response holds the request
                    lent = weakref.ref(request)
                    del request
                    _settle(lent)
            _check(lib.ilk_interceptor_new_response(byref(out), label, self._retain(n.RESPONSE_INTERCEPTOR_FN(call_response)), None, None))
        else:
            def call_request(request_pointer: int, _userdata: Any) -> int:
                ctx = _context()
                request = router._request(request_pointer, ctx)
                try:
                    fn(request)
                    request._sync(request_pointer)
                    return n.CONTINUE
                except Abort as abort:
                    lib.ilk_request_set_error(request_pointer, _message_b(abort.reason))
                    return n.ABORT
                except BaseException as error:  # noqa: BLE001
                    return _failed(ctx, error, request_pointer, request)
                finally:
                    lent = weakref.ref(request)
                    del request
                    _settle(lent)
            _check(lib.ilk_interceptor_new_request(byref(out), label, self._retain(n.REQUEST_INTERCEPTOR_FN(call_request)), None, None))
        return out.value  # type: ignore[return-value]

    def set_limits(self, redirects: int = 8, retries: int = 3) -> None:
        """How many redirects and retries one resolve may take."""
        _check(lib.ilk_router_set_limits(self._h, redirects, retries))

    def set_match_limit(self, limit: int) -> None:
        """Bounds the work one lookup may do on a hostile URI: each regex a lookup runs (a
        constraint, on its own segment, or a part of the table compiled to one regex) may take at
        most `limit` backtracking steps (10000 unless set; 0 restores that). Past it the lookup
        raises LimitError naming the route whose constraint ran out."""
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise TypeError(f"limit must be an int, not {type(limit).__name__}")
        if not 0 <= limit <= 0xFFFFFFFF:
            raise InvalidArgumentError(f"limit {limit} is outside 0...4294967295", n.EINVAL)
        _check(lib.ilk_router_set_match_limit(self._h, limit))

    def resolve(self, uri: str, method: Optional[str] = None) -> Result:
        """Runs the pipeline for `uri` under `method` (None or "": any method). A Python exception
        raised by any callback is re-raised here with its own type and traceback; URIError for a
        malformed URI, InvalidArgumentError for a malformed method."""
        data = _uri_b(uri)
        length = len(data)
        if self._pointer is None:
            raise InvalidArgumentError("router is closed", n.EINVAL)
        handle = self._handle
        method_bytes = (_METHODS.get(method) or _method_b(method)) if method else None
        return self._run(lambda out: _resolve(handle, method_bytes, data,
                                              _LENGTHS[length] if length <= 256 else c_size_t(length), out))

    def _run(self, call: Callable[[Any], int]) -> Result:
        ctx = _Context()
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(ctx)
        out = c_void_p()
        try:
            rc = call(byref(out))
        finally:
            stack.pop()
        if out.value is None:
            if ctx.exception is not None:
                raise ctx.exception
            if rc < 0:
                _raise(rc)
            return None  # type: ignore[return-value]  (replay with nothing pending)
        try:
            if ctx.exception is not None:
                raise ctx.exception
            return self._result(out, rc, ctx)
        finally:
            _result_free(out)

    def _result(self, r: c_void_p, rc: int, ctx: _Context) -> Result:
        # One library call: the packed text (everything but the body), then the body.
        parts, body = _copied(_result_copy, r)
        status = int(parts[0])
        error = None if parts[1] == "0" else parts[1][1:]
        i = 2
        count = int(parts[i])
        headers = list(zip(parts[i + 1:i + 1 + 2 * count:2], parts[i + 2:i + 2 + 2 * count:2]))
        i += 1 + 2 * count
        count = int(parts[i])
        trace = parts[i + 1:i + 1 + 3 * count]   # made into entries when read (Result.trace)
        i += 1 + 3 * count
        count = int(parts[i])
        redirects = parts[i + 1:i + 1 + count]
        i += 1 + count
        count = int(parts[i])
        allowed = parts[i + 1:i + 1 + count]
        i += 1 + count
        request = Request._unpacked(parts, i, ctx.state, self)
        response = Response._of(status, body, headers)
        response.request = request
        return Result(
            status=_STATUS_OF.get(rc) or Status(rc), response=response, route=None, route_id=None, pattern=None,
            params={}, query=QueryDict(), redirects=redirects, state=ctx.state, trace=None, error=error, allowed=allowed,
            _trace_fields=trace, _request=request)

    # -- pending link and URLs

    @property
    def pending_link(self) -> Optional[str]:
        """The last URI a guard refused, if not taken or replayed since."""
        return self._copy_link(lib.ilk_router_pending_link)

    def take_pending_link(self) -> Optional[str]:
        """The pending link, cleared."""
        return self._copy_link(lib.ilk_router_take_pending_link)

    def _copy_link(self, function: Any) -> Optional[str]:
        size = 256
        while True:
            buffer = ctypes.create_string_buffer(size)
            length = function(self._h, buffer, size)
            if length == 0:
                return None
            if length < size:
                return buffer.value.decode("utf-8")
            size = length + 1

    def replay_pending_link(self) -> Optional[Result]:
        """Resolves the pending link again (None if there is none); it stays cleared unless refused again."""
        return self._run(lambda out: lib.ilk_router_replay_pending_link(self._h, out))

    def url_for(self, name: str, **params: Any) -> str:
        """The URI of the named route with these parameter values (encoded, constraints checked)."""
        values = {k: str(v) for k, v in params.items()}
        names_array, values_array = _name_value_arrays(values)
        length = c_size_t()
        size = 256
        while True:
            buffer = ctypes.create_string_buffer(size)
            rc = lib.ilk_router_url_for(self._h, _b(name, "route name"), names_array, values_array, len(values), buffer, size, byref(length))
            if rc == n.OK:
                return buffer.value.decode("utf-8")
            if rc == n.EINVAL and length.value >= size:
                size = length.value + 1
                continue
            _raise(rc)


# ----------------------------------------------------------------------------------------------
# Callback plumbing


def _failed(ctx: _Context, error: BaseException, request_pointer: int, request: Optional[Request] = None) -> int:
    if request is not None:
        request._keep()   # the exception's traceback holds it past the callback
    if ctx.exception is None:
        ctx.exception = error
    lib.ilk_request_set_error(request_pointer, _message_b(f"{type(error).__name__}: {_text_of(error)}"))
    return -1


def _name_value_arrays(values: Mapping[str, str]) -> tuple[Any, Any]:
    keys = list(values)
    names = (c_char_p * max(len(keys), 1))(*[_b(k, "parameter name") for k in keys])
    vals = (c_char_p * max(len(keys), 1))(*[_b(values[k], f"parameter {k!r}") for k in keys])
    return names, vals


def _read_response(pointer: int) -> Response:
    """The library's response at `pointer`, in one call (ilk_response_copy)."""
    parts, body = _copied(_response_copy, c_void_p(pointer))
    count = int(parts[1])
    return Response._of(int(parts[0]), body, list(zip(parts[2:2 + 2 * count:2], parts[3:3 + 2 * count:2])))


def _unchanged(response: Response, given: Optional[tuple[Response, int, bytes, list[tuple[str, str]]]]) -> bool:
    """Whether `response` is the one next() gave (`given`: it and what it held), as it was: the
    library's already, with nothing to write."""
    return given is not None and given[0] is response and (response.status, response.body, response.headers) == given[1:]


def _write_response(pointer: int, response: Response) -> None:
    lib.ilk_response_set_status(pointer, int(response.status))
    lib.ilk_response_set_body(pointer, response.body, len(response.body))
    lib.ilk_response_clear_headers(pointer)
    for k, v in response.headers:
        lib.ilk_response_add_header(pointer, _b(k, "header name"), _b(v, f"header {k!r}"))


def _destination(router: "Router", fn: Destination) -> Callable[[int, int, Any], int]:
    def call(request_pointer: int, response_pointer: int, _userdata: Any) -> int:
        ctx = _context()
        request = router._request(request_pointer, ctx)
        returned = None
        try:
            returned = fn(request)
            if returned is None:
                return n.OK
            if isinstance(returned, bool):
                raise TypeError("a destination returns None, an int, str, bytes or Response, not bool")
            if isinstance(returned, int):
                lib.ilk_response_set_status(response_pointer, returned)
            elif isinstance(returned, (str, bytes, bytearray)):
                body = returned.encode("utf-8") if isinstance(returned, str) else bytes(returned)
                lib.ilk_response_set_body(response_pointer, body, len(body))
            elif isinstance(returned, Response):
                _write_response(response_pointer, returned)
            else:
                raise TypeError(f"a destination returns None, an int, str, bytes or Response, not {type(returned).__name__}")
            return n.OK
        except BaseException as error:  # noqa: BLE001 - re-raised from resolve()
            return _failed(ctx, error, request_pointer, request)
        finally:
            returned = None
            lent = weakref.ref(request)
            del request
            _settle(lent)
    return call
