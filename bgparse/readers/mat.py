"""The Jellyfish `.mat` reader: every real-world dialect into event records, with exact spans.

Reading is three steps. Python splits the text into matches (at each `N point match` line) and
each match into games (at each `Game N` line); that is layout a grammar has no business with,
and it lets one broken game be reported without losing the rest of the file. The lark grammar
(`grammars/mat.lark`) then parses each game body into rows of cell tokens. Last, each cell is
given to its side by its start column and turned into an event.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from dataclasses import replace as _replace_game
from functools import cache, lru_cache
from types import ModuleType
from typing import Any, NamedTuple, cast

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput

from bgparse.helpers.resources import cached_lark
from bgparse.model.events import (
    GENERATED,
    GENERATOR,
    Action,
    Beaver,
    CannotMove,
    Comment,
    Double,
    Drop,
    Game,
    HiddenPlay,
    IllegalPlay,
    Loss,
    MatchInfo,
    MatchRecord,
    Move,
    Raccoon,
    Resign,
    Roll,
    SetPosition,
    Span,
    Take,
    Win,
    make_roll,
)
from bgparse.model.findings import Finding
from bgparse.readers.boards import snowie_board, xg_set_pos
from bgparse.readers.numbers import (
    MAX_NUMBER,
    find_too_large,
    quote,
    read_bounded,
    read_int,
    too_large_message,
)
from bgparse.rules.wording import plural

__all__ = [
    "GAM_START",
    "MAX_MATCH_LENGTH",
    "has_match_line",
    "info_from_tags",
    "iter_gam_matches",
    "iter_mat_matches",
    "parse_move_word",
]

#: The longest match bgparse accepts (GNU accepts 64; some servers run longer sessions).
MAX_MATCH_LENGTH = 999

#: Builds a named tuple from a tuple of its fields without its generated (interpreted) __new__.
_tuple_new = tuple.__new__

_MATCH_LINE = re.compile(r"^[ \t]*(-?\d+)[ \t]*points?[ \t]+match\b[^\n]*$", re.M | re.I)
#: The same lines found from the newline before them: a search skips to a literal first
#: character, where a pattern led by `^` is tried at every character (four times slower, and
#: a sixteenth of an import's instructions with the game lines').
_MATCH_LINE_AFTER_NL = re.compile("\n" + _MATCH_LINE.pattern[1:], re.M | re.I)
_GAME_LINE_AFTER_NL = re.compile(r"\n[ \t]*game[ \t]+-?\d+\b", re.I)
#: A game line from its start (where `_cells.lines_that_may_start` found one may stand).
_GAME_LINE = re.compile(r"[ \t]*game[ \t]+-?\d+\b", re.I)
# Possessive runs: with a lazy name between two blank runs, a line of `[` and thousands of blanks
# with no quote cost the cube of its length. The name keeps its blanks; readers strip it.
_TAG = re.compile(r'^[ \t]*+[;#]?+[ \t]*+\[([^\]"]*+)"(.*)"[ \t]*+\][ \t]*+$')
#: A name in a score line: anything up to the first colon that a score follows. Written so
#: that nothing is tried twice (lazy `.*?` names with `[ \t]*` around them made a long run of
#: blanks cost the cube of its length); names are stripped afterwards.
_NAME = r"[^:\n]*+(?::(?![ \t]*+-?\d)[^:\n]*+)*+"
_SCORE = re.compile(
    rf"^(?P<left>{_NAME}):[ \t]*+(?P<ls>-?\d++)[ \t]*+(?P<right>{_NAME}):[ \t]*+(?P<rs>-?\d++)"
)
_SCORE_ONE = re.compile(rf"^(?P<left>{_NAME}):[ \t]*+(?P<ls>-?\d)")
_ROW_START = re.compile(r"^\d+\)")
#: A row number where a line may have one: at its start or after a blank (not a `(2)` count).
_ROW_NUMBER = re.compile(r"(?:^|(?<=[ \t\f\v]))(\d+)\)")
#: Where a row number too large to read may stand: ten digits or more, then ")". Found from the
#: ")" (a literal, which a search skips to) and not by trying a run of digits at every character,
#: which took a twentieth of the reading time.
_LONG_ROW_NUMBER = re.compile(r"\)(?<=\d{10}\))")
_RATING = re.compile(r"^(?P<name>.*?),[ \t]*(?P<rating>\d+(?:[.,]\d+)?)$")
_SET_POS = re.compile(
    r"^[;#][ \t]*set[ \t]+pos[ \t]*=[ \t]*(?P<board>[^/\s]+)(?:/(?P<cube>-?\d+))?", re.I
)
_ELO = re.compile(r"^\s*(-?\d+(?:[.,]\d+)?)")
_WIN_NUM = re.compile(r"-?\d+")

_POINT_WORDS = {"bar": 25, "b": 25, "off": 0, "o": 0}


#: What splits a row into cells: the grammar's cell terminals, the row number (which may also
#: stand between cells, where it starts a row of its own) and END, the end of the line. No two
#: of them match at the same place (dice, a row number and each keyword start differently), so
#: their order changes nothing but speed: the commonest first (a roll, the row's own number and
#: the end, which each row has; tried behind the keywords they cost an eighth of the split).
_CELL_TYPES = (
    "ROLL",
    "ROWNO",
    "END",
    "DOUBLE",
    "BEAVER",
    "RACCOON",
    "TAKE",
    "DROP",
    "WIN",
    "LOSS",
    "RESIGN",
)


class _Bodies(Transformer[Token, Any]):
    """Hands back the tokens of a game body, a line or a row: no tree, no semantics here."""

    def game(self, children: list[Token]) -> list[Token]:
        return children

    def line(self, children: list[Token]) -> list[Token]:
        return children

    def cells(self, children: list[Token]) -> list[Token]:
        return children


@cache
def _parser() -> Lark:
    return cached_lark(
        "mat.lark",
        parser="lalr",
        lexer="contextual",
        start=["game", "line", "cells"],
        transformer=_Bodies(),
        maybe_placeholders=False,
    )


def _parse(text: str, start: str) -> list[Token]:
    """The grammar's tokens for `text` (the transformer hands back flat token lists)."""
    return cast(list[Token], _parser().parse(text, start=start))


_DIGIT_RUN_START = r"(?<!\d)"


@cache
def _cell_regex() -> re.Pattern[str]:
    """The grammar's own cell terminals as one pattern with a group per cell type (and END): what
    splits a ROW token into its cells, exactly as the grammar's ROW pattern recognised them."""
    parser = _parser()
    # No cell starts with a blank, so the search skips blanks itself: a leading `[ \t]*+` made
    # it quadratic on a long run of blanks with no cell after it (each start ate the whole run),
    # and a row number is tried only where a run of digits starts, for the same reason.
    alternatives = (
        r"(?P<END>\Z)"
        if name == "END"
        else f"(?P<{name}>{_DIGIT_RUN_START if name == 'ROWNO' else ''}"
        f"{parser.get_terminal(name).pattern.to_regexp()})"
        for name in _CELL_TYPES
    )
    return re.compile("|".join(alternatives))


#: Group numbers of `_cell_regex()` and `_cell_matcher()` (the same in both): which cell matched
#: is `match.lastindex`, an int compare where `lastgroup` is a name looked up per cell.
_ROLL_GROUP = 1 + _CELL_TYPES.index("ROLL")
_ROWNO_GROUP = 1 + _CELL_TYPES.index("ROWNO")
_END_GROUP = 1 + _CELL_TYPES.index("END")

#: The words that end a roll cell (the negative look-ahead of the grammar's ROLL): where a word
#: could start one, the typed splitter asks this rather than read the keywords itself
#: (tests/test_mat_cells.py checks it is the grammar's).
ROLL_STOP = r"(?i:doubles|redoubles|beavers|raccoons|takes|drops|wins|losses|resign)\b"

_cells: ModuleType | None
try:  # the typed C reading of games and cells (setup.py builds it where it can)
    from bgparse.readers import _cells as _typed
except ImportError:
    _cells = None
else:
    _cells = _typed
    if _typed.GROUPS != {"ROLL": _ROLL_GROUP, "ROWNO": _ROWNO_GROUP, "END": _END_GROUP}:
        _cells = None  # pragma: no cover - a build older than the cell types: the Python loop


@cache
def _cell_matcher() -> Callable[[str, int], re.Match[str] | None]:
    """`_cell_regex()` anchored where the last cell ended: the blanks, then one cell, or the end
    of the line. In a row the grammar read every cell follows the last after blanks only, so
    this finds what a search finds without trying a cell at every blank of the padding (a
    search from each blank cost twice the time of the whole grammar parse). It returns None
    only where text that starts no cell stands there; `_split_row` then searches on."""
    return re.compile(rf"[ \t\f\v]*+(?:{_cell_regex().pattern})").match


@cache
def _typed_hooks() -> tuple[Any, ...]:
    """What `_cells` asks for the cells it does not read itself: the anchored cell matcher,
    the cell search, the roll's stop words and the display column of a cell on a row with tabs."""
    return (_cell_matcher(), _cell_regex().search, re.compile(ROLL_STOP).match, _visual)


@cache
def _game_hooks() -> tuple[Any, ...]:
    """What `_cells.game_lines` asks: the grammar's SCORE terminal, the cell matcher, the roll's
    stop words and the type of a line."""
    score = re.compile(_parser().get_terminal("SCORE").pattern.to_regexp()).match
    return (score, _cell_matcher(), re.compile(ROLL_STOP).match, _Line)


def _split_row(text: str) -> list[re.Match[str]]:
    """The cells (and row numbers between them) of a row, as a search with `_cell_regex()`
    finds them after the row's own leading number; each cell is its match's group `lastindex`."""
    match = _cell_matcher()
    cells: list[re.Match[str]] = []
    pos = 0
    m = match(text, 0)
    if m is not None and m.lastindex == _ROWNO_GROUP:
        pos = m.end()  # the row's own number: not a cell
        m = match(text, pos)
    while True:
        if m is None:
            # Something no cell starts with (a row the grammar took by backtracking): skip to
            # the next cell as a search does, so the cells are the same either way.
            m = _cell_regex().search(text, pos)
        if m is None or m.lastindex == _END_GROUP:
            return cells
        cells.append(m)
        pos = m.end()
        m = match(text, pos)


def has_match_line(text: str) -> bool:
    return next(_match_lines(text), None) is not None


def _match_lines(text: str) -> Iterator[re.Match[str]]:
    """`_MATCH_LINE.finditer(text)`, found faster: each line after a newline that the
    newline-led pattern finds, matched again from its start by `_MATCH_LINE` itself; or, where
    the C reader is built, each line it finds may be one."""
    at = _MATCH_LINE.match
    if _cells is not None:
        for start in _cells.lines_that_may_start(text, 0, len(text), False):
            line = at(text, start)
            if line is not None:
                yield line
        return
    first = _MATCH_LINE.match(text)
    if first is not None:
        yield first
    for m in _MATCH_LINE_AFTER_NL.finditer(text):
        line = at(text, m.start() + 1)
        assert line is not None
        yield line


@lru_cache(maxsize=1 << 14)
def parse_move_word(word: str) -> Move | None:
    """One written move group (`13/7*/4(2)`, `bar/22`, `6/off`, `25/20*`); None if it is not one.

    Cached: real records repeat the same few hundred words millions of times."""
    w = word.rstrip(",")
    count = 1
    if w.endswith(")"):
        i = w.rfind("(")
        if i <= 0 or not w[i + 1 : -1].isdigit():
            return None
        n = _read_or_none(w[i + 1 : -1])
        if n is None:
            return None
        count = n
        w = w[:i]
    parts = w.split("/")
    if len(parts) < 2:
        return None
    points: list[int] = []
    hits: list[bool] = []
    for part in parts:
        star = part.endswith("*")
        if star:
            part = part.rstrip("*")
        p = _POINT_WORDS.get(part.lower())
        if p is None:
            p = _read_or_none(part)
            if p is None:
                return None
        points.append(p)
        hits.append(star)
    return Move(tuple(points), tuple(hits), count)


def _read_or_none(text: str) -> int | None:
    """A number of a move word; None for what is none, or too large (the caller says which)."""
    try:
        return read_int(text)
    except ValueError:
        return None


@dataclass(slots=True)
class _Features:
    """What a match's text shows about its producer; read by `_detect_dialect`."""

    bar_words: Counter[str] = field(default_factory=Counter)
    off_words: Counter[str] = field(default_factory=Counter)
    counts: int = 0
    rolls: int = 0
    low_high: int = 0
    arrow_long: int = 0
    ratings: bool = False


@dataclass(slots=True)
class _MatchContext:
    path: str
    text: str  # the match's own text: its header, match line and games
    first_line: int  # the file's line number of the first line of `text`
    errors: list[Finding]
    features: _Features
    # Distinct plays of the match: what the dialect is read from, without a cost per roll.
    plays_seen: set[Any] = field(default_factory=set)
    # The lines of `text`, cut when a finding first quotes one: the match's, not the file's,
    # so that reading a file of thousands of matches holds one match's lines at a time.
    lines: list[str] | None = None

    def source(self, line: int) -> str | None:
        if self.lines is None:
            self.lines = self.text.split("\n")
        i = line - self.first_line
        if 0 <= i < len(self.lines):
            return self.lines[i]
        return None

    def error(self, code: str, message: str, line: int, column: int, game: int | None) -> None:
        self.errors.append(
            Finding.make(code, message, line, column, game=game, source_line=self.source(line))
        )

    def number(self, text: str, what: str, line: int, column: int, game: int | None) -> int:
        """`text`'s value, or MAX_NUMBER with an S017 finding where it is too large to read."""
        value, problem = read_bounded(text, what)
        if problem is not None:
            self.error("S017", problem, line, column, game)
        return value


def _tag_value_bool(value: str) -> bool | None:
    v = value.strip().lower()
    if v in ("on", "yes", "true", "1"):
        return True
    if v in ("off", "no", "false", "0"):
        return False
    return None


_FRACTION = re.compile(r"[.,]")


def _whole(number: str) -> str:
    """The whole part of a rating (`1500.25`, `1500,25`): its decimals may run long."""
    return _FRACTION.split(number, maxsplit=1)[0]


def _elo(value: str) -> float | None:
    m = _ELO.match(value)
    if m is None or find_too_large(_whole(m.group(1))) is not None:  # reported: S017
        return None
    return float(m.group(1).replace(",", "."))


def _rating_tag(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _iso_date(value: str) -> str:
    v = value.strip()
    m = re.match(r"^(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})$", v)
    if m:
        return f"{int(m.group(1)):04d}-{int(m.group(2)):02d}-{int(m.group(3)):02d}"
    return v


def info_from_tags(
    tags: list[tuple[str, str]], ratings: tuple[float | None, float | None]
) -> MatchInfo:
    """The typed match information of `.mat` header tags (also of the `.mat` tags an SGF file
    written by bgparse carries in its `XT` property)."""
    d: dict[str, str] = {}
    for k, v in tags:
        d.setdefault(k.strip().lower(), v.strip())
    if ratings == (None, None):
        # A `.mat` file bgparse wrote from SGF carries GNU's ratings as `SGF WR`/`SGF BR`.
        ratings = (_rating_tag(d.get("sgf wr")), _rating_tag(d.get("sgf br")))
    cube_limit: int | None = None
    if "cubelimit" in d:
        try:
            cube_limit = read_int(d["cubelimit"])  # None when too large (reported: S017)
        except ValueError:
            cube_limit = None
    return MatchInfo(
        site=d.get("site"),
        match_id=d.get("match id"),
        event=d.get("event"),
        round=d.get("round"),
        event_date=_iso_date(d["eventdate"]) if "eventdate" in d else None,
        event_time=d.get("eventtime"),
        player1=d.get("player 1"),
        player2=d.get("player 2"),
        elo1=_elo(d["player 1 elo"]) if "player 1 elo" in d else None,
        elo2=_elo(d["player 2 elo"]) if "player 2 elo" in d else None,
        variation=d.get("variation"),
        crawford=_tag_value_bool(d["crawford"]) if "crawford" in d else None,
        jacoby=_tag_value_bool(d["jacoby"]) if "jacoby" in d else None,
        beaver=_tag_value_bool(d["beaver"]) if "beaver" in d else None,
        cube_limit=cube_limit,
        unrated=_tag_value_bool(d["unrated"]) if "unrated" in d else None,
        transcriber=d.get("transcriber"),
        ratings=ratings,
    )


#: Dialects whose producers never mark hits with a star.
_NO_HIT_MARKS = frozenset({"galaxy-a", "xg-mobile"})

_SITE_DIALECTS = (
    ("xg mobile", "xg-mobile"),
    ("backgammongalaxy", "galaxy"),
    ("backgammon galaxy", "galaxy"),
    ("backgammon studio", "backgammon-studio"),
    ("opengammon", "opengammon"),
    ("foxamon", "foxamon"),
    ("gammonsite", "gammonsite"),
    ("gridgammon", "gridgammon"),
    ("gamesgrid", "gridgammon"),
    ("extreme gammon", "xg"),
    ("dailygammon", "dailygammon"),
)


def _detect_dialect(tags: list[tuple[str, str]], f: _Features) -> str:
    """Producer and dialect from the Site tag where it speaks, else from the layout."""
    d = {k.strip().lower(): v.strip().lower() for k, v in tags}
    if d.get("transcriber") == GENERATOR:
        return GENERATED  # written by `bgparse generate` (its layout is GNU's)
    site = d.get("site", "")
    text_style = (f.bar_words["Bar"] + f.off_words["Off"] > 0) or f.counts > 0
    for needle, name in _SITE_DIALECTS:
        if needle in site:
            if name == "galaxy":
                return "galaxy-b" if text_style else "galaxy-a"
            if name == "xg" and text_style:
                return "xg-text"
            return name
    if "player 1 elo" in d or "unrated" in d or "cubelimit" in d:
        # XG-style tags without a site we know (XG transcriptions, hobby exporters, bots).
        return "xg-text" if text_style else "xg"
    if f.ratings:
        return "gridgammon"
    if f.arrow_long:
        return "choue-net"
    if f.bar_words["bar"] + f.off_words["off"] > 0:
        return "backgammon-studio-like"
    if text_style:
        return "xg-text"
    if f.rolls and f.low_high * 4 > f.rolls:
        return "jellyfish-as-rolled"
    return "jellyfish"


def _strip_rating(name: str) -> tuple[str, float | None]:
    m = _RATING.match(name)
    if m is None:
        return name, None
    rating = m.group("rating")
    if find_too_large(_whole(rating)) is not None:  # reported with the score line (S017)
        return m.group("name").strip(), None
    return m.group("name").strip(), float(rating.replace(",", "."))


class _Line(NamedTuple):
    """One line of a game body: "row" (cells, maybe a row number) or "comment"."""

    kind: str
    number: int  # 1-based line number in the file
    text: str  # the whole line as in the file


def _line_of(tok: Token, kind: str, first_line: int) -> _Line:
    """A ROW/COMMENT/SCORE token starts with the line break before it: drop that, keep the line."""
    text = str(tok)
    nl = text.rfind("\n")
    return _Line(kind, first_line + (tok.line or 1) - 1 + text.count("\n"), text[nl + 1 :])


@dataclass(frozen=True, slots=True, eq=False)  # identity hash: one object per play text
class _Play:
    """What follows a roll's dice, read once (cached: plays repeat) with what it shows of its
    producer's habits. kind: "play", "cannot", "hidden", "illegal"."""

    kind: str
    moves: tuple[Move, ...]
    bad: tuple[tuple[int, str], ...]  # (offset in the play text, word) that is no move
    counts: int
    bar_word: str | None
    off_word: str | None
    text: str  # stripped, for hidden plays and dumps
    simple: bool = False  # a play whose every word is a move


_NO_PLAY_WORDS = ("cannot", "can't", "cant")


@lru_cache(maxsize=1 << 16)
def _read_play(rest: str) -> _Play:
    stripped = rest.strip()
    low = stripped.lower()
    if low.startswith(_NO_PLAY_WORDS):
        return _Play("cannot", (), (), 0, None, None, stripped)
    if stripped.startswith("?"):
        return _Play("hidden", (), (), 0, None, None, stripped)
    if low.startswith("illegal"):
        return _Play("illegal", (), (), 0, None, None, stripped)
    words = (rest.replace(",", " ") if "," in rest else rest).split()
    parsed = [parse_move_word(w) for w in words]
    bad: list[tuple[int, str]] = []
    if None in parsed:
        pos = 0
        for word, mv in zip(words, parsed, strict=True):
            at = rest.find(word, pos)
            pos = at + len(word)
            if mv is None:
                bad.append((at, word))
    moves = [mv for mv in parsed if mv is not None]
    counts = sum(mv.count != 1 for mv in moves)
    bar_word = off_word = None
    for word, mv in zip(words, parsed, strict=True):
        if mv is not None:
            if mv.points[0] == 25:
                bar_word = word.split("/", 1)[0]
            if mv.points[-1] == 0:
                off_word = word.rsplit("/", 1)[-1].split("(")[0].rstrip("*")
    return _Play("play", tuple(moves), tuple(bad), counts, bar_word, off_word, stripped, not bad)


class _RollCell(NamedTuple):
    """A roll cell whose every word is a move, read once: its dice, 1 where they are written
    low die first, its play, and the play's moves and text (unpacked per roll as a tuple)."""

    dice: tuple[int, int]
    low_high: int
    play: _Play
    moves: tuple[Move, ...]
    text: str


@lru_cache(maxsize=1 << 16)
def _read_roll_cell(cell: str) -> _RollCell | None:
    """A ROLL cell's text (`52: 13/8 13/11`) read whole; None for anything but a play of moves
    (no play, a hidden one, words that are no move), which `_GameReader._roll` reads.

    Cached by the whole cell: a record repeats its dice and plays, and one look-up then stands
    for reading the dice and the play (and the shared dice tuple is one less object per roll)."""
    play = _read_play(cell[3:])
    if not play.simple:
        return None
    d1, d2 = ord(cell[0]) - 48, ord(cell[1]) - 48
    return _RollCell((d1, d2), int(d1 < d2), play, play.moves, play.text)


class _GameReader:
    """Builds one game's events from its lines."""

    __slots__ = ("ctx", "features", "game_no", "long_numbers", "plays_seen")

    def __init__(self, ctx: _MatchContext) -> None:
        self.ctx = ctx
        self.features = ctx.features
        self.game_no: int | None = None
        self.plays_seen = ctx.plays_seen
        self.long_numbers = False  # the game's text may have a row number too large to read

    def build(
        self,
        game_line: _Line,
        score: _Line | None,
        lines: list[_Line],
        names_only: tuple[str, str, int] | None = None,
    ) -> Game:
        """One game from its lines. `names_only` (a `.gam` file's first line: left name,
        right name, the right name's offset in `score`'s text) stands for a score line with
        no scores, read as 0-0."""
        gtext = game_line.text
        gcol = len(gtext) - len(gtext.lstrip()) + 1
        m = _WIN_NUM.search(gtext.lstrip()[4:])
        number = 0
        if m is not None:
            number = self.ctx.number(
                m.group(), "game number", game_line.number, gcol + 4 + m.start(), None
            )
        self.game_no = number
        gspan = Span(game_line.number, gcol, len(gtext.strip()))
        names: tuple[str, str] = ("", "")
        scores = (0, 0)
        right_name_col: int | None = None
        if names_only is not None and score is not None:
            names, right_name_col = names_only[:2], _visual(score.text, names_only[2])
        elif score is None:
            self.ctx.error("S008", f"'Game {number}' has no score line", gspan.line, gcol, number)
        else:
            parts = self._score(score)
            if parts is None:
                col = len(score.text) - len(score.text.lstrip()) + 1
                self.ctx.error(
                    "S008",
                    "score line needs 'name : score   name : score'",
                    score.number,
                    col,
                    number,
                )
            else:
                left, ls, right, rs, off = parts
                names, scores = (left, right), (ls, rs)
                right_name_col = _visual(score.text, off)
        if self.long_numbers:
            self._row_numbers(lines)
        actions: list[Action] = []
        if _cells is not None:
            hooks = _typed_hooks()
            threshold = _cells.threshold(lines, right_name_col, *hooks)
            low = _cells.read_rows(
                self, lines, threshold, actions, *hooks, _read_roll_cell.__wrapped__, _CELL_TYPES
            )
            self.features.low_high += low
        else:
            self._read_rows(lines, right_name_col, actions)
        if not actions:
            self.ctx.errors.append(
                Finding.make("S012", f"game {number} has no actions", gspan.line, gcol, game=number)
            )
        return Game(number, scores, tuple(actions), gspan, names)

    def _read_rows(
        self, lines: list[_Line], right_name_col: int | None, actions: list[Action]
    ) -> None:
        """Each line's events appended to `actions` (`_cells.read_rows` is the typed twin)."""
        # The rows the threshold looked at are split once; the rest one at a time below, so
        # that a row's matches are gone before the next (kept for the whole game, they were a
        # third of the objects the garbage collector had to look at).
        split: list[list[re.Match[str]]] = []
        threshold = self._threshold(lines, right_name_col, split)
        append = actions.append
        roll = self._roll
        read_cell = _read_roll_cell
        seen_add = self.plays_seen.add
        low_high = 0
        row = 0
        for line in lines:
            kind, line_no, text = line
            if kind != "row":
                self._comment(line, actions)
                continue
            cells = split[row] if row < len(split) else _split_row(text)
            row += 1
            tabs = "\t" in text
            prev_side = -1
            for cell in cells:
                group = cell.lastindex or 0  # every cell is one group
                if group == _ROWNO_GROUP:
                    # A row number inside a line starts a row of its own: its first cell is
                    # the left player's whatever its column.
                    prev_side = -2
                    continue
                start, end = cell.span(group)
                if prev_side == -2:
                    side = 0
                else:
                    side = 1 if (_visual(text, start) if tabs else start) >= threshold else 0
                if prev_side >= 0:
                    if side < prev_side:
                        side = prev_side
                    elif side == prev_side == 0 and group == _ROLL_GROUP:
                        side = 1  # two rolls on one row: the second is the right player's
                prev_side = side
                span = _tuple_new(Span, (line_no, start + 1, end - start))
                if group == _ROLL_GROUP:
                    # The common case inline (dice and a readable play, read once per text);
                    # the rest in _roll.
                    written = text[start:end]
                    known = read_cell(written)
                    if known is not None:
                        dice, low, play, moves, play_text = known
                        seen_add(play)
                        low_high += low
                        append(make_roll(side, dice, moves, span, play_text))
                    else:
                        append(roll(written, side, span))
                else:
                    append(self._cell(_CELL_TYPES[group - 1], text[start:end], side, span))
        self.features.low_high += low_high

    def _score(self, score: _Line) -> tuple[str, int, str, int, int] | None:
        """(left name, left score, right name, right score, offset of the right name)."""
        text = score.text
        m = _SCORE.match(text)
        if m is None:
            return None
        number = self.ctx.number
        values = [
            number(m.group(g), "score", score.number, m.start(g) + 1, self.game_no)
            for g in ("ls", "rs")
        ]
        for g in ("left", "right"):
            # A rating after a name ("Erin, 1500"): a number the record gives, read later.
            r = _RATING.match(m.group(g).strip())
            big = find_too_large(_whole(r.group("rating"))) if r is not None else None
            if big is not None:
                at = text.find(big.group(), m.start(g))
                self.ctx.error(
                    "S017",
                    too_large_message("rating", big.group()),
                    score.number,
                    at + 1,
                    self.game_no,
                )
        return (
            m.group("left").strip(),
            values[0],
            m.group("right").strip(),
            values[1],
            m.start("right"),
        )

    def _row_numbers(self, lines: list[_Line]) -> None:
        """S017 for row numbers too large to read (they are not read, but the record is wrong)."""
        for kind, number, text in lines:
            if kind != "row":
                continue
            for m in _ROW_NUMBER.finditer(text):
                if find_too_large(m.group(1)) is not None:
                    self.ctx.error(
                        "S017",
                        too_large_message("row number", m.group(1)),
                        number,
                        m.start(1) + 1,
                        self.game_no,
                    )

    @staticmethod
    def _threshold(
        lines: list[_Line], right_name_col: int | None, split: list[list[re.Match[str]]]
    ) -> int:
        """The 0-based column from which a cell belongs to the right player: halfway between
        where left cells start and where this game's right cells start (seen on rows with two
        rolls), or where the score line puts the right name. The cells of the rows it looked
        at are appended to `split`, one list per row, in order."""
        cols: list[int] = []
        for kind, _, text in lines:
            if kind != "row":
                continue
            cells = _split_row(text)
            split.append(cells)
            if len(cells) >= 2 and cells[1].lastindex == _ROLL_GROUP:
                cols.append(_visual(text, cells[1].start(_ROLL_GROUP)))
                if len(cols) == 7:  # a few rows settle it; layouts do not change mid-game
                    break
        if cols:
            right = sorted(cols)[len(cols) // 2]
        elif right_name_col is not None:
            right = right_name_col
        else:
            right = 33
        return max(11, (right + 5) // 2)

    def _comment(self, line: _Line, actions: list[Action]) -> None:
        text = line.text.lstrip()
        span = Span(line.number, len(line.text) - len(text) + 1, len(text.rstrip()))
        m = _SET_POS.match(text)
        if m:
            actions.append(self._set_position(m, text.rstrip(), span))
        else:
            actions.append(Comment(None, text[1:].strip(), span))

    def _set_position(self, m: re.Match[str], text: str, span: Span) -> SetPosition:
        cube_owner: int | None = None
        cube_value: int | None = None
        cube = m.group("cube")
        if cube is not None:
            c = read_int(cube)
            column = span.column + m.start("cube")
            if c is None or abs(c) > _MAX_CUBE_EXPONENT:
                # Not even computed: 2 to the power of a long number takes minutes and all memory.
                message = (
                    too_large_message("cube exponent", cube)
                    if c is None
                    else f"number too large: cube exponent {c} (the cube is 2 to this power; "
                    f"at most {_MAX_CUBE_EXPONENT}); ignored"
                )
                self.ctx.error("S017", message, span.line, column, self.game_no)
            elif c == 0:
                cube_value, cube_owner = 1, -1
            else:
                cube_value, cube_owner = 2 ** abs(c), (0 if c < 0 else 1)
        return SetPosition(xg_set_pos(text), None, cube_value, cube_owner, None, text, span)

    def _cell_number(self, text: str, sp: Span, last: bool, what: str) -> int:
        """The first (or `last`) number of a cube or result cell; 0 where it has none."""
        nums = list(_WIN_NUM.finditer(text))
        if not nums:
            return 0
        m = nums[-1] if last else nums[0]
        return self.ctx.number(m.group(), what, sp.line, sp.column + m.start(), self.game_no)

    def _cell(self, kind: str | None, text: str, side: int, sp: Span) -> Action:
        """A cube or result cell."""
        if kind == "DOUBLE":
            if "==>" in text:
                self.features.arrow_long += 1
            return Double(side, self._cell_number(text, sp, True, "cube value"), sp)
        if kind == "TAKE":
            return Take(side, sp)
        if kind == "DROP":
            return Drop(side, sp)
        if kind == "WIN":
            points = self._cell_number(text, sp, False, "points")
            low = text.lower()
            return Win(side, points, low.endswith("match"), sp)
        if kind == "LOSS":
            return Loss(side, self._cell_number(text, sp, False, "points"), sp)
        if kind == "BEAVER":
            return Beaver(side, self._cell_number(text, sp, True, "cube value"), sp)
        if kind == "RACCOON":
            return Raccoon(side, self._cell_number(text, sp, True, "cube value"), sp)
        low = text.lower()  # RESIGN
        level = (
            3
            if "backgammon" in low
            else 2
            if "gammon" in low
            else 1
            if ("normal" in low or "single" in low)
            else None
        )
        return Resign(side, level, text, sp)

    def _roll(self, text: str, side: int, sp: Span) -> Roll | CannotMove | HiddenPlay | IllegalPlay:
        dice = (ord(text[0]) - 48, ord(text[1]) - 48)
        play = _read_play(text[3:])
        self.plays_seen.add(play)
        if dice[0] < dice[1]:
            self.features.low_high += 1
        kind = play.kind
        if kind == "play":
            for at, word in play.bad:
                big = find_too_large(word)
                if big is not None:
                    self.ctx.error(
                        "S017",
                        too_large_message("in a move", big.group()),
                        sp.line,
                        sp.column + 3 + at + big.start(),
                        self.game_no,
                    )
                    continue
                self.ctx.error(
                    "S006",
                    f"cannot read {quote(word, 40)} as a move "
                    "(expected from/to like 13/7*, bar/22, 6/off)",
                    sp.line,
                    sp.column + 3 + at,
                    self.game_no,
                )
            return Roll(side, dice, play.moves, sp, play.text)
        if kind == "cannot":
            return CannotMove(side, dice, sp)
        if kind == "hidden":
            return HiddenPlay(side, dice, play.text, sp)
        t = play.text
        i, j = t.find("("), t.rfind(")")
        fields = tuple(t[i + 1 : j].split(";")) if 0 <= i < j else ()
        return IllegalPlay(side, dice, fields, sp, snowie_board(fields))


def _note_features(f: _Features, plays_seen: set[_Play]) -> None:
    # Summed and counted in one pass, and the words counted by `Counter.update` (in C):
    # `counter[word] += 1` calls Counter's Python `__missing__` for every new word.
    counts = 0
    bars: list[str] = []
    offs: list[str] = []
    for play in plays_seen:
        counts += play.counts
        if play.bar_word is not None:
            bars.append(play.bar_word)
        if play.off_word is not None:
            offs.append(play.off_word)
    f.counts += counts
    f.bar_words.update(bars)
    f.off_words.update(offs)


def _visual(line: str, index: int) -> int:
    """The 0-based display column of `line[index]`, with tabs at 8-column stops."""
    if "\t" not in line:
        return index
    return len(line[:index].expandtabs(8))


#: The largest cube exponent a `Set Pos` line may give (its cube is 2 to that power): 2**30
#: still fits the dataset's int32 columns; XG's own cube stops at 2**12.
_MAX_CUBE_EXPONENT = 30


#: Tags whose values are numbers (keys lower-cased, without spaces, as `RuleSet` reads them).
_NUMBER_TAGS = frozenset({"cubelimit", "beaver", "beavers", "player1elo", "player2elo"})


class _MatReader:
    """Reads the matches of one decoded file, one at a time.

    Linear in the file: each match's text is cut out once, and line numbers come from one
    cursor that only moves forward (counting from the start of the file for every match made
    a file of thousands of matches quadratic). `scanned` counts the characters that cursor
    has passed over, for the tests that keep it so."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self._pos = 0
        self._line = 1
        self.scanned = 0

    def _line_at(self, pos: int) -> int:
        """The 1-based line number of offset `pos` (never before the last one asked for)."""
        if pos < self._pos:  # pragma: no cover - offsets are asked for in file order
            raise ValueError(f"line cursor moved back from {self._pos} to {pos}")
        self._line += self.text.count("\n", self._pos, pos)
        self.scanned += pos - self._pos
        self._pos = pos
        return self._line

    def iter_matches(self) -> Iterator[MatchRecord]:
        text = self.text
        starts = _match_lines(text)
        m = next(starts, None)
        header_start = 0
        idx = 0
        while m is not None:
            nxt = next(starts, None)
            body_end = len(text)
            if nxt is not None:
                # The next match's header (its tag and comment lines) belongs to it, not to the
                # last game of this one: cut this body before them.
                body_end = _header_start(text, m.end(), nxt.start())
            yield self._match(idx, header_start, m, body_end)
            header_start = body_end
            idx += 1
            m = nxt

    def _match(self, index: int, header_start: int, m: re.Match[str], body_end: int) -> MatchRecord:
        text = self.text
        errors: list[Finding] = []
        features = _Features()
        header_line = self._line_at(header_start)
        ctx = _MatchContext(self.path, text[header_start:body_end], header_line, errors, features)
        tags: list[tuple[str, str]] = []
        comments: list[str] = []
        for i, raw in enumerate(text[header_start : m.start()].split("\n")):
            s = raw.strip()
            if not s:
                continue
            t = _TAG.match(s)
            if t and s[0] in ";#[":
                tags.append((t.group(1).strip(), t.group(2)))
                self._tag_number(ctx, t, raw, header_line + i)
            elif s[0] in ";#":
                comments.append(s[1:].strip())
            else:
                comments.append(s)
        match_line = self._line_at(m.start())
        length, too_large = read_bounded(m.group(1), "match length")
        if too_large is not None:
            if length < 0:
                length = 0
                too_large = too_large_message("match length", m.group(1), 0) + " (money)"
            ctx.error("S017", too_large, match_line, m.start(1) - m.start() + 1, None)
        elif not 0 <= length <= MAX_MATCH_LENGTH:
            # A negative length means nothing the rules know: read as a money session (0).
            read_as = "" if length > 0 else "; read as 0 (a money session)"
            ctx.error(
                "S014",
                f"match length {length} is out of range 0-{MAX_MATCH_LENGTH}{read_as}",
                match_line,
                1,
                None,
            )
            length = max(length, 0)
        games: list[Game] = []
        # Game lines start after a newline (`^` in multi-line mode), found from it.
        game_starts = _game_starts(text, m.end(), body_end)
        self._stray_text(ctx, m.end(), game_starts[0] if game_starts else body_end, match_line)
        line_no = self._line_at(game_starts[0]) if game_starts else 0
        for gi, gs in enumerate(game_starts):
            ge = game_starts[gi + 1] if gi + 1 < len(game_starts) else body_end
            chunk = text[gs:ge]
            game = self._game(ctx, chunk, line_no)
            if game is not None:
                games.append(game)
            line_no += chunk.count("\n")
        _note_features(features, ctx.plays_seen)
        features.rolls = sum(1 for g in games for a in g.actions if type(a) is Roll)
        ratings: tuple[float | None, float | None] = (None, None)
        players: tuple[str, str] = ("", "")
        if games:
            n0, r0 = _strip_rating(games[0].names[0])
            n1, r1 = _strip_rating(games[0].names[1])
            players, ratings = (n0, n1), (r0, r1)
            features.ratings = r0 is not None or r1 is not None
        dialect = _detect_dialect(tags, features)
        return MatchRecord(
            path=self.path,
            format="mat",
            players=players,
            length=length,
            games=tuple(games),
            tags=tuple(tags),
            info=info_from_tags(tags, ratings),
            dialect=dialect,
            comments=tuple(comments),
            errors=tuple(errors),
            span=Span(match_line, len(m.group(0)) - len(m.group(0).lstrip()) + 1),
            index=index,
            hit_marks=dialect not in _NO_HIT_MARKS,
        )

    @staticmethod
    def _tag_number(ctx: _MatchContext, tag: re.Match[str], raw: str, line: int) -> None:
        """S017 for a number tag (`CubeLimit`, `Beaver`, an Elo) whose value is too large."""
        key = tag.group(1).strip().lower().replace(" ", "")
        if key not in _NUMBER_TAGS:
            return
        value = tag.group(2)
        big = find_too_large(_whole(value) if key.endswith("elo") else value)
        if big is not None:
            at = raw.find(big.group(), raw.find('"'))
            ctx.error(
                "S017",
                too_large_message(f"tag {tag.group(1).strip()!r}", big.group()),
                line,
                at + 1,
                None,
            )

    def _stray_text(self, ctx: _MatchContext, start: int, end: int, line: int) -> None:
        """S013 for text between the match line (`line`, which holds `start`) and the first
        game (at `end`)."""
        for raw in self.text[start:end].split("\n"):
            s = raw.strip()
            if s and s[0] not in ";#":
                ctx.errors.append(
                    Finding.make(
                        "S013",
                        "text between the match line and the first game was ignored",
                        line,
                        len(raw) - len(raw.lstrip()) + 1,
                        source_line=raw,
                    )
                )
            line += 1

    def _game(self, ctx: _MatchContext, chunk: str, first_line: int) -> Game | None:
        reader = _GameReader(ctx)
        # One cheap scan of the game decides whether its row numbers need a closer look.
        reader.long_numbers = _LONG_ROW_NUMBER.search(chunk) is not None
        # A game line may be indented; the grammar starts at its first letter.
        indent = len(chunk) - len(chunk.lstrip(" \t"))
        game_line = _Line("game", first_line, chunk[: chunk.find("\n")] if "\n" in chunk else chunk)
        read = None
        if _cells is not None:
            # Nearly every game is rows of cells, comments and blank lines: those are read
            # without lark (`_cells.game_lines`, held to `_lines_by_grammar` by the tests).
            read = _cells.game_lines(chunk, indent, first_line, *_game_hooks())
        if read is None:
            try:
                read = _lines_by_grammar(chunk, indent, first_line)
            except UnexpectedInput:
                return self._game_by_lines(reader, chunk, first_line)
            except LarkError:  # pragma: no cover - lark's own failures are bugs: no traceback
                return self._game_by_lines(reader, chunk, first_line)
        return reader.build(game_line, read[0], read[1])

    def _game_by_lines(self, reader: _GameReader, chunk: str, first_line: int) -> Game | None:
        """The game body did not parse as a whole: read it line by line, keep every good line
        and report every bad one where it is."""
        ctx = reader.ctx
        raw_lines = chunk.split("\n")
        game_line = _Line("game", first_line, raw_lines[0])
        gm = _WIN_NUM.search(raw_lines[0].lstrip()[4:])
        # For the findings of the lines below; `build` reads it again and reports it if too large.
        reader.game_no = (_read_or_none(gm.group()) or MAX_NUMBER) if gm else None
        score: _Line | None = None
        lines: list[_Line] = []
        for i, raw in enumerate(raw_lines[1:], start=1):
            s = raw.strip()
            if not s:
                continue
            number = first_line + i
            if score is None and not lines and _SCORE_ONE.match(s) and not _ROW_START.match(s):
                score = _Line("score", number, raw)
                continue
            try:
                # The leading line break lets the tokens take the line as they do in a body.
                toks = _parse("\n" + raw, "line")
            except UnexpectedInput:
                lead = len(raw) - len(raw.lstrip())
                col, what = self._bad_cell(raw.strip())
                ctx.error(
                    "S005", f"cannot read this line: {what}", number, lead + col, reader.game_no
                )
                continue
            kind = toks[0].type
            if kind != "NL":
                lines.append(_Line("row" if kind == "ROW" else "comment", number, raw))
        if score is None and not lines:
            ctx.error(
                "S008",
                f"'{raw_lines[0].strip()}' has no score line and no moves (truncated file?)",
                first_line,
                len(raw_lines[0]) - len(raw_lines[0].lstrip()) + 1,
                reader.game_no,
            )
            return None
        return reader.build(game_line, score, lines)

    @staticmethod
    def _bad_cell(text: str) -> tuple[int, str]:
        """Where in a line that is no row its cells stop making sense, and what stands there."""
        try:
            _parser().parse(text, start="cells")
        except UnexpectedCharacters as exc:
            col = exc.column if isinstance(exc.column, int) and exc.column > 0 else 1
            word = text[col - 1 :].split()[0] if text[col - 1 :].strip() else text
            return col, f"unexpected '{word[:40]}'"
        except UnexpectedInput as exc:
            col = getattr(exc, "column", 1)
            col = col if isinstance(col, int) and col > 0 else 1
            tok = getattr(exc, "token", None)
            return col, f"unexpected '{str(tok)[:40]}'" if tok else "line ends too early"
        return 1, "not a row of a game"  # pragma: no cover - parses as cells but not as a line


def _game_starts(text: str, start: int, end: int) -> list[int]:
    """Where the game lines after a line break from `start` to `end` begin (the lines
    `_GAME_LINE_AFTER_NL` finds there, which the C reader's scan finds faster)."""
    if _cells is None:
        return [g.start() + 1 for g in _GAME_LINE_AFTER_NL.finditer(text, start, end)]
    at = _GAME_LINE.match
    return [p for p in _cells.lines_that_may_start(text, start, end, True) if at(text, p, end)]


def _lines_by_grammar(chunk: str, indent: int, first_line: int) -> tuple[_Line, list[_Line]]:
    """A game's score line and the lines after it (rows and comments, blank lines left out),
    from the grammar's tokens of `chunk`, whose game line (at `first_line`) starts after
    `indent` blanks. Raises lark's UnexpectedInput where the game does not parse as a whole."""
    tokens = _parse(chunk[indent:], "game")
    score = _line_of(tokens[1], "score", first_line)
    base = first_line - 1
    lines = []
    for tok in tokens[2:]:
        kind = tok.type
        if kind == "NL":
            continue
        text = tok.value
        start = base + (tok.line or 1)
        if kind == "ROWS":
            # Rows one after the other, each after its line break (and any blank lines).
            parts = text.split("\n")
            for k in range(1, len(parts)):
                part = parts[k]
                if part and not part.isspace():
                    lines.append(_Line("row", start + k, part))
            continue
        # The token starts with the line break before its line: keep just the line.
        nl = text.rfind("\n")
        lines.append(_Line("comment", start + text.count("\n", 0, nl + 1), text[nl + 1 :]))
    return score, lines


def _header_start(text: str, lo: int, match_start: int) -> int:
    """Where the header of the match whose length line starts at `match_start` begins: after the
    last line before it that is neither blank nor a comment or tag line (but never before `lo`)."""
    pos = match_start
    while pos > lo:
        line_start = text.rfind("\n", lo, pos - 1) + 1
        if line_start <= lo:
            return lo
        s = text[line_start : pos - 1].strip()
        if s and s[0] not in ";#":
            return pos
        pos = line_start
    return lo


def iter_mat_matches(text: str, path: str) -> Iterator[MatchRecord]:
    """Every match or money session of a decoded `.mat` text, in file order."""
    yield from _MatReader(text, path).iter_matches()


#: A `.gam` file: the two players' names on the first line, then the rows of a game, with no
#: match line and no score line (GNU Backgammon's 'export game gam', Jellyfish, GammonEmpire).
GAM_START = re.compile(r"\A[ \t\r\n]*[^\n:]+\n[ \t\r\n]*1\)[ \t]")
#: The gap between the two names of a `.gam` file's first line.
_NAME_GAP = re.compile(r"[ \t]{2,}|\t")


def iter_gam_matches(text: str, path: str) -> Iterator[MatchRecord]:
    """A `.gam` file (`GAM_START`) as a money session: it gives no match length and no score,
    so its games (one, as GNU exports it; GammonEmpire's may hold more, each starting again
    at row 1 after a result) are read as money play from 0-0, with an S024 warning saying so."""
    lines = text.split("\n")
    first = next(i for i, ln in enumerate(lines) if ln.strip())
    names_text = lines[first].rstrip("\r")
    errors: list[Finding] = []
    features = _Features()
    ctx = _MatchContext(path, text, 1, errors, features)
    lead = len(names_text) - len(names_text.lstrip())
    gap = _NAME_GAP.search(names_text, lead)
    if gap is not None and names_text[gap.end() :].strip():
        left, right, right_at = names_text[lead : gap.start()], names_text[gap.end() :], gap.end()
    else:  # one name, or none to tell apart: the right player's is unknown
        left, right, right_at = names_text.strip(), "", len(names_text)
    names = (left.strip(), right.strip(), right_at)
    names_line = _Line("score", first + 1, names_text)
    # Each game's rows: a new game starts at a row 1 after a result.
    chunks: list[list[_Line]] = [[]]
    ended = False
    for i in range(first + 1, len(lines)):
        raw = lines[i].rstrip("\r")
        stripped = raw.strip()
        if not stripped:
            continue
        if ended and stripped.startswith("1)"):
            chunks.append([])
            ended = False
        try:
            toks = _parse("\n" + raw, "line")
        except UnexpectedInput:
            col, what = _MatReader._bad_cell(stripped)
            at = len(raw) - len(raw.lstrip()) + col
            ctx.error("S005", f"cannot read this line: {what}", i + 1, at, len(chunks))
            continue
        kind = toks[0].type
        if kind == "NL":
            continue
        chunks[-1].append(_Line("row" if kind == "ROW" else "comment", i + 1, raw))
        ended = ended or bool(re.search(r"\bWins\b", raw))
    games = []
    score = [0, 0]
    for number, chunk in enumerate(chunks, 1):
        reader = _GameReader(ctx)
        game_line = _Line("game", first + 1, " " * lead + f"Game {number}")
        game = reader.build(game_line, names_line, chunk, names_only=names)
        # No score line: a later game starts from the earlier games' results as written.
        games.append(_replace_game(game, score=(score[0], score[1])))
        for a in game.actions:
            if type(a) is Win and 0 <= a.points <= MAX_NUMBER:
                score[a.side] = min(score[a.side] + a.points, MAX_NUMBER)
    _note_features(features, ctx.plays_seen)
    features.rolls = sum(1 for g in games for a in g.actions if type(a) is Roll)
    (n0, r0), (n1, r1) = _strip_rating(names[0]), _strip_rating(names[1])
    features.ratings = r0 is not None or r1 is not None
    span = Span(first + 1, lead + 1)
    errors.insert(
        0,
        Finding.make(
            "S024",
            f"a '.gam' file: {plural(len(games), 'game')} without a match line or scores, read "
            "as a money session from 0-0 (the record gives no match length)",
            span.line,
            span.column,
            source_line=names_text,
        ),
    )
    dialect = _detect_dialect([], features)
    yield MatchRecord(
        path=path,
        format="mat",
        players=(n0, n1),
        length=0,
        games=tuple(games),
        tags=(),
        info=info_from_tags([], (r0, r1)),
        dialect=dialect,
        comments=(),
        errors=tuple(errors),
        span=span,
        index=0,
        hit_marks=dialect not in _NO_HIT_MARKS,
    )
