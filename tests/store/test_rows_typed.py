"""The store's typed loops over a game's turns (bgparse/store/_rows.pyx, built by setup.py where
it can) must give exactly what their references in bgparse/store/rows.py give: the canonical
lines that make a match's identity, and the turns table's column lists. Held on real matches
of the corpus and on turns with odd values, where the typed loop may decline (None) but never
answer differently. Skipped on a pure-Python install."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgparse.model.findings import RecordError
from bgparse.model.verified import Turn
from bgparse.readers import iter_records
from bgparse.replay import replay
from bgparse.store import rows
from bgparse.store.schema import TURNS

from ..conftest import corpus_dir

typed_lines = rows._turn_lines
typed_rows = rows._turn_rows
needs_typed = pytest.mark.skipif(
    typed_lines is None or typed_rows is None, reason="the typed turn loops are not built"
)

_UID = bytes(range(16))
_SUFFIXES = (".mat", ".sgf", ".txt", ".xg")


def _python_rows(turns: tuple[Turn, ...]) -> tuple[Any, list[list[Any]]]:
    lists: list[list[Any]] = [[] for _ in TURNS]
    try:
        done: Any = rows._turn_rows_python(turns, lists, _UID, 7)
    except Exception as exc:  # the reference's own error on a value it cannot take
        done = type(exc)
    return done, lists


def _typed_rows(turns: tuple[Turn, ...]) -> tuple[Any, list[list[Any]]]:
    assert typed_rows is not None
    lists: list[list[Any]] = [[] for _ in TURNS]
    try:
        done: Any = typed_rows(
            turns, lists, _UID, 7, rows._ROLL_TEXT, rows._roll_text, rows._ROLL_KINDS
        )
    except Exception as exc:
        done = type(exc)
    return done, lists


def _check(turns: tuple[Turn, ...]) -> tuple[bool, bool]:
    """Both loops against their references; (lines typed, rows typed)."""
    assert typed_lines is not None
    try:
        want_lines: Any = rows.turn_lines_python(turns)
    except Exception as exc:
        want_lines = type(exc)
    got_lines = typed_lines(turns)
    if got_lines is not None:
        assert got_lines == want_lines
    got = _typed_rows(turns)
    if got[0] is None:
        assert got[1] == [[] for _ in TURNS]  # declined: nothing appended
    else:
        assert got == _python_rows(turns)
    return got_lines is not None, got[0] is not None


def _games(folder: str) -> list[tuple[Turn, ...]]:
    games = []
    paths = sorted(p for p in corpus_dir(folder).rglob("*") if p.suffix.lower() in _SUFFIXES)
    for path in paths[:80]:
        try:
            records = list(iter_records(path.read_bytes(), str(path)))
        except RecordError:
            continue  # not a readable match record
        games += [g.turns for record in records for g in replay(record).games]
    return games


@needs_typed
@pytest.mark.parametrize("folder", ["gnubg", "gnubg-illegal", "gnubg-sample", "real", "xg"])
def test_typed_turn_loops_as_their_references_on_the_corpus(folder: str) -> None:
    games = _games(folder)
    if not games:
        pytest.skip(f"no games in corpus folder {folder}")
    taken = [_check(turns) for turns in games if turns]
    # Real games are the shape the typed loops are for: every one taken by both.
    assert taken and all(lines and table for lines, table in taken)


_TEXT = st.sampled_from(["", "4HPwATDgc/ABMA", "cAkAAAAAAAAA", "é", "\udc80", "play", "x\ty"])
_INT = st.one_of(st.integers(-3, 12), st.just(True), st.just(10**20))
_DICE = st.one_of(
    st.none(),
    st.tuples(st.integers(0, 6), st.integers(0, 6)),
    st.tuples(_INT, _INT),
    st.just((3,)),
    st.just([3, 1]),
)
_PAIR = st.one_of(st.tuples(_INT, _INT), st.none(), st.just(()), st.just((1, 2, 3)))


@st.composite
def _turn(draw: st.DrawFn) -> Turn:
    return Turn(
        draw(_INT),
        draw(_INT),
        draw(st.one_of(st.sampled_from([0, 1]), _INT, st.just("0"))),
        draw(st.sampled_from(["play", "dance", "hidden", "double", "take", "drop", "beaver"])),
        draw(_INT),
        draw(_INT),
        draw(st.one_of(_TEXT, st.none())),
        draw(_TEXT),
        draw(_DICE),
        draw(st.sampled_from([(), ((24, 18, False),), None])),
        draw(_TEXT),
        draw(_TEXT),
        draw(_INT),
        draw(st.one_of(st.tuples(_INT, _INT), st.just((1,)), st.none())),
        draw(_INT),
        draw(_INT),
        draw(st.sampled_from([True, False, None])),
        draw(st.one_of(st.none(), _INT)),
        draw(st.one_of(st.tuples(_INT, _INT), st.just((0,)))),
        draw(_PAIR),
        draw(st.booleans()),
        draw(st.sampled_from([True, False, None])),
    )


@needs_typed
@settings(max_examples=400, deadline=None)
@given(st.lists(_turn(), max_size=6).map(tuple))
def test_typed_turn_loops_decline_or_agree_on_odd_turns(turns: tuple[Turn, ...]) -> None:
    _check(turns)


@needs_typed
def test_typed_turn_loops_decline_what_is_not_a_game_of_turns() -> None:
    assert typed_lines is not None and typed_rows is not None
    assert typed_lines([]) is None  # a list, not the replay's tuple
    assert typed_lines(((1, 2),)) is None
    lists: list[list[Any]] = [[] for _ in TURNS]
    assert typed_rows((), lists[:3], _UID, 1, {}, str, frozenset()) is None
    assert typed_rows(((1, 2),), lists, _UID, 1, {}, str, frozenset()) is None
    assert lists == [[] for _ in TURNS]


def test_turn_lines_python_is_the_canonical_form() -> None:
    # The identity of every stored match depends on these lines: their form is fixed.
    turns = (
        Turn(1, 0, 0, "play", 3, 1, "4HPwATDgc/ABMA", "cAkAAAAAAAAA", (1, 3)),
        Turn(1, 1, 1, "double", 4, 1, "4HPwATDgc/ABMA", "cAkAAAAAAAAA"),
    )
    assert rows.turn_lines_python(turns) == (
        "0\tplay\t31\t4HPwATDgc/ABMA\n1\tdouble\t\t4HPwATDgc/ABMA"
    )
    if typed_lines is not None:
        assert typed_lines(turns) == rows.turn_lines_python(turns)
