"""Scoring one game and judging `Wins N points` lines; every expected value worked by hand."""

from __future__ import annotations

from typing import Any

import pytest

from bgparse.rules.ruleset import RuleSet
from bgparse.rules.scoring import (
    EndKind,
    ResultType,
    explain_win_points,
    game_points,
    jacoby_applies,
    resignation_points,
    result_multiplier,
    result_type,
)

STD = RuleSet()
JACOBY = RuleSet(jacoby=True)
NO_BG = RuleSet(backgammon_value=2)


@pytest.mark.parametrize(
    ("off", "in_home_or_bar", "expected"),
    [
        (1, False, "single"),
        (14, False, "single"),
        (1, True, "single"),  # borne off one, checker on the bar: never a backgammon
        (0, False, "gammon"),
        (0, True, "backgammon"),
    ],
)
def test_result_type(off: int, in_home_or_bar: bool, expected: str) -> None:
    assert result_type(off, in_home_or_bar) == expected


def test_result_type_rejects_negative() -> None:
    with pytest.raises(ValueError):
        result_type(-1, False)


@pytest.mark.parametrize(
    ("result", "rules", "multiple"),
    [
        ("single", STD, 1),
        ("gammon", STD, 2),
        ("backgammon", STD, 3),
        ("backgammon", NO_BG, 2),
        ("gammon", NO_BG, 2),
    ],
)
def test_result_multiplier(result: ResultType, rules: RuleSet, multiple: int) -> None:
    assert result_multiplier(result, rules) == multiple


@pytest.mark.parametrize(
    ("result", "cube", "rules", "cube_used", "length", "points"),
    [
        ("single", 1, STD, False, 7, 1),
        ("gammon", 1, STD, False, 7, 2),
        ("backgammon", 4, STD, True, 7, 12),
        ("backgammon", 4, NO_BG, True, 7, 8),
        # Jacoby: money, cube never turned -> single
        ("gammon", 1, JACOBY, False, 0, 1),
        ("backgammon", 1, JACOBY, False, 0, 1),
        # an automatic double leaves the cube centred at 2: still never turned
        ("gammon", 2, JACOBY, False, 0, 2),
        ("backgammon", 2, JACOBY, False, 0, 2),
        # turned cube: gammons count
        ("gammon", 2, JACOBY, True, 0, 4),
        # Jacoby never applies in a match, whatever the rule set says
        ("gammon", 1, JACOBY, False, 5, 2),
        # Jacoby off in money play
        ("gammon", 1, STD, False, 0, 2),
    ],
)
def test_game_points(
    result: ResultType, cube: int, rules: RuleSet, cube_used: bool, length: int, points: int
) -> None:
    assert game_points(result, cube, rules=rules, cube_used=cube_used, length=length) == points


def test_jacoby_applies() -> None:
    assert jacoby_applies(JACOBY, cube_used=False, length=0)
    assert not jacoby_applies(JACOBY, cube_used=True, length=0)
    assert not jacoby_applies(JACOBY, cube_used=False, length=3)
    assert not jacoby_applies(STD, cube_used=False, length=0)


@pytest.mark.parametrize(
    ("level", "cube", "rules", "cube_used", "length", "points"),
    [
        (1, 1, STD, False, 7, 1),
        (2, 2, STD, True, 7, 4),
        (3, 4, STD, True, 7, 12),
        (3, 4, NO_BG, True, 7, 8),
        (2, 1, JACOBY, False, 0, 1),  # Jacoby applies to resignations too (documented choice)
        (2, 2, JACOBY, True, 0, 4),
    ],
)
def test_resignation_points(
    level: int, cube: int, rules: RuleSet, cube_used: bool, length: int, points: int
) -> None:
    got = resignation_points(level, cube, rules=rules, cube_used=cube_used, length=length)
    assert got == points


def test_resignation_level_must_be_1_to_3() -> None:
    with pytest.raises(ValueError):
        resignation_points(4, 1, rules=STD, cube_used=False, length=0)
    with pytest.raises(ValueError):
        game_points("single", 0, rules=STD, cube_used=False, length=0)


# ----------------------------------------------------------------- Wins N points


def explain(
    points: int,
    cube: int,
    end: EndKind,
    *,
    result: ResultType | None = None,
    level: int | None = None,
    needed: int | None = None,
    rules: RuleSet = STD,
    cube_used: bool = True,
    length: int = 7,
) -> tuple[str, str, int | None, int | None]:
    v = explain_win_points(
        points,
        cube=cube,
        end=end,
        rules=rules,
        cube_used=cube_used,
        length=length,
        result=result,
        level=level,
        needed=needed,
    )
    return v.code, v.severity, v.expected, v.level


@pytest.mark.parametrize(
    ("args", "kwargs", "verdict"),
    [
        # bear-offs
        ((2, 2, "normal"), {"result": "single"}, ("consistent", "ok", 2, None)),
        ((4, 2, "normal"), {"result": "gammon"}, ("consistent", "ok", 4, None)),
        ((6, 2, "normal"), {"result": "backgammon"}, ("consistent", "ok", 6, None)),
        ((4, 2, "normal"), {"result": "single"}, ("inconsistent", "error", 2, None)),
        # a bear-off never reads as a resignation, even when N = k x cube
        ((4, 2, "normal"), {"result": "backgammon"}, ("inconsistent", "error", 6, None)),
        (
            (4, 2, "normal"),
            {"result": "backgammon", "rules": NO_BG},
            ("consistent", "ok", 4, None),
        ),
        # drops: the pre-double value, never a gammon
        ((2, 2, "drop"), {}, ("consistent", "ok", 2, None)),
        ((4, 2, "drop"), {}, ("inconsistent", "error", 2, None)),
        # resignations, level inferred from N
        ((2, 2, "resign"), {}, ("resignation", "ok", 2, 1)),
        ((4, 2, "resign"), {}, ("resignation", "ok", 4, 2)),
        ((6, 2, "resign"), {}, ("resignation", "ok", 6, 3)),
        ((3, 2, "resign"), {}, ("inconsistent", "error", None, None)),
        ((6, 2, "resign"), {"rules": NO_BG}, ("inconsistent", "error", None, None)),
        # resignation with the level recorded
        ((4, 2, "resign"), {"level": 2}, ("consistent", "ok", 4, 2)),
        ((2, 2, "resign"), {"level": 2}, ("inconsistent", "error", 4, 2)),
        # Backgammon Studio: cube x 1004
        ((1004, 1, "resign"), {}, ("studio-1004", "warning", None, None)),
        ((2008, 2, "resign"), {"level": 1}, ("studio-1004", "warning", 2, 1)),
        ((1004, 1, "normal"), {"result": "single"}, ("inconsistent", "error", 1, None)),
    ],
)
def test_explain_win_points(
    args: tuple[int, int, EndKind], kwargs: dict[str, Any], verdict: tuple[object, ...]
) -> None:
    assert explain(*args, **kwargs) == verdict


@pytest.mark.parametrize(
    ("args", "kwargs", "verdict"),
    [
        # 5-point match at 4-1 (winner 1 away), cube 2 gammon = 4, written 1: capped
        ((1, 2, "normal"), {"result": "gammon", "needed": 1}, ("capped", "info", 4, None)),
        ((3, 2, "normal"), {"result": "gammon", "needed": 3}, ("capped", "info", 4, None)),
        # written below what the winner needed: an error
        ((2, 2, "normal"), {"result": "gammon", "needed": 3}, ("inconsistent", "error", 4, None)),
        # resignation capped: level 2 with the cube at 4 is 8, winner needed 5
        ((5, 4, "resign"), {"needed": 5}, ("capped", "info", 8, 2)),
        ((5, 4, "resign"), {"needed": 6}, ("inconsistent", "error", None, None)),
        # drop capped
        ((1, 2, "drop"), {"needed": 1}, ("capped", "info", 2, None)),
        # money play has no cap
        ((1, 2, "normal"), {"result": "gammon", "length": 0}, ("inconsistent", "error", 4, None)),
    ],
)
def test_explain_capped(
    args: tuple[int, int, EndKind], kwargs: dict[str, Any], verdict: tuple[object, ...]
) -> None:
    assert explain(*args, **kwargs) == verdict


@pytest.mark.parametrize(
    ("args", "kwargs", "verdict"),
    [
        # Jacoby on, centred cube gammon written as single: consistent
        ((1, 1, "normal"), {"result": "gammon"}, ("consistent", "ok", 1, None)),
        # ... written as a gammon: the rule was not applied
        ((2, 1, "normal"), {"result": "gammon"}, ("jacoby-not-applied", "info", 1, None)),
        # GNU scores a resigned gammon cube x 2 without Jacoby
        ((2, 1, "resign"), {}, ("jacoby-not-applied", "info", 1, 2)),
        ((1, 1, "resign"), {}, ("resignation", "ok", 1, 1)),
        # automatic double: cube 2 centred
        ((2, 2, "normal"), {"result": "backgammon"}, ("consistent", "ok", 2, None)),
        ((6, 2, "normal"), {"result": "backgammon"}, ("jacoby-not-applied", "info", 2, None)),
    ],
)
def test_explain_with_jacoby_on(
    args: tuple[int, int, EndKind], kwargs: dict[str, Any], verdict: tuple[object, ...]
) -> None:
    got = explain(*args, rules=JACOBY, cube_used=False, length=0, **kwargs)
    assert got == verdict


def test_explain_infers_jacoby_when_off() -> None:
    # RULES.md §3: a money session whose Wins lines score centred-cube gammons as singles.
    got = explain(1, 1, "normal", result="gammon", cube_used=False, length=0)
    assert got == ("jacoby-inferred", "info", 2, None)
    # not when the cube was turned, and not in a match
    got = explain(2, 2, "normal", result="gammon", cube_used=True, length=0)
    assert got == ("inconsistent", "error", 4, None)
    got = explain(1, 1, "normal", result="gammon", cube_used=False, length=7)
    assert got == ("inconsistent", "error", 2, None)


def test_explain_messages_name_the_numbers() -> None:
    v = explain_win_points(
        3, cube=2, end="normal", result="gammon", rules=STD, cube_used=True, length=0
    )
    assert v.message == "3 points, but a gammon with the cube at 2 is worth 4"
    v = explain_win_points(3, cube=2, end="resign", rules=STD, cube_used=True, length=0)
    assert v.message == "3 points, but a resignation with the cube at 2 is worth 2, 4, 6"


def test_explain_bearoff_needs_a_result() -> None:
    with pytest.raises(ValueError):
        explain_win_points(1, cube=1, end="normal", rules=STD, cube_used=False, length=0)
