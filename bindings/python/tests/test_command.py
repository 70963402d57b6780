"""`python -m interlock` from the checkout (the package not installed): it runs the command the
CMake build made, build/bin/interlock, as the installed package runs its own copy (test_wheel.py);
where there is no command it says so, exit status 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import PACKAGE, ROOT


def run_module(arguments: list[str], pythonpath: Path, cwd: Path) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(pythonpath),
                       INTERLOCK_LIBRARY=str(ROOT / "build" / "lib" / "libinterlock.so"))
    return subprocess.run([sys.executable, "-m", "interlock", *arguments], env=environment, cwd=cwd,
                          capture_output=True, text=True)


def test_python_m_interlock_runs_the_builds_command(tmp_path: Path) -> None:
    (tmp_path / "routes").write_text("GET /users/:id  name=user\nGET /users/:other\n")
    out = run_module(["check", "routes"], PACKAGE, tmp_path)
    assert (out.returncode, out.stdout) == (1, "routes:2:5: 'GET /users/:other' conflicts with 'GET /users/:id' (line 1): "
                                               "same method, scheme, host and path shape\n1 route, 1 problem\n"), out
    direct = subprocess.run([str(ROOT / "build" / "bin" / "interlock"), "check", "routes"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert (direct.returncode, direct.stdout, direct.stderr) == (out.returncode, out.stdout, out.stderr)


def test_a_package_without_the_command_says_so(tmp_path: Path) -> None:
    """A copy of the package away from the checkout and without bin/: nothing to run."""
    copy = tmp_path / "site" / "interlock"
    shutil.copytree(PACKAGE / "interlock", copy, ignore=shutil.ignore_patterns("bin", "__pycache__"))
    out = run_module(["--help"], copy.parent, tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"interlock: this installation has no interlock command (looked for {copy / 'bin' / 'interlock'};"), out.stderr
