"""Match state: running score, Crawford and post-Crawford games, match end, Holland rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bgparse.rules.match import (
    GameFlags,
    MatchError,
    MatchState,
    crawford_game_for,
    holland_restricts,
    post_crawford_for,
)
from bgparse.rules.ruleset import RuleSet

CRAWFORD = GameFlags(crawford=True, post_crawford=False)
POST = GameFlags(crawford=False, post_crawford=True)
PLAIN = GameFlags(crawford=False, post_crawford=False)


def play(state: MatchState, results: list[tuple[int, int]]) -> list[GameFlags]:
    """Play `results` (winner, points) and return each game's flags."""
    flags = []
    for winner, points in results:
        flags.append(state.start_game())
        state = state.finish_game(winner, points)
    return flags


def final(state: MatchState, results: list[tuple[int, int]]) -> MatchState:
    for winner, points in results:
        state.start_game()
        state = state.finish_game(winner, points)
    return state


# The same 7-point match reaching 6 by each way a game can end: a single win, a gammon
# (2 points), a drop (the cube value before the double, here 2), a resignation (level 3 at 1).
@pytest.mark.parametrize(
    ("results", "name"),
    [
        ([(0, 2), (0, 2), (0, 1), (1, 1), (0, 1)], "single"),
        ([(0, 4), (1, 1), (0, 2)], "gammon"),
        ([(0, 2), (0, 2), (1, 2), (0, 2)], "drop"),
        ([(0, 3), (1, 1), (0, 3)], "resignation"),
    ],
)
def test_crawford_follows_reaching_length_minus_one(
    results: list[tuple[int, int]], name: str
) -> None:
    state = MatchState.new(7)
    flags = play(state, [*results, (1, 1), (1, 2)])
    assert all(f == PLAIN for f in flags[: len(results)]), name
    assert flags[len(results)] == CRAWFORD
    assert flags[len(results) + 1] == POST


def test_crawford_game_scores_and_flags_step_by_step() -> None:
    s = MatchState.new(5)
    s = s.finish_game(0, 2)  # 2-0
    s = s.finish_game(1, 1)  # 2-1
    assert s.start_game() == PLAIN
    s = s.finish_game(0, 2)  # 4-1: side 0 is 1-away
    assert s.scores == (4, 1)
    assert s.start_game() == CRAWFORD
    assert not s.crawford_played
    s = s.finish_game(1, 1)  # the Crawford game, won by the trailer: 4-2
    assert s.crawford_played
    assert s.start_game() == POST
    s = s.finish_game(1, 2)  # 4-4: double match point, still post-Crawford
    assert s.start_game() == POST
    s = s.finish_game(1, 1)  # 4-5
    assert (s.is_over, s.winner, s.games) == (True, 1, 6)


def test_crawford_at_most_once() -> None:
    # 5-point: side 0 reaches 4 (Crawford), side 1 reaches 4 later: no second Crawford game.
    flags = play(MatchState.new(5), [(0, 4), (1, 1), (1, 2), (1, 1), (0, 1)])
    assert flags == [PLAIN, CRAWFORD, POST, POST, POST]


def test_no_crawford_in_a_one_point_match() -> None:
    s = MatchState.new(1)
    assert s.start_game() == PLAIN
    assert crawford_game_for((0, 0), 1, False) is False
    s = s.finish_game(1, 1)
    assert (s.is_over, s.winner) == (True, 1)


def test_no_crawford_when_both_start_at_length_minus_one() -> None:
    # A record starting at 6-6 in a 7-point match (resumed): double match point, no Crawford.
    s = MatchState.new(7, scores=(6, 6))
    assert s.start_game() == POST
    assert crawford_game_for((6, 6), 7, False) is False


def test_resumed_score_with_one_side_at_length_minus_one_starts_with_crawford() -> None:
    # GNU's reading: the first game where exactly one player is at length-1.
    s = MatchState.new(7, scores=(6, 3))
    assert s.start_game() == CRAWFORD
    s = s.finish_game(1, 2)
    assert s.start_game() == POST
    # ... unless the caller knows the Crawford game was already played.
    assert MatchState.new(7, scores=(6, 3), crawford_played=True).start_game() == POST


def test_crawford_rule_off() -> None:
    s = MatchState.new(7, RuleSet(crawford=False), scores=(6, 3))
    assert s.start_game() == PLAIN


def test_a_side_jumping_past_length_minus_one_ends_the_match() -> None:
    s = final(MatchState.new(7), [(0, 4), (0, 4)])
    assert (s.scores, s.is_over, s.winner) == ((8, 0), True, 0)
    with pytest.raises(MatchError) as e:
        s.start_game()
    assert e.value.code == "match-over"
    with pytest.raises(MatchError):
        s.finish_game(1, 1)


def test_money_session_never_ends() -> None:
    s = final(MatchState.new(0), [(0, 64), (1, 3), (1, 1)])
    assert (s.scores, s.is_over, s.winner, s.money) == ((64, 4), False, None, True)
    assert s.start_game() == PLAIN
    with pytest.raises(ValueError):
        s.away(0)


def test_away() -> None:
    s = MatchState.new(9, scores=(3, 7))
    assert (s.away(0), s.away(1)) == (6, 2)
    assert MatchState.new(9, scores=(10, 7)).away(0) == 0


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        MatchState.new(-1)
    with pytest.raises(ValueError):
        MatchState.new(5, scores=(-1, 0))
    with pytest.raises(ValueError):
        MatchState.new(5).finish_game(2, 1)
    with pytest.raises(ValueError):
        MatchState.new(5).finish_game(0, -1)


@pytest.mark.parametrize(
    ("scores", "length", "played", "crawford", "post"),
    [
        ((0, 0), 7, False, False, False),
        ((6, 0), 7, False, True, False),
        ((0, 6), 7, False, True, False),
        ((6, 0), 7, True, False, True),
        ((6, 6), 7, False, False, True),
        ((7, 0), 7, False, False, False),  # over
        ((0, 0), 2, False, False, False),
        ((1, 0), 2, False, True, False),
        ((1, 1), 2, True, False, True),
        ((0, 0), 1, False, False, False),
        ((20, 3), 0, False, False, False),  # money
    ],
)
def test_pure_crawford_functions(
    scores: tuple[int, int], length: int, played: bool, crawford: bool, post: bool
) -> None:
    assert crawford_game_for(scores, length, played) is crawford
    assert post_crawford_for(scores, length, played) is post
    assert crawford_game_for(scores, length, played, crawford=False) is False
    assert post_crawford_for(scores, length, played, crawford=False) is False


@pytest.mark.parametrize(
    ("side", "scores", "post", "rolls", "restricted"),
    [
        (1, (6, 3), True, (0, 0), True),
        (1, (6, 3), True, (2, 1), True),
        (1, (6, 3), True, (1, 2), True),
        (1, (6, 3), True, (2, 2), False),
        (0, (6, 3), True, (0, 0), False),  # the leader is free
        (1, (6, 6), True, (0, 0), False),  # no trailer at double match point
        (1, (5, 3), False, (0, 0), False),  # not post-Crawford
    ],
)
def test_holland_restricts(
    side: int, scores: tuple[int, int], post: bool, rolls: tuple[int, int], restricted: bool
) -> None:
    got = holland_restricts(side, scores=scores, length=7, post_crawford=post, rolls=rolls)
    assert got is restricted


# ----------------------------------------------------------------------- properties

RESULTS = st.lists(st.tuples(st.integers(0, 1), st.integers(1, 12)), max_size=40)


@given(st.integers(0, 25), RESULTS)
def test_match_is_over_exactly_when_a_side_reaches_the_length(
    length: int, results: list[tuple[int, int]]
) -> None:
    s = MatchState.new(length)
    totals = [0, 0]
    for winner, points in results:
        if s.is_over:
            with pytest.raises(MatchError):
                s.start_game()
            break
        s = s.finish_game(winner, points)
        totals[winner] += points
        assert s.scores == (totals[0], totals[1])
        assert s.is_over == (length > 0 and max(totals) >= length)
        if s.is_over:
            assert s.winner == winner


@given(st.integers(1, 25), st.tuples(st.integers(0, 24), st.integers(0, 24)), RESULTS)
def test_crawford_at_most_once_and_only_after_length_minus_one(
    length: int, start: tuple[int, int], results: list[tuple[int, int]]
) -> None:
    s = MatchState.new(length, scores=(min(start[0], length - 1), min(start[1], length - 1)))
    crawford_games = 0
    seen_crawford = False
    for winner, points in results:
        if s.is_over:
            break
        flags = s.start_game()
        # Independent statement of the rule: exactly one side at length-1 and no Crawford
        # game before it in this match.
        at = [x == length - 1 for x in s.scores]
        assert flags.crawford == (length > 1 and at[0] != at[1] and not seen_crawford)
        assert not (flags.crawford and flags.post_crawford)
        if seen_crawford:
            assert flags.post_crawford
        crawford_games += flags.crawford
        seen_crawford = seen_crawford or flags.crawford
        s = s.finish_game(winner, points)
    assert crawford_games <= 1
    if length == 1:
        assert crawford_games == 0
