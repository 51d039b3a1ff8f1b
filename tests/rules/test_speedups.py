"""The typed C speed-ups (bgparse/rules/_speedups.pyx, built by setup.py where it can) must
answer exactly as their pure-Python originals, which stay the reference. Skipped on a
pure-Python install."""

from __future__ import annotations

import dataclasses
from base64 import b64decode, b64encode
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgparse.model.events import Move
from bgparse.replay.turns import match_id_python, play_info, play_key_python
from bgparse.rules.ids import MatchIdState as IdState
from bgparse.rules.ids import encode_match_id
from bgparse.rules.plays import legal_plays
from bgparse.rules.position import Position, _join_halves, _side_info
from bgparse.rules.steps import STEP_TABLE
from bgparse.rules.verification import (
    PlayCheck,
    _play_steps_python,
    _verify_fast_c,
    _verify_fast_python,
)

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


def _fast_answer(check: object) -> object:
    """What the fast path decided, comparable across the two versions."""
    if check is None:
        return None
    assert isinstance(check, PlayCheck)
    return (
        check.ok,
        check.after.mover,
        check.after.opponent,
        check.after.checkers,
        check.steps,
        [type(s) for s in check.steps],
        check.hit_star_mismatch,
        check.position,
        check.dice,
    )


def _both(pos: Position, dice: tuple[int, int], moves: object) -> None:
    assert _fast_answer(_verify_fast_c(pos, dice, moves)) == _fast_answer(
        _verify_fast_python(pos, dice, moves)
    )
    # The board work alone, also for a play that leaves dice unplayed (verify_play's partial
    # route): the same answer, and the same shared Step objects.
    args = (pos.mover, pos.opponent, dice[0], dice[1], moves, STEP_TABLE, True)
    typed, python = speedups.play_steps(*args), _play_steps_python(*args)
    assert typed == python
    if typed is not None and python is not None:
        assert all(a is b for a, b in zip(typed[2], python[2], strict=True))


def _merge_runs(steps: list[Any]) -> list[Move]:
    """A play's steps as written moves, each checker's consecutive steps merged into one."""
    runs: list[list[Any]] = []
    for step in steps:
        if runs and runs[-1][-1].dst == step.src and step.src != 0:
            runs[-1].append(step)
        else:
            runs.append([step])
    return [Move((r[0].src, r[-1].dst), (False, any(x.hit for x in r)), 1) for r in runs]


@settings(max_examples=400, deadline=None)
@given(positions(), st.tuples(st.integers(1, 6), st.integers(1, 6)), st.data())
def test_play_steps_equals_the_python_fast_path(
    pos: Position, dice: tuple[int, int], data: st.DataObject
) -> None:
    """Every legal play as written steps, with and without stars, as Move groups and as
    tuples, merged into repeats, and changed at random: the C and Python fast paths agree
    on each (a result, or "not this case")."""
    plays = legal_plays(pos, dice)
    for play in list(plays)[:12]:
        steps = list(play.steps)
        _both(pos, dice, [(s.src, s.dst) for s in steps])
        _both(pos, dice, [(s.src, s.dst, s.hit) for s in steps])
        _both(pos, dice, tuple(Move((s.src, s.dst), (False, s.hit), 1) for s in steps))
        _both(pos, dice, [Move((s.src, s.dst), (False, not s.hit), 1) for s in steps])
        _both(pos, dice, list(reversed([(s.src, s.dst) for s in steps])))
        merged = _merge_runs(steps)
        if len(merged) < len(steps):  # a checker's steps written as one move (`24/14`)
            _both(pos, dice, merged)
            _both(pos, dice, [Move(m.points, (False, not m.hits[1]), 1) for m in merged])
        if len(steps) >= 2 and steps[0] == steps[1]:
            rest = [Move((s.src, s.dst), (False, s.hit), 1) for s in steps[2:]]
            _both(pos, dice, [Move((steps[0].src, steps[0].dst), (False, False), 2), *rest])
        if len(steps) > 1:  # the play less a step: dice left unplayed
            _both(pos, dice, [(s.src, s.dst, s.hit) for s in steps[1:]])
    for _ in range(4):
        n = data.draw(st.integers(0, 5))
        moves = [
            (data.draw(st.integers(1, 25)), data.draw(st.integers(0, 24)), data.draw(st.booleans()))
            for _ in range(n)
        ]
        _both(pos, dice, moves)
        _both(
            pos, dice, [Move((s, t), (False, h), data.draw(st.integers(1, 6))) for s, t, h in moves]
        )


def test_play_steps_leaves_odd_inputs_to_python() -> None:
    start = Position.initial()
    for moves in (
        [Move((13, 10), (False, False), 10**9)],
        [Move((13, 10), (False, False), 0)],
        [Move((13, 10), (False,), 1)],
        [Move((24, 18, 13), (False, False, False), 1)],
        [(24, 18, False, 1)],
        [(24.0, 18)],
        [(True, 0)],
        iter([(24, 21), (21, 18)]),
        [object()],
        5,
    ):
        assert speedups.play_steps(start.mover, start.opponent, 3, 3, moves, STEP_TABLE) is None


@st.composite
def match_id_bytes(draw: st.DrawFn) -> bytes:
    """9 bytes of a Match ID without dice (bits 15-20 clear), or now and then another
    length, which neither version encodes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=12))
    key = draw(st.integers(0, (1 << 72) - 1)) & ~(0b111111 << 15)
    return key.to_bytes(9, "little")


@settings(max_examples=2000, deadline=None)
@given(match_id_bytes(), st.tuples(st.integers(-2, 9), st.integers(-2, 9)))
def test_match_id_text_equals_the_python_match_id(raw: bytes, dice: tuple[int, int]) -> None:
    assert speedups.match_id_text(raw, dice) == match_id_python(raw, dice)


def test_match_id_text_is_gnus_match_id() -> None:
    """Through the rules' own encoder: the dice-less bytes of a state with the dice added
    are that state's Match ID with those dice."""
    for d1, d2 in [(0, 0), (3, 1), (6, 6), (1, 5)]:
        state = IdState(7, (2, 3), 4, 1, 0, 0, False, 1, False, 0, (0, 0), False)
        raw = b64decode(encode_match_id(state))
        expected = encode_match_id(dataclasses.replace(state, dice=(d1, d2)))
        assert speedups.match_id_text(raw, (d1, d2)) == expected


steps_lists = st.lists(
    st.tuples(st.integers(-2, 27), st.integers(-2, 27), st.booleans() | st.integers(0, 2)),
    max_size=7,
).map(tuple)


@settings(max_examples=2000, deadline=None)
@given(steps_lists)
def test_play_key_equals_the_python_play_key(steps: tuple[tuple[int, int, bool], ...]) -> None:
    got = speedups.play_key(steps)
    want = play_key_python(steps)
    # The typed version stops at five steps (a legal play has four) and says None beyond.
    assert got == (want if len(steps) <= 5 else None)


@settings(max_examples=500, deadline=None)
@given(steps_lists, steps_lists)
def test_play_keys_tell_steps_apart(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    ka, kb = play_key_python(a), play_key_python(b)
    if ka is not None and kb is not None:
        assert (ka == kb) == (a == b)


def test_play_key_takes_the_engines_steps() -> None:
    """The steps the engine resolves are Step named tuples: each play of an opening roll
    has a key, the same as the Python one, and no two plays share one."""
    keys = set()
    plays = legal_plays(Position.initial(), (6, 5))
    for play in plays:
        steps = tuple(play.steps)
        key = speedups.play_key(steps)
        assert key is not None and key == play_key_python(steps)
        keys.add(key)
    assert len(keys) == len(plays)


def test_play_key_leaves_steps_other_than_a_tuple_to_the_uncached_path() -> None:
    """A list of steps gets no key (None), and play_info still reads it as the tuple."""
    steps = [(13, 7, False), (8, 7, True)]
    assert speedups.play_key(steps) is None
    assert play_info(steps) == play_info(tuple(steps)) == ("13/7 8/7*", 1)  # type: ignore[arg-type]


def _final_boards(pid: str) -> tuple[str, str]:
    """A game's final board for the match identity, by the C path and the Python one."""
    from types import SimpleNamespace

    from bgparse.store.rows import _final_board, _final_board_python

    game = SimpleNamespace(final_position_id=pid)
    return _final_board(game), _final_board_python(game)  # type: ignore[arg-type]


def _id_of(bits: int) -> str:
    return b64encode(bits.to_bytes(10, "little")).decode()[:14]


@settings(max_examples=2000, deadline=None)
@given(
    st.one_of(
        # A Position ID of any two sides: valid, or a point both hold, or both off.
        st.builds(
            lambda a, b: _join_halves(_side_info.__wrapped__(a), _side_info.__wrapped__(b)),
            sides(),
            sides(),
        ),
        positions().map(lambda p: p.position_id()),
        # Any 80 bits, and any 14 characters of the alphabet and round it.
        st.integers(0, 2**80 - 1).map(_id_of),
        st.text(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=- ",
            min_size=12,
            max_size=15,
        ),
    )
)
def test_canonical_board_id_equals_the_python_final_board(pid: str) -> None:
    fast = speedups.canonical_board_id(pid)
    c_path, python_path = _final_boards(pid)
    assert c_path == python_path
    if fast is not None:
        assert fast == python_path


def test_canonical_board_id_leaves_what_it_cannot_read_to_python() -> None:
    start = "4HPwATDgc/ABMA"
    assert speedups.canonical_board_id(start) == min(
        start, Position.from_position_id(start).swap().position_id()
    )
    for odd in (" " + start, start[:13], start[:13] + "!", _id_of(2**80 - 1), _id_of(0)):
        assert speedups.canonical_board_id(odd) is None, odd
        assert _final_boards(odd)[0] == _final_boards(odd)[1]
