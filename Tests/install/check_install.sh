#!/bin/sh
# check_install.sh BUILD SOURCE SWIFTPM_SCRATCH [CMAKE]: installs the library built in BUILD in
# each layout, then builds a consumer against it from a folder of its own, every way a C user
# would, and runs it as that user would (README, "Linking"):
#   usr    prefix /usr, Debian's multiarch libdir (lib/x86_64-linux-gnu), staged with DESTDIR and
#          stripped (--strip). Stands in for ldconfig with LD_LIBRARY_PATH, pkg-config's sysroot
#          with PKG_CONFIG_SYSROOT_DIR: the files are staged, not in /usr.
#   local  prefix /usr/local (CMake's default), staged with DESTDIR: as above.
#   home   a home prefix ($HOME/.local), installed to for real (cmake --install --prefix): found
#          through PKG_CONFIG_PATH or CMAKE_PREFIX_PATH, run through an rpath, no LD_LIBRARY_PATH.
# Each layout: where the files land, what interlock.pc and InterlockConfig.cmake say, a consumer
# built with pkg-config and cc, and one with find_package(Interlock MAJOR.MINOR CONFIG).
# Then the source tree as a subproject of a consumer's CMake build, Interlock::interlock linked:
#   add_subdirectory  of SOURCE, built and run; no tests or examples of Interlock's built.
#   FetchContent      from a local git URL (file://, no network) of SOURCE's working tree
#                     (Tests/install/snapshot_repo.sh: uncommitted changes included), tagged
#                     with the header's version; built, installed with the consumer (rpath $ORIGIN/../lib) and run.
# The subproject builds run SwiftPM again in their own binary folders. add_subdirectory of SOURCE
# names BUILD's SwiftPM scratch folder (ILK_SWIFTPM_DIR: the same package and flags, so nothing
# is rebuilt); FetchContent's copy is another package folder, so it is built from nothing (25 to
# 30 s on 2 cores). ILK_INSTALL_TEST_FETCH_BUILD=0 only configures it.
set -eu
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) scratch=$3 cmake=${4:-cmake}
version=$(sed -n 's/^#define ILK_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$source/include/interlock.h" | paste -sd.)
soname=$(readelf -d "$build/lib/libinterlock.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
multiarch=$(cc -print-multiarch 2> /dev/null || true)
[ -n "$multiarch" ] || multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || echo x86_64-linux-gnu)
generator=; command -v ninja > /dev/null && generator="-G Ninja"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "  ok: $*"; }
fail() { failed=$((failed + 1)); echo "  FAILED: $*"; }
# check DESCRIPTION COMMAND...: runs the command, its output kept in $tmp/log and shown on failure.
check() {
  what=$1; shift
  if "$@" > "$tmp/log" 2>&1; then ok "$what"; else fail "$what"; sed 's/^/    /' "$tmp/log"; fi
}
# The consumer: one route added, one request matched, the parameter read.
cat > "$tmp/main.c" <<'C'
#include <interlock.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  ilk_router *r; ilk_match *m; const char *v;
  if (ilk_router_new(&r, 0) != ILK_OK || ilk_match_new(&m) != ILK_OK) return 1;
  if (ilk_router_add_route(r, "GET /hello/:who", NULL, NULL, NULL, NULL) != ILK_OK) return 2;
  if (ilk_router_match(r, "GET", "/hello/world", 12, m) != ILK_OK) return 3;
  if (ilk_match_param(m, "who", &v, NULL) != ILK_OK || strcmp(v, "world") != 0) return 4;
  printf("consumer: hello %s (library %s)\n", v, ilk_version());
  ilk_match_free(m); ilk_router_free(r);
  return 0;
}
C
# runs PROGRAM [ENV...]: the program prints its line.
runs() { program=$1; shift; env "$@" "$program" | grep -q "consumer: hello world (library $version)"; }

# cmake_consumer DIR PREFIX_PATH [CMAKE ARGS...]: the find_package consumer, configured and built;
# Interlock::interlock's library must be the one below PREFIX_PATH.
cmake_consumer() {
  dir=$1 prefix_path=$2; shift 2
  mkdir -p "$dir"; cp "$tmp/main.c" "$dir/"
  cat > "$dir/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.22)
project(consumer C)
find_package(Interlock ${wanted} CONFIG REQUIRED)  # MAJOR.MINOR of the header: 0.3
get_target_property(location Interlock::interlock IMPORTED_LOCATION)
message(STATUS "Interlock::interlock: ${location}")
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE Interlock::interlock)
install(TARGETS consumer)
C
  "$cmake" -S "$dir" -B "$dir/build" $generator -DCMAKE_PREFIX_PATH="$prefix_path" -Dwanted="${version%.*}" "$@" > "$dir/configure.log" &&
    cat "$dir/configure.log" && grep -q "Interlock::interlock: $prefix_path/" "$dir/configure.log" &&
    "$cmake" --build "$dir/build"
}

# layout NAME PREFIX LIBDIR DESTDIR: the checks common to the layouts, on the files installed for
# PREFIX (library in LIBDIR) below DESTDIR (empty: not staged).
layout() {
  name=$1 prefix=$2 libdir=$3 stage=$4
  root=$stage$prefix libroot=$stage$libdir
  check "$name: library, SONAME links and header in $libdir and $prefix/include" \
    test -f "$libroot/libinterlock.so.$version" -a -L "$libroot/$soname" \
         -a -L "$libroot/libinterlock.so" -a -f "$root/include/interlock.h"
  check "$name: $libdir/pkgconfig/interlock.pc says prefix=$prefix, libdir=$libdir, Version: $version" \
    sh -c "grep -qx 'prefix=$prefix' '$libroot/pkgconfig/interlock.pc' &&
           grep -qx 'libdir=\${prefix}${libdir#$prefix}' '$libroot/pkgconfig/interlock.pc' &&
           grep -qx 'includedir=\${prefix}/include' '$libroot/pkgconfig/interlock.pc' &&
           grep -qx 'Version: $version' '$libroot/pkgconfig/interlock.pc'"
  config=$libroot/cmake/Interlock/InterlockConfig.cmake
  check "$name: $libdir/cmake/Interlock/InterlockConfig.cmake finds the files relative to itself, version $version" \
    sh -c "grep -q 'PACKAGE_PREFIX_DIR \"\${CMAKE_CURRENT_LIST_DIR}/' '$config' &&
           grep -q 'set_and_check(_ilk_libdir \"\${PACKAGE_PREFIX_DIR}${libdir#$prefix}\")' '$config' &&
           grep -q 'set(PACKAGE_VERSION \"$version\")' '${config%.cmake}Version.cmake'"
}

# staged_consumers NAME PREFIX LIBDIR DESTDIR: a pkg-config consumer (PKG_CONFIG_SYSROOT_DIR
# standing in for the staged root) and a find_package one, built and run against the files staged
# below DESTDIR (LD_LIBRARY_PATH standing in for ldconfig).
staged_consumers() {
  name=$1 prefix=$2 libdir=$3 stage=$4
  check "$name: pkg-config consumer (PKG_CONFIG_SYSROOT_DIR=DESTDIR) builds" sh -c \
    "export PKG_CONFIG_SYSROOT_DIR='$stage' PKG_CONFIG_PATH='$stage$libdir/pkgconfig' &&
     cc -o '$tmp/$name-pc' '$tmp/main.c' \$(pkg-config --cflags --libs interlock)"
  check "$name: ...and runs" runs "$tmp/$name-pc" LD_LIBRARY_PATH="$stage$libdir"
  check "$name: find_package consumer (CMAKE_PREFIX_PATH=DESTDIR$prefix) builds" \
    cmake_consumer "$tmp/$name-cmake" "$stage$prefix"
  check "$name: ...and runs" runs "$tmp/$name-cmake/build/consumer" LD_LIBRARY_PATH="$stage$libdir"
}

echo "== usr: prefix /usr, libdir lib/$multiarch, DESTDIR staging, --strip"
# Its own configure: the libdir is chosen then (GNUInstallDirs: multiarch for /usr on Debian). The
# library is BUILD's, through its SwiftPM scratch folder (nothing to rebuild).
usr_build=$tmp/usr-build stage=$tmp/stage-usr
check "usr: configured with CMAKE_INSTALL_PREFIX=/usr, built" sh -c \
  "'$cmake' -S '$source' -B '$usr_build' $generator -DCMAKE_INSTALL_PREFIX=/usr -DILK_SWIFTPM_DIR='$scratch' \
     -DILK_BUILD_TESTS=OFF -DILK_BUILD_EXAMPLES=OFF && '$cmake' --build '$usr_build'"
check "usr: DESTDIR=... cmake --install --strip" env DESTDIR="$stage" "$cmake" --install "$usr_build" --strip
layout usr /usr "/usr/lib/$multiarch" "$stage"
lib=$stage/usr/lib/$multiarch/libinterlock.so.$version
check "usr: --strip stripped the library ($(wc -c < "$build/lib/libinterlock.so.$version") -> $(wc -c < "$lib" 2> /dev/null) bytes), its exports kept" \
  sh -c "readelf -S '$build/lib/libinterlock.so.$version' | grep -q '\.symtab' && ! readelf -S '$lib' | grep -q '\.symtab' &&
         readelf --dyn-syms '$lib' | grep -q ' ilk_router_new\$'"
# Absolute system dirs: pkg-config leaves them out, as for any library in /usr.
check "usr: pkg-config --cflags --libs interlock says -linterlock only" \
  sh -c "[ \"\$(echo \$(PKG_CONFIG_PATH='$stage/usr/lib/$multiarch/pkgconfig' pkg-config --cflags --libs interlock))\" = -linterlock ]"
staged_consumers usr /usr "/usr/lib/$multiarch" "$stage"

echo "== local: prefix /usr/local, DESTDIR staging"
stage=$tmp/stage-local
check "local: DESTDIR=... cmake --install --prefix /usr/local" \
  env DESTDIR="$stage" "$cmake" --install "$build" --prefix /usr/local
local_libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
case $local_libdir in /*) ;; *) local_libdir=/usr/local/$local_libdir ;; esac
layout local /usr/local "$local_libdir" "$stage"
staged_consumers local /usr/local "$local_libdir" "$stage"

echo "== home: prefix \$HOME/.local, installed for real"
home=$tmp/home/.local
check "home: cmake --install --prefix \$HOME/.local" "$cmake" --install "$build" --prefix "$home"
home_libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
home_libdir=$home/$home_libdir
layout home "$home" "$home_libdir" ""
check "home: pkg-config consumer (PKG_CONFIG_PATH, -Wl,-rpath) builds" sh -c \
  "export PKG_CONFIG_PATH='$home_libdir/pkgconfig' &&
   cc -o '$tmp/home-pc' '$tmp/main.c' \$(pkg-config --cflags --libs interlock) -Wl,-rpath,\$(pkg-config --variable=libdir interlock)"
check "home: ...and runs (no LD_LIBRARY_PATH)" runs "$tmp/home-pc" -u LD_LIBRARY_PATH
# A home prefix has no ldconfig: the installed program carries an rpath to the library's folder.
home_cmake() {
  cmake_consumer "$tmp/home-cmake" "$home" -DCMAKE_INSTALL_PREFIX="$home" -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON &&
    "$cmake" --install "$tmp/home-cmake/build"
}
check "home: find_package consumer (CMAKE_PREFIX_PATH, CMAKE_INSTALL_RPATH_USE_LINK_PATH) builds, installs" home_cmake
check "home: ...and the installed program runs (no LD_LIBRARY_PATH)" runs "$home/bin/consumer" -u LD_LIBRARY_PATH

echo "== subproject: add_subdirectory"
# subproject_consumer DIR HOW: a consumer whose CMakeLists.txt takes Interlock in with HOW (CMake
# lines), then links Interlock::interlock and installs its program with the library beside it.
subproject_consumer() {
  dir=$1 how=$2
  mkdir -p "$dir"; cp "$tmp/main.c" "$dir/"
  cat > "$dir/CMakeLists.txt" <<C
cmake_minimum_required(VERSION 3.22)
project(consumer C)
include(GNUInstallDirs)
$how
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE Interlock::interlock)
# Installed, the program finds the library installed with it (Interlock's own install rules).
set_target_properties(consumer PROPERTIES INSTALL_RPATH "\$ORIGIN/../\${CMAKE_INSTALL_LIBDIR}")
install(TARGETS consumer)
C
}
# built DIR [CMAKE ARGS...]: configured and built; none of Interlock's tests or examples is a target.
built() {
  dir=$1; shift
  "$cmake" -S "$dir" -B "$dir/build" $generator "$@" && "$cmake" --build "$dir/build" &&
    ! "$cmake" --build "$dir/build" --target help | grep -E '(test_abi|deeplinks|walkthrough)'
}
subproject_consumer "$tmp/sub" "add_subdirectory(\"$source\" interlock)"
# BUILD's SwiftPM scratch folder: the same package folder and flags, nothing to rebuild.
check "add_subdirectory: builds (without Interlock's tests and examples)" built "$tmp/sub" -DILK_SWIFTPM_DIR="$scratch"
check "add_subdirectory: ...and runs" runs "$tmp/sub/build/consumer" -u LD_LIBRARY_PATH

echo "== subproject: FetchContent from a local git URL"
if git -C "$source" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  sh "$source/Tests/install/snapshot_repo.sh" "$source" "$tmp/interlock.git" "$version" > /dev/null
  subproject_consumer "$tmp/fetch" "include(FetchContent)
FetchContent_Declare(interlock GIT_REPOSITORY \"file://$tmp/interlock.git\" GIT_TAG $version)
FetchContent_MakeAvailable(interlock)"
  if [ "${ILK_INSTALL_TEST_FETCH_BUILD:-1}" = 0 ]; then
    check "FetchContent: configures (ILK_INSTALL_TEST_FETCH_BUILD=0: not built)" sh -c \
      "'$cmake' -S '$tmp/fetch' -B '$tmp/fetch/build' $generator && test -f '$tmp/fetch/build/_deps/interlock-src/Package.swift'"
  else
    start=$(date +%s)
    check "FetchContent: builds (without Interlock's tests and examples)" built "$tmp/fetch" -DCMAKE_INSTALL_PREFIX="$tmp/app"
    echo "  (FetchContent's build, SwiftPM's from nothing included: $(($(date +%s) - start)) s)"
    check "FetchContent: ...and runs" runs "$tmp/fetch/build/consumer" -u LD_LIBRARY_PATH
    check "FetchContent: the consumer's cmake --install puts the program and the library in one prefix" \
      sh -c "'$cmake' --install '$tmp/fetch/build' && test -x '$tmp/app/bin/consumer' &&
             test -f '$tmp/app/lib/libinterlock.so.$version' && test -f '$tmp/app/include/interlock.h'"
    check "FetchContent: ...and the installed program runs (rpath \$ORIGIN/../lib)" runs "$tmp/app/bin/consumer" -u LD_LIBRARY_PATH
  fi
else
  echo "  skipped: $source is not a git checkout"
fi

echo "install: $passed passed, $failed failed"
[ "$failed" = 0 ]
