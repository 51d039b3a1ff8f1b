"""Reading a file costs memory in proportion to a normal file of its size, whatever its
values hold (an SGF value of nothing but backslashes took some 60 bytes per byte), and running
out of memory while reading a file is that file's one-line error, not a traceback."""

from __future__ import annotations

import re
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.readers import iter_records, sgf

runner = CliRunner()

SIZE = 1_000_000
HEAD = "(;FF[4]GM[6]CA[UTF-8]AP[bgparse]MI[length:3]PB[Bob]RE[W+2]"
GAME = ";B[31hkfk];W[42ljkj])\n"


def _peak(text: str) -> int:
    data = text.encode("utf-8")
    tracemalloc.start()
    (_record,) = iter_records(data, "big.sgf")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


@pytest.mark.parametrize(
    "body", ["\\\\", "\\]", "\\\\\\\n"], ids=["backslashes", "brackets", "soft"]
)
def test_a_value_of_escapes_costs_what_a_plain_value_does(body: str) -> None:
    # A player's name: a value the reader unescapes and keeps.
    escaped = HEAD + "PW[" + body * (SIZE // len(body)) + "]" + GAME
    plain = HEAD + "PW[" + "ab" * (SIZE // 2) + "]" + GAME
    assert abs(len(escaped) - len(plain)) < 4
    # The reader's own copies of a value (raw, unescaped) are a few bytes per byte either way;
    # a backtracking state per escape was tens.
    assert _peak(escaped) < 1.5 * _peak(plain) + 1_000_000


def test_the_value_is_still_read_exactly() -> None:
    text = HEAD + "PW[a\\]b\\\\c\\\nd]" + GAME
    (record,) = iter_records(text.encode(), "x.sgf")
    assert record.players == ("a]b\\cd", "Bob")
    (record,) = iter_records((HEAD + "PW[" + "\\]" * 100_000 + "]" + GAME).encode(), "x.sgf")
    assert record.players == ("]" * 100_000, "Bob")


def test_out_of_memory_while_reading_is_the_files_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.sgf"
    big.write_text(HEAD + "C[x]" + GAME, encoding="utf-8")
    ok = tmp_path / "ok.mat"
    ok.write_bytes((Path(__file__).parent.parent / "sample_logs/mat/beavers.mat").read_bytes())

    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(sgf, "_parse_collection", exhausted)
    res = runner.invoke(app, ["validate", str(big), str(ok)])
    size = big.stat().st_size
    assert res.exit_code == 2
    assert res.stderr == ""
    lines = res.stdout.splitlines()
    assert f"{big}:1:1: error: S015 not enough memory to read this file ({size:,} bytes)" in lines
    assert "Traceback" not in res.stdout
    assert any(line.startswith(f"{ok}") or "1 file" in line for line in lines)


def test_out_of_memory_elsewhere_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bgparse.questions import query

    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(query, "connect", exhausted)
    res = runner.invoke(app, ["query", "SELECT 1", "-d", str(tmp_path)])
    assert (res.exit_code, res.stdout, res.stderr) == (2, "", "bgparse: out of memory\n")


def _reference(body: str) -> str:
    """The SGF escapes read one at a time: a backslash and the next character give that
    character, backslash-newline nothing."""
    return re.sub(r"\\([\s\S])", lambda m: "" if m[1] == "\n" else m[1], body)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["\\", "\\\\", "]", "\n", "\r", "a", "é", "\\\n"]), max_size=60),
    st.integers(1, 7),
)
def test_unescaping_by_chunks_reads_each_escape_as_the_spec_does(
    pieces: list[str], chunk: int
) -> None:
    body = "".join(pieces)
    saved = sgf._UNESCAPE_CHUNK
    sgf._UNESCAPE_CHUNK = chunk  # chunk boundaries everywhere, inside runs of backslashes too
    try:
        assert sgf._unescaped(body) == _reference(body)
    finally:
        sgf._UNESCAPE_CHUNK = saved
