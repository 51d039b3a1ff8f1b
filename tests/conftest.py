"""Shared test fixtures: where the read-only corpus lives, skipping cleanly where it does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
SAMPLES = ROOT / "sample_logs"


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to test an old compiled build of edited sources (a checkout built in place)."""
    from bgparse.helpers.compiled import PURE_ENV, pure_requested, stale_modules

    stale = [] if pure_requested() else stale_modules()
    if stale:
        pytest.exit(
            f"compiled modules older than their source: {', '.join(stale)}. Rebuild them "
            f"(pip install -e .; one with no source left is to delete) or test the sources "
            f"alone ({PURE_ENV}=1).",
            returncode=4,
        )


def corpus_dir(name: str) -> Path:
    """A corpus folder, or skip the test where ../shared is not beside the project."""
    d = CORPUS / name
    if not d.is_dir():
        pytest.skip(f"corpus folder {d} is absent")
    return d


def corpus_files(name: str, pattern: str) -> list[Path]:
    """Files of a corpus folder, for parametrize: empty (and so skipped) where it is absent."""
    d = CORPUS / name
    return sorted(d.glob(pattern)) if d.is_dir() else []


def load_truth(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(Path(f"{path}.truth.json").read_text(encoding="utf-8"))
    return result


def ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]
