"""Reads include/interlock.h into data, and writes host declarations from it, so that no host
restates a fact of the C contract (a constant, a signature, a layout).

The parsing part (`parse`) is for any generator: it gives the header's typedefs, function
prototypes (return type, name, parameters) and integer #define constants (value, C type, and the
@defgroup they are declared in). It reads the header's own dialect: C declarations at file scope,
block and line comments, #define lines (continued with a backslash), `extern "C"` guards. Macros
that are not integer constant expressions (strings, function-like macros) are left out.

Writers:
  python3 Tools/headergen.py lua [OUT]      the LuaJIT FFI declarations, bindings/lua/interlock/cdef.lua
  python3 Tools/headergen.py python [OUT]   the ctypes declarations, bindings/python/interlock/_abi.py
  python3 Tools/headergen.py swift [OUT]    the exports' check, Sources/InterlockABI/HeaderCheck.swift
  python3 Tools/headergen.py swift-prototypes [OUT]   what it checks them against, HeaderPrototypes.swift
  python3 Tools/headergen.py WRITER --check   exit 1 if the committed file differs from a fresh run
  python3 Tools/headergen.py json           everything parsed, as JSON (for a look, or other tools)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "interlock.h"
LUA_OUT = ROOT / "bindings" / "lua" / "interlock" / "cdef.lua"
PYTHON_OUT = ROOT / "bindings" / "python" / "interlock" / "_abi.py"
SWIFT_OUT = ROOT / "Sources" / "InterlockABI" / "HeaderCheck.swift"
SWIFT_PROTOTYPES_OUT = ROOT / "Sources" / "InterlockABI" / "HeaderPrototypes.swift"

# The widths of the integer types a constant may be cast to, for (type)value in a #define.
INTEGER_TYPES = {
    "int": (32, True), "unsigned": (32, False), "unsigned int": (32, False), "long": (64, True),
    "unsigned long": (64, False), "size_t": (64, False), "ptrdiff_t": (64, True),
    "int32_t": (32, True), "uint32_t": (32, False), "int64_t": (64, True), "uint64_t": (64, False),
    "int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True), "uint16_t": (16, False),
}


@dataclass
class Param:
    type: str           # "const char *", "ilk_router **", "size_t"
    name: str           # "" when the prototype gives none


@dataclass
class Function:
    name: str
    returns: str
    params: list[Param]
    decl: str           # the prototype as one normalized line, without the ';'


@dataclass
class Typedef:
    name: str
    kind: str           # "opaque" (typedef struct x x;), "struct" (with fields), "function" (a pointer to one), "alias"
    decl: str           # the typedef as one normalized line, with the ';'
    fields: list[Param] = field(default_factory=list)         # kind "struct"
    returns: str = ""                                         # kind "function"
    params: list[Param] = field(default_factory=list)         # kind "function"


@dataclass
class Constant:
    name: str
    value: int
    type: str           # "int", "unsigned", "size_t": what the expression's type is in C
    group: str          # the @defgroup it is declared under ("status", "callbacks", ...)
    expr: str           # the expression as written


@dataclass
class Header:
    typedefs: list[Typedef]
    functions: list[Function]
    constants: list[Constant]


# -- lexing

def _strip_comments(text: str) -> str:
    """The header without comments; each comment becomes a space, newlines kept (line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueError("unterminated comment")
            out.append(" " + "\n" * text.count("\n", i, end))
            i = end + 2
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text[i] == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i:end + 1])
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _normalize(decl: str) -> str:
    decl = re.sub(r"\s+", " ", decl).strip()
    decl = re.sub(r"\s*\*\s*", " *", decl)        # "char* x", "char *x" -> "char *x"
    decl = re.sub(r"\*\s+(?=[*\w)])", "*", decl)
    decl = re.sub(r"\(\s+", "(", decl)
    decl = re.sub(r"\s+\)", ")", decl)
    decl = re.sub(r"\s*,\s*", ", ", decl)
    return decl


# -- integer constant expressions

# C's binary operators on integers (division truncates toward zero, as C's does).
OPERATIONS = {
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "&": lambda a, b: a & b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "+": lambda a, b: a + b,
    "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),
    "%": lambda a, b: a - OPERATIONS["/"](a, b) * b,
}

_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|(<<|>>|[-+*/%()~&|^]))")


def _evaluate(expr: str, known: dict[str, Constant]) -> tuple[int, str] | None:
    """The value and C type of an integer constant expression, or None if `expr` is not one
    (a string, an unknown name). Casts wrap to the type's width, as C does."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            return None
        pos = m.end()
        if m.group(1):
            tokens.append(("num", m.group(0).strip()))
        elif m.group(2):
            tokens.append(("name", m.group(2)))
        else:
            tokens.append(("op", m.group(3)))
    tokens.append(("end", ""))
    i = 0

    def peek() -> tuple[str, str]:
        return tokens[i]

    def take() -> tuple[str, str]:
        nonlocal i
        i += 1
        return tokens[i - 1]

    def wrap(value: int, ctype: str) -> int:
        bits, signed = INTEGER_TYPES[ctype]
        value &= (1 << bits) - 1
        return value - (1 << bits) if signed and value >> (bits - 1) else value

    def cast_type() -> str | None:
        """The type of a cast whose '(' was just taken, or None (then it is a parenthesis)."""
        j, words = i, []
        while tokens[j][0] == "name" and tokens[j][1] not in known:
            words.append(tokens[j][1])
            j += 1
        name = " ".join(words)
        if words and tokens[j] == ("op", ")") and name in INTEGER_TYPES:
            return name
        return None

    def unary() -> tuple[int, str]:
        nonlocal i
        kind, text = take()
        if kind == "num":
            digits = text.rstrip("uUlL")
            value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 10)
            suffix = text[len(digits):].lower()
            ctype = "unsigned" if "u" in suffix else "int"
            if "l" in suffix:
                ctype = "unsigned long" if "u" in suffix else "long"
            return value, ctype
        if kind == "name":
            if text not in known:
                raise LookupError(text)
            return known[text].value, known[text].type
        if text == "(":
            ctype = cast_type()
            if ctype:
                while take() != ("op", ")"):
                    pass
                value, _ = unary()
                return wrap(value, ctype), ctype
            value = binary(0)
            if take() != ("op", ")"):
                raise SyntaxError(expr)
            return value
        if text in "-+~":
            value, ctype = unary()
            result = {"-": -value, "+": value, "~": ~value}[text]
            return (wrap(result, ctype) if not INTEGER_TYPES[ctype][1] else result), ctype
        raise SyntaxError(expr)

    precedence = {"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}

    def binary(level: int) -> tuple[int, str]:
        left, ltype = unary()
        while peek()[0] == "op" and precedence.get(peek()[1], 0) > level:
            op = take()[1]
            right, rtype = binary(precedence[op])
            ctype = ltype if INTEGER_TYPES[ltype][0] >= INTEGER_TYPES[rtype][0] else rtype
            value = OPERATIONS[op](left, right)
            left, ltype = value, ctype
        return left, ltype

    try:
        value, ctype = binary(0)
        if peek()[0] != "end":
            return None
        return value, ctype
    except (LookupError, SyntaxError, KeyError, IndexError, ValueError, ZeroDivisionError):
        return None


# -- declarations

def _split_param(text: str) -> Param:
    text = _normalize(text)
    if text in ("void", ""):
        raise ValueError("no parameter")
    m = re.match(r"^(.*?[\s*])([A-Za-z_]\w*)$", text)
    # "unsigned count" names `count`; "unsigned int", "const char" and "struct x" name nothing.
    if not m or m.group(1).strip() in ("", "const", "struct") or m.group(2) in ("int", "long", "char", "short"):
        return Param(text, "")
    return Param(_normalize(m.group(1)), m.group(2))


def _params(text: str) -> list[Param]:
    text = text.strip()
    if text in ("", "void"):
        return []
    return [_split_param(p) for p in text.split(",")]


def _declaration(decl: str, typedefs: list[Typedef], functions: list[Function]) -> None:
    decl = _normalize(decl)
    if decl.startswith("typedef "):
        if m := re.fullmatch(r"typedef struct (\w+) (\w+)", decl):
            typedefs.append(Typedef(m.group(2), "opaque", decl + ";"))
        elif m := re.fullmatch(r"typedef struct (\w+)? ?\{(.*)\} (\w+)", decl):
            fields = [_split_param(f) for f in m.group(2).split(";") if f.strip()]
            typedefs.append(Typedef(m.group(3), "struct", decl + ";", fields=fields))
        elif m := re.fullmatch(r"typedef (.+?) ?\(\*(\w+)\)\((.*)\)", decl):
            typedefs.append(Typedef(m.group(2), "function", decl + ";", returns=_normalize(m.group(1)),
                                    params=_params(m.group(3))))
        elif m := re.fullmatch(r"typedef (.+?[\s*])(\w+)", decl):
            typedefs.append(Typedef(m.group(2), "alias", decl + ";"))
        else:
            raise ValueError(f"a typedef this parser does not read: {decl}")
        return
    m = re.fullmatch(r"(.+?[\s*])(\w+)\((.*)\)", decl)
    if not m:
        raise ValueError(f"a declaration this parser does not read: {decl}")
    functions.append(Function(m.group(2), _normalize(m.group(1)), _params(m.group(3)), decl))


def parse(text: str) -> Header:
    """The typedefs, functions and integer constants of a header's text, in the order declared."""
    # (line, name) of each @defgroup: comments are stripped below, lines are kept.
    groups = [(text.count("\n", 0, m.start()), m.group(1)) for m in re.finditer(r"@defgroup\s+(\w+)", text)]
    text_nc = _strip_comments(text)
    # Constants: #define lines, continuations joined; each constant's group is the last @defgroup before it.
    constants: list[Constant] = []
    known: dict[str, Constant] = {}
    body: list[str] = []
    lines = text_nc.split("\n")
    skip_depth = 0
    i = 0
    while i < len(lines):
        line, start = lines[i], i
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i]
        i += 1
        stripped = line.strip()
        if stripped.startswith("#"):
            directive = stripped[1:].strip()
            if directive.startswith("ifdef __cplusplus"):
                skip_depth += 1
            elif directive.startswith("endif") and skip_depth:
                skip_depth -= 1
            elif m := re.match(r"define\s+(\w+)(\(?)\s*(.*)$", directive):
                name, function_like, expr = m.groups()
                if function_like or not expr:
                    continue
                evaluated = _evaluate(expr, known)
                if evaluated is None:
                    continue
                group = next((g for at, g in reversed(groups) if at < start), "")
                constant = Constant(name, evaluated[0], evaluated[1], group, _normalize(expr))
                constants.append(constant)
                known[name] = constant
            body.append("")
            continue
        body.append("" if skip_depth else line)
    typedefs: list[Typedef] = []
    functions: list[Function] = []
    depth, current = 0, []
    for ch in "\n".join(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == ";" and depth == 0:
            _declaration("".join(current), typedefs, functions)
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        raise ValueError(f"text after the last declaration: {''.join(current).strip()[:80]}")
    return Header(typedefs, functions, constants)


def read(path: Path = HEADER) -> Header:
    return parse(path.read_text(encoding="utf-8"))


# -- writers

def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _lua_number(c: Constant) -> str:
    bits, signed = INTEGER_TYPES[c.type]
    if bits == 64 and not -(1 << 53) <= c.value <= 1 << 53:
        # Past a double's exact range: a 64-bit cdata literal, as LuaJIT writes them.
        return f"{c.value}{'LL' if signed else 'ULL'}"
    return str(c.value)


def lua(header: Header, source: str = "include/interlock.h") -> str:
    """bindings/lua/interlock/cdef.lua: the declarations for ffi.cdef and the integer constants."""
    out = [f"-- Generated from {source} by Tools/headergen.py (make lua-cdef); do not edit.",
           "-- cdef: the header's typedefs and prototypes, for ffi.cdef.",
           "-- constants: its integer #defines by name; groups: their names by the header's @defgroup.",
           "return {", "  cdef = [[", *[t.decl for t in header.typedefs], *[f.decl + ";" for f in header.functions],
           "]],", "  constants = {"]
    out += [f"    {c.name} = {_lua_number(c)}," for c in header.constants]
    out += ["  },", "  groups = {"]
    seen: dict[str, list[str]] = {}
    for c in header.constants:
        seen.setdefault(c.group, []).append(c.name)
    out += [f"    {group} = {{ {', '.join(_lua_string(n) for n in names)} }}," for group, names in seen.items()]
    out += ["  },", "}", ""]
    return "\n".join(out)


# ctypes' names for the header's scalar types.
CTYPES_SCALARS = {
    "void": "None", "int": "c_int", "unsigned": "c_uint", "unsigned int": "c_uint", "int32_t": "c_int32",
    "uint32_t": "c_uint32", "int64_t": "c_int64", "uint64_t": "c_uint64", "size_t": "c_size_t",
}


def _python_name(typedef: str) -> str:
    """ilk_destination_fn -> DESTINATION_FN; ilk_match_batch_view -> MatchBatchView."""
    base = typedef.removeprefix("ilk_")
    if base.endswith("_fn"):
        return base.upper()
    return "".join(part.capitalize() for part in base.split("_"))


def _ctype(ctype: str, header: Header) -> str:
    """The ctypes type of a C type of the header: scalars as ctypes names them, strings as
    c_char_p (a pointer to them as POINTER(c_char_p)), every other object pointer as c_void_p
    (opaque handles, buffers, a pointer to a pointer as POINTER(c_void_p)), callbacks as their
    CFUNCTYPE, a struct of the header by pointer as POINTER(its Structure)."""
    kinds = {t.name: t.kind for t in header.typedefs}
    text = ctype.replace("const ", "").replace(" const", "").strip()
    stars = text.count("*")
    base = text.replace("*", "").strip()
    if base in kinds and kinds[base] == "function":
        if stars:
            raise ValueError(f"a pointer to a callback: {ctype}")
        return _python_name(base)
    if stars == 0:
        if base in kinds and kinds[base] == "struct":
            return _python_name(base)
        if base not in CTYPES_SCALARS:
            raise ValueError(f"a type the ctypes writer does not know: {ctype}")
        return CTYPES_SCALARS[base]
    if base == "char":
        return "c_char_p" if stars == 1 else "POINTER(c_char_p)"
    if stars == 1 and base in kinds and kinds[base] == "struct":
        return f"POINTER({_python_name(base)})"
    if stars == 1 and base in CTYPES_SCALARS and base != "void":
        return f"POINTER({CTYPES_SCALARS[base]})"
    return "c_void_p" if stars == 1 else "POINTER(c_void_p)"


def _sized(ctype: str, followed_by: str | None) -> bool:
    """Whether a char pointer comes with its length (a size_t pointer right after it): then it is
    bytes that may hold NUL, which ctypes must not read as a NUL-terminated string."""
    return ctype.replace(" ", "").startswith(("constchar*", "char*")) and followed_by is not None \
        and followed_by.replace(" ", "") == "size_t*"


def python(header: Header, source: str = "include/interlock.h") -> str:
    """bindings/python/interlock/_abi.py: every constant, callback type, struct and prototype of
    the header, as ctypes declares them. A char pointer given with its length (returned, or
    written through a parameter followed by a size_t pointer) is c_void_p: bytes that may hold
    NUL, read with ctypes.string_at."""
    out = [f"# Generated from {source} by Tools/headergen.py (make python-abi); do not edit.",
           '"""The C contract as ctypes sees it, every fact of it the header\'s: its integer constants',
           "(ILK_X as X), its callback types (ilk_x_fn as X_FN), its structs, and `PROTOTYPES`, each",
           'function\'s (name, restype, argtypes). _native.py loads the library and declares them."""',
           "", "from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int32, c_int64, c_size_t,",
           "                    c_uint, c_uint32, c_uint64, c_void_p)", ""]
    for group in dict.fromkeys(c.group for c in header.constants):
        out.append(f"# @defgroup {group}")
        for c in header.constants:
            if c.group == group:
                out.append(f"{c.name.removeprefix('ILK_')} = {c.value}")
        out.append("")
    out += ["", "def _callback(*signature):",
            '    """A callback type (CFUNCTYPE) that also takes None, as NULL: every callback the header',
            '    takes may be NULL."""',
            "    proto = CFUNCTYPE(*signature)", "",
            "    class Callback(proto):",
            "        _flags_, _argtypes_, _restype_ = proto._flags_, proto._argtypes_, proto._restype_", "",
            "        @classmethod",
            "        def from_param(cls, value):",
            "            return None if value is None else proto.from_param(value)",
            "    return Callback", "", ""]
    for t in header.typedefs:
        if t.kind == "function":
            args = ", ".join([_ctype(t.returns, header)] + [_ctype(p.type, header) for p in t.params])
            out.append(f"{_python_name(t.name)} = _callback({args})")
    out.append("")
    for t in header.typedefs:
        if t.kind == "struct":
            fields = ", ".join(f'("{f.name}", {_ctype(f.type, header)})' for f in t.fields)
            out += ["", f"class {_python_name(t.name)}(Structure):", f'    """{t.name}."""',
                    "", f"    _fields_ = [{fields}]", ""]
    out += ["", "PROTOTYPES = ["]
    for f in header.functions:
        types = [p.type for p in f.params]
        args = ", ".join("POINTER(c_void_p)" if _sized(t, nxt) and "**" in t.replace(" ", "") else _ctype(t, header)
                         for t, nxt in zip(types, types[1:] + [None]))
        returns = "c_void_p" if _sized(f.returns, "size_t *" if "size_t *" in types else None) else _ctype(f.returns, header)
        out.append(f'    ("{f.name}", {returns}, [{args}]),')
    out += ["]", ""]
    return "\n".join(out)


def swift_prototypes(header: Header, source: str = "include/interlock.h") -> str:
    """Sources/InterlockABI/HeaderPrototypes.swift: each function of the header as Swift imports
    it (CInterlock), by name, for `swift`'s check."""
    out = [f"// Generated from {source} by Tools/headergen.py (make swift-abi); do not edit.",
           "import CInterlock", "",
           "/// Each function of the header as Swift imports it, for HeaderCheck.swift (which does not",
           "/// import the header, so that a name there is the export's alone).",
           "enum HeaderPrototypes {"]
    out += [f"    static let {f.name} = CInterlock.{f.name}" for f in header.functions]
    out += ["}", ""]
    return "\n".join(out)


def swift(header: Header, source: str = "include/interlock.h") -> str:
    """Sources/InterlockABI/HeaderCheck.swift: each function of the header, as Swift imports it
    (`swift_prototypes`), against the `@_cdecl` export of the same name, compared by the compiler
    as Swift types, exactly (metatypes convert to no other: a non-optional pointer returned for
    C's nullable one differs too). A function the header declares and the library does not
    export, or exports with another type, fails the build at the line naming it. The file does
    not import the header: a name there would find the C function as well as the export, and
    the compiler would take whichever fits."""
    out = [f"// Generated from {source} by Tools/headergen.py (make swift-abi); do not edit.",
           "// Every function the header declares is the type of the export of that name: the compiler",
           "// checks each export against its prototype (Tools/headergen.py says how).", "",
           "/// Compiles only if both are one type: metatypes, unlike functions, convert to no other.",
           "@inline(__always) private func same<T>(_: T.Type, _: T.Type) {}", "",
           "/// Never called: its body is the check.", "private func exportsMatchTheHeader() {"]
    out += [f"    same(type(of: HeaderPrototypes.{f.name}), type(of: {f.name}))" for f in header.functions]
    out += ["}", ""]
    return "\n".join(out)


WRITERS = {"lua": (lua, LUA_OUT, "make lua-cdef"), "python": (python, PYTHON_OUT, "make python-abi"),
           "swift": (swift, SWIFT_OUT, "make swift-abi"),
           "swift-prototypes": (swift_prototypes, SWIFT_PROTOTYPES_OUT, "make swift-abi")}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--header", type=Path, default=HEADER)
    sub = parser.add_subparsers(dest="what", required=True)
    for name, (_, out, _) in WRITERS.items():
        cmd = sub.add_parser(name, help=f"the {name} declarations ({out.relative_to(ROOT)})")
        cmd.add_argument("out", nargs="?", type=Path, default=out)
        cmd.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    sub.add_parser("json", help="the parsed header as JSON")
    args = parser.parse_args(argv)
    header = read(args.header)
    if args.what == "json":
        print(json.dumps(asdict(header), indent=1))
        return 0
    write, _, remake = WRITERS[args.what]
    text = write(header)
    if args.check:
        if not args.out.exists() or args.out.read_text(encoding="utf-8") != text:
            print(f"{args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out} is not what "
                  f"Tools/headergen.py makes of the header: run `{remake}` and commit it", file=sys.stderr)
            return 1
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
