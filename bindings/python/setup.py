"""Builds the self-contained libinterlock.so with the project's own build (SwiftPM, Swift runtime
linked statically) and puts it inside the package, so `import interlock` needs nothing else."""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent


class BuildWithLibrary(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "interlock" / "libinterlock.so"
        prebuilt = os.environ.get("INTERLOCK_LIBRARY")
        if prebuilt:
            source = Path(prebuilt)
        else:
            if not (PROJECT / "Package.swift").exists():
                raise SystemExit(f"interlock: no Package.swift at {PROJECT}; build from the project's checkout "
                                 "or set INTERLOCK_LIBRARY to a built libinterlock.so")
            # The same scratch folder and flags as the CMake build: a checkout built by make is reused.
            scratch = PROJECT / "build" / "swiftpm"
            # Only the C API exported, as the CMake build does (interlock.map).
            exports = PROJECT / "Sources" / "InterlockABI" / "interlock.map"
            subprocess.run(["swift", "build", "-c", "release", "-Xswiftc", "-static-stdlib", "--product", "interlock",
                            "-Xlinker", f"--version-script={exports}",
                            "--package-path", str(PROJECT), "--scratch-path", str(scratch)], check=True)
            source = scratch / "release" / "libinterlock.so"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


class BinaryDistribution(Distribution):
    """The wheel carries a native library: tag it for the platform."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
