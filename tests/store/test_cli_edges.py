"""Small command-line promises: statistic options checked before any SQL, output files that
respect the umask, special files and empty folders named on the command line, one SQL
statement per query, and counted nouns in the singular where the count is one."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.questions.stats import STATISTICS, OptionError
from bgparse.rules.wording import plural
from tests.records import SHORT_MATCH

runner = CliRunner()

LEGAL = SHORT_MATCH


# --- stats options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args,message",
    [
        (["race-takes", "--bucket-pct", "0"], "--bucket-pct must be 1 to 100, not 0"),
        (["race-takes", "--bucket-pct", "-5"], "--bucket-pct must be 1 to 100, not -5"),
        (["race-takes", "--min-n", "-1"], "--min-n must be 0 or more, not -1"),
        (["cube-rates", "--length", "-3"], "--length must be 0 or more, not -3"),
        (
            ["match-equity", "--max-away", "99999999999"],
            "--max-away must be at most 2,147,483,647, not 99999999999",
        ),
        (["match-equity", "--max-away", "0"], "--max-away must be 1 or more, not 0"),
        (["opening-plays", "--era-years", "-1"], "--era-years must be 0 or more, not -1"),
        (
            ["reply-plays", "--roll", "71"],
            "--roll must be a roll of two dice from 1 to 6, like 31, not '71'",
        ),
        (["reply-plays", "--play", " "], "--play must not be empty"),
        (["player", "--name", ""], "--name must not be empty"),
    ],
)
def test_a_statistic_option_out_of_range_is_a_usage_error(
    args: list[str], message: str, hand_dataset: Path
) -> None:
    res = runner.invoke(app, ["stats", *args, "-d", str(hand_dataset)])
    assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"bgparse: {message}\n")


def test_options_are_checked_before_the_dataset(tmp_path: Path) -> None:
    res = runner.invoke(app, ["stats", "race-takes", "--bucket-pct", "0", "-d", str(tmp_path)])
    assert (res.exit_code, res.stderr) == (2, "bgparse: --bucket-pct must be 1 to 100, not 0\n")


def test_a_roll_is_taken_in_either_order(hand_dataset: Path) -> None:
    def rows(roll: str) -> list[dict[str, object]]:
        res = runner.invoke(
            app, ["stats", "reply-plays", "--roll", roll, "-d", str(hand_dataset), "-f", "json"]
        )
        assert res.exit_code == 0, res.output
        result: list[dict[str, object]] = json.loads(res.stdout)
        return result

    high_first = rows("31")
    assert high_first and {r["opening_roll"] for r in high_first} == {"31"}
    assert rows("13") == high_first


def test_every_statistic_checks_its_options_in_the_library_too() -> None:
    for statistic in STATISTICS.values():
        assert len(statistic.arguments({})) == len(statistic.params)  # the defaults are valid
        for p in statistic.params:
            bad = "" if p.type is str else (p.low - 1 if p.type is int else "yes")
            with pytest.raises(OptionError, match=p.option):
                statistic.arguments({p.name: bad})


# --- files written respect the umask ----------------------------------------------------------


@pytest.fixture
def umask_027() -> Iterator[None]:
    before = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(before)


def _modes(folder: Path) -> set[int]:
    return {stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()}


@pytest.mark.usefixtures("umask_027")
def test_convert_and_generate_files_get_the_umask_mode(tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    res = runner.invoke(app, ["generate", "-n", "2", "-l", "1", "-o", str(gen)])
    assert res.exit_code == 0, res.output
    assert _modes(gen) == {0o640}
    conv = tmp_path / "conv"
    res = runner.invoke(app, ["convert", str(gen), "--to", "sgf", "-o", str(conv)])
    assert res.exit_code == 0, res.output
    assert _modes(conv) == {0o640}
    os.umask(0o002)
    res = runner.invoke(app, ["convert", str(gen), "--to", "sgf", "-o", str(conv), "--force"])
    assert res.exit_code == 0, res.output
    assert _modes(conv) == {0o664}


@pytest.mark.usefixtures("umask_027")
def test_an_import_report_gets_the_umask_mode(tmp_path: Path) -> None:
    (tmp_path / "a.mat").write_text(LEGAL, encoding="utf-8")
    report = tmp_path / "r.jsonl"
    args = ["import", str(tmp_path / "a.mat"), "-d", str(tmp_path / "d"), "--report", str(report)]
    assert runner.invoke(app, args).exit_code == 0
    assert stat.S_IMODE(report.stat().st_mode) == 0o640


# --- special files and empty folders named --------------------------------------------------


def test_a_fifo_named_says_what_it_is_and_the_rest_goes_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.mat"
    os.mkfifo(fifo)
    good = tmp_path / "good.mat"
    good.write_text(LEGAL, encoding="utf-8")
    why = "a FIFO (named pipe), not a regular file: not read"
    val = runner.invoke(app, ["validate", "-q", str(fifo), str(good)])
    assert val.exit_code == 2  # unreadable input
    assert val.stdout.splitlines() == [
        f"{fifo}:1:1: error: S016 {why}",
        "2 files, 1 match: 1 error (1 of them an unreadable input), 0 warnings; "
        "0 matches with errors, 0 with warnings only",
    ]
    parsed = runner.invoke(app, ["parse", str(fifo), str(good)])
    assert parsed.exit_code == 2  # unreadable input, as for validate
    assert f"{fifo}:1:1: S016 {why}" in parsed.stderr
    assert parsed.stdout.startswith(f"{good}: Alice vs Bob, 3-point match, 1 game, ")
    imp = runner.invoke(app, ["import", str(fifo), str(good), "-d", str(tmp_path / "d")])
    assert imp.exit_code == 1  # quarantined, with the reason
    assert imp.stderr == f"quarantined: {fifo}: {why}\n"


def test_a_copy_of_a_quarantined_input_names_it_in_the_report(tmp_path: Path) -> None:
    # Issue 11 (defect 8, --report): the second copy of a damaged file named only "an earlier
    # input"; it must name the quarantined one, so that every input left out can be traced to
    # its reason. It is quarantined itself, with that reason (as a "duplicate" it was missing
    # from the quarantined inputs).
    inputs = tmp_path / "in"
    (inputs / "b").mkdir(parents=True)
    (inputs / "a.mat").write_text("not a match\n", encoding="utf-8")
    (inputs / "b" / "copy.mat").write_text("not a match\n", encoding="utf-8")
    (inputs / "good.mat").write_text(LEGAL, encoding="utf-8")
    report = tmp_path / "report.jsonl"
    res = runner.invoke(
        app, ["import", str(inputs), "-d", str(tmp_path / "d"), "--report", str(report)]
    )
    assert res.exit_code == 1
    rows = {r["path"]: r for r in map(json.loads, report.read_text("utf-8").splitlines())}
    first = rows[f"{inputs}/a.mat"]
    assert (first["status"], first["errors"]) == ("quarantined", 1)
    copy = rows[f"{inputs}/b/copy.mat"]
    assert copy["status"] == "quarantined"
    assert copy["reason"].startswith(f"same content as {inputs}/a.mat (sha256 ")
    assert copy["reason"].endswith(f", which is quarantined: {first['reason']}")
    assert rows[f"{inputs}/good.mat"]["status"] == "imported"


def test_a_socket_named_says_what_it_is(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s.mat"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == 2
    assert res.stdout.startswith(f"{path}:1:1: error: S016 a socket, not a regular file")


def test_a_folder_of_other_files_is_read_by_content_and_an_empty_one_refused(
    tmp_path: Path,
) -> None:
    # One walker (issue 16): every file in a folder is an input for every command, whatever
    # its name. A PDF is reported unreadable (import quarantines it); a folder with no file
    # at all is a usage error, worded the same in every command.
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.pdf").write_bytes(b"%PDF")
    pdf = folder / "notes.pdf"
    for command in (["validate"], ["parse"], ["convert", "--to", "sgf", "-o", str(tmp_path)]):
        res = runner.invoke(app, [*command, str(folder)])
        assert res.exit_code == 2, command
        assert f"{pdf}:1:1: " in res.output and "S003 this is a PDF document" in res.output
    res = runner.invoke(app, ["import", str(folder), "-d", str(tmp_path / "d1")])
    assert res.exit_code == 1 and f"quarantined: {pdf}: " in res.stderr
    pdf.unlink()
    data = tmp_path / "data"
    for command in (
        ["validate"],
        ["parse"],
        ["convert", "--to", "sgf", "-o", str(tmp_path)],
        ["import", "-d", str(data)],
    ):
        res = runner.invoke(app, [*command, str(folder)])
        assert (res.exit_code, res.stderr) == (2, f"bgparse: {folder}: no files in this folder\n")
    assert not data.exists()


# --- query ----------------------------------------------------------------------------------


def test_query_refuses_more_than_one_statement(hand_dataset: Path) -> None:
    data = ["-d", str(hand_dataset)]
    two = runner.invoke(app, ["query", "SELECT 1 AS a; SELECT 2 AS b", *data])
    assert (two.exit_code, two.stdout, two.stderr) == (
        2,
        "",
        "bgparse: one SQL statement at a time, not 2: run each on its own\n",
    )
    none = runner.invoke(app, ["query", " ; ", *data])
    assert (none.exit_code, none.stderr) == (2, "bgparse: no SQL statement given\n")
    one = runner.invoke(app, ["query", "SELECT 1 AS a;", *data, "-f", "csv"])
    assert (one.exit_code, one.stdout) == (0, "a\n1\n")


# --- plurals --------------------------------------------------------------------------------


def test_plural() -> None:
    assert [plural(n, "match") for n in (0, 1, 2, 1234)] == [
        "0 matches",
        "1 match",
        "2 matches",
        "1,234 matches",
    ]
    assert plural(1, "pip") == "1 pip" and plural(-1, "point") == "-1 point"
    assert plural(3, "beaver or raccoon", "beavers and raccoons") == "3 beavers and raccoons"


def test_counts_of_one_are_singular(tmp_path: Path) -> None:
    from bgparse.rules import Position, verify_play

    check = verify_play(Position.initial(), (2, 1), "24/23 13/10")
    assert check.message == "24/23 (1 pip), 13/10 (3 pips): does not fit the dice 2-1"
    only = tmp_path / "one.mat"
    only.write_text(LEGAL, encoding="utf-8")
    val = runner.invoke(app, ["validate", str(only)])
    assert val.stdout.splitlines()[-2:] == [
        f"{only}: Alice vs Bob, 3-point match, 1 game, final score 0-1",
        "1 file, 1 match: 0 errors, 0 warnings; 0 matches with errors, 0 with warnings only",
    ]
    imp = runner.invoke(app, ["import", str(only), "-d", str(tmp_path / "d")])
    assert imp.stdout.startswith(
        "1 input: 1 imported, 0 duplicate, 0 quarantined, 0 already in the dataset; "
        "stored 1 match, 1 game, 4 turns, 0 cube offers"
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_output_to_a_full_disk_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # Issue 11 (defect 4) for the output itself: stdout redirected to a full disk ended in an
    # OSError traceback (or Python's own at exit, for output still buffered).
    good = tmp_path / "good.mat"
    good.write_text(LEGAL, encoding="utf-8")
    for args in (["validate", "-f", "json", str(good)], ["parse", str(good)]):
        with open("/dev/full", "wb") as full:
            res = subprocess.run(
                [sys.executable, "-m", "bgparse", *args],
                stdout=full,
                stderr=subprocess.PIPE,
                timeout=120,
                check=False,
            )
        assert res.returncode == 2, args
        assert res.stderr == b"bgparse: cannot write the output: No space left on device\n"
