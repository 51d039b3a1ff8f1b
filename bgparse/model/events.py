"""The format-neutral event record that every reader produces and the replay consumes.

Nothing here knows the rules: plays are kept exactly as notated (merged steps, repeat counts,
hit stars or their absence) and are resolved against a real position only by the replay.
Sides are by column: side 0 is the left column of a `.mat` score line (GNU's player 0, SGF
White), side 1 the right column.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from bgparse.model.findings import Finding

if TYPE_CHECKING:
    from bgparse.analysis.model import Note

__all__ = [
    "BAR",
    "GENERATED",
    "GENERATOR",
    "OFF",
    "Action",
    "Beaver",
    "CannotMove",
    "Comment",
    "Double",
    "Drop",
    "Game",
    "HiddenPlay",
    "IllegalPlay",
    "Loss",
    "MatchInfo",
    "MatchRecord",
    "Move",
    "Raccoon",
    "Resign",
    "Roll",
    "SetPosition",
    "Span",
    "Take",
    "Win",
    "make_roll",
]

#: Point numbers as notated, from the mover's own side: 25 is its bar, 0 is off.
BAR = 25
OFF = 0

#: The transcriber `bgparse generate` names in the files it writes (the `.mat` tag
#: `; [Transcriber "bgparse generate"]`, SGF `AN[bgparse generate]`): the mark by which the
#: readers tell a generated match, whose dialect (and so the dataset's `source`) is GENERATED.
GENERATOR = "bgparse generate"
GENERATED = "bgparse-generated"


class Span(NamedTuple):
    """Where something stands in the original file: 1-based line and column, and its width.

    A named tuple rather than a dataclass: every action carries one, and a reader makes a
    hundred thousand of them per megabyte, where a tuple costs a third less to build."""

    line: int
    column: int
    length: int = 0


@dataclass(frozen=True, slots=True)
class Move:
    """One written move group, unresolved: `13/7*/4(2)` is points (13, 7, 4), hits
    (False, True, False), count 2. A hit flag belongs to the point it follows."""

    points: tuple[int, ...]
    hits: tuple[bool, ...]
    count: int = 1

    @property
    def source(self) -> int:
        return self.points[0]

    @property
    def dest(self) -> int:
        return self.points[-1]

    def notation(self) -> str:
        parts = []
        for i, p in enumerate(self.points):
            s = "bar" if (p == BAR and i == 0) else ("off" if p == OFF and i > 0 else str(p))
            parts.append(s + ("*" if self.hits[i] else ""))
        text = "/".join(parts)
        return f"{text}({self.count})" if self.count != 1 else text


# --- actions -----------------------------------------------------------------------------------
# Every action has `side` (0 left, 1 right) and `span` (where its cell starts).


@dataclass(frozen=True, slots=True)
class Roll:
    """Dice in the order written and the play as written. An empty `moves` is a roll written with
    no play at all (`52:`): a dance, or dice rolled before a resignation; the replay decides."""

    side: int
    dice: tuple[int, int]
    moves: tuple[Move, ...]
    span: Span
    #: The play exactly as the record wrote it (empty where a reader has no text form).
    text: str = ""


_new = object.__new__
# The slots' own stores: a frozen dataclass refuses `roll.side = ...`, and object.__setattr__
# looks the name up on the type before it stores; a slot descriptor's __set__ is the store.
_set_side, _set_dice, _set_moves, _set_span, _set_text = (
    Roll.__dict__[name].__set__ for name in ("side", "dice", "moves", "span", "text")
)


def make_roll(
    side: int, dice: tuple[int, int], moves: tuple[Move, ...], span: Span, text: str = ""
) -> Roll:
    """`Roll(side, dice, moves, span, text)` for readers, which make one per roll: a frozen
    dataclass's generated __init__ runs as interpreted code even where bgparse is compiled,
    and this does not (and takes a third less time than object.__setattr__ for each field)."""
    roll = _new(Roll)
    _set_side(roll, side)
    _set_dice(roll, dice)
    _set_moves(roll, moves)
    _set_span(roll, span)
    _set_text(roll, text)
    return roll


@dataclass(frozen=True, slots=True)
class CannotMove:
    """`DD: Cannot Move` (or another explicit no-play marker)."""

    side: int
    dice: tuple[int, int]
    span: Span


@dataclass(frozen=True, slots=True)
class HiddenPlay:
    """`DD: ???` / `????` / `00: ????`: the play is not shown (usually a resignation follows)."""

    side: int
    dice: tuple[int, int]
    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class IllegalPlay:
    """`DD: Illegal play (...)`: a producer's dump of a set-up board instead of a play.
    `fields` are the dump's `;`-separated values as written (Snowie's 40-field layout);
    `board` the board they show, with the other side to roll next (its board first, each in
    its own numbering), or None where they do not read as one."""

    side: int
    dice: tuple[int, int]
    fields: tuple[str, ...]
    span: Span
    board: tuple[tuple[int, ...], tuple[int, ...]] | None = None


@dataclass(frozen=True, slots=True)
class Double:
    """`Doubles => N` (also `==>`): the cube offered at value N."""

    side: int
    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class Beaver:
    """`Beavers => N`: the doubled side redoubles at once and keeps the cube."""

    side: int
    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class Raccoon:
    """`Raccoons => N`: the original doubler redoubles a beaver."""

    side: int
    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class Take:
    side: int
    span: Span


@dataclass(frozen=True, slots=True)
class Drop:
    side: int
    span: Span


@dataclass(frozen=True, slots=True)
class Resign:
    """An explicit resignation: `Resign normal|gammon|backgammon`, `Resigned Game`, SGF
    resignation properties. `level` is 1, 2 or 3 where the text says, else None."""

    side: int
    level: int | None
    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class Win:
    """`Wins N point(s) [and the match]`, as written (N may be garbage: the replay judges)."""

    side: int
    points: int
    and_match: bool
    span: Span


@dataclass(frozen=True, slots=True)
class Loss:
    """`Losses N point(s)` (Backgammon Galaxy writes it in the loser's cell)."""

    side: int
    points: int
    span: Span


@dataclass(frozen=True, slots=True)
class SetPosition:
    """A board set up inside a game (XG `; Set Pos=`, SGF `AE/AB/AW` setup nodes).

    `boards[s]` holds side s's checkers in its own numbering: index 1-24 points, 25 bar,
    index 0 unused (borne-off checkers are 15 minus the rest, or `checkers` for variants).
    Unknown items are None: the replay keeps what it had."""

    boards: tuple[tuple[int, ...], tuple[int, ...]] | None
    side_on_roll: int | None
    cube_value: int | None
    cube_owner: int | None  # -1 centred, 0, 1
    dice: tuple[int, int] | None
    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment attached between actions (SGF `C[...]`, `;` lines inside a game)."""

    side: int | None
    text: str
    span: Span


Action = (
    Roll
    | CannotMove
    | HiddenPlay
    | IllegalPlay
    | Double
    | Beaver
    | Raccoon
    | Take
    | Drop
    | Resign
    | Win
    | Loss
    | SetPosition
    | Comment
)


@dataclass(frozen=True, slots=True)
class Game:
    """One game: its number and score line as written, then its actions in order."""

    number: int
    score: tuple[int, int]
    actions: tuple[Action, ...]
    span: Span
    names: tuple[str, str] = ("", "")
    #: Rule hints a format states per game (SGF `RU[...CrawfordGame]`): raw words.
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """The header tags a reader understands, typed; None where the file does not say."""

    site: str | None = None
    match_id: str | None = None
    event: str | None = None
    round: str | None = None
    event_date: str | None = None  # ISO YYYY-MM-DD where parseable, else as written
    event_time: str | None = None
    player1: str | None = None
    player2: str | None = None
    elo1: float | None = None
    elo2: float | None = None
    variation: str | None = None
    crawford: bool | None = None
    jacoby: bool | None = None
    beaver: bool | None = None
    cube_limit: int | None = None
    unrated: bool | None = None
    transcriber: str | None = None
    ratings: tuple[float | None, float | None] = (None, None)


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match or money session as a file records it.

    `tags` keeps every header tag exactly as written, in order; `info` holds the known ones
    typed. `errors` are the reader's findings (syntax and layout): a record with errors still
    carries every game the reader could recover."""

    path: str
    format: str  # "mat" | "sgf" | "xg" | "gnutext"
    players: tuple[str, str]
    length: int  # 0 = money session
    games: tuple[Game, ...]
    tags: tuple[tuple[str, str], ...] = ()
    info: MatchInfo = field(default_factory=MatchInfo)
    dialect: str = "unknown"
    comments: tuple[str, ...] = ()
    errors: tuple[Finding, ...] = ()
    span: Span = Span(1, 1)  # noqa: RUF009 - a named tuple, immutable
    #: Index of this match within its file (files may hold several), 0-based.
    index: int = 0
    #: Whether the record marks hits with stars at all (a missing star is then a slip).
    hit_marks: bool = True
    #: The analysis the record stores (`bgparse.analysis.model`'s notes, each naming the
    #: action it is about by its span), and whose it is: one of `analysis.model.SOURCES`.
    analysis: tuple[Note, ...] = ()
    analysis_source: str | None = None

    def iter_actions(self) -> Iterator[tuple[Game, Action]]:
        for game in self.games:
            for action in game.actions:
                yield game, action

    def tag(self, key: str) -> str | None:
        """The first tag of that name (case-insensitive), as written."""
        k = key.lower()
        for name, value in self.tags:
            if name.lower() == k:
                return value
        return None
