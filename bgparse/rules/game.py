"""One game of backgammon under a rule set: board, cube, score, turn and end, with every judgement
that reads only the game's own state (RULES.md §2-§5).

`Game` is what the replay and the generator both drive (and the store's test factories). Its
operations change the game and return a tuple of `Verdict`s: empty where the action is legal,
else one typed reason per rule broken, with the facts a message needs. It knows nothing of
spans, lines, findings or records; the replay turns verdicts into findings.

Design, and why:

- The game is one mutable object (as python-chess's `Board`), its parts immutable values
  (`Position`, `CubeState`): a replay makes one change per action, and a new game object per
  action would cost more than the judgement itself. `copy()` gives an independent game.
- An action the rules forbid is applied as recorded where it can be (a validator reports it
  and carries on, RULES.md §6): its verdict says `stands=True`. A verdict with `stands=False`
  means the action changed nothing (a take with no double to take).
- How a game ended has one vocabulary, `GameEnd`: "normal" (the last checker borne off),
  "drop", "resign", or "unfinished" (`scoring.EndKind` is the first three).
- Sides are absolute (0 and 1). The position is kept from the view of `side` (its checkers
  as the mover's) and swapped on demand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bgparse.rules.cube import CubeError, CubeState, decides_match, is_dead_cube
from bgparse.rules.ids import final_match_id
from bgparse.rules.match import MatchState, points_away
from bgparse.rules.position import Position
from bgparse.rules.ruleset import RuleSet
from bgparse.rules.scoring import (
    EndKind,
    ResultType,
    WinPoints,
    explain_win_points,
    game_points,
    jacoby_reduces,
    resignation_points,
    result_type,
)
from bgparse.rules.verification import PlayCheck, WrittenPlay, verify_play

__all__ = ["NO_VERDICT", "Game", "GameEnd", "Verdict"]

#: How a game ended (or that it has not): `scoring.EndKind` and "unfinished".
GameEnd = Literal["normal", "drop", "resign", "unfinished"]

_LEVEL_RESULT: dict[int, ResultType] = {1: "single", 2: "gammon", 3: "backgammon"}


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why the rules object to an action. `reason` is a stable code: a `CUBE_ERROR_CODES`
    code for a cube action, or one of "game-over", "turn-order", "dice-invalid",
    "opening-double", "double-unanswered", "wrong-value", "dead-cube-taken". `message`
    says it as the rules do; `expected` and `written` are the numbers it compares (a cube
    value), where it compares any. `stands`: the action was applied as recorded all the same."""

    reason: str
    message: str
    stands: bool = True
    expected: int = 0
    written: int = 0


#: The verdict of a legal action (shared: no object per action).
NO_VERDICT: tuple[Verdict, ...] = ()


def _refused(exc: CubeError) -> Verdict:
    return Verdict(exc.code, exc.message, exc.recorded is not None)


class Game:
    """One game: its board, cube, match score and flags, the turn, and how it ended.

    `position` is from the view of `side`; `last_roller` is the side that rolled last (None
    before the opening roll); `rolls` counts each side's turns (the Holland rule). Once `over`,
    `winner`, `end`, `result` (single, gammon, backgammon; None for a drop), `points` (as
    scored) and `jacoby_applied` say how it ended; `resign_level` is the level of the last
    resignation offered (`resign_side` made it)."""

    __slots__ = (
        "board_known",
        "crawford",
        "cube",
        "drop_value",
        "end",
        "jacoby_applied",
        "last_roller",
        "length",
        "over",
        "points",
        "position",
        "post_crawford",
        "resign_level",
        "resign_side",
        "result",
        "rolls",
        "rules",
        "score",
        "side",
        "winner",
    )

    def __init__(
        self,
        rules: RuleSet,
        length: int,
        score: tuple[int, int] = (0, 0),
        *,
        crawford: bool = False,
        post_crawford: bool = False,
    ) -> None:
        self.rules = rules
        self.length = length
        self.score = score
        self.crawford = crawford
        self.post_crawford = post_crawford
        self.position = Position.initial(rules.variant)
        self.side = 0
        self.cube = CubeState.new_game(rules)
        self.last_roller: int | None = None
        self.rolls = [0, 0]
        self.board_known = True
        self.over = False
        self.winner: int | None = None
        self.end: GameEnd = "unfinished"
        self.result: ResultType | None = None
        self.points = 0
        self.drop_value = 0
        self.resign_level: int | None = None
        self.resign_side: int | None = None
        self.jacoby_applied = False

    @classmethod
    def next_of(cls, match: MatchState, rules: RuleSet) -> Game:
        """The next game of `match`: its score, and whether it is the Crawford game or after."""
        return cls(
            rules,
            match.length,
            match.scores,
            crawford=match.crawford_game,
            post_crawford=match.post_crawford,
        )

    def copy(self) -> Game:
        """An independent copy (the parts are immutable values; `rolls` is copied)."""
        new = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(new, name, getattr(self, name))
        new.rolls = list(self.rolls)
        return new

    # --- facts ---------------------------------------------------------------------------

    def away(self, side: int) -> tuple[int, int] | None:
        """Points `side` and its opponent still need (None in money play)."""
        return points_away(self.length, self.score, side)

    def needed(self, side: int) -> int | None:
        """Points `side` still needs to win the match (None in money play)."""
        if self.length == 0:
            return None
        return max(self.length - self.score[side], 0)

    def score_after(self) -> tuple[int, int]:
        """The match score once this game is counted (as it stands while unfinished)."""
        s0, s1 = self.score
        if self.winner == 0:
            return (s0 + self.points, s1)
        if self.winner == 1:
            return (s0, s1 + self.points)
        return self.score

    def match_id_after(self) -> str:
        """The Match ID GNU Backgammon leaves at the end of this game (as it stands, where
        unfinished): the score after it, the cube, who won and how ("" where it cannot be
        encoded)."""
        cube = self.cube
        return final_match_id(
            length=self.length,
            score=self.score_after(),
            cube=cube.value,
            cube_owner=cube.owner if cube.owner in (0, 1) else -1,
            on_roll=self.side,
            winner=self.winner,
            end=self.end,
            crawford=self.crawford,
            resign_level=self.resign_level,
            jacoby=self.rules.jacoby,
        )

    def board(self, side: int) -> Position:
        """The board from `side`'s view (its checkers as the mover's)."""
        if self.side != side:
            self.position = self.position.swap()
            self.side = side
        return self.position

    def on_roll(self, side: int) -> bool:
        """Whether it is `side`'s turn: nobody has rolled yet, or the other side rolled last."""
        return self.last_roller is None or self.last_roller != side

    def may_double(self, side: int) -> bool:
        """Whether `side`, on roll and before rolling, may double and change something: the
        rules allow the offer and the cube it makes is not dead (no one doubles to a cube
        that changes nothing)."""
        try:
            self._offer(side, True)
        except CubeError:
            return False
        return not decides_match(self.cube.value, self.score, self.length)

    def may_beaver(self, side: int) -> bool:
        """Whether `side`, doubled, may beaver (or raccoon) now under the rules."""
        try:
            self.cube.beaver(side, rules=self.rules, length=self.length)
        except CubeError:
            return False
        return True

    def answering(self, side: int) -> bool:
        """Whether `side` must answer an offer (a double by it now is a beaver)."""
        pending = self.cube.pending
        return pending is not None and pending.doubler != side

    # --- the cube --------------------------------------------------------------------------

    def _offer(self, side: int, on_roll: bool) -> CubeState:
        return self.cube.offer(
            side,
            rules=self.rules,
            length=self.length,
            scores=self.score,
            on_roll=on_roll,
            crawford_game=self.crawford,
            post_crawford=self.post_crawford,
            rolls=(self.rolls[0], self.rolls[1]),
        )

    def double(self, side: int, value: int = 0) -> tuple[Verdict, ...]:
        """`side` offers the cube (`value`: the value the record says it offers, 0 unsaid).
        Call `beaver` instead where `answering(side)`."""
        if self.over:
            return (
                Verdict("game-over", "the game is over: there is nothing left to double", False),
            )
        before = self.cube
        verdicts: list[Verdict] = []
        try:
            self.cube = self._offer(side, self.on_roll(side))
        except CubeError as exc:
            verdicts.append(_refused(exc))
            if exc.recorded is not None:
                self.cube = exc.recorded
        expected = 2 * before.value
        if value and value != expected:
            verdicts.append(
                Verdict("wrong-value", f"a double is to {expected}", True, expected, value)
            )
        return tuple(verdicts) if verdicts else NO_VERDICT

    def take(self, side: int) -> tuple[Verdict, ...]:
        """`side` accepts the offer."""
        if self.over:
            return (Verdict("game-over", "the game is over", False),)
        try:
            self.cube = self.cube.take(side)
        except CubeError as exc:
            return (_refused(exc),)
        value = self.cube.value
        if is_dead_cube(value, self.score, self.length):
            # Legal, and noted (RULES.md §3): the cube now decides the match with any win.
            s0, s1 = self.score
            away0, away1 = self.length - s0, self.length - s1
            return (
                Verdict(
                    "dead-cube-taken",
                    f"a cube of {value} is dead: worth more than either side needs at "
                    f"{s0}-{s1} ({away0}-away, {away1}-away) in a {self.length}-point match",
                    True,
                    value,
                    value,
                ),
            )
        return NO_VERDICT

    def drop(self, side: int) -> tuple[Verdict, ...]:
        """`side` refuses the offer: the doubler wins the cube's value before it (a Crawford
        game whose doubles are void scores 1). Never a gammon."""
        if self.over:
            return (Verdict("game-over", "the game is over", False),)
        pending = self.cube.pending
        try:
            value = self.cube.drop(side)
        except CubeError as exc:
            return (_refused(exc),)
        assert pending is not None
        if self.crawford and self.rules.crawford_double == "void":
            value = 1
        self._end(pending.doubler, "drop", None, value)
        self.drop_value = value
        return NO_VERDICT

    def beaver(self, side: int, value: int = 0) -> tuple[Verdict, ...]:
        """`side`, doubled, takes and redoubles at once (a beaver; a raccoon when the doubler
        does it back). `value`: the cube the record says it makes (0 unsaid)."""
        if self.over:
            return (Verdict("game-over", "the game is over", False),)
        before = self.cube
        verdicts: list[Verdict] = []
        try:
            self.cube = before.beaver(side, rules=self.rules, length=self.length)
        except CubeError as exc:
            verdicts.append(_refused(exc))
            if exc.recorded is None:
                return (verdicts[0],)
            self.cube = exc.recorded
        pending = before.pending
        expected = 2 * (pending.value if pending else before.value)
        if value and value != expected:
            verdicts.append(
                Verdict(
                    "wrong-value", f"a beaver here makes the cube {expected}", True, expected, value
                )
            )
        return tuple(verdicts) if verdicts else NO_VERDICT

    def set_cube(self, value: int | None, owner: int | None) -> None:
        """A set-up of the cube (a value, an owner or both; None keeps what it was). A cube
        set above 1 counts as turned (Jacoby)."""
        c = self.cube
        if value is not None:
            self.cube = CubeState(
                value=value,
                owner=owner if owner is not None else c.owner,
                used=c.used or value > 1,
                enabled=c.enabled,
            )
        elif owner is not None:
            self.cube = CubeState(value=c.value, owner=owner, used=c.used, enabled=c.enabled)

    # --- the turn --------------------------------------------------------------------------

    def turn_order(self, side: int) -> tuple[Verdict, ...]:
        """Whether `side` may roll now: not twice in a row."""
        if self.last_roller is not None and side == self.last_roller:
            return (
                Verdict(
                    "turn-order", f"side {side} twice in a row: the other side's turn is missing"
                ),
            )
        return NO_VERDICT

    def before_roll(self) -> tuple[Verdict, ...]:
        """The cube as the player on roll rolls: a pending beaver or raccoon counts as taken
        (`.mat` records write no 'Takes' after one); a plain double left unanswered is a
        breach, and the game goes on as if it had been taken."""
        if self.cube.pending is None:
            return NO_VERDICT
        try:
            self.cube = self.cube.before_roll()
        except CubeError as exc:
            if exc.recorded is not None:
                self.cube = exc.recorded
            return (Verdict("double-unanswered", exc.message),)
        return NO_VERDICT

    def roll(self, side: int, dice: tuple[int, int]) -> tuple[Verdict, ...]:
        """`side` rolls `dice`: counted as its turn; the dice must show 1 to 6, and the opening
        roll of the standard game is never a double (unless the rules have the starting player
        roll two dice, `opening_double`)."""
        d1, d2 = dice
        first = self.last_roller is None
        self.last_roller = side
        self.rolls[side] += 1
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            return (Verdict("dice-invalid", f"impossible dice {d1}-{d2}: a die shows 1 to 6"),)
        if (
            first
            and d1 == d2
            and self.rules.variant == "standard"
            and not self.rules.opening_double
        ):
            return (
                Verdict(
                    "opening-double",
                    f"the opening roll {d1}-{d2} is a double: the first player plays the two "
                    "different opening dice",
                ),
            )
        return NO_VERDICT

    def check_play(self, side: int, dice: tuple[int, int], moves: WrittenPlay) -> PlayCheck:
        """The verdict on `side` playing `moves` with `dice` on the board as it stands (raises
        PlayError, DiceError or PositionError where the play or board cannot be read)."""
        return verify_play(self.board(side), dice, moves)

    def moved(self, side: int, after: Position) -> bool:
        """`side` has played: `after` is the board with the other side on roll. Bearing off
        the last checker ends the game (True)."""
        self.position = after
        self.side = 1 - side
        # The mover is now `after.opponent`: all borne off ends the game at once. (Counts
        # are never negative, so "none non-zero" is "none left"; the loop stops at the first
        # point with a checker, a few items in, where count(0) or sum() read all 26, and
        # any() costs a call and an iterator more.)
        for count in after.opponent:
            if count:
                return False
        self._bear_off(side, after)
        return True

    def passed(self, side: int) -> None:
        """`side` had its turn with no play known (hidden or unchecked): the other side is on
        roll, the board as it was."""
        self.position = self.board(side).swap()
        self.side = 1 - side

    def set_board(self, mine: tuple[int, ...], theirs: tuple[int, ...], side: int) -> Position:
        """A set-up board, `side` on roll (raises PositionError if it is not a valid board)."""
        pos = Position(mine, theirs, self.rules.checkers).ensure_valid()
        self.position, self.side, self.board_known = pos, side, True
        return pos

    # --- the end ---------------------------------------------------------------------------

    def _end(self, winner: int, end: GameEnd, result: ResultType | None, points: int) -> None:
        self.over = True
        self.winner = winner
        self.end = end
        self.result = result
        self.points = points

    def _bear_off(self, side: int, after: Position) -> None:
        loser = after.mover  # the loser's board in its own numbering
        rt = result_type(after.checkers - sum(loser), any(loser[p] for p in range(19, 26)))
        self.bore_off(side, rt)

    def bore_off(self, winner: int, result: ResultType) -> None:
        """The game ends with `winner` bearing off its last checker for a `result` (as the
        board shows it): scored with the cube, the backgammon value and the Jacoby rule."""
        value = self.cube.scoring_value(crawford_game=self.crawford, rules=self.rules)
        cube_used = self.cube.used
        points = game_points(
            result, value, rules=self.rules, cube_used=cube_used, length=self.length
        )
        self._end(winner, "normal", result, points)
        self.jacoby_applied = jacoby_reduces(
            result, rules=self.rules, cube_used=cube_used, length=self.length
        )

    def offer_resignation(self, side: int | None, level: int | None) -> None:
        """`side` (None: not said) offers to resign a game of `level` (1 single, 2 gammon, 3
        backgammon; None: not said)."""
        self.resign_level = level
        self.resign_side = side

    def level_offered_to(self, winner: int) -> int | None:
        """The level of the resignation offered to `winner` (None: none, or not said)."""
        return self.resign_level if self.resign_side in (None, 1 - winner) else None

    def resignation_value(self, level: int) -> int:
        """Points a resignation at `level` is worth now (scored as a finished game of that
        kind, with the Jacoby rule where it is in force)."""
        return resignation_points(
            level,
            self.cube.scoring_value(crawford_game=self.crawford, rules=self.rules),
            rules=self.rules,
            cube_used=self.cube.used,
            length=self.length,
        )

    def resigned(self, winner: int, level: int | None, points: int) -> None:
        """The game ends by a resignation (or a forfeit) won by `winner` for `points`."""
        self._end(winner, "resign", _LEVEL_RESULT.get(level or 0), points)
        self.resign_level = level

    def dropped_unwritten(self, winner: int) -> None:
        """A double left open and then a result for the doubler: the doubled side gave up."""
        value = self.cube.value
        self._end(winner, "drop", None, value)
        self.drop_value = value

    def judge_points(self, points: int, winner: int) -> WinPoints:
        """The rules' verdict on a record's `Wins points` for `winner`: against how the game
        ended, or, if it has not, as a resignation (of the level offered to `winner`)."""
        end: EndKind
        if self.over:
            end = "drop" if self.end == "drop" else "normal"
            if end == "drop":
                cube = self.drop_value
            else:
                cube = self.cube.scoring_value(crawford_game=self.crawford, rules=self.rules)
            return explain_win_points(
                points,
                cube=cube,
                end=end,
                rules=self.rules,
                cube_used=self.cube.used,
                length=self.length,
                result=self.result if end == "normal" else None,
                needed=self.needed(winner),
            )
        level = self.level_offered_to(winner)
        return explain_win_points(
            points,
            cube=self.cube.scoring_value(crawford_game=self.crawford, rules=self.rules),
            end="resign",
            rules=self.rules,
            cube_used=self.cube.used,
            length=self.length,
            level=level,
            needed=self.needed(winner),
        )

    def scoring_value(self) -> int:
        """The cube value the game is scored with at its end."""
        if self.end == "drop":
            return self.drop_value
        return self.cube.scoring_value(crawford_game=self.crawford, rules=self.rules)
