"""Tables that change, and the host's data on a route: removing and replacing routes, a route's id
by its name, the routes in slot order (`Router.routes`), any Python object as a route's data, and
compiling ahead of the first lookup. `Router` takes these methods from `_Changes`, which also
keeps what the router knows of its routes (the heads its matches are made from) true while the
table changes under lookups on other threads.

An object as the library's `void *`: each object is held in a dict under a token, an int from a
counter (never given twice), and the token is the pointer the library keeps, with one ctypes free
function per router that drops the dict's entry. So the library owns the lifetime, as it documents:
it calls the free function when the data is set again, the route is removed or the router freed,
and never while a resolve still has it; a pointer the library gives back is mapped to its object by
a dict lookup. A route's destination and guard are held the same way (the callback under a token
passed as their userdata), so that removing a route lets go of them once no resolve runs them.

The free functions run on whichever thread lets go last (a ctypes callback takes the GIL),
`close()` and the router's finalizer included. The finalizer holds them: what one drops during
ilk_router_free may be the last holder of the router, and so of the other free function, which
the library is about to call. They hold their dict weakly, else a dict holding an object that holds
the router would keep the router from ever being collected; when the garbage collector frees a
router, its dicts are garbage already (their weak references cleared), the free functions do
nothing, and the collector frees the dicts with the rest.

What the router keeps of its routes: their names (`_names`, id -> name, taken from `add_route` and
`load`: a route's name never changes, and one removed keeps it for the requests and matches still
made of it, for the last `_REMOVED_NAMES_KEPT` removals only, so that a router that changes
forever stays bounded; a name let go of is asked of the library again, which knows the live
routes' names); each thread's heads for `match`,
id -> (id, name, pattern), of the routes without data (`_MatchSlot.routes`, the fast path's) and with
(`_MatchSlot.data_routes`, whose data is read at each match); the router's heads of routes without
data for the accelerator's door (`_heads`, _door.py); and those of `match_many`'s entries
(`_routes`). A change (replace, remove, set data) runs under `_table`, forgets the route's heads
first and counts `_generation` up before and after; a head is remembered only under `_table`, if no
change ran since the lookup it comes from and the library's pattern is still the lookup's. So a
head a lookup is answered with is never newer than the lookup, nor older than a change made before
it. `_table` also covers reading a route's name and pattern through the library, which are valid
only until the route is removed or replaced."""

from __future__ import annotations

import collections
import itertools
import threading
import weakref
from ctypes import byref, c_char_p, c_uint32, c_void_p
from typing import TYPE_CHECKING, Any, Callable, Iterator, MutableMapping, NamedTuple, Optional, Union

from . import _door
from . import _native as n
from ._callbacks import _guard
from ._errors import UINT32, _check, _int_arg, _raise, _wrong_type
from ._matches import Match, _DataMatch, _new_match
from ._native import lib, text
from ._slot import _MatchSlot
from ._text import _b

if TYPE_CHECKING:
    from ._router import Router

_MISSING = object()
# The removed routes whose names `_names` keeps (see the module's doc).
_REMOVED_NAMES_KEPT = 4096

# What `match` reads of a route with data, or of one it has no head for (the data of the lookup's
# route, its pattern), and a request's data: through PyDLL, as _slot.py says why (each returns at
# once, calling nothing back). The match's take the slot's handle as the c_void_p it is, without
# argument types; a callback's request pointer is an int, which only a declared c_void_p passes
# whole; a result's request is returned as a _Pointer, which ctypes hands back unconverted, to be
# passed on as it is.


class _Pointer(c_void_p):
    """A pointer the library returns, kept as a c_void_p (ctypes makes a plain c_void_p an int)."""


_match_data = n.unlocked("ilk_match_route_data", typed=False)
_match_pattern = n.unlocked("ilk_match_pattern", typed=False)
_request_data = n.unlocked("ilk_request_route_data")
_pointer_data = n.unlocked("ilk_request_route_data", typed=False)
_result_request = n.unlocked("ilk_result_request", view=_Pointer, typed=False)


class RouteInfo(NamedTuple):
    """A route of the table (`Router.routes`): its id, its name (None if it has none) and its
    pattern as written."""

    id: int
    name: Optional[str]
    pattern: str


class Routes:
    """`router.routes`: a live view of the router's routes, not a copy. Iterating visits the routes
    in slot order as they are when visited (ilk_router_next_route), each a `RouteInfo`; a route
    removed meanwhile is left out. `len()` is the library's count (ilk_router_route_count); `in`
    and `[...]` take a route's id or name. `list(router.routes)` is a snapshot."""

    __slots__ = ("_router",)

    def __init__(self, router: "Router") -> None:
        self._router = router

    def __iter__(self) -> Iterator[RouteInfo]:
        router, after, found = self._router, 0, c_uint32()
        while True:
            rc = lib.ilk_router_next_route(router._h, after, byref(found))
            if rc == n.NOT_FOUND:
                return
            _check(rc)
            after = found.value
            info = router._route_info_now(after)
            if info is not None:
                yield info

    def __len__(self) -> int:
        return len(self._router)

    def __getitem__(self, name_or_id: Union[int, str]) -> RouteInfo:
        """The route with this id or name; UnknownRouteError if none has it."""
        router = self._router
        route_id = router._route_arg(name_or_id, "name_or_id")
        return router._route_info_now(route_id, strict=True)  # type: ignore[return-value]

    def __contains__(self, name_or_id: object) -> bool:
        """Whether a route has this id or name (False for what is neither an id nor a name)."""
        if isinstance(name_or_id, bool) or not isinstance(name_or_id, (int, str)):
            return False
        if isinstance(name_or_id, int) and not UINT32[0] <= name_or_id <= UINT32[1]:
            return False
        try:
            self[name_or_id]
        except LookupError:
            return False
        return True

    def __repr__(self) -> str:
        return f"Routes({list(self)!r})"


class _Tokens(dict):  # type: ignore[type-arg]
    """Token -> object: a router's route data, or its routes' callbacks. A dict that can be
    referred to weakly (by its free function)."""

    __slots__ = ("__weakref__",)


def _dropper(table: _Tokens) -> Callable[[Optional[int]], None]:
    """The free function of the tokens in `table`: drops the entry (and with it, if no one else
    holds it, the object). It holds the dict weakly, and never the router."""
    ref = weakref.ref(table)

    def free(token: Optional[int]) -> None:
        found = ref()
        if found is not None:
            found.pop(token, None)
    return free


class _Changes:
    """The `Router` methods that change its table or read it route by route, and the route data."""

    _h: int
    _lock: threading.Lock

    def _init_changes(self) -> None:
        self._table = threading.RLock()   # reentrant: a data object freed by a change may change the router
        self._generation = 0
        self._names: dict[int, Optional[str]] = {}
        self._removed_names: "collections.deque[int]" = collections.deque()
        self._routes: dict[int, tuple[int, Optional[str], Optional[str]]] = {}
        self._heads = _door.heads()         # the door's (_door.py)
        self._slot_set: "weakref.WeakSet[_MatchSlot]" = weakref.WeakSet()
        self._tokens = itertools.count(1)
        self._objects = _Tokens()       # token -> a route's data
        self._held = _Tokens()          # token -> a route's destination or guard callback
        self._free_object = n.FREE_FN(_dropper(self._objects))
        self._free_held = n.FREE_FN(_dropper(self._held))

    # -- routes by id or name

    def route_id(self, name: str) -> int:
        """The id of the route called `name` (ilk_router_route_id). UnknownRouteError naming it if
        no route has that name, TypeError if it is no str."""
        name_b = _b(name, "name", required=True)
        found = c_uint32()
        _check(lib.ilk_router_route_id(self._h, name_b, byref(found)))
        return found.value

    def _route_arg(self, name_or_id: Any, what: str = "name_or_id") -> int:
        """A route given by its id (an int, checked against uint32_t) or its name (a str, found by
        the library): its id."""
        if isinstance(name_or_id, str):
            return self.route_id(name_or_id)
        if isinstance(name_or_id, bool) or not hasattr(type(name_or_id), "__index__"):
            raise _wrong_type(what, name_or_id, "a route's id (int) or name (str)")
        return _int_arg(name_or_id, what, UINT32)

    @property
    def routes(self) -> Routes:
        """The routes, a live view (see `Routes`): `for route in router.routes` gives a `RouteInfo`
        (id, name, pattern) for each, in slot order; `len(router.routes)` counts them."""
        return Routes(self)  # type: ignore[arg-type]

    # -- changes

    def remove_route(self, name_or_id: Union[int, str]) -> None:
        """Removes the route (by id or name): lookups no longer find it, its name is free again, its
        id names no route afterwards (its slot is reused under another id); its destination, guard and data are let go of once no resolve runs
        them. UnknownRouteError (naming the id or name) if no route has it, or it was removed."""
        route_id = self._route_arg(name_or_id)
        self._change(route_id, lambda h: lib.ilk_router_remove_route(h, route_id))
        if self._names.get(route_id, _MISSING) is None:
            self._names.pop(route_id, None)     # no name to keep for the requests still made of it
        else:
            with self._table:
                self._removed_names.append(route_id)
                if len(self._removed_names) > _REMOVED_NAMES_KEPT:
                    # Its id may name a route added since (the slot reused): then the library
                    # gives that route's name again when asked.
                    self._names.pop(self._removed_names.popleft(), None)

    def replace_route(self, name_or_id: Union[int, str], pattern: str) -> None:
        """Gives the route (by id or name) a new pattern, keeping its id, name, destination, guard,
        interceptors and data: lookups find it by the new pattern, never by both or neither.
        PatternError (with `offset`), ConflictError or LimitError as `add_route`, the route then
        unchanged; UnknownRouteError if no route has the id or name."""
        pattern_b = _b(pattern, "pattern", required=True)
        route_id = self._route_arg(name_or_id)
        self._change(route_id, lambda h: lib.ilk_router_replace_route(h, route_id, pattern_b))

    def set_route_data(self, name_or_id: Union[int, str], data: Any) -> None:
        """Sets the route's data (by id or name) to `data`, any object, or clears it (None). The
        router holds the object until it is set again, the route removed or the router closed, and
        no resolve that matched the route still has it. UnknownRouteError if no route has it."""
        route_id = self._route_arg(name_or_id)
        if data is None:
            self._change(route_id, lambda h: lib.ilk_router_set_route_data(h, route_id, None, None))
            return
        self._h  # noqa: B018 - a closed router raises here, before the object is held
        token = next(self._tokens)
        self._objects[token] = data
        try:
            self._change(route_id, lambda h: lib.ilk_router_set_route_data(h, route_id, token, self._free_object))
        except BaseException:
            self._objects.pop(token, None)   # the library did not take it: it is still ours
            raise

    def compile(self) -> None:
        """Compiles what changed since the last lookup now (ilk_router_compile), so that the next
        lookup does not: call it after loading the table, before the first request. LimitError if a
        part of the table is too large for PCRE2."""
        _check(lib.ilk_router_compile(self._h))

    def _change(self, route_id: int, call: Callable[[int], int]) -> None:
        """Runs `call(handle)`, a change to route `route_id`, under `_table`, its heads forgotten
        first (see the module's doc); raises the library's error."""
        with self._table:
            self._generation += 1
            self._forget(route_id)
            try:
                rc = call(self._h)
                if rc < 0:
                    _raise(rc)
            finally:
                self._generation += 1

    def _forget(self, route_id: int) -> None:
        self._routes.pop(route_id, None)
        self._heads.pop(route_id, None)
        with self._lock:
            slots = list(self._slot_set)
        for slot in slots:
            slot.routes.pop(route_id, None)
            slot.data_routes.pop(route_id, None)

    # -- callbacks the library lets go of

    def _hold(self, callback: Any) -> int:
        """A token for `callback`, kept until the library calls `_free_held` with it."""
        token = next(self._tokens)
        self._held[token] = callback
        return token

    def _added(self, rc: int, token: Optional[int], route_id: int, name: Optional[str],
               guard: Any, data: Any) -> None:
        """After ilk_router_add_*route: raises its error (the destination's token dropped: still
        ours), or records the name and sets the guard and the data."""
        if rc < 0:
            self._held.pop(token, None)  # type: ignore[arg-type]
            _raise(rc)
        self._names[route_id] = name
        if guard is not None:
            self._set_guard(route_id, guard)
        if data is not None:
            self.set_route_data(route_id, data)

    def _set_guard(self, route_id: int, guard: Callable[[Any], bool]) -> None:
        callback = n.GUARD_FN(_guard(self, guard))  # type: ignore[arg-type]
        token = self._hold(callback)
        rc = lib.ilk_router_set_guard(self._h, route_id, callback, token, self._free_held)
        if rc < 0:
            self._held.pop(token, None)
            _raise(rc)

    # -- what the router knows of its routes

    def _new_slot(self) -> _MatchSlot:
        slot = _MatchSlot()
        with self._lock:
            self._slot_set.add(slot)
        return slot

    def _route_name(self, route_id: int) -> Optional[str]:
        name = self._names.get(route_id, _MISSING)
        if name is _MISSING:   # added by another thread a moment ago, or never by this router
            found = c_char_p()
            with self._table:
                rc = lib.ilk_router_route_name(self._h, route_id, byref(found))
                name = text(found.value) if rc == n.OK else None
        return name  # type: ignore[return-value]

    def _route_info_now(self, route_id: int, strict: bool = False) -> Optional[RouteInfo]:
        """The route's id, name and pattern as the library has them now; None (or, `strict`,
        UnknownRouteError) if no route has the id."""
        name, pattern = c_char_p(), c_char_p()
        with self._table:
            rc = lib.ilk_router_route_name(self._h, route_id, byref(name))
            if rc == n.OK:
                rc = lib.ilk_router_route_pattern(self._h, route_id, byref(pattern))
            if rc == n.OK:
                return RouteInfo(route_id, text(name.value), text(pattern.value) or "")
            if strict or rc != n.ENOROUTE:
                _raise(rc)
            return None

    def _route_info(self, route_id: int) -> tuple[int, Optional[str], Optional[str]]:
        """(id, name, pattern) of a route for a `match_many` entry, as it is now (pattern None if
        the route was removed since)."""
        info = self._routes.get(route_id)
        if info is None:
            with self._table:
                now = self._route_info_now(route_id)
                if now is None:
                    return (route_id, self._route_name(route_id), None)
                info = self._routes[route_id] = tuple(now)  # type: ignore[assignment]
        return info  # type: ignore[return-value]

    def _matched(self, slot: _MatchSlot, route_id: int, params: dict[str, str]) -> Match:
        """`match`'s answer when the thread's heads of routes without data have none for the route:
        a route with data (its data read on each match, through the lookup's state:
        ilk_match_route_data; its head from `slot.data_routes`), or one the thread has not matched
        since it last changed (the head then made from the lookup's own pattern, and remembered)."""
        generation = self._generation
        handle = slot.handle
        token = _match_data(handle)
        head = slot.data_routes.get(route_id) if token is not None else None
        if head is None:
            head = (route_id, self._route_name(route_id), text(_match_pattern(handle)) or "")
            self._remember((slot.routes, self._heads) if token is None else (slot.data_routes,), head, generation)
        if token is None:
            return _new_match(Match, head + (params,))
        match = _new_match(_DataMatch, head + (params,))
        data = self._objects.get(token, _MISSING)
        match.data = data if data is not _MISSING else self._object(handle)
        return match

    def _remember(self, caches: tuple[MutableMapping[int, Any], ...], head: tuple[int, Optional[str], str],
                  generation: int) -> None:
        """Keeps `head`, made from a lookup that ran before `generation` was read, in `caches` if
        it is still the route's: no change ran since, and the library's pattern is the head's."""
        route_id = head[0]
        current = c_char_p()
        with self._table:
            if (self._generation == generation
                    and lib.ilk_router_route_pattern(self._h, route_id, byref(current)) == n.OK
                    and text(current.value) == head[2]):
                for cache in caches:
                    cache[route_id] = head

    def _object(self, handle: c_void_p) -> Any:
        """The route's data, for a lookup whose data pointer was freed before it was read (the data
        was set again meanwhile): the route's data now."""
        for _ in range(3):
            token = _match_data(handle)
            found = None if token is None else self._objects.get(token, _MISSING)
            if found is not _MISSING:
                return found
        return None

    def _request_data(self, pointer: int) -> Any:
        """The data of a request's route, as its resolve has it (ilk_request_route_data)."""
        token = _request_data(pointer)
        return None if token is None else self._objects.get(token)

    def _result_data(self, result: c_void_p) -> Any:
        """The data of a result's request (held until the result is freed)."""
        token = _pointer_data(_result_request(result))
        return None if token is None else self._objects.get(token)


def _free_router(pointer: int, free_functions: tuple[Any, ...], door: Any) -> None:
    """The router's finalizer: ilk_router_free, with the free functions it calls kept alive, once
    the router's door (_door.py), if any, no longer uses it."""
    if door is not None:
        door.close()
    lib.ilk_router_free(pointer)
