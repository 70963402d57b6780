"""The exceptions the package raises, and the one place a library status becomes one of them."""

from __future__ import annotations

from typing import Optional

from . import _native as n
from ._native import lib, text


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
