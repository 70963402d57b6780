"""An ASGI router on Interlock: routes to ASGI apps and endpoints with Interlock's patterns, for
uvicorn, Starlette or FastAPI in place of their router.

    from interlock.asgi import Router

    router = Router()

    @router.route("GET /files/:name")
    async def file(scope, receive, send):          # an ASGI app; scope["path_params"]["name"]
        ...

The request is matched on its raw path (`scope["raw_path"]`), so `%2F` stays inside a parameter
and the parameters are decoded afterwards. Starlette is not needed; a function taking one
argument (a Starlette `Request`) is a Starlette endpoint, which needs it. The package README
("ASGI and WSGI") has the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import traceback
from http import HTTPStatus
from typing import Any, AsyncIterator, Awaitable, Callable, Iterable, MutableMapping, Optional, Sequence
from urllib.parse import unquote, urlsplit

from . import _web
from ._router import Status
from ._web import Mount, NoMatchFound, Route, URLPath, below_root, mounted_prefix, quote_path

__all__ = ["Mount", "NoMatchFound", "Route", "Router", "URLPath"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _app_of(endpoint: Any, what: str) -> ASGIApp:
    """The ASGI app an endpoint is: an ASGI app (an object or `async def app(scope, receive,
    send)`) as it is; a function of one argument, a Starlette endpoint, wrapped by Starlette's
    `request_response` (sync ones run in its thread pool)."""
    if not callable(endpoint):
        raise TypeError(f"{what} must be callable, not {type(endpoint).__name__}")
    function = endpoint
    while hasattr(function, "func") and hasattr(function, "args"):     # functools.partial
        function = function.func
    if not (inspect.isfunction(function) or inspect.ismethod(function)):
        return endpoint         # an app object, a Starlette/FastAPI app, an HTTPEndpoint class
    try:
        parameters = inspect.signature(endpoint).parameters.values()
    except (TypeError, ValueError):
        return endpoint
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is p.empty]
    if len(positional) == 3:
        if not inspect.iscoroutinefunction(function):
            raise TypeError(f"{what} takes (scope, receive, send) but is not async: an ASGI app is a coroutine function")
        return endpoint
    if len(positional) == 1:
        try:
            from starlette.routing import request_response
        except ImportError:
            raise TypeError(f"{what} takes one argument, a Starlette request, but Starlette is not installed "
                            "(pip install starlette), or make it an ASGI app: async def app(scope, receive, send)") from None
        return request_response(endpoint)
    raise TypeError(f"{what} must take (scope, receive, send) (an ASGI app) or (request) (a Starlette endpoint), "
                    f"not {len(positional)} arguments")


class Router(_web.Table):
    """An ASGI app that routes requests by Interlock patterns to ASGI apps and endpoints.

    `routes`: `Route` and `Mount` objects to add, in order (or `add_route`, `route`, `mount`,
    `host` later).
    `default`: the app for requests no route takes (404 otherwise). `lifespan`: an async context
    manager factory, `lifespan(app)`, as Starlette's, entered at startup and left at shutdown,
    after the mounted apps' own lifespans have started. `case_insensitive`, `strict_slash`: the
    library router's options."""

    def __init__(self, routes: Optional[Sequence[Any]] = None, *, default: Optional[ASGIApp] = None,
                 lifespan: Optional[Callable[[Any], contextlib.AbstractAsyncContextManager[Any]]] = None,
                 case_insensitive: bool = False, strict_slash: bool = False) -> None:
        super().__init__(case_insensitive=case_insensitive, strict_slash=strict_slash)
        if default is not None and not callable(default):
            raise TypeError(f"default must be an ASGI app, not {type(default).__name__}")
        if lifespan is not None and not callable(lifespan):
            raise TypeError(f"lifespan must be callable, not {type(lifespan).__name__}")
        self.default = default
        self.lifespan_context = lifespan
        for route in routes or ():
            self.add(route)

    _app_of = staticmethod(_app_of)

    # -- adding

    def add_route(self, path: str, endpoint: Any, methods: Optional[Iterable[str]] = None, name: Optional[str] = None,
                  include_in_schema: bool = True, *, guard: Optional[Callable[..., bool]] = None) -> Route:
        """Adds a route: `path` is an Interlock pattern (`GET /users/:id(\\d+)`,
        `https://api.example.com/v1(/:lang)`), or one without a method and `methods` a list of
        them (as Starlette's). `endpoint` is an ASGI app, or a Starlette endpoint (a function of a
        request). `name` names it for `url_path_for`. `guard(request)`: the library's guard, run
        before the app; False answers 403. `include_in_schema` is taken for Starlette's
        signature and unused. Returns the `Route`. Errors as `interlock.Router.add_route`'s."""
        return self.add(Route(path, endpoint, methods, name, guard=guard))  # type: ignore[return-value]

    def mount(self, path: str, app: ASGIApp, name: Optional[str] = None) -> Mount:
        """Mounts `app` under `path` (an Interlock pattern, parameters allowed: `/orgs/:org`):
        it gets the requests of `path` and below, with `root_path` extended by the part of the
        path the prefix took and `path` whole (as the ASGI spec and Starlette have it), and the
        prefix's parameters in `path_params`. Returns the `Mount`."""
        return self.add(Mount(path, app, name))  # type: ignore[return-value]

    # -- answering

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        if kind == "http":
            method = scope["method"]
        elif kind == "websocket":
            method = "GET"      # the handshake's
        else:
            raise ValueError(f"interlock.asgi.Router: unknown scope type {kind!r}")
        raw_bytes = scope.get("raw_path")
        root = scope.get("root_path", "")
        raw_root = ""
        try:
            raw = None if raw_bytes is None else raw_bytes.decode()
        except UnicodeDecodeError:
            await self._refuse(scope, receive, send, 400, (), "path is not UTF-8")
            return
        if raw is not None and "?" in raw:
            raw = raw.partition("?")[0]
        if root:
            raw, raw_root = below_root(raw, scope["path"], root)
        elif raw is None:
            raw = quote_path(scope["path"])
        uri = raw or "/"         # the root itself
        if self.origins:
            uri = f"{scope.get('scheme', 'http')}://{_host(scope)}{uri}"
        if self.pipeline and scope.get("query_string"):
            uri += "?" + scope["query_string"].decode("latin-1")
        code, target, params, redirected = self.find(uri, method, ("scope", scope))
        if code == _web.FOUND:
            if redirected is not None:
                raw = _rewrite(scope, redirected, root, raw_root)
            await self._enter(target, params, scope, receive, send, root, raw)
        elif code == _web.NOT_FOUND:
            if self.default is not None:
                await self.default(scope, receive, send)
            else:
                await self._refuse(scope, receive, send, 404)
        elif code == _web.NOT_ALLOWED:
            await self._refuse(scope, receive, send, 405, (("allow", ", ".join(target)),))
        elif code == _web.BAD_REQUEST:
            await self._refuse(scope, receive, send, 400, (), target)
        else:
            await self._answer(target, scope, receive, send)

    async def _enter(self, target: Any, params: dict[str, str], scope: Scope, receive: Receive, send: Send,
                     root: str, raw: str) -> None:
        if "router" not in scope:
            scope["router"] = self
        if isinstance(target, Mount):
            rest = params.pop("*", "")
            path = scope["path"]
            rel = path[len(root):] if root and path.startswith(root) else path
            scope["root_path"] = root + mounted_prefix(rel, rest)
            if "app_root_path" not in scope:
                scope["app_root_path"] = root
        outer = scope.get("path_params")
        scope["path_params"] = {**outer, **params} if outer else params
        scope["endpoint"] = target.endpoint
        scope["route"] = target
        await target.app(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, status: int,
                      headers: Sequence[tuple[str, str]] = (), detail: Optional[str] = None) -> None:
        """404, 405 (with Allow), 400 or 403: inside a Starlette app (`"app" in scope`) raised as
        its HTTPException for its handlers to answer, as Starlette's router does; otherwise plain
        text. A websocket is closed."""
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1000, "reason": ""})
            return
        if "app" in scope:
            try:
                from starlette.exceptions import HTTPException
            except ImportError:
                pass
            else:
                raise HTTPException(status_code=status, headers=dict(headers) or None)
        text = HTTPStatus(status).phrase + (f": {detail}" if detail else "")
        await _send_plain(send, status, text, headers)

    async def _answer(self, result: Any, scope: Scope, receive: Receive, send: Send) -> None:
        """What the pipeline answered itself: a filter's response, a guard's refusal (403)."""
        if result.status is Status.GUARDED:
            await self._refuse(scope, receive, send, 403)
        elif result.status is Status.STOPPED:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": ""})
                return
            await _send(send, *_web.stopped_response(result))
        else:
            await self._refuse(scope, receive, send, 500, (), result.error or result.status.name)

    # -- the lifespan

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Starts the mounted apps' and the default app's lifespans (each with its own channel;
        one that does not take lifespan events is left out, as a server does), then
        `lifespan_context`; at shutdown leaves them in the reverse order."""
        apps: list[Any] = []
        for route in self._routes:
            if isinstance(route, Mount) and all(route.app is not app for app in apps):
                apps.append(route.app)
        if self.default is not None and all(self.default is not app for app in apps):
            apps.append(self.default)
        started = False
        await receive()
        try:
            async with contextlib.AsyncExitStack() as stack:
                for app in apps:
                    await stack.enter_async_context(_child_lifespan(app, scope))
                if self.lifespan_context is not None:
                    state = await stack.enter_async_context(self.lifespan_context(scope.get("app", self)))
                    if state is not None:
                        if "state" not in scope:
                            raise RuntimeError('the server does not support "state" in the lifespan scope')
                        scope["state"].update(state)
                await send({"type": "lifespan.startup.complete"})
                started = True
                await receive()
        except BaseException:
            message = traceback.format_exc()
            await send({"type": "lifespan.shutdown.failed" if started else "lifespan.startup.failed", "message": message})
            raise
        await send({"type": "lifespan.shutdown.complete"})


@contextlib.asynccontextmanager
async def _child_lifespan(app: Any, scope: Scope) -> AsyncIterator[None]:
    """A mounted app's lifespan, on a channel of its own: started on entry, shut down on exit."""
    inbox: asyncio.Queue[Any] = asyncio.Queue()
    outbox: asyncio.Queue[Any] = asyncio.Queue()

    async def run() -> None:
        try:
            await app(dict(scope), inbox.get, outbox.put)
        except BaseException as error:      # noqa: BLE001  (told to the waiting side)
            await outbox.put({"type": "interlock.ended", "error": error})
        else:
            await outbox.put({"type": "interlock.ended", "error": None})

    task = asyncio.ensure_future(run())
    await inbox.put({"type": "lifespan.startup"})
    message = await outbox.get()
    if message["type"] == "interlock.ended":
        yield                           # no lifespan support: what the spec has a server do
        return
    if message["type"] == "lifespan.startup.failed":
        await task
        raise RuntimeError(f"mounted app {app!r} failed to start: {message.get('message', '')}")
    try:
        yield
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        message = await outbox.get()
        await task
        if message["type"] == "lifespan.shutdown.failed":
            raise RuntimeError(f"mounted app {app!r} failed to shut down: {message.get('message', '')}")


def _host(scope: Scope) -> str:
    for key, value in scope.get("headers", ()):
        if key == b"host":
            return value.decode("latin-1")
    server = scope.get("server")
    if server and server[1] is not None:
        return f"{server[0]}:{server[1]}"
    return server[0] if server else "localhost"


def _rewrite(scope: Scope, uri: str, root: str, raw_root: str) -> str:
    """A filter redirected to `uri`: the scope's path, raw path and query become its own (under
    the same root), for the app that runs; returns the raw path below the root."""
    parts = urlsplit(uri)
    path = parts.path or "/"
    scope["path"] = root + unquote(path)
    scope["raw_path"] = (raw_root + path).encode()
    scope["query_string"] = parts.query.encode()
    return path


async def _send(send: Send, status: int, body: bytes, headers: Iterable[tuple[str, str]]) -> None:
    pairs = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    if not any(k == b"content-length" for k, _ in pairs):
        pairs.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": pairs})
    await send({"type": "http.response.body", "body": body})


async def _send_plain(send: Send, status: int, text: str, headers: Iterable[tuple[str, str]] = ()) -> None:
    await _send(send, status, text.encode(), [("content-type", "text/plain; charset=utf-8"), *headers])
