"""The doubling cube within one game: doubles, takes, drops, beavers, raccoons, automatic
doubles, and which of them the rules allow (RULES.md §3, rules-engines.md §5).

`CubeState` is immutable; every action returns the next state or raises `CubeError`, whose
`code` is one of `CUBE_ERROR_CODES` and whose message a player would understand. A validator
reports an illegal action and carries on from the record (RULES.md §6), so an error carries
`recorded`: the state the record leads to if the action is taken as written (None where the
action cannot be applied at all, e.g. a take with no double to take).

Model of a double sequence, which GNU Backgammon's records confirm (`Doubles => 2`,
`Beavers => 4`, a roll, and later the beaverer doubles to 8):

- `value` is the value the cube has reached and `pending` the offer awaiting an answer.
  A double from v leaves value v with an offer at 2v.
- A beaver is the doubled side taking (value 2v) and redoubling at once (offer at 4v) while
  keeping the cube; a raccoon is the same move by the original doubler. Records name both
  "beaver", so `beaver` and `raccoon` are one operation; the count and the rule set decide.
- A take sets the value to the offer. After a plain double the taker owns the cube; after a
  beaver or raccoon the side that made the last redouble keeps it.
- A drop ends the game and the other side wins `value`: the value before the refused double,
  which after beavers is the value reached before the last redouble.
- `.mat` records write no `Takes` after a beaver: `before_roll` treats the next roll as the
  take.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from bgparse.helpers.errors import RulesError
from bgparse.rules.match import holland_restricts
from bgparse.rules.ruleset import RuleSet
from bgparse.rules.wording import plural

__all__ = [
    "CENTRED",
    "CUBE_ERROR_CODES",
    "LARGEST_CUBE",
    "CubeError",
    "CubeState",
    "PendingDouble",
    "decides_match",
    "is_dead_cube",
]

#: The largest cube bgparse keeps: the largest power of two a record can write (its numbers
#: have at most 9 digits, `bgparse.readers.numbers`), and one whose backgammon (three times
#: it) still fits the dataset's int32 columns. A double past it is refused and the cube stays.
LARGEST_CUBE = 2**29

#: `CubeState.owner` while nobody owns the cube.
CENTRED = -1

#: Every reason a cube action can be refused, as stable codes.
CUBE_ERROR_CODES = (
    "game-over",  # the game (or match) has already ended
    "double-pending",  # acting while a double awaits its answer
    "cube-disabled",  # cubeless play: NoCube, CubeLimit 1
    "crawford-game",  # no doubling in the Crawford game
    "not-on-roll",  # only the player on roll may double
    "after-roll",  # a double comes before the roll
    "not-cube-owner",  # the cube belongs to the other side
    "holland",  # post-Crawford Holland rule: the trailer waits two rolls each
    "beyond-cube-limit",  # the cube would pass the rule set's limit
    "dead-cube",  # a double to a dead cube, where the rule set forbids it
    "no-pending-double",  # take, drop or beaver with nothing offered
    "wrong-side",  # the doubler answering his own double
    "beaver-in-match",  # beavers are for money play only
    "beaver-not-allowed",  # the rule set allows no (more) beavers or raccoons
    "auto-double-not-allowed",  # automatic doubles: money only, within the rule set's limit
    "beyond-largest-cube",  # the cube would pass LARGEST_CUBE, the largest bgparse keeps
)


class CubeError(RulesError):
    """A cube action the rules do not allow. `code` is one of `CUBE_ERROR_CODES`; `recorded`
    is the state to continue from if the action is taken as recorded, or None."""

    def __init__(self, code: str, message: str, recorded: CubeState | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.recorded = recorded


@dataclass(frozen=True, slots=True)
class PendingDouble:
    """An offer awaiting its answer: who made it and the value the cube takes if accepted."""

    doubler: int
    value: int


@dataclass(frozen=True, slots=True)
class CubeState:
    """The cube in one game. `owner` is 0, 1 or `CENTRED`; `beavers` counts the beavers and
    raccoons in the current double sequence; `used` says whether the cube was ever turned this
    game (Jacoby); `automatic` counts this game's automatic doubles; `enabled` is False in
    cubeless play."""

    value: int = 1
    owner: int = CENTRED
    pending: PendingDouble | None = None
    beavers: int = 0
    used: bool = False
    enabled: bool = True
    automatic: int = 0

    @classmethod
    def new_game(cls, rules: RuleSet | None = None) -> CubeState:
        """The cube at the start of a game: centred at 1, enabled unless the rules are
        cubeless."""
        return cls(enabled=(rules or RuleSet()).cube_enabled)

    @property
    def centred(self) -> bool:
        return self.owner == CENTRED

    @property
    def answerer(self) -> int | None:
        """The side that must answer the pending offer, if any."""
        return None if self.pending is None else 1 - self.pending.doubler

    # ------------------------------------------------------------- actions

    def offer(
        self,
        side: int,
        *,
        rules: RuleSet | None = None,
        length: int = 0,
        scores: tuple[int, int] = (0, 0),
        on_roll: bool = True,
        rolled: bool = False,
        crawford_game: bool = False,
        post_crawford: bool = False,
        rolls: tuple[int, int] = (0, 0),
        game_over: bool = False,
    ) -> CubeState:
        """`side` doubles (or redoubles). `on_roll`: it is that side's turn; `rolled`: it has
        already rolled this turn; `rolls`: turns rolled so far by each side (Holland rule).

        A double by the side that must answer a pending double is a beaver, as SGF records
        write it. When several rules are broken the first of this order is reported: game over,
        double pending, cube disabled, Crawford game, not on roll, after the roll, not the
        owner, Holland, cube limit, dead cube."""
        _check_side(side)
        rules = rules or RuleSet()
        if game_over:
            raise CubeError("game-over", "the game is over: there is nothing left to double")
        if self.pending is not None:
            if side != self.pending.doubler:
                return self.beaver(side, rules=rules, length=length)
            raise CubeError(
                "double-pending",
                f"side {side} doubles again while its double to {self.pending.value} "
                "has not been answered",
            )
        new_value = _doubled(self.value)
        recorded = _replace(self, pending=_pending(side, new_value), beavers=0)
        if not (self.enabled and rules.cube_enabled):
            raise CubeError("cube-disabled", "the cube is not in use in this game", recorded)
        if crawford_game and length > 0:
            raise CubeError("crawford-game", "no one may double in the Crawford game", recorded)
        if not on_roll:
            raise CubeError("not-on-roll", "only the player on roll may double", recorded)
        if rolled:
            raise CubeError("after-roll", "a double must be offered before rolling", recorded)
        if self.owner not in (CENTRED, side):
            raise CubeError(
                "not-cube-owner",
                f"side {side} doubles but the cube at {self.value} belongs to side {self.owner}",
                recorded,
            )
        if (
            rules.holland
            and length > 0
            and holland_restricts(
                side, scores=scores, length=length, post_crawford=post_crawford, rolls=rolls
            )
        ):
            raise CubeError(
                "holland",
                "Holland rule: after the Crawford game the trailer may not double "
                "until both sides have rolled twice",
                recorded,
            )
        if new_value == self.value:
            raise CubeError("beyond-largest-cube", _too_large("double", self.value), recorded)
        if rules.cube_limit is not None and new_value > rules.cube_limit:
            raise CubeError(
                "beyond-cube-limit",
                f"a double to {new_value} passes the cube limit of {rules.cube_limit}",
                recorded,
            )
        if rules.dead_cube == "forbid" and decides_match(self.value, scores, length):
            raise CubeError(
                "dead-cube",
                f"a double to {new_value}, but a cube of {self.value} already decides the "
                f"{length}-point match at {scores[0]}-{scores[1]} with any win",
                recorded,
            )
        return recorded

    def take(self, side: int) -> CubeState:
        """`side` accepts the pending offer."""
        _check_side(side)
        pending = self._require_answer(side, "take")
        owner = side if self.beavers == 0 else pending.doubler
        return _replace(self, value=pending.value, owner=owner, pending=None, beavers=0, used=True)

    def drop(self, side: int) -> int:
        """`side` refuses the pending offer and loses the game; returns the points the other
        side wins: the value before the refused double (after beavers, before the last
        redouble). Never a gammon."""
        _check_side(side)
        self._require_answer(side, "drop")
        return self.value

    def beaver(self, side: int, *, rules: RuleSet | None = None, length: int = 0) -> CubeState:
        """`side`, doubled, takes and redoubles at once, keeping the cube. A redouble of a
        beaver (a raccoon) is the same operation."""
        _check_side(side)
        rules = rules or RuleSet()
        pending = self._require_answer(side, "beaver")
        taken = pending.value
        recorded = _replace(
            self,
            value=taken,
            owner=side,
            pending=_pending(side, _doubled(taken)),
            beavers=self.beavers + 1,
            used=True,
        )
        name = "raccoon" if self.beavers else "beaver"
        if length > 0:
            raise CubeError("beaver-in-match", f"a {name} is not allowed in a match", recorded)
        if rules.beavers == 0:
            raise CubeError(
                "beaver-not-allowed", "the rules of this session allow no beavers", recorded
            )
        if self.beavers >= 1 and not rules.raccoons:
            raise CubeError(
                "beaver-not-allowed", "the rules of this session allow no raccoons", recorded
            )
        if self.beavers >= rules.beavers:
            raise CubeError(
                "beaver-not-allowed",
                f"a {name} beyond the "
                f"{plural(rules.beavers, 'beaver or raccoon', 'beavers and raccoons')} allowed "
                "per double",
                recorded,
            )
        if rules.cube_limit is not None and 2 * taken > rules.cube_limit:
            raise CubeError(
                "beyond-cube-limit",
                f"a {name} to {2 * taken} passes the cube limit of {rules.cube_limit}",
                recorded,
            )
        if _doubled(taken) == taken:
            raise CubeError("beyond-largest-cube", _too_large(name, taken), recorded)
        return recorded

    def raccoon(self, side: int, *, rules: RuleSet | None = None, length: int = 0) -> CubeState:
        """The original doubler redoubles a beaver. The same operation as `beaver` (records
        do not tell them apart); `RuleSet.raccoons` and the shared limit decide."""
        return self.beaver(side, rules=rules, length=length)

    def before_roll(self) -> CubeState:
        """The state when the player on roll rolls. A pending beaver or raccoon counts as taken
        (`.mat` records write no `Takes` after one); a plain double left unanswered raises
        `double-pending`, continuing as if it had been taken."""
        if self.pending is None:
            return self
        answerer = 1 - self.pending.doubler
        if self.beavers:
            return self.take(answerer)
        raise CubeError(
            "double-pending",
            f"a roll while the double to {self.pending.value} has not been answered",
            self.take(answerer),
        )

    def automatic_double(self, *, rules: RuleSet | None = None, length: int = 0) -> CubeState:
        """A tied opening throw doubles the centred cube (money play only, within the rule
        set's limit per game). The cube stays centred and counts as never turned (Jacoby)."""
        rules = rules or RuleSet()
        recorded = _replace(self, value=_doubled(self.value), automatic=self.automatic + 1)
        if not (self.enabled and rules.cube_enabled):
            raise CubeError("cube-disabled", "the cube is not in use in this game", recorded)
        if length > 0:
            raise CubeError(
                "auto-double-not-allowed", "automatic doubles are not used in a match", recorded
            )
        if self.automatic >= rules.automatic_doubles:
            raise CubeError(
                "auto-double-not-allowed",
                f"more than the {plural(rules.automatic_doubles, 'automatic double')} allowed "
                "per game",
                recorded,
            )
        if rules.cube_limit is not None and 2 * self.value > rules.cube_limit:
            raise CubeError(
                "beyond-cube-limit",
                f"an automatic double to {2 * self.value} passes the cube limit "
                f"of {rules.cube_limit}",
                recorded,
            )
        if recorded.value == self.value:
            raise CubeError(
                "beyond-largest-cube", _too_large("automatic double", self.value), recorded
            )
        return recorded

    def scoring_value(self, *, crawford_game: bool, rules: RuleSet | None = None) -> int:
        """The cube value a finished game is scored with: `value`, except that with
        `crawford_double="void"` a Crawford game is scored as if no double had happened."""
        rules = rules or RuleSet()
        if crawford_game and rules.crawford_double == "void":
            return 1
        return self.value

    def _require_answer(self, side: int, verb: str) -> PendingDouble:
        if self.pending is None:
            raise CubeError("no-pending-double", f"a {verb} with no double to answer")
        if side == self.pending.doubler:
            raise CubeError(
                "wrong-side",
                f"side {side} cannot {verb} its own double to {self.pending.value}",
            )
        return self.pending


_set = object.__setattr__  # how a frozen dataclass's fields are set
_CUBE_FIELDS = tuple(f.name for f in fields(CubeState))


def _replace(cube: CubeState, **changes: Any) -> CubeState:
    """`dataclasses.replace` for the cube, without its interpreted walk over the fields and
    the generated `__init__` (which run interpreted even where this module is compiled; every
    cube action makes one or two)."""
    new = object.__new__(CubeState)
    for name in _CUBE_FIELDS:
        _set(new, name, changes[name] if name in changes else getattr(cube, name))
    return new


def _pending(doubler: int, value: int) -> PendingDouble:
    new = object.__new__(PendingDouble)
    _set(new, "doubler", doubler)
    _set(new, "value", value)
    return new


def _doubled(value: int) -> int:
    """The cube after a double of `value`, never past `LARGEST_CUBE` (where it stays)."""
    return value if 2 * value > LARGEST_CUBE else 2 * value


def _too_large(what: str, value: int) -> str:
    return (
        f"a {what} to {2 * value:,} passes {LARGEST_CUBE:,}, the largest cube bgparse keeps "
        f"(a record's numbers have at most 9 digits): the cube stays at {value:,}"
    )


def is_dead_cube(value: int, scores: tuple[int, int], length: int) -> bool:
    """Whether a cube of `value` is dead in a match: worth more than either side still needs,
    so any win ends the match and no redouble can change anything (legal; RULES.md §3 says to
    note it, C006). At 3-away 3-away a cube of 4 is dead, a cube of 2 is not; a cube worth
    exactly what both need (2 at 2-away 2-away) is not beyond it. Never in a money session."""
    if length <= 0:
        return False
    return value > length - scores[0] and value > length - scores[1]


def decides_match(value: int, scores: tuple[int, int], length: int) -> bool:
    """Whether a cube of `value` already gives either side the match with any win, so that a
    double of it can change nothing: the double a `dead_cube="forbid"` rule set refuses (the
    cube may reach the first value that covers what both need, no more). Never in money play."""
    if length <= 0 or value < 1:
        return False
    return value >= length - scores[0] and value >= length - scores[1]


def _check_side(side: int) -> None:
    if side not in (0, 1):
        raise ValueError(f"side must be 0 or 1, not {side!r}")
