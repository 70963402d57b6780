#!/bin/sh
# What the library asks of the machine it runs on: the shared libraries it names (NEEDED) are
# among `allowed`, and no glibc symbol it imports is newer than `glibc` (the wheel's manylinux tag
# rests on it).
set -eu
library=$1 glibc=$2 allowed=$3
failed=0
for lib in $(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  case " $allowed " in
    *" $lib "*) ;;
    *) echo "library_deps: needs $lib (allowed: $allowed)"; failed=$((failed + 1)) ;;
  esac
done
newest=$(objdump -T "$library" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
if [ "$(printf '%s\n%s\n' "$newest" "$glibc" | sort -V | tail -n 1)" != "$glibc" ]; then
  echo "library_deps: asks for glibc $newest, newer than $glibc:"
  objdump -T "$library" | grep "GLIBC_$newest"
  failed=$((failed + 1))
fi
echo "library_deps: $((2 - (failed > 0 ? 1 : 0))) of 2 checks passed"
[ "$failed" -eq 0 ]
