"""Scoring one game: single, gammon or backgammon, the Jacoby rule, resignations, drops, and
the judgement of a record's `Wins N points` line (RULES.md §4, rules-engines.md §6).

Everything takes plain numbers (checkers off, cube value, points needed), not positions, so it
does not depend on the board code.

Documented choices:

- A resignation at level 1, 2 or 3 is scored exactly as a finished game of that kind: level ×
  cube, with level 3 worth `RuleSet.backgammon_value` and with the Jacoby rule applied when it
  is in force (money play, cube never turned). GNU Backgammon's records score resignations
  cube × level without Jacoby; `explain_win_points` accepts that as `jacoby-not-applied`
  (information), so those files are not reported as wrong.
- A drop scores the cube value before the refused double (what `CubeState.drop` returns); it
  is never a gammon and Jacoby does not touch it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bgparse.rules.ruleset import RuleSet
from bgparse.rules.wording import plural

__all__ = [
    "EndKind",
    "ResultType",
    "Severity",
    "WinPoints",
    "explain_win_points",
    "game_points",
    "jacoby_applies",
    "jacoby_eligible",
    "jacoby_reduces",
    "resignation_points",
    "result_multiplier",
    "result_type",
]

ResultType = Literal["single", "gammon", "backgammon"]
#: How a game ended: "normal" (the last checker borne off), a dropped double, or a resignation
#: (also what a `Wins` line means when the game did not end on the board). The same words as
#: `game.GameEnd` and the stored `games.end`.
EndKind = Literal["normal", "drop", "resign"]
Severity = Literal["ok", "info", "warning", "error"]

_LEVELS: dict[int, ResultType] = {1: "single", 2: "gammon", 3: "backgammon"}

# Backgammon Studio writes cube × 1004 for a resignation (a producer defect, RULES.md §4).
_STUDIO_FACTOR = 1004


def result_type(loser_off: int, loser_in_winner_home_or_bar: bool) -> ResultType:
    """The kind of win: a loser who has borne off any checker loses a single game, even with a
    checker on the bar; otherwise a gammon, or a backgammon with a checker still on the bar or
    in the winner's home board."""
    if loser_off < 0:
        raise ValueError(f"checkers borne off cannot be negative: {loser_off}")
    if loser_off > 0:
        return "single"
    return "backgammon" if loser_in_winner_home_or_bar else "gammon"


def result_multiplier(result: ResultType, rules: RuleSet | None = None) -> int:
    """Cube multiples a result is worth, before Jacoby: 1, 2, or the rule set's backgammon
    value (3, or 2 where backgammons count as gammons)."""
    if result == "single":
        return 1
    if result == "gammon":
        return 2
    if result == "backgammon":
        return (rules or RuleSet()).backgammon_value
    raise ValueError(f"unknown result type {result!r}")


def jacoby_applies(rules: RuleSet, *, cube_used: bool, length: int) -> bool:
    """Whether gammons and backgammons count single: the Jacoby rule is on, this is money play
    (never in a match, whatever the rule set says) and the cube was never turned. A cube at 2
    from automatic doubles is still centred and counts as never turned."""
    return rules.jacoby and _jacoby_game(cube_used, length)


def jacoby_eligible(result: ResultType | None, *, cube_used: bool, length: int) -> bool:
    """Whether the Jacoby rule, were it on, would score this result as a single: a gammon or
    backgammon of money play with the cube never turned (the evidence a money session gives
    for or against the rule)."""
    return result is not None and result != "single" and _jacoby_game(cube_used, length)


def _jacoby_game(cube_used: bool, length: int) -> bool:
    # The one statement of where the rule can act: money play, the cube never turned.
    return length == 0 and not cube_used


def jacoby_reduces(result: ResultType, *, rules: RuleSet, cube_used: bool, length: int) -> bool:
    """Whether the Jacoby rule scores this result below its multiple of the cube: a result
    worth more than a single under the rule set (`result_multiplier`: a backgammon counted as
    a gammon still is), with the rule in force. The one test of "Jacoby applied" that the
    replay and the generator share."""
    return result_multiplier(result, rules) > 1 and jacoby_applies(
        rules, cube_used=cube_used, length=length
    )


def game_points(
    result: ResultType, cube_value: int, *, rules: RuleSet, cube_used: bool, length: int
) -> int:
    """Points for a game won by bearing off: the result's multiple of the cube, with the
    Jacoby rule and the backgammon value of the rule set."""
    _check_cube(cube_value)
    multiple = result_multiplier(result, rules)
    if jacoby_applies(rules, cube_used=cube_used, length=length):
        multiple = 1
    return multiple * cube_value


def resignation_points(
    level: int, cube_value: int, *, rules: RuleSet, cube_used: bool, length: int
) -> int:
    """Points for an accepted resignation at `level` (1 single, 2 gammon, 3 backgammon),
    scored as a finished game of that kind (see the module docstring)."""
    if level not in _LEVELS:
        raise ValueError(f"resignation level must be 1, 2 or 3, not {level!r}")
    return game_points(_LEVELS[level], cube_value, rules=rules, cube_used=cube_used, length=length)


@dataclass(frozen=True, slots=True)
class WinPoints:
    """The verdict on a `Wins N points` line.

    `code` is stable: `consistent`, `resignation` (a resignation at `level`, inferred from
    N), `capped` (N cut to the points the winner needed to end the match), `jacoby-inferred`
    (N scores an unturned-cube gammon single while the rule set has Jacoby off),
    `jacoby-not-applied` (N ignores the Jacoby rule, as GNU Backgammon records resignations),
    `studio-1004` (Backgammon Studio's cube × 1004) or `inconsistent`. `expected` is the
    points the rules give (None where a resignation's level is unknown and N fits none)."""

    code: str
    severity: Severity
    expected: int | None
    level: int | None
    message: str


def explain_win_points(
    points: int,
    *,
    cube: int,
    end: EndKind,
    rules: RuleSet,
    cube_used: bool,
    length: int,
    result: ResultType | None = None,
    level: int | None = None,
    needed: int | None = None,
) -> WinPoints:
    """Judge the `points` a record says the winner won.

    `cube` is the value the game is worth per unit at its end; for a drop, the value the
    doubler wins (`CubeState.drop`). `end="normal"` needs `result`; `end="resign"` takes the
    resignation `level` if the record gives one, else infers it from `points`. `needed` is
    the points the winner still needed to win the match (None in money play): a smaller
    `points` that still reaches it is a cap, not an error."""
    _check_cube(cube)
    if end == "normal":
        if result is None:
            raise ValueError("a game ended by bearing off needs its result type")
        candidates = {0: game_points(result, cube, rules=rules, cube_used=cube_used, length=length)}
        plain = {0: result_multiplier(result, rules) * cube}
    elif end == "drop":
        candidates = {0: cube}
        plain = dict(candidates)
    elif end == "resign":
        levels = (level,) if level is not None else (1, 2, 3)
        candidates = {
            k: resignation_points(k, cube, rules=rules, cube_used=cube_used, length=length)
            for k in levels
        }
        plain = {k: result_multiplier(_LEVELS[k], rules) * cube for k in levels}
    else:
        raise ValueError(f"unknown game end {end!r}")

    inferred = end == "resign" and level is None
    described = _describe(end, result, level, cube)
    said = plural(points, "point")  # what the record says, as a message quotes it

    # Sorted, so that where several levels fit (Jacoby, backgammon_value 2) the lowest is named.
    for k, value in sorted(candidates.items()):
        if points == value:
            if inferred:
                return WinPoints(
                    "resignation",
                    "ok",
                    value,
                    k,
                    f"{said}: a resignation of a {_LEVELS[k]} with the cube at {cube}",
                )
            return WinPoints("consistent", "ok", value, _level(k), f"{said}: {described}")

    jacoby = jacoby_applies(rules, cube_used=cube_used, length=length)
    for k, value in sorted(plain.items()):
        if points == value and jacoby and value != candidates[k]:
            return WinPoints(
                "jacoby-not-applied",
                "info",
                candidates[k],
                _level(k),
                f"{said} scores {described} without the Jacoby rule, "
                f"which makes it {candidates[k]}",
            )
    if not rules.jacoby and _jacoby_game(cube_used, length):
        for k, value in sorted(candidates.items()):
            if value != cube and points == cube:
                return WinPoints(
                    "jacoby-inferred",
                    "info",
                    value,
                    _level(k),
                    f"{said} scores {described} as a single game, as the Jacoby rule would",
                )

    top = max(candidates.values())
    if needed is not None and needed > 0 and needed <= points < top:
        # The smallest level (or the one result) worth more than what was written.
        k, value = min((k, v) for k, v in candidates.items() if v > points)
        return WinPoints(
            "capped",
            "info",
            value,
            _level(k),
            f"{said}: {described} is worth {value}, capped to the "
            f"{plural(needed, 'point')} the winner needed to win the match",
        )
    if end == "resign" and points == cube * _STUDIO_FACTOR:
        return WinPoints(
            "studio-1004",
            "warning",
            None if level is None else candidates[level],
            level,
            f"{said} is the cube × {_STUDIO_FACTOR} Backgammon Studio writes for a resignation",
        )
    expected = candidates[0] if 0 in candidates else (candidates[level] if level else None)
    if expected is None:
        values = ", ".join(str(v) for _, v in sorted(candidates.items()))
        wanted = f"a resignation with the cube at {cube} is worth {values}"
    else:
        wanted = f"{described} is worth {expected}"
    return WinPoints("inconsistent", "error", expected, level, f"{said}, but {wanted}")


def _level(key: int) -> int | None:
    # Candidate key 0 stands for "not a resignation" (a bear-off or a drop).
    return key or None


def _describe(end: EndKind, result: ResultType | None, level: int | None, cube: int) -> str:
    if end == "normal":
        return f"a {result} with the cube at {cube}"
    if end == "drop":
        return f"a drop with the cube at {cube}"
    if level is not None:
        return f"a resigned {_LEVELS[level]} with the cube at {cube}"
    return f"a resignation with the cube at {cube}"


def _check_cube(cube_value: int) -> None:
    if cube_value < 1:
        raise ValueError(f"a cube value is 1 or more, not {cube_value}")
