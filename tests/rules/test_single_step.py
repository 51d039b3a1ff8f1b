"""Single-step legality, written once (`bgparse.rules.steps.single_step`), and the fast paths
held to it: the generators' fast cases against the plain search built on it, and verify_play's
fast path (pure Python, and the typed one where built) against its full check, over random
positions and dice and over the wildbg positions of ../shared/oracle."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgparse.model.events import Move
from bgparse.rules import Position, legal_plays, verify_play
from bgparse.rules.plays import _generate, _generate_general
from bgparse.rules.steps import STEP_REASONS, Step, single_step
from bgparse.rules.verification import (
    REASONS,
    PlayCheck,
    _can_move,
    _play_steps_python,
    _verify_fast_python,
    _verify_full,
    _verify_partial,
)

from ._shared import FIXTURES, ROLLS, read_ids, shared_path
from .test_properties import dice_st, mutated, positions

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

FastPath = Callable[[Position, tuple[int, int], object], PlayCheck | None]


def _fast_paths() -> list[object]:
    paths: list[object] = [pytest.param(_verify_fast_python, id="python")]
    try:
        from bgparse.rules._speedups import play_steps  # noqa: F401 - only: is it built?
        from bgparse.rules.verification import _verify_fast_c
    except ImportError:
        paths.append(
            pytest.param(None, id="typed", marks=pytest.mark.skip(reason="not built (pure Python)"))
        )
    else:
        paths.append(pytest.param(_verify_fast_c, id="typed"))
    return paths


def _partial_paths() -> list[object]:
    """verify_play's route for a play leaving dice unplayed, on each build's board work."""

    def python(pos: Position, dice: tuple[int, int], moves: object) -> PlayCheck | None:
        return _verify_partial(pos, dice, moves, _play_steps_python)

    paths: list[object] = [pytest.param(python, id="python")]
    try:
        from bgparse.rules._speedups import play_steps
    except ImportError:
        paths.append(
            pytest.param(None, id="typed", marks=pytest.mark.skip(reason="not built (pure Python)"))
        )
    else:

        def typed(pos: Position, dice: tuple[int, int], moves: object) -> PlayCheck | None:
            return _verify_partial(pos, dice, moves, play_steps)

        paths.append(pytest.param(typed, id="typed"))
    return paths


def step(pos: Position, src: int, die: int) -> Step | str:
    return single_step(pos.mover, pos.opponent[::-1], src, die)


# --- the reference, by hand (RULES.md §2) ---------------------------------------------------


def test_a_step_lands_on_an_empty_point_an_own_point_or_a_blot_which_it_hits() -> None:
    pos = Position.from_points({13: 2, 8: 1}, {10: 1, 5: 2})
    assert step(pos, 13, 2) == Step(13, 11, False)
    assert step(pos, 13, 5) == Step(13, 8, False)
    assert step(pos, 13, 3) == Step(13, 10, True)
    assert step(pos, 8, 3) == "blocked-point"


def test_a_step_needs_a_checker_on_its_source() -> None:
    pos = Position.from_points({13: 2}, {5: 2})
    assert step(pos, 12, 1) == "no-checker"
    assert step(pos, 25, 1) == "no-checker"


def test_bar_first_and_entry_on_25_minus_the_die() -> None:
    pos = Position.from_points({"bar": 1, 13: 2}, {20: 2, 22: 1})
    assert step(pos, 13, 1) == "bar-not-cleared"
    assert step(pos, 25, 5) == "blocked-point"
    assert step(pos, 25, 3) == Step(25, 22, True)
    assert step(pos, 25, 6) == Step(25, 19, False)


def test_bearing_off_exact_overshoot_and_highest_point() -> None:
    home = Position.from_points({5: 1, 3: 2}, {20: 2})
    assert step(home, 5, 5) == Step(5, 0, False)  # exact
    assert step(home, 3, 3) == Step(3, 0, False)  # exact, with a higher checker on 5
    assert step(home, 5, 6) == Step(5, 0, False)  # overshoot from the highest point
    assert step(home, 3, 6) == "bear-off-not-highest"
    assert step(home, 3, 4) == "bear-off-not-highest"
    outside = Position.from_points({7: 1, 3: 2}, {20: 2})
    assert step(outside, 3, 3) == "bear-off-not-home"
    assert step(outside, 7, 6) == Step(7, 1, False)
    # RULES.md §7 case 11: hit during the bear-off, no bearing off until the checker is home.
    hit = Position.from_points({"bar": 1, 6: 2, 5: 2}, {19: 2, 20: 2}, checkers=15)
    assert step(hit, 6, 6) == "bar-not-cleared"
    assert step(hit, 25, 5) == "blocked-point"
    assert step(hit, 25, 4) == Step(25, 21, False)


def test_every_refusal_is_a_reason_code() -> None:
    assert set(STEP_REASONS) <= set(REASONS)


@SETTINGS
@given(positions(), st.integers(1, 25), st.integers(1, 6))
def test_single_step_refusals_are_step_reasons_and_steps_are_what_apply_does(
    pos: Position, src: int, die: int
) -> None:
    got = step(pos, src, die)
    if isinstance(got, str):
        assert got in STEP_REASONS
        return
    assert got.src == src and got.dst == max(src - die, 0)
    after = pos.apply([got])  # the other side on roll: its bar is the mover's bar
    assert got.hit == (after.mover[25] == pos.opponent[25] + 1)


# --- the fast generators against the reference search --------------------------------------


@SETTINGS
@given(positions(), dice_st)
def test_can_move_is_whether_the_roll_plays_at_all(pos: Position, dice: tuple[int, int]) -> None:
    movable = _can_move(pos.mover, pos.opponent[::-1], *dice)
    assert movable == (legal_plays(pos, dice).dice_used > 0)


@pytest.mark.parametrize("kind", ["contact", "race"])
def test_oracle_positions_fast_generators_equal_the_reference(kind: str) -> None:
    """Every roll of the 2,000 wildbg positions: the same legal set from the fast paths as
    from the search on `single_step`, and the reference's counts are GNU Backgammon's
    (fixtures/wildbg_totals.json)."""
    import json

    ids = read_ids(shared_path("oracle", f"wildbg-{kind}.ids"))
    fixture = json.loads((FIXTURES / "wildbg_totals.json").read_text())[kind]
    wrong = []
    for pid, want in zip(ids, fixture["per_position"], strict=True):
        pos = Position.from_position_id(pid)
        per = [0, 0]
        for roll in ROLLS:
            fast = _generate(pos.mover, pos.opponent, *roll)
            ref = _generate_general(pos.mover, pos.opponent, *roll)
            if set(fast.plays) != set(ref.plays) or (fast.dice, fast.pips) != (ref.dice, ref.pips):
                wrong.append((pid, roll))
            per[roll[0] != roll[1]] += len(ref.plays) or 1
        if per != want:
            wrong.append((pid, per, want))
    assert not wrong, wrong[:5]


# --- verify_play's fast paths against its full check ---------------------------------------


def _same(fast: PlayCheck, full: PlayCheck) -> None:
    # The last field caches the legal plays, which only the full check may have built.
    assert fast[:-1] == full[:-1]


def _written(steps: list[tuple[int, int, bool]], shape: str) -> object:
    if shape == "pairs":
        return [(s, t) for s, t, _ in steps]
    if shape == "triples":
        return list(steps)
    return tuple(Move((s, t), (False, star), 1) for s, t, star in steps)


@st.composite
def written_legal(draw: st.DrawFn) -> tuple[Position, tuple[int, int], object]:
    """A legal play's steps in any order, each with its star right or wrong, in any shape."""
    pos = draw(positions())
    dice = draw(dice_st)
    plays = legal_plays(pos, dice)
    play = plays[draw(st.integers(0, len(plays) - 1))]
    steps = draw(st.permutations(list(play.steps)))
    marked = [(s.src, s.dst, draw(st.booleans()) if draw(st.booleans()) else s.hit) for s in steps]
    return pos, dice, _written(marked, draw(st.sampled_from(["pairs", "triples", "moves"])))


@pytest.mark.parametrize("moves", [[(5, 2), (3, 2, True)], "5/2 3/2*"])
def test_the_hit_goes_to_the_starred_step_when_an_order_allows(moves: object) -> None:
    """Two steps land on a blot and the record stars the second: some order of the steps
    hits with the starred one, so no star is wrong (the fast path once took the written
    order and reported two slips; the property tests below found it)."""
    pos = Position.from_points({5: 1, 3: 1, 13: 13}, {2: 1, 24: 2})
    check = verify_play(pos, (3, 1), moves)  # type: ignore[arg-type]
    assert check.ok and check.hit_star_mismatch == ()
    assert check.steps == (Step(3, 2, True), Step(5, 2, False))


@pytest.mark.parametrize("fast_path", _fast_paths())
@SETTINGS
@given(case=st.one_of(written_legal(), st.deferred(lambda: written_merged())))
def test_fast_verification_equals_the_full_check_on_legal_plays(
    fast_path: FastPath, case: tuple[Position, tuple[int, int], object]
) -> None:
    """Legal plays written step by step, or with a checker's steps merged into one move."""
    pos, dice, moves = case
    fast = fast_path(pos, dice, moves)
    if fast is not None:
        _same(fast, _verify_full(pos, dice, moves, True))  # type: ignore[arg-type]


@pytest.mark.parametrize("fast_path", _fast_paths())
@SETTINGS
@given(case=mutated(), shape=st.sampled_from(["pairs", "moves"]))
def test_fast_verification_equals_the_full_check_on_broken_plays(
    fast_path: FastPath, case: tuple[Position, tuple[int, int], list[tuple[int, int]]], shape: str
) -> None:
    pos, dice, pairs = case
    if not all(1 <= s <= 25 and 0 <= t < s for s, t in pairs):
        return  # not a step either path reads as one (the full check names the bad point)
    moves = _written([(s, t, False) for s, t in pairs], shape)
    fast = fast_path(pos, dice, moves)
    if fast is not None:
        _same(fast, _verify_full(pos, dice, moves, True))  # type: ignore[arg-type]


@pytest.mark.parametrize("fast_path", _fast_paths())
@pytest.mark.parametrize("kind", ["contact", "race"])
def test_oracle_positions_fast_verification_equals_the_full_check(
    fast_path: FastPath, kind: str
) -> None:
    """The first and last legal play of every roll of the wildbg positions, written in
    reverse order: where the fast path takes one (single steps using every die, legal in the
    order written: about half of them), it says what the full check says."""
    ids = read_ids(shared_path("oracle", f"wildbg-{kind}.ids"))
    taken = 0
    for pid in ids:
        pos = Position.from_position_id(pid)
        for roll in ROLLS:
            plays = legal_plays(pos, roll)
            for play in {plays[0].steps, plays[len(plays) - 1].steps}:
                moves = [tuple(s) for s in reversed(play)]
                fast = fast_path(pos, roll, moves)
                full = _verify_full(pos, roll, moves, True)  # type: ignore[arg-type]
                assert full.ok, (pid, roll, moves, full.message)
                if fast is not None:
                    taken += 1
                    _same(fast, full)
    assert taken > 10 * len(ids)


# --- merged moves: one written move of more than one die --------------------------------------


@st.composite
def written_merged(draw: st.DrawFn) -> tuple[Position, tuple[int, int], object]:
    """A legal play written with a checker's consecutive steps merged into one move
    (`24/18 18/14` as `24/14`) where the draw says so, its stars right or wrong, the moves in
    any order."""
    pos = draw(positions())
    dice = draw(dice_st)
    plays = legal_plays(pos, dice)
    play = plays[draw(st.integers(0, len(plays) - 1))]
    chains: list[list[Step]] = []
    for step in play.steps:
        ends = [c for c in chains if c[-1].dst == step.src and step.src != 0]
        if ends and draw(st.booleans()):
            ends[0].append(step)
        else:
            chains.append([step])
    chains = draw(st.permutations(chains))
    moves = []
    for chain in chains:
        hit = any(s.hit for s in chain)
        star = draw(st.booleans()) if draw(st.booleans()) else hit
        moves.append(Move((chain[0].src, chain[-1].dst), (False, star), 1))
    return pos, dice, tuple(moves)


def _merged(pos: Position, dice: tuple[int, int], *moves: tuple[int, int, bool]) -> object:
    return tuple(Move((s, t), (False, star), 1) for s, t, star in moves)


@pytest.mark.parametrize("fast_path", _fast_paths())
def test_a_merged_move_takes_the_full_checks_route(fast_path: FastPath) -> None:
    """The higher die first where nothing stands in its way; the lower first where the higher
    lands on a point held or on a blot the record does not star; doubles' one route; and the
    cases only the full check settles (a blot on both routes, a star written wrong) left to
    it."""
    start = Position.initial()
    cases = [
        (start, (6, 4), [(24, 14, False)], [(24, 18), (18, 14)]),
        (start, (4, 4), [(24, 16, False), (13, 9, False), (13, 9, False)], None),
        (start, (5, 1), [(8, 2, False)], [(8, 3), (3, 2)]),
    ]
    mover = {24: 2, 13: 5, 8: 3, 6: 5}
    # (Both sides in the mover's numbering.) The opponent holds 18: 24/14 with 6-4 goes by 20.
    held = Position.from_points(mover, {18: 2, 1: 2, 12: 5, 17: 3, 19: 3})
    cases.append((held, (6, 4), [(24, 14, False)], [(24, 20), (20, 14)]))
    # A blot on 18: the unstarred 24/14 goes round it, by 20.
    blot = Position.from_points(mover, {18: 1, 1: 2, 12: 6, 17: 3, 19: 3})
    cases.append((blot, (6, 4), [(24, 14, False)], [(24, 20), (20, 14)]))
    for pos, dice, written, route in cases:
        moves = _merged(pos, dice, *written)
        fast = fast_path(pos, dice, moves)
        full = _verify_full(pos, dice, moves, True)  # type: ignore[arg-type]
        assert full.ok and fast is not None, (dice, written, full.message)
        _same(fast, full)
        if route is not None:
            assert [(s.src, s.dst) for s in fast.steps] == route
    both = Position.from_points(mover, {18: 1, 20: 1, 1: 1, 12: 6, 17: 3, 19: 3})
    # Blots on 18 and 20: either route hits one, which the record does not say.
    assert fast_path(both, (6, 4), _merged(both, (6, 4), (24, 14, False))) is None
    # A star on a merged move that hits nothing: the full check words the slip.
    assert fast_path(start, (6, 4), _merged(start, (6, 4), (24, 14, True))) is None


# --- verify_play's route for a play that leaves dice unplayed --------------------------------


@pytest.mark.parametrize("partial_path", _partial_paths())
def test_a_play_of_one_die_where_only_one_can_move_is_taken_without_the_search(
    partial_path: FastPath,
) -> None:
    """A last checker on 24 and 6-5 with point 13 held: either die moves it, not both, so
    the 6 must be played (24/18 is legal, 24/19 is not: the full check words why)."""
    pos = Position.from_points({24: 1}, {13: 2})
    plays = legal_plays(pos, (6, 5))
    assert (plays.dice_used, plays.pips_used) == (1, 6)
    taken = partial_path(pos, (6, 5), [(24, 18)])
    assert taken is not None and taken.ok and taken.steps == (Step(24, 18, False),)
    _same(taken, _verify_full(pos, (6, 5), [(24, 18)], True))
    assert partial_path(pos, (6, 5), [(24, 19)]) is None
    assert verify_play(pos, (6, 5), [(24, 19)]).reason == "higher-die-not-played"


@pytest.mark.parametrize("partial_path", _partial_paths())
def test_a_play_using_fewer_dice_than_possible_is_left_to_the_full_check(
    partial_path: FastPath,
) -> None:
    pos = Position.initial()
    assert partial_path(pos, (6, 5), [(24, 18)]) is None  # the 5 can be played too
    check = verify_play(pos, (6, 5), [(24, 18)])
    assert not check.ok and check.reason == "fewer-dice-than-possible"


@pytest.mark.parametrize("partial_path", _partial_paths())
@SETTINGS
@given(case=written_legal(), drop=st.integers(0, 3))
def test_partial_verification_equals_the_full_check(
    partial_path: FastPath, case: tuple[Position, tuple[int, int], object], drop: int
) -> None:
    """Legal plays as written (some use fewer dice because no more can move), and the same
    with a step left out (mostly illegal: then the route declines): where the route answers,
    it says what the full check says."""
    pos, dice, moves = case
    shapes = [moves]
    if isinstance(moves, list | tuple) and moves:
        shapes.append(type(moves)(m for i, m in enumerate(moves) if i != drop % len(moves)))
    for written in shapes:
        got = partial_path(pos, dice, written)
        if got is not None:
            _same(got, _verify_full(pos, dice, written, True))  # type: ignore[arg-type]


@pytest.mark.parametrize("partial_path", _partial_paths())
@pytest.mark.parametrize("kind", ["contact", "race"])
def test_oracle_positions_partial_verification_equals_the_full_check(
    partial_path: FastPath, kind: str
) -> None:
    """Every roll of the wildbg positions whose legal plays use fewer dice than rolled, and
    every roll's first play less its last step: where the route answers, the full check
    agrees."""
    ids = read_ids(shared_path("oracle", f"wildbg-{kind}.ids"))
    taken = 0
    for pid in ids:
        pos = Position.from_position_id(pid)
        for roll in ROLLS:
            plays = legal_plays(pos, roll)
            ndice = 4 if roll[0] == roll[1] else 2
            cases = [[tuple(s) for s in plays[0].steps[:-1]]]
            if 0 < plays.dice_used < ndice:
                cases.append([tuple(s) for s in plays[len(plays) - 1].steps])
            for moves in cases:
                got = partial_path(pos, roll, moves)
                if got is not None:
                    taken += 1
                    _same(got, _verify_full(pos, roll, moves, True))  # type: ignore[arg-type]
    assert taken > 0
