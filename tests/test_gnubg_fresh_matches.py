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


def _played(
    tmp_path_factory: pytest.TempPathFactory, name: str, count: int, seed: int, *options: str
) -> Path:
    """A folder of `count` matches GNU plays now (seeds from `seed`), with its truth files."""
    if not GNUBG.exists():
        pytest.skip("GNU Backgammon is not installed (apt-get install gnubg)")
    if not GENERATE.is_file():
        pytest.skip(f"{GENERATE} is absent")
    out = tmp_path_factory.mktemp(name)
    args = [sys.executable, str(GENERATE), str(out), str(count), str(seed), "--truth", *options]
    done = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _played(
        tmp_path_factory, "fresh", MATCHES, SEED, "--cycle-lengths", "--money-frac", "0.3"
    )


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


AUTO_SESSIONS = 12
AUTO_SEED = 373_000


@pytest.fixture(scope="module")
def automatic_doubles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _played(
        tmp_path_factory, "auto", AUTO_SESSIONS, AUTO_SEED,
        "--money-frac", "1.0", "--autodouble-frac", "1.0",
    )  # fmt: skip


def test_gnubg_sessions_with_automatic_doubles(automatic_doubles: Path) -> None:
    """Money sessions GNU plays with automatic doubles (its tools run it without a display):
    its SGF records each game's automatic doubles (`CV`) while its score lines count the game
    at cube 1. bgparse reads every game as GNU does; the only errors are those score lines
    (R002), each saying that the difference is the automatic doubles. The `.mat`, which has no
    place for them, is written (and read) at cube 1 throughout: no error."""
    rows = [
        json.loads(line) for line in (automatic_doubles / "manifest.jsonl").read_text().splitlines()
    ]
    assert len(rows) == AUTO_SESSIONS and all(r["ok"] and not r["length"] for r in rows)
    named = 0
    problems = {}
    for row in rows:
        mat = automatic_doubles / row["files"]["mat"]
        found = gnu_truth_mismatches(mat, {"jacoby": bool(row["jacoby"])})
        if found:
            problems[mat.name] = found
        sgf = automatic_doubles / row["files"]["sgf"]
        for problem in gnu_truth_mismatches(sgf):
            if problem.startswith("R002 ") and "without the automatic doubles" in problem:
                named += 1
            else:
                problems.setdefault(sgf.name, []).append(problem)
    assert problems == {}
    assert named > 0  # the seeds give sessions whose score lines show it
