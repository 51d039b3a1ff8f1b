"""The typed C speed-ups (bgparse/rules/_speedups.pyx, built by setup.py where it can) must
answer exactly as their pure-Python originals, which stay the reference. Skipped on a
pure-Python install."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgparse.rules.position import Position, _join_halves, _side_info

from .test_properties import positions

speedups = pytest.importorskip(
    "bgparse.rules._speedups", reason="the C speed-ups are not built (pure Python)"
)


def python_summary(opponent: tuple[int, ...], mover: tuple[int, ...]) -> tuple[str, int, int, bool]:
    a = _side_info.__wrapped__(opponent)
    b = _side_info.__wrapped__(mover)
    return _join_halves(a, b), b[2], a[2], a[3] + b[3] <= 25


@st.composite
def sides(draw: st.DrawFn) -> tuple[int, ...]:
    """Any one side of 0-15 checkers on slots 1-25 (the bar 25), as legal and as crowded as
    a side can be: the other side is not looked at, so they may overlap."""
    total = draw(st.integers(0, 15))
    counts = [0] * 26
    for _ in range(total):
        counts[draw(st.integers(1, 25))] += 1
    return tuple(counts)


@settings(max_examples=2000, deadline=None)
@given(sides(), sides())
def test_board_summary_equals_the_python_summary(
    opponent: tuple[int, ...], mover: tuple[int, ...]
) -> None:
    assert speedups.board_summary(opponent, mover) == python_summary(opponent, mover)


@settings(max_examples=300, deadline=None)
@given(positions())
def test_position_summary_matches_its_parts(pos: Position) -> None:
    pid, mover_pips, opponent_pips, race = pos.summary()
    assert pid == pos.position_id()
    assert (mover_pips, opponent_pips) == pos.pips()
    assert race == (not pos.has_contact())
    assert pos.summary() == python_summary(pos.opponent, pos.mover)


def test_extreme_sides() -> None:
    empty = (0,) * 26
    all_on_bar = (0,) * 25 + (15,)
    one_per_slot = (0, *([1] * 15), *([0] * 10))
    for a in (empty, all_on_bar, one_per_slot):
        for b in (empty, all_on_bar, one_per_slot):
            assert speedups.board_summary(a, b) == python_summary(a, b)


@pytest.mark.parametrize(
    "bad",
    [
        (0,) * 25 + (16,),  # a count over 15
        (0, -1) + (0,) * 24,  # a negative count
        (0, 8, 8) + (0,) * 23,  # more than 15 checkers
        (0,) * 25,  # too short
        (0,) * 27,  # too long
    ],
)
def test_sides_no_position_id_holds_are_left_to_python(bad: tuple[int, ...]) -> None:
    start = Position.initial().mover
    assert speedups.board_summary(bad, start) is None
    assert speedups.board_summary(start, bad) is None
