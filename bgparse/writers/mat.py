"""The Jellyfish `.mat` writer: a verified match as GNU Backgammon exports it, or in any of the
dialect quirks of other producers (`MatStyle`), to make sample files of each.

The default style is GNU's own `export match mat` layout, byte for byte (formats.md §1.1, §3):
`; [Tag "Value"]` header lines, ` N point match`, ` Game N`, the score line `" %-31s%s : %d"`,
rows `"%3d) %-27s "` + right cell, `DD: ` + one `from/to` per checker with `25` for the bar,
`0` for off and `*` where a step hit, cube cells with a leading space, no `Takes` after a
beaver, and the result on its own line indented 6 (left winner) or 34 (right winner), except
where the last row holds only a left cell and the right player won (after a left `Drops`, or a
left play or roll before the left player resigned): there `Wins` shares the row.

Steps are written in the order the verified match holds them, which for a record read from a
file is the order it was written in; so a GNU export read and written again comes out the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from bgparse.model.carry import DERIVED_ROOT_PROPS, MAT_TAG_FORMATS, MAT_TAG_PREFIX, SGF_TAG_PREFIX
from bgparse.model.verified import Turn, VerifiedGame, VerifiedMatch
from bgparse.rules import (
    IdError,
    Position,
    PositionError,
    decode_match_id,
    encode_xgid_board,
    parse_play,
)

__all__ = [
    "MatStyle",
    "Setup",
    "derived_mat_tags",
    "game_setups",
    "mat_tags",
    "row_numbers",
    "turn_steps",
    "unwritable_cubes",
    "write_mat",
]

_VARIATION_TAG = {
    "nackgammon": "NackGammon",
    "hypergammon1": "HyperGammon (1)",
    "hypergammon2": "HyperGammon (2)",
    "hypergammon3": "HyperGammon (3)",
}


@dataclass(frozen=True, slots=True)
class MatStyle:
    """How a `.mat` file is laid out: each knob is one dialect quirk of formats.md §1.4, named
    with the producers that write it that way. The defaults are GNU Backgammon's export.

    Every combination reads back to the same verified match, with one limit of the format
    itself: `merge` without `stars` can leave a merged move ambiguous where the other order
    of the dice would hit (no producer writes that combination: the ones that merge also star).
    """

    #: Hit stars `13/7*`: GNU, JF, XG, Studio, GridGammon. False: Backgammon Galaxy (dialect
    #: A) and XG Mobile, which mark no hits.
    stars: bool = True
    #: The bar as a source: "25" GNU, JF, Galaxy A, XG `.mat`, OpenGammon; "bar" Backgammon
    #: Studio, choue.net; "Bar" XG text export, Galaxy B.
    bar: Literal["25", "bar", "Bar"] = "25"
    #: Bearing off: "0" (the same producers as "25"); "off" Studio, choue.net; "Off" XG text.
    off: Literal["0", "off", "Off"] = "0"
    #: Repeat counts `13/7(2)`: Studio, XG text, Galaxy B, choue.net. False: one entry per
    #: checker (`13/7 13/7`), GNU, JF, OpenGammon, Galaxy A.
    counts: bool = False
    #: One checker's steps merged (`24/13` for 6-5, `24/18*/13` keeping a hit on the way):
    #: Studio, XG text, Galaxy B. False: one `from/to` per die, GNU, JF.
    merge: bool = False
    #: "high-low" GNU, Galaxy, Studio; "as-rolled" (`15:`) XG Mobile, OpenGammon, Foxamon,
    #: GridGammon.
    dice_order: Literal["high-low", "as-rolled"] = "high-low"
    #: A roll that cannot be played: "trailing" `63: ` GNU, JF, GridGammon; "empty" `63:` XG
    #: Mobile, Galaxy A; "cannot-move" `63: Cannot Move` Studio, XG text, choue.net.
    dance: Literal["empty", "trailing", "cannot-move"] = "trailing"
    #: 0-based column where right cells start: 33 GNU, JF, XG `.mat`, Galaxy A; 37 XG Mobile;
    #: 39 XG text, Galaxy B; 40 Studio; 41 Foxamon; 44 OpenGammon.
    right_column: int = 33
    #: "gnu": `%3d)`, right-aligned row numbers (GNU, JF, XG); "growing": `  1)` ... `  10)`,
    #: the row (and the right cell) moving right as the number gains digits (Studio,
    #: OpenGammon).
    row_number_width: Literal["gnu", "growing"] = "gnu"
    #: "own-line": `Wins` on an unnumbered line (GNU, JF, Galaxy, XG); "in-row": in the
    #: winner's cell of a numbered row (Studio, XG Mobile, DailyGammon, GridGammon).
    result: Literal["own-line", "in-row"] = "own-line"
    #: "correct" `1 point`/`2 points` GNU, JF, GridGammon; "always-singular" `2 point` XG,
    #: Studio, Galaxy; "always-plural" `1 points` OpenGammon.
    plural: Literal["correct", "always-singular", "always-plural"] = "correct"
    #: Score line colon: " : " GNU, JF, XG; ": " OpenGammon, Foxamon, choue.net.
    score_colon: Literal[" : ", ": "] = " : "
    #: A blank before `N point match`, `Game N` and the score line: GNU, JF, XG. None:
    #: Galaxy A, Studio, choue.net, XG Mobile.
    leading_space: bool = True
    #: A blank before cube and result cells (` Doubles => 2`): GNU, JF. None: OpenGammon,
    #: choue.net.
    cube_leading_space: bool = True
    #: "=>" everyone but choue.net, which writes "==>".
    arrow: Literal["=>", "==>"] = "=>"
    #: "\n" GNU, Galaxy, Studio; "\r\n" XG and the tournament archives.
    newline: Literal["\n", "\r\n"] = "\n"
    #: `and the match` after the final game's `Wins` line: XG, Galaxy, Foxamon. GNU never
    #: writes it (a FIXME in its exporter).
    and_match: bool = False
    #: Backgammon Galaxy's mirror `Losses N point` in the loser's cell before the result.
    losses_line: bool = False

    def __post_init__(self) -> None:
        choices: dict[str, tuple[str, ...]] = {
            "bar": ("25", "bar", "Bar"),
            "off": ("0", "off", "Off"),
            "dice_order": ("high-low", "as-rolled"),
            "dance": ("empty", "trailing", "cannot-move"),
            "row_number_width": ("gnu", "growing"),
            "result": ("own-line", "in-row"),
            "plural": ("correct", "always-singular", "always-plural"),
            "score_colon": (" : ", ": "),
            "arrow": ("=>", "==>"),
            "newline": ("\n", "\r\n"),
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"MatStyle.{name} must be one of {allowed}, not {getattr(self, name)!r}"
                )
        # Row numbers and a left roll cell need room: the reader tells the columns apart by
        # where cells start, halfway between the left and the right cells.
        if not 24 <= self.right_column <= 80:
            raise ValueError(f"MatStyle.right_column must be 24-80, not {self.right_column}")


# --- what the writers share ----------------------------------------------------------------------


def turn_steps(turn: Turn) -> tuple[tuple[int, int, bool], ...]:
    """A play's single-die steps; where the replay could not resolve them (the board was unknown
    after a hidden play) the written play's from/to pairs, repeats expanded, without hits."""
    if turn.steps or turn.kind != "play" or not turn.written:
        return turn.steps
    try:
        moves = parse_play(turn.written)
    except ValueError:
        return ()
    out: list[tuple[int, int, bool]] = []
    for move in moves:
        pairs = list(zip(move.points, move.points[1:], strict=False))
        for _ in range(move.count):
            out.extend((a, b, False) for a, b in pairs)
    return tuple(out)


def mat_tags(match: VerifiedMatch) -> list[tuple[str, str]]:
    """The `; [Tag "Value"]` lines of a match: a `.mat` record's own tags as written (an `.xg`
    record's header is read into the same tags), and so an SGF record's that bgparse wrote from
    a `.mat` file (its `XT` property); for any other (SGF, generated), GNU's tags from its match
    information (`derived_mat_tags`); then each SGF root property that none of those says, as
    the tag `SGF XX` (`bgparse.model.carry`)."""
    if match.format in MAT_TAG_FORMATS:
        return list(match.tags)
    carried = [
        (name[len(MAT_TAG_PREFIX) :], value)
        for name, value in match.tags
        if name.startswith(MAT_TAG_PREFIX)
    ]
    tags = carried or derived_mat_tags(match)
    if match.format == "sgf":
        # Ratings bgparse wrote from the carried tags' Elo are said by those tags already.
        elo = {"WR": match.info.elo1, "BR": match.info.elo2} if carried else {}
        tags.extend(
            (SGF_TAG_PREFIX + name, value)
            for name, value in match.tags
            if name not in DERIVED_ROOT_PROPS
            and not name.startswith(MAT_TAG_PREFIX)
            and not (elo.get(name) is not None and _number(value) == elo.get(name))
        )
    return tags


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def derived_mat_tags(match: VerifiedMatch) -> list[tuple[str, str]]:
    """GNU's `.mat` tags from a match's information, plus the rule tags a `.mat` file needs to
    say what SGF's `RU` says (Crawford off, Jacoby, no cube, the variant)."""
    info = match.info
    tags: list[tuple[str, str]] = []
    date = info.event_date.replace("-", ".") if info.event_date else None
    rules = match.rules
    variant = str(rules.get("variant", "standard"))
    for key, value in (
        ("Site", info.site),
        ("Event", info.event),
        ("Round", info.round),
        ("EventDate", date),
        ("Variation", _VARIATION_TAG.get(variant)),
        ("Transcriber", info.transcriber),
    ):
        if value is not None:
            tags.append((key, value))
    if match.length > 1 and rules.get("crawford") is False:
        tags.append(("Crawford", "Off"))
    if match.length == 0 and rules.get("jacoby") is True:
        tags.append(("Jacoby", "On"))
    if rules.get("cube") is False or rules.get("cube_limit") == 1:
        tags.append(("CubeLimit", "1"))
    return tags


class Setup(NamedTuple):
    """A board or cube the record sets up where play does not lead to it (an XG `; Set Pos=`
    line, SGF `AE`/`AW`/`AB`, `CV`, `CP`): both boards in their own numbering, side 0 first."""

    boards: tuple[tuple[int, ...], tuple[int, ...]] | None  # None: unknown, the cube alone
    on_roll: int
    cube: int
    owner: int  # -1 centred
    board_changed: bool
    cube_changed: bool


def game_setups(
    game: VerifiedGame, variant: str = "standard"
) -> tuple[dict[int, Setup], Setup | None]:
    """The set-ups a game needs to be written faithfully: by the index of the turn they come
    before, and one after the last turn. Found by replaying the turns' steps and cube actions
    and comparing with the board and cube the verified match holds before each turn (and at
    the end): a record that set a position up (or an illegal play the replay went past) shows
    as a difference. Nothing is compared where the board is unknown (after a hidden play in
    mid-game) or not held (a generated match without position IDs)."""
    try:
        start = Position.initial(variant)
    except PositionError:
        start = Position.initial()
    checkers = start.checkers
    board: _Boards | None = (start.mover, start.opponent)
    value, owner = 1, -1
    pending: tuple[int, int] | None = None  # (doubler, value)
    beavered = False
    setups: dict[int, Setup] = {}
    last = len(game.turns) - 1
    for i, turn in enumerate(game.turns):
        kind = turn.kind
        if kind in ("play", "dance", "hidden") and pending is not None:
            # The roll after a beaver is its take (`.mat` records write none).
            value, owner, pending, beavered = pending[1], pending[0], None, False
        view = turn.side if kind in ("play", "dance", "hidden", "double") else 1 - turn.side
        pid = turn.position_id
        actual: _Boards | None = None
        board_changed = False
        if pid:
            if board is None:
                if turn.legal is True:
                    board = _boards(pid, view, checkers)  # the replay knows the board again
            elif _position_id(board, view, checkers) != pid:
                actual = _boards(pid, view, checkers)
                board_changed = actual is not None
        cube_changed = (turn.cube_value, turn.cube_owner) != (value, owner)
        if board_changed or cube_changed:
            board = actual or board
            value, owner = turn.cube_value, turn.cube_owner
            setups[i] = Setup(board, view, value, owner, board_changed, cube_changed)
        if kind == "play":
            board = _after(board, turn, checkers)
        elif kind == "hidden" and i != last:
            board = None  # the play is not shown: the replay does not know the board either
        elif kind == "double":
            pending = (turn.side, 2 * turn.cube_value)
        elif kind in ("beaver", "raccoon") and pending is not None:
            value, owner = pending[1], turn.side
            pending, beavered = (turn.side, 2 * value), True
        elif kind == "take" and pending is not None:
            value, owner = pending[1], pending[0] if beavered else turn.side
            pending, beavered = None, False
    end: Setup | None = None
    if game.final_position_id and game.final_match_id:
        try:
            view = decode_match_id(game.final_match_id).on_roll
        except IdError:
            return setups, None
        board_changed = (
            board is not None and _position_id(board, view, checkers) != game.final_position_id
        )
        cube_changed = (game.cube, game.cube_owner) != (value, owner) and pending is None
        if board_changed or cube_changed:
            final = _boards(game.final_position_id, view, checkers) or board
            if final is not None:
                end = Setup(final, view, game.cube, game.cube_owner, board_changed, cube_changed)
    return setups, end


_Boards = tuple[tuple[int, ...], tuple[int, ...]]


def _position_id(board: _Boards, view: int, checkers: int) -> str:
    try:
        return Position(board[view], board[1 - view], checkers).position_id()
    except PositionError:
        return ""


def _boards(position_id: str, view: int, checkers: int) -> _Boards | None:
    try:
        pos = Position.from_position_id(position_id, checkers=checkers)
    except PositionError:
        return None
    return (pos.mover, pos.opponent) if view == 0 else (pos.opponent, pos.mover)


def _after(board: _Boards | None, turn: Turn, checkers: int) -> _Boards | None:
    """Both boards after a play's steps (a blot landed on goes to the bar), or None where the
    board is unknown or the steps do not fit it."""
    if board is None or (not turn.steps and turn.legal is not True):
        return None
    side = turn.side
    mover, opponent = list(board[side]), list(board[1 - side])
    for src, dst, _hit in turn.steps:
        if not (0 <= dst < src <= 25) or mover[src] <= 0:
            return None
        mover[src] -= 1
        if dst:
            mover[dst] += 1
            if opponent[25 - dst] == 1:
                opponent[25 - dst] = 0
                opponent[25] += 1
            elif opponent[25 - dst] > 1:
                return None
    pair = (tuple(mover), tuple(opponent))
    return pair if side == 0 else (pair[1], pair[0])


# --- the writer ----------------------------------------------------------------------------------


def unwritable_cubes(match: VerifiedMatch) -> list[str]:
    """What of the match's cube a `.mat` file cannot say, one phrase per game: a centred cube
    above 1 set up (automatic doubles, SGF `CV` with `CP[c]`), since XG's `; Set Pos=` line,
    the only set-up a `.mat` has, writes a centred cube as 1; and a cube set up on its own
    where the board is not known. `write_mat` writes such a game's cube actions at the values
    they had, which a reader then takes as counted from a cube of 1."""
    variant = str(match.rules.get("variant", "standard"))
    out = []
    for game in match.games:
        setups, end = game_setups(game, variant)
        for setup in [*setups.values(), *([end] if end else [])]:
            if not setup.cube_changed:
                continue
            if setup.boards is None:
                out.append(f"game {game.number}'s cube set to {setup.cube} with no board")
                break
            if setup.owner == -1 and setup.cube > 1:
                out.append(
                    f"game {game.number}'s centred cube at {setup.cube}, from automatic doubles"
                )
                break
    return out


def write_mat(
    match: VerifiedMatch,
    style: MatStyle = MatStyle(),
    *,
    comments: Sequence[str] = (),
    game_comments: Mapping[int, Sequence[tuple[int, str]]] | None = None,
) -> str:
    """The match as a `.mat` file in `style` (GNU's export by default). `comments` are the
    record's free-text header comments (`MatchRecord.comments`), written as `; ` lines;
    `game_comments` the comments inside its games (`bgparse.model.carry.game_comments`), written as
    `; ` lines after the turn they follow (those after the last turn, after the result)."""
    nl = style.newline
    lead = " " if style.leading_space else ""
    out: list[str] = []
    tags = mat_tags(match)
    for key, value in tags:
        out.append(f'; [{key} "{value}"]')
    if tags:
        out.append("")
    for comment in comments:
        out.extend("; " + line for line in comment.split("\n"))
    out.append(f"{lead}{match.length} point match")
    out.append("")
    last = len(match.games) - 1
    variant = str(match.rules.get("variant", "standard"))
    for i, game in enumerate(match.games):
        out.append(f"{lead}Game {game.number}")
        out.append(_score_line(match.players, game.score_before, style))
        and_match = style.and_match and i == last and match.winner is not None
        notes = (game_comments or {}).get(i, ())
        out.extend(_Rows(style).game(game, and_match, variant, notes))
        out.append("")
    return nl.join(out) + nl


def row_numbers(
    match: VerifiedMatch, index: int, notes: Sequence[tuple[int, str]] = ()
) -> list[int]:
    """The row number `write_mat` (GNU's export) gives each turn of the match's game `index`,
    in the order of its turns: a left (side 0) action opens a row, a right one closes it or
    stands on a row of its own. The numbering of a record that writes none (SGF, `.xg`);
    `notes` are the game's comments (`bgparse.model.carry.game_comments`), which close a row."""
    rows = _Rows(MatStyle())
    rows.game(match.games[index], False, str(match.rules.get("variant", "standard")), notes)
    return rows.turn_rows


def _score_line(players: tuple[str, str], score: tuple[int, int], style: MatStyle) -> str:
    lead = " " if style.leading_space else ""
    left = f"{players[0]}{style.score_colon}{score[0]}"
    # GNU pads the left part to 31 so the right name stands one column before the right cells.
    width = style.right_column - 1 - len(lead)
    pad = left.ljust(width) if len(left) < width else left + " "
    return f"{lead}{pad}{players[1]}{style.score_colon}{score[1]}"


class _Rows:
    """Lays one game's cells out in numbered rows: a left cell opens a row, a right cell closes
    it (on a row of its own, left empty, when no row is open), then the result.

    A left roll that was not played (rolled, then resigned) followed by the right player's win
    is laid out as GNU Backgammon 1.07 exports it (checked against its export): the roll not
    padded, the result at the right column without a blank (`  2) 53:` ... `Wins 2 points`).
    GNU also puts a result on the line of a right roll not played (`61:  Wins 1 point`) and
    after a left one the left player won (`  2) 53:       Wins 1 point`), but its own import
    cannot read those lines back: there the result goes on its own line, which it reads."""

    def __init__(self, style: MatStyle) -> None:
        self.style = style
        self.lines: list[str] = []
        self.number = 0
        self.turn_rows: list[int] = []  # per turn of the game laid out, its row's number
        self.open: str | None = None  # the open row's text up to and including the left cell
        self.open_kind = ""  # what the open row's left cell is: "cell", "drop" or "hidden"
        self.open_cell = ""
        self.cube_lead = " " if style.cube_leading_space else ""
        # The left cell's width: GNU's `%-27s` for the right cells at 33.
        self.width = style.right_column - 6
        self.gnu_hidden = (
            style.right_column == 33
            and style.row_number_width == "gnu"
            and style.result == "own-line"
        )

    def prefix(self) -> str:
        self.number += 1
        if self.style.row_number_width == "gnu":
            return f"{self.number:3d}) "
        return f"  {self.number}) "

    def settle(self) -> None:
        """Lay a left roll not played out as any cell: no right winner's result follows it."""
        if self.open is not None and self.open_kind == "hidden":
            self.open = self.open[: -len(self.open_cell)] + self.open_cell.ljust(self.width) + " "
            self.open_kind = "cell"

    def close(self) -> None:
        self.settle()
        if self.open is not None:
            self.lines.append(self.open)
            self.open = None

    def left(self, cell: str, kind: str) -> None:
        self.close()
        if kind == "hidden" and self.gnu_hidden:
            self.open, self.open_kind, self.open_cell = self.prefix() + cell, "hidden", cell
        else:
            self.open = self.prefix() + cell.ljust(self.width) + " "
            self.open_kind = "drop" if kind == "drop" else "cell"

    def right(self, cell: str, kind: str) -> None:
        self.settle()
        if self.open is None:
            self.open = self.prefix() + " " * (self.width + 1)
        self.lines.append(self.open + cell)
        self.open = None

    def place(self, side: int, cell: str, kind: str = "cell") -> None:
        if side == 0:
            self.left(cell, kind)
        else:
            self.right(cell, kind)

    def game(
        self,
        game: VerifiedGame,
        and_match: bool,
        variant: str,
        notes: Sequence[tuple[int, str]] = (),
    ) -> list[str]:
        setups, end = game_setups(game, variant)
        previous = ""
        for i, turn in enumerate(game.turns):
            self.notes(n for n in notes if n[0] == i)
            kind = turn.kind
            if kind == "take" and previous in ("beaver", "raccoon"):
                # GNU and JF write no take after a beaver: the next roll implies it.
                previous = kind
                self.turn_rows.append(self.number)  # implied by the beaver's row
                continue
            previous = kind
            if i in setups:
                self.set_position(setups[i])
            hidden = kind == "hidden" and not turn.steps
            self.place(turn.side, self.cell(turn), "hidden" if hidden else kind)
            self.turn_rows.append(self.number)
        if end is not None:
            self.set_position(end)
        if game.winner is not None:
            self.result(game.winner, game.points, and_match)
        self.close()
        self.notes(n for n in notes if n[0] >= len(game.turns))
        return self.lines

    def notes(self, notes: Iterable[tuple[int, str]]) -> None:
        """Comment lines: a row open on its left cell is closed first (the right cell goes on
        a row of its own), which reads back to the same actions in the same order."""
        for _n, text in notes:
            self.close()
            self.lines.extend(("; " + line).rstrip() for line in text.split("\n"))

    def set_position(self, setup: Setup) -> None:
        """XG's `; Set Pos=<XGID board>/<cube>` line (the only set-up a `.mat` file has): the
        uppercase checkers are the left player's, the cube `0` centred, `-k` 2^k owned by the
        left player, `k` by the right."""
        if setup.boards is None:
            return
        self.close()
        k = max(setup.cube, 1).bit_length() - 1
        cube = 0 if setup.owner == -1 else (-k if setup.owner == 0 else k)
        board = encode_xgid_board(setup.boards[0], setup.boards[1])
        self.lines.append(f"; Set Pos={board}/{cube}")

    def cell(self, turn: Turn) -> str:
        style = self.style
        kind = turn.kind
        if kind in ("play", "dance", "hidden"):
            dice = turn.dice or (0, 0)
            if style.dice_order == "high-low" and dice[0] < dice[1]:
                dice = (dice[1], dice[0])
            head = f"{dice[0]}{dice[1]}:"
            steps = turn_steps(turn)
            if not steps:
                if kind == "dance" and style.dance == "cannot-move":
                    return head + " Cannot Move"
                if kind == "hidden" and turn.written:
                    # `33: ???` as written: without its marks it would read as a dance. A hidden
                    # play another format describes (XG's "rolled, not played") is written as
                    # XG's own `.mat` export writes it.
                    marks = turn.written if turn.written.startswith("?") else "???"
                    return head + " " + marks
                return head if style.dance == "empty" else head + " "
            words = _play_words(steps, style)
            # GNU ends a play of fewer than four steps with a blank (its fixed-size move
            # buffer), which shows where the play is the right cell.
            return head + " " + " ".join(words) + (" " if len(steps) < 4 else "")
        lead = self.cube_lead
        if kind == "double":
            return f"{lead}Doubles {style.arrow} {2 * turn.cube_value}"
        if kind in ("beaver", "raccoon"):
            # GNU (and JF) write a raccoon as another beaver; the replay tells them apart.
            return f"{lead}Beavers {style.arrow} {4 * turn.cube_value}"
        if kind == "take":
            return f"{lead}Takes"
        if kind == "drop":
            return f"{lead}Drops"
        raise ValueError(f"a turn of kind {kind!r} cannot be written to a .mat file")

    def result(self, winner: int, points: int, and_match: bool) -> None:
        style = self.style
        lead = self.cube_lead
        tail = " and the match" if and_match else ""
        wins = f"Wins {points} {_points_word(points, style)}{tail}"
        if style.losses_line:
            self.place(1 - winner, f"{lead}Losses {points} {_points_word(points, style)}")
        if self.open is not None and self.open_kind == "hidden" and winner == 1:
            line, self.open = self.open, None
            self.lines.append(line.ljust(style.right_column) + wins)
            return
        self.settle()
        if winner == 1 and self.open is not None:
            # The left player's last cell shares its row with the right winner's result; GNU
            # ends a left drop's row with a blank.
            line, self.open = self.open, None
            self.lines.append(line + lead + wins + (" " if self.open_kind == "drop" else ""))
            return
        if style.result == "in-row":
            self.place(winner, lead + wins)
            return
        self.close()
        indent = style.right_column if winner == 1 else 5
        self.lines.append(" " * indent + lead + wins)


def _points_word(points: int, style: MatStyle) -> str:
    if style.plural == "always-singular":
        return "point"
    if style.plural == "always-plural":
        return "points"
    return "point" if points == 1 else "points"


def _point_text(point: int, is_source: bool, style: MatStyle) -> str:
    if point == 25 and is_source:
        return style.bar
    if point == 0 and not is_source:
        return style.off
    return str(point)


def _play_words(steps: Sequence[tuple[int, int, bool]], style: MatStyle) -> list[str]:
    """The words of one play in `style`: one per step (GNU), or merged per checker, or with
    repeat counts."""
    stars = style.stars
    chains: list[list[tuple[int, bool]]] = []
    for src, dst, hit in steps:
        if style.merge and src not in (0, 25):
            # The latest chain ending where this step starts is the checker that moves on.
            for chain in reversed(chains):
                if chain[-1][0] == src:
                    chain.append((dst, hit))
                    break
            else:
                chains.append([(src, False), (dst, hit)])
        else:
            chains.append([(src, False), (dst, hit)])
    words: list[tuple[str, bool]] = []
    for chain in chains:
        parts = [_point_text(chain[0][0], True, style)]
        last = len(chain) - 1
        for i, (point, hit) in enumerate(chain[1:], start=1):
            # A merged checker keeps the points where it hit on its way.
            if i < last and not hit:
                continue
            parts.append(_point_text(point, False, style) + ("*" if hit and stars else ""))
        words.append(("/".join(parts), any(hit for _, hit in chain[1:])))
    if not style.counts:
        return [w for w, _ in words]
    # Repeats in order of first appearance. A repeated move is starred once for all where one
    # of its checkers hit, as Studio writes `6/4*(2)`: the star says the play hit there.
    grouped: dict[str, list[str]] = {}
    for word, _hit in words:
        grouped.setdefault(word.replace("*", ""), []).append(word)
    out: list[str] = []
    for same in grouped.values():
        word = next((w for w in same if "*" in w), same[0])
        out.append(word + (f"({len(same)})" if len(same) > 1 else ""))
    return out
