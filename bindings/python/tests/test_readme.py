"""The Python examples of the project's README and of the package's README run as written, and
print what their comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from conftest import PACKAGE, ROOT

FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(path: Path, section: str | None = None) -> list[str]:
    """The ```python blocks of the Markdown file at `path`, or of its `## section` only."""
    text = path.read_text()
    if section is not None:
        start = text.index(f"\n## {section}\n")
        end = text.find("\n## ", start + 1)
        text = text[start:end if end >= 0 else len(text)]
    return FENCE.findall(text)


EXAMPLES = ([(f"README.md, Python {i}", block) for i, block in enumerate(python_blocks(ROOT / "README.md", "Python"))]
            + [(f"bindings/python/README.md {i}", block) for i, block in enumerate(python_blocks(PACKAGE / "README.md"))])


def test_the_readmes_have_python_examples():
    assert len([name for name, _ in EXAMPLES if name.startswith("README.md")]) >= 1
    assert len([name for name, _ in EXAMPLES if name.startswith("bindings")]) >= 3


@pytest.mark.parametrize("name, block", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_a_readme_example_runs_as_written(name, block):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(block, name, "exec"), {"__name__": "__readme__"})
    printed = out.getvalue()
    # `print(...)   # what it prints` ("..." for the rest of it)
    for said in re.findall(r"^\s*print\(.*\)\s+#\s*(.+?)\s*$", block, re.M):
        pattern = ".*".join(re.escape(part) for part in said.split("..."))
        assert re.search(pattern, printed), f"{name}: printed\n{printed}\nnot {said!r}"
