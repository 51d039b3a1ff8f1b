"""Every executor makes the same dataset, row for row in every table: inline, a process pool of
two workers (sending its rows to the importer, or writing parts as Dask's workers do), a Dask
LocalCluster of two workers (writing parts, or sending its rows), and `dask scheduler` with
two `dask worker` processes. The inputs are what tells them apart when something is lost: the
same match in two files, copies with one change that makes them illegal but leaves the match
(a second copy keeps its own findings, marked `in_duplicate`), a match twice in one file,
duplicates in the same unit and across units, copies of a content, the same input named
twice, damaged and unreadable files, archives.

Only `import_id` and `imported_at` are left out of the comparison (`conftest.VOLATILE`): each
run is its own import, with its own id and time. Nothing else may differ, the ledger's
reasons included. Real GNU matches; skipped where Dask or the corpus is absent."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bgparse.ingest import ImportOptions, ImportSummary, run_import
from bgparse.questions.query import connect, run

from ..conftest import CORPUS
from .conftest import snapshot

pytest.importorskip("distributed")
pytestmark = pytest.mark.corpus
GNUBG = CORPUS / "gnubg"
ILLEGAL = CORPUS / "gnubg-illegal"
if not GNUBG.is_dir() or not ILLEGAL.is_dir():
    pytest.skip(f"{GNUBG} or {ILLEGAL} is absent", allow_module_level=True)

from bgparse.pipeline.dask import DaskExecutor, open_dask  # noqa: E402 - after the skip


def _changed(text: str, how: int) -> str:
    """A one-change copy of a match record that keeps its match (the same plays and results)
    but is wrong: a game's score line off by 90 points (R003), a `Wins` line that cannot be
    read (S005); or the whole match twice in one file (a duplicate within the file)."""
    if how == 0:
        lines = text.splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if line.strip() == "Game 2")
        lines[at + 1] = lines[at + 1].replace(": ", ": 9", 1)
        return "".join(lines)
    if how == 1:
        return text.replace("Wins", "Wins 1", 1)
    return text + "\n" + text


def make_inputs(base: Path) -> list[str]:
    """The inputs, in the order given to the import (units of three files, so that duplicates
    fall in the first copy's unit and in later ones)."""
    mats = sorted(GNUBG.glob("g70[0-2]*.mat"))[:12]
    first, second = base / "a", base / "b"
    first.mkdir(parents=True)
    second.mkdir()
    for i, mat in enumerate(mats):
        (first / mat.name).write_bytes(mat.read_bytes())
        if i % 4 == 0:  # beside its original: a duplicate in the same unit
            (first / f"{mat.name}-copy.mat").write_text(_changed(mat.read_text(), i % 3))
    for i, mat in enumerate(mats[:9]):  # a later folder: duplicates in other units
        (second / f"x{mat.name}").write_text(_changed(mat.read_text(), (i + 1) % 3))
    (second / "exact-copy.mat").write_bytes(mats[5].read_bytes())
    for name in ("00_orig.mat", "a_pips_not_dice.mat", "c_blocked_point.mat"):
        (second / name).write_bytes((ILLEGAL / name).read_bytes())  # illegal: its own match
    (second / "empty.mat").write_bytes(b"")
    (second / "binary.mat").write_bytes(bytes(range(256)))
    (second / "truncated.mat").write_bytes(mats[3].read_bytes()[:700])
    (second / "broken-link.mat").symlink_to(base / "nowhere.mat")
    os.mkfifo(second / "pipe.mat")
    (second / "damaged.gz").write_bytes(b"\x1f\x8b\x08 not gzip")
    with zipfile.ZipFile(second / "all-bad.zip", "w") as z:  # the archive quarantined too
        z.writestr("cut.mat", mats[4].read_bytes()[:40])
        z.writestr("binary.mat", bytes(range(255, -1, -1)))
    with zipfile.ZipFile(second / "mixed.zip", "w") as z:
        z.writestr("same.mat", mats[1].read_bytes())
        z.writestr("changed.mat", _changed(mats[2].read_text(), 1))
        z.writestr("empty.mat", b"")
    # Named again: a file given twice, and an unreadable one.
    return [str(first), str(second), str(second / "exact-copy.mat"), str(second / "empty.mat")]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return make_inputs(tmp_path_factory.mktemp("inputs"))


Reference = tuple[ImportSummary, dict[str, list[tuple[str, ...]]], Path]


@pytest.fixture(scope="module")
def pool(inputs: list[str], tmp_path_factory: pytest.TempPathFactory) -> Reference:
    """The inputs imported by a process pool of two workers, in units of three files."""
    data = tmp_path_factory.mktemp("pool") / "data"
    summary = run_import(inputs, data, ImportOptions(workers=2, chunk_files=3))
    return summary, snapshot(data), data


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskExecutor]:
    dask = open_dask(None, 2)
    yield dask
    dask.shutdown()


def test_the_pools_dataset_keeps_every_duplicates_findings_and_counts_them(
    pool: Reference,
) -> None:
    """What the other executors are compared with is right: the duplicate inputs' findings are
    there, marked, and each input's ledger count of findings is the rows the findings table
    holds for it."""
    summary, _, root = pool
    assert summary.duplicate_matches >= 8 and summary.quarantined >= 6
    kept = run(
        connect(root),
        "SELECT code, count(DISTINCT source_path) AS inputs, count(*) AS n FROM findings "
        "WHERE in_duplicate GROUP BY code ORDER BY code",
    ).to_pylist()
    assert kept == [
        {"code": "R002", "inputs": 4, "n": 5},  # a game's score line does not follow
        {"code": "R003", "inputs": 2, "n": 2},  # a game after the match was won
        {"code": "S005", "inputs": 2, "n": 2},  # a line that cannot be read
    ]
    ledger_matches_findings(root)


def ledger_matches_findings(root: Path) -> None:
    """The inputs' `n_findings` are the findings rows kept for them (by path and content: an
    input named twice has a second ledger row, a duplicate with none)."""
    counted = run(
        connect(root),
        "WITH i AS (SELECT path, sha256, sum(n_findings) AS n FROM imports GROUP BY ALL), "
        "f AS (SELECT source_path AS path, file_sha256 AS sha256, count(*) AS n FROM findings "
        "GROUP BY ALL) "
        "SELECT * FROM i FULL JOIN f USING (path, sha256) "
        "WHERE coalesce(i.n, 0) <> coalesce(f.n, 0) ORDER BY ALL",
    ).to_pylist()
    assert counted == []


@pytest.mark.parametrize(
    "how",
    ["inline", "pool writing parts", "dask", "dask sending rows"],
)
def test_every_executor_makes_the_pools_rows(
    how: str,
    pool: Reference,
    inputs: list[str],
    cluster: DaskExecutor,
    tmp_path: Path,
) -> None:
    ref_summary, ref, _ = pool
    executor = None
    if how == "inline":
        opts = ImportOptions(workers=1, chunk_files=3)
    elif how == "pool writing parts":
        opts = ImportOptions(workers=2, chunk_files=3, worker_parts=True)
    else:
        opts = ImportOptions(executor="dask", workers=2, chunk_files=3, worker_parts=how == "dask")
        executor = cluster
    summary = run_import(inputs, tmp_path / "data", opts, executor=executor)
    got = snapshot(tmp_path / "data")
    for table in ref:
        missing = sorted(set(ref[table]) - set(got[table]))[:3]
        extra = sorted(set(got[table]) - set(ref[table]))[:3]
        assert got[table] == ref[table], (table, "missing", missing, "extra", extra)
    fields = ("inputs", "imported", "duplicate", "quarantined", "matches", "duplicate_matches")
    assert [getattr(summary, f) for f in fields] == [getattr(ref_summary, f) for f in fields]
    assert summary.findings == ref_summary.findings
    ledger_matches_findings(tmp_path / "data")


def test_a_scheduler_and_two_workers_make_the_pools_rows(
    pool: Reference, inputs: list[str], tmp_path: Path
) -> None:
    """The same through `dask scheduler` and two `dask worker` processes (the client connects
    by address; the workers read the inputs and write parts themselves)."""
    from .test_dask import dask_commands

    ref_summary, ref, _ = pool
    with dask_commands(tmp_path) as (address, _):
        opts = ImportOptions(executor="dask", scheduler=address, chunk_files=3)
        summary = run_import(inputs, tmp_path / "data", opts)
    assert snapshot(tmp_path / "data") == ref
    assert (summary.matches, summary.duplicate_matches, summary.findings) == (
        ref_summary.matches,
        ref_summary.duplicate_matches,
        ref_summary.findings,
    )
