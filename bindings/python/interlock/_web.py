"""The route table that `interlock.asgi` and `interlock.wsgi` share: web routes and mounts over an
`interlock.Router`, the path a request is matched on (the raw one, below the root path), the
lookup (a `match`, or a `resolve` when filters or guards take part) and URLs from route names.
What a pattern means and which route wins are the library's; this only converts."""

from __future__ import annotations

import contextvars
import re
from typing import Any, Callable, Iterable, Optional, Union
from urllib.parse import quote, unquote

from ._router import MethodNotAllowedError, Response, Router as _Core, Status, URIError
from ._values import _Redirect

try:     # Starlette's, when it is installed, so that its Mount and url_for take ours for its own
    from starlette.datastructures import URLPath as _URLPathBase
    from starlette.routing import NoMatchFound as _NoMatchBase
except ImportError:      # pragma: no cover  (the package needs no Starlette)
    _URLPathBase = None  # type: ignore[assignment,misc]
    _NoMatchBase = LookupError  # type: ignore[assignment,misc]


_NO_MATCH_BASES = (_NoMatchBase,) if _NoMatchBase is LookupError else (_NoMatchBase, LookupError)


class NoMatchFound(*_NO_MATCH_BASES):  # type: ignore[misc]
    """`url_path_for` found no route of that name, or the parameters do not fit it (the message
    says which). A `LookupError`; with Starlette installed, also Starlette's `NoMatchFound`, so
    that Starlette's `Mount` and `request.url_for` take it for theirs."""

    def __init__(self, name: str, path_params: dict[str, Any], reason: Optional[str] = None) -> None:
        Exception.__init__(self, reason or f"no route is named {name!r}")
        self.name, self.path_params = name, path_params


if _URLPathBase is not None:
    URLPath = _URLPathBase
else:      # pragma: no cover
    class URLPath(str):  # type: ignore[no-redef]
        """A URL's path, with the host a route of a host gives it (Starlette's `URLPath`'s shape)."""

        def __new__(cls, path: str, protocol: str = "", host: str = "") -> "URLPath":
            return str.__new__(cls, path)

        def __init__(self, path: str, protocol: str = "", host: str = "") -> None:
            self.protocol, self.host = protocol, host

        def make_absolute_url(self, base_url: str) -> str:
            """This path under `base_url` (its scheme, its host unless this has one, its path)."""
            scheme, _, rest = str(base_url).partition("://")
            netloc, _, base_path = rest.partition("/")
            return f"{scheme}://{self.host or netloc}{('/' + base_path).rstrip('/')}{self}"


# pchar of RFC 3986 and "/": a decoded path quoted back so that the library reads the same path.
_PATH_SAFE = "/:@!$&'()*+,;=-._~"
_METHOD = re.compile(r"^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]* ")
_ORIGIN = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*")
_PARAM = re.compile(r"(?<!\\)[:*]([A-Za-z0-9_]+)")

# (key, value) a front puts in every filter's and guard's `request.state`: ("scope", scope) or
# ("environ", environ). A context variable: callbacks run inside the resolve, on its thread.
current: contextvars.ContextVar[tuple[str, Any]] = contextvars.ContextVar("interlock_web_current")

FOUND, NOT_FOUND, NOT_ALLOWED, BAD_REQUEST, ANSWERED = range(5)
STOPPED_WITH = "interlock.stopped_with"     # the state's key of what a stopping filter returned


def _param_names(pattern: str) -> set[str]:
    """The parameter names of a pattern's path (not its scheme's or port's colons)."""
    return set(_PARAM.findall(_ORIGIN.sub("", _METHOD.sub("", pattern))))


def _origin(url: str) -> tuple[str, str]:
    """(host, path) of a URL that `url_for` gave: a route of a host gives `https://host/path`."""
    found = _ORIGIN.match(url)
    if found is None:
        return "", url
    return found.group(0).split("://", 1)[1], url[found.end():] or "/"


class Route:
    """A route: `path` (an Interlock pattern, with its method or without one and `methods` a list
    of them), `endpoint` as given, `name` for URLs, `guard(request)` the library's guard. `app`,
    what is called, is made from the endpoint when the route is added to a router."""

    def __init__(self, path: str, endpoint: Any, methods: Optional[Iterable[str]] = None, name: Optional[str] = None,
                 include_in_schema: bool = True, *, guard: Optional[Callable[..., bool]] = None) -> None:
        if not isinstance(path, str):
            raise TypeError(f"path must be a str, not {type(path).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        if guard is not None and not callable(guard):
            raise TypeError(f"guard must be callable, not {type(guard).__name__}")
        self.path, self.endpoint, self.name, self.guard = path, endpoint, name, guard
        self.methods: Optional[list[str]] = None
        if methods is not None:
            if isinstance(methods, str):
                raise TypeError("methods must be a collection of str, not str")
            self.methods = [m.upper() if isinstance(m, str) else m for m in methods]
            if any(not isinstance(m, str) for m in self.methods):
                raise TypeError("methods must be a collection of str")
            if _METHOD.match(path):
                raise ValueError(f"methods given twice: in the pattern {path!r} and as methods={self.methods}")
        self.app: Any = None
        self._table: Optional[Table] = None

    def _patterns(self) -> list[str]:
        if not self.methods:
            return [self.path]
        return [f"{m} {self.path}" for m in dict.fromkeys(self.methods)]

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        """This route's URL if it is the one named `name` (Starlette's routes' protocol)."""
        if self._table is None or self.name is None or name != self.name:
            raise NoMatchFound(name, path_params)
        return self._table.url_path_for(name, **path_params)

    def __repr__(self) -> str:
        methods = f", methods={self.methods}" if self.methods else ""
        return f"Route(path={self.path!r}, name={self.name!r}{methods})"


class Mount:
    """A mounted app: requests to `path` and below go to `app`, which sees the part of the path
    the prefix took as its root path. `path` is an Interlock pattern (parameters, a host)."""

    def __init__(self, path: str, app: Any, name: Optional[str] = None) -> None:
        if not isinstance(path, str):
            raise TypeError(f"path must be a str, not {type(path).__name__}")
        if not callable(app):
            raise TypeError(f"app must be callable, not {type(app).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        self.path, self.app, self.name, self.endpoint = path, app, name, app
        self._names = _param_names(path)
        self._key = name
        self._table: Optional[Table] = None

    @property
    def routes(self) -> list[Any]:
        """The mounted app's routes, if it has any (as Starlette's `Mount.routes`)."""
        return list(getattr(self.app, "routes", []) or [])

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        """The URL of `name` (the mount's own with `path=`, `mount:child`, or a child's if the
        mount has no name), as Starlette's `Mount.url_path_for`."""
        if self._table is None:
            raise NoMatchFound(name, path_params)
        if self.name is not None and name == self.name and "path" in path_params:
            rest = str(path_params.pop("path")).lstrip("/")
            return self._prefix(path_params, rest)
        if self.name is None or name.startswith(self.name + ":"):
            child = name if self.name is None else name[len(self.name) + 1:]
            finder = getattr(self.app, "url_path_for", None)
            if finder is not None:
                mine = {k: v for k, v in path_params.items() if k in self._names}
                theirs = {k: v for k, v in path_params.items() if k not in self._names}
                try:
                    url = finder(child, **theirs)
                except _NoMatchBase:
                    pass
                else:
                    prefix = self._prefix(mine, "")
                    return URLPath(str(prefix).rstrip("/") + str(url), getattr(url, "protocol", ""),
                                   getattr(url, "host", "") or prefix.host)
        raise NoMatchFound(name, path_params)

    def _prefix(self, params: dict[str, Any], rest: str) -> URLPath:
        assert self._table is not None and self._key is not None
        try:
            url = self._table.core.url_for(self._key, **params, **{"*": rest})
        except (LookupError, ValueError) as error:
            raise NoMatchFound(self.name or self.path, params, str(error)) from None
        host, path = _origin(url)
        return URLPath(path, "", host)

    def __repr__(self) -> str:
        return f"Mount(path={self.path!r}, name={self.name!r}, app={self.app!r})"


Target = Union[Route, Mount]


class Table:
    """Routes and mounts over one `interlock.Router` (`core`), for a front to call."""

    def __init__(self, *, case_insensitive: bool = False, strict_slash: bool = False) -> None:
        self.core = _Core(case_insensitive=case_insensitive, strict_slash=strict_slash)
        self._targets: dict[int, Target] = {}      # the library's route id -> the route or mount
        self._named: dict[str, Target] = {}
        self._routes: list[Target] = []
        self._mounts = 0
        self.origins = False       # a pattern names a scheme or a host: lookups need them
        self.pipeline = False      # filters or guards: lookups go through resolve

    # -- adding

    @property
    def routes(self) -> list[Target]:
        """The routes and mounts, in the order added (a copy)."""
        return list(self._routes)

    def add(self, target: Target) -> Target:
        """Adds a `Route` or a `Mount` (each belongs to one router); returns it. Errors as
        `interlock.Router.add_route`'s (a malformed pattern, a conflict), and the router is left
        as it was."""
        if not isinstance(target, (Route, Mount)):
            raise TypeError(f"route must be a Route or a Mount, not {type(target).__name__}")
        if target._table is not None:
            raise ValueError(f"{target!r} is in a router already")
        guard = None
        if isinstance(target, Route):
            app = self._app_of(target.endpoint, "endpoint")
            patterns, name = target._patterns(), target.name
            guard = target.guard
        else:
            self._mounts += 1
            target._key = name = target.name if target.name is not None else f"interlock.mount.{self._mounts}"
            patterns = [target.path.rstrip("/") + "/*"]
        if guard is not None:
            guard = self._guard(guard)
        ids: list[int] = []
        try:
            for i, pattern in enumerate(patterns):
                ids.append(self.core.add_route(pattern, name=name if i == 0 else None, guard=guard))
        except BaseException:
            for route_id in ids:
                self.core.remove_route(route_id)
            raise
        if isinstance(target, Route):
            target.app = app
        target._table = self
        for route_id in ids:
            self._targets[route_id] = target
        if target.name is not None:
            self._named[target.name] = target
        self._routes.append(target)
        if guard is not None:
            self.pipeline = True
        if any(_ORIGIN.match(_METHOD.sub("", p)) for p in patterns):
            self.origins = True
        return target

    def route(self, path: str, methods: Optional[Iterable[str]] = None, name: Optional[str] = None, *,
              guard: Optional[Callable[..., bool]] = None) -> Callable[[Any], Any]:
        """Decorator form of `add_route`; returns the endpoint."""
        def register(endpoint: Any) -> Any:
            self.add_route(path, endpoint, methods, name, guard=guard)  # type: ignore[attr-defined]
            return endpoint
        return register

    def host(self, host: str, app: Any, name: Optional[str] = None) -> list[Mount]:
        """Mounts `app` for the requests to `host` (any port; `*.example.com` for subdomains),
        over http and https alike (`mount("https://HOST", app)` for one scheme): both mounts or
        neither. The name, if given, is the https mount's."""
        if not isinstance(host, str):
            raise TypeError(f"host must be a str, not {type(host).__name__}")
        mount = self.mount  # type: ignore[attr-defined]
        first = mount(f"http://{host}", app, None)
        try:
            return [first, mount(f"https://{host}", app, name)]
        except BaseException:
            for route_id in [i for i, t in self._targets.items() if t is first]:
                self.core.remove_route(route_id)
                del self._targets[route_id]
            self._routes.remove(first)
            raise

    def _app_of(self, endpoint: Any, what: str) -> Any:
        """What a front calls for an endpoint (an ASGI app, a WSGI app)."""
        raise NotImplementedError

    def _guard(self, fn: Callable[..., bool]) -> Callable[..., bool]:
        if not callable(fn):
            raise TypeError(f"guard must be callable, not {type(fn).__name__}")

        def guard(request: Any) -> bool:
            _put(request)
            return fn(request)
        guard.__name__ = getattr(fn, "__name__", "guard")
        return guard

    def add_filter(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """A filter of the library's pipeline, `fn(request, next)`, run on every request before
        its route's guard and app (see the package README); returns `fn`."""
        if not callable(fn):
            raise TypeError(f"fn (the filter) must be callable, not {type(fn).__name__}")

        def step(request: Any, next_: Callable[[Any], Any]) -> Any:
            _put(request)
            called = []

            def chain(req: Any) -> Any:
                called.append(True)
                return next_(req)
            returned = fn(request, chain)
            if not called and not isinstance(returned, _Redirect):
                # A stop: the library's result keeps no response of a filter's; the front
                # answers this one, which the resolve's state (the result's) carries.
                if isinstance(returned, bool) or not isinstance(returned, (Response, int, str, bytes, bytearray,
                                                                           type(None))):
                    raise TypeError(f"filter {step.__name__} stopped with a {type(returned).__name__}: a filter "
                                    "that stops returns a Response, an int status, str, bytes or None")
                request.state[STOPPED_WITH] = returned
            return returned
        step.__name__ = getattr(fn, "__name__", "filter")
        self.core.add_filter(step)
        self.pipeline = True
        return fn

    filter = add_filter

    # -- looking up

    def find(self, uri: str, method: Optional[str], context: tuple[str, Any]) -> tuple[int, Any, Any, Any]:
        """(FOUND, target, params, None), or after a filter redirected (FOUND, target, params, the
        URI it ended at); (NOT_FOUND, None, None, None); (NOT_ALLOWED, allowed methods, None, None);
        (BAD_REQUEST, message, None, None); (ANSWERED, the pipeline's `Result`, None, None) when a
        filter stopped, a guard refused or an interceptor aborted. `context` is what filters and
        guards find in `request.state`."""
        if method == "HEAD":
            method = self._head(uri)
        if not self.pipeline:
            try:
                found = self.core.match(uri, method)
            except MethodNotAllowedError as error:
                return NOT_ALLOWED, _with_head(error.allowed), None, None
            except URIError as error:
                return BAD_REQUEST, str(error), None, None
            if found is None:
                return NOT_FOUND, None, None, None
            return FOUND, self._targets[found.route_id], found.params, None
        token = current.set(context)
        try:
            result = self.core.resolve(uri, method)
        except URIError as error:
            return BAD_REQUEST, str(error), None, None
        finally:
            current.reset(token)
        status = result.status
        if status is Status.OK:
            return FOUND, self._targets[result.route_id], result.params, result.redirects[-1] if result.redirects else None
        if status is Status.NOT_FOUND:
            return NOT_FOUND, None, None, None
        if status is Status.METHOD_NOT_ALLOWED:
            return NOT_ALLOWED, _with_head(result.allowed), None, None
        return ANSWERED, result, None, None

    def _head(self, uri: str) -> str:
        """HEAD, or GET where only GET (among others) takes the URI: a GET route answers HEAD."""
        try:
            self.core.match(uri, "HEAD")
        except MethodNotAllowedError as error:
            if "GET" in error.allowed:
                return "GET"
        except URIError:
            pass
        return "HEAD"

    # -- URLs

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        """The path of the route named `name` with these parameters (encoded, constraints
        checked), as Starlette's: a route of a host gives it as the result's `host`; a mount's
        name takes `path=`; `mount:child` asks a mounted app for its route `child`. Raises
        `NoMatchFound` for a name no route has or parameters that do not fit (the message says
        which)."""
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        target = self._named.get(name)
        if isinstance(target, Route):
            try:
                url = self.core.url_for(name, **path_params)
            except (LookupError, ValueError) as error:
                raise NoMatchFound(name, path_params, str(error)) from None
            host, path = _origin(url)
            return URLPath(path, "", host)
        for mount in [target] if isinstance(target, Mount) else []:
            return mount.url_path_for(name, **path_params)
        for route in self._routes:
            if isinstance(route, Mount) and (route.name is None or name.startswith(route.name + ":")):
                try:
                    return route.url_path_for(name, **dict(path_params))
                except _NoMatchBase:
                    pass
        raise NoMatchFound(name, path_params)


def _with_head(allowed: Iterable[str]) -> list[str]:
    methods = list(allowed)
    if "GET" in methods and "HEAD" not in methods:
        methods.insert(methods.index("GET") + 1, "HEAD")
    return methods


def _put(request: Any) -> None:
    key, value = current.get((None, None))
    if key is not None:
        request.state.setdefault(key, value)


def stopped_response(result: Any) -> tuple[int, bytes, list[tuple[str, str]]]:
    """(status, body, headers) of what a stopping filter returned, read as a destination's
    return value is: a `Response`, an int status, a str or bytes body, or None (an empty 200)."""
    value = result.state.get(STOPPED_WITH)
    if isinstance(value, Response):
        return value.status, value.body, list(value.headers)
    if isinstance(value, int) and not isinstance(value, bool):
        return value, b"", []
    if isinstance(value, str):
        return 200, value.encode(), [("content-type", "text/plain; charset=utf-8")]
    if isinstance(value, (bytes, bytearray)):
        return 200, bytes(value), []
    return 200, b"", []       # None


# -- the path a request is matched on


def quote_path(path: str) -> str:
    """A decoded path as the library reads it back to the same path (`%`, `?` and `#` escaped)."""
    return quote(path, safe=_PATH_SAFE)


def below_root(raw: Optional[str], path: str, root: str) -> tuple[str, str]:
    """(the raw path below `root`, that root's raw form) for a request of decoded `path` and root
    path `root` (ASGI's `root_path`, WSGI's SCRIPT_NAME). The raw path keeps `%2F` inside a
    segment, which decoding would make a separator: it is used whenever it decodes to the path
    (with the root, as a mount or Starlette passes it, or without, as a server's --root-path
    gives it); otherwise the decoded path is quoted back."""
    rel = path[len(root):] if path.startswith(root) else path
    if raw is None:
        return quote_path(rel), quote_path(root)
    decoded = unquote(raw)
    if decoded == path:
        if raw.startswith(root) and (len(raw) == len(root) or raw[len(root)] == "/"):
            return raw[len(root):], root
        cut = raw.find("/", 1)
        while cut >= 0:                   # the root written with escapes: where its raw form ends
            if unquote(raw[:cut]) == root:
                return raw[cut:], raw[:cut]
            cut = raw.find("/", cut + 1)
    elif decoded == rel:
        return raw, ""
    return quote_path(rel), quote_path(root)


def mounted_prefix(rel: str, rest: str) -> str:
    """The part of `rel` (a decoded path below the root) that a mount's pattern took, given what
    its catch-all took (`rest`, decoded): the child's root path is the parent's and this."""
    if rel != "/" and rel.endswith("/"):
        rel = rel[:-1]
    if not rest:
        return rel.rstrip("/")
    tail = "/" + rest
    if rel.endswith(tail):
        return rel[:-len(tail)]
    # The library matched a normalized path (empty and dot segments removed): take the prefix
    # from the same normalization, counted in segments.
    segments: list[str] = []
    for segment in rel.split("/"):
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in ("", "."):
            segments.append(segment)
    keep = len(segments) - len(rest.split("/"))
    return "".join("/" + s for s in segments[:max(keep, 0)])
