"""What `bgparse show` draws: a board from a GNU Position ID (and Match ID), an XGID, or a
turn of a match record, as text or SVG."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from bgparse.helpers.errors import UsageError
from bgparse.helpers.paths import display_path, path_from_display
from bgparse.helpers.printable import printable
from bgparse.model.findings import Finding, RecordError
from bgparse.model.verified import Turn
from bgparse.render.board import Board, CubeOwner, board_svg
from bgparse.rules.diagram import diagram
from bgparse.rules.ids import IdError, MatchIdState, decode_match_id, decode_xgid
from bgparse.rules.plays import legal_plays
from bgparse.rules.position import Position, PositionError

__all__ = [
    "ShowError",
    "Shown",
    "from_ids",
    "from_record",
    "from_xgid",
    "on_roll",
    "resolve",
    "turn_shown",
]


class ShowError(UsageError, ValueError):
    """WHAT names no board bgparse can draw; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class Shown:
    """A board to draw and what to say beside it: `heading` lines above the board, the
    `recorded` play and its `verdict`, and for an illegal play the `legal` plays."""

    position: Position
    board: Board
    heading: tuple[str, ...] = ()
    recorded: str | None = None
    verdict: str | None = None
    legal: tuple[str, ...] | None = None

    def text(self) -> str:
        """The heading, the fixed-width diagram and the play: what a terminal shows."""
        lines = list(self.heading)
        lines.append(diagram(self.position))
        if self.recorded is not None:
            lines.append(printable(f"recorded: {self.recorded or '(no move)'}"))
        if self.verdict:
            lines.append(self.verdict)
        if self.legal is not None:
            lines.append(f"legal plays ({len(self.legal)}):")
            lines.extend(f"  {p}" for p in self.legal)
        return "\n".join(lines)

    def svg(self) -> str:
        return board_svg(self.position, self.board)


def _owner(owner: int, mover: int) -> CubeOwner:
    """A cube owner given as a player (-1 centred) seen from the side on roll."""
    if owner < 0:
        return "centre"
    return "mover" if owner == mover else "opponent"


def _cube_line(board: Board) -> str:
    owner = {"centre": "centred", "mover": "owned by X", "opponent": "owned by O"}
    return f"cube {board.cube} {owner[board.cube_owner]}"


def _state_heading(board: Board) -> str:
    parts = []
    if board.match_length is not None:
        parts.append(
            "money game" if board.match_length == 0 else f"{board.match_length}-point match"
        )
    if board.score is not None and board.match_length:
        parts.append(f"score X {board.score[0]}, O {board.score[1]}")
    parts.append(_cube_line(board))
    if board.dice is not None:
        parts.append(f"X to play {board.dice[0]}{board.dice[1]}")
    return "; ".join(parts)


def _board_from_match_id(state: MatchIdState, names: tuple[str, str] | None = None) -> Board:
    me = state.on_roll
    them = 1 - me
    return Board(
        dice=state.dice if state.dice != (0, 0) else None,
        cube=state.cube,
        cube_owner=_owner(state.cube_owner, me),
        score=(state.score[me], state.score[them]),
        match_length=state.match_length,
        names=(names[me], names[them]) if names else ("X", "O"),
    )


#: Turns whose side answers an offer: their board (Position ID, Match ID) is the offerer's.
_ANSWERS = frozenset({"take", "drop", "beaver", "raccoon"})


def on_roll(turn: Turn) -> int:
    """The side on roll at `turn`, whose view its Position ID and Match ID take: `side`, but
    for an answer to a double (take, drop, beaver, raccoon) the side that offered it."""
    return 1 - turn.side if turn.kind in _ANSWERS else turn.side


def _board_from_turn(turn: Turn, names: tuple[str, str]) -> Board:
    """The board of a turn that has no Match ID: the replay writes none where the match's
    length is past what one holds (an S014 length such as 99999). The turn keeps the cube
    itself; the length (and with it the score) is left unknown rather than made up."""
    me = on_roll(turn)
    return Board(
        cube=turn.cube_value,
        cube_owner=_owner(turn.cube_owner, me),
        names=(names[me], names[1 - me]),
    )


def from_ids(position_id: str, match_id: str | None = None) -> Shown:
    """The board of a GNU Position ID, with the dice, cube and score of a Match ID if given."""
    try:
        position = Position.from_position_id(position_id.strip())
    except PositionError as exc:
        raise ShowError(str(exc)) from None
    board = Board()
    if match_id is not None:
        try:
            board = _board_from_match_id(decode_match_id(match_id))
        except IdError as exc:
            raise ShowError(str(exc)) from None
    head = f"Position ID {position_id.strip()}" + (f":{match_id.strip()}" if match_id else "")
    return Shown(position, board, (head, _state_heading(board)))


def from_xgid(text: str) -> Shown:
    """The board of an XGID: the player to move (`turn`) is drawn as X at the bottom."""
    try:
        state = decode_xgid(text)
        position = state.position()
    except (IdError, PositionError) as exc:
        raise ShowError(str(exc)) from None
    defects = position.defects()
    if defects:
        raise ShowError(f"XGID {text.strip()!r} is not a valid position: {'; '.join(defects)}")
    mover_is_x = state.turn == 1
    owner: CubeOwner = "centre"
    if state.cube_owner:
        owner = "mover" if (state.cube_owner == 1) == mover_is_x else "opponent"
    scores = (state.score_x, state.score_o) if mover_is_x else (state.score_o, state.score_x)
    board = Board(
        dice=state.dice if state.dice != (0, 0) else None,
        cube=state.cube,
        cube_owner=owner,
        score=scores,
        match_length=state.match_length,
        names=("X", "O") if mover_is_x else ("O", "X"),
    )
    return Shown(position, board, (text.strip(), _state_heading(board)))


def _named_file(name: str) -> str | None:
    """The file `name` stands for: itself, or the file whose display form it is (a name
    copied from a report, such as `bad\\xff.mat`); None when neither is a file."""
    for candidate in (name, path_from_display(name)):
        if Path(candidate).is_file():
            return candidate
    return None


def _record_source(name: str) -> tuple[str, bytes] | None:
    """(label, bytes) of the record `name` names, as `validate` labels and reads it: a file,
    a compressed file (`.gz`, `.bz2`, `.xz`), or `ARCHIVE!MEMBER` (the label a report or a
    finding gives a member). None when nothing by that name exists; ShowError when it exists
    but holds no one readable record."""
    from bgparse.readers import MAX_FILE_BYTES
    from bgparse.store.inputs import Archive, InputFile, Limits, Rejected, iter_inputs

    limits = Limits(max_file_bytes=MAX_FILE_BYTES)
    wanted = {name, display_path(name)}
    # `name` itself, or an archive up to one of its `!` (a member's name may hold one too).
    splits: list[tuple[str, str | None]] = [(name, None)]
    splits += [(name[:i], name[i + 1 :]) for i, c in enumerate(name) if c == "!" and i > 0]
    for outer, member in splits:
        found = _named_file(outer)
        if found is None:
            continue
        items = list(iter_inputs([found], limits))
        files = [i for i in items if isinstance(i, InputFile)]
        refused = [i for i in items if isinstance(i, Rejected)]
        if member is not None:
            files = [f for f in files if f.path in wanted]
            refused = [r for r in refused if r.path in wanted]
        if len(files) == 1:
            return files[0].path, files[0].data
        if refused:
            raise ShowError(f"{refused[0].path}: {refused[0].reason}")
        if member is not None:
            continue
        if files:
            raise ShowError(
                f"{display_path(found)} holds {len(files)} records: name one as "
                f"ARCHIVE!MEMBER:GAME:MOVE, such as '{files[0].path}:1:1'"
            )
        broken = [i for i in items if isinstance(i, Archive) and i.reason]
        reason = broken[0].reason if broken else "no record in it"
        raise ShowError(f"{display_path(found)}: {reason}")
    return None


def from_record(path: str | Path, game: int, move: int | str) -> Shown:
    """The board before a turn of game `game` (as the record numbers its games) of the first
    match in `path` that has such a game, with the recorded play drawn; for an illegal play
    the legal plays of that roll are listed. `move` is a MOVE as `bgparse show` reads it
    (`19`, `19a`, `19b`: the record's move 19, its first action or that of the left or
    right column; `t37`: the game's 37th turn, counting both sides' rolls and cube actions),
    or an int, the turn count. `path` is a file, a compressed file or `ARCHIVE!MEMBER`, by
    its name or by its display form."""
    source = _record_source(os.fsdecode(path))
    if source is None:
        raise ShowError(f"{display_path(path)}: no such file or folder")
    return _from_source(*source, game, f"t{move}" if isinstance(move, int) else move)


#: MOVE of `FILE:GAME:MOVE`: `t` and a turn count, or a move number with its column.
_MOVE = re.compile(r"(?:(?P<turn>[tT])(?P<count>\d+)|(?P<row>\d+)(?P<column>[abAB])?)")
#: A row number in a `.mat` line: at its start or after a blank (a repeat count is `(2)`).
_ROW = re.compile(r"(?:^|(?<=\s))(\d+)\)")
_COLUMNS = "ab"
_BEAVERS = frozenset({"beaver", "raccoon"})


def _written_rows(lines: list[str], turns: tuple[Turn, ...]) -> list[int | None]:
    """Each turn's move number as its `.mat` row writes it: the last row number on its line
    before its column; None where the line has none."""
    out: list[int | None] = []
    for turn in turns:
        text = lines[turn.line - 1] if 0 < turn.line <= len(lines) else ""
        found = [m for m in _ROW.finditer(text) if m.end() <= turn.column - 1]
        out.append(int(found[-1].group(1)) if found else None)
    return out


def _from_source(label: str, data: bytes, game: int, move: str) -> Shown:
    from bgparse.model.carry import game_comments
    from bgparse.readers import iter_records
    from bgparse.readers.decode import decode_bytes
    from bgparse.replay import replay
    from bgparse.writers.mat import row_numbers

    m = _MOVE.fullmatch(move)
    if m is None:
        raise ShowError(
            f"{label}: cannot read move {move!r}: give the record's move number (19), with "
            "its column (19a left, 19b right), or t and a turn count (t37)"
        )
    for part in ("count", "row"):
        digits = m.group(part)
        if digits is not None and len(digits.lstrip("0")) > _MAX_DIGITS:
            raise ShowError(f"{label}: no move {move[:20]}... (too large)")
    try:
        records = list(iter_records(data, label))
    except RecordError as exc:
        raise ShowError(exc.format().split("\n", 1)[0]) from None
    games_seen: list[int] = []
    lines: list[str] | None = None
    for record in records:
        match = replay(record)
        for index, g in enumerate(match.games):
            games_seen.append(g.number)
            if g.number != game:
                continue
            if record.format == "mat" and lines is None:
                lines = decode_bytes(data).text.split("\n")
            laid: list[int | None]
            try:
                laid = list(row_numbers(match, index, game_comments(record, match).get(index, ())))
            except ValueError:  # a game the .mat writer cannot lay out: no move numbers
                laid = [None] * len(g.turns)
            written = _written_rows(lines, g.turns) if lines is not None else laid
            rows = [w if w is not None else r for w, r in zip(written, laid, strict=True)]
            if m.group("turn"):
                count = int(m.group("count"))
                if not 1 <= count <= len(g.turns):
                    raise ShowError(
                        f"{label}: game {game} has {len(g.turns)} turns (rolls and cube "
                        f"actions), no turn {count}"
                    )
                i = count - 1
            else:
                i = _pick(label, game, g.turns, rows, int(m.group("row")), m.group("column"))
            turn = g.turns[i]
            at = rows[i]
            named = f"move {at}{_COLUMNS[turn.side]}, turn {i + 1}" if at else f"turn {i + 1}"
            return turn_shown(label, match.players, match.findings, turn, i + 1, named)
    known = ", ".join(str(n) for n in games_seen) or "none"
    raise ShowError(f"{label}: no game {game} (games: {known})")


def _pick(
    label: str,
    game: int,
    turns: tuple[Turn, ...],
    rows: list[int | None],
    row: int,
    column: str | None,
) -> int:
    """The index of the turn at move `row` (in `column`, a or b, where given; else the row's
    first), or ShowError saying which moves the game has."""
    # A take implied by a beaver or raccoon has no cell of its own: it shares its place with
    # the action written there, which is the one meant.
    at = sorted(
        (i for i, r in enumerate(rows) if r == row),
        key=lambda i: turns[i].kind == "take" and i > 0 and turns[i - 1].kind in _BEAVERS,
    )
    if column is not None:
        side = _COLUMNS.index(column.lower())
        chosen = [i for i in at if turns[i].side == side]
        if chosen:
            return chosen[0]
        if at:
            other = f"{row}{_COLUMNS[1 - side]}"
            raise ShowError(
                f"{label}: game {game}, move {row} has nothing in the "
                f"{'left' if side == 0 else 'right'} column ({other} has)"
            )
    elif at:
        return at[0]
    raise ShowError(f"{label}: game {game} has no move {row} (its moves: {_spans(rows)})")


def _spans(numbers: list[int | None]) -> str:
    """`1, 3-5` for [1, 3, 3, 4, 5]; `none` for []."""
    out: list[str] = []
    for n in sorted({n for n in numbers if n is not None}):
        if out and out[-1].split("-")[-1] == str(n - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out) or "none"


def turn_shown(
    path: str,
    players: tuple[str, str],
    findings: tuple[Finding, ...],
    turn: Turn,
    move: int,
    named: str | None = None,
) -> Shown:
    """The board before `turn` (the game's turn number `move`, from 1; `named` says it
    otherwise, `move 19a, turn 37`) of the file shown as `path` (its display form) with its
    play drawn,
    the findings at that turn, and for an illegal play the legal plays. Raises ShowError
    when the turn's IDs do not decode (a record that set up an impossible board)."""
    # A name is drawn in an SVG file and printed to a terminal: its control characters shown.
    names = (printable(players[0] or "player 0"), printable(players[1] or "player 1"))
    try:
        position = Position.from_position_id(turn.position_id)
        if turn.match_id:
            board = _board_from_match_id(decode_match_id(turn.match_id), names)
        else:
            board = _board_from_turn(turn, names)
    except (PositionError, IdError) as exc:
        raise ShowError(f"{path}:{turn.line}:{turn.column}: no board to draw: {exc}") from None
    board = replace(
        board,
        dice=turn.dice if turn.kind in ("play", "dance", "hidden") else None,
        play=tuple((s[0], s[1]) for s in turn.steps),
        title=f"{path} game {turn.game} {named or f'turn {move}'}",
    )
    mover = names[turn.side]
    what = {
        "play": f"{mover} to play {_dice(turn.dice)}",
        "dance": f"{mover} rolls {_dice(turn.dice)} and cannot move",
        "hidden": f"{mover} rolls {_dice(turn.dice)} (play not shown)",
    }.get(turn.kind, f"{mover} {_VERBS.get(turn.kind, turn.kind)}")
    heading = (
        f"{path}:{turn.line}:{turn.column}: game {turn.game}, {named or f'turn {move}'}: {what}",
        f"X = {names[on_roll(turn)]} (on roll), O = {names[1 - on_roll(turn)]}; "
        + _state_heading(board),
    )
    said = [
        printable(f"{f.severity}: {f.code} {f.message}")
        for f in findings
        if f.game == turn.game and f.turn == turn.ply
    ]
    legal = None
    verdict = "\n".join(said) or None
    if turn.kind == "play" and turn.legal is False and turn.dice is not None:
        d1, d2 = turn.dice
        if 1 <= d1 <= 6 and 1 <= d2 <= 6:
            legal = tuple(p.notation for p in legal_plays(position, turn.dice))
    recorded = turn.written if turn.kind == "play" else None
    return Shown(position, board, heading, recorded, verdict, legal)


_VERBS = {
    "double": "doubles",
    "take": "takes",
    "drop": "drops",
    "beaver": "beavers",
    "raccoon": "raccoons",
}


def _dice(dice: tuple[int, int] | None) -> str:
    return f"{dice[0]}{dice[1]}" if dice else "?"


_POSITION_ID = re.compile(r"^[A-Za-z0-9+/]{14}$")
# DOTALL: a file's name may hold a newline.
_RECORD = re.compile(r"^(?P<path>.+):(?P<game>\d+):(?P<move>[tT]?\d+[abAB]?)$", re.DOTALL)
#: More digits than any game or turn number has; also far below int()'s 4,300-digit limit.
_MAX_DIGITS = 9


def resolve(what: str) -> Shown:
    """Read WHAT as an XGID, a `FILE:GAME:MOVE` turn of a record, or a GNU Position ID with
    an optional `:MatchID`, in that order."""
    text = what.strip()
    if text.upper().startswith("XGID=") or text.count(":") >= 8:
        return from_xgid(text)
    m = _RECORD.match(text)
    source = _record_source(m.group("path")) if m else None
    if m and source is not None:
        if len(m.group("game").lstrip("0")) > _MAX_DIGITS:
            raise ShowError(f"{source[0]}: no game {m.group('game')[:20]}... (too large)")
        return _from_source(*source, int(m.group("game")), m.group("move"))
    head, sep, tail = text.partition(":")
    if _POSITION_ID.match(head):
        return from_ids(head, tail if sep else None)
    if m:
        raise ShowError(f"{display_path(m.group('path'))}: no such file or folder")
    raise ShowError(
        f"cannot read '{display_path(what)}': give a GNU Position ID (optionally :MatchID), "
        "an XGID, or FILE:GAME:MOVE"
    )
