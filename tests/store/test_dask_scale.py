"""A few thousand matches on a LocalCluster of 2 workers (issue 15's scale run, small): the
ledger holds every input as imported, and every renamed copy of a GNU match holds exactly what
the original holds when the process pool imports it alone, counted from the tables here (the
benchmark, `bench/dask_scale.py`, checks its 100,000 matches with SQL). Skipped where Dask or
the corpus is absent."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect, run

from ..conftest import CORPUS

pytest.importorskip("distributed")
pytestmark = pytest.mark.corpus
GNUBG = CORPUS / "gnubg"
if not (GNUBG / "manifest.jsonl").is_file():
    pytest.skip(f"{GNUBG} is absent", allow_module_level=True)

COPIES = 5  # of the 400 GNU matches: 2,000 matches


def renamed_copies(dest: Path, copies: int) -> list[Path]:
    """`copies` copies of every GNU .mat, the first player renamed in each (a new match each)."""
    players = {}
    for line in (GNUBG / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        players[doc["files"]["mat"]] = doc["players"][0]
    out = []
    for k in range(copies):
        folder = dest / f"copy{k}"
        folder.mkdir(parents=True)
        for path in sorted(GNUBG.glob("*.mat")):
            name = players[path.name]
            text = re.sub(rf"\b{re.escape(name)}\b", f"{name}-{k}", path.read_text("utf-8"))
            (folder / path.name).write_text(text, encoding="utf-8")
            out.append(folder / path.name)
    return out


def facts(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    """By file name: each stored match's games, turns, cube actions and findings, counted
    row by row from the tables, and its own counts and result."""
    con = connect(root)
    per_uid: dict[bytes, Counter[str]] = defaultdict(Counter)
    for table in ("games", "turns", "cube_actions", "findings"):
        for uid in run(con, f"SELECT match_uid FROM {table}").column(0).to_pylist():
            if uid is not None:
                per_uid[uid][table] += 1
    out: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    sql = (
        "SELECT match_uid, source_path, n_games, final_score0, final_score1, winner, "
        "n_errors, n_warnings FROM matches"
    )
    for m in run(con, sql).to_pylist():
        c = per_uid[m["match_uid"]]
        own = (m["n_games"], m["final_score0"], m["final_score1"], m["winner"])
        counted = (c["games"], c["turns"], c["cube_actions"], c["findings"])
        out[Path(m["source_path"]).name].append((*own, m["n_errors"], m["n_warnings"], *counted))
    return out


def test_two_thousand_matches_on_two_workers_are_stored_exactly(tmp_path: Path) -> None:
    inputs = renamed_copies(tmp_path / "in", COPIES)
    reference = tmp_path / "reference"
    run_import(sorted(GNUBG.glob("*.mat")), reference, ImportOptions(workers=2))
    data = tmp_path / "data"
    summary = run_import([tmp_path / "in"], data, ImportOptions(executor="dask", workers=2))
    assert (summary.imported, summary.matches, summary.quarantined) == (len(inputs), 2000, 0)

    ledger = run(connect(data), "SELECT path, status, size_bytes, sha256 FROM imports")
    rows = {r["path"]: r for r in ledger.to_pylist()}
    assert sorted(rows) == sorted(str(p) for p in inputs)
    for path in inputs[::50]:
        body = path.read_bytes()
        row = rows[str(path)]
        assert row["status"] == "imported"
        assert (row["size_bytes"], row["sha256"]) == (len(body), hashlib.sha256(body).hexdigest())
    assert {r["status"] for r in rows.values()} == {"imported"}

    original = facts(reference)
    stored = facts(data)
    assert sorted(stored) == sorted(original)  # every corpus file, none other
    wrong = {
        name: (copies, original[name])
        for name, copies in stored.items()
        if copies != original[name] * COPIES
    }
    assert not wrong, f"{len(wrong)} matches differ from their originals: {list(wrong)[:5]}"
    uids = run(connect(data), "SELECT count(DISTINCT match_uid) AS n FROM matches")
    assert uids.column(0)[0].as_py() == 2000
