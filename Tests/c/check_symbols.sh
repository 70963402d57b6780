#!/bin/sh
# The functions the header declares and the library exports are the same set, and the library
# exports nothing else (every global symbol starts with ilk_).
set -eu
header=$1 library=$2  # and $3, the SONAME
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Declarations: a return type, then "ilk_name(" at the start of a line's declarator.
sed -nE '/^(typedef|#)/d; s/^[^(]*[ *](ilk_[a-z0-9_]+)\(.*/\1/p' "$header" | sort -u > "$tmp/declared"
readelf --dyn-syms -W "$library" | awk '$5 == "GLOBAL" && $7 != "UND" { print $8 }' | sed 's/@.*//' | sort -u > "$tmp/exported"
status=0
if ! diff -u "$tmp/declared" "$tmp/exported" > "$tmp/diff"; then
  echo "header declarations (-) and exported symbols (+) differ:"; cat "$tmp/diff"; status=1
fi
if grep -v '^ilk_' "$tmp/exported"; then echo "non-ilk_ symbols exported (above)"; status=1; fi
soname=$3
readelf -d "$library" | grep -q "SONAME.*\[$soname\]" || { echo "no SONAME $soname"; status=1; }
n=$(wc -l < "$tmp/declared")
if [ $status -eq 0 ]; then echo "symbols: $n passed, 0 failed"; else echo "symbols: 0 passed, 1 failed"; fi
exit $status
