"""The package's version is the header's: the one place the project states it."""

import re

import interlock
from interlock import _native

from conftest import ROOT


def header_version() -> str:
    text = (ROOT / "include" / "interlock.h").read_text()
    parts = [re.search(rf"^#define ILK_VERSION_{p} (\d+)$", text, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    assert all(parts), "the header states no version"
    return ".".join(m.group(1) for m in parts)  # type: ignore[union-attr]


def test_the_package_and_the_library_have_the_headers_version() -> None:
    assert interlock.__version__ == header_version()
    assert _native.lib.ilk_version().decode() == header_version()
