"""A WSGI router on Interlock: the routes, mounts, hosts, URLs, filters and guards of
`interlock.asgi`, for WSGI apps (Flask, Django, werkzeug, gunicorn, any WSGI server).

    from interlock.wsgi import Router

    router = Router()

    @router.route("GET /files/:name")
    def file(environ, start_response):     # a WSGI app; environ["wsgiorg.routing_args"][1]["name"]
        ...

The request is matched on its raw target (`REQUEST_URI` or `RAW_URI`, which gunicorn, uWSGI,
mod_wsgi and werkzeug's server set) when it holds the same path as `SCRIPT_NAME` + `PATH_INFO`,
so that `%2F` stays inside a parameter; otherwise on `PATH_INFO`. The package README ("ASGI and
WSGI") has the rest.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, Callable, Iterable, Optional, Sequence
from urllib.parse import unquote, urlsplit

from . import _web
from ._router import Status
from ._web import Mount, NoMatchFound, Route, URLPath, below_root, mounted_prefix, quote_path

__all__ = ["Mount", "NoMatchFound", "Route", "Router", "URLPath"]

WSGIApp = Callable[[dict, Callable[..., Any]], Iterable[bytes]]


def _wsgi_str(text: str) -> str:
    """A str as WSGI carries one (its UTF-8 bytes as latin-1 characters)."""
    return text.encode("utf-8").decode("latin-1")


def _text(wsgi: str) -> str:
    """What a WSGI str (bytes as latin-1 characters) holds, read as UTF-8."""
    return wsgi.encode("latin-1").decode("utf-8", "replace")


class Router(_web.Table):
    """A WSGI app that routes requests by Interlock patterns to WSGI apps. `routes`: `Route`
    and `Mount` objects to add; `default`: the app for requests no route takes (404 otherwise);
    `case_insensitive`, `strict_slash`: the library router's options.

    A route's app gets the parameters, decoded, in `environ["wsgiorg.routing_args"]` (the
    wsgiorg convention: `((), {name: value})`, merged with those of an enclosing router) and the
    route in `environ["interlock.route"]`. A mounted app gets `SCRIPT_NAME` extended by the part of
    the path the prefix took and `PATH_INFO` the rest, as WSGI has it."""

    def __init__(self, routes: Optional[Sequence[Any]] = None, *, default: Optional[WSGIApp] = None,
                 case_insensitive: bool = False, strict_slash: bool = False) -> None:
        super().__init__(case_insensitive=case_insensitive, strict_slash=strict_slash)
        if default is not None and not callable(default):
            raise TypeError(f"default must be a WSGI app, not {type(default).__name__}")
        self.default = default
        for route in routes or ():
            self.add(route)

    @staticmethod
    def _app_of(endpoint: Any, what: str) -> WSGIApp:
        if not callable(endpoint):
            raise TypeError(f"{what} must be a WSGI app (callable), not {type(endpoint).__name__}")
        return endpoint

    def add_route(self, path: str, endpoint: WSGIApp, methods: Optional[Iterable[str]] = None, name: Optional[str] = None,
                  *, guard: Optional[Callable[..., bool]] = None) -> Route:
        """Adds a route to a WSGI app, as `interlock.asgi.Router.add_route`; returns the `Route`."""
        return self.add(Route(path, endpoint, methods, name, guard=guard))  # type: ignore[return-value]

    def mount(self, path: str, app: WSGIApp, name: Optional[str] = None) -> Mount:
        """Mounts a WSGI app under `path` (an Interlock pattern); returns the `Mount`."""
        return self.add(Mount(path, app, name))  # type: ignore[return-value]

    def __call__(self, environ: dict, start_response: Callable[..., Any]) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        root = _text(environ.get("SCRIPT_NAME", ""))
        path = root + _text(environ.get("PATH_INFO", ""))
        target = environ.get("REQUEST_URI") or environ.get("RAW_URI")
        raw: Optional[str] = None
        if target is not None:
            try:
                raw = target.encode("latin-1").decode("utf-8")
            except (UnicodeEncodeError, UnicodeDecodeError):
                return _plain(start_response, 400, "path is not UTF-8")
            raw = raw.partition("?")[0]
            if "://" in raw.split("/", 1)[0]:          # an absolute-form target
                raw = "/" + raw.split("://", 1)[1].partition("/")[2]
        if raw is not None or root:
            raw, _ = below_root(raw, path, root)
        else:
            raw = quote_path(path)
        uri = raw or "/"
        if self.origins:
            uri = f"{environ.get('wsgi.url_scheme', 'http')}://{_host(environ)}{uri}"
        if self.pipeline and environ.get("QUERY_STRING"):
            uri += "?" + environ["QUERY_STRING"]
        code, found, params, redirected = self.find(uri, method, ("environ", environ))
        if code == _web.FOUND:
            if redirected is not None:
                _rewrite(environ, redirected)
            return self._enter(found, params, environ, start_response)
        if code == _web.NOT_FOUND:
            if self.default is not None:
                return self.default(environ, start_response)
            return _plain(start_response, 404)
        if code == _web.NOT_ALLOWED:
            return _plain(start_response, 405, headers=[("Allow", ", ".join(found))])
        if code == _web.BAD_REQUEST:
            return _plain(start_response, 400, found)
        if found.status is Status.GUARDED:
            return _plain(start_response, 403)
        if found.status is Status.STOPPED:
            status, body, headers = _web.stopped_response(found)
            start_response(f"{status} {_phrase(status)}", [*headers, ("Content-Length", str(len(body)))])
            return [body]
        return _plain(start_response, 500, found.error or found.status.name)

    def _enter(self, target: Any, params: dict[str, str], environ: dict,
               start_response: Callable[..., Any]) -> Iterable[bytes]:
        if isinstance(target, Mount):
            rest = params.pop("*", "")
            path_info = _text(environ.get("PATH_INFO", ""))
            prefix = mounted_prefix(path_info, rest)
            if path_info.startswith(prefix):
                environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + _wsgi_str(prefix)
                environ["PATH_INFO"] = _wsgi_str(path_info[len(prefix):])
        outer = environ.get("wsgiorg.routing_args")
        if outer and outer[1]:
            params = {**outer[1], **params}
        environ["wsgiorg.routing_args"] = ((), params)
        environ["interlock.route"] = target
        environ.setdefault("interlock.router", self)
        return target.app(environ, start_response)


def _host(environ: dict) -> str:
    host = environ.get("HTTP_HOST")
    if host:
        return host
    return f"{environ.get('SERVER_NAME', 'localhost')}:{environ.get('SERVER_PORT', '80')}"


def _rewrite(environ: dict, uri: str) -> None:
    """A filter redirected to `uri`: PATH_INFO and QUERY_STRING become its own, under the same
    SCRIPT_NAME, and the raw target is dropped (it no longer says the path)."""
    parts = urlsplit(uri)
    environ["PATH_INFO"] = _wsgi_str(unquote(parts.path or "/"))
    environ["QUERY_STRING"] = parts.query
    environ.pop("REQUEST_URI", None)
    environ.pop("RAW_URI", None)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def _plain(start_response: Callable[..., Any], status: int, detail: Optional[str] = None,
           headers: Sequence[tuple[str, str]] = ()) -> list[bytes]:
    body = (_phrase(status) + (f": {detail}" if detail else "")).encode()
    start_response(f"{status} {_phrase(status)}", [("Content-Type", "text/plain; charset=utf-8"),
                                                   ("Content-Length", str(len(body))), *headers])
    return [body]
