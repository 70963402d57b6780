"""The answers of the fast path: `Match` (`Router.match`), the Match of a route with data, and
`MatchList` (`Router.match_many`), whose entries are made when read."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, Optional, Sequence

from . import _native as n
from . import _wire
from ._errors import _wrong_type
from ._values import _STATUS_OF, Status
from ._wire import param_dict as _param_dict

if TYPE_CHECKING:
    from ._router import Router

# Every answer of a batch made at once in C (interlock/_speedups.c), or None: MatchList._at each.
_entries = n.speedups.entries if n.speedups is not None else None


class Match(NamedTuple):
    """A route that matched (`Router.match`). A named tuple: cheap to make on the fast path.

    `data` is the route's data (`Router.set_route_data`) as the lookup found it, or None. It is no
    field of the tuple: a Match unpacks into, and compares as, its four fields, as Swift's
    RouteMatch == leaves the data out. Only a match of a route with data reads it (and is a
    subclass of Match holding it); the others share this class's None."""

    route_id: int
    route: Optional[str]
    pattern: str
    params: dict[str, str]
    data = None     # no annotation: a class attribute, not a field


# `_new_match(cls, fields)`: a `cls` (Match or a subclass) of the tuple `fields`, as the fast
# paths make their answers.
_new_match = tuple.__new__
# With the accelerator, Match is its type (_speedups.c): the same named tuple, made and freed in C,
# its fields read without a call. It gets this class's doc and class attributes; the class itself
# stays as `_NamedTupleMatch`, which tests hold it to.
_NamedTupleMatch = Match
if not TYPE_CHECKING and n.speedups is not None:
    Match = n.speedups.Match
    for _name in ("__doc__", "_fields", "_field_defaults", "__match_args__", "data"):
        setattr(Match, _name, getattr(_NamedTupleMatch, _name))
    _NamedTupleMatch.__qualname__ = "_NamedTupleMatch"      # where pickle finds it now
    _new_match = n.speedups.new_match


class _DataMatch(Match):
    """A `Match` of a route that has data, in `data` (an instance attribute: no tuple field)."""

    # No __slots__: the instance's dict holds `data`, which shadows Match's class attribute None.

    def __repr__(self) -> str:
        fields = ", ".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"Match({fields}, data={self.data!r})"

    def _replace(self, **changes: Any) -> "Match":
        replaced = super()._replace(**changes)
        replaced.data = self.data
        return replaced


class MatchList(Sequence[Optional[Match]]):
    """The answers of `Router.match_many`, in order: a `Match` for each URI that matched, None for
    the others (`status(i)` tells why: NOT_FOUND, or METHOD_NOT_ALLOWED where routes match the URI
    only under other methods). The answers are held as the library laid them out (one bytes
    object) and made into `Match` values when read (with the accelerator, all of them at the
    first read, in C), so a batch costs little more than the lookups; `route_ids()` reads every
    id at once.

    An entry's name and pattern are its route's when the entries are read (the pattern None if the
    route was removed since). Its `data` is None: the batch's answers hold route ids only, and the
    library gives a route's data through one lookup's state (ilk_match_route_data); `match` the
    URI for it."""

    __slots__ = ("_router", "_count", "_blob", "_views", "_made")

    def __init__(self, router: "Router", blob: bytes, count: int) -> None:
        self._router, self._blob, self._count = router, blob, count
        self._views: Optional[_wire.BatchViews] = None
        self._made: Optional[list[Optional[Match]]] = None

    def _entry(self, i: int) -> Optional[Match]:
        made = self._made
        if made is None and _entries is not None:
            made = self._made = _entries(self._blob, self._count, self._router._routes, self._router._route_info, Match)
        return made[i] if made is not None else self._at(i)

    def __iter__(self) -> Iterator[Optional[Match]]:
        if _entries is None:
            return (self._at(i) for i in range(self._count))
        if self._made is None and self._count:
            self._entry(0)
        return iter(self._made or ())

    def _parts(self) -> _wire.BatchViews:
        """Statuses, route ids, offsets and text (_wire.batch_views): cut when first read, since a
        caller that reads nothing need not pay for it."""
        views = self._views
        if views is None:
            views = self._views = _wire.batch_views(self._blob, self._count)
        return views

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:
        if type(index) is int and 0 <= index < self._count:
            return self._entry(index)
        if isinstance(index, slice):
            return [self._entry(i) for i in range(*index.indices(self._count))]
        return self._entry(self._index(index))

    def _index(self, index: Any) -> int:
        """`index` (an int, or what has `__index__`; negative from the end) as an answer's index."""
        if type(index) is not int:
            try:
                index = operator.index(index)
            except TypeError:
                raise _wrong_type("MatchList index", index, "an int or a slice") from None
        if not -self._count <= index < self._count:
            raise IndexError("MatchList index out of range")
        return index if index >= 0 else index + self._count

    def status(self, index: int) -> Status:
        """How answer `index` came out: Status.OK (a Match), Status.NOT_FOUND (no route matches
        the URI) or Status.METHOD_NOT_ALLOWED (routes match it only under other methods: `match`
        on that URI raises MethodNotAllowedError naming them)."""
        return _STATUS_OF[self._parts()[0][self._index(index)]]

    def _at(self, i: int) -> Optional[Match]:
        """Answer `i`, made in Python (without the accelerator, whose `entries` makes the same)."""
        statuses, ids, offsets, text = self._parts()
        if statuses[i] != n.OK:
            return None
        parts = str(text[offsets[i]:offsets[i + 1]], "utf-8").split("\0")
        return _new_match(Match, self._router._route_info(ids[i]) + (_param_dict(parts),))

    def route_ids(self) -> list[int]:
        """Every answer's route id at once, 0 where none matched."""
        return self._parts()[1].tolist()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (MatchList, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"MatchList({list(self)!r})"
