"""The board position: the immutable `Position` value, its validity check and GNU Position IDs.

Each side's checkers are a tuple of 26 counts in that side's own numbering: index 1-24 are its
points (1 = its ace point), 25 is its bar, index 0 is unused and always 0. Borne-off checkers
are implicit: `checkers` (15, fewer for Hypergammon) minus the checkers on the board. The side on
roll (the "mover") comes first. The opponent's point p is the mover's point 25 - p.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from operator import mul
from typing import Any, Final, NamedTuple

from bgparse.helpers.errors import RulesError
from bgparse.rules.wording import plural

__all__ = [
    "BAR",
    "OFF",
    "VARIANTS",
    "Position",
    "PositionError",
    "PositionSummary",
]

#: Slot index of a side's bar; as a step's source it means "enter from the bar".
BAR: Final = 25
#: A step's destination for bearing off.
OFF: Final = 0

_set = object.__setattr__  # frozen dataclass fields are set this way


class PositionError(RulesError):
    """A position (or a Position ID, or a physical step) that cannot be what the caller says."""


class PositionSummary(NamedTuple):
    """What `Position.summary` returns: a tuple (it unpacks as one) with named fields."""

    position_id: str
    mover_pips: int
    opponent_pips: int
    race: bool


_new = tuple.__new__  # a NamedTuple without its interpreted __new__ (one per stored turn)


def _board(points: Mapping[Any, int], *, mirror: bool, who: str) -> tuple[int, ...]:
    board = [0] * 26
    for key, count in points.items():
        if key == "bar":
            index = BAR
        elif isinstance(key, int) and not isinstance(key, bool):
            if mirror:
                if not 1 <= key <= 24:
                    raise PositionError(
                        f"{who} point {key!r}: use 1-24 in the mover's numbering, or 'bar'"
                    )
                index = 25 - key
            else:
                if not 1 <= key <= 25:
                    raise PositionError(f"{who} point {key!r}: use 1-24, 25 or 'bar'")
                index = key
        else:
            raise PositionError(f"{who} point {key!r}: use an int or 'bar'")
        if not isinstance(count, int) or isinstance(count, bool):
            raise PositionError(f"{who} count at {key!r} is not an int: {count!r}")
        board[index] += count
    return tuple(board)


def _points_repr(board: tuple[int, ...], *, mirror: bool) -> str:
    items = []
    if board[BAR]:
        items.append(f"'bar': {board[BAR]}")
    if mirror:
        for p in range(1, 25):
            if board[25 - p]:
                items.append(f"{p}: {board[25 - p]}")
    else:
        for p in range(24, 0, -1):
            if board[p]:
                items.append(f"{p}: {board[p]}")
    return "{" + ", ".join(items) + "}"


#: Starting layouts by variant name, in a side's own numbering (the bar and 0 stay empty).
_STARTS: Final[dict[str, dict[int, int]]] = {
    "standard": {24: 2, 13: 5, 8: 3, 6: 5},
    "nackgammon": {24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
    "hypergammon1": {24: 1},
    "hypergammon2": {24: 1, 23: 1},
    "hypergammon3": {24: 1, 23: 1, 22: 1},
}
#: Starting positions by the variant name asked for (see `Position.initial`).
_INITIAL: dict[str, Position] = {}
#: The variant names `Position.initial` accepts (case, spaces, '-' and '_' are ignored).
VARIANTS: Final = tuple(_STARTS)


def _variant_key(variant: str) -> str:
    key = "".join(ch for ch in variant.lower() if ch not in " -_")
    if key == "hypergammon":
        key = "hypergammon3"
    if key not in _STARTS:
        raise PositionError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    return key


@dataclass(frozen=True, slots=True)
class Position:
    """A board with the side on roll ("mover") first; immutable and hashable.

    `mover` and `opponent` are 26 counts each in that side's own numbering (see the module
    docstring); `checkers` is how many checkers each side plays with. The constructor checks
    only the shape; `status()` names everything else that is wrong with a position.
    """

    mover: tuple[int, ...]
    opponent: tuple[int, ...]
    checkers: int = 15
    # Set once the position is known to have no defects (engine-made positions are born
    # checked), so repeated move generation does not re-validate it.
    _checked: bool = field(default=False, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        for name in ("mover", "opponent"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                try:
                    value = tuple(value)
                except TypeError:
                    raise PositionError(f"{name} must be 26 ints, got {value!r}") from None
                object.__setattr__(self, name, value)
            if len(value) != 26 or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in value
            ):
                raise PositionError(f"{name} must be 26 ints (index 0 unused, 25 bar): {value!r}")
        if isinstance(self.checkers, bool) or not isinstance(self.checkers, int):
            raise PositionError(f"checkers must be an int, got {self.checkers!r}")
        if not 1 <= self.checkers <= 15:
            raise PositionError(f"checkers must be 1-15, got {self.checkers}")

    @classmethod
    def _make(
        cls,
        mover: tuple[int, ...],
        opponent: tuple[int, ...],
        checkers: int,
        checked: bool = True,
    ) -> Position:
        """Build without checks: for the engine's own results and already-checked shapes."""
        pos = object.__new__(cls)
        _set(pos, "mover", mover)
        _set(pos, "opponent", opponent)
        _set(pos, "checkers", checkers)
        _set(pos, "_checked", checked)
        return pos

    # --- constructors -----------------------------------------------------------------------

    @classmethod
    def initial(cls, variant: str = "standard") -> Position:
        """The starting position of `variant` (standard, nackgammon, hypergammon1/2/3)."""
        # Positions are immutable: one per variant serves every game (a replay asks per game).
        pos = _INITIAL.get(variant) if cls is Position else None
        if pos is None:
            key = _variant_key(variant)
            layout = _STARTS[key]
            board = _board(layout, mirror=False, who="start")
            pos = cls._make(board, board, sum(layout.values()))
            if cls is Position:
                _INITIAL[variant] = pos
        return pos

    @classmethod
    def from_points(
        cls,
        mover: Mapping[Any, int],
        opponent: Mapping[Any, int] | None = None,
        *,
        checkers: int = 15,
    ) -> Position:
        """A position in the notation of RULES.md: `X {6: 13, 8: 1, 'bar': 1} / O {4: 2}`.

        Both mappings use the MOVER's numbering: mover points 1-24 (25 or 'bar' for its bar),
        opponent points 1-24 as the mover counts them ('bar' for the opponent's bar). Checkers
        not placed are borne off.
        """
        return cls(
            _board(mover, mirror=False, who="mover"),
            _board(opponent or {}, mirror=True, who="opponent"),
            checkers,
        )

    @classmethod
    def from_position_id(cls, position_id: str, *, checkers: int = 15) -> Position:
        """Decode a GNU Position ID (14 characters); the second half is the side on roll."""
        first, second = _decode_position_id(position_id)
        pos = cls(second, first, checkers)
        if pos.status():
            raise PositionError(
                f"Position ID {position_id!r} decodes to an invalid position: "
                + "; ".join(pos.defects())
            )
        # Known to have no defects, as `ensure_valid` marks it: its own Position ID and its
        # swap's are then encoded by the typed encoder (a match's identity asks for both).
        _set(pos, "_checked", True)
        return pos

    # --- views ------------------------------------------------------------------------------

    def __repr__(self) -> str:
        extra = f", checkers={self.checkers}" if self.checkers != 15 else ""
        return (
            f"Position.from_points({_points_repr(self.mover, mirror=False)}, "
            f"{_points_repr(self.opponent, mirror=True)}{extra})"
        )

    def __str__(self) -> str:
        """The fixed-width text diagram `validate` prints (the mover, X, at the bottom)."""
        from bgparse.rules.diagram import diagram

        return diagram(self)

    def position_id(self) -> str:
        """The GNU Position ID, the side NOT on roll encoded first (as gnubg's code does)."""
        if self._checked and _board_summary is not None:
            # The typed encoder (a game's final board, every game of every validation).
            fast = _board_summary(self.opponent, self.mover)
            if fast is not None:
                return fast[0]
        if not self._checked:  # a checked position has 0-15 checkers a side, none negative
            for side in (self.opponent, self.mover):
                if min(side) < 0 or sum(side) > 15:
                    raise PositionError(f"no Position ID for a side with counts {side!r}")
        return _encode_position_id(self.opponent, self.mover)

    def summary(self) -> PositionSummary:
        """(Position ID, mover's pips, opponent's pips, is_race) at once, as a
        `PositionSummary` (`position_id`, `mover_pips`, `opponent_pips`, `race`): what a
        stored turn keeps of its position. In C where the speed-ups are built (once per turn
        of every stored match, it was a tenth of an import), else from one cached look-up
        per side.
        Raises PositionError like `position_id`."""
        if self._checked and _board_summary is not None:
            fast = _board_summary(self.opponent, self.mover)
            if fast is not None:
                return _new(PositionSummary, fast)  # type: ignore[no-any-return]
        if not self._checked:
            self.position_id()  # the same checks and error
        opponent = _side_info(self.opponent)
        mover = _side_info(self.mover)
        # Rearmost checkers (own numbering) meet only while a + b > 25 (see has_contact).
        race = opponent[3] + mover[3] <= 25
        return _new(  # type: ignore[no-any-return]
            PositionSummary, (_join_halves(opponent, mover), mover[2], opponent[2], race)
        )

    def swap(self) -> Position:
        """The same board with the other side on roll."""
        return Position._make(self.opponent, self.mover, self.checkers, self._checked)

    def off(self) -> tuple[int, int]:
        """Borne-off checkers: (mover, opponent)."""
        return self.checkers - sum(self.mover), self.checkers - sum(self.opponent)

    def pips(self) -> tuple[int, int]:
        """Pip counts (a checker on the bar counts 25): (mover, opponent)."""
        return (
            sum(p * c for p, c in enumerate(self.mover)),
            sum(p * c for p, c in enumerate(self.opponent)),
        )

    def has_contact(self) -> bool:
        """Can the two sides still hit or block each other? (A checker on a bar always can.)"""
        back_mover = max((p for p in range(25, 0, -1) if self.mover[p]), default=0)
        back_opponent = max((p for p in range(25, 0, -1) if self.opponent[p]), default=0)
        # The mover's rearmost checker on its point a meets the opponent's rearmost on its
        # point b (= the mover's 25 - b) only while a > 25 - b.
        return back_mover > 0 and back_opponent > 0 and back_mover + back_opponent > 25

    def is_race(self) -> bool:
        """No contact left: each side's checkers have passed all of the other's."""
        return not self.has_contact()

    def is_game_over(self) -> bool:
        """One side has borne off all its checkers."""
        return sum(self.mover) == 0 or sum(self.opponent) == 0

    def status(self) -> tuple[str, ...]:
        """Stable codes of everything wrong with this position; empty when it is valid.

        `slot-zero` index 0 is not 0; `negative-count`; `checker-count` more checkers on the
        board than the side plays with; `shared-point` both colours on one point;
        `both-finished` both sides have borne everything off.
        """
        return tuple(code for code, _ in self._defects())

    def defects(self) -> tuple[str, ...]:
        """Human-readable descriptions of `status()`, one per defect."""
        return tuple(text for _, text in self._defects())

    def is_valid(self) -> bool:
        return not self._defects()

    def _defects(self) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        sides = (("mover", self.mover), ("opponent", self.opponent))
        for name, side in sides:
            if side[0]:
                found.append(("slot-zero", f"{name}: index 0 must be 0, is {side[0]}"))
        for name, side in sides:
            negative = [p for p in range(26) if side[p] < 0]
            if negative:
                found.append(("negative-count", f"{name}: negative count on {negative}"))
        for name, side in sides:
            if sum(side) > self.checkers:
                found.append(
                    (
                        "checker-count",
                        f"{name} has {sum(side)} checkers on the board, plays with {self.checkers}",
                    )
                )
        shared = [p for p in range(1, 25) if self.mover[p] > 0 and self.opponent[25 - p] > 0]
        if shared:
            on = plural(len(shared), "point")
            found.append(("shared-point", f"both colours on the mover's {on}: {shared}"))
        if sum(self.mover) == 0 and sum(self.opponent) == 0:
            found.append(("both-finished", "both sides have borne off all their checkers"))
        return found

    def ensure_valid(self) -> Position:
        """Return self, or raise PositionError naming every defect."""
        if not self._checked:
            defects = self.defects()
            if defects:
                raise PositionError(f"invalid position {self!r}: " + "; ".join(defects))
            object.__setattr__(self, "_checked", True)
        return self

    # --- physical change --------------------------------------------------------------------

    def apply(
        self, play: str | Iterable[tuple[int, int]] | Iterable[tuple[int, int, bool]]
    ) -> Position:
        """The position after the mover makes `play`, with the other side on roll: the
        convention of `Play.after`, `verify_play(...).after` and GNU Backgammon (`.swap()` of
        the result is the same board with the mover still on roll).

        `play` is move text in standard notation (`"13/10*/9 6/off"`, `"bar/22"`, `"8/4(2)"`)
        or steps (src, dst[, hit]) in the mover's numbering, 25 = bar, 0 = off. No dice or
        rules are checked (`legal_plays` and `verify_play` do that), only that each step can
        be made in turn: a checker on src, src > dst, dst not held by two opposing checkers. A
        landing on a lone opposing checker hits it, with or without a `*`; a `*` where no
        checker is hit is refused. Anything that cannot be made raises PositionError (a
        ValueError) quoting the move and why; text that is not notation raises PlayError."""
        mover = list(self.mover)
        opponent = list(self.opponent)
        if isinstance(play, str):
            _apply_text(play, mover, opponent)
        else:
            for step in play:
                if not (
                    isinstance(step, tuple | list)
                    and len(step) in (2, 3)
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in step[:2])
                ):
                    raise PositionError(f"step {step!r}: not (src, dst) or (src, dst, hit) ints")
                why = _step(mover, opponent, step[0], step[1])
                if why is not None:
                    raise PositionError(f"step {step[0]}/{step[1]}: {why}")
        return Position(tuple(opponent), tuple(mover), self.checkers)


def _step(mover: list[int], opponent: list[int], src: int, dst: int) -> str | None:
    """Move one of the mover's checkers from `src` to `dst` in place; why not, or None. A
    hit blot goes to the opponent's bar."""
    if not (1 <= src <= 25 and 0 <= dst <= 24 and dst < src):
        return "points out of range or backwards"
    if mover[src] <= 0:
        return f"no checker of the mover on {'the bar' if src == BAR else src}"
    if dst:
        there = opponent[25 - dst]
        if there >= 2:
            return f"point {dst} is blocked"
        if there == 1:
            opponent[25 - dst] = 0
            opponent[BAR] += 1
        mover[dst] += 1
    mover[src] -= 1
    return None


def _apply_text(text: str, mover: list[int], opponent: list[int]) -> None:
    """`Position.apply` of move text: each group's checkers moved in place, in the order
    written (the notation module imports this one, hence the late import)."""
    from bgparse.rules.notation import parse_play, point_text, segment_text

    starred: list[tuple[int, str]] = []
    hit_at: set[int] = set()
    for group in parse_play(text):
        shown = "/".join(
            point_text(p) + ("*" if h else "")
            for p, h in zip(group.points, group.hits, strict=True)
        ) + (f"({group.count})" if group.count > 1 else "")
        starred += [(p, shown) for p, h in zip(group.points, group.hits, strict=True) if h]
        for _ in range(group.count):
            for src, dst in zip(group.points, group.points[1:], strict=False):
                blot = 0 < dst <= 24 and 1 <= src <= 25 and opponent[25 - dst] == 1
                why = _step(mover, opponent, src, dst)
                if why is not None:
                    raise PositionError(
                        f"move {shown!r} in {text!r}: {segment_text(src, dst)}: {why}"
                    )
                if blot:
                    hit_at.add(dst)
    # A star marks a hit by the play, not by that group: `10/8 10/8*` hits once, with either.
    for point, shown in starred:
        if point not in hit_at:
            raise PositionError(
                f"move {shown!r} in {text!r}: no opposing checker on {point} to hit"
            )


# --- GNU Position ID ------------------------------------------------------------------------

_BoardSummary = Callable[[tuple[int, ...], tuple[int, ...]], tuple[str, int, int, bool] | None]
_board_summary: _BoardSummary | None
try:  # the typed C version of `Position.summary` (setup.py builds it where it can)
    from bgparse.rules._speedups import board_summary as _board_summary
except ImportError:
    _board_summary = None


#: Per checker count, the bits a slot contributes to a Position ID key, most significant first
#: (a 0 separator after the count's 1s, read least significant bit first in the key).
_SLOT_BITS: Final = tuple("0" + "1" * c for c in range(16))


@lru_cache(maxsize=1 << 13)
def _side_info(side: tuple[int, ...]) -> tuple[int, int, int, int]:
    """One side's half of the Position ID key as (value, number of bits), with its pip count
    and its rearmost occupied slot (25 the bar, 0 none). Cached: in a replay each side's board
    stays the same while the other side moves, so every board is looked at twice."""
    bits = _SLOT_BITS
    text = "".join([bits[c] for c in side[25:0:-1]])
    back = 25
    while back and not side[back]:
        back -= 1
    return int(text, 2), len(text), sum(map(mul, side, _SLOTS)), back


_SLOTS = range(26)


def _encode_position_id(first: tuple[int, ...], second: tuple[int, ...]) -> str:
    # 80-bit key: per side, per slot (points 1-24, then the bar) one 1-bit per checker and a
    # 0-bit separator, least significant bit first: `first` fills the low bits, `second` the
    # ones above it.
    return _join_halves(_side_info(first), _side_info(second))


def _join_halves(first: tuple[int, int, int, int], second: tuple[int, int, int, int]) -> str:
    """The Position ID of two sides' `_side_info`: `first` in the low bits."""
    key = (second[0] << first[1]) | first[0]
    return binascii.b2a_base64(key.to_bytes(10, "little"), newline=False)[:14].decode("ascii")


def _decode_position_id(position_id: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    text = position_id.strip()
    if len(text) != 14:
        raise PositionError(f"Position ID must be 14 characters, got {position_id!r}")
    try:
        raw = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise PositionError(f"Position ID {position_id!r} is not base64") from None
    bits = int.from_bytes(raw, "little")
    sides: list[tuple[int, ...]] = []
    shift = 0
    for _ in range(2):
        board = [0] * 26
        for slot in range(1, 26):
            count = 0
            while (bits >> shift) & 1:
                count += 1
                shift += 1
                if shift >= 80:
                    raise PositionError(f"Position ID {position_id!r}: too many checkers")
            shift += 1
            board[slot] = count
        if sum(board) > 15:
            raise PositionError(f"Position ID {position_id!r}: a side has over 15 checkers")
        sides.append(tuple(board))
    if bits >> shift:
        raise PositionError(f"Position ID {position_id!r}: bits set after both sides")
    return sides[0], sides[1]
