"""The verified match: what the replay produces from an event record, and what the store keeps.

Everything here is resolved: plays as single-die steps in the mover's numbering with the
checkers actually hit, positions as GNU Position ID + Match ID, results as computed by the rules
(not as the record claims). Sides are absolute: 0 is the left column of a `.mat` score line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from bgparse.model.events import MatchInfo
from bgparse.model.findings import Finding, Severity

if TYPE_CHECKING:
    from bgparse.analysis.model import Decision
    from bgparse.rules.position import Position

__all__ = ["CubeAction", "ResolvedStep", "Turn", "VerifiedGame", "VerifiedMatch"]


class ResolvedStep(NamedTuple):
    """One die's step in the mover's numbering: 25 bar, 0 off; `hit` when it hit a blot.
    (The rules engine's `Step` has this same shape and is used as one.)"""

    src: int
    dst: int
    hit: bool


class Turn(NamedTuple):
    """One action of a game, with the state before it.

    kind: "play" (roll and checker play), "dance" (roll, no legal move), "hidden" (roll whose
    play is not shown), "double", "take", "drop", "beaver", "raccoon".

    A named tuple rather than a dataclass: the replay makes one per action of every match it
    stores, and a tuple is built several times faster."""

    game: int  # game number as the record numbers it
    ply: int  # 0-based position of this action within the game
    side: int
    kind: str
    line: int
    column: int
    position_id: str  # before the action, from the view of the side on roll
    match_id: str
    dice: tuple[int, int] | None = None  # as written (order kept)
    steps: tuple[tuple[int, int, bool], ...] = ()  # ResolvedStep-shaped (src, dst, hit)
    play: str = ""  # canonical notation of the resolved play (GNU style: 24/18 13/11*)
    written: str = ""  # the play as the record wrote it
    hits: int = 0
    pips: tuple[int, int] = (0, 0)  # (mover, opponent) before the action
    cube_value: int = 1  # before the action
    cube_owner: int = -1  # -1 centred, 0, 1
    legal: bool | None = None  # for plays: did the record's play pass the rules
    n_legal: int | None = None  # distinct legal plays for that roll, where computed
    score: tuple[int, int] = (0, 0)  # match score before the game, absolute sides
    away: tuple[int, int] | None = None  # (mover, opponent) points needed; None in money play
    crawford: bool = False
    race: bool | None = None  # no contact left in the position before the action

    @property
    def position(self) -> Position:
        """The board before the action as a `Position`, the side on roll as its mover (the
        roller, or the doubler: for a take, drop, beaver or raccoon that is not `side`):
        `position_id` decoded on each call (the replay keeps the ID, not the object). For 15
        checkers a side; a Hypergammon turn's is
        `Position.from_position_id(turn.position_id, checkers=3)`."""
        from bgparse.rules.position import Position

        return Position.from_position_id(self.position_id)


@dataclass(frozen=True, slots=True)
class CubeAction:
    """One double with its answer and what became of the game."""

    game: int
    turn: int  # index of the double's Turn within the game
    doubler: int
    cube_before: int
    cube_after: int  # value after the answer (taken or beavered), or cube_before on a drop
    response: str  # "take" | "drop" | "beaver" | "raccoon" | "none"
    position_id: str
    match_id: str
    pips: tuple[int, int]  # (doubler, taker) before the double
    score: tuple[int, int]
    away: tuple[int, int] | None  # (doubler, taker)
    crawford: bool
    line: int
    column: int
    doubler_result: int | None = None  # points the doubler won (+) or lost (-) in the game
    race: bool | None = None  # no contact left when the cube was turned
    #: What made the offer: "double", or "beaver" / "raccoon" (the doubled side, or the
    #: original doubler, taking and redoubling at once). `cube_before` is then the value
    #: just taken, so the offer is always 2 × `cube_before`.
    offer: str = "double"


@dataclass(frozen=True, slots=True)
class VerifiedGame:
    number: int
    score_before: tuple[int, int]  # computed running score (not the score line)
    score_written: tuple[int, int]  # the game's score line as written
    winner: int | None
    points: int
    end: str  # "normal" | "resign" | "drop" | "unfinished"
    result_type: str | None  # "single" | "gammon" | "backgammon" | None
    cube: int
    cube_owner: int  # -1 centred, 0, 1
    crawford: bool
    plays: int
    doubles: int  # doubles offered; beavers and raccoons are counted apart, in `beavers`
    takes: int
    drops: int
    beavers: int  # beavers and raccoons
    dances: int
    final_position_id: str
    final_match_id: str
    line: int
    turns: tuple[Turn, ...] = ()
    cube_actions: tuple[CubeAction, ...] = ()
    resign_level: int | None = None
    jacoby_applied: bool = False
    #: After the Crawford game (the rule on, a side at length−1, not the Crawford game), as
    #: the replay judged it: also for a record that starts mid-way, past its Crawford game.
    post_crawford: bool = False
    #: Actions counted (rolls and cube actions): the number of Turn rows the store keeps,
    #: known also where a plain validation builds none.
    n_turns: int = 0


@dataclass(frozen=True, slots=True)
class VerifiedMatch:
    path: str
    index: int  # which match of the file, 0-based
    format: str
    dialect: str
    players: tuple[str, str]
    length: int  # 0 = money session
    info: MatchInfo
    tags: tuple[tuple[str, str], ...]
    games: tuple[VerifiedGame, ...]
    final_score: tuple[int, int]
    winner: int | None
    findings: tuple[Finding, ...] = ()
    rules: dict[str, object] = field(default_factory=dict)  # the RuleSet used, as plain values
    #: The decisions the record's stored analysis describes (`bgparse.analysis.attach`).
    decisions: tuple[Decision, ...] = ()

    @property
    def ok(self) -> bool:
        return not any(f.severity is Severity.ERROR for f in self.findings)
