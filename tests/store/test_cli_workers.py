"""`bgparse import --workers N`: at most one worker process per core this process may use
(`os.sched_getaffinity`), a larger number capped with one line on stderr, whatever its size
(10**20 was a traceback, 64 on two cores ran 57 processes at half the speed of two); with a
scheduler the cluster's own workers import, and --workers says it is not used. The import
itself goes on: its exit code is the import's."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from tests.records import SHORT_MATCH

runner = CliRunner()
SUMMARY = re.compile(r"^1 input: 1 imported, .* in (\S+); [\d.]+ MB in [\d.]+ s \([\d.]+ MB/s\)$")


@pytest.fixture
def one_match(tmp_path: Path) -> Path:
    path = tmp_path / "a.mat"
    path.write_text(SHORT_MATCH)
    return path


def cores(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(n)))


@pytest.mark.parametrize(
    ("n", "given", "warning"),
    [
        (1, "99999999999999999999", "--workers 99999999999999999999 is more than the 1 core "
         "this machine lets bgparse use: importing with 1"),
        (2, "64", "--workers 64 is more than the 2 cores this machine lets bgparse use: "
         "importing with 2"),
        (2, "2", None),
    ],
)  # fmt: skip
def test_workers_past_the_cores_are_capped_with_one_line(
    one_match: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    n: int,
    given: str,
    warning: str | None,
) -> None:
    cores(monkeypatch, n)
    started: list[int] = []
    import bgparse.ingest.run as run

    make = run._make_executor

    def spy(options: run.ImportOptions, workers: int) -> object:
        started.append(workers)
        return make(options, workers)

    monkeypatch.setattr(run, "_make_executor", spy)
    data = tmp_path / "data"
    res = runner.invoke(app, ["import", str(one_match), "-d", str(data), "-w", given])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == ([f"bgparse: {warning}"] if warning else [])
    m = SUMMARY.match(res.stdout.strip())
    assert m and m[1] == str(data), res.stdout
    assert started == [min(n, int(given))]


def test_workers_below_one_are_a_usage_error(one_match: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["import", str(one_match), "-d", str(tmp_path / "d"), "-w", "0"])
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == "bgparse: --workers: input should be greater than or equal to 1\n"


def test_a_local_dask_cluster_is_capped_the_same_way(
    one_match: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    pytest.importorskip("bgparse.replay")
    cores(monkeypatch, 1)
    import bgparse.pipeline.dask as executors

    sizes: list[int] = []
    real = executors.open_dask

    def spy(
        scheduler: str | None, workers: int, preload: Sequence[str] = ()
    ) -> executors.DaskExecutor:
        sizes.append(workers)
        return real(scheduler, workers, preload)

    monkeypatch.setattr(executors, "open_dask", spy)
    data = tmp_path / "data"
    args = ["import", str(one_match), "-d", str(data), "--executor", "dask", "-w", "64"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [
        "bgparse: --workers 64 is more than the 1 core this machine lets bgparse use: "
        "importing with 1"
    ]
    assert SUMMARY.match(res.stdout.strip()), res.stdout
    assert sizes == [1]


def test_with_a_scheduler_workers_are_not_used(
    one_match: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed")
    import bgparse.pipeline.dask as executors

    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", 1)
    address = "tcp://127.0.0.1:9"  # the discard port: nothing listens
    args = ["import", str(one_match), "-d", str(tmp_path / "data"), "--executor", "dask"]
    res = runner.invoke(app, [*args, "--scheduler", address, "-w", "99999999999999999999"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.splitlines()
    assert lines[0] == (
        "bgparse: --workers 99999999999999999999 is not used with --scheduler: its workers import"
    )
    assert lines[1].startswith(f"bgparse: cannot reach the Dask scheduler at {address} within 1 s")
    assert len(lines) == 2
