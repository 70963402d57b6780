"""The sdist builds from itself: it carries the CMake build's input under native/, and a wheel
built from it alone (a fresh CMake and Swift build of the library and the interlock command, a few
minutes; INTERLOCK_TEST_SDIST_BUILD=0 skips that one) is the same as make wheel's. Where a tool or PCRE2 is missing, building it stops
with one message saying what and how to install it."""

from __future__ import annotations

import os
import re
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

import interlock
from conftest import ROOT, python_build

MESSAGE = re.compile(r"^interlock: building from source needs .*$", re.M)


def members(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as archive:
        top = f"interlock-{interlock.__version__}/"
        return {m.name[len(top):] for m in archive.getmembers() if m.isfile()}


def test_the_sdist_holds_what_the_cmake_build_reads(built_sdist: Path) -> None:
    assert built_sdist.name == f"interlock-{interlock.__version__}.tar.gz"
    names = members(built_sdist)
    for name in ("pyproject.toml", "setup.py", "README.md", "interlock/__init__.py", "interlock/py.typed",
                 "native/CMakeLists.txt", "native/Package.swift", "native/LICENSE",
                 "native/include/interlock.h", "native/Sources/InterlockABI/interlock.map",
                 "native/Sources/CPCRE2/module.modulemap", "native/Tools/interlock/Package.swift"):
        assert name in names, f"the sdist has no {name}"
    # Every source, CMake file and example the checkout has (git's view of the same folders).
    for folder in ("Sources", "cmake", "include", "examples/c", "Tests", "Tools/interlock"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                assert f"native/{path.relative_to(ROOT)}" in names
    assert not [n for n in names if n.endswith(".so") or ".so." in n or n.startswith(("build/", "native/build"))]


def unpacked(sdist: Path, into: Path) -> Path:
    with tarfile.open(sdist) as archive:
        archive.extractall(into)
    return into / f"interlock-{interlock.__version__}"


def test_building_the_sdist_without_swift_or_pcre2_says_so_once(built_sdist: Path, tmp_path: Path) -> None:
    source = unpacked(built_sdist, tmp_path)
    no_pkg_config_files = tmp_path / "empty"
    no_pkg_config_files.mkdir()
    # Swift off the PATH, libpcre2-8.pc out of pkg-config's sight.
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                           if not (Path(p) / "swift").exists())
    run = python_build(source, tmp_path / "out", "wheel", PATH=path, PKG_CONFIG_LIBDIR=str(no_pkg_config_files),
                       PKG_CONFIG_PATH="")
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert MESSAGE.findall(output) == ["interlock: building from source needs Swift 6 (https://swift.org/install) "
                                       "and libpcre2-dev (apt install libpcre2-dev)"], output
    for noise in ("CMake Error", "error:", "Traceback"):
        assert noise not in output, output


@pytest.mark.skipif(os.environ.get("INTERLOCK_TEST_SDIST_BUILD") == "0", reason="INTERLOCK_TEST_SDIST_BUILD=0")
def test_the_sdist_builds_a_wheel_from_itself(built_sdist: Path, built_wheel: Path, tmp_path: Path) -> None:
    source = unpacked(built_sdist, tmp_path)
    try:
        run = python_build(source, tmp_path / "out", "wheel")
        assert run.returncode == 0, run.stdout + run.stderr
    finally:
        shutil.rmtree(source / "build", ignore_errors=True)  # its CMake and SwiftPM build
    assert f"interlock: Configuring the CMake build of {source / 'native'}" in run.stdout
    assert [w.name for w in (tmp_path / "out").glob("*.whl")] == [built_wheel.name]
    with zipfile.ZipFile(tmp_path / "out" / built_wheel.name) as mine, zipfile.ZipFile(built_wheel) as made:
        assert sorted(mine.namelist()) == sorted(made.namelist())
