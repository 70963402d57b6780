import http.client
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def github_routes() -> list[tuple[str, str]]:
    routes = []
    for line in (ROOT / "benchmarks" / "routesets" / "github_api.txt").read_text().splitlines():
        if line.strip():
            method, path = line.split()
            routes.append((method, path))
    return routes


# The wheel and the sdist, built once per session through the PEP 517 backend as a user would
# (`python -m build`, build requirements from PyPI). The wheel's library comes from the CMake
# build in the checkout's build/ (make py-test brings it up to date first; setup.py reuses it).
import os
import subprocess
import sys

PACKAGE = Path(__file__).resolve().parents[1]


def clean_environment(**extra: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("INTERLOCK_LIBRARY", "INTERLOCK_BUILD_DIR", "INTERLOCK_PURE_PYTHON", "PYTHONPATH",
                                "LD_LIBRARY_PATH")}
    environment.update(extra)
    return environment


def python_build(source: Path, out: Path, kind: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "build", f"--{kind}", "--outdir", str(out), str(source)],
                          env=clean_environment(**extra), capture_output=True, text=True, timeout=1800)


def _built(tmp_path_factory, kind: str, pattern: str) -> Path:
    out = tmp_path_factory.mktemp(kind)
    run = python_build(PACKAGE, out, kind)
    (out / "build.log").write_text(run.stdout + run.stderr)
    assert run.returncode == 0, f"python -m build --{kind} failed:\n{run.stdout}\n{run.stderr}"
    found = sorted(out.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {out}, found {found}\n{run.stdout}"
    return found[0]


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> Path:
    return _built(tmp_path_factory, "wheel", "*.whl")


@pytest.fixture(scope="session")
def built_sdist(tmp_path_factory) -> Path:
    return _built(tmp_path_factory, "sdist", "*.tar.gz")


def http_request(port: int, method: str, target: str, host: str | None = None, headers: dict | None = None):
    """(status, headers as a dict with lower-case names, body) of one request to a server on
    loopback `port`; the target is sent byte for byte (http.client does not normalize it)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest(method, target, skip_host=host is not None)
        if host is not None:
            connection.putheader("Host", host)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()
