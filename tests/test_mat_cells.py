"""The typed C reading of `.mat` games (bgparse/readers/_cells.pyx, built by setup.py where it
can) must read exactly what the pure-Python reader reads: its game lines what the grammar's
tokens give, its events what `_GameReader._read_rows` makes. Held on the corpus, the samples,
generated matches, fuzz mutants and rows written to sit on the edges of the cell patterns. The comparisons are
skipped on a pure-Python install."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark.exceptions import UnexpectedInput

from bgparse.model.findings import RecordError
from bgparse.readers import iter_records, mat
from bgparse.replay.generate import generate_matches
from bgparse.writers.mat import write_mat
from tests import fuzzing

needs_cells = pytest.mark.skipif(mat._cells is None, reason="the C reader is not built")

#: Games on the edges of what a row is: a keyword after a roll's words, cells with no blank
#: between them, a number a cell may or may not take, blanks other than spaces, digits of other
#: scripts, carriage returns, a row number alone or inside a row, tabs, comments, blank lines.
_EDGES = (
    "52: 13/8 13/11                 Doubles => 2",
    "52: 13/8 wins 1 point",
    "52: 13/8 Wins 1 point",
    "52: 13/8 WINS 1 point and the match",
    "52: 13/8 resigned                 31: 8/5 6/5",
    "52: 13/8 Doubles => 23)   Takes",
    "52:13/8                       31: 8/5 6/5",
    "52: 13/8\f13/11               31: 8/5 6/5",
    "52: 13/8 13/11\v              31: 8/5 6/5",
    "52: 13/8 13/11\r",
    "52: 13/8 ;note                31: 8/5 6/5",
    "\u0665\u0662: 13/8 13/11            31: 8/5 6/5",
    "52: \u0661\u0663/8 13/11            31: 8/5 6/5",
    "52: 13/8 12)                  31: 8/5 6/5",
    "52: 13/8 1:2                  31: 8/5 6/5",
    "52: 13/8 12:                  31: 8/5 6/5",
    "Doubles => 2                   Takes",
    "Doubles => 2 foo               Takes",
    "Drops                          Wins 1 point",
    "Beavers => 4                   Raccoons => 8",
    "                               Resigns gammon",
    "52: Cannot Move                31: ????",
    "52: illegal(1;2;3)             31: 8/5 6/5",
    "52: bar/20 6/off              31: 25/22 6/0",
    "52: 13/8\t13/11\t\t31: 8/5 6/5",
    "\t52: 13/8 13/11\t\t\t\t31: 8/5 6/5",
    "14)  Losses 1 point",
    "52: 13/8 13/11   14) Wins 1 point",
    "",
    "   ",
    "; a comment",
    "# another",
    "xyz",
)


def _edge_texts() -> Iterator[tuple[str, str]]:
    for i, row in enumerate(_EDGES):
        for numbered in (True, False):
            body = f"{'  1) ' if numbered else '     '}{row}\n"
            yield (
                f"edge{i}{'n' if numbered else ''}.mat",
                " 5 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
                f"  1) 31: 8/5 6/5                 42: 8/4 6/4\n{body}"
                "  3) 55: 13/8 13/8 6/1 6/1\n\n Game 2\n Ann : 1      Bob : 0\n"
                f"{body}\n  2) 61: 13/7 8/7\n",
            )


def _generated() -> list[tuple[str, bytes]]:
    """Generated matches written as GNU Backgammon writes them: clean games by the hundred,
    whether or not the corpus is beside the project."""
    return [
        (f"generated-{length}-{vm.index}.mat", write_mat(vm).encode("utf-8"))
        for length, money in ((7, False), (13, False), (0, True))
        for vm in generate_matches(25, length, seed=61, money=money)
    ]


def _seeds() -> list[tuple[str, bytes]]:
    """The unmutated inputs: edge rows, the samples, the corpus, generated matches."""
    found = [(name, text.encode()) for name, text in _edge_texts()]
    found += [(str(p), p.read_bytes()) for p in fuzzing.seed_files() if p.suffix != ".sgf"]
    return found + _generated()


def _mutants(seeds: list[tuple[str, bytes]], n: int) -> Iterator[tuple[str, bytes]]:
    cut = fuzzing.load_seeds(fuzzing.seed_files(), 3 * 1024)
    cut = [s for s in cut if ".sgf" not in s[0]] + [
        (name, data[: 3 * 1024]) for name, data in seeds if name.startswith("generated-")
    ]
    for i in range(n):
        m = fuzzing.make_mutant(cut, 16, i)
        yield m.name, m.data


def _inputs(mutants: int) -> Iterator[tuple[str, bytes]]:
    seeds = _seeds()
    yield from seeds
    yield from _mutants(seeds, mutants)


def _records(data: bytes, path: str) -> str:
    try:
        return repr(list(iter_records(data, path)))
    except RecordError as exc:
        return f"RecordError {exc}"


def test_the_roll_stop_words_are_the_grammars() -> None:
    roll = mat._parser().get_terminal("ROLL").pattern.to_regexp()
    assert f"(?!{mat.ROLL_STOP})" in roll


@needs_cells
def test_game_lines_are_the_grammars(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where `game_lines` reads a game, it reads the lines lark's tokens give; where lark
    refuses one, so does `game_lines`; and it reads nearly every game itself."""
    assert mat._cells is not None
    game_lines = mat._cells.game_lines
    seen: list[tuple[str, int, int]] = []
    original = mat._MatReader._game

    def record(self: Any, ctx: Any, chunk: str, first_line: int) -> Any:
        seen.append((chunk, len(chunk) - len(chunk.lstrip(" \t")), first_line))
        return original(self, ctx, chunk, first_line)

    monkeypatch.setattr(mat._MatReader, "_game", record)
    seeds = _seeds()
    for path, data in seeds:
        _records(data, path)
    unmutated = len(seen)
    for path, data in _mutants(seeds, 1500):
        _records(data, path)
    mutated = [n >= unmutated for n in range(len(seen))]
    counts = {False: [0, 0, 0], True: [0, 0, 0]}  # read, left to lark, refused
    for (chunk, indent, first_line), mutant in zip(seen, mutated, strict=True):
        typed = game_lines(chunk, indent, first_line, *mat._game_hooks())
        try:
            grammar = mat._lines_by_grammar(chunk, indent, first_line)
        except UnexpectedInput:
            assert typed is None, chunk
            counts[mutant][2] += 1
            continue
        if typed is None:
            counts[mutant][1] += 1
            continue
        counts[mutant][0] += 1
        assert (typed[0], typed[1]) == grammar, chunk
        assert all(type(line) is mat._Line for line in (typed[0], *typed[1]))
    # Both sides are held: the records' games read (nearly all) and those lark refuses
    # (mutants' mostly); a game the typed reading leaves to lark is allowed, though none has
    # been seen.
    read, by_lark, refused = counts[False]
    assert read > 400 and read > 9 * (by_lark + refused), counts
    assert counts[True][0] > 500 and counts[True][2] > 50, counts


@needs_cells
def test_the_typed_reading_reads_the_same_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records read with `_cells` equal those of the Python reader (the lark path and
    `_read_rows`), finding for finding, on edge rows, the corpus, the samples and mutants."""
    inputs = list(_inputs(1500))
    typed = [_records(data, path) for path, data in inputs]
    monkeypatch.setattr(mat, "_cells", None)
    python = [_records(data, path) for path, data in inputs]
    for (path, _), a, b in zip(inputs, typed, python, strict=True):
        assert a == b, path


#: Pieces of match and game lines and of what is near them: texts made of these put line
#: starts next to digits, signs, blanks, "points", "game" in any case, digits of other scripts
#: and characters outside one byte (which the C scan reads another way).
_LINE_PIECES = st.sampled_from(
    ["\n", " ", "\t", "-", "5", "17", "\u0665", "point", "Points", "POINTS ", "match",
     " match", "Match\n", "game", "GAME ", "Game", " 3", "1)", "gam", "p", "é", "\u4e00", ";",
     "\r", "x", "\n-5 point match", "\n 3 points match", "\n\t\u0663 point Match",
     "\n  -\u0661 points match", "\n7points match", "\n Game 1", "\ngame -2", "\n\tGAME\t3",
     "\n1) 52: 13/8", "\n 5 pont match", "\n 5 - point match", "\n Games 2"]
)  # fmt: skip


@needs_cells
@settings(max_examples=400, deadline=None)
@given(
    text=st.lists(_LINE_PIECES, max_size=40).map("".join),
    start=st.integers(0, 60),
    width=st.integers(0, 60),
)
def test_the_line_scan_finds_the_regexes_lines(text: str, start: int, width: int) -> None:
    """Match lines and game lines found with `_cells.lines_that_may_start` are those the
    newline-led regular expressions find (the pure-Python way), for any text and range."""
    end = min(len(text), start + width)
    typed = ([m.span() for m in mat._match_lines(text)], mat._game_starts(text, start, end))
    cells, mat._cells = mat._cells, None
    try:
        python = ([m.span() for m in mat._match_lines(text)], mat._game_starts(text, start, end))
    finally:
        mat._cells = cells
    assert typed == python


class _Wrapped(str):
    """A str of another type, as a caller's wrapper (one that counts what is read) is."""


@needs_cells
def test_the_typed_reading_takes_a_str_of_any_type() -> None:
    """The C functions read a subclass of str as they read the str it holds, and refuse
    what is not text with a TypeError, never a crash."""
    assert mat._cells is not None
    hooks = mat._game_hooks()
    games = 0
    for _, data in list(_inputs(200))[:80]:
        text = data.decode("utf-8", "replace")
        wrapped = _Wrapped(text)
        assert [m.span() for m in mat._match_lines(wrapped)] == [
            m.span() for m in mat._match_lines(text)
        ]
        starts = mat._game_starts(text, 0, len(text))
        assert mat._game_starts(wrapped, 0, len(text)) == starts
        for a, b in itertools.pairwise([*starts, len(text)]):
            chunk = text[a:b]
            indent = len(chunk) - len(chunk.lstrip(" \t"))
            typed = mat._cells.game_lines(chunk, indent, 1, *hooks)
            assert mat._cells.game_lines(_Wrapped(chunk), indent, 1, *hooks) == typed
            games += typed is not None
    assert games > 20
    with pytest.raises(TypeError):
        mat._cells.lines_that_may_start(b"5 point match\n", 0, 14, False)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        mat._cells.game_lines(b"Game 1\n", 0, 1, *hooks)  # type: ignore[arg-type]
