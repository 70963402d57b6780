"""Loading libinterlock with ctypes and declaring its functions as _abi.py (generated from the
header) gives them. Nothing here decides anything: every rule lives in the library, every fact of
the contract in the header."""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import POINTER, c_char_p
from pathlib import Path
from typing import Any

from . import _abi
from ._abi import *  # noqa: F401,F403 - the header's constants, callback types and structs, as the package names them

EXPECTED_VERSION = f"{_abi.VERSION_MAJOR}.{_abi.VERSION_MINOR}.{_abi.VERSION_PATCH}"  # the header's ILK_VERSION
_LIBRARY_NAME = "libinterlock.so"


def _candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    found: list[Path] = []
    env = os.environ.get("INTERLOCK_LIBRARY")
    if env:
        return [Path(env)]
    found.append(here / _LIBRARY_NAME)                              # installed with the package
    found.append(here.parent.parent.parent / "build" / "lib" / _LIBRARY_NAME)  # a source checkout
    return found


def _load() -> ctypes.CDLL:
    tried: list[str] = []
    for path in _candidates():
        if not path.exists():
            tried.append(f"{path} (missing)")
            continue
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as error:
            tried.append(f"{path} ({error})")
            continue
        try:
            ilk_version = lib.ilk_version
        except AttributeError:
            raise ImportError(f"interlock: {path} is not the Interlock library (it has no ilk_version)") from None
        ilk_version.restype = c_char_p
        version = (ilk_version() or b"?").decode("utf-8", "replace")
        if version != EXPECTED_VERSION:
            raise ImportError(
                f"interlock: {path} is version {version}, this package needs {EXPECTED_VERSION}")
        return lib
    raise ImportError("interlock: cannot load the Interlock library; looked for "
                      + "; ".join(tried)
                      + ". Build it (make build, or pip install ./bindings/python) or set INTERLOCK_LIBRARY.")


lib = _load()
# The same library through PyDLL, which keeps the GIL over a call: for the calls of the hot path
# that take a microsecond or less and call nothing back (a lookup, the copies of a result).
# Releasing and retaking the GIL around them (what CDLL does, about a tenth of a lookup) buys other
# threads nothing. The library's own lock is never held while it calls out, so waiting on it with
# the GIL held cannot deadlock. A resolve, which runs a pipeline, goes through `lib` and lets go of
# the GIL (_slot.py). `pydll[name]` makes a function object of its own, leaving `lib`'s declared.
pydll = ctypes.PyDLL(lib._name, handle=lib._handle)

# The optional compiled accelerator (interlock/_speedups.c; _door.py and _matches.py use it), or
# None: not built, INTERLOCK_PURE_PYTHON set (to anything but "" or "0") at import, or a CPython
# older than its limited API (3.10: an abi3 build made elsewhere may lie in a checkout).
try:
    if os.environ.get("INTERLOCK_PURE_PYTHON", "") not in ("", "0"):
        raise ImportError("INTERLOCK_PURE_PYTHON is set")
    if sys.version_info < (3, 10):
        raise ImportError("the accelerator needs CPython 3.10 or newer")
    from . import _speedups as speedups
except ImportError:
    speedups = None

PP = POINTER(c_char_p)


def _declare(name: str, restype, argtypes: list) -> None:
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = argtypes


# Every function of the header, declared as _abi.py (generated from it) gives them.
_PROTOTYPES = {name: (res, args) for name, res, args in _abi.PROTOTYPES}
for _name, (_res, _args) in _PROTOTYPES.items():
    _declare(_name, _res, _args)


def unlocked(name: str, *, view: type | None = None, typed: bool = True) -> Any:
    """A function object of `name` of its own, through `pydll` (the GIL kept over the call: for the
    hot path's calls that take a microsecond or less and call nothing back), declared as the header
    says. `view`: a subclass of its restype that ctypes hands back unconverted (a pointer kept as a
    c_void_p); `typed=False`: no argtypes, for calls whose arguments are of the C types already
    (which skips a conversion per argument)."""
    restype, argtypes = _PROTOTYPES[name]
    if view is not None and not issubclass(view, restype):
        raise TypeError(f"{name}: {view.__name__} is no view of its {restype.__name__}")
    function = pydll[name]
    function.restype = view or restype
    function.argtypes = argtypes if typed else None
    return function


def text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("utf-8", "surrogateescape")
