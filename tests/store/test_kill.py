"""An import killed with SIGKILL at any point leaves the dataset as it was, and a re-run makes
exactly the dataset an uninterrupted import makes.

The import runs in a child process that patches one step of the import to SIGKILL itself on
its n-th call, so each kill lands at a known point: while rows are being staged, while staged
files are moved into the tree, just before and just after the manifest is replaced.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect

from .conftest import group_alive, group_ends, hand_matches, snapshot, write_inputs
from .factories import encode, fake_verify, game, match, roll

TESTS = Path(__file__).resolve().parents[1]

CHILD = r"""
import importlib, sys
import bgparse.ingest as ingest
from store.killpoints import arm

point, n, workers, inputs, data = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:6]
module, _, name = sys.argv[6].partition(":")
verify = getattr(importlib.import_module(module), name)
arm(point, n)
options = ingest.ImportOptions(workers=workers, chunk_files=1)
ingest.run_import([inputs], data, options, verify=verify)
print("finished")
"""


def second_batch(folder: Path) -> Path:
    """Inputs for the import that gets killed: new matches in three partitions, a match
    already in the dataset, a quarantined file."""
    specs = {
        f"new{i}.json": match(
            game(roll(0, "31", "8/5 6/5"), roll(1, "42", "8/4 6/4"), winner=i % 2),
            players=(f"P{i}", "Q"),
            date=(None if i % 3 == 0 else f"20{10 + i % 3}-01-01"),
        )
        for i in range(6)
    }
    write_inputs(folder, specs)
    (folder / "again.json").write_bytes(encode(hand_matches()["m1.json"]))
    (folder / "empty.mat").write_bytes(b"")
    return folder


@pytest.fixture(scope="module")
def batches(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, list]]:
    """First batch, second batch, and the snapshot after importing both without a kill."""
    base = tmp_path_factory.mktemp("batches")
    first = write_inputs(base / "first", hand_matches())
    second = second_batch(base / "second")
    ref = base / "ref"
    run_import([first], ref, ImportOptions(workers=1), verify=fake_verify)
    run_import([second], ref, ImportOptions(workers=1), verify=fake_verify)
    return first, second, snapshot(ref)


def run_killed(
    point: str,
    n: int,
    workers: int,
    inputs: Path,
    data: Path,
    verify: str = "store.factories:fake_verify",
) -> None:
    """Import `inputs` in a child process that SIGKILLs itself at `point` after `n` calls;
    `verify` names the per-file function as module:function."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    args = [point, str(n), str(workers), str(inputs), str(data), verify]
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = child.communicate(timeout=120)
        assert child.returncode == -signal.SIGKILL, (out, err)
        # Pool workers notice their importer is gone and exit on their own.
        assert group_ends(child.pid, 10), "worker processes outlived the killed import"
    finally:
        if group_alive(child.pid):
            os.killpg(child.pid, signal.SIGKILL)


@pytest.mark.parametrize(
    "point,n,workers",
    [
        ("staging", 3, 1),  # after three inputs' rows were staged
        ("publish", 0, 1),  # before the first staged file is moved into the tree
        ("publish", 4, 1),  # with four files moved into the tree, not yet committed
        ("manifest", 0, 1),  # everything in the tree, manifest not yet replaced
        ("staging", 4, 2),  # with a process pool at work
    ],
)
def test_killed_import_leaves_the_dataset_as_before(
    batches: tuple[Path, Path, dict[str, list]], tmp_path: Path, point: str, n: int, workers: int
) -> None:
    first, second, reference = batches
    data = tmp_path / "data"
    run_import([first], data, ImportOptions(workers=1), verify=fake_verify)
    before = snapshot(data)
    run_killed(point, n, workers, second, data)
    connect(data)  # still opens
    assert snapshot(data) == before
    run_import([second], data, ImportOptions(workers=1), verify=fake_verify)
    assert snapshot(data) == reference
    assert not list((data / "_staging").glob("*"))


def test_killed_after_the_commit_point_keeps_the_import(
    batches: tuple[Path, Path, dict[str, list]], tmp_path: Path
) -> None:
    first, second, reference = batches
    data = tmp_path / "data"
    run_import([first], data, ImportOptions(workers=1), verify=fake_verify)
    run_killed("after-manifest", 0, 1, second, data)
    assert snapshot(data) == reference
    s = run_import([second], data, ImportOptions(workers=1), verify=fake_verify)
    assert (s.skipped, s.committed) == (s.inputs, False)
    assert snapshot(data) == reference
