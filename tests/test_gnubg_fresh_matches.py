"""Matches GNU Backgammon plays now, not only the corpus: the shared tools make gnubg play a
fresh set (fixed seeds, every match length in turn, money sessions with and without the
Jacoby rule) and read each `.mat` and SGF back as truth; bgparse must read every file as GNU
does, with no error. Skipped where `/usr/games/gnubg` or the shared tools are absent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED
from tests.test_replay_corpus import gnu_truth_mismatches

pytestmark = [pytest.mark.oracle, pytest.mark.corpus]

GNUBG = Path("/usr/games/gnubg")
GENERATE = SHARED / "tools" / "gnubg" / "gen_corpus.py"
MATCHES = 60
SEED = 271_000  # seeds 271000-271059: unlike the corpus's


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not GNUBG.exists():
        pytest.skip("GNU Backgammon is not installed (apt-get install gnubg)")
    if not GENERATE.is_file():
        pytest.skip(f"{GENERATE} is absent")
    out = tmp_path_factory.mktemp("fresh")
    args = [sys.executable, str(GENERATE), str(out), str(MATCHES), str(SEED)]
    args += ["--truth", "--cycle-lengths", "--money-frac", "0.3"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def test_fresh_gnubg_matches_read_as_gnu_reads_them(fresh: Path) -> None:
    rows = [json.loads(line) for line in (fresh / "manifest.jsonl").read_text().splitlines()]
    assert len(rows) == MATCHES and all(r["ok"] for r in rows)
    problems = {}
    files = 0
    for row in rows:
        for kind in ("mat", "sgf"):
            path = fresh / row["files"][kind]
            files += 1
            # A .mat cannot say whether a money session used the Jacoby rule; GNU's reading
            # was told, so bgparse is told too. The SGF says it itself (RU).
            overrides = (
                {"jacoby": bool(row["jacoby"])} if kind == "mat" and not row["length"] else None
            )
            found = gnu_truth_mismatches(path, overrides)
            if found:
                problems[path.name] = found
    assert files == 2 * MATCHES
    assert problems == {}
