"""What an analysis says of a decision: the notes a reader takes from a record that stores
analysis, and the `Decision` every source becomes (one row of the `decisions` table).

Units are GNU Backgammon's: equities are cubeful, from the view of the side deciding (the
roller, the doubler, or for a take the doubler: see `CubeNote`), in EMG normalised to a cube
of 1 (money: points per cube; match play: match winning chances mapped to equity linearly
between losing and winning one cube's worth at the score, GNU's `mwc2eq`). An error is the
equity the choice made lost against the best, never negative.

How a cube decision is judged, how it is counted and what kind of error it is follow GNU
Backgammon's `show statistics` (its analysis.c and eval.c, read for the facts): the optimal
cube equity is max(no double, min(double/take, double/pass)) where the cube is available;
a no-double decision counts where it is close (doubling less than 0.16 worse than the best, the
double/take equity capped at 1), an actual double, take or pass always counts; a checker play
counts where the roll had more than one legal play.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "CLOSE_CUBE",
    "SOURCES",
    "Candidate",
    "CheckerNote",
    "CubeJudgement",
    "CubeNote",
    "Decision",
    "Note",
    "cube_decision",
    "judge_cube",
    "judge_take",
    "take_decision",
]

#: The sources of analysis, as the `decisions` table names them.
SOURCES = ("xg", "gnubg-sgf", "gnubg-text", "engine")

#: GNU Backgammon's threshold of a close cube decision: doubling worse than the best by less.
CLOSE_CUBE = 0.16

#: Probabilities of the side deciding: win, win a gammon, win a backgammon, lose a gammon,
#: lose a backgammon (gammons include backgammons, as GNU and XG give them).
Probs = tuple[float, float, float, float, float]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One play a source ranked: as the source writes it, and its equity after the play."""

    play: str
    equity: float
    probs: Probs | None = None


@dataclass(frozen=True, slots=True)
class CheckerNote:
    """A source's analysis of one roll and the play made with it.

    `line` and `column` are the annotated action's (its `Roll`, or the no-play marker of a
    dance), as its span gives them: the verified turn there in game `game` (the record's game
    number) is the one it is about. `candidates` are best first; `played` indexes the play
    made among them (None where the source does not list it). `error` and `luck` are the
    source's own figures where it stores them (XG's ErrMove and ErrLuck, a GNU text export's
    printed error): None where they are computed from the candidates."""

    game: int
    line: int
    column: int
    side: int
    candidates: tuple[Candidate, ...]
    played: int | None
    level: str
    n_legal: int | None = None
    error: float | None = None
    luck: float | None = None
    error_mwc: float | None = None
    luck_mwc: float | None = None


@dataclass(frozen=True, slots=True)
class CubeNote:
    """A source's analysis of a cube decision: the player on roll's, before the roll (`line`
    and `column` those of the `Roll` that followed a decision not to double, or of the
    `Double`), and for a double the answer's too (the take, drop or beaver after it); placed
    at an answer's span, the answer's alone.

    The three equities are the doubler's: no double, double/take, double/pass (1.0 wherever
    the cube is live and normalised). `available` is False where the side on roll could not
    double (a dead cube, the Crawford game, the opponent's cube): such a note is stored but
    never counted. `cube_error`/`take_error` are the source's own where it stores them (XG's
    ErrCube, ErrTake)."""

    game: int
    line: int
    column: int
    side: int
    no_double: float
    double_take: float
    double_pass: float
    level: str
    available: bool = True
    probs: Probs | None = None
    cube_error: float | None = None
    take_error: float | None = None


Note = CheckerNote | CubeNote


class CubeJudgement(NamedTuple):
    """A cube decision judged as GNU Backgammon judges it."""

    optimal: float  # the best of the three equities the doubler can reach
    proper: str  # "double, take", "no redouble, take", "too good to double, pass", ...
    error: float  # >= 0
    error_type: str | None
    close: bool


def _proper(nd: float, dt: float, dp: float, available: bool, redouble: bool) -> str:
    """GNU Backgammon's words for the best action: the taker passes where double/pass is the
    smaller equity for the doubler, and takes otherwise."""
    if not available:
        return "no double (cube not available)"
    verb = "redouble" if redouble else "double"
    if dt >= nd and dp >= nd:
        return f"{verb}, take" if dp > dt else f"{verb}, pass"
    return f"too good to {verb}, pass" if dp < dt else f"no {verb}, take"


def judge_cube(
    nd: float,
    dt: float,
    dp: float,
    doubled: bool,
    *,
    available: bool = True,
    redouble: bool = False,
) -> CubeJudgement:
    """The doubler's decision: `doubled` says whether the player doubled. Equities are the
    doubler's, normalised."""
    optimal = max(nd, min(dt, dp)) if available else nd
    proper = _proper(nd, dt, dp, available, redouble)
    if not available:
        return CubeJudgement(optimal, proper, 0.0, None, False)
    if doubled:
        error = max(0.0, optimal - min(dt, dp))
        kind = None
        if error > 0:
            kind = "wrong double above TG" if nd > 1.0 else "wrong double below DP"
        return CubeJudgement(optimal, proper, error, kind, True)
    error = max(0.0, optimal - nd)
    kind = None
    if error > 0:
        kind = "missed double above CP" if dt > 1.0 else "missed double below CP"
    close = optimal - min(dt, 1.0) < CLOSE_CUBE
    return CubeJudgement(optimal, proper, error, kind, close)


def judge_take(dt: float, dp: float, took: bool) -> tuple[float, str | None]:
    """The taker's error (its own view: it faces -DT on a take, -DP on a pass) and its type."""
    if took:
        return (dt - dp, "wrong take") if dt > dp else (0.0, None)
    return (dp - dt, "wrong pass") if dp > dt else (0.0, None)


class Decision(NamedTuple):
    """One decision as one analysis source saw it: a row of `decisions` (without the match's
    identity, which the store adds). `ply` is the verified turn it joins: the play's turn for
    `checker`, the roll's turn (no double) or the double's for `cube`, the answer's for
    `take` (`offer_ply` the double's, as `cube_actions.ply` names it)."""

    game_no: int
    ply: int
    side: int
    kind: str  # checker | cube | take
    source: str  # one of SOURCES
    engine: str  # what produced the numbers: "gnubg", "xg", "bgsage"
    level: str
    counted: bool
    error: float
    luck: float | None = None
    error_mwc: float | None = None
    luck_mwc: float | None = None
    # checker decisions
    play: str | None = None  # the play made, canonical
    best_play: str | None = None
    played_rank: int | None = None  # 1 = the best; None where the source does not list it
    n_candidates: int | None = None
    n_legal: int | None = None
    equity_best: float | None = None
    equity_played: float | None = None
    # cube decisions
    action: str | None = None  # no double | double | take | pass | beaver | raccoon
    equity_no_double: float | None = None
    equity_double_take: float | None = None
    equity_double_pass: float | None = None
    proper_action: str | None = None
    error_type: str | None = None
    offer_ply: int | None = None
    # where it stands
    position_id: str | None = None
    match_id: str | None = None
    cube_value: int = 1
    line: int = 0
    column: int = 0


def cube_decision(
    nd: float,
    dt: float,
    dp: float,
    *,
    doubled: bool,
    available: bool,
    redouble: bool,
    stored_error: float | None = None,
    **where: Any,
) -> Decision:
    """The `cube` row of the side on roll's decision, judged from its three equities;
    `stored_error` is the source's own figure where it has one (XG's ErrCube), which stands,
    its kind read from the equities (or, where they see no error, from what was done).
    `where`: the row's other fields (game_no, ply, side, source, engine, level, position_id,
    match_id, cube_value, line, column)."""
    judged = judge_cube(nd, dt, dp, doubled, available=available, redouble=redouble)
    error = judged.error if stored_error is None else max(0.0, stored_error)
    kind = judged.error_type
    if error > 0 and kind is None:
        if doubled:
            kind = "wrong double above TG" if nd > 1.0 else "wrong double below DP"
        else:
            kind = "missed double above CP" if dt > 1.0 else "missed double below CP"
    return Decision(
        kind="cube",
        counted=judged.close,
        error=error,
        action="double" if doubled else "no double",
        proper_action=judged.proper,
        error_type=kind if error > 0 else None,
        equity_no_double=nd,
        equity_double_take=dt,
        equity_double_pass=dp,
        **where,
    )


def take_decision(
    nd: float,
    dt: float,
    dp: float,
    *,
    answer: str,
    stored_error: float | None = None,
    **where: Any,
) -> Decision:
    """The `take` row of the answer to a double (`answer`: take, drop, beaver or raccoon),
    judged from the doubler's equities; `stored_error` as for `cube_decision` (XG's ErrTake).
    `where` as there, with `offer_ply`."""
    took = answer != "drop"
    error, kind = judge_take(dt, dp, took)
    if stored_error is not None:
        error = max(0.0, stored_error)
    if error > 0 and kind is None:
        kind = "wrong take" if took else "wrong pass"
    return Decision(
        kind="take",
        counted=True,
        error=error,
        action="pass" if answer == "drop" else answer,
        proper_action="pass" if dp < dt else "take",
        error_type=kind if error > 0 else None,
        equity_no_double=nd,
        equity_double_take=dt,
        equity_double_pass=dp,
        **where,
    )
