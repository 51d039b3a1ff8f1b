"""What the import says about damaged matches: how many were stored with errors and warnings,
the files with the most errors, and `--report FILE` with every input's outcome."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from tests.records import SHORT_MATCH

runner = CliRunner()

LEGAL = SHORT_MATCH
ONE_ERROR = LEGAL.replace("42: 24/20 24/22", "42: 24/18 13/11")
TWO_ERRORS = ONE_ERROR.replace("33: 13/10 8/5 6/3 6/3", "33: 13/10 8/5 6/3 6/2")
NO_RESULT = LEGAL.replace("                                  Wins 1 point\n", "")  # R006 warning


def _write(folder: Path, name: str, text: str, who: str) -> None:
    # A different player per file: each file holds a match of its own.
    (folder / name).write_text(text.replace("Alice", who), encoding="utf-8")


def _summary_tail(stdout: str) -> list[str]:
    """The lines after the one-line totals."""
    return stdout.splitlines()[1:]


def test_summary_counts_damaged_matches_and_names_the_worst_files(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    _write(inputs, "a-clean.mat", LEGAL, "Ann")
    _write(inputs, "b-one.mat", ONE_ERROR, "Ben")
    _write(inputs, "c-two.mat", TWO_ERRORS, "Cy")
    _write(inputs, "d-warn.mat", NO_RESULT, "Di")
    (inputs / "e-empty.mat").write_bytes(b"")
    data = tmp_path / "data"
    report = tmp_path / "report.jsonl"
    args = ["import", str(inputs), "-d", str(data), "-w", "1", "--report", str(report)]
    res = runner.invoke(app, args)
    assert res.exit_code == 1  # the empty file is quarantined
    assert res.stdout.startswith(
        "5 inputs: 4 imported, 0 duplicate, 1 quarantined, 0 already in the dataset; "
        "stored 4 matches, 4 games,"
    )
    assert _summary_tail(res.stdout) == [
        "2 matches stored with errors, 1 with warnings only; most errors:",
        f"  {inputs}/c-two.mat: 2 errors, 0 warnings in 1 match",
        f"  {inputs}/b-one.mat: 1 error, 0 warnings in 1 match",
    ]
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    by_path = {os.path.basename(r["path"]): r for r in rows}
    assert set(by_path) == {"a-clean.mat", "b-one.mat", "c-two.mat", "d-warn.mat", "e-empty.mat"}
    assert {
        name: (r["kind"], r["status"], r["matches"], r["errors"], r["warnings"])
        for name, r in by_path.items()
    } == {
        "a-clean.mat": ("file", "imported", 1, 0, 0),
        "b-one.mat": ("file", "imported", 1, 1, 0),
        "c-two.mat": ("file", "imported", 1, 2, 0),
        "d-warn.mat": ("file", "imported", 1, 0, 1),
        "e-empty.mat": ("file", "quarantined", 0, 1, 0),
    }
    assert by_path["e-empty.mat"]["reason"] == "S001 file is empty"
    # The report agrees with what the dataset stored.
    stored = runner.invoke(
        app,
        ["query", "-d", str(data), "-f", "json", "SELECT source_path, n_errors FROM matches"],
    )
    assert {r["source_path"]: r["n_errors"] for r in json.loads(stored.stdout)} == {
        r["path"]: r["errors"] for r in rows if r["status"] == "imported"
    }
    # Imported again: every input is listed as already in the dataset; nothing new is damaged.
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and _summary_tail(again.stdout) == []
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["status"] for r in rows) == ["skipped"] * 5
    # Each says why, with the hash that finds its content's ledger row.
    ledger = runner.invoke(app, ["query", "-d", str(data), "-f", "json",
                                 "SELECT sha256 FROM imports"])  # fmt: skip
    hashes = {r["sha256"][:12] for r in json.loads(ledger.stdout) if r["sha256"]}
    for r in rows:
        assert r["reason"].startswith("its content is already in the dataset (sha256 ")
        assert r["reason"].split("sha256 ")[1][:12] in hashes


def test_more_damaged_files_than_shown_point_to_the_report(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    for i in range(7):
        _write(inputs, f"m{i}.mat", TWO_ERRORS if i == 3 else ONE_ERROR, f"P{i}")
    res = runner.invoke(app, ["import", str(inputs), "-d", str(tmp_path / "d"), "-w", "1"])
    assert res.exit_code == 0
    tail = _summary_tail(res.stdout)
    assert tail[0] == "7 matches stored with errors, 0 with warnings only; most errors:"
    # Most errors first; among equals, the first met.
    assert [line.split(": ")[0].strip() for line in tail[1:6]] == [
        f"{inputs}/m{i}.mat" for i in (3, 0, 1, 2, 4)
    ]
    assert tail[6].startswith("  ... and 2 more files with errors: --report FILE, or bgparse")


def test_report_in_a_missing_folder_is_refused_before_anything_is_imported(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "a.mat", LEGAL, "Ann")
    data = tmp_path / "data"
    for report, why in (
        (tmp_path / "no" / "r.jsonl", "its folder does not exist"),
        (tmp_path, "is a folder"),
    ):
        res = runner.invoke(
            app, ["import", str(tmp_path / "a.mat"), "-d", str(data), "--report", str(report)]
        )
        assert (res.exit_code, res.stderr) == (2, f"bgparse: --report {report}: {why}\n")
    assert not data.exists()


def test_no_report_when_nothing_was_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures.process import BrokenProcessPool

    def broken(*args: object, **kwargs: object) -> None:
        raise BrokenProcessPool("a child process terminated abruptly")

    monkeypatch.setattr("bgparse.ingest.run_import", broken)
    _write(tmp_path, "a.mat", LEGAL, "Ann")
    report = tmp_path / "r.jsonl"
    res = runner.invoke(
        app,
        ["import", str(tmp_path / "a.mat"), "-d", str(tmp_path / "d"), "--report", str(report)],
    )
    assert res.exit_code == 3
    assert sorted(os.listdir(tmp_path)) == ["a.mat"]  # neither the report nor a partial one


def test_a_report_that_cannot_be_written_exits_2_and_the_import_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(target: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("bgparse.helpers.outfiles.atomic_output", full)
    _write(tmp_path, "a.mat", LEGAL, "Ann")
    report = tmp_path / "r.jsonl"
    data = tmp_path / "d"
    args = ["import", str(tmp_path / "a.mat"), "-d", str(data), "--report", str(report)]
    res = runner.invoke(app, args)
    assert res.exit_code == 2  # a file the command was asked to write is missing
    assert res.stdout.startswith("1 input: 1 imported")
    assert res.stderr == (
        f"bgparse: --report {report}: cannot write: No space left on device "
        "(the import itself is committed)\n"
    )
    assert not report.exists()
    again = runner.invoke(app, args)  # the import was committed
    assert again.stdout.startswith("1 input: 0 imported, 0 duplicate, 0 quarantined, 1 already")
