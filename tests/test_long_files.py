"""Issue 32's rule, checked on the source: a module of bgparse over 600 lines is one idea and
says why in docs/ARCHITECTURE.md ("Files larger than one screenful of ideas"), or is named
there as left to divide; a file that table names is there and still that long."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bgparse"
LONG = 600
SECTION = "## Files larger than one screenful of ideas"


def _section() -> str:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end >= 0 else len(text)]


def _named(text: str) -> set[str]:
    return set(re.findall(r"`([\w/]+\.(?:py|pyx))`", text))


def _tabled() -> set[str]:
    """The files the table's first column names (relative to bgparse/)."""
    rows = [line for line in _section().splitlines() if line.startswith("| `")]
    return {name for row in rows for name in _named(row.split("|")[1])}


def _lines(rel: str) -> int:
    return len((PACKAGE / rel).read_text(encoding="utf-8").splitlines())


def test_every_long_module_is_accounted_for() -> None:
    long = {
        path.relative_to(PACKAGE).as_posix()
        for path in [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx")]
        if len(path.read_text(encoding="utf-8").splitlines()) > LONG
    }
    assert long - _named(_section()) == set()


def test_every_file_of_the_table_is_still_long() -> None:
    tabled = _tabled()
    assert len(tabled) > 3
    missing = {rel for rel in tabled if not (PACKAGE / rel).is_file()}
    assert missing == set()
    assert {rel: _lines(rel) for rel in tabled if _lines(rel) <= LONG} == {}
