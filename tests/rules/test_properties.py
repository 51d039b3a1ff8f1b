"""Properties over random positions: conservation, pip arithmetic, the generator's fast paths
against its plain search, verify_play against legal_plays, and ID round trips."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgparse.rules import (
    REASONS,
    MatchIdState,
    Position,
    XgidState,
    decode_match_id,
    decode_xgid,
    encode_match_id,
    encode_xgid,
    legal_plays,
    verify_play,
)
from bgparse.rules.plays import _generate, _generate_general

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

dice_st = st.tuples(st.integers(1, 6), st.integers(1, 6))


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Valid positions of every kind: contact, races, bear-offs, checkers on the bar."""
    checkers = draw(st.sampled_from([15, 15, 15, 15, 5, 3]))
    style = draw(st.sampled_from(["spread", "home", "bar", "late"]))
    if style == "home":
        mover_points = list(range(1, 7))
    elif style == "late":
        mover_points = list(range(1, 13))
    else:
        mover_points = list(range(1, 26))
    n_mover = draw(st.integers(1, checkers))
    mover = [0] * 26
    for p in draw(st.lists(st.sampled_from(mover_points), min_size=n_mover, max_size=n_mover)):
        mover[p] += 1
    if style == "bar":
        mover[25] += draw(st.integers(0, min(4, checkers - sum(mover))))
    # The opponent's points are its own numbering: its q is the mover's 25 - q.
    free = [q for q in range(1, 25) if mover[25 - q] == 0] + [25]
    n_opp = draw(st.integers(1, checkers))  # with none left the game would be over
    opponent = [0] * 26
    # Stacking a few points (as real games do) gives blocks; the rest are blots.
    anchors = draw(st.lists(st.sampled_from(free), min_size=1, max_size=6))
    for q in draw(st.lists(st.sampled_from(anchors + free), min_size=n_opp, max_size=n_opp)):
        opponent[q] += 1
    pos = Position(tuple(mover), tuple(opponent), checkers)
    assert pos.is_valid(), pos.defects()
    return pos


@SETTINGS
@given(positions(), dice_st)
def test_plays_conserve_checkers_and_pips(pos: Position, dice: tuple[int, int]) -> None:
    plays = legal_plays(pos, dice)
    mover_pips, opp_pips = pos.pips()
    afters = set()
    for play in plays:
        after = play.after
        afters.add(after)
        assert after.is_valid(), after.defects()
        assert len(play.steps) == plays.dice_used
        borne = sum(1 for step in play.steps if step.dst == 0)
        assert sum(after.opponent) == sum(pos.mover) - borne
        assert sum(after.mover) == sum(pos.opponent)  # hit checkers stay on the board (bar)
        assert mover_pips - after.pips()[1] == sum(s.src - s.dst for s in play.steps)
        # A blot hit on the mover's point t (the opponent's 25 - t) goes back t pips.
        assert after.pips()[0] - opp_pips == sum(s.dst for s in play.steps if s.hit)
        assert after == pos.apply(play.steps)
    assert len(afters) == len(plays)


@SETTINGS
@given(positions(), dice_st)
def test_fast_paths_match_plain_search(pos: Position, dice: tuple[int, int]) -> None:
    fast = _generate(pos.mover, pos.opponent, *dice)
    plain = _generate_general(pos.mover, pos.opponent, *dice)
    assert set(fast.plays) == set(plain.plays)
    assert (fast.dice, fast.pips) == (plain.dice, plain.pips)


@SETTINGS
@given(positions(), dice_st)
def test_every_legal_play_verifies(pos: Position, dice: tuple[int, int]) -> None:
    for play in legal_plays(pos, dice):
        for written in (play.steps, [(s.src, s.dst) for s in play.steps], play.notation):
            check = verify_play(pos, dice, written)
            assert check.ok, (written, check.reason, check.message)
            assert check.after == play.after and not check.ambiguous
            assert check.reason is None
        # Stars as the generator wrote them: no notation slips to report.
        assert verify_play(pos, dice, play.notation).hit_star_mismatch == ()


def _surely_illegal(pos: Position, dice: tuple[int, int], steps: list[tuple[int, int]]) -> bool:
    """Illegal however the steps are read: a move no checker can make, or a result for the
    mover that no legal play gives (hits a merged reading might add change only the
    opponent's side, so the mover's side decides)."""
    plays = legal_plays(pos, dice)
    if not steps:
        return plays.dice_used > 0
    board = list(pos.mover)
    for src, dst in steps:
        if not (1 <= src <= 25 and 0 <= dst < src):
            return True
        if dst and pos.opponent[25 - dst] >= 2:
            return True
        board[src] -= 1
        if dst:
            board[dst] += 1
    if min(board) < 0:
        return True
    return tuple(board) not in {play.after.opponent for play in plays}


@st.composite
def mutated(draw: st.DrawFn) -> tuple[Position, tuple[int, int], list[tuple[int, int]]]:
    pos = draw(positions())
    dice = draw(dice_st)
    plays = legal_plays(pos, dice)
    play = plays[draw(st.integers(0, len(plays) - 1))]
    steps = [(s.src, s.dst) for s in play.steps]
    kind = draw(st.sampled_from(["dst", "src", "drop", "dup", "add", "dice", "empty"]))
    if kind in ("dst", "src") and steps:
        i = draw(st.integers(0, len(steps) - 1))
        delta = draw(st.sampled_from([-2, -1, 1, 2]))
        s, t = steps[i]
        steps[i] = (s, t + delta) if kind == "dst" else (s + delta, t)
    elif kind == "drop" and steps:
        del steps[draw(st.integers(0, len(steps) - 1))]
    elif kind == "dup" and steps:
        steps.append(steps[draw(st.integers(0, len(steps) - 1))])
    elif kind == "add":
        s = draw(st.integers(1, 25))
        steps.append((s, draw(st.integers(0, s - 1))))
    elif kind == "dice":
        dice = draw(dice_st)
    else:
        steps = []
    return pos, dice, steps


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_plays(case: tuple[Position, tuple[int, int], list[tuple[int, int]]]) -> None:
    pos, dice, steps = case
    check = verify_play(pos, dice, steps)
    if check.ok:
        assert check.after in legal_plays(pos, dice)
        assert check.reason is None
    else:
        assert check.reason in REASONS and check.message
        assert check.after.is_valid() or check.after.status() == ("both-finished",)
    if _surely_illegal(pos, dice, steps):
        assert not check.ok, (steps, dice)


@SETTINGS
@given(positions())
def test_position_id_and_repr_round_trip(pos: Position) -> None:
    decoded = Position.from_position_id(pos.position_id(), checkers=pos.checkers)
    assert decoded == pos
    assert eval(repr(pos), {"Position": Position}) == pos
    assert pos.swap().swap() == pos


match_states = st.builds(
    MatchIdState,
    match_length=st.integers(0, 64),
    score=st.tuples(st.integers(0, 100), st.integers(0, 100)),
    cube=st.sampled_from([1 << k for k in range(13)]),
    cube_owner=st.sampled_from([-1, 0, 1]),
    on_roll=st.integers(0, 1),
    turn=st.integers(0, 1),
    crawford=st.booleans(),
    game_state=st.integers(0, 4),
    double_offered=st.booleans(),
    resignation=st.integers(0, 3),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    jacoby=st.booleans(),
)


@given(match_states)
def test_match_id_round_trip(state: MatchIdState) -> None:
    text = encode_match_id(state)
    assert len(text) == 12 and decode_match_id(text) == state


@SETTINGS
@given(
    positions(),
    st.sampled_from([1, 2, 4, 64]),
    st.sampled_from([-1, 0, 1]),
    st.sampled_from([-1, 1]),
    st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
)
def test_xgid_round_trip(
    pos: Position, cube: int, owner: int, turn: int, dice: tuple[int, int]
) -> None:
    x, o = (pos.mover, pos.opponent) if turn == 1 else (pos.opponent, pos.mover)
    state = XgidState(x=x, o=o, cube=cube, cube_owner=owner, turn=turn, dice=dice)
    decoded = decode_xgid(encode_xgid(state))
    assert decoded == state
    assert decoded.position(checkers=pos.checkers) == pos
