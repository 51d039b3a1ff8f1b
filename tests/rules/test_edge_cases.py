"""The edge cases of RULES.md §7 and rules-engines.md §4, each with its exact legal set.

Expected results are built with `Position.apply` (physical moves only, no rules), so they do not
depend on the generator under test. Plays are written as single-die steps.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bgparse.rules import Position, legal_plays, verify_play

Steps = Sequence[tuple[int, int]]


def results(pos: Position, dice: tuple[int, int]) -> set[Position]:
    return {play.after for play in legal_plays(pos, dice)}


def expect(pos: Position, *plays: Steps) -> set[Position]:
    return {pos.apply(steps) for steps in plays}


def assert_legal_set(pos: Position, dice: tuple[int, int], *plays: Steps) -> None:
    got = results(pos, dice)
    want = expect(pos, *plays)
    assert got == want, (
        f"{dice}: extra {sorted(map(repr, got - want))}, missing {sorted(map(repr, want - got))}"
    )
    assert len(legal_plays(pos, dice)) == len(want)


def assert_illegal(pos: Position, dice: tuple[int, int], text: str, reason: str) -> None:
    check = verify_play(pos, dice, text)
    assert not check.ok, f"{text!r} with {dice} accepted"
    assert check.reason == reason, (check.reason, check.message)


def assert_ok(pos: Position, dice: tuple[int, int], text: str, *steps: tuple[int, int]) -> None:
    check = verify_play(pos, dice, text)
    assert check.ok, (text, check.reason, check.message)
    assert check.after == pos.apply(steps)


# 1. wildbg issue #29: a play using one die that leaves the other unplayable is illegal.
POS_1 = Position.from_points({6: 13, 8: 1, 24: 1}, {4: 2, 16: 2, 18: 3, 19: 4, 20: 4})


def test_01_both_dice_must_be_played() -> None:
    assert_legal_set(POS_1, (6, 2), [(24, 22), (8, 2)])
    assert_ok(POS_1, (6, 2), "24/22 8/2", (24, 22), (8, 2))
    assert_illegal(POS_1, (6, 2), "8/2", "fewer-dice-than-possible")
    assert_illegal(POS_1, (6, 2), "8/6", "fewer-dice-than-possible")


# 2. Only the smaller die first lets both dice play.
POS_2 = Position.from_points({20: 1}, {16: 3})


def test_02_smaller_die_first() -> None:
    assert_legal_set(POS_2, (4, 3), [(20, 17), (17, 13)])
    assert_ok(POS_2, (4, 3), "20/13", (20, 17), (17, 13))
    assert_ok(POS_2, (4, 3), "20/17 17/13", (20, 17), (17, 13))
    assert_illegal(POS_2, (4, 3), "", "missing-play")
    assert_illegal(POS_2, (4, 3), "20/17", "fewer-dice-than-possible")
    assert_illegal(POS_2, (4, 3), "20/16/13", "blocked-point")


# 3. The higher-die rule, from the bar and on the board.
POS_3A = Position.from_points({"bar": 1}, {20: 2})
POS_3B = Position.from_points({13: 1}, {2: 2})


def test_03_higher_die() -> None:
    assert_legal_set(POS_3A, (3, 2), [(25, 22)])
    assert_illegal(POS_3A, (3, 2), "bar/23", "higher-die-not-played")
    assert_legal_set(POS_3B, (6, 5), [(13, 7)])
    assert_ok(POS_3B, (6, 5), "13/7", (13, 7))
    assert_illegal(POS_3B, (6, 5), "13/8", "higher-die-not-played")


# 4. Only the smaller die can be played.
POS_4 = Position.from_points({7: 2}, {2: 2})


def test_04_only_smaller_die() -> None:
    assert_legal_set(POS_4, (5, 2), [(7, 5)])
    assert_ok(POS_4, (5, 2), "7/5", (7, 5))
    assert_illegal(POS_4, (5, 2), "7/2", "blocked-point")


# 5. Doubles: play as many of the four as possible.
POS_5 = Position.from_points(
    {"bar": 1, 15: 1, 10: 1, 4: 1}, {22: 2, 20: 2, 17: 3, 11: 2, 6: 1, 2: 2}
)


def test_05_partial_doubles() -> None:
    assert_legal_set(POS_5, (4, 4), [(25, 21), (10, 6)])
    (play,) = legal_plays(POS_5, (4, 4))
    assert play.notation == "bar/21 10/6*"
    assert play.after.mover[25] == 1  # the blot on 6 went to the bar
    assert_illegal(POS_5, (4, 4), "bar/21", "fewer-dice-than-possible")
    assert_illegal(POS_5, (4, 4), "bar/21 10/6* 6/2", "blocked-point")


# 6. Two on the bar: nothing else moves until both are in.
POS_6 = Position.from_points({"bar": 2, 10: 2}, {22: 2})


def test_06_two_on_the_bar() -> None:
    assert_legal_set(POS_6, (5, 3), [(25, 20)])
    assert_illegal(POS_6, (5, 3), "bar/20 10/7", "bar-not-cleared")
    # With both entry points open both dice must enter.
    open_board = Position.from_points({"bar": 2, 10: 2}, {})
    assert_legal_set(open_board, (5, 3), [(25, 20), (25, 22)])
    assert_illegal(open_board, (5, 3), "bar/20 20/17", "bar-not-cleared")


# 7. Doubles from the bar.
def test_07_doubles_from_the_bar() -> None:
    four = Position.from_points({"bar": 4}, {22: 2, 20: 2})
    assert_legal_set(four, (4, 4), [(25, 21)] * 4)
    assert_ok(four, (4, 4), "bar/21(4)", *[(25, 21)] * 4)
    three = Position.from_points({"bar": 3, 10: 1}, {22: 2, 20: 2})
    assert_legal_set(
        three,
        (4, 4),
        [(25, 21), (25, 21), (25, 21), (21, 17)],
        [(25, 21), (25, 21), (25, 21), (10, 6)],
    )
    blocked = Position.from_points({"bar": 3, 10: 1}, {21: 2})
    assert_legal_set(blocked, (4, 4), [])


# 8. A closed board: no play at all, for every roll.
POS_8 = Position.from_points(
    {"bar": 1, 6: 5, 8: 3, 13: 5}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}
)


@pytest.mark.parametrize("dice", [(a, b) for a in range(1, 7) for b in range(1, a + 1)])
def test_08_closed_board(dice: tuple[int, int]) -> None:
    plays = legal_plays(POS_8, dice)
    assert len(plays) == 1
    (play,) = plays
    assert play.steps == () and play.after == POS_8.swap() and play.notation == ""
    assert verify_play(POS_8, dice, "").ok
    assert_illegal(POS_8, dice, f"13/{13 - dice[0]}", "bar-not-cleared")


# 9. Bear-off with a die larger than the highest point.
POS_9 = Position.from_points({4: 1, 2: 4}, {24: 1, 1: 1})


def test_09_bear_off_high_die() -> None:
    assert_legal_set(POS_9, (6, 4), [(4, 0), (2, 0)])
    assert_ok(POS_9, (6, 4), "4/off 2/off", (4, 0), (2, 0))
    # The written order does not bind: 2/off first only works after 4/off.
    assert_ok(POS_9, (6, 4), "2/off 4/off", (4, 0), (2, 0))


# 10. Overshoot only from the highest occupied point.
POS_10 = Position.from_points({6: 1, 3: 1}, {})


def test_10_overshoot_only_from_highest() -> None:
    assert_legal_set(POS_10, (5, 4), [(6, 1), (3, 0)], [(6, 2), (3, 0)])
    assert_illegal(POS_10, (5, 4), "6/2/off", "bear-off-not-highest")
    assert_ok(POS_10, (5, 4), "3/off 6/1", (6, 1), (3, 0))
    assert_ok(POS_10, (5, 4), "6/1 3/off", (6, 1), (3, 0))


# 11. Hit during the bear-off: no bearing off until the checker is home again.
POS_11 = Position.from_points({"bar": 1, 6: 2, 5: 2}, {19: 2, 20: 2})


def test_11_hit_during_bear_off() -> None:
    assert POS_11.off() == (10, 11)
    assert_legal_set(POS_11, (6, 4), [(25, 21), (21, 15)])
    assert_ok(POS_11, (6, 4), "bar/21/15", (25, 21), (21, 15))
    assert_ok(POS_11, (6, 4), "bar/15", (25, 21), (21, 15))
    assert_illegal(POS_11, (6, 4), "bar/21 6/off", "bear-off-not-home")


# 12. A combined move may not land on a blocked intermediate point.
def test_12_blocked_intermediate() -> None:
    one_block = Position.from_points({13: 1}, {10: 2})
    assert_legal_set(one_block, (6, 3), [(13, 7), (7, 4)])
    assert_ok(one_block, (6, 3), "13/4", (13, 7), (7, 4))
    both = Position.from_points({13: 1}, {10: 2, 7: 2})
    assert_legal_set(both, (6, 3), [])
    assert_illegal(both, (6, 3), "13/4", "blocked-point")
    assert verify_play(both, (6, 3), "").ok


# 13. A blot on the intermediate point: two plays, told apart by the hit.
POS_13 = Position.from_points({13: 1}, {10: 1})


def test_13_intermediate_blot() -> None:
    assert_legal_set(POS_13, (6, 3), [(13, 7), (7, 4)], [(13, 10), (10, 4)])
    no_hit = POS_13.apply([(13, 7), (7, 4)])
    hit = POS_13.apply([(13, 10), (10, 4)])
    assert no_hit != hit and hit.mover[25] == 1
    check = verify_play(POS_13, (6, 3), "13/4")
    assert check.ok and check.after == no_hit and not check.ambiguous
    check = verify_play(POS_13, (6, 3), "13/10*/4")
    assert check.ok and check.after == hit
    assert {play.notation for play in legal_plays(POS_13, (6, 3))} == {"13/4", "13/10*/4"}


# 14. Hit, then bear off with the same checker, and the game is won.
POS_14 = Position.from_points({4: 1, 1: 2}, {2: 1, 24: 2})


def test_14_hit_then_bear_off() -> None:
    steps = [(4, 2), (2, 0), (1, 0), (1, 0)]
    assert_legal_set(POS_14, (2, 2), steps)
    (play,) = legal_plays(POS_14, (2, 2))
    assert play.after.off()[1] == 15  # the mover (now not on roll) has borne off everything
    assert play.after.mover[25] == 1  # and the hit checker is on the bar
    assert play.notation == "4/2*/off 1/off(2)"
    assert_ok(POS_14, (2, 2), "4/2*/off 1/off(2)", *steps)


# 15. Bearing off is never compulsory.
POS_15 = Position.from_points({6: 2, 3: 1}, {})


def test_15_no_duty_to_bear_off() -> None:
    assert_legal_set(
        POS_15,
        (3, 1),
        [(6, 3), (6, 5)],
        [(6, 3), (3, 2)],
        [(3, 0), (6, 5)],
    )
    # 6/5/2 and 3/2 6/3 reach the same position as 6/3/2: one play.
    assert expect(POS_15, [(6, 5), (5, 2)]) == expect(POS_15, [(3, 2), (6, 3)])


# rules-engines.md §4.15: the game ends when the last checker is off, dice left or not.
def test_game_ends_mid_turn() -> None:
    pos = Position.from_points({2: 1, 1: 1}, {24: 2})
    assert_legal_set(pos, (6, 6), [(2, 0), (1, 0)])
    (play,) = legal_plays(pos, (6, 6))
    assert play.dice_used == 2 and play.after.is_game_over()
    assert_ok(pos, (6, 6), "2/off 1/off", (2, 0), (1, 0))
    last = Position.from_points({5: 1}, {24: 2})
    assert_legal_set(last, (6, 1), [(5, 0)])
    assert_ok(last, (6, 1), "5/off", (5, 0))


# rules-engines.md §4.17: different routes to the same position are one play.
def test_same_position_by_different_routes() -> None:
    pos = Position.from_points({24: 1}, {})
    assert_legal_set(pos, (6, 5), [(24, 18), (18, 13)])
    assert_ok(pos, (6, 5), "24/13", (24, 19), (19, 13))
    assert_ok(pos, (6, 5), "24/19 19/13", (24, 19), (19, 13))


# rules-engines.md §2.6: gym-backgammon misses plays that mix a hit, home moves and bear-off.
def test_doubles_mixing_hit_and_bear_off() -> None:
    pos = Position.from_position_id("2bYCNBB/NgAAAA")
    assert pos.mover[1:5] == (7, 0, 2, 2) and pos.opponent[25 - 2] == 1
    want = pos.apply([(4, 2), (4, 2), (3, 1), (2, 0)])
    assert want in legal_plays(pos, (2, 2))
    assert verify_play(pos, (2, 2), "4/2*(2) 3/1 2/off").ok
