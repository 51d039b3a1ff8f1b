"""Match state: the running score, the Crawford and post-Crawford games, the end of a match,
and the Holland rule (RULES.md §5).

Sides are 0 and 1 (the left and right column of a `.mat` score line). A length of 0 is a money
session: scores accumulate and it never ends.

Documented choices:

- Crawford game: the first game that starts with exactly one side at length−1, counted from
  the first recorded game, as GNU Backgammon reads records. A record whose first game already
  starts with one side at length−1 (penalty points, a resumed match) therefore starts with the
  Crawford game, unless the caller says the Crawford game was already played
  (`crawford_played=True`, e.g. from an SGF `RU` that lacks `CrawfordGame`). A first game at
  length−1 all (double match point) is never the Crawford game.
- The Crawford game counts as played once it has been finished, so it happens at most once
  even if a record's later scores are inconsistent.
- Post-Crawford: the Crawford rule is on, some side is at length−1 and this game is not the
  Crawford game. That includes double match point reached from a recorded 6–6 start, where
  no Crawford game was played; the cube is in play either way.
- Holland rule: "rolled twice" counts the turns each side has rolled in the game, the opening
  roll counting for the side that plays it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bgparse.helpers.errors import RulesError
from bgparse.rules.ruleset import RuleSet

__all__ = [
    "GameFlags",
    "MatchError",
    "MatchState",
    "crawford_game_for",
    "holland_restricts",
    "points_away",
    "post_crawford_for",
]


class MatchError(RulesError):
    """A game that cannot be added to the match; `code` is stable (`match-over`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def crawford_game_for(
    scores: tuple[int, int], length: int, crawford_already_played: bool, *, crawford: bool = True
) -> bool:
    """Whether a game starting at `scores` is the Crawford game: the rule is on, the match is
    longer than one point, the Crawford game has not been played, and exactly one side is at
    length−1 (neither has won yet)."""
    if not crawford or length <= 1 or crawford_already_played:
        return False
    if scores[0] >= length or scores[1] >= length:
        return False
    return (scores[0] == length - 1) != (scores[1] == length - 1)


def post_crawford_for(
    scores: tuple[int, int], length: int, crawford_already_played: bool, *, crawford: bool = True
) -> bool:
    """Whether a game starting at `scores` is post-Crawford: the rule is on, some side is at
    length−1 and this game is not the Crawford game."""
    if not crawford or length <= 1 or scores[0] >= length or scores[1] >= length:
        return False
    if length - 1 not in scores:
        return False
    return not crawford_game_for(scores, length, crawford_already_played, crawford=crawford)


def points_away(length: int, scores: tuple[int, int], side: int) -> tuple[int, int] | None:
    """Points `side` and its opponent still need to win a match at `scores` (the score may pass
    the length in a broken record: the difference stands); None in a money session."""
    if not length:
        return None
    return (length - scores[side], length - scores[1 - side])


def holland_restricts(
    side: int,
    *,
    scores: tuple[int, int],
    length: int,
    post_crawford: bool,
    rolls: tuple[int, int],
) -> bool:
    """Whether the Holland rule stops `side` from doubling now: in a post-Crawford game the
    trailer may not double until both sides have rolled twice (`rolls` = turns rolled by side
    0 and side 1 so far in this game). The caller checks that the rule set has the option on."""
    _check_side(side)
    if length <= 1 or not post_crawford:
        return False
    trailer = scores[side] < scores[1 - side]
    return trailer and min(rolls) < 2


@dataclass(frozen=True, slots=True)
class GameFlags:
    """What the match state says about the game about to start."""

    crawford: bool
    post_crawford: bool


@dataclass(frozen=True, slots=True)
class MatchState:
    """The score of a match or money session between games. Immutable: `finish_game` returns
    the next state.

    `crawford_played` is True once the Crawford game has been finished; `games` counts the
    games finished through this state (not those before a non-zero starting score)."""

    length: int
    scores: tuple[int, int] = (0, 0)
    crawford_rule: bool = True
    crawford_played: bool = False
    games: int = 0

    def __post_init__(self) -> None:
        if self.length < 0:
            raise ValueError(f"match length must be 0 or more, not {self.length}")
        if len(self.scores) != 2 or min(self.scores) < 0:
            raise ValueError(f"scores must be two numbers of 0 or more, not {self.scores!r}")

    @classmethod
    def new(
        cls,
        length: int,
        rules: RuleSet | None = None,
        scores: tuple[int, int] = (0, 0),
        *,
        crawford_played: bool = False,
    ) -> MatchState:
        """A match of `length` points (0 = money session) starting at `scores`, which may be
        non-zero (penalty points, a resumed match)."""
        crawford = (rules or RuleSet()).crawford
        return cls(length, (scores[0], scores[1]), crawford, crawford_played)

    @property
    def money(self) -> bool:
        return self.length == 0

    @property
    def is_over(self) -> bool:
        """A side has reached or passed the length (never in a money session)."""
        return self.length > 0 and max(self.scores) >= self.length

    @property
    def winner(self) -> int | None:
        """The side that has won the match, or None while it is not over."""
        if not self.is_over:
            return None
        # Both cannot pass the length: the match ends with the game that first reaches it, and
        # a starting score over the length on both sides is a broken record, so the higher wins.
        return 0 if self.scores[0] >= self.scores[1] else 1

    def away(self, side: int) -> int:
        """Points `side` still needs to win the match (0 once it has); matches only."""
        _check_side(side)
        if self.money:
            raise ValueError("a money session has no length, so no side is 'away'")
        return max(self.length - self.scores[side], 0)

    @property
    def crawford_game(self) -> bool:
        """Whether the next game is the Crawford game."""
        return crawford_game_for(
            self.scores, self.length, self.crawford_played, crawford=self.crawford_rule
        )

    @property
    def post_crawford(self) -> bool:
        """Whether the next game is post-Crawford."""
        return post_crawford_for(
            self.scores, self.length, self.crawford_played, crawford=self.crawford_rule
        )

    def start_game(self) -> GameFlags:
        """The flags of the next game. Raises `MatchError("match-over")` once the match is
        over: any game recorded after that does not count."""
        if self.is_over:
            raise MatchError("match-over", self._over_message())
        return GameFlags(crawford=self.crawford_game, post_crawford=self.post_crawford)

    def finish_game(self, winner: int, points: int) -> MatchState:
        """The state after `winner` won the next game for `points` points (as scored, or as
        recorded when the replay continues from the record)."""
        _check_side(winner)
        if points < 0:
            raise ValueError(f"a game cannot be won for {points} points")
        if self.is_over:
            raise MatchError("match-over", self._over_message())
        played = self.crawford_played or self.crawford_game
        new = (
            (self.scores[0] + points, self.scores[1])
            if winner == 0
            else (self.scores[0], self.scores[1] + points)
        )
        return MatchState(self.length, new, self.crawford_rule, played, self.games + 1)

    def _over_message(self) -> str:
        return (
            f"the match is over: {self.scores[0]}-{self.scores[1]} in a {self.length}-point match"
        )


def _check_side(side: int) -> None:
    if side not in (0, 1):
        raise ValueError(f"side must be 0 or 1, not {side!r}")
