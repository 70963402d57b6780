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
