"""What `import interlock` says when the library it finds is not the one it needs: missing, not
Interlock's, or Interlock's of another version. Each is an ImportError naming the file and why.
(The installed package itself is tested from its wheel: test_wheel.py.)"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PACKAGE


def import_with_library(library: Path, cwd: Path) -> subprocess.CompletedProcess:
    environment = dict(os.environ, INTERLOCK_LIBRARY=str(library), PYTHONPATH=str(PACKAGE))
    return subprocess.run([sys.executable, "-c", "import interlock"], env=environment, cwd=cwd,
                          capture_output=True, text=True)


def test_missing_library_is_a_clear_import_error(tmp_path):
    out = import_with_library(tmp_path / "nope.so", tmp_path)
    assert out.returncode != 0
    assert "ImportError" in out.stderr and "nope.so" in out.stderr and "INTERLOCK_LIBRARY" in out.stderr


def test_a_library_that_is_not_interlocks_is_a_clear_import_error(tmp_path):
    # Any shared library without ilk_version: the C library itself.
    libc = next(p for p in (Path("/lib/x86_64-linux-gnu/libc.so.6"), Path("/lib64/libc.so.6"),
                            Path("/usr/lib/libc.so.6")) if p.exists())
    out = import_with_library(libc, tmp_path)
    assert out.returncode != 0
    assert f"ImportError: interlock: {libc} is not the Interlock library" in out.stderr, out.stderr


def test_a_library_of_another_version_is_a_clear_import_error(tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler to make a stand-in library")
    (tmp_path / "old.c").write_text('const char *ilk_version(void) { return "0.1.0"; }\n')
    library = tmp_path / "libinterlock.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(tmp_path / "old.c")], check=True)
    out = import_with_library(library, tmp_path)
    assert out.returncode != 0
    assert f"ImportError: interlock: {library} is version 0.1.0, this package needs" in out.stderr, out.stderr
