"""`bgparse import --executor dask`: the same dataset as the process pool, on a LocalCluster and
on a scheduler and workers started with Dask's own commands, through faults: a worker killed
mid-import, the client killed at several points, an unreachable scheduler, Ctrl-C. Real files
(corpus slices, the real readers and replay). Skipped where Dask is not installed."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bgparse.ingest import ImportOptions, ImportProgress, ImportSummary, run_import
from bgparse.questions.query import connect, run
from bgparse.store.dataset import Dataset
from bgparse.store.parts import (
    PART_SUFFIX,
    PartTarget,
    SharedStorageError,
    check_staging,
    open_staging,
)

from ..conftest import CORPUS
from .conftest import group_alive, group_ends, snapshot

pytest.importorskip("distributed")
pytestmark = pytest.mark.corpus
GNUBG = CORPUS / "gnubg"
if not GNUBG.is_dir():
    pytest.skip(f"{GNUBG} is absent", allow_module_level=True)

from bgparse.pipeline.dask import DaskExecutor, open_dask  # noqa: E402 - after the skip

TESTS = Path(__file__).resolve().parents[1]
DASK_CLI = Path(sys.executable).with_name("dask")


def slice_files() -> list[str]:
    """Forty GNU matches with their truth files (quarantined: not match records) and the SGF
    copies of some of them (the same matches: duplicates)."""
    return sorted(str(p) for p in GNUBG.glob("g70[0-3]*"))


def twins() -> tuple[list[str], list[str]]:
    """The matches that exist as .mat and as .sgf: the .mat files, then their .sgf twins."""
    sgf = sorted(GNUBG.glob("g70*.sgf"))[:6]
    return [str(p.with_suffix(".mat")) for p in sgf], [str(p) for p in sgf]


def dask_options(**kw: Any) -> ImportOptions:
    return ImportOptions(executor="dask", workers=2, **kw)


def assert_clean(root: Path) -> None:
    """Every Parquet file in the tree is committed; nothing is left in staging."""
    listed = {rel for files in Dataset(root).manifest().files.values() for rel in files}
    on_disk = {
        p.relative_to(root).as_posix()
        for p in root.rglob("*.parquet")
        if not p.relative_to(root).as_posix().startswith("_staging/")
    }
    assert on_disk == listed
    assert not [p for p in (root / "_staging").rglob("*") if p.is_file()]


def same_ledger(a: ImportSummary, b: ImportSummary) -> None:
    fields = ("inputs", "imported", "duplicate", "quarantined", "skipped", "matches", "turns")
    assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[ImportSummary, dict[str, list]]:
    """The slice imported by the process pool (2 workers): the dataset Dask must make."""
    data = tmp_path_factory.mktemp("pool") / "data"
    summary = run_import(slice_files(), data, ImportOptions(workers=2))
    assert summary.matches == 40 and summary.duplicate and summary.quarantined
    return summary, snapshot(data)


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskExecutor]:
    """One LocalCluster of 2 worker processes for the tests that need no fresh one."""
    dask = open_dask(None, 2)
    yield dask
    dask.shutdown()


FORKED = """
import multiprocessing.forkserver as fs, sys
from bgparse.pipeline.dask import open_dask
dask = open_dask(None, 1, ["bgparse.writers.sgf"])
try:
    seen = dask.client.run(
        lambda: (__import__("os").getppid(), "bgparse.writers.sgf" in __import__("sys").modules)
    )
    print(fs._forkserver._forkserver_pid, *next(iter(seen.values())))
finally:
    dask.shutdown()
"""


def test_a_local_clusters_workers_are_forked_with_the_runs_modules_loaded() -> None:
    # Forked from the fork server, which loaded Dask's worker and the modules the run named once
    # (spawned, each worker started a new interpreter and loaded them all: bench/README.md).
    # In a process of its own: this one's fork server may be running already, with others.
    out = subprocess.run(
        [sys.executable, "-c", FORKED], capture_output=True, text=True, timeout=120, check=True
    )
    server, parent, loaded = out.stdout.split()
    assert parent == server  # not the client's child: the fork server's
    assert loaded == "True"  # before any unit asked for it


def test_local_cluster_makes_the_pools_dataset_and_a_second_import_adds_nothing(
    reference: tuple[ImportSummary, dict[str, list]], cluster: DaskExecutor, tmp_path: Path
) -> None:
    ref_summary, ref = reference
    data = tmp_path / "data"
    # Through bgparse's own LocalCluster (2 processes, 1 thread each).
    summary = run_import(slice_files(), data, dask_options(chunk_files=8))
    same_ledger(summary, ref_summary)
    assert snapshot(data) == ref
    assert_clean(data)
    files = [rel for rels in Dataset(data).manifest().files.values() for rel in rels]
    assert any("-m0" in rel for rel in files)  # the workers' parts, merged by the workers
    again = run_import(slice_files(), data, dask_options(), executor=cluster)
    assert (again.skipped, again.committed, again.matches) == (again.inputs, False, 0)
    assert snapshot(data) == ref


def test_a_match_in_two_workers_units_is_stored_once(cluster: DaskExecutor, tmp_path: Path) -> None:
    mats, sgfs = twins()
    # One file per unit: each .sgf goes out after its .mat twin, possibly to the other worker.
    opts = dask_options(chunk_files=1)
    summary = run_import([*mats, *sgfs], tmp_path / "dask", opts, executor=cluster)
    run_import([*mats, *sgfs], tmp_path / "pool", ImportOptions(workers=2, chunk_files=1))
    assert (summary.imported, summary.duplicate, summary.matches) == (len(mats), len(sgfs), 6)
    assert summary.duplicate_matches == len(sgfs)
    assert snapshot(tmp_path / "dask") == snapshot(tmp_path / "pool")
    con = connect(tmp_path / "dask")
    rows = run(con, "SELECT path, status FROM imports ORDER BY path").to_pylist()
    assert {r["path"]: r["status"] for r in rows} == {
        **{p: "imported" for p in mats},
        **{p: "duplicate" for p in sgfs},
    }
    stored = run(con, "SELECT count(*) AS n, count(DISTINCT match_uid) AS u FROM matches")
    assert stored.to_pylist() == [{"n": 6, "u": 6}]
    # A file per partition, as the pool makes (the duplicates' units added none).
    files = [rel for rels in Dataset(tmp_path / "dask").manifest().files.values() for rel in rels]
    folders = [rel.rsplit("/", 1)[0] for rel in files]
    assert len(folders) == len(set(folders))
    assert_clean(tmp_path / "dask")


def test_duplicate_checks_on_disk_give_the_pools_dataset(
    cluster: DaskExecutor, tmp_path: Path
) -> None:
    """The client's duplicate checks past their memory limit (one key: all but the last on
    disk): content copies and match twins spread over the workers' units are settled as the
    pool settles them with everything in memory, and a re-run adds nothing."""
    copies = tmp_path / "copies"
    copies.mkdir()
    for src in slice_files()[:12:3]:
        (copies / Path(src).name).write_bytes(Path(src).read_bytes())
    mats, sgfs = twins()
    inputs = [*slice_files(), str(copies), *mats, *sgfs]
    pool = run_import(inputs, tmp_path / "pool", ImportOptions(workers=2, chunk_files=3))
    opts = dask_options(chunk_files=3, seen_limit=1)
    summary = run_import(inputs, tmp_path / "dask", opts, executor=cluster)
    same_ledger(summary, pool)
    assert summary.duplicate >= 4 + len(sgfs)
    assert snapshot(tmp_path / "dask") == snapshot(tmp_path / "pool")
    con = connect(tmp_path / "dask"), connect(tmp_path / "pool")
    query = "SELECT path, status, reason FROM imports ORDER BY ALL"
    assert run(con[0], query).to_pylist() == run(con[1], query).to_pylist()
    again = run_import(inputs, tmp_path / "dask", opts, executor=cluster)
    assert (again.matches, again.committed) == (0, False)
    assert_clean(tmp_path / "dask")


def test_a_worker_that_cannot_see_the_dataset_folder_fails_the_import_early(
    cluster: DaskExecutor, tmp_path: Path
) -> None:
    target = open_staging(tmp_path / "data", "imp", "0")
    check_staging(target)
    elsewhere = PartTarget(str(tmp_path / "not-shared"), "imp", "0", target.token)
    with pytest.raises(SharedStorageError, match=r"cannot see the dataset folder .*not-shared"):
        cluster.check_shared(elsewhere)
    other = PartTarget(target.root, "imp", "0", "another token")
    with pytest.raises(SharedStorageError, match="sees another folder"):
        cluster.check_shared(other)
    cluster.check_shared(target)  # every worker sees the real one


# --- a scheduler and workers started with Dask's own commands -------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@contextlib.contextmanager
def dask_commands(tmp_path: Path, workers: int = 2) -> Iterator[tuple[str, list[Any]]]:
    """`dask scheduler` and `dask worker` processes on 127.0.0.1; (address, worker processes)."""
    if not DASK_CLI.is_file():
        pytest.skip(f"no dask command beside {sys.executable}")
    from distributed import Client

    address = f"tcp://127.0.0.1:{free_port()}"
    log = open(tmp_path / "dask.log", "wb")  # noqa: SIM115 - closed below
    procs: list[subprocess.Popen[bytes]] = []

    def start(*args: str) -> subprocess.Popen[bytes]:
        p = subprocess.Popen([str(DASK_CLI), *args], stdout=log, stderr=log, start_new_session=True)
        procs.append(p)
        return p

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
              "--no-dashboard")  # fmt: skip
        started = [
            start("worker", address, "--nthreads", "1", "--no-dashboard", "--death-timeout", "30")
            for _ in range(workers)
        ]
        with Client(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address, started
    finally:
        for p in procs:
            _stop(p)
        log.close()


def test_dask_scheduler_and_workers_started_by_their_commands(
    reference: tuple[ImportSummary, dict[str, list]], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from bgparse.cli import app

    ref_summary, ref = reference
    with dask_commands(tmp_path) as (address, _):
        data = tmp_path / "data"
        args = ["import", *slice_files(), "-d", str(data), "--executor", "dask"]
        result = CliRunner().invoke(app, [*args, "--scheduler", address])
        assert result.exit_code == 1, result.output  # the truth files are quarantined
        assert f"{ref_summary.matches} matches" in result.stdout
        assert snapshot(data) == ref
        assert_clean(data)
        # The scheduler from the environment: nothing new to add.
        again = CliRunner().invoke(app, args, env={"BGPARSE_SCHEDULER": address})
        assert again.exit_code == 0, again.output
        assert f"{ref_summary.inputs} already in the dataset" in again.stdout


def test_a_worker_killed_mid_import_leaves_the_dataset_exact(
    reference: tuple[ImportSummary, dict[str, list]], tmp_path: Path
) -> None:
    ref_summary, ref = reference
    with dask_commands(tmp_path) as (address, workers):
        killed: list[int] = []

        def kill_one(p: ImportProgress) -> None:
            # Both workers are busy with units by the first one's return: kill the first
            # worker (its nanny and worker process) with its unit unfinished.
            if not killed and p.matches:
                os.killpg(workers[0].pid, signal.SIGKILL)
                killed.append(p.matches)

        opts = ImportOptions(executor="dask", scheduler=address, chunk_files=2)
        summary = run_import(slice_files(), tmp_path / "data", opts, on_progress=kill_one)
        assert killed and killed[0] < ref_summary.matches
        assert workers[0].wait(timeout=10) == -signal.SIGKILL
        same_ledger(summary, ref_summary)
        assert snapshot(tmp_path / "data") == ref
        assert_clean(tmp_path / "data")


# --- the client killed, interrupted; the scheduler unreachable ----------------------------

CHILD = r"""
import sys
import bgparse.ingest as ingest
from store.killpoints import arm

point, n, data, *inputs = sys.argv[1:]
arm(point, int(n))
options = ingest.ImportOptions(executor="dask", workers=2, chunk_files=2)
ingest.run_import(inputs, data, options)
print("finished")
"""


@pytest.mark.parametrize(
    "point,n,rerun",
    [
        ("staging", 6, "dask"),  # units' parts written and six files recorded
        ("publish", 3, "pool"),  # three parts moved into the tree, not yet committed
        ("manifest", 0, "dask"),  # every part in the tree, manifest not yet replaced
    ],
)
def test_a_killed_client_leaves_the_dataset_unchanged_and_a_rerun_completes_it(
    reference: tuple[ImportSummary, dict[str, list]],
    cluster: DaskExecutor,
    tmp_path: Path,
    point: str,
    n: int,
    rerun: str,
) -> None:
    _, ref = reference
    data = tmp_path / "data"
    first = slice_files()[:10]
    run_import(first, data, ImportOptions(workers=1))
    before = snapshot(data)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, point, str(n), str(data), *slice_files()],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = child.communicate(timeout=120)
        assert child.returncode == -signal.SIGKILL, (out, err)
        # The local cluster's worker processes end with the process that started them.
        assert group_ends(child.pid, 20, 0.2), "Dask workers outlived the killed client"
    finally:
        if group_alive(child.pid):
            os.killpg(child.pid, signal.SIGKILL)
    assert snapshot(data) == before
    if rerun == "dask":
        run_import(slice_files(), data, dask_options(), executor=cluster)
    else:
        run_import(slice_files(), data, ImportOptions(workers=2))
    assert snapshot(data) == ref
    assert_clean(data)


def bgparse_cmd(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    # SIGINT heard as a terminal's Ctrl-C even where this test run inherited it ignored (a
    # job in the background of a non-interactive shell), which bgparse rightly keeps.
    code = (
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from bgparse.cli import main; main()"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )


def test_an_unreachable_scheduler_is_one_clear_error_within_15_seconds(tmp_path: Path) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"  # nobody listens there
    started = time.monotonic()
    proc = bgparse_cmd(
        "import", str(GNUBG / "g7000_money.mat"), "-d", str(tmp_path / "data"),
        "--executor", "dask", env={"BGPARSE_SCHEDULER": address},
    )  # fmt: skip
    out, err = proc.communicate(timeout=60)
    elapsed = time.monotonic() - started
    assert proc.returncode == 2
    assert err.splitlines() == [
        f"bgparse: cannot reach the Dask scheduler at {address} within 8 s "
        f"(Timed out trying to connect to {address} after 8 s)"
    ]
    assert out == ""
    assert elapsed < 15
    assert not (tmp_path / "data").exists()  # refused before the dataset was touched
    bad = bgparse_cmd(
        "import", str(GNUBG / "g7000_money.mat"), "-d", str(tmp_path / "data"),
        "--executor", "dask", "--scheduler", "127.0.0.1",
    )  # fmt: skip
    _, err = bad.communicate(timeout=60)
    assert bad.returncode == 2
    assert err.startswith("bgparse: '127.0.0.1' is not a Dask scheduler address")
    local = bgparse_cmd("import", str(GNUBG / "g7000_money.mat"), "--scheduler", address)
    _, err = local.communicate(timeout=60)
    assert (local.returncode, err) == (2, "bgparse: --scheduler needs --executor dask\n")


def test_ctrl_c_stops_the_cluster_and_exits_130(tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc = bgparse_cmd("import", str(GNUBG), "-d", str(data), "--executor", "dask", "-w", "2")
    try:
        # Interrupt once the workers have written parts: the import is under way.
        deadline = time.monotonic() + 90
        while not list(data.glob(f"_staging/*/*/*{PART_SUFFIX}")) and proc.poll() is None:
            assert time.monotonic() < deadline, "the import never started"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, (out, err)
        assert err.splitlines()[-1] == (
            "bgparse: interrupted: nothing was committed, the dataset is as it was"
        )
        deadline = time.monotonic() + 20
        while group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not group_alive(proc.pid), "Dask workers outlived the interrupted import"
    finally:
        if group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    assert all(not files for files in Dataset(data).manifest().files.values())
    assert_clean(data)
