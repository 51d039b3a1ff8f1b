"""What `bgparse import` says an archive became, and where a duplicate's stored copy is: exact
summary, quarantine lines, `--report` rows and ledger reasons, inline and on a pool of two.

An archive's own status follows its members': imported where one was, else quarantined where
one was (or it holds no file), else a duplicate; it was "imported" whatever its members were.
A duplicate (or a file with some matches already stored) names the stored copy of each of its
first matches: the file it was stored from and which match of that file it is."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.questions.query import connect, run
from tests.records import SHORT_MATCH

runner = CliRunner()

#: The same match as SHORT_MATCH in other bytes (a header line: no part of the match).
COPY = '; [Event "copy"]\n' + SHORT_MATCH
OTHER = SHORT_MATCH.replace("Alice", "Carol")
SUMMARY = re.compile(r"^(.*); [\d.]+ MB in [\d.]+ s \([\d.]+ MB/s\)$")


def zip_of(path: Path, members: dict[str, bytes]) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    path.write_bytes(buf.getvalue())


def import_(args: list[str], workers: int) -> tuple[int, list[str], list[str]]:
    res = runner.invoke(app, ["import", *args, "-w", str(workers), "--no-progress"])
    lines = res.stdout.splitlines()
    m = SUMMARY.match(lines[0]) if lines else None
    assert m, res.output
    return res.exit_code, [m[1], *lines[1:]], res.stderr.splitlines()


def report_rows(report: Path) -> list[tuple[str, str, str, int, str | None]]:
    rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return [(r["path"], r["kind"], r["status"], r["matches"], r["reason"]) for r in rows]


@pytest.mark.parametrize("workers", [1, 2])
def test_an_archive_is_counted_by_what_became_of_its_members(tmp_path: Path, workers: int) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.mat").write_text(SHORT_MATCH)
    zip_of(inputs / "b-all-bad.zip", {"empty.mat": b"", "binary.mat": bytes(range(256))})
    zip_of(inputs / "c-copies.zip", {"same.mat": SHORT_MATCH.encode(), "copy.mat": COPY.encode()})
    zip_of(inputs / "d-mixed.zip", {"other.mat": OTHER.encode(), "cut.mat": b" 3 point"})
    zip_of(inputs / "e-empty.zip", {})
    data, report = tmp_path / "data", tmp_path / "report.jsonl"
    code, out, err = import_([str(inputs), "-d", str(data), "--report", str(report)], workers)
    assert code == 1
    assert out == [
        f"11 inputs: 3 imported, 3 duplicate, 5 quarantined, 0 already in the dataset; "
        f"stored 2 matches, 2 games, 8 turns, 0 cube offers in {data}"
    ]
    b, c, d, e = (f"{inputs}/{n}.zip" for n in ("b-all-bad", "c-copies", "d-mixed", "e-empty"))
    s002 = "S002 file holds binary data, not a text match record"
    s004 = "S004 no 'N point match' line: not a Jellyfish match file"
    # In the order their outcomes were settled (a file's members may be with a worker).
    assert sorted(err) == [
        f"quarantined: {b}!binary.mat: {s002}",
        f"quarantined: {b}!empty.mat: S001 file is empty",
        f"quarantined: {b}: none of its 2 members imported (2 quarantined)",
        f"quarantined: {d}!cut.mat: {s004}",
        f"quarantined: {e}: the archive holds no file",
    ]
    sha = run(connect(data), "SELECT sha256 FROM imports WHERE path LIKE '%a.mat'")
    a_sha = sha.to_pylist()[0]["sha256"][:12]
    rows = report_rows(report)
    assert sorted(rows) == [
        (f"{inputs}/a.mat", "file", "imported", 1, None),
        (b, "archive", "quarantined", 0, "none of its 2 members imported (2 quarantined)"),
        (f"{b}!binary.mat", "member", "quarantined", 0, s002),
        (f"{b}!empty.mat", "member", "quarantined", 0, "S001 file is empty"),
        (c, "archive", "duplicate", 0, "none of its 2 members imported (2 duplicate)"),
        (f"{c}!copy.mat", "member", "duplicate", 0,
         f"1 of 1 matches already stored: match 1 as match 1 of {inputs}/a.mat"),
        (f"{c}!same.mat", "member", "duplicate", 0,
         f"same content as {inputs}/a.mat (sha256 {a_sha}…)"),
        (d, "archive", "imported", 0, None),
        (f"{d}!cut.mat", "member", "quarantined", 0, s004),
        (f"{d}!other.mat", "member", "imported", 1, None),
        (e, "archive", "quarantined", 0, "the archive holds no file"),
    ]  # fmt: skip
    # An archive's row comes once its members have theirs.
    order = [row[0] for row in rows]
    for archive in (b, c, d):
        members = [i for i, path in enumerate(order) if path.startswith(archive + "!")]
        assert len(members) == 2 and order.index(archive) > max(members)
    ledger = run(connect(data), "SELECT path, status, reason FROM imports WHERE kind = 'archive'")
    assert sorted((r["path"], r["status"]) for r in ledger.to_pylist()) == [
        (b, "quarantined"),
        (c, "duplicate"),
        (d, "imported"),
        (e, "quarantined"),
    ]
    # Given again: every archive is already in the dataset, the quarantined ones included.
    code, out, _ = import_([str(inputs), "-d", str(data)], workers)
    assert (code, out) == (
        0,
        [
            "5 inputs: 0 imported, 0 duplicate, 0 quarantined, 5 already in the dataset; "
            f"stored 0 matches, 0 games, 0 turns, 0 cube offers in {data}"
        ],
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_a_duplicate_names_where_its_matches_are_stored(tmp_path: Path, workers: int) -> None:
    first, later = tmp_path / "first", tmp_path / "later"
    first.mkdir()
    later.mkdir()
    (first / "a.mat").write_text(SHORT_MATCH)
    (first / "b.mat").write_text(OTHER + "\n" + SHORT_MATCH)  # a's match second
    (first / "c.mat").write_text(COPY)
    data, report = tmp_path / "data", tmp_path / "report.jsonl"
    code, out, _ = import_([str(first), "-d", str(data), "--report", str(report)], workers)
    assert (code, out[0].split(",")[:3]) == (
        0,
        ["3 inputs: 2 imported", " 1 duplicate", " 0 quarantined"],
    )
    a = f"{first}/a.mat"
    assert report_rows(report) == [
        (a, "file", "imported", 1, None),
        (f"{first}/b.mat", "file", "imported", 1,
         f"1 of 2 matches already stored: match 2 as match 1 of {a}"),
        (f"{first}/c.mat", "file", "duplicate", 0,
         f"1 of 1 matches already stored: match 1 as match 1 of {a}"),
    ]  # fmt: skip
    # A later import names the copies an earlier one stored, and a match twice in one file
    # names the file's own first copy.
    (later / "d.mat").write_text('; [Event "d"]\n' + OTHER + "\n" + COPY + "\n" + OTHER)
    (later / "e.mat").write_text(SHORT_MATCH.replace("Bob", "Dave"))
    (later / "f.mat").write_text('; [Event "f"]\n' + SHORT_MATCH.replace("Bob", "Dave"))
    code, out, _ = import_([str(later), "-d", str(data), "--report", str(report)], workers)
    assert (code, out[0].split(",")[:3]) == (
        0,
        ["3 inputs: 1 imported", " 2 duplicate", " 0 quarantined"],
    )
    b, d, e = f"{first}/b.mat", f"{later}/d.mat", f"{later}/e.mat"
    assert report_rows(report) == [
        (d, "file", "duplicate", 0,
         f"3 of 3 matches already stored: match 1 as match 1 of {b}; match 2 as match 1 of {a}; "
         f"match 3 as match 1 of {b}"),
        (e, "file", "imported", 1, None),
        (f"{later}/f.mat", "file", "duplicate", 0,
         f"1 of 1 matches already stored: match 1 as match 1 of {e}"),
    ]  # fmt: skip


def test_past_three_stored_copies_the_reason_counts_the_rest(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.mat").write_text(SHORT_MATCH)
    (inputs / "b.mat").write_text("\n".join([COPY] * 5))
    data, report = tmp_path / "data", tmp_path / "report.jsonl"
    import_([str(inputs), "-d", str(data), "--report", str(report)], 1)
    a = f"{inputs}/a.mat"
    assert report_rows(report)[1] == (
        f"{inputs}/b.mat",
        "file",
        "duplicate",
        0,
        f"5 of 5 matches already stored: match 1 as match 1 of {a}; match 2 as match 1 of {a}; "
        f"match 3 as match 1 of {a}; and 2 more",
    )


def test_an_archive_of_what_the_dataset_holds_is_a_duplicate(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.mat").write_text(SHORT_MATCH)
    data, report = tmp_path / "data", tmp_path / "report.jsonl"
    import_([str(inputs / "a.mat"), "-d", str(data)], 1)
    zip_of(tmp_path / "z.zip", {"a.mat": SHORT_MATCH.encode(), "copy.mat": COPY.encode()})
    code, out, err = import_([str(tmp_path / "z.zip"), "-d", str(data), "--report", str(report)], 1)
    assert (code, out, err) == (
        0,
        [
            "3 inputs: 0 imported, 2 duplicate, 0 quarantined, 1 already in the dataset; "
            f"stored 0 matches, 0 games, 0 turns, 0 cube offers in {data}"
        ],
        [],
    )
    z = f"{tmp_path}/z.zip"
    sha = hashlib.sha256(SHORT_MATCH.encode()).hexdigest()
    assert [row[:3] + row[4:] for row in report_rows(report)] == [
        (f"{z}!a.mat", "member", "skipped",
         f"its content is already in the dataset (sha256 {sha[:12]}…)"),
        (f"{z}!copy.mat", "member", "duplicate",
         f"1 of 1 matches already stored: match 1 as match 1 of {inputs}/a.mat"),
        (z, "archive", "duplicate", "none of its 2 members imported (1 duplicate, 1 already in "
         "the dataset)"),
    ]  # fmt: skip
