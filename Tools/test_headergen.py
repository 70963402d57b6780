"""Tests of Tools/headergen.py's parser (pytest, or `python3 Tools/test_headergen.py`): the real
header read whole, and the C forms it must read (casts, suffixes, continued #defines, typedefs
of function pointers and structs, the C++ guard); the generated Lua and Swift files current."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import headergen  # noqa: E402

SAMPLE = r'''
/** @defgroup first First */
#define A_ONE 1  /**< one */
#define A_FLAG 0x10u
#define A_NEG (-3)
#define A_MAX ((size_t)-1)
#define A_SUM \
  (A_ONE * 1000 + A_NEG)
#define A_TEXT "text"
#define A_FN(x) #x
#ifdef __cplusplus
extern "C" {
#endif
/** @defgroup second Second */
#define B_SHIFT (1u << 4)
typedef struct thing thing;
typedef int (*thing_fn)(const thing *t, void *userdata);
typedef struct thing_view { size_t count; const void *data; } thing_view;
int thing_new(thing **out, uint32_t flags);
const char *thing_name(const thing *t);
void thing_free(thing *t);
int thing_list(const char *const *names, size_t count);
#ifdef __cplusplus
}
#endif
'''


def test_sample() -> None:
    h = headergen.parse(SAMPLE)
    constants = {c.name: c for c in h.constants}
    assert {n: c.value for n, c in constants.items()} == {
        "A_ONE": 1, "A_FLAG": 16, "A_NEG": -3, "A_MAX": 2**64 - 1, "A_SUM": 997, "B_SHIFT": 16}
    assert constants["A_MAX"].type == "size_t" and constants["A_FLAG"].type == "unsigned"
    assert constants["A_ONE"].group == "first" and constants["B_SHIFT"].group == "second"
    assert [(t.name, t.kind) for t in h.typedefs] == [("thing", "opaque"), ("thing_fn", "function"),
                                                       ("thing_view", "struct")]
    assert [(p.type, p.name) for p in h.typedefs[1].params] == [("const thing *", "t"), ("void *", "userdata")]
    assert [(f.type, f.name) for f in h.typedefs[2].fields] == [("size_t", "count"), ("const void *", "data")]
    functions = {f.name: f for f in h.functions}
    assert list(functions) == ["thing_new", "thing_name", "thing_free", "thing_list"]
    assert functions["thing_name"].returns == "const char *"
    assert [(p.type, p.name) for p in functions["thing_new"].params] == [("thing **", "out"), ("uint32_t", "flags")]
    assert [(p.type, p.name) for p in functions["thing_list"].params] == [("const char *const *", "names"),
                                                                         ("size_t", "count")]


def test_the_header() -> None:
    text = headergen.HEADER.read_text()
    h = headergen.read()
    declared = set(re.findall(r"^[a-z][\w ]*?\*?\s*(ilk_\w+)\(", text, re.M))
    assert {f.name for f in h.functions} == declared
    names = {c.name for c in h.constants}
    assert set(re.findall(r"^#define (ILK_[A-Z_]+) ", text, re.M)) - names == {"ILK_VERSION"}   # a string
    groups = {c.group for c in h.constants}
    assert {"version", "status", "callbacks", "routers"} <= groups


def test_the_lua_file_is_current() -> None:
    assert headergen.LUA_OUT.read_text() == headergen.lua(headergen.read())


def test_swift_checks_every_function() -> None:
    sample = headergen.parse(SAMPLE)
    names = ["thing_new", "thing_name", "thing_free", "thing_list"]
    prototypes = headergen.swift_prototypes(sample, source="sample.h")
    assert prototypes.startswith("// Generated from sample.h by Tools/headergen.py")
    assert re.findall(r"static let (\w+) = CInterlock\.(\w+)", prototypes) == [(n, n) for n in names]
    check = headergen.swift(sample, source="sample.h")
    assert check.startswith("// Generated from sample.h by Tools/headergen.py")
    # The export by its name alone: the check's file must not see the header's functions.
    assert "import CInterlock" not in check
    assert re.findall(r"same\(type\(of: HeaderPrototypes\.(\w+)\), type\(of: (\w+)\)\)", check) == [(n, n) for n in names]


def test_the_swift_files_are_current() -> None:
    assert headergen.SWIFT_OUT.read_text() == headergen.swift(headergen.read())
    assert headergen.SWIFT_PROTOTYPES_OUT.read_text() == headergen.swift_prototypes(headergen.read())
    assert headergen.main(["swift", "--check"]) == 0 and headergen.main(["swift-prototypes", "--check"]) == 0


if __name__ == "__main__":
    for name, test in list(globals().items()):
        if name.startswith("test_"):
            test()
    print("headergen: tests passed")
