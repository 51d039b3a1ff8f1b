"""GNU Backgammon's text export (`export match text`): the record part.

GNU writes one file per game (`match.txt`, `match_002.txt`, ...), each opening with
`The score (after N games) is: A a, B b (match to L points)`, then optional `Match
Information:` lines, then per move a `Move number N:` heading, an ASCII board with its
Position and Match IDs, the move itself (`* Alice moves 24/23 13/8`, `* Alice doubles`,
`* Bob accepts`), and, when the match was analysed, the candidates, cube analysis and luck;
the game ends `Alice wins 2 points`, then the game's statistics.

Only the move lines, the score line and the result are the record: the boards are read past
(their Position IDs are not kept on the events, which have no place for them) but for the
Match ID, which converts the analysis's match winning chances; the analysis after each move
line becomes the record's notes (`gnutext_analysis`, docs/ANALYSIS.md). Sides follow the
score line: side 0 is its first name (GNU's player 0, `O` on the board), as in the `.mat`
export of the same match. A file holding game 3 of a match is read as a match starting at the
printed score (the replay notes it, R007), as a `.mat` holding one game is. Only the English
export is read: GNU translates the prose (and the decimal separator follows the locale), and a
file in another language is refused with S003 naming its first line.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from bgparse.analysis.model import CubeNote, Note
from bgparse.model.events import (
    Action,
    Beaver,
    CannotMove,
    Double,
    Drop,
    Game,
    MatchInfo,
    MatchRecord,
    Move,
    Span,
    Take,
    Win,
    make_roll,
)
from bgparse.model.findings import Finding, SyntaxRecordError
from bgparse.readers.gnutext_analysis import Block, read_block
from bgparse.readers.mat import MAX_MATCH_LENGTH, parse_move_word
from bgparse.readers.numbers import MAX_NUMBER, read_bounded

__all__ = ["DIALECT", "FORMAT", "MoveBlock", "is_gnu_text", "iter_gnutext_matches", "move_blocks"]

FORMAT = "gnutext"
DIALECT = "gnubg-text"

_SCORE = re.compile(
    r"^The score \(after (\d+) games?\) is: (.+?) (\d+), (.+) (\d+)"
    r"(?: \((?:match to (\d+) points?|money session(?:, (with|without) Jacoby rule)?)\))?"
    r"(, Crawford game|, post-Crawford play)?\.?\s*$"
)
#: What any GNU text export holds, in whatever language: a board's two IDs.
_IDS = re.compile(r"Position ID:\s*\S+.*?Match ID\s*:", re.S)
_START = re.compile(r"\A(?:[ \t]*\r?\n)*The score \(after \d+ games?\) is: ")
_HEADING = re.compile(r"^Move number (\d+):\s+(.*?)\s*$")
_TO_PLAY = re.compile(r"^(.*) to play ([1-6])([1-6])$")
_ON_ROLL = re.compile(r"^(.*) on roll, cube decision\?$")
_DOUBLES_TO = re.compile(r"^(.*) doubles to (\d+)$")
_RESIGNS = re.compile(r"^(.*) resigns (\d+) points?$")
_WINS = re.compile(r"^(.*) wins (\d+) points?( and the match)?\.?\s*$")
_MATCH_ID = re.compile(r"^\s+Match ID\s*:\s*(\S+)")
_INFO_KEYS = {"Place": "Site", "Date": "EventDate", "Annotator": "Transcriber"}


def is_gnu_text(text: str) -> bool:
    """Whether a text is GNU's `export match text` (in English, or in another language: the
    reader then refuses it by name). Checked after HTML and LaTeX, which hold the IDs too."""
    return bool(_START.match(text) or _IDS.search(text[:20000]))


def _fail(path: str, message: str, line: int, source: str) -> SyntaxRecordError:
    return SyntaxRecordError(Finding.make("S003", message, line, 1, source_line=source), path)


class _Reader:
    def __init__(self, text: str, path: str) -> None:
        self.lines = text.split("\n")
        self.path = path
        self.errors: list[Finding] = []
        self.names: tuple[str, str] = ("", "")
        self.length = 0
        self.tags: list[tuple[str, str]] = []
        self.comments: list[str] = []
        self.ratings: list[float | None] = [None, None]
        self.notes: list[Note] = []
        # The move block being read: its action and its analysis lines, until the next block.
        self.block: Block | None = None
        self.block_lines: list[tuple[int, str]] = []
        self.double_note: int | None = None  # the index in `notes` of the last double's

    def error(self, code: str, message: str, line: int, column: int = 1) -> None:
        self.errors.append(
            Finding.make(code, message, line, column, source_line=self.lines[line - 1])
        )

    def number(self, m: re.Match[str], group: int, what: str, line: int) -> int:
        """A number the text prints, or MAX_NUMBER with S017 where it is too large to read."""
        value, problem = read_bounded(m.group(group), what)
        if problem is not None:
            self.error("S017", problem, line, m.start(group) + 1)
        return value

    def side(self, who: str) -> int | None:
        """The side a name in a move line is (the longer name first: one may begin the other)."""
        a, b = self.names
        order = ((0, a), (1, b)) if len(a) >= len(b) else ((1, b), (0, a))
        for side, name in order:
            if who == name:
                return side
        return None

    def split_name(self, rest: str) -> tuple[int, str] | None:
        """`NAME words...`: the side NAME is and the words after it."""
        a, b = self.names
        order = ((0, a), (1, b)) if len(a) >= len(b) else ((1, b), (0, a))
        for side, name in order:
            if name and rest.startswith(name + " "):
                return side, rest[len(name) + 1 :]
        return None

    def read(self) -> MatchRecord:
        lines = self.lines
        first = next((i for i, ln in enumerate(lines) if ln.strip()), 0)
        head = lines[first].rstrip("\r")
        m = _SCORE.match(head)
        if m is None:
            raise _fail(
                self.path,
                f"line {first + 1} is not GNU Backgammon's English text export "
                "('The score (after N games) is: ...'): only the English export is read "
                "(export it with GNU's language set to English)",
                first + 1,
                head[:200],
            )
        self.names = (m.group(2), m.group(4))
        self.length = self.number(m, 6, "match length", first + 1) if m.group(6) else 0
        if self.length > MAX_MATCH_LENGTH:
            message = f"match length {self.length} is out of range 0-{MAX_MATCH_LENGTH}"
            self.error("S014", message, first + 1, m.start(6) + 1)
        if m.group(7):
            self.tags.append(("Jacoby", "On" if m.group(7) == "with" else "Off"))
        games: list[Game] = []
        starts = [i for i, ln in enumerate(lines) if ln.startswith("The score (after ")]
        starts.append(len(lines))
        for k in range(len(starts) - 1):
            game = self.game(starts[k], starts[k + 1], info=k == 0)
            if game is not None:
                games.append(game)
        info = MatchInfo(
            site=self.tag("Site"),
            event=self.tag("Event"),
            round=self.tag("Round"),
            event_date=self.tag("EventDate"),
            # Full names as tags say them (XG's `Player 1`); the export's names are `players`.
            player1=self.tag("Player 1"),
            player2=self.tag("Player 2"),
            jacoby={"On": True, "Off": False}.get(self.tag("Jacoby") or ""),
            transcriber=self.tag("Transcriber"),
            ratings=(self.ratings[0], self.ratings[1]),
        )
        return MatchRecord(
            path=self.path,
            format=FORMAT,
            players=self.names,
            length=self.length,
            games=tuple(games),
            tags=tuple(self.tags),
            info=info,
            dialect=DIALECT,
            comments=tuple(self.comments),
            errors=tuple(self.errors),
            span=Span(first + 1, 1),
            analysis=tuple(self.notes),
            analysis_source="gnubg-text" if self.notes else None,
        )

    def open_block(self, game: int, kind: str, side: int, span: Span, match_id: str | None) -> None:
        self.close_block()
        self.block = Block(game, kind, side, span.line, span.column, self.length, match_id)

    def close_block(self) -> None:
        """Read the analysis of the block just ended into notes."""
        block, lines = self.block, self.block_lines
        self.block, self.block_lines = None, []
        if block is None or not lines:
            return
        notes, findings, take_error = read_block(block, lines)
        self.errors.extend(findings)
        if block.kind == "double":
            self.double_note = None
            for note in notes:
                if isinstance(note, CubeNote):
                    self.double_note = len(self.notes)
        elif block.kind in ("take", "drop"):
            if take_error is not None and self.double_note is not None:
                # GNU prints the answer's error in the answer's block; the double's note
                # carries it, as attach judges the answer from the double's note.
                double = self.notes[self.double_note]
                if isinstance(double, CubeNote):
                    self.notes[self.double_note] = replace(double, take_error=take_error)
            self.double_note = None
        self.notes.extend(notes)

    def tag(self, key: str) -> str | None:
        return next((v for k, v in self.tags if k == key), None)

    def match_information(self, start: int, end: int) -> int:
        """The `Match Information:` lines (`Key: value`, up to a blank line) as tags."""
        i = start
        while i < end and self.lines[i].strip():
            text = self.lines[i].rstrip("\r")
            key, sep, value = text.partition(": ")
            if sep:
                if key.endswith("'s rating"):
                    side = self.side(key[: -len("'s rating")])
                    if side is not None:
                        with contextlib.suppress(ValueError):
                            self.ratings[side] = float(value)
                elif key == "Comments":
                    self.comments.append(value)
                else:
                    # The date as written: GNU prints it in the locale's `%x` (MM/DD/YY in C,
                    # DD/MM/YYYY in others), which the text does not name.
                    self.tags.append((_INFO_KEYS.get(key, key), value))
            i += 1
        return i

    def game(self, start: int, end: int, *, info: bool) -> Game | None:
        lines = self.lines
        head = lines[start].rstrip("\r")
        m = _SCORE.match(head)
        if m is None:
            self.error("S005", "a score line the reader cannot parse", start + 1)
            return None
        if (m.group(2), m.group(4)) != self.names:
            self.error("S005", "the players differ from the first game's", start + 1)
            return None
        if m.group(8) and self.tag("Crawford") is None:
            self.tags.append(("Crawford", "On"))
        number = min(self.number(m, 1, "game count", start + 1) + 1, MAX_NUMBER)
        score = (
            self.number(m, 3, "score", start + 1),
            self.number(m, 5, "score", start + 1),
        )
        actions: list[Action] = []
        cube = 1
        dice: tuple[int, int] | None = None
        offered: int | None = None  # a double's value, until answered
        resigned: bool | None = None  # a `NAME resigns N points` heading, until answered
        done = False
        match_id: str | None = None  # the board's, of the move block being read
        i = start + 1
        while i < end:
            text = lines[i].rstrip("\r")
            lineno = i + 1
            i += 1
            if done or not text:
                continue
            if text.startswith("Game statistics for game "):
                self.close_block()
                done = True  # an unfinished game's statistics
                continue
            if (
                self.block is not None
                and not _HEADING.match(text)
                and not (text.startswith("* ") and not text.startswith("*  "))
            ):
                w = _WINS.match(text)
                if not (w and self.side(w.group(1)) is not None):
                    self.block_lines.append((lineno, text))
                    continue
            board_id = _MATCH_ID.match(text)
            if board_id:
                match_id = board_id.group(1)
                continue
            if text == "Match Information:" and info and not actions:
                i = self.match_information(i, end)
                continue
            h = _HEADING.match(text)
            if h:
                self.close_block()
                match_id = None
                what = h.group(2)
                dice = None
                t = _TO_PLAY.match(what)
                r = _RESIGNS.match(what)
                if t and self.side(t.group(1)) is not None:
                    dice = (int(t.group(2)), int(t.group(3)))
                elif r and self.side(r.group(1)) is not None:
                    resigned = True
                elif not (
                    (_ON_ROLL.match(what) and self.side(what[: -len(" on roll, cube decision?")]))
                    is not None
                    or (_DOUBLES_TO.match(what) and self.split_name(what) is not None)
                ):
                    self.error("S005", "a move heading the reader cannot parse", lineno)
                continue
            if text.startswith("* ") and not text.startswith("*  "):
                said = self.split_name(text[2:])
                if said is None:
                    self.error("S005", "a move line naming neither player", lineno)
                    continue
                side, rest = said
                column = len(text) - len(rest) + 1
                span = Span(lineno, column, len(rest))
                if rest.startswith("moves ") and dice is not None:
                    play = rest[len("moves ") :]
                    moves: list[Move] = []
                    for word in play.split():
                        mv = parse_move_word(word)
                        if mv is None:
                            self.error(
                                "S006",
                                f"{word!r} is not a move",
                                lineno,
                                text.find(word, column - 1) + 1,
                            )
                        else:
                            moves.append(mv)
                    actions.append(
                        make_roll(
                            side,
                            dice,
                            tuple(moves),
                            Span(lineno, column + 6, len(play)),
                            play,
                        )
                    )
                    self.open_block(number, "play", side, actions[-1].span, match_id)
                    dice = offered = None
                elif rest == "cannot move" and dice is not None:
                    actions.append(CannotMove(side, dice, span))
                    self.open_block(number, "dance", side, span, match_id)
                    dice = offered = None
                elif rest == "doubles" and offered is not None:
                    # A double answered by a double: a beaver (the cube is the beaverer's at
                    # twice the offer, no take written), or a raccoon of it: `.mat` writes both
                    # `Beavers => N`.
                    cube = offered = offered * 2
                    actions.append(Beaver(side, offered, span))
                elif rest == "doubles":
                    offered = cube * 2
                    actions.append(Double(side, offered, span))
                    self.open_block(number, "double", side, span, match_id)
                elif rest in ("accepts", "rejects") and resigned is not None:
                    # The answer to a resignation: the result line that follows says what
                    # came of it, as a `.mat` does (GNU's own exports of a resigned game
                    # show neither, only `NAME wins N points`).
                    resigned = None
                elif rest == "accepts" and offered is not None:
                    actions.append(Take(side, span))
                    self.open_block(number, "take", side, span, match_id)
                    cube, offered = offered, None
                elif rest == "rejects" and offered is not None:
                    actions.append(Drop(side, span))
                    self.open_block(number, "drop", side, span, match_id)
                    offered = None
                else:
                    self.error("S005", "a move line the reader cannot parse", lineno, column)
                continue
            w = _WINS.match(text)
            if w and self.side(w.group(1)) is not None:
                self.close_block()
                who = self.side(w.group(1)) or 0
                actions.append(
                    Win(
                        who,
                        self.number(w, 2, "'wins' value", lineno),
                        bool(w.group(3)),
                        Span(lineno, 1, len(text)),
                    )
                )
                done = True  # the game's statistics follow
                continue
        self.close_block()
        if not actions:
            self.error("S012", f"game {number} has no actions", start + 1)
        return Game(
            number=number,
            score=score,
            actions=tuple(actions),
            span=Span(start + 1, 1),
            names=self.names,
            # What the score line says of the Crawford rule, in SGF's word for it: the replay
            # takes a first game at a Crawford score as the Crawford game only where it says so.
            rules=("CrawfordGame",) if m.group(8) == ", Crawford game" else (),
        )


def iter_gnutext_matches(text: str, path: str) -> Iterator[MatchRecord]:
    """The match record of one GNU text export (every game it holds, each from the score its
    score line prints). Raises `SyntaxRecordError` (S003) for an export in another language."""
    yield _Reader(text, path).read()


@dataclass(frozen=True, slots=True)
class MoveBlock:
    """One `Move number N:` block of a text export as GNU wrote it, for what reads its analysis:
    not part of the record (the reader does not build these). `line` is the heading's 1-based
    line; `position_id` and `match_id` the board's (before the move, the side on roll's view);
    `move` the `* NAME ...` line; `analysis` every line after it up to the next block or the
    result, as written (candidates with equities and errors, cube analysis, luck)."""

    line: int
    number: int
    heading: str
    position_id: str | None
    match_id: str | None
    move: str | None
    analysis: tuple[str, ...]


_BOARD_ID = re.compile(r"^\s*(?:GNU Backgammon\s+Position ID|Match ID)\s*:\s*(\S+)")


def move_blocks(text: str) -> list[MoveBlock]:
    """Every move block of an English text export, in file order (a later session's analysis
    reader starts here; `iter_gnutext_matches` does not call it)."""
    blocks: list[MoveBlock] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        h = _HEADING.match(lines[i].rstrip("\r"))
        if h is None:
            i += 1
            continue
        start, ids, move = i, [], None
        body: list[str] = []
        i += 1
        while i < len(lines):
            line = lines[i].rstrip("\r")
            if _HEADING.match(line) or line.startswith("The score (after "):
                break
            if move is None:
                m = _BOARD_ID.match(line)
                if m:
                    ids.append(m.group(1))
                elif line.startswith("* "):
                    move = line
            elif _WINS.match(line) or line.startswith("Game statistics for game "):
                break
            else:
                body.append(line)
            i += 1
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        blocks.append(
            MoveBlock(
                line=start + 1,
                number=read_bounded(h.group(1), "move number")[0],
                heading=h.group(2),
                position_id=ids[0] if ids else None,
                match_id=ids[1] if len(ids) > 1 else None,
                move=move,
                analysis=tuple(body),
            )
        )
    return blocks
