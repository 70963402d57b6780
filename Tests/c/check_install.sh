#!/bin/sh
# Installs into a scratch prefix, then builds a consumer two ways: find_package(Interlock) with
# CMake, and pkg-config with cc. Both programs must run and match a route.
set -eu
build=$1 source=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
mkdir "$tmp/consumer"
cat > "$tmp/consumer/main.c" <<'C'
#include <interlock.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  ilk_router *r; ilk_match *m; const char *v;
  if (ilk_router_new(&r, 0) != ILK_OK || ilk_match_new(&m) != ILK_OK) return 1;
  if (ilk_router_add_route(r, "GET /hello/:who", NULL, NULL, NULL, NULL) != ILK_OK) return 2;
  if (ilk_router_match(r, "GET", "/hello/world", 12, m) != ILK_OK) return 3;
  if (ilk_match_param(m, "who", &v, NULL) != ILK_OK || strcmp(v, "world") != 0) return 4;
  printf("consumer: %s\n", v);
  ilk_match_free(m); ilk_router_free(r);
  return 0;
}
C
cat > "$tmp/consumer/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.22)
project(consumer C)
find_package(Interlock 0.2 REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE Interlock::interlock)
C
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" > /dev/null
cmake --build "$tmp/consumer/build" > /dev/null
"$tmp/consumer/build/consumer"
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" cc -o "$tmp/pc" "$tmp/consumer/main.c" \
  $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs interlock) -Wl,-rpath,"$tmp/prefix/lib"
"$tmp/pc"
echo "install: 2 passed, 0 failed"
