"""The exceptions the package raises, the one place a library status becomes one of them, and the
checks of an argument's type and of an int's range before ctypes would pass it on (ctypes cuts an
int to its C type's width without a word: 2**32 becomes 0)."""

from __future__ import annotations

import ctypes
from typing import Any, Mapping, Optional

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


class MethodNotAllowedError(Error, LookupError):
    """`Router.match`: routes match the URI, but only under other methods; `allowed` names them
    (a tuple of method strings), `code` is ILK_METHOD_NOT_ALLOWED."""

    def __init__(self, message: str, code: int, allowed: tuple[str, ...] = ()) -> None:
        super().__init__(message, code)
        self.allowed = tuple(allowed)


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


# ----------------------------------------------------------------------------------------------
# Arguments, checked where a wrong one would otherwise pass silently or fail far from its call


def _wrong_type(what: str, value: Any, expected: str) -> TypeError:
    """The TypeError for `value`, given as `what` where `expected` is taken."""
    return TypeError(f"{what} must be {expected}, not {type(value).__name__}")


def _bits(c_type: Any) -> tuple[int, int]:
    """The lowest and highest value of a ctypes integer type."""
    bits = 8 * ctypes.sizeof(c_type)
    signed = c_type(-1).value < 0
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


INT = _bits(ctypes.c_int)          # int (a status, ValidateStatus's bounds)
UINT = _bits(ctypes.c_uint)        # unsigned (set_limits)
UINT32 = _bits(ctypes.c_uint32)    # uint32_t (a route id, the match limit)


def _int_arg(value: Any, what: str, bounds: tuple[int, int]) -> int:
    """`value` (named `what` in errors) as an int for a C integer argument of `bounds` (INT, UINT,
    UINT32...): a bool, or what is no int, is a TypeError; an int outside the bounds, which ctypes
    would cut to their width, an InvalidArgumentError naming them."""
    if isinstance(value, bool) or not isinstance(value, int):
        # An int in all but type (numpy's, say) is taken as the int it stands for.
        index = getattr(type(value), "__index__", None)
        if isinstance(value, bool) or index is None:
            raise _wrong_type(what, value, "an int")
        value = index(value)
    low, high = bounds
    if not low <= value <= high:
        raise InvalidArgumentError(f"{what} {value} is outside {low}...{high}", n.EINVAL)
    return int(value)


def _bool_arg(value: Any, what: str) -> bool:
    """`value`, which must be a bool (or the int 0 or 1), as a bool."""
    if type(value) is bool or (type(value) is int and value in (0, 1)):
        return bool(value)
    raise _wrong_type(what, value, "a bool")


def _mapping_arg(value: Any, what: str) -> Any:
    """`value`, which must be a mapping (a dict)."""
    if not isinstance(value, Mapping):
        raise _wrong_type(what, value, "a dict")
    return value


def _callable_arg(value: Any, what: str) -> Any:
    """`value`, which must be callable (a destination, a guard, a filter, a sink)."""
    if not callable(value):
        raise _wrong_type(what, value, "callable")
    return value
