"""Option values that would reach DuckDB out of its types are refused in one line, exit 2:
numbers past an INTEGER, and text that is not UTF-8 (bytes of argv that Python passes on as
surrogate escapes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.helpers.checks import OptionError, checked_int, utf8_text

runner = CliRunner()

BIG = "99999999999999999999"


@pytest.mark.parametrize(
    "args,message",
    [
        (["stats", "opening-rolls", "--length", "2147483648"],
         "--length must be at most 2,147,483,647, not 2147483648"),
        (["stats", "cube-rates", "--length", BIG],
         f"--length must be at most 2,147,483,647, not {BIG}"),
        (["stats", "opening-rolls", "--player", "Ann\udcff"],
         "--player must be UTF-8 text: the byte \\xff at character 4 is not"),
        (["stats", "opening-rolls", "--source", "\udce9t\udce9"],
         "--source must be UTF-8 text: the byte \\xe9 at character 1 is not"),
        (["stats", "player", "--name", "Bo\udcff"],
         "--name must be UTF-8 text: the byte \\xff at character 3 is not"),
        (["stats", "reply-plays", "--play", "8/5\udcff"],
         "--play must be UTF-8 text: the byte \\xff at character 4 is not"),
        (["report", "--out", "r.html", "--length", BIG],
         f"--length must be at most 2,147,483,647, not {BIG}"),
        (["report", "--out", "r.html", "--player", "\udcff"],
         "--player must be UTF-8 text: the byte \\xff at character 1 is not"),
        (["query", "SELECT '\udcff'"],
         "SQL must be UTF-8 text: the byte \\xff at character 9 is not"),
        (["query", "SELECT ?", "-p", "x\udcfe"],
         "--param must be UTF-8 text: the byte \\xfe at character 2 is not"),
    ],
)  # fmt: skip
def test_a_value_duckdb_cannot_take_is_a_usage_error(
    args: list[str],
    message: str,
    hand_dataset: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, [*args, "-d", str(hand_dataset)])
    assert (res.exit_code, res.stdout, res.stderr) == (2, "", f"bgparse: {message}\n")
    assert not (tmp_path / "r.html").exists()


def test_a_filter_in_range_still_filters(hand_dataset: Path) -> None:
    for args in (["--length", "2147483647"], ["--player", "Nobody Here"], ["--source", "zz"]):
        res = runner.invoke(
            app, ["stats", "opening-rolls", *args, "-d", str(hand_dataset), "--format", "csv"]
        )
        assert res.exit_code == 0, res.stderr
        assert res.stdout.count("\n") == 1  # the header: no match is selected


def test_argv_bytes_that_are_not_utf8(hand_dataset: Path) -> None:
    """The real thing: bytes in argv, through the console entry point."""
    env = {**os.environ, "BGPARSE_DATA": str(hand_dataset)}
    for argv, message in (
        ([b"stats", b"opening-rolls", b"--player", b"\xff"], b"--player"),
        ([b"query", b"select '\xff'"], b"SQL"),
    ):
        done = subprocess.run(
            [os.fsencode(sys.executable), b"-m", b"bgparse", *argv],
            capture_output=True,
            env=env,
            timeout=120,
        )
        assert (done.returncode, done.stdout) == (2, b"")
        assert done.stderr == b"bgparse: " + message + (
            b" must be UTF-8 text: the byte \\xff at character "
            + (b"1" if message == b"--player" else b"9")
            + b" is not\n"
        )


def test_the_helpers() -> None:
    assert checked_int("--n", 2**31 - 1) == 2**31 - 1
    assert checked_int("--n", 5, 1, 64) == 5
    with pytest.raises(OptionError, match=r"^--n must be 1 to 64, not 65$"):
        checked_int("--n", 65, 1, 64)
    with pytest.raises(OptionError, match=r"^--n must be 0 or more, not -1$"):
        checked_int("--n", -1)
    with pytest.raises(OptionError):
        checked_int("--n", True)
    assert utf8_text("--x", "Ånn 🎲") == "Ånn 🎲"
    with pytest.raises(OptionError, match="character 2 is a surrogate"):
        utf8_text("--x", "a\ud800")
