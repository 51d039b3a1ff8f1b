"""With `--executor dask` the workers read and hash the input files themselves: the ledger and
the dataset are the process pool's (which copy of a content is the first, what an earlier
import settled), a file changed after the walk is quarantined and retried by the next import,
and a worker that cannot see the inputs stops the import before it starts. Real GNU matches,
a LocalCluster of 2 worker processes. Skipped where Dask is not installed."""

from __future__ import annotations

import hashlib
import os
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bgparse.ingest import (
    FileResult,
    FileTask,
    ImportOptions,
    ImportProgress,
    read_task,
    run_import,
    verify_file,
)
from bgparse.model.verified import VerifiedMatch
from bgparse.questions.query import connect, run
from bgparse.store.dataset import Dataset

from ..conftest import CORPUS
from .conftest import snapshot

pytest.importorskip("distributed")
pytestmark = pytest.mark.corpus
GNUBG = CORPUS / "gnubg"
if not GNUBG.is_dir():
    pytest.skip(f"{GNUBG} is absent", allow_module_level=True)

import bgparse.pipeline.dask as executors  # noqa: E402 - after the skip
from bgparse.pipeline.dask import DaskExecutor, open_dask  # noqa: E402
from bgparse.store.parts import SharedStorageError  # noqa: E402

A = GNUBG / "g7000_money.mat"
B = GNUBG / "g7001_m17.mat"


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskExecutor]:
    dask = open_dask(None, 2)
    yield dask
    dask.shutdown()


def copies(folder: Path) -> Path:
    """Inputs where contents repeat, read by the walk (archive members) and by workers (plain
    files) in turn: `0.zip!x.mat` is B, `a.mat` A, `b.mat` a copy of A, `c.mat` a copy of
    the zip's member, `z.zip!y.mat` a copy of A; and a file that is no match (quarantined: a
    finding about the file), `e.json` its copy (a duplicate: no finding of its own)."""
    folder.mkdir()
    with zipfile.ZipFile(folder / "0.zip", "w") as zf:
        zf.write(B, "x.mat")
    shutil.copyfile(A, folder / "a.mat")
    shutil.copyfile(A, folder / "b.mat")
    shutil.copyfile(B, folder / "c.mat")
    shutil.copyfile(A.with_name(A.name + ".truth.json"), folder / "d.json")
    shutil.copyfile(A.with_name(A.name + ".truth.json"), folder / "e.json")
    with zipfile.ZipFile(folder / "z.zip", "w") as zf:
        zf.write(A, "y.mat")
    return folder


def ledger(root: Path) -> list[dict[str, object]]:
    con = connect(root)
    sql = "SELECT path, kind, size_bytes, sha256, status, reason FROM imports ORDER BY path"
    return run(con, sql).to_pylist()


@pytest.mark.parametrize(
    "chunk,parts",
    [(1, True), (8, True), (1, False)],  # False: the rows come back to the client
)
def test_workers_hash_the_inputs_and_the_ledger_is_the_pools(
    cluster: DaskExecutor, tmp_path: Path, chunk: int, parts: bool
) -> None:
    inputs = copies(tmp_path / "in")
    pool, dask = tmp_path / "pool", tmp_path / "dask"
    run_import([inputs], pool, ImportOptions(workers=2, chunk_files=chunk))
    opts = ImportOptions(executor="dask", workers=2, chunk_files=chunk, worker_parts=parts)
    summary = run_import([inputs], dask, opts, executor=cluster)
    assert ledger(dask) == ledger(pool)
    assert snapshot(dask) == snapshot(pool)
    rows = {r["path"]: r for r in ledger(dask)}
    for name in ("a.mat", "b.mat", "c.mat", "d.json"):
        row = rows[str(inputs / name)]
        assert row["sha256"] == hashlib.sha256((inputs / name).read_bytes()).hexdigest()
        assert row["size_bytes"] == (inputs / name).stat().st_size
    assert rows[str(inputs / "b.mat")]["status"] == "duplicate"
    assert rows[str(inputs / "b.mat")]["reason"].startswith(f"same content as {inputs / 'a.mat'}")
    assert rows[str(inputs / "c.mat")]["reason"].startswith(f"same content as {inputs}/0.zip!x")
    assert rows[f"{inputs}/z.zip!y.mat"]["reason"].startswith(f"same content as {inputs}/a.mat")
    assert rows[str(inputs / "d.json")]["status"] == "quarantined"
    # 0.zip among the imported; b.mat, c.mat and z.zip!y.mat duplicates, and z.zip with them
    # (its one member is); e.json, a copy of the quarantined d.json, quarantined with it.
    assert rows[f"{inputs}/z.zip"]["status"] == "duplicate"
    assert (summary.imported, summary.duplicate, summary.quarantined) == (3, 4, 2)
    assert summary.matches == 2
    assert rows[str(inputs / "e.json")]["status"] == "quarantined"
    assert rows[str(inputs / "e.json")]["reason"].startswith(f"same content as {inputs}/d.json")
    assert rows[str(inputs / "e.json")]["reason"].endswith(
        ", which is quarantined: " + str(rows[str(inputs / "d.json")]["reason"])
    )
    # Copies under new names of what is stored: settled by their content, as the pool does.
    shutil.copyfile(A, inputs / "f.mat")
    shutil.copyfile(B, inputs / "g.mat")
    again = run_import([inputs], dask, opts, executor=cluster)
    run_import([inputs], pool, ImportOptions(workers=2, chunk_files=chunk))
    assert (again.skipped, again.committed, again.matches) == (again.inputs, False, 0)
    assert snapshot(dask) == snapshot(pool)


def test_a_file_changed_after_the_walk_is_quarantined_and_the_next_import_takes_it(
    cluster: DaskExecutor, tmp_path: Path
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copyfile(A, inputs / "a.mat")
    os.mkfifo(inputs / "b.fifo")  # refused by the walk: its progress comes before a.mat is sent
    changed: list[int] = []

    def change(p: ImportProgress) -> None:
        if not changed:
            with open(inputs / "a.mat", "ab") as fh:
                fh.write(b"\n")
            changed.append(p.inputs)

    opts = ImportOptions(executor="dask", workers=2)
    first = run_import([inputs], tmp_path / "data", opts, executor=cluster, on_progress=change)
    assert changed == [2]
    assert (first.imported, first.quarantined) == (0, 2)
    row = next(r for r in ledger(tmp_path / "data") if r["path"].endswith("a.mat"))
    assert row["sha256"] is None and row["status"] == "quarantined"
    assert "changed while the import ran" in row["reason"]
    again = run_import([inputs], tmp_path / "data", opts, executor=cluster)
    assert (again.imported, again.matches, again.skipped) == (1, 1, 1)  # the FIFO: skipped


def test_read_task_reads_and_hashes_what_the_walk_saw(tmp_path: Path) -> None:
    path = tmp_path / "a.mat"
    shutil.copyfile(A, path)
    st = path.stat()
    task = FileTask(str(path), None, None, str(path), st.st_size, st.st_mtime_ns)
    read = read_task(task)
    assert isinstance(read, FileTask)
    assert read.data == A.read_bytes()
    assert read.sha256 == hashlib.sha256(A.read_bytes()).hexdigest()
    later = FileTask(str(path), None, None, str(path), st.st_size, st.st_mtime_ns - 1)
    stale = read_task(later)
    assert isinstance(stale, FileResult) and stale.changed and stale.sha256 is None
    path.unlink()
    gone = read_task(task)
    assert isinstance(gone, FileResult) and not gone.changed and gone.status == "quarantined"
    assert gone.reason is not None and gone.reason.startswith("cannot read on ")
    assert "No such file" in gone.reason


def test_a_worker_that_cannot_see_the_inputs_fails_the_import_early(
    cluster: DaskExecutor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copyfile(A, inputs / "a.mat")
    cluster.check_inputs([str(inputs), str(inputs / "a.mat")])  # every worker sees them
    # The importing process sees the inputs at a path the workers do not have (another
    # machine's local disk): the workers' own probe must refuse.
    elsewhere = str(tmp_path / "only-on-the-client")
    real = executors._seen
    monkeypatch.setattr(executors, "_seen", lambda p: (elsewhere, True, None))
    with pytest.raises(SharedStorageError, match=r"cannot see the input .*only-on-the-client"):
        cluster.check_inputs([str(inputs)])
    data = tmp_path / "data"
    opts = ImportOptions(executor="dask", workers=2)
    with pytest.raises(SharedStorageError, match="inputs must be on a filesystem every worker"):
        run_import([inputs], data, opts, executor=cluster)
    assert Dataset(data).manifest().generation == 0  # nothing committed
    # A file of another size at the same path: another filesystem.
    size = (inputs / "a.mat").stat().st_size + 1
    monkeypatch.setattr(executors, "_seen", lambda p: (str(inputs / "a.mat"), False, size))
    with pytest.raises(SharedStorageError, match="sees another file at"):
        cluster.check_inputs([str(inputs / "a.mat")])
    monkeypatch.setattr(executors, "_seen", real)
    assert run_import([inputs], data, opts, executor=cluster).matches == 1


class LoggingVerify:
    """`verify_file` that first notes, in a file every worker can append to, which input it
    was asked to verify: what a re-run verifies again is then visible from the test."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def __call__(self, data: bytes, path: str) -> Iterator[VerifiedMatch]:
        with open(self.log, "a", encoding="utf-8") as fh:
            fh.write(path + "\n")
        yield from verify_file(data, path)

    def seen(self) -> list[str]:
        names = self.log.read_text(encoding="utf-8").split() if self.log.exists() else []
        self.log.unlink(missing_ok=True)
        return sorted(Path(p).name for p in names)


def test_a_worker_goes_no_further_than_the_hash_of_a_content_settled_at_its_path(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.mat"
    shutil.copyfile(A, path)
    st = path.stat()
    sha = hashlib.sha256(A.read_bytes()).hexdigest()
    task = FileTask(str(path), None, None, str(path), st.st_size, st.st_mtime_ns, sha)
    read = read_task(task)
    assert isinstance(read, FileResult)
    assert (read.status, read.sha256, read.reason) == ("settled", sha, None)
    other = FileTask(str(path), None, None, str(path), st.st_size, st.st_mtime_ns, "0" * 64)
    assert isinstance(read_task(other), FileTask)  # another content was settled there: read it


def test_a_rerun_verifies_only_inputs_whose_path_or_content_is_new(
    cluster: DaskExecutor, tmp_path: Path
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copyfile(A, inputs / "a.mat")
    shutil.copyfile(B, inputs / "b.mat")
    verify = LoggingVerify(tmp_path / "verified.log")
    data = tmp_path / "data"
    opts = ImportOptions(executor="dask", workers=2)
    first = run_import([inputs], data, opts, executor=cluster, verify=verify)
    assert (first.imported, verify.seen()) == (2, ["a.mat", "b.mat"])
    pool = tmp_path / "pool"  # the process pool, given the same inputs at the same times
    run_import([inputs], pool, ImportOptions(workers=2))
    again = run_import([inputs], data, opts, executor=cluster, verify=verify)
    assert (again.skipped, again.committed, verify.seen()) == (2, False, [])
    # A new content at a known path and a known content at a new path are read and verified
    # (the second is then skipped by its content, as the process pool does); a.mat is not.
    with open(inputs / "b.mat", "ab") as fh:
        fh.write(b"\n")
    shutil.copyfile(A, inputs / "c.mat")
    third = run_import([inputs], data, opts, executor=cluster, verify=verify)
    assert verify.seen() == ["b.mat", "c.mat"]
    # b.mat's match is stored already: a duplicate; a.mat and c.mat skipped.
    assert (third.duplicate, third.skipped, third.matches) == (1, 2, 0)
    pooled = run_import([inputs], pool, ImportOptions(workers=2))
    assert (pooled.duplicate, pooled.skipped, pooled.matches) == (1, 2, 0)
    # b.mat has two rows (imported, then a duplicate): ordered by path alone, theirs is open.
    assert sorted(ledger(pool), key=repr) == sorted(ledger(data), key=repr)
    assert snapshot(pool) == snapshot(data)


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_an_input_that_vanishes_after_the_walk_given_twice_is_refused_once(
    cluster: DaskExecutor, tmp_path: Path, executor: str
) -> None:
    """The process pool's walk reads each file, so a.mat, gone when the walk comes to it, is
    refused by the walk; on Dask the walk leaves the reading to the workers, so a.mat, gone
    after the walk listed it twice, is refused by them. Either way: once, then "given twice"."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copyfile(A, inputs / "a.mat")
    os.mkfifo(inputs / "z.fifo")  # refused by the walk, at once: a progress report

    def remove(p: ImportProgress) -> None:
        (inputs / "a.mat").unlink(missing_ok=True)

    a, fifo = inputs / "a.mat", inputs / "z.fifo"
    paths = [fifo, a, a] if executor == "local" else [a, a, fifo]
    # Units of 16 files at most are never cut smaller, so the pool's walk does not look ahead
    # (`bgparse.ingest.run._guided`): it meets a.mat after the fifo's report has removed it.
    opts = ImportOptions(executor=executor, workers=2, chunk_files=16)  # type: ignore[arg-type]
    kw = {"executor": cluster} if executor == "dask" else {}
    summary = run_import(paths, tmp_path / "data", opts, on_progress=remove, **kw)
    rows = [r for r in ledger(tmp_path / "data") if r["path"].endswith("a.mat")]
    assert sorted(r["status"] for r in rows) == ["duplicate", "quarantined"]
    assert sorted(r["reason"] == "the same input was given twice" for r in rows) == [False, True]
    assert (summary.quarantined, summary.duplicate) == (2, 1)
