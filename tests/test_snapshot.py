"""Behaviour held across the core's redesign (issue 16): `validate --format json` of every corpus
file and the dataset a corpus import stores equal the snapshot taken from the code before it
(tests/snapshots.py). A difference names the files or matches and the fields that moved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from . import snapshots

pytestmark = pytest.mark.corpus
if not snapshots.CORPUS.is_dir():
    pytest.skip("../shared/corpus is not here", allow_module_level=True)


def _differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key in sorted(set(old) | set(new), key=str):
        a, b = old.get(key, "<absent>"), new.get(key, "<absent>")
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key}: {json.dumps(a)[:200]} -> {json.dumps(b)[:200]}")
    return out


def test_validate_json_of_every_corpus_file_is_unchanged() -> None:
    old_code, old = snapshots.read_validate()
    code, new = snapshots.validate_lines()
    by_key = {(r["path"], r.get("index")): r for r in new}
    old_by_key = {(r["path"], r.get("index")): r for r in old}
    report = []
    for key in sorted(set(by_key) | set(old_by_key), key=str):
        diffs = _differences(old_by_key.get(key, {}), by_key.get(key, {}))
        if diffs:
            report.append(f"{key[0]} #{key[1]}: " + "; ".join(diffs[:5]))
    assert not report, f"{len(report)} records differ:\n" + "\n".join(report[:40])
    assert code == old_code


def test_corpus_dataset_is_unchanged(tmp_path: Path) -> None:
    snapshots.import_corpus(tmp_path / "data")
    new = snapshots.dataset_digest(tmp_path / "data")
    old = snapshots.read_dataset()
    report = []
    for table in snapshots.TABLES:
        keys = set(old.get(table, {})) | set(new[table])
        for key in sorted(keys):
            if old.get(table, {}).get(key) != new[table].get(key):
                report.append(f"{table} {key}: {old[table].get(key)} -> {new[table].get(key)}")
    assert not report, f"{len(report)} groups differ:\n" + "\n".join(report[:40])
