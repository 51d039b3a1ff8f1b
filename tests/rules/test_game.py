"""Every judgement of the rules' `Game` on its own, without a reader or a replay: cube offers,
takes, drops, beavers and raccoons, Crawford and post-Crawford, the Holland rule, dead cubes,
the cube limit, turns and dice, results and their values (gammons, backgammons, Jacoby,
resignations), `Wins` lines and the score lines of a match (RULES.md §3-§5)."""

from __future__ import annotations

import pytest

from bgparse.rules import MatchState, Position, RuleSet
from bgparse.rules.game import Game, Verdict
from bgparse.rules.ids import decode_match_id

MONEY = RuleSet(beavers=3)
STANDARD = RuleSet()


def reasons(verdicts: tuple[Verdict, ...]) -> list[str]:
    return [v.reason for v in verdicts]


def match_game(
    score: tuple[int, int] = (0, 0), length: int = 7, rules: RuleSet = STANDARD, **flags: bool
) -> Game:
    """A match game with side 1 having rolled last, so side 0 is on roll."""
    game = Game(rules, length, score, **flags)
    assert game.roll(1, (3, 1)) == ()
    return game


def money_game(rules: RuleSet = MONEY) -> Game:
    game = Game(rules, 0)
    assert game.roll(1, (3, 1)) == ()
    return game


def bear_off_last(game: Game, opponent: dict[object, int], side: int = 0) -> None:
    """`side` bears off its last checker (from its 1 point) against `opponent` (as `side`
    counts the points)."""
    pos = Position.from_points({1: 1}, opponent)
    game.set_board(pos.mover, pos.opponent, side)
    res = game.check_play(side, (2, 1), "1/off")
    assert res.ok
    assert game.moved(side, res.after) is True


# --- the cube ----------------------------------------------------------------------------


def test_a_centred_cube_may_be_doubled_and_the_taker_owns_it() -> None:
    game = match_game()
    assert game.may_double(0) and game.double(0) == ()
    assert game.answering(1) and not game.answering(0)
    assert game.take(1) == ()
    assert (game.cube.value, game.cube.owner, game.cube.pending, game.cube.used) == (
        2,
        1,
        None,
        True,
    )


def test_only_the_owner_redoubles_and_the_refusal_carries_the_facts() -> None:
    game = match_game()
    game.double(0)
    game.take(1)
    game.roll(0, (4, 2))
    game.roll(1, (6, 5))
    # Side 0 on roll, but the cube is side 1's.
    assert not game.may_double(0)
    [v] = game.double(0)
    assert (v.reason, v.stands) == ("not-cube-owner", True)
    assert "belongs to side 1" in v.message
    # Taken as recorded: the offer to 4 stands, for the answer that follows.
    assert game.cube.pending is not None and game.cube.pending.value == 4


def test_only_the_side_on_roll_doubles() -> None:
    game = match_game()
    assert reasons(game.double(1)) == ["not-on-roll"]


def test_the_written_cube_value_must_be_twice_the_cube() -> None:
    game = match_game()
    [v] = game.double(0, value=4)
    assert (v.reason, v.expected, v.written) == ("wrong-value", 2, 4)


def test_answers_without_an_offer_change_nothing() -> None:
    game = match_game()
    for answer in (game.take, game.drop):
        [v] = answer(1)
        assert (v.reason, v.stands) == ("no-pending-double", False)
    assert game.cube.value == 1 and not game.over
    game.double(0)
    [v] = game.take(0)
    assert v.reason == "wrong-side" and "its own double" in v.message


def test_a_drop_ends_the_game_for_the_cube_before_the_double() -> None:
    game = match_game()
    game.double(0)
    game.take(1)
    game.roll(0, (4, 2))
    assert game.double(1) == ()
    assert game.drop(0) == ()
    assert (game.over, game.winner, game.end, game.result, game.points) == (
        True,
        1,
        "drop",
        None,
        2,
    )
    assert game.score_after() == (0, 2)
    # Nothing happens after the end.
    for verdicts in (game.double(0), game.take(0), game.drop(0), game.beaver(0)):
        assert [(v.reason, v.stands) for v in verdicts] == [("game-over", False)]
    # The Match ID left at the end: the score after the game, the cube before the refused
    # redouble (owned by side 1, who took it), the game over by a drop decided by side 0.
    ended = decode_match_id(game.match_id_after())
    assert (ended.match_length, ended.score, ended.cube, ended.game_state) == (7, (0, 2), 2, 4)
    assert (ended.cube_owner, ended.on_roll) == (1, 0)


def test_a_double_left_unanswered_at_the_next_roll_is_a_breach_taken_as_a_take() -> None:
    game = match_game()
    game.double(0)
    [v] = game.before_roll()
    assert v.reason == "double-unanswered"
    assert (game.cube.value, game.cube.owner, game.cube.pending) == (2, 1, None)


# --- beavers and raccoons ----------------------------------------------------------------


def test_beaver_and_raccoon_in_money_play_the_last_redoubler_keeps_the_cube() -> None:
    game = money_game()
    game.double(0)
    assert game.may_beaver(1)
    assert game.beaver(1, value=4) == ()
    assert game.cube.value == 2 and game.cube.pending and game.cube.pending.value == 4
    assert game.answering(0) and game.beaver(0) == ()  # the raccoon
    # No 'Takes' follows a beaver in a record: the next roll takes it.
    assert game.before_roll() == ()
    assert (game.cube.value, game.cube.owner, game.cube.pending) == (8, 0, None)


def test_a_beaver_value_is_checked_against_the_cube_it_makes() -> None:
    game = money_game()
    game.double(0)
    [v] = game.beaver(1, value=8)
    assert (v.reason, v.expected, v.written) == ("wrong-value", 4, 8)


@pytest.mark.parametrize(
    ("rules", "length", "second", "reason"),
    [
        (MONEY, 7, False, "beaver-in-match"),
        (RuleSet(), 0, False, "beaver-not-allowed"),
        (RuleSet(beavers=3, raccoons=False), 0, True, "beaver-not-allowed"),
        (RuleSet(beavers=1), 0, True, "beaver-not-allowed"),
        (RuleSet(beavers=3, cube_limit=4), 0, True, "beyond-cube-limit"),
    ],
    ids=["in-a-match", "none-allowed", "no-raccoons", "limit-of-one", "cube-limit"],
)
def test_beavers_the_rules_forbid(rules: RuleSet, length: int, second: bool, reason: str) -> None:
    game = Game(rules, length)
    game.roll(1, (3, 1))
    game.double(0)
    if second:
        assert game.beaver(1) == ()
    answerer = 0 if second else 1
    assert not game.may_beaver(answerer)
    [v] = game.beaver(answerer)
    # A beaver the rules forbid is still applied as recorded.
    assert (v.reason, v.stands) == (reason, True)
    assert game.cube.pending is not None and game.cube.pending.doubler == answerer


def test_a_beaver_with_nothing_to_answer_changes_nothing() -> None:
    game = money_game()
    [v] = game.beaver(1)
    assert (v.reason, v.stands) == ("no-pending-double", False)
    assert game.cube.value == 1 and game.cube.pending is None


# --- Crawford, post-Crawford, Holland, dead cube, cube limit ------------------------------


def test_crawford_game_then_post_crawford_from_the_match_state() -> None:
    match = MatchState.new(5, RuleSet()).finish_game(0, 4)
    crawford = Game.next_of(match, RuleSet())
    assert (crawford.score, crawford.crawford, crawford.post_crawford) == ((4, 0), True, False)
    crawford.roll(1, (3, 1))
    assert not crawford.may_double(0)
    [v] = crawford.double(0)
    assert (v.reason, v.stands) == ("crawford-game", True)
    after = Game.next_of(match.finish_game(1, 1), RuleSet())
    assert (after.score, after.crawford, after.post_crawford) == ((4, 1), False, True)
    after.roll(0, (3, 1))
    assert after.may_double(1) and after.double(1) == ()


def test_no_crawford_game_without_the_rule() -> None:
    rules = RuleSet(crawford=False)
    game = Game.next_of(MatchState.new(5, rules).finish_game(0, 4), rules)
    assert not game.crawford and not game.post_crawford
    game.roll(1, (3, 1))
    assert game.double(0) == ()


def test_holland_rule_the_trailer_waits_until_both_have_rolled_twice() -> None:
    game = match_game((4, 1), length=5, rules=RuleSet(holland=True), post_crawford=True)
    assert game.may_double(0)  # the leader is not held back
    game.roll(0, (5, 2))
    assert game.rolls == [1, 1]
    assert not game.may_double(1)
    assert reasons(game.double(1)) == ["holland"]
    game = match_game((4, 1), length=5, rules=RuleSet(holland=True), post_crawford=True)
    for side in (0, 1, 0):
        game.roll(side, (5, 2))
    assert game.rolls == [2, 2] and game.may_double(1)


def test_a_dead_cube_is_legal_and_noted_when_taken() -> None:
    # At 2-2 of 5 both need 3: a cube of 4, taken, is worth more than either side needs.
    game = match_game((2, 2), length=5)
    assert game.may_double(0) and game.double(0) == () and game.take(1) == ()  # a cube of 2
    game.roll(0, (2, 1))
    assert game.may_double(1) and game.double(1) == ()
    [v] = game.take(0)
    assert (v.reason, v.expected, v.stands) == ("dead-cube-taken", 4, True)
    assert v.message == (
        "a cube of 4 is dead: worth more than either side needs at 2-2 (3-away, 3-away) "
        "in a 5-point match"
    )
    assert game.cube.value == 4 and game.cube.owner == 0
    # A double dropped makes no dead cube, and a cube of 4 decides the match: no redouble.
    dropped = match_game((2, 2), length=5)
    dropped.set_cube(2, 0)
    assert dropped.double(0) == () and dropped.drop(1) == ()
    game.roll(1, (2, 1))
    assert not game.may_double(0)


def test_the_dead_cube_policy_refuses_a_double_of_a_cube_that_decides_the_match() -> None:
    forbid = match_game((2, 2), length=5, rules=RuleSet(dead_cube="forbid"))
    forbid.set_cube(2, 0)
    assert forbid.double(0) == ()  # 2 -> 4 at 3-away 3-away: 4 covers what both need
    forbid = match_game((2, 2), length=5, rules=RuleSet(dead_cube="forbid"))
    forbid.set_cube(4, 0)
    assert reasons(forbid.double(0)) == ["dead-cube"]


def test_the_cube_limit() -> None:
    game = money_game(RuleSet(cube_limit=2))
    assert game.double(0) == () and game.take(1) == ()
    game.roll(0, (2, 1))
    assert not game.may_double(1)
    [v] = game.double(1)
    assert v.reason == "beyond-cube-limit" and "limit of 2" in v.message
    cubeless = money_game(RuleSet(cube_limit=1))
    assert not cubeless.may_double(0) and reasons(cubeless.double(0)) == ["cube-disabled"]


# --- turns and dice ----------------------------------------------------------------------


def test_turns_alternate_and_dice_show_one_to_six() -> None:
    game = Game(RuleSet(), 7)
    assert game.turn_order(0) == () and game.roll(0, (3, 1)) == ()
    [v] = game.turn_order(0)
    assert v.reason == "turn-order" and "side 0 twice in a row" in v.message
    [v] = game.roll(1, (7, 2))
    assert v.reason == "dice-invalid"
    assert game.rolls == [1, 1] and game.last_roller == 1


def test_the_opening_roll_is_never_a_double_in_the_standard_game() -> None:
    assert reasons(Game(RuleSet(), 7).roll(0, (4, 4))) == ["opening-double"]
    assert Game(RuleSet(variant="hypergammon3"), 7).roll(0, (4, 4)) == ()
    game = Game(RuleSet(), 7)
    game.roll(0, (4, 2))
    assert game.roll(1, (4, 4)) == ()


def test_the_board_is_kept_from_the_view_asked_for() -> None:
    game = Game(RuleSet(), 7)
    start = game.board(0)
    res = game.check_play(0, (3, 1), "8/5 6/5")
    assert res.ok and game.moved(0, res.after) is False
    assert game.side == 1 and game.board(1) == res.after
    assert game.board(0) == res.after.swap() != start
    copy = game.copy()
    copy.passed(0)
    assert copy.side == 1 and game.side == 0


# --- results and their values ------------------------------------------------------------


@pytest.mark.parametrize(
    ("opponent", "rules", "result", "points"),
    [
        ({19: 14}, RuleSet(), "single", 2),
        ({19: 15}, RuleSet(), "gammon", 4),
        ({19: 14, 3: 1}, RuleSet(), "backgammon", 6),
        ({19: 14, "bar": 1}, RuleSet(), "backgammon", 6),
        ({19: 13, "bar": 1}, RuleSet(), "single", 2),  # borne off one: never more than single
        ({19: 14, 3: 1}, RuleSet(backgammon_value=2), "backgammon", 4),
    ],
    ids=["single", "gammon", "backgammon", "backgammon-bar", "single-bar", "bg-as-gammon"],
)
def test_bearing_off_the_last_checker_wins_by_the_losers_board(
    opponent: dict[object, int], rules: RuleSet, result: str, points: int
) -> None:
    game = Game(rules, 7)
    game.set_cube(2, 1)
    bear_off_last(game, opponent)
    assert (game.over, game.winner, game.end, game.result, game.points) == (
        True,
        0,
        "normal",
        result,
        points,
    )
    assert not game.jacoby_applied


@pytest.mark.parametrize(
    ("rules", "length", "turned", "points", "applied"),
    [
        (RuleSet(jacoby=True), 0, False, 1, True),
        (RuleSet(jacoby=True), 0, True, 4, False),
        (RuleSet(jacoby=True), 7, False, 2, False),  # never in a match
        (RuleSet(), 0, False, 2, False),
    ],
    ids=["money-centred", "money-turned", "match", "rule-off"],
)
def test_jacoby_scores_an_unturned_money_gammon_as_a_single(
    rules: RuleSet, length: int, turned: bool, points: int, applied: bool
) -> None:
    game = Game(rules, length)
    if turned:
        game.set_cube(2, 1)
    bear_off_last(game, {19: 15})
    assert (game.result, game.points, game.jacoby_applied) == ("gammon", points, applied)


def test_resignation_values_are_those_of_the_finished_game() -> None:
    game = Game(RuleSet(), 7)
    game.set_cube(2, 0)
    assert [game.resignation_value(k) for k in (1, 2, 3)] == [2, 4, 6]
    jacoby = Game(RuleSet(jacoby=True), 0)
    assert [jacoby.resignation_value(k) for k in (1, 2, 3)] == [1, 1, 1]
    void = Game(RuleSet(crawford_double="void"), 7, (6, 0), crawford=True)
    void.set_cube(2, 1)
    assert void.resignation_value(2) == 2  # a Crawford game's double is void: cube 1


def test_a_resignation_ends_the_game_at_its_level() -> None:
    game = Game(RuleSet(), 7, (1, 3))
    game.offer_resignation(1, 2)
    assert game.level_offered_to(0) == 2 and game.level_offered_to(1) is None
    verdict = game.judge_points(2, 0)
    assert (verdict.code, verdict.level) == ("consistent", 2)
    game.resigned(0, 2, 2)
    assert (game.end, game.result, game.resign_level, game.score_after()) == (
        "resign",
        "gammon",
        2,
        (3, 3),
    )


def test_a_crawford_drop_scores_one_where_its_double_is_void() -> None:
    game = match_game((6, 2), rules=RuleSet(crawford_double="void"), crawford=True)
    game.double(0)
    assert game.drop(1) == ()
    assert (game.points, game.winner) == (1, 0)


# --- 'Wins' lines and score lines --------------------------------------------------------


def test_wins_lines_judged_against_how_the_game_ended() -> None:
    game = Game(RuleSet(), 7)
    bear_off_last(game, {19: 15})
    assert game.judge_points(2, 0).code == "consistent"
    wrong = game.judge_points(3, 0)
    assert (wrong.code, wrong.expected) == ("inconsistent", 2)
    # The game that ends the match: a gammon capped at the one point the winner needed.
    last = Game(RuleSet(), 7, (6, 2))
    bear_off_last(last, {19: 15})
    assert last.judge_points(1, 0).code == "capped"
    # An unfinished game: 'Wins' as a resignation, its level read from the points.
    open_game = Game(RuleSet(), 7)
    assert (open_game.judge_points(2, 1).code, open_game.judge_points(2, 1).level) == (
        "resignation",
        2,
    )


def test_wins_after_a_drop_is_the_cube_before_the_double() -> None:
    game = match_game()
    game.double(0)
    game.drop(1)
    assert game.judge_points(1, 0).code == "consistent"
    assert game.judge_points(2, 0).code == "inconsistent"


def test_away_and_needed() -> None:
    game = Game(RuleSet(), 7, (3, 5))
    assert (game.away(0), game.away(1), game.needed(1)) == ((4, 2), (2, 4), 2)
    assert Game(RuleSet(), 0).away(0) is None and Game(RuleSet(), 0).needed(0) is None
    assert Game(RuleSet(), 3, (4, 0)).needed(0) == 0


def test_a_match_is_the_score_lines_of_its_games_until_one_side_reaches_the_length() -> None:
    rules = RuleSet()
    match = MatchState.new(3, rules)
    first = Game.next_of(match, rules)
    bear_off_last(first, {19: 15}, side=1)  # a gammon: 0-2
    match = match.finish_game(1, first.points)
    assert match.scores == first.score_after() == (0, 2)
    second = Game.next_of(match, rules)
    assert second.crawford  # 1 away: the Crawford game
    second.resigned(1, 1, second.resignation_value(1))
    match = match.finish_game(1, second.points)
    assert (match.scores, match.is_over, match.winner) == ((0, 3), True, 1)
