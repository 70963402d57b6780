"""Text between Python and the library: str to the NUL-terminated UTF-8 the library takes (a NUL
byte or a lone surrogate refused with its byte offset, what is no str a TypeError naming the
argument), any object to a message for it, and a response's body and headers as the library
takes them."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from . import _native as n
from ._errors import InvalidArgumentError, URIError, _wrong_type


def _surrogate(text: str, error: UnicodeEncodeError) -> tuple[str, int]:
    """What a string with a lone surrogate (which UTF-8 cannot hold) says about it: the problem,
    and the byte offset where its encoding would hold the surrogate."""
    at = len(text[:error.start].encode("utf-8", "surrogatepass"))
    return f"lone surrogate U+{ord(text[error.start]):04X} is not valid UTF-8", at


def _b(value: Optional[str], what: str, required: bool = False) -> Optional[bytes]:
    """`value` (named `what` in errors) as the library takes it: UTF-8, ended by a NUL byte. One
    inside would end it early (a pattern, a parameter value or a header cut short without a word),
    so it is refused with its byte offset, as is a lone surrogate. None is None (NULL), unless the
    value is `required`; what is no str is a TypeError."""
    if value is None:
        if required:
            raise _wrong_type(what, value, "a str")
        return None
    try:
        data = value.encode("utf-8")
    except AttributeError:
        raise _wrong_type(what, value, "a str") from None
    except UnicodeEncodeError as e:
        message, at = _surrogate(value, e)
        raise InvalidArgumentError(f"{what}: {message} at offset {at}", n.EINVAL) from None
    if b"\0" in data:
        raise InvalidArgumentError(f"{what}: NUL byte at offset {data.index(0)}", n.EINVAL)
    return data


def _url_params(params: Mapping[str, Any]) -> dict[str, str]:
    """`url_for`'s and `redirect_to`'s keyword values as the library takes them: a str as it is,
    an int (not a bool) in decimal; None leaves the parameter out (as if not given: an error for
    a required one, and an optional part without it is not built). Anything else is a TypeError
    naming the parameter: `str()` of it made "None" or "b'ab'" a value."""
    values: dict[str, str] = {}
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, str):
            values[key] = value
        elif isinstance(value, int) and not isinstance(value, bool):
            values[key] = int.__repr__(value)    # an int subclass (an IntEnum) as its number
        else:
            raise _wrong_type(f"parameter {key!r}", value, "a str or an int (None to leave it out)")
    return values


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
    except AttributeError:
        raise _wrong_type(what, uri, "a str") from None
    except UnicodeEncodeError as e:
        message, at = _surrogate(uri, e)
        raise URIError(f"{what}: {message}", n.EURI, at) from None


# Methods as the library takes them, made once each: requests carry few distinct methods, and
# looking one up costs less than encoding it. At most this many, so odd methods cannot grow it.
# (Router.match and Router.resolve read `_METHODS` themselves, inline, before calling `_method_b`.)
_METHODS: dict[str, bytes] = {}
_METHODS_KEPT = 64


def _method_b(method: Optional[str], what: str = "method") -> Optional[bytes]:
    """A request's method for the library: None for None or "" (any method, at every door of the
    library); refused if it holds a NUL byte (the library would read the method before it), or is
    no str (a TypeError naming `what`)."""
    if method is None or method == "":
        return None
    try:
        data = _METHODS.get(method)
    except TypeError:                 # unhashable: no str
        raise _wrong_type(what, method, "a str or None") from None
    if data is None:
        if not isinstance(method, str):
            raise _wrong_type(what, method, "a str or None")
        data = _b(method, what)
        if len(_METHODS) < _METHODS_KEPT:
            _METHODS[method] = data
    return data



def _body(body: Any, what: str = "body") -> bytes:
    """A response body as bytes: from bytes (or a bytes-like object) as is, from str as UTF-8; an
    int or anything else is a TypeError (bytes(3) would be three NUL bytes)."""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    try:
        return bytes(memoryview(body))
    except TypeError:
        raise _wrong_type(what, body, "bytes or str") from None


def _headers(headers: Any, what: str = "headers", entry: str = "header") -> list[tuple[str, str]]:
    """Response headers (or the pairs of a query, `entry` naming one) as a list of (name, value)
    pairs of str: from a mapping, or from pairs."""
    if headers is None:
        return []
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise _wrong_type(what, headers, "a mapping or a sequence of (name, value) pairs")
    out = []
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise _wrong_type(f"each of {what}", pair, "a (name, value) pair")
        name, value = pair
        if not isinstance(name, str) or not isinstance(value, str):
            bad, which = (name, "name") if not isinstance(name, str) else (value, f"{name!r}")
            raise _wrong_type(f"{entry} {which}", bad, "a str")
        out.append((name, value))
    return out
