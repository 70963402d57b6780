#!/bin/sh
# The complete C example in README.md (the block with main) compiles without warnings and runs.
set -eu
readme=$1 include=$2 libdir=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk '/^```c$/ { on = 1; block = ""; next }
     /^```$/ { if (on && block ~ /int main\(/) { printf "%s", block; exit } on = 0; next }
     on { block = block $0 "\n" }' "$readme" > "$tmp/example.c"
cc -std=c99 -Wall -Wextra -Werror -o "$tmp/example" "$tmp/example.c" -I"$include" -L"$libdir" -linterlock -Wl,-rpath,"$libdir"
out=$("$tmp/example")
echo "$out"
echo "$out" | grep -q "route 1, id 42" || { echo "readme: 0 passed, 1 failed"; exit 1; }
echo "readme: 1 passed, 0 failed"
