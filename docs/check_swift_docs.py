#!/usr/bin/env python3
"""Checks that every public symbol of a Swift module is documented.

Reads the symbol graph(s) that `swift build -Xswiftc -emit-symbol-graph` wrote for a module and
prints one warning per public declaration (in the module's own sources) that has no `///` doc
comment, or whose comment does not document each of its parameters (`- Parameters:` or
`- Parameter name:`), its result (`- Returns:`) or that it throws (`- Throws:`). Symbols the
compiler synthesizes (protocol default implementations, a raw-value enum's `init(rawValue:)`) are
not in the sources and are skipped. Exits 1 if it printed any warning.

usage: check_swift_docs.py SYMBOL_GRAPH_DIR MODULE
"""
import json
import os
import re
import sys

CALLABLE = {"swift.func", "swift.func.op", "swift.method", "swift.type.method", "swift.init",
            "swift.subscript", "swift.type.subscript"}


def fragments_text(fragments):
    return "".join(f.get("spelling", "") for f in fragments)


def throws(fragments):
    """Whether the declaration itself throws (not merely a closure among its parameters)."""
    depth, closed = 0, False
    for f in fragments:
        if f["kind"] == "keyword" and f["spelling"] in ("throws", "rethrows") and depth == 0 and closed:
            return True
        if f["kind"] == "text":
            for c in f["spelling"]:
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                    closed = closed or depth == 0
    return False


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    directory, module = sys.argv[1], sys.argv[2]
    paths = [os.path.join(directory, f) for f in sorted(os.listdir(directory))
             if f == module + ".symbols.json" or f.startswith(module + "@")]
    if not paths:
        sys.exit(f"check_swift_docs: error: no symbol graph for {module} in {directory}")
    warnings = []
    total = 0
    for path in paths:
        graph = json.load(open(path))
        for s in graph["symbols"]:
            if "::SYNTHESIZED::" in s["identifier"]["precise"] or "location" not in s:
                continue
            if s.get("accessLevel") not in ("public", "open"):
                continue
            total += 1
            kind = s["kind"]["identifier"]
            name = ".".join(s["pathComponents"])
            loc = s["location"]
            where = "%s:%d" % (loc["uri"].removeprefix("file://"), loc["position"]["line"] + 1)
            doc = s.get("docComment")
            if not doc:
                warnings.append(f"{where}: warning: public {s['kind']['displayName'].lower()} '{name}' is not documented")
                continue
            if kind not in CALLABLE:
                continue
            text = "\n".join(l["text"] for l in doc["lines"])
            missing = []
            sig = s.get("functionSignature", {})
            for p in sig.get("parameters", []):
                names = {p["name"], p.get("internalName", p["name"])}
                if not any(re.search(r"^\s*-\s+(?i:Parameter)\s+%s\s*:" % re.escape(n), text, re.M)
                           or re.search(r"^\s*-\s+%s\s*:" % re.escape(n), text, re.M) for n in names):
                    missing.append(f"parameter '{p.get('internalName', p['name'])}'")
            returns = fragments_text(sig.get("returns", [])).strip()
            if kind not in ("swift.init",) and returns not in ("", "()", "Void") \
                    and not re.search(r"^\s*-\s+Returns\s*:", text, re.M | re.I):
                missing.append("'- Returns:'")
            if throws(s.get("declarationFragments", [])) and not re.search(r"^\s*-\s+Throws\s*:", text, re.M | re.I):
                missing.append("'- Throws:'")
            if missing:
                warnings.append(f"{where}: warning: '{name}' does not document {', '.join(missing)}")
    for w in warnings:
        print(w)
    print(f"check_swift_docs: {module}: {total} public symbols, {len(warnings)} warning(s)")
    sys.exit(1 if warnings else 0)


if __name__ == "__main__":
    main()
