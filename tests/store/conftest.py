"""Fixtures of the store's tests: a hand-made dataset whose statistics were worked out by hand
(see test_stats.py), and a snapshot of a dataset's content for before/after comparisons."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect, run
from bgparse.store.schema import TABLES

from .factories import (
    RACE,
    Spec,
    dance,
    double,
    drop,
    encode,
    fake_verify,
    game,
    match,
    roll,
    take,
)

#: Columns that differ between two runs of the same import (its id and time; a stored
#: analysis is named by the import that wrote it).
VOLATILE = ("import_id", "imported_at", "analysis_id", "analysed_at")


def hand_matches() -> dict[str, Spec]:
    """Three matches, six games. Alice/Bob: 5 points; Carol/Dave: 3 points; Alice/Dave: money.
    Every figure test_stats.py expects comes from these moves."""
    m1 = match(
        game(
            roll(0, "31", "8/5 6/5"),
            roll(1, "42", "8/4 6/4"),
            double(0, pips=(160, 167)),
            take(1),
            winner=0,
            result="gammon",
        ),
        game(roll(1, "61", "13/7 8/7"), roll(0, "52", "13/8 13/11"), winner=0),
        players=("Alice", "Bob"),
        length=5,
        date="2019-06-01",
        findings=[{"code": "N002", "line": 7}, {"code": "P001", "line": 9}],
    )
    m2 = match(
        game(
            roll(0, "31", "8/5 6/5"),
            roll(1, "64", "24/18 13/9"),
            double(0),
            drop(1),
            winner=0,
            end="drop",
        ),
        game(roll(1, "31", "8/5 6/5"), roll(0, "21", "13/11 24/23"), winner=1),
        game(
            roll(0, "42", "8/4 6/4"),
            roll(1, "55", "8/3 8/3 6/1 6/1"),
            double(0, pos=RACE, pips=(60, 66)),
            take(1),
            roll(0, "65", "13/7 13/8", pos=RACE),
            double(1, pos=RACE, pips=(50, 49)),
            take(0),
            roll(1, "11", "6/5 6/5 5/4 5/4", pos=RACE),
            winner=1,
        ),
        players=("Carol", "Dave"),
        length=3,
        date="2020-02-02",
    )
    m3 = match(
        game(
            roll(0, "31", "8/5 6/5"),
            roll(1, "66", "24/18 24/18 13/7 13/7"),
            winner=0,
            result="backgammon",
        ),
        players=("Alice", "Dave"),
        length=0,
        date=None,
    )
    return {"m1.json": m1, "m2.json": m2, "m3.json": m3}


def write_inputs(folder: Path, specs: dict[str, Spec]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, spec in specs.items():
        (folder / name).write_bytes(encode(spec))
    return folder


@pytest.fixture(scope="session")
def hand_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-made matches imported (plus one empty file, quarantined with S001)."""
    base = tmp_path_factory.mktemp("hand")
    inputs = write_inputs(base / "in", hand_matches())
    (inputs / "zz-empty.mat").write_bytes(b"")
    run_import([inputs], base / "data", ImportOptions(workers=1), verify=fake_verify)
    return base / "data"


def group_alive(pgid: int) -> bool:
    """Does any process of the group `pgid` still run? (The kill and signal tests start their
    importer in a session of its own, so its workers share its process group.)"""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def group_ends(pgid: int, within: float, poll: float = 0.1) -> bool:
    """Wait up to `within` seconds for every process of the group `pgid` to end; whether they
    all did."""
    deadline = time.monotonic() + within
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(poll)
    return not group_alive(pgid)


def snapshot(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted, without the columns that name the run."""
    con = connect(root)
    out = {}
    for table in TABLES:
        cols = [c for c in run(con, f"SELECT * FROM {table} LIMIT 0").column_names]
        keep = ", ".join(f'"{c}"' for c in cols if c not in VOLATILE)
        rows = run(con, f"SELECT {keep} FROM {table}").to_pylist()
        out[table] = sorted(tuple(str(v) for v in r.values()) for r in rows)
    return out


def files(root: Path) -> dict[str, str]:
    """Every file and folder of a dataset (the lock aside, whose content is a pid), with the
    files' SHA-256: what "as it was" means, to the byte."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == "_lock":
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "/"
    return out


@pytest.fixture
def sample_inputs(tmp_path: Path) -> Iterator[Path]:
    """A folder of fake match files: the hand-made three, one holding two matches (one a copy
    of m1), a dance-only game, and one file per way of failing."""
    specs = hand_matches()
    folder = write_inputs(tmp_path / "in", specs)
    two = encode(
        specs["m1.json"],
        match(game(roll(0, "21", "13/11 24/23"), dance(1, "66"), winner=None), length=7),
    )
    (folder / "sub").mkdir()
    (folder / "sub" / "two.json").write_bytes(two)
    (folder / "sub" / "copy-of-m3.json").write_bytes((folder / "m3.json").read_bytes())
    (folder / "empty.mat").write_bytes(b"")
    (folder / "binary.bin").write_bytes(bytes(range(256)))
    (folder / "crash.mat").write_bytes(b"crash")
    yield folder
