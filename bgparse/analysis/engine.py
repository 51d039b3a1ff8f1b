"""The analysis engine: bgsage (Open Sage, MPL-2.0) judging bgparse positions in GNU's units.

The only module of bgparse that imports bgsage. What it relies on, each fact checked by an
experiment (tests/analysis/test_engine.py keeps the ones a test can hold):

- A bgsage board is 26 ints from the side on roll's view: 1-24 its points, its checkers
  positive and the opponent's negative; 25 its bar and 0 the opponent's bar, both as positive
  counts. The flipped board of the starting position is the starting position.
- bgsage numbers plies as eXtreme Gammon does: its "1ply" is the network alone, what GNU
  Backgammon calls 0-ply; each ply more costs about 20 times as much. `LEVELS` is keyed by
  GNU's numbering, the one GNU's stored analysis (and bgparse's users) speak.
- Every equity bgsage returns is cubeful EMG normalised to the current cube, in money and in
  match play alike (double/pass is +1.0; a money cube of 2 or 4 owned by the roller gives the
  same equity). In match play bgsage converts match winning chances with GNU's mwc2eq on the
  Kazaross-XG2 table (GNU's default MET, the same rows; bgsage's `mwc2eq` equals
  `(2 mwc - (w + l)) / (w - l)` on its own table at every score, cube and Crawford flag), the
  no-double, double/take and double/pass equities all with the current cube, as GNU's
  FindCubeDecision does: so nothing is converted here.
- Probabilities are (win, win gammon, win backgammon, lose gammon, lose backgammon), the
  gammons including backgammons: after a play from the mover's view, before a roll from the
  roller's.
- Jacoby and beavers are money rules: bgsage ignores them in match play.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Any, Final

from bgsage import batch as _bgsage_batch
from bgsage import weights as _bgsage_weights

from bgparse.helpers.errors import BgparseError, RulesError, UsageError
from bgparse.rules import DiceError, Play, Position, legal_plays

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "LUCK_LEVEL",
    "Candidate",
    "CheckerEval",
    "CubeEval",
    "CubeInfo",
    "Engine",
    "EngineError",
    "Probabilities",
]

#: Level names in GNU Backgammon's numbering, each to bgsage's number of plies.
LEVELS: Final[Mapping[str, int]] = MappingProxyType({"0ply": 1, "1ply": 2, "2ply": 3, "3ply": 4})
#: GNU's 0-ply, bgsage's "1ply": the network alone. GNU's own default analysis (and the
#: analysis most stored GNU records carry) is 0-ply, so figures compare like for like; it is
#: also the fastest level by a factor of about 20.
DEFAULT_LEVEL: Final = "0ply"
#: GNU evaluates luck at 0-ply whatever the analysis level (its `ecLuck`).
LUCK_LEVEL: Final = "0ply"

# bgsage's own defaults for the candidate filter of its deeper levels.
_FILTER_MOVES: Final = 5
_FILTER_THRESHOLD: Final = 0.08

#: Luck's requests sent to bgsage at a time (see `Engine.luck`).
_LUCK_SLICE: Final = 2_048

_ROLLS: Final = tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
_OPENING_ROLLS: Final = tuple(roll for roll in _ROLLS if roll[0] != roll[1])


class EngineError(BgparseError):
    """The engine failed or answered something bgparse cannot map onto its own rules."""

    failure = True


@dataclass(frozen=True, slots=True)
class CubeInfo:
    """The cube and score from the side on roll's view.

    `owner`: -1 centred, 0 the side on roll, 1 its opponent. `away`: the points the side on
    roll and its opponent still need, None for money. `crawford`: this is the Crawford game
    (one side 1-away and the cube not yet usable); a game with a side 1-away that is not the
    Crawford game is post-Crawford. `jacoby` and `beavers` apply to money only.
    """

    value: int = 1
    owner: int = -1
    away: tuple[int, int] | None = None
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False

    def __post_init__(self) -> None:
        value = self.value
        if type(value) is not int or value < 1 or value & (value - 1):
            raise RulesError(f"cube value must be a power of 2, got {value!r}")
        if self.owner not in (-1, 0, 1) or type(self.owner) is not int:
            raise RulesError(f"cube owner must be -1 (centred), 0 or 1, got {self.owner!r}")
        if self.away is None:
            if self.crawford:
                raise RulesError("a money game has no Crawford game")
        else:
            if not (
                isinstance(self.away, tuple)
                and len(self.away) == 2
                and all(type(a) is int and a >= 1 for a in self.away)
            ):
                raise RulesError(f"away must be two positive ints or None, got {self.away!r}")
            if self.crawford and 1 not in self.away:
                raise RulesError(f"the Crawford game needs a side 1-away, got {self.away}")

    @property
    def can_double(self) -> bool:
        """Can the side on roll double? GNU's rule (eval.c GetDPEq): it has access, and in
        match play it is not the Crawford game and the cube is below the points it needs (a
        post-Crawford leader, 1-away, never can)."""
        if self.owner == 1:
            return False
        if self.away is None:
            return True
        return not self.crawford and self.value < self.away[0]

    def swapped(self) -> CubeInfo:
        """The same cube and score from the opponent's view."""
        return CubeInfo(
            self.value,
            self.owner if self.owner == -1 else 1 - self.owner,
            None if self.away is None else (self.away[1], self.away[0]),
            self.crawford,
            self.jacoby,
            self.beavers,
        )


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Cubeless chances; the gammons include the backgammons."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @classmethod
    def from_engine(cls, probs: Iterable[float]) -> Probabilities:
        return cls(*(float(p) for p in probs))


@dataclass(frozen=True, slots=True)
class Candidate:
    """One legal play as the engine values it.

    `move` is the play as `legal_plays` gives it: `play` is its notation (`format_play`) and
    `after` the position after it, the other side on roll. `equity` is cubeful, from the
    mover's view, EMG normalised to the cube; `probabilities` after the play, mover's view.
    `level` is the level it was valued at: at deeper levels the plays the filter drops keep
    their 0-ply value."""

    move: Play
    equity: float
    probabilities: Probabilities
    level: str

    @property
    def play(self) -> str:
        return self.move.notation

    @property
    def after(self) -> Position:
        return self.move.after


@dataclass(frozen=True, slots=True)
class CheckerEval:
    """Every legal play of one roll, best first."""

    candidates: tuple[Candidate, ...]
    n_legal: int

    @property
    def best(self) -> Candidate:
        return self.candidates[0]

    def index_of(self, after: Position) -> int | None:
        """The rank of the play leading to `after` (other side on roll), or None."""
        for i, candidate in enumerate(self.candidates):
            if candidate.after == after:
                return i
        return None

    def loss(self, after: Position) -> float:
        """The equity the play leading to `after` gives up against the best play (>= 0)."""
        i = self.index_of(after)
        if i is None:
            raise RulesError("that position is not the result of any legal play of this roll")
        return self.candidates[0].equity - self.candidates[i].equity


@dataclass(frozen=True, slots=True)
class CubeEval:
    """A cube decision from the doubler's (the side on roll's) view, EMG normalised to the cube.

    `double_take` and `double_pass` are what doubling would be worth even where `can_double`
    is False (the Crawford game, a dead cube, the opponent's cube). `beaver` says bgsage
    expects the taker to beaver (money with beavers): `double_take` is then double/beaver's."""

    no_double: float
    double_take: float
    double_pass: float
    probabilities: Probabilities
    can_double: bool
    beaver: bool = False

    @property
    def should_double(self) -> bool:
        return self.can_double and min(self.double_take, self.double_pass) > self.no_double

    @property
    def should_take(self) -> bool:
        return self.double_take <= self.double_pass

    @property
    def equity(self) -> float:
        """The cube-owning side's equity after the right actions on both sides."""
        if self.should_double:
            return min(self.double_take, self.double_pass)
        return self.no_double


@lru_cache(maxsize=1)
def _bearoff_db() -> Any:
    """bgsage's one-sided bear-off database (as its own analyzer loads it), or None."""
    path = _bgsage_weights.bearoff_db_path()
    if not path:
        return None
    db = _cpp.BearoffDB()
    return db if db.load(path) else None


@cache
def _strategies(plies: int) -> tuple[Any, Any]:
    """bgsage's network (bear-offs from its database) and, above one ply, its search: made once
    a process, since loading the weights takes about 30 ms."""
    weights = _bgsage_weights.default_weights()
    kind, paths, hidden = (
        weights.strategy_type,
        weights.weight_paths_list,
        weights.hidden_sizes_list,
    )
    db = _bearoff_db()
    one = _cpp.create_strategy(kind, paths, hidden)
    if db is not None:
        one = _cpp.BearoffStrategy(one, db)
    deep = None
    if plies > 1:
        deep = _cpp.create_multipy(
            kind,
            paths,
            hidden,
            n_plies=plies,
            filter_max_moves=_FILTER_MOVES,
            filter_threshold=_FILTER_THRESHOLD,
            parallel_evaluate=False,
            parallel_threads=0,
        )
        if db is not None:
            _cpp.multipy_set_bearoff_db(deep, db)
    return one, deep


# bgsage's compiled core, as bgsage's batch module reaches it (it is part of bgsage's wheel).
_cpp: Any = _bgsage_batch.bgbot_cpp
_OWNERS: Final = {
    -1: _cpp.CubeOwner.CENTERED,
    0: _cpp.CubeOwner.PLAYER,
    1: _cpp.CubeOwner.OPPONENT,
}


def _board(position: Position) -> list[int]:
    """A bgparse position (side on roll first) as a bgsage board."""
    mover, opponent = position.mover, position.opponent
    return [opponent[25], *(mover[i] - opponent[25 - i] for i in range(1, 25)), mover[25]]


def _check_position(position: Position) -> None:
    if not isinstance(position, Position):
        raise RulesError(f"not a Position: {position!r}")
    if position.checkers != 15:
        raise RulesError(
            f"bgsage evaluates 15-checker backgammon only, not {position.checkers} checkers"
        )
    if position.is_game_over():
        raise RulesError("the game is over in that position: there is nothing to evaluate")
    position.ensure_valid()


def _check_cube(cube: CubeInfo) -> None:
    if not isinstance(cube, CubeInfo):
        raise RulesError(f"not a CubeInfo: {cube!r}")


def _flags(cube: CubeInfo) -> tuple[bool, bool]:
    """(jacoby, beavers) as bgsage takes them for one whole batch: money rules only."""
    money = cube.away is None
    return money and cube.jacoby, money and cube.beavers


def _cube_fields(cube: CubeInfo) -> dict[str, Any]:
    fields: dict[str, Any] = {"cube_value": cube.value, "cube_owner": _OWNERS[cube.owner]}
    if cube.away is not None:
        fields.update(away1=cube.away[0], away2=cube.away[1], is_crawford=cube.crawford)
    return fields


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _ranked(position: Position, dice: tuple[int, int], answer: Any) -> CheckerEval:
    """bgsage's answer for one roll as bgparse's legal plays, ranked as bgsage ranks them."""
    by_board = {tuple(_board(play.after.swap())): play for play in legal_plays(position, dice)}
    candidates = []
    for move in answer["moves"]:
        board = tuple(move["board"])
        play = by_board.get(board)
        if play is None and max(board[1:]) <= 0 and board[25] == 0:
            # bgsage ends a play when its last checker is off, with a die unplayed: 2/off with
            # 6-1, where the rules want both dice (2/1*/off), which it lists too. Such a play
            # is not a legal one.
            continue
        if play is None:
            raise EngineError(
                f"bgsage plays {dice[0]}{dice[1]} from {position.position_id()} to a board "
                f"bgparse finds no legal play for: {list(move['board'])}"
            )
        candidates.append(
            Candidate(
                play,
                float(move["equity"]),
                Probabilities.from_engine(move["probs"]),
                _level_name(move.get("eval_level")),
            )
        )
    if len(candidates) != len(by_board):
        raise EngineError(
            f"bgsage finds {len(candidates)} plays of {dice[0]}{dice[1]} from "
            f"{position.position_id()}, bgparse {len(by_board)}"
        )
    return CheckerEval(tuple(candidates), len(by_board))


class Engine:
    """bgsage at one level. `Engine.open()` is cheap after the first (the networks are loaded
    once a process); one engine may serve any number of calls, each a batch."""

    __slots__ = ("_luck_plies", "_plies", "level", "luck_level", "name", "threads", "version")

    name: str
    version: str
    level: str
    luck_level: str
    threads: int

    def __init__(self, level: str, luck_level: str, threads: int) -> None:
        self.name = "bgsage"
        self.version = importlib.metadata.version("bgsage")
        self.level = level
        self.luck_level = luck_level
        self.threads = threads
        self._plies = LEVELS[level]
        self._luck_plies = LEVELS[luck_level]

    @classmethod
    def open(
        cls, level: str = DEFAULT_LEVEL, *, luck_level: str = LUCK_LEVEL, threads: int = 1
    ) -> Engine:
        """An engine at `level` (a name of LEVELS); luck at `luck_level`. `threads`: bgsage's
        threads across the positions of a batch (1: one core, as a pipeline worker has)."""
        for option, value in (("level", level), ("luck level", luck_level)):
            if value not in LEVELS:
                raise UsageError(
                    f"analysis {option} {value!r}: use one of {', '.join(LEVELS)} "
                    "(GNU Backgammon's numbering: 0ply is the network alone)"
                )
        if type(threads) is not int or threads < 1:
            raise UsageError(f"engine threads must be a positive int, got {threads!r}")
        try:
            _strategies(LEVELS[level])
            _strategies(LEVELS[luck_level])
        except Exception as error:  # bgsage's loading: files, a version without a model
            raise EngineError(f"bgsage cannot load its networks: {_first_line(error)}") from None
        return cls(level, luck_level, threads)

    def __repr__(self) -> str:
        return (
            f"Engine.open({self.level!r}, luck_level={self.luck_level!r}, "
            f"threads={self.threads})  # {self.name} {self.version}"
        )

    # --- checker play -----------------------------------------------------------------------

    def checker(
        self, items: Sequence[tuple[Position, tuple[int, int], CubeInfo]]
    ) -> list[CheckerEval]:
        """Every legal play of each (position, dice, cube), best first, at this level."""
        return self._checker(items, self._plies)

    def _checker(
        self, items: Sequence[tuple[Position, tuple[int, int], CubeInfo]], plies: int
    ) -> list[CheckerEval]:
        inputs: list[dict[str, Any]] = []
        for position, dice, cube in items:
            _check_position(position)
            _check_cube(cube)
            inputs.append(
                {"board": _board(position), "die1": dice[0], "die2": dice[1], **_cube_fields(cube)}
            )
        raw = self._batched(
            "checker play", inputs, [cube for _, _, cube in items], plies, self._checker_batch
        )
        return [
            _ranked(position, dice, answer)
            for (position, dice, _), answer in zip(items, raw, strict=True)
        ]

    def _checker_batch(
        self, inputs: list[dict[str, Any]], plies: int, jacoby: bool, beavers: bool
    ) -> list[Any]:
        one, deep = _strategies(plies)
        strategies = (one,) if deep is None else (one, deep)
        return list(
            _cpp.batch_checker_play(
                inputs,
                *strategies,
                _FILTER_MOVES,
                _FILTER_THRESHOLD,
                self.threads,
                jacoby=jacoby,
                beaver=beavers,
            )
        )

    # --- cube -------------------------------------------------------------------------------

    def cube(self, items: Sequence[tuple[Position, CubeInfo]]) -> list[CubeEval]:
        """The cube decision of the side on roll before it rolls, for each (position, cube)."""
        inputs: list[tuple[Any, ...]] = []
        for position, cube in items:
            _check_position(position)
            _check_cube(cube)
            fields = _cube_fields(cube)
            row: tuple[Any, ...] = (_board(position), fields["cube_value"], fields["cube_owner"])
            if cube.away is not None:
                row += (cube.away[0], cube.away[1], cube.crawford)
            inputs.append(row)
        raw = self._batched(
            "cube decision", inputs, [cube for _, cube in items], self._plies, self._cube_batch
        )
        return [
            CubeEval(
                float(answer["equity_nd"]),
                float(answer["equity_dt"]),
                float(answer["equity_dp"]),
                Probabilities.from_engine(answer["probs"]),
                cube.can_double,
                bool(answer.get("is_beaver", False)),
            )
            for (_, cube), answer in zip(items, raw, strict=True)
        ]

    def _cube_batch(
        self, inputs: list[tuple[Any, ...]], plies: int, jacoby: bool, beavers: bool
    ) -> list[Any]:
        one, deep = _strategies(plies)
        return list(
            _cpp.batch_evaluate_positions(
                inputs, one if deep is None else deep, self.threads, jacoby=jacoby, beaver=beavers
            )
        )

    # --- luck -------------------------------------------------------------------------------

    def luck(self, items: Sequence[tuple[Position, tuple[int, int], CubeInfo]]) -> list[float]:
        """Each roll's luck for the side that rolled it, EMG normalised to the cube: GNU's
        (analysis.c LuckAnalysis) at `luck_level`. The equity after the best play of the roll
        minus the mean over all 36 rolls; on the starting position a non-double is an opening
        roll, and the mean is over the 30 non-doubles either side could have won the opening
        with (the opponent's counted against the roller)."""
        return [luck for _, luck in self.checker_and_luck([(*item, False) for item in items])]

    def checker_and_luck(
        self, items: Sequence[tuple[Position, tuple[int, int], CubeInfo, bool]]
    ) -> list[tuple[CheckerEval | None, float]]:
        """Each roll's luck (as `luck`) and, where its flag asks, its plays ranked (as
        `checker`): at the luck's level, the roll's own answer among the 21 the luck asks
        bgsage for serves both (its every play is in it); at another level, apart."""
        wanted: dict[tuple[Position, CubeInfo], set[tuple[int, int]]] = {}
        plans: list[tuple[bool, tuple[int, int]]] = []
        ranked: dict[tuple[Position, tuple[int, int], CubeInfo], CheckerEval | None] = {}
        shared = self._plies == self._luck_plies
        for position, dice, cube, rank in items:
            _check_position(position)
            _check_cube(cube)
            roll = _roll(dice)
            opening = roll[0] != roll[1] and _is_start(position)
            plans.append((opening, roll))
            if rank and shared:
                ranked[position, roll, cube] = None
            if opening:
                wanted.setdefault((position, cube), set()).update(_OPENING_ROLLS)
                wanted.setdefault((position.swap(), cube.swapped()), set()).update(_OPENING_ROLLS)
            else:
                wanted.setdefault((position, cube), set()).update(_ROLLS)
        # The best play's equity, bgsage's list as it stands (best first): the one play it may
        # list that the rules do not allow (see `_ranked`) is worth what the legal one is. Asked
        # for in slices: bgsage answers with every play of every roll, which for a unit's
        # thousands of rolls (21 requests each) held over a gigabyte at once.
        best: dict[tuple[Position, tuple[int, int], CubeInfo], float] = {}
        for (position, cube), rolls in wanted.items():
            for roll in rolls:
                best[position, roll, cube] = 0.0
        requests = list(best)
        for start in range(0, len(requests), _LUCK_SLICE):
            part = requests[start : start + _LUCK_SLICE]
            boards: dict[tuple[Position, CubeInfo], dict[str, Any]] = {}
            inputs = []
            for position, roll, cube in part:
                base = boards.get((position, cube))
                if base is None:
                    base = boards[position, cube] = {
                        "board": _board(position),
                        **_cube_fields(cube),
                    }
                inputs.append({**base, "die1": roll[0], "die2": roll[1]})
            raw = self._batched(
                "luck", inputs, [cube for _, _, cube in part], self._luck_plies, self._checker_batch
            )
            for request, answer in zip(part, raw, strict=True):
                best[request] = float(answer["moves"][0]["equity"])
                if request in ranked:
                    ranked[request] = _ranked(request[0], request[1], answer)
        apart = [
            (position, dice, cube) for position, dice, cube, rank in items if rank and not shared
        ]
        evals = iter(self._checker(apart, self._plies)) if apart else iter(())
        out: list[tuple[CheckerEval | None, float]] = []
        for (position, _dice, cube, rank), (opening, roll) in zip(items, plans, strict=True):
            if opening:
                other, their_cube = position.swap(), cube.swapped()
                mean = (
                    sum(best[position, r, cube] for r in _OPENING_ROLLS)
                    - sum(best[other, r, their_cube] for r in _OPENING_ROLLS)
                ) / 30.0
            else:
                mean = sum(best[position, r, cube] * (1 if r[0] == r[1] else 2) for r in _ROLLS)
                mean /= 36.0
            ev: CheckerEval | None = None
            if rank:
                ev = ranked[position, roll, cube] if shared else next(evals)
            out.append((ev, best[position, roll, cube] - mean))
        return out

    # --- batching ---------------------------------------------------------------------------

    def _batched(
        self,
        what: str,
        inputs: Sequence[Any],
        cubes: Sequence[CubeInfo],
        plies: int,
        run: Any,
    ) -> list[Any]:
        """Run `run` once per set of money rules (bgsage takes Jacoby and beavers per batch),
        answers back in the order asked."""
        groups: dict[tuple[bool, bool], list[int]] = {}
        for i, cube in enumerate(cubes):
            groups.setdefault(_flags(cube), []).append(i)
        answers: list[Any] = [None] * len(inputs)
        for (jacoby, beavers), indices in groups.items():
            try:
                raw = run([inputs[i] for i in indices], plies, jacoby, beavers)
            except Exception as error:  # a C++ exception or a binding's TypeError
                raise EngineError(f"bgsage {what} failed: {_first_line(error)}") from None
            if len(raw) != len(indices):
                raise EngineError(f"bgsage {what}: {len(raw)} answers for {len(indices)} positions")
            for i, answer in zip(indices, raw, strict=True):
                answers[i] = answer
        return answers


def _roll(dice: tuple[int, int]) -> tuple[int, int]:
    """The roll, higher die first."""
    try:
        a, b = dice
    except (TypeError, ValueError):
        raise DiceError(f"dice must be two ints, got {dice!r}") from None
    if not (type(a) is int and type(b) is int and 1 <= a <= 6 and 1 <= b <= 6):
        raise DiceError(f"dice must be two ints 1-6, got {dice!r}")
    return (a, b) if a >= b else (b, a)


def _is_start(position: Position) -> bool:
    return position == Position.initial() or position == Position.initial("nackgammon")


def _level_name(label: object) -> str:
    """bgsage's label of a value's level ("1-ply", "2-ply") in LEVELS' numbering."""
    if isinstance(label, str) and label.endswith("-ply") and label[:-4].isdigit():
        plies = int(label[:-4])
        for name, n in LEVELS.items():
            if n == plies:
                return name
    raise EngineError(f"bgsage labels a value with an unknown level {label!r}")
