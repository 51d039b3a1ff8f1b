"""The cube state machine: who may double, takes, drops, beavers, raccoons, limits, dead cubes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bgparse.rules.cube import (
    CENTRED,
    CUBE_ERROR_CODES,
    CubeError,
    CubeState,
    PendingDouble,
    decides_match,
    is_dead_cube,
)
from bgparse.rules.ruleset import RuleSet

MONEY_BEAVERS = RuleSet(beavers=3)


class _Raises:
    """`with _Raises("code") as r:` checks the CubeError's code and keeps the error."""

    def __init__(self, code: str) -> None:
        assert code in CUBE_ERROR_CODES
        self.code = code
        self.error: CubeError | None = None

    def __enter__(self) -> _Raises:
        return self

    def __exit__(self, kind: object, value: object, tb: object) -> bool:
        assert isinstance(value, CubeError), f"expected CubeError {self.code}, got {value!r}"
        assert value.code == self.code, value.message
        self.error = value
        return True


# ------------------------------------------------------------------ plain doubles


def test_new_game_cube() -> None:
    c = CubeState.new_game()
    assert (c.value, c.owner, c.pending, c.used, c.enabled) == (1, CENTRED, None, False, True)
    assert not CubeState.new_game(RuleSet(cube=False)).enabled
    assert not CubeState.new_game(RuleSet(cube_limit=1)).enabled


def test_double_take_then_redouble_by_owner() -> None:
    c = CubeState.new_game().offer(0)
    assert c.pending == PendingDouble(0, 2)
    assert (c.value, c.owner, c.answerer) == (1, CENTRED, 1)
    c = c.take(1)
    assert (c.value, c.owner, c.pending, c.used) == (2, 1, None, True)
    c = c.offer(1).take(0)
    assert (c.value, c.owner) == (4, 0)


def test_drop_wins_the_value_before_the_double() -> None:
    assert CubeState.new_game().offer(0).drop(1) == 1
    c = CubeState.new_game().offer(0).take(1).offer(1).take(0).offer(0)
    assert c.pending == PendingDouble(0, 8)
    assert c.drop(1) == 4


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"on_roll": False}, "not-on-roll"),
        ({"rolled": True}, "after-roll"),
        ({"game_over": True}, "game-over"),
        ({"crawford_game": True, "length": 7, "scores": (6, 3)}, "crawford-game"),
        ({"rules": RuleSet(cube=False)}, "cube-disabled"),
        ({"rules": RuleSet(cube_limit=1)}, "cube-disabled"),
    ],
)
def test_refused_first_doubles(kwargs: dict[str, Any], code: str) -> None:
    with _Raises(code) as r:
        CubeState.new_game().offer(0, **kwargs)
    assert r.error is not None
    if code == "game-over":
        assert r.error.recorded is None
    else:
        # The replay continues from the double as recorded.
        assert r.error.recorded == CubeState(pending=PendingDouble(0, 2))


def test_crawford_double_is_reported_before_not_on_roll() -> None:
    with _Raises("crawford-game"):
        CubeState().offer(1, on_roll=False, crawford_game=True, length=5, scores=(4, 2))


def test_crawford_flag_means_nothing_in_money_play() -> None:
    assert CubeState().offer(0, crawford_game=True, length=0).pending == PendingDouble(0, 2)


def test_post_crawford_double_is_allowed() -> None:
    c = CubeState().offer(1, length=7, scores=(6, 3), post_crawford=True)
    assert c.pending == PendingDouble(1, 2)


def test_only_the_owner_may_redouble() -> None:
    c = CubeState.new_game().offer(0).take(1)
    with _Raises("not-cube-owner") as r:
        c.offer(0)
    assert r.error is not None and r.error.recorded is not None
    assert r.error.recorded.pending == PendingDouble(0, 4)
    assert "belongs to side 1" in r.error.message


def test_double_while_own_double_pending() -> None:
    with _Raises("double-pending") as r:
        CubeState().offer(0).offer(0)
    assert r.error is not None and r.error.recorded is None


@pytest.mark.parametrize(
    ("limit", "value", "ok"),
    [(64, 32, True), (64, 64, False), (1024, 512, True), (1024, 1024, False), (None, 4096, True)],
)
def test_cube_limit(limit: int | None, value: int, ok: bool) -> None:
    c = CubeState(value=value, owner=0)
    rules = RuleSet(cube_limit=limit)
    if ok:
        assert c.offer(0, rules=rules).pending == PendingDouble(0, 2 * value)
    else:
        with _Raises("beyond-cube-limit") as r:
            c.offer(0, rules=rules)
        assert r.error is not None and f"passes the cube limit of {limit}" in r.error.message


def test_take_and_drop_without_a_double() -> None:
    with _Raises("no-pending-double") as r:
        CubeState().take(1)
    assert r.error is not None and r.error.recorded is None
    with _Raises("no-pending-double"):
        CubeState().drop(1)


def test_doubler_cannot_answer_his_own_double() -> None:
    c = CubeState().offer(0)
    with _Raises("wrong-side"):
        c.take(0)
    with _Raises("wrong-side"):
        c.drop(0)
    with _Raises("wrong-side"):
        c.beaver(0, rules=MONEY_BEAVERS)


def test_roll_with_a_double_unanswered() -> None:
    c = CubeState().offer(0)
    with _Raises("double-pending") as r:
        c.before_roll()
    assert r.error is not None
    assert r.error.recorded == CubeState(value=2, owner=1, used=True)
    assert CubeState(value=2, owner=1).before_roll() == CubeState(value=2, owner=1)


# ------------------------------------------------------------------------- Holland


def test_holland_rule_stops_the_trailer_early_post_crawford() -> None:
    rules = RuleSet(holland=True)
    ctx: dict[str, Any] = {
        "rules": rules,
        "length": 7,
        "scores": (6, 3),
        "post_crawford": True,
    }
    with _Raises("holland"):
        CubeState().offer(1, rolls=(2, 1), **ctx)
    assert CubeState().offer(1, rolls=(2, 2), **ctx).pending == PendingDouble(1, 2)
    # The leader is not restricted; without the option nobody is.
    assert CubeState().offer(0, rolls=(0, 0), **ctx).pending == PendingDouble(0, 2)
    plain = CubeState().offer(1, rolls=(1, 1), length=7, scores=(6, 3), post_crawford=True)
    assert plain.pending == PendingDouble(1, 2)
    # Holland applies only post-Crawford.
    early = CubeState().offer(1, rolls=(0, 0), rules=rules, length=7, scores=(4, 3))
    assert early.pending == PendingDouble(1, 2)


# ------------------------------------------------------------------ beavers, raccoons


def test_beaver_then_implied_take_beaverer_keeps_the_cube() -> None:
    # GNU record g7015 game 7: Doubles => 2, Beavers => 4, the doubler rolls; later the
    # beaverer doubles to 8 and the drop gives him 4.
    c = CubeState().offer(0).beaver(1, rules=MONEY_BEAVERS)
    assert (c.value, c.owner, c.pending, c.beavers, c.used) == (2, 1, PendingDouble(1, 4), 1, True)
    c = c.before_roll()
    assert (c.value, c.owner, c.pending, c.beavers) == (4, 1, None, 0)
    c = c.offer(1)
    assert c.pending == PendingDouble(1, 8)
    assert c.drop(0) == 4


def test_drop_after_beaver_loses_the_value_before_the_redouble() -> None:
    c = CubeState().offer(0).beaver(1, rules=MONEY_BEAVERS)
    assert c.drop(0) == 2


def test_three_redoubles_then_take() -> None:
    # GNU record g7015 game 2: Doubles => 2, Beavers => 4, Beavers => 8, Beavers => 16,
    # the first doubler rolls; final cube 16 owned by the right-hand side.
    c = CubeState().offer(0)
    c = c.beaver(1, rules=MONEY_BEAVERS)
    c = c.raccoon(0, rules=MONEY_BEAVERS)
    assert (c.value, c.owner, c.pending, c.beavers) == (4, 0, PendingDouble(0, 8), 2)
    c = c.beaver(1, rules=MONEY_BEAVERS)
    assert c.pending == PendingDouble(1, 16)
    with _Raises("beaver-not-allowed") as r:
        c.beaver(0, rules=MONEY_BEAVERS)
    assert r.error is not None and "3 beavers and raccoons" in r.error.message
    c = c.take(0)
    assert (c.value, c.owner) == (16, 1)


def test_drop_after_raccoon() -> None:
    c = CubeState().offer(0).beaver(1, rules=MONEY_BEAVERS).raccoon(0, rules=MONEY_BEAVERS)
    assert c.drop(1) == 4


def test_raccoon_taken_raccooner_keeps_the_cube() -> None:
    c = CubeState().offer(0).beaver(1, rules=MONEY_BEAVERS).raccoon(0, rules=MONEY_BEAVERS)
    assert c.take(1) == CubeState(value=8, owner=0, used=True)


def test_sgf_double_by_the_doubled_side_is_a_beaver() -> None:
    c = CubeState().offer(0).offer(1, rules=MONEY_BEAVERS)
    assert (c.value, c.owner, c.pending, c.beavers) == (2, 1, PendingDouble(1, 4), 1)


@pytest.mark.parametrize(
    ("rules", "length", "code"),
    [
        (RuleSet(), 0, "beaver-not-allowed"),
        (RuleSet(beavers=3), 7, "beaver-in-match"),
    ],
)
def test_beaver_refused(rules: RuleSet, length: int, code: str) -> None:
    with _Raises(code) as r:
        CubeState().offer(0).beaver(1, rules=rules, length=length)
    assert r.error is not None
    assert r.error.recorded == CubeState(
        value=2, owner=1, pending=PendingDouble(1, 4), beavers=1, used=True
    )


def test_beaver_limit_one_allows_no_raccoon() -> None:
    rules = RuleSet(beavers=1)
    c = CubeState().offer(0).beaver(1, rules=rules)
    with _Raises("beaver-not-allowed"):
        c.raccoon(0, rules=rules)


def test_raccoons_off() -> None:
    rules = RuleSet(beavers=3, raccoons=False)
    c = CubeState().offer(0).beaver(1, rules=rules)
    with _Raises("beaver-not-allowed") as r:
        c.raccoon(0, rules=rules)
    assert r.error is not None and "no raccoons" in r.error.message


def test_beaver_with_nothing_to_beaver() -> None:
    with _Raises("no-pending-double"):
        CubeState().beaver(1, rules=MONEY_BEAVERS)


def test_beaver_cube_limit_boundary() -> None:
    rules = RuleSet(beavers=3, cube_limit=64)
    ok = CubeState(value=8, owner=0).offer(0, rules=rules).beaver(1, rules=rules)
    assert ok.pending == PendingDouble(1, 32)
    with _Raises("beyond-cube-limit"):
        CubeState(value=32, owner=0).offer(0, rules=rules).beaver(1, rules=rules)


# ---------------------------------------------------------------- automatic doubles


def test_automatic_double_keeps_the_cube_centred_and_unturned() -> None:
    rules = RuleSet(automatic_doubles=1)
    c = CubeState().automatic_double(rules=rules)
    assert (c.value, c.owner, c.used, c.automatic) == (2, CENTRED, False, 1)
    with _Raises("auto-double-not-allowed"):
        c.automatic_double(rules=rules)
    with _Raises("auto-double-not-allowed"):
        CubeState().automatic_double(rules=rules, length=5)
    with _Raises("auto-double-not-allowed"):
        CubeState().automatic_double()  # the default allows none


# ------------------------------------------------------------------------ scoring cube


def test_scoring_value_for_crawford_double_policies() -> None:
    c = CubeState(value=2, owner=1, used=True)
    assert c.scoring_value(crawford_game=True) == 2
    assert c.scoring_value(crawford_game=True, rules=RuleSet(crawford_double="void")) == 1
    assert c.scoring_value(crawford_game=False, rules=RuleSet(crawford_double="void")) == 2


# --------------------------------------------------------------------------- dead cube


@pytest.mark.parametrize(
    ("value", "scores", "length", "dead"),
    [
        (2, (6, 6), 7, True),  # double match point: any cube is dead
        (1, (6, 6), 7, False),  # ... but 1 is exactly what each needs, not beyond it
        (2, (5, 5), 7, False),  # 2-away all: the cube at 2 is what both need, not beyond
        (4, (5, 5), 7, True),
        (2, (4, 4), 7, False),  # 3-away all: 2 is short of the match
        (4, (4, 4), 7, True),  # ... and 4 is beyond what either side needs (RULES.md §3)
        (4, (6, 6), 9, True),  # GNU's 9-point match at 6-6: the same 3-away 3-away
        (4, (0, 0), 3, True),  # a 3-point match at 0-0
        (4, (6, 2), 7, False),  # the trailer needs 5
        (8, (6, 2), 7, True),
        (16, (0, 0), 25, False),
        (32, (0, 0), 25, True),
        (64, (0, 0), 0, False),  # never in money play
    ],
)
def test_is_dead_cube(value: int, scores: tuple[int, int], length: int, dead: bool) -> None:
    assert is_dead_cube(value, scores, length) is dead


@pytest.mark.parametrize(
    ("value", "scores", "length", "decides"),
    [
        (1, (6, 6), 7, True),  # double match point: a single already decides it
        (2, (5, 5), 7, True),
        (2, (4, 4), 7, False),  # 3-away all: a double to 4 still changes the match
        (4, (4, 4), 7, True),  # ... a double to 8 no more
        (16, (0, 0), 25, False),
        (32, (0, 0), 25, True),
        (1, (0, 0), 0, False),  # never in money play
    ],
)
def test_decides_match(value: int, scores: tuple[int, int], length: int, decides: bool) -> None:
    assert decides_match(value, scores, length) is decides


def test_dead_cube_is_allowed_by_default_and_refused_on_request() -> None:
    ctx: dict[str, Any] = {"length": 7, "scores": (6, 6), "post_crawford": True}
    assert CubeState().offer(0, **ctx).pending == PendingDouble(0, 2)
    with _Raises("dead-cube"):
        CubeState().offer(0, rules=RuleSet(dead_cube="forbid"), **ctx)


# ----------------------------------------------------------------------- properties

ACTIONS = st.lists(
    st.tuples(st.sampled_from(["offer", "take", "drop", "beaver"]), st.integers(0, 1)),
    max_size=30,
)


@given(ACTIONS, st.sampled_from([None, 64, 1024]), st.integers(0, 3))
def test_accepted_actions_keep_the_cube_consistent(
    actions: list[tuple[str, int]], limit: int | None, beavers: int
) -> None:
    rules = RuleSet(beavers=beavers, cube_limit=limit)
    c = CubeState.new_game(rules)
    doublings = 0
    for name, side in actions:
        before = c
        try:
            if name == "offer":
                # By the doubled side while a double is pending this is a beaver.
                c = c.offer(side, rules=rules)
            elif name == "take":
                c = c.take(side)
            elif name == "beaver":
                c = c.beaver(side, rules=rules)
            else:
                points = c.drop(side)
                assert points == c.value
                break
        except CubeError as e:
            assert e.code in CUBE_ERROR_CODES
            continue
        if name == "take" or c.beavers > before.beavers:
            doublings += 1
        # A legal sequence: the value is 2 ** (accepted doublings), within the limit; the
        # cube is owned exactly when it has been turned; beavers never pass the rule set.
        assert c.value == 2**doublings
        assert limit is None or c.value <= limit
        assert (c.owner != CENTRED) == c.used
        assert c.beavers <= beavers
        if c.pending is not None:
            assert c.pending.value == 2 * c.value
            assert limit is None or c.pending.value <= limit
