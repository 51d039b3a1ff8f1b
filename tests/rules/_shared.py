"""Where the read-only reference data (`../shared` beside the project) is, for the rules tests."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = (ROOT / ".." / "shared").resolve()
FIXTURES = Path(__file__).resolve().parent / "fixtures"

ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test when that data is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data not available: {path}")
    return path


def read_ids(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]
