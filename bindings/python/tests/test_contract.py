"""The package's copy of the C contract, checked against include/interlock.h: every integer
constant (ILK_X is _native.X, both ways), the Status enum, the callback types (ilk_x_fn is
_native.X_FN), every struct with a body (its ctypes Structure: field names, order and types), and
the restype and argtypes of every library function the package declares. A fact of the contract
changed in the header fails here until the package follows it."""

from __future__ import annotations

import ctypes
import re
import sys
from ctypes import POINTER, c_char_p, c_int, c_int64, c_size_t, c_uint, c_uint32, c_void_p
from typing import Any

import pytest

import interlock
from interlock import _native

from conftest import ROOT

HEADER = ROOT / "include" / "interlock.h"
# Stated by the header, checked elsewhere (tests/test_version.py) or not a value the package keeps.
NOT_MIRRORED = {"ILK_VERSION_MAJOR", "ILK_VERSION_MINOR", "ILK_VERSION_PATCH"}


# ----------------------------------------------------------------------------------------------
# Reading the header


def code_of(header: str) -> str:
    """The header without comments and preprocessor lines."""
    header = re.sub(r"/\*.*?\*/", " ", header, flags=re.S)
    header = re.sub(r"//[^\n]*", " ", header)
    return re.sub(r"^\s*#.*$", " ", header, flags=re.M)


def constants(header: str) -> dict[str, int]:
    """Every object-like #define ILK_X whose value is an integer: 12, (-1), 0x1u, ((size_t)-1)."""
    found = {}
    for name, value in re.findall(r"^\s*#\s*define\s+(ILK_\w+)[ \t]+([^\n]*?)\s*(?:/\*.*)?$", header, re.M):
        value = value.strip()
        if re.fullmatch(r"\(\(size_t\)\s*-1\)", value):
            found[name] = ctypes.c_size_t(-1).value
            continue
        m = re.fullmatch(r"\(?\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?", value)
        if m:
            found[name] = int(m.group(1).replace(" ", ""), 0)
    return found


KEYWORDS = {"const", "int", "char", "void", "unsigned", "signed", "long", "short"}


def declaration(text: str) -> str:
    """A C declaration's type, without the name it declares, as tokens apart: "const char *name"
    is "const char *", "const ilk_interceptor *const *items" is "const ilk_interceptor * const *"."""
    tokens = text.replace("*", " * ").split()
    if len(tokens) > 1 and re.fullmatch(r"[A-Za-z_]\w*", tokens[-1]) and tokens[-1] not in KEYWORDS:
        tokens = tokens[:-1]
    return " ".join(tokens)


def arguments(text: str) -> list[str]:
    text = text.strip()
    return [] if text in ("", "void") else [declaration(a) for a in text.split(",")]


def callback_types(header: str) -> dict[str, tuple[str, list[str]]]:
    """typedef R (*ilk_x_fn)(A, B...): {ilk_x_fn: (R, [A, B...])}."""
    return {name: (declaration(ret), arguments(args)) for ret, name, args in re.findall(
        r"typedef\s+([\w\s*]+?)\s*\(\s*\*\s*(ilk_\w+)\s*\)\s*\(([^()]*)\)\s*;", code_of(header))}


def structs(header: str) -> dict[str, list[tuple[str, str]]]:
    """typedef struct ilk_x { T name; ... } ilk_x: {ilk_x: [(name, T), ...]} (structs with a body)."""
    found = {}
    for tag, body, name in re.findall(r"typedef\s+struct\s+(\w+)\s*\{([^{}]*)\}\s*(\w+)\s*;", code_of(header)):
        assert tag == name, f"struct {tag} is typedef'd as {name}"
        fields = []
        for member in filter(None, (m.strip() for m in body.split(";"))):
            field = re.fullmatch(r"(.*?)\s*\b(\w+)", member)
            assert field, f"cannot read the member {member!r} of {name}"
            fields.append((field.group(2), declaration(field.group(1))))
        found[name] = fields
    return found


def functions(header: str) -> dict[str, tuple[str, list[str]]]:
    """Every function prototype: {ilk_x: (return type, [argument types])}."""
    code = re.sub(r"typedef[^;]*;", " ", code_of(header))
    return {name: (declaration(ret), arguments(args)) for ret, name, args in re.findall(
        r"([A-Za-z_][\w\s*]*?)\s*\b(ilk_\w+)\s*\(([^()]*)\)\s*;", code)}


# ----------------------------------------------------------------------------------------------
# The C types as the package may declare them


# A pointer to bytes may be declared c_char_p (NUL-terminated text, or bytes handed in) or c_void_p
# (bytes read with their length, which may hold NUL bytes); a pointer to such a pointer, either's.
BYTES = (c_char_p, c_void_p)
BYTES_OUT = (POINTER(c_char_p), POINTER(c_void_p))
SCALARS: dict[str, tuple[Any, ...]] = {declaration(k): v for k, v in {
    "void": (None,), "int": (c_int,), "unsigned": (c_uint,), "int64_t": (c_int64,), "uint32_t": (c_uint32,),
    "size_t": (c_size_t,), "char *": BYTES, "const char *": BYTES, "void *": BYTES, "const void *": BYTES,
    "const char **": BYTES_OUT, "const char *const *": BYTES_OUT,
    "size_t *": (POINTER(c_size_t),), "uint32_t *": (POINTER(c_uint32),),
    # Arrays the library lends: the package reads them at the address it is given.
    "const int32_t **": (POINTER(c_void_p),), "const uint32_t **": (POINTER(c_void_p),),
    "const size_t **": (POINTER(c_void_p),),
}.items()}


def fn_name(c_name: str) -> str:
    """ilk_destination_fn -> DESTINATION_FN."""
    return c_name[len("ilk_"):].upper()


def struct_class_name(c_name: str) -> str:
    """ilk_match_batch_view -> MatchBatchView."""
    return "".join(word.capitalize() for word in c_name[len("ilk_"):].split("_"))


def accepted(c_type: str, header: str) -> tuple[Any, ...]:
    """The ctypes types the package may declare for `c_type` (empty: one the test cannot place)."""
    if c_type in SCALARS:
        return SCALARS[c_type]
    bare = " ".join(t for t in c_type.split() if t != "const")
    if bare in callback_types(header):
        # A callback argument; an ilk_free_fn may be declared c_void_p, which takes a FREE_FN too.
        own = getattr(_native, fn_name(bare), None)
        return (own, c_void_p) if bare == "ilk_free_fn" else (own,)
    m = re.fullmatch(r"(ilk_\w+)((?: \*)+)", bare)
    if m:
        stars = m.group(2).count("*")
        if m.group(1) in structs(header):      # a struct the package lays out: a pointer to it
            return (POINTER(getattr(_native, struct_class_name(m.group(1)))),) if stars == 1 else ()
        # An opaque handle, or an array or out-parameter of them.
        return {1: (c_void_p,), 2: (POINTER(c_void_p),)}.get(stars, ())
    return ()


def type_name(t: Any) -> str:
    return "None" if t is None else getattr(t, "__name__", repr(t))


# ----------------------------------------------------------------------------------------------
# The package's copy of the contract, and what differs from the header's


def package_constants() -> dict[str, int]:
    return {name: value for name, value in vars(_native).items()
            if name.isupper() and type(value) is int}


def declared_functions() -> dict[str, list[Any]]:
    """Every library function object the package made: `lib`'s (declared) and those its modules
    hold of their own (made through PyDLL or `lib[...]`)."""
    found: dict[str, list[Any]] = {}
    holders = [vars(_native.lib)] + [vars(m) for name, m in sorted(sys.modules.items())
                                     if name.startswith("interlock.") and m is not None]
    for holder in holders:
        for value in holder.values():
            if isinstance(value, ctypes._CFuncPtr) and getattr(value, "__name__", "").startswith("ilk_"):
                if not any(value is f for f in found.get(value.__name__, [])):
                    found.setdefault(value.__name__, []).append(value)
    return found


def mismatches(header: str) -> list[str]:
    """Every way the package's copy of the contract differs from `header`."""
    out = []
    theirs = {name[len("ILK_"):]: value for name, value in constants(header).items()
              if name not in NOT_MIRRORED and name != "ILK_VERSION_NUMBER"}
    ours = package_constants()
    for name in sorted(set(theirs) | set(ours)):
        if name not in ours:
            out.append(f"ILK_{name} = {theirs[name]} has no _native.{name}")
        elif name not in theirs:
            out.append(f"_native.{name} = {ours[name]} is no ILK_{name} of the header")
        elif ours[name] != theirs[name]:
            out.append(f"_native.{name} = {ours[name]}, the header's ILK_{name} = {theirs[name]}")

    for name, (ret, args) in sorted(callback_types(header).items()):
        fn = getattr(_native, fn_name(name), None)
        if fn is None:
            out.append(f"{name} has no _native.{fn_name(name)}")
            continue
        want = [accepted(ret, header)] + [accepted(a, header) for a in args]
        have = [fn._restype_] + list(fn._argtypes_)
        if len(want) != len(have) or not all(h in w for h, w in zip(have, want)):
            out.append(f"_native.{fn_name(name)} is ({', '.join(map(type_name, have[1:]))}) -> {type_name(have[0])}, "
                       f"the header's {name} is ({', '.join(args)}) -> {ret}")
    for name in sorted(n for n in vars(_native) if n.endswith("_FN")):
        if f"ilk_{name[:-3].lower()}_fn" not in callback_types(header):
            out.append(f"_native.{name} is no callback type of the header")

    laid_out = {name: cls for name, cls in vars(_native).items()
                if isinstance(cls, type) and issubclass(cls, ctypes.Structure) and cls is not ctypes.Structure}
    for name, fields in sorted(structs(header).items()):
        cls = laid_out.pop(struct_class_name(name), None)
        if cls is None:
            out.append(f"struct {name} has no _native.{struct_class_name(name)}")
            continue
        have = [(f[0], f[1]) for f in cls._fields_]
        if [f for f, _ in have] != [f for f, _ in fields]:
            out.append(f"_native.{cls.__name__} has the fields {[f for f, _ in have]}, "
                       f"{name} has {[f for f, _ in fields]}")
        for (field, t), (_, c_type) in zip(have, fields):
            if t not in accepted(c_type, header):
                out.append(f"_native.{cls.__name__}.{field} is {type_name(t)}, {name}.{field} is {c_type}")
    out += [f"_native.{name} lays out no struct of the header" for name in sorted(laid_out)]

    prototypes = functions(header)
    for name, objects in sorted(declared_functions().items()):
        if name not in prototypes:
            out.append(f"{name} is declared by the package, not by the header")
            continue
        ret, args = prototypes[name]
        for f in objects:
            restype = f.restype
            if isinstance(restype, type) and restype.__bases__[0] in (c_void_p, c_char_p):
                restype = restype.__bases__[0]   # the same C type, which ctypes returns unconverted
            if restype not in accepted(ret, header):
                out.append(f"{name} returns {type_name(f.restype)} in the package, {ret} in the header")
            if f.argtypes is None:
                continue          # called with arguments already of the C types (the hot paths)
            if len(f.argtypes) != len(args):
                out.append(f"{name} takes {len(f.argtypes)} arguments in the package, {len(args)} in the header")
                continue
            for i, (t, c_type) in enumerate(zip(f.argtypes, args)):
                if t not in accepted(c_type, header):
                    out.append(f"{name} argument {i} is {type_name(t)} in the package, {c_type} in the header")
    return out


# ----------------------------------------------------------------------------------------------
# The tests


@pytest.fixture(scope="module")
def header() -> str:
    return HEADER.read_text()


def test_the_header_is_read(header):
    """The readers find what the header states (a reader finding nothing would check nothing)."""
    found = constants(header)
    assert {"ILK_OK", "ILK_EINVAL", "ILK_CONTINUE", "ILK_CASE_INSENSITIVE", "ILK_NO_OFFSET"} <= set(found)
    assert found["ILK_EINVAL"] == -1 and found["ILK_STRICT_SLASH"] == 2
    assert "ilk_match_batch_view" in structs(header)
    assert "ilk_destination_fn" in callback_types(header)
    assert functions(header)["ilk_router_match_packed"] == (
        "int64_t", ["ilk_router *", "const char *", "const char *", "size_t", "ilk_match *"])
    assert functions(header)["ilk_interceptor_chain_in_order"][1] == [
        "ilk_interceptor * *", "const ilk_interceptor * const *", "size_t"]
    assert len(declared_functions()) > 50


def test_the_package_follows_the_header(header):
    assert mismatches(header) == []


def test_status_is_the_headers_statuses(header):
    found = constants(header)
    for status in interlock.Status:
        assert status.value == found["ILK_ECALLBACK" if status.name == "ERROR" else f"ILK_{status.name}"], status


def test_errors_are_raised_for_the_headers_error_codes(header):
    from interlock import _errors
    found = constants(header)
    for code, error in _errors._ERRORS.items():
        assert code in {v for k, v in found.items() if k.startswith("ILK_E")}, (code, error)
    assert _errors._ERRORS[found["ILK_EINVAL"]] is interlock.InvalidArgumentError
    assert _errors._ERRORS[found["ILK_ENOROUTE"]] is interlock.UnknownRouteError


@pytest.mark.parametrize("pattern, replacement, expected", [
    (r"(#define ILK_EURI\s+)\(-4\)", r"\1(-9)", "_native.EURI = -4, the header's ILK_EURI = -9"),
    (r"(#define ILK_CASE_INSENSITIVE\s+)0x1u", r"\g<1>0x4u", "_native.CASE_INSENSITIVE = 1, the header's"),
    (r"(#define ILK_RETRY\s+104[^\n]*)", r"\1\n#define ILK_REPLAY 105", "ILK_REPLAY = 105 has no _native.REPLAY"),
    (r"#define ILK_RETRYING\s[^\n]*", "", "_native.RETRYING = 9 is no ILK_RETRYING of the header"),
    (r"size_t first_error;", "uint32_t first_error;", "_native.MatchBatchView.first_error is c_ulong"),
    (r"(size_t count;[^\n]*)\n(\s*size_t first_error;[^\n]*)", r"\2\n\1",
     "_native.MatchBatchView has the fields ['count', 'first_error', 'data', 'size'], ilk_match_batch_view has "
     "['first_error', 'count'"),
    (r"(size_t size;[^\n]*)", r"\1\n  size_t capacity;", "_native.MatchBatchView has the fields"),
    (r"typedef struct ilk_match_batch_view \{", "typedef struct ilk_match_batch_view2 {\n} ilk_match_batch_view2;\n"
     "typedef struct ilk_match_batch_view {", "struct ilk_match_batch_view2 has no _native.MatchBatchView2"),
    (r"\(\*ilk_guard_fn\)\(const ilk_request \*request,", "(*ilk_guard_fn)(const ilk_request *request, int flags,",
     "_native.GUARD_FN is"),
    (r"(int ilk_router_set_match_limit\(ilk_router \*router, )uint32_t", r"\1size_t",
     "ilk_router_set_match_limit argument 1 is c_uint in the package, size_t in the header"),
    (r"int64_t (ilk_router_match_packed\()", r"int \1", "ilk_router_match_packed returns c_long in the package"),
    (r"(int ilk_router_url_for\([^;]*?)size_t \*(\w+)\);", r"\1uint32_t *\2);", "ilk_router_url_for argument 7"),
    (r"void (ilk_result_free\()", r"int \1", "ilk_result_free returns None in the package, int in the header"),
    (r"int ilk_router_add_filter\(", "int ilk_router_add_filter2(",
     "ilk_router_add_filter is declared by the package, not by the header"),
])
def test_a_change_to_the_header_fails_until_the_package_follows(header, pattern, replacement, expected):
    changed = re.sub(pattern, replacement, header, count=1)
    assert changed != header, f"the header no longer says {pattern!r}: update this test's example"
    found = mismatches(changed)
    assert any(expected in m for m in found), found
