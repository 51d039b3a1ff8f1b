"""The eXtreme Gammon `.xg` reader: the RichGameFormat container, its zlib archive and the
fixed-size records of `temp.xg`, into the same event records the `.mat` and SGF readers make.

Layout (XG's published format, extremegammon.com/XGformat.aspx; written here from that
description and the real files in the corpus): an 8,232-byte header (`RGMH`), an optional JPEG
thumbnail, then a ZLibArchive: the compressed inner files, their index (532-byte entries) and a
36-byte trailer holding the CRC-32 of archive and index. `temp.xg` is a run of 2,560-byte
records (Delphi variant records, naturally aligned): match header, game header, cube, move,
game footer, match footer. `temp.xgc` holds the comments, one RTF text per CRLF line.

Spans: a binary file has no lines, so an event's span is the record's 1-based number in
`temp.xg` as "line" and the byte offset of the field within the record plus one as "column";
container errors use line 0 and the byte offset in the file plus one.

Every size and count read from the file is checked against the bytes there before anything is
allocated or decompressed, so a damaged or hostile file costs bounded time and memory.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import cast

from bgparse.analysis.model import Candidate, CheckerNote, CubeNote, Note, Probs
from bgparse.helpers.errors import InputError
from bgparse.model.events import (
    OFF,
    Action,
    Beaver,
    Comment,
    Double,
    Drop,
    Game,
    HiddenPlay,
    MatchInfo,
    MatchRecord,
    Move,
    Raccoon,
    Resign,
    SetPosition,
    Span,
    Take,
    Win,
    make_roll,
)
from bgparse.model.findings import Finding, Severity, SyntaxRecordError

try:
    # ISA-L inflates the same streams about four times as fast as zlib: an .xg file is mostly
    # XG's compressed analysis, which must be inflated to reach the records.
    from isal import isal_zlib as _inflater
except ImportError:  # pragma: no cover - a platform without isal's wheels
    _inflater = zlib  # type: ignore[misc]
_INFLATE_ERRORS: tuple[type[Exception], ...] = (
    zlib.error,
    cast("type[Exception]", _inflater.error),
)

__all__ = ["MAGIC", "RECORD_SIZE", "XgFileError", "is_xg", "iter_xg_matches", "unpack_archive"]

MAGIC = b"RGMH"
#: Every record of `temp.xg` has this size, whatever its type.
RECORD_SIZE = 2560
_HEADER_SIZE = 8232
_TRAILER = struct.Struct("<IiiiiI12x")  # crc, files, version, index size, data size, packed
_ENTRY_SIZE = 532
_ENTRY_TAIL = struct.Struct("<iiiIBB2x")  # size, packed size, start, crc, stored, level
#: XG's match header says it is one with this number at byte 556 ("DMLI").
_MATCH_MAGIC = 0x494C4D44
#: The largest inner file read. A real match file unpacks to a few MB (7 games: 1.7 MB);
#: this allows sessions of several hundred games, and bounds a hostile file's cost.
MAX_INNER_BYTES = 256 * 1024 * 1024
_MAX_INDEX_BYTES = 1024 * 1024
_UNLIMITED = 99999  # XG's match length of a money session

_HEADER_MATCH, _HEADER_GAME, _CUBE, _MOVE, _FOOTER_GAME, _FOOTER_MATCH = range(6)
_KIND = {
    _HEADER_MATCH: "match header",
    _HEADER_GAME: "game header",
    _CUBE: "cube",
    _MOVE: "move",
    _FOOTER_GAME: "game footer",
    _FOOTER_MATCH: "match footer",
}

#: XG's variations by the names the rules know (XG's hypergammon has three checkers a side).
_VARIATIONS = {0: "Backgammon", 1: "Nackgammon", 2: "Hypergammon3", 3: "Longgammon"}
#: Start positions (own numbering: point -> checkers) of the variants the replay knows, to
#: tell a game played from the start from one set up by hand.
_STARTS = {
    0: {24: 2, 13: 5, 8: 3, 6: 5},
    1: {24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
}
_SITES = (
    "GammonSite",
    "FIBS",
    "TrueMoney Games",
    "GridGammon",
    "DailyGammon",
    "NetGammon",
    "VOG",
    "Gammon Empire/Play65",
    "Club Games",
    "PartyGammon",
    "XcitingGames",
    "BGRoom",
    "DiceArena",
    "Safe Harbor Games",
    "GameAccount",
    "XG Mobile",
)
_RESIGN_WORDS = {1: "single", 2: "gammon", 3: "backgammon"}


def is_xg(data: bytes) -> bool:
    """Whether bytes are an eXtreme Gammon RichGameFormat file (by content, never by name)."""
    return data[:4] == MAGIC


class XgFileError(InputError, ValueError):
    """An XG file that cannot be read as a whole; `iter_xg_matches` turns it into one
    `SyntaxRecordError` with the same code and place."""

    def __init__(self, code: str, message: str, line: int = 0, column: int = 1) -> None:
        super().__init__(message)
        self.code, self.message, self.line, self.column = code, message, line, column


# --- the container ---------------------------------------------------------------------------


def _inflate(raw: bytes, limit: int, what: str, offset: int) -> bytes:
    """One zlib stream, refusing to produce more than `limit` bytes (a bomb costs nothing)."""
    d = _inflater.decompressobj()
    try:
        out = d.decompress(raw, limit + 1)
    except _INFLATE_ERRORS as exc:
        raise XgFileError(
            "S020", f"{what}: compressed data is damaged ({exc})", 0, offset + 1
        ) from None
    if len(out) > limit:
        raise XgFileError("S020", f"{what}: unpacks to more than {limit:,} bytes", 0, offset + 1)
    if not d.eof:
        raise XgFileError("S020", f"{what}: compressed data is cut short", 0, offset + 1)
    return out


def _short_string(raw: bytes, size: int) -> str:
    """A Delphi `string[n]` (length byte, then ANSI bytes), its length clamped to the field."""
    n = min(raw[0], size) if raw else 0
    return raw[1 : 1 + n].decode("cp1252", errors="replace")


def _wide_string(raw: bytes) -> str:
    """A NUL-terminated UTF-16 field (bytes after the terminator are left-over junk)."""
    for i in range(0, len(raw) - 1, 2):
        if raw[i] == 0 and raw[i + 1] == 0:
            raw = raw[:i]
            break
    else:
        raw = raw[: len(raw) // 2 * 2]
    return raw.decode("utf-16-le", errors="replace")


def unpack_archive(data: bytes) -> dict[str, bytes]:
    """The inner files of an XG file by (lower-case) name, each checked against its CRC.
    Raises `XgFileError` (S020) for a file that is cut, damaged or not laid out as XG writes."""
    if len(data) < _HEADER_SIZE:
        raise XgFileError(
            "S020", f"file is cut short: {len(data):,} bytes, the header alone is 8,232"
        )
    version, header_size, thumb_offset, thumb_size = struct.unpack_from("<IIqI", data, 4)
    if version != 1 or header_size != _HEADER_SIZE:
        raise XgFileError(
            "S020",
            f"unknown header (version {version}, size {header_size}): not a file XG wrote",
            0,
            5,
        )
    if thumb_offset < 0 or thumb_size < 0 or _HEADER_SIZE + thumb_offset + thumb_size > len(data):
        raise XgFileError("S020", "the thumbnail's size does not fit in the file", 0, 17)
    start = _HEADER_SIZE + thumb_offset + thumb_size
    if len(data) - start < _TRAILER.size:
        raise XgFileError("S020", "file is cut short: no archive after the header", 0, start + 1)
    crc, count, _version, index_size, body_size, packed = _TRAILER.unpack_from(
        data, len(data) - _TRAILER.size
    )
    index_at = len(data) - _TRAILER.size - index_size
    body_at = index_at - body_size
    if index_size < 0 or body_size < 0 or body_at != start:
        raise XgFileError(
            "S020",
            "archive sizes do not fit the file (cut short, or bytes added or lost)",
            0,
            len(data) - _TRAILER.size + 1,
        )
    if _inflater.crc32(memoryview(data)[start : len(data) - _TRAILER.size]) != crc:
        raise XgFileError("S020", "archive CRC check failed: the file is damaged", 0, start + 1)
    index = data[index_at : index_at + index_size]
    if packed:
        index = _inflate(index, _MAX_INDEX_BYTES, "archive index", index_at)
    if count < 1 or count * _ENTRY_SIZE > len(index):
        raise XgFileError(
            "S020",
            f"archive index names {count:,} files but has room for {len(index) // _ENTRY_SIZE}",
            0,
            len(data) - _TRAILER.size + 5,
        )
    files: dict[str, bytes] = {}
    for i in range(count):
        entry = index[i * _ENTRY_SIZE : (i + 1) * _ENTRY_SIZE]
        name = _short_string(entry[:256], 255)
        size, packed_size, at, file_crc, stored, _level = _ENTRY_TAIL.unpack_from(entry, 512)
        if at < 0 or packed_size < 0 or at + packed_size > body_size or size < 0:
            raise XgFileError(
                "S020", f"archive entry {name!r} points outside the archive", 0, start + 1
            )
        if size > MAX_INNER_BYTES:
            raise XgFileError(
                "S020", f"{name!r} is {size:,} bytes; at most {MAX_INNER_BYTES:,} are read"
            )
        raw = data[start + at : start + at + packed_size]
        body = raw if stored else _inflate(raw, size, repr(name), start + at)
        if len(body) != size:
            raise XgFileError(
                "S020",
                f"{name!r} unpacks to {len(body):,} bytes, its index says {size:,}",
                0,
                start + at + 1,
            )
        if _inflater.crc32(body) != file_crc:
            raise XgFileError(
                "S020", f"{name!r}: CRC check failed, the file is damaged", 0, start + at + 1
            )
        files[name.lower()] = body
    return files


# --- comments --------------------------------------------------------------------------------

_RTF_SKIP = re.compile(r"\{\\\*[^{}]*\}|\{\\(?:fonttbl|colortbl|stylesheet)(?:[^{}]|\{[^{}]*\})*\}")
_RTF_TOKEN = re.compile(
    r"\\'([0-9a-fA-F]{2})|\\u(-?\d{1,6})\??|\\([a-z]+)(-?\d+)?[ \0]?|\\([{}\\])|([{}])"
)


def _rtf_text(rtf: str) -> str:
    """The plain text of XG's small RTF comments (paragraphs as newlines, escapes decoded)."""

    def token(m: re.Match[str]) -> str:
        if m.group(1):
            return bytes([int(m.group(1), 16)]).decode("cp1252", errors="replace")
        if m.group(2):
            return chr(int(m.group(2)) % 0x10000)
        if m.group(3):
            return "\n" if m.group(3) in ("par", "line") else "\t" if m.group(3) == "tab" else ""
        if m.group(5):
            return m.group(5)
        return ""

    if not rtf.lstrip().startswith("{\\rtf"):
        return rtf.strip()
    # Line breaks in RTF source are not text (only \par and \line are), but they do end a
    # control word: kept as NULs for the tokens, then dropped.
    rtf = rtf.replace("\r", "\0").replace("\n", "\0")
    text = _RTF_TOKEN.sub(token, _RTF_SKIP.sub("", rtf)).replace("\0", "")
    return "\n".join(line.strip() for line in text.split("\n")).strip()


def _comments(raw: bytes | None) -> list[str]:
    """`temp.xgc`: one comment a CRLF line, XG's CR LF inside a comment stored as 0x01 0x02."""
    if not raw:
        return []
    lines = raw.decode("cp1252", errors="replace").split("\r\n")
    return [_rtf_text(line.replace("\x01\x02", "\n")) for line in lines]


# --- records ---------------------------------------------------------------------------------


#: A record: read in place from the unpacked file.
_Buffer = bytes | memoryview
_I32 = struct.Struct("<i")
_CUBE_HEAD = struct.Struct("<5i")  # at 12: active player, double, take, beaver, raccoon
_MOVE_HEAD = struct.Struct("<i8i2i")  # at 64: the active player, 4 (from, to) steps, the dice
_BOARDS = struct.Struct("<26b26b")  # at 9: the board before (player 1's view), after (mover's)


def _i32(rec: _Buffer, at: int) -> int:
    value: int = _I32.unpack_from(rec, at)[0]
    return value


def _make_steps() -> dict[tuple[int, int], tuple[Move, str]]:
    """Every (from, to) step XG can store (0-based points, 24 the bar, below 0 off), as the
    event's move and its notation: made once, as a play is read many thousand times."""
    steps: dict[tuple[int, int], tuple[Move, str]] = {}
    for src in range(25):
        for dst in range(-7, src):
            move = Move((src + 1, dst + 1 if dst >= 0 else OFF), (False, False))
            steps[src, dst] = (move, move.notation())
    return steps


_STEPS = _make_steps()


@lru_cache(maxsize=1 << 14)
def _play(steps: tuple[int, ...]) -> tuple[tuple[Move, ...], str, int]:
    """A move record's four (from, to) slots as the play's moves and notation, and the index
    of the first slot that is no step on a board (-1: none). Plays repeat from match to match
    (openings, bear-offs): each is built once."""
    moves: list[Move] = []
    words: list[str] = []
    for k in range(0, 8, 2):
        if steps[k] == -1:
            break
        step = _STEPS.get((steps[k], steps[k + 1]))
        if step is None:
            return tuple(moves), " ".join(words), k
        moves.append(step[0])
        words.append(step[1])
    return tuple(moves), " ".join(words), -1


def _board(rec: _Buffer, at: int) -> tuple[int, ...]:
    """A PositionEngine: 26 signed bytes, index 1-24 points, 25 own bar, 0 opponent's bar."""
    return struct.unpack_from("<26b", rec, at)


def _flip(board: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(-board[25 - i] for i in range(26))


def _sides(board: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Player 1's view of a board as each side's checkers in its own numbering (25 = bar)."""
    own = [0] * 26
    opp = [0] * 26
    for i in range(1, 25):
        if board[i] > 0:
            own[i] = board[i]
        elif board[i] < 0:
            opp[25 - i] = -board[i]
    own[25] = max(board[25], 0)
    opp[25] = max(-board[0], 0)
    return tuple(own), tuple(opp)


def _delphi_date(value: float) -> datetime | None:
    """TDateTime: days since 1899-12-30, the fraction the time of day."""
    if not (1.0 <= value <= 2958465.0):  # years 1900-9999; also refuses NaN
        return None
    return datetime(1899, 12, 30) + timedelta(days=value)


# --- analysis --------------------------------------------------------------------------------

#: XG's "no value" for an error or luck it did not compute (ErrMove, ErrLuck, ErrCube, ErrTake).
_NO_VALUE = -1000.0
#: The largest equity or error taken as XG's: normalised EMG stays within a few units.
_MAX_EQUITY = 10.0
#: XG's evaluation levels (its PLAYERLEVEL table); 998 marks the opening book's plays.
_LEVELS = {
    0: "1-ply",
    1: "2-ply",
    2: "3-ply",
    12: "3-ply red",
    3: "4-ply",
    4: "5-ply",
    5: "6-ply",
    6: "7-ply",
    100: "rollout",
    998: "book",
    1000: "XGRoller",
    1001: "XGRoller+",
    1002: "XGRoller++",
}
_MOVE_ERRORS = struct.Struct("<dd")  # at 2312: ErrMove, ErrLuck
#: The move record's analysis (EngineStructBestMove at 124): its level at 160, the number of
#: candidates at 188, then per candidate its board after the play (26 bytes from 192), its
#: (from, to) steps (8 signed bytes from 1024) and its result (7 floats from 1408).
_BEST_LEVEL, _BEST_COUNT, _BEST_BOARDS, _BEST_STEPS, _BEST_EVALS = 160, 188, 192, 1024, 1408
_ANALYSED_AT = 2472  # AnalyzeM: the level the move was analysed at
#: The cube record's analysis (EngineStructDoubleAction at 64): level at 92, cube owner at
#: 108 (from the doubler's view, -1 the opponent), Crawford at 116 (16 bits), the no-double
#: result (7 floats from 124) and the three equities (no double, double/take, double/pass)
#: from 152; ErrCube at 200, ErrTake at 216.
_CUBE_LEVEL, _CUBE_OWNER, _CUBE_CRAWFORD, _CUBE_EVAL = 92, 108, 116, 124
_CUBE_EQUITIES = struct.Struct("<3f")
_CUBE_ERRORS = struct.Struct("<d8xd")  # at 200: ErrCube, DiceRolled (padded), ErrTake
_EVAL = struct.Struct("<7f")
_ZEROS = bytes(8)


def _level(code: int) -> str:
    return _LEVELS.get(code, f"level {code}")


def _probs(ev: tuple[float, ...]) -> Probs:
    """XG's result (lose a backgammon, lose a gammon, lose, win, win a gammon, win a
    backgammon, equity) as the model's probabilities: win, gammon, backgammon, their losses."""
    return (ev[3], ev[4], ev[5], ev[1], ev[0])


def _sane(*values: float) -> bool:
    """Every value a finite number an analysis can hold (NaN fails every comparison)."""
    return all(-_MAX_EQUITY <= v <= _MAX_EQUITY for v in values)


def _all_sane(values: tuple[float, ...]) -> bool:
    """A candidate list's results at a glance: their sum finite and of a size seven values each
    within `_sane` can have (a NaN or infinity makes it NaN or infinite)."""
    total = sum(values)
    return -_MAX_EQUITY * len(values) <= total <= _MAX_EQUITY * len(values)


_new = object.__new__
_set_play, _set_equity, _set_probs = (
    Candidate.__dict__[name].__set__ for name in ("play", "equity", "probs")
)


def _candidate(play: str, equity: float, probs: Probs) -> Candidate:
    """`Candidate(play, equity, probs)` without the frozen dataclass's interpreted __init__
    (as `events.make_roll`): an analysed file holds some ten for each of its moves."""
    candidate: Candidate = _new(Candidate)
    _set_play(candidate, play)
    _set_equity(candidate, equity)
    _set_probs(candidate, probs)
    return candidate


@lru_cache(maxsize=64)
def _candidate_evals(n: int) -> struct.Struct:
    return struct.Struct(f"<{7 * n}f")


@lru_cache(maxsize=1 << 14)
def _candidate_play(raw: bytes) -> tuple[str, int]:
    """A candidate's 8 signed bytes as its notation, and the byte of its first step that is
    no move (-1: none). The list ends at the first step from -1 (-1 as a destination is off
    the board: XG leaves bytes of other plays after the end); a dance's one candidate is all
    -1, or all 0 in some files."""
    if raw == _ZEROS:
        return "", -1
    _, text, bad = _play(struct.unpack("<8b", raw))
    return text, bad


class _Reader:
    """One `temp.xg` into one MatchRecord; record-level problems become findings."""

    def __init__(self, path: str, files: dict[str, bytes]) -> None:
        self.path = path
        body = files.get("temp.xg")
        if body is None:
            raise XgFileError("S020", "the archive holds no temp.xg: no match in this file")
        if len(body) < RECORD_SIZE:
            raise XgFileError(
                "S021",
                f"temp.xg is {len(body):,} bytes, shorter than one {RECORD_SIZE:,}-byte record",
                1,
                1,
            )
        self.body = body
        self.errors: list[Finding] = []
        self.comments = _comments(files.get("temp.xgc"))
        self.version = 0
        self.notes: list[Note] = []
        self.game_no = 0
        # A decision not to double, waiting for the roll it is placed at.
        self.no_double: CubeNote | None = None

    def error(self, message: str, recno: int, at: int, severity: Severity | None = None) -> None:
        self.errors.append(Finding.make("S021", message, recno, at + 1, severity=severity))

    def comment(self, index: int) -> str | None:
        return self.comments[index] if 0 <= index < len(self.comments) else None

    def read(self) -> MatchRecord:
        body = self.body
        n = len(body) // RECORD_SIZE
        if len(body) % RECORD_SIZE:
            self.error(
                f"temp.xg ends with {len(body) % RECORD_SIZE:,} bytes of a cut record; ignored",
                n + 1,
                0,
            )
        first = body[:RECORD_SIZE]
        if first[8] != _HEADER_MATCH or _i32(first, 556) != _MATCH_MAGIC:
            raise XgFileError("S021", "temp.xg does not start with XG's match header", 1, 9)
        tags, info, players, length, match_comments = self._match_header(first)
        games: list[Game] = []
        actions: list[Action] = []
        game: tuple[int, tuple[int, int], int, int] | None = None  # number, score, record, note
        cube = 1
        last_game_no = 0
        view = memoryview(body)  # records are read in place, never copied
        for recno in range(2, n + 1):
            rec = view[(recno - 1) * RECORD_SIZE : recno * RECORD_SIZE]
            kind = rec[8]
            if game is not None and kind == _MOVE:
                self._move(rec, recno, actions)
                continue
            if game is not None and kind == _CUBE:
                cube = self._cube(rec, recno, actions, cube)
                continue
            if kind == _HEADER_GAME:
                if game is not None:
                    games.append(self._game(game, actions, players))
                number = _i32(rec, 48)
                if not 1 <= number <= 100_000:
                    self.error(f"game number {number} is out of range", recno, 48)
                    number = last_game_no + 1
                last_game_no = number
                self.game_no, self.no_double = number, None
                score = (_i32(rec, 12), _i32(rec, 16))
                if not all(0 <= s <= 1_000_000 for s in score):
                    self.error(f"score {score[0]}-{score[1]} is out of range", recno, 12)
                    score = (0, 0)
                game, actions = (number, score, recno, _i32(rec, 60)), []
                self._start(rec, recno, tags, actions)
                cube = self._automatic_doubles(rec, recno, actions)
                self._note(_i32(rec, 56), None, recno, 56, actions)
                continue
            if kind == _FOOTER_MATCH:
                if game is not None:
                    games.append(self._game(game, actions, players))
                    game = None
                continue
            if kind not in _KIND:
                self.error(f"record type {kind} is not one XG writes; skipped", recno, 8)
                continue
            if kind == _HEADER_MATCH:
                self.error("a second match header; skipped", recno, 8)
                continue
            if game is None:
                self.error(f"a {_KIND[kind]} record outside any game; skipped", recno, 8)
                continue
            if kind == _FOOTER_GAME:
                self._footer(rec, recno, actions, length, game[1])
                games.append(self._game(game, actions, players))
                game = None
        if game is not None:
            games.append(self._game(game, actions, players))
        return MatchRecord(
            path=self.path,
            format="xg",
            players=players,
            length=length,
            games=tuple(games),
            tags=tuple(tags),
            info=info,
            dialect="xg-binary",
            comments=tuple(match_comments),
            errors=tuple(self.errors),
            span=Span(1, 1),
            index=0,
            hit_marks=False,
            analysis=tuple(self.notes),
            analysis_source="xg" if self.notes else None,
        )

    # -- match header

    def _match_header(
        self, rec: bytes
    ) -> tuple[list[tuple[str, str]], MatchInfo, tuple[str, str], int, list[str]]:
        version = _i32(rec, 552)
        self.version = version
        if not 1 <= version <= 40:
            self.error(f"file version {version} is not one XG writes (1-40)", 1, 552)
        if version >= 24:
            names = (_wide_string(rec[880:1138]), _wide_string(rec[1138:1396]))
            event, site, round_ = (_wide_string(rec[o : o + 258]) for o in (622, 1396, 1654))
        else:
            names = (_short_string(rec[9:50], 40), _short_string(rec[50:91], 40))
            event = _short_string(rec[136:265], 128)
            site = _short_string(rec[283:412], 128)
            round_ = _short_string(rec[417:546], 128)
        transcriber = _wide_string(rec[1960:2218]) if version >= 30 else ""
        length = _i32(rec, 92)
        if length == _UNLIMITED:
            length = 0
        elif not 0 <= length <= 999:
            self.error(f"match length {length} is out of range", 1, 92)
            length = 0
        variation = _i32(rec, 96)
        crawford, jacoby, beaver, auto_double = (bool(b) for b in rec[100:104])
        elo = struct.unpack_from("<dd", rec, 104)
        exp = (_i32(rec, 120), _i32(rec, 124))
        date = _delphi_date(struct.unpack_from("<d", rec, 128)[0])
        site_id = _i32(rec, 608)
        cube_limit = _i32(rec, 612) if version >= 8 else 0
        tags: list[tuple[str, str]] = []

        def tag(key: str, value: str) -> None:
            if value:
                tags.append((key, value))

        if not site and 0 <= site_id < len(_SITES):
            site = _SITES[site_id]
        tag("Site", site)
        tag("Match ID", str(_i32(rec, 268)))
        tag("Event", event)
        tag("Round", round_)
        tag("Player 1", names[0])
        tag("Player 2", names[1])
        ratings: list[float | None] = [None, None]
        for i in (0, 1):
            if elo[i] == elo[i] and 0 < elo[i] < 10_000:  # NaN and junk stay out
                ratings[i] = elo[i]
                tag(f"Player {i + 1} Elo", f"{elo[i]:.2f}/{exp[i]}")
        if date is not None:
            tag("EventDate", f"{date:%Y.%m.%d}")
            tag("EventTime", f"{date:%H.%M}")
        tag("Variation", _VARIATIONS.get(variation, f"variation {variation}"))
        onoff = {True: "On", False: "Off"}
        tag("Crawford", onoff[crawford] if length else "")
        tag("Jacoby", onoff[jacoby] if not length else "")
        tag("Beaver", onoff[beaver] if not length else "")
        tag("AutoDouble", onoff[auto_double] if not length else "")
        if 1 <= cube_limit <= 15:
            tag("CubeLimit", str(1 << cube_limit))
        tag("Transcriber", transcriber)
        if version >= 24 and rec[620]:
            tag("Transcribed", "On")
        info = MatchInfo(
            site=site or None,
            match_id=str(_i32(rec, 268)),
            event=event or None,
            round=round_ or None,
            event_date=f"{date:%Y-%m-%d}" if date else None,
            event_time=f"{date:%H.%M}" if date else None,
            player1=names[0],
            player2=names[1],
            elo1=ratings[0],
            elo2=ratings[1],
            variation=_VARIATIONS.get(variation),
            crawford=crawford if length else None,
            jacoby=jacoby if not length else None,
            beaver=beaver if not length else None,
            cube_limit=(1 << cube_limit) if 1 <= cube_limit <= 15 else None,
            transcriber=transcriber or None,
            ratings=(ratings[0], ratings[1]),
        )
        notes = [c for c in (self.comment(_i32(rec, o)) for o in (576, 580)) if c]
        return tags, info, names, length, notes

    # -- games

    def _game(
        self,
        game: tuple[int, tuple[int, int], int, int],
        actions: list[Action],
        players: tuple[str, str],
    ) -> Game:
        number, score, recno, note = game
        self._note(note, None, recno, 60, actions)
        return Game(number, score, tuple(actions), Span(recno, 1), players)

    def _start(
        self, rec: _Buffer, recno: int, tags: list[tuple[str, str]], actions: list[Action]
    ) -> None:
        """A game that does not start from its variant's start position: set it up."""
        board = _board(rec, 21)
        if not any(board):
            return  # XG leaves the start position of a match's first game empty
        own, opp = _sides(board)
        variation = next((v for k, v in tags if k == "Variation"), "Backgammon")
        start = _STARTS.get({"Backgammon": 0, "Nackgammon": 1}.get(variation, -1))
        want = tuple(start.get(i, 0) for i in range(26)) if start is not None else None
        if want is not None and own == want and opp == want:
            return
        if sum(own[1:]) > 15 or sum(opp[1:]) > 15:
            self.error("the game's start position has more than 15 checkers a side", recno, 21)
            return
        text = "XG start position " + ",".join(str(v) for v in board)
        actions.append(SetPosition((own, opp), None, None, None, None, text, Span(recno, 22)))

    def _automatic_doubles(self, rec: _Buffer, recno: int, actions: list[Action]) -> int:
        """The cube a game starts with: XG counts a money game's automatic doubles (equal
        opening dice, from version 26) in the game header and keeps the cube at 1 in its other
        records, so the game is set up with the cube they make."""
        count = _i32(rec, 64) if self.version >= 26 else 0
        if count == 0:
            return 1
        if not 0 < count <= 10:
            self.error(f"{count} automatic doubles is out of range; ignored", recno, 64)
            return 1
        cube = 1 << count
        text = f"XG automatic doubles: {count}, the cube starts at {cube}"
        actions.append(SetPosition(None, None, cube, -1, None, text, Span(recno, 65)))
        return cube

    def _note(
        self, index: int, side: int | None, recno: int, at: int, actions: list[Action]
    ) -> None:
        text = self.comment(index)
        if text:
            actions.append(Comment(side, text, Span(recno, at + 1)))

    def _cube(self, rec: _Buffer, recno: int, actions: list[Action], cube: int) -> int:
        active, double, take, beaver_r, raccoon_r = _CUBE_HEAD.unpack_from(rec, 12)
        if active not in (1, -1):
            self.error(f"active player {active} is neither 1 nor -1; record skipped", recno, 12)
            return cube
        side = 0 if active == 1 else 1
        other = 1 - side
        self.no_double = None
        if double in (0, 1):
            self._cube_analysis(rec, recno, side, double == 1)
        if double == 1:
            if cube >= 1 << 20:
                self.error("the cube is beyond any real value; record skipped", recno, 16)
                return cube
            cube *= 2
            actions.append(Double(side, cube, Span(recno, 17)))
            if take == 1:
                actions.append(Take(other, Span(recno, 21)))
            elif take == 0:
                actions.append(Drop(other, Span(recno, 21)))
            elif take == 2:
                cube *= 2
                actions.append(Beaver(other, cube, Span(recno, 21)))
                if beaver_r == 0:
                    actions.append(Drop(side, Span(recno, 25)))
                elif beaver_r == 2:
                    cube *= 2
                    actions.append(Raccoon(side, cube, Span(recno, 25)))
                    if raccoon_r == 0:
                        actions.append(Drop(other, Span(recno, 29)))
        self._note(_i32(rec, 292), side, recno, 292, actions)
        return cube

    def _move(self, rec: _Buffer, recno: int, actions: list[Action]) -> None:
        no_double, self.no_double = self.no_double, None
        active, *steps, d1, d2 = _MOVE_HEAD.unpack_from(rec, 64)
        if active not in (1, -1):
            self.error(f"active player {active} is neither 1 nor -1; record skipped", recno, 64)
            return
        side = 0 if active == 1 else 1
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            self.error(f"dice {d1}-{d2} are not dice; record skipped", recno, 100)
            return
        dice = (d1, d2)
        column = 69 if rec[2308] else 2309
        if no_double is not None and no_double.side == side:
            self.notes.append(replace(no_double, line=recno, column=column))
        err_move, luck = _MOVE_ERRORS.unpack_from(rec, 2312)
        if err_move != _NO_VALUE or luck != _NO_VALUE:
            self._move_analysis(rec, recno, column, side, err_move, luck)
        if not rec[2308]:
            # Rolled but not played: XG keeps the roll of a player who then resigned.
            actions.append(HiddenPlay(side, dice, "rolled, not played", Span(recno, 2309)))
            self._note(_I32.unpack_from(rec, 2524)[0], side, recno, 2524, actions)
            return
        moves, text, bad = _play(tuple(steps))
        if bad >= 0:
            self.error(
                f"step {steps[bad] + 1}/{steps[bad + 1] + 1} is no move on a board; the play is "
                "cut there",
                recno,
                68 + 4 * bad,
            )
        actions.append(make_roll(side, dice, moves, Span(recno, 69), text))
        self._check_board(rec, recno, side, moves)
        self._note(_I32.unpack_from(rec, 2524)[0], side, recno, 2524, actions)

    # -- analysis

    def _analysis_error(self, message: str, recno: int, at: int) -> None:
        self.error(f"{message}; the analysis is ignored", recno, at, Severity.WARNING)

    def _move_analysis(
        self, rec: _Buffer, recno: int, column: int, side: int, err_move: float, luck: float
    ) -> None:
        """A move record's analysis as a `CheckerNote`: ErrMove (stored as a loss, negative)
        and ErrLuck (the roller's) as given, the ranked candidates with their results."""
        if not _sane(err_move) and err_move != _NO_VALUE:
            self._analysis_error(f"the play's error {err_move!r} is no equity", recno, 2312)
            return
        if not _sane(luck) and luck != _NO_VALUE:
            self._analysis_error(f"the roll's luck {luck!r} is no equity", recno, 2320)
            return
        n = _i32(rec, _BEST_COUNT)
        if not 0 <= n <= 32:
            self._analysis_error(f"{n} candidate plays (XG ranks at most 32)", recno, _BEST_COUNT)
            return
        candidates: list[Candidate] = []
        played: int | None = None
        if n:
            evals = _candidate_evals(n).unpack_from(rec, _BEST_EVALS)
            if not _all_sane(evals):
                self._analysis_error(
                    "a candidate's result is no probability or equity", recno, _BEST_EVALS
                )
                return
            steps = bytes(rec[_BEST_STEPS : _BEST_STEPS + 8 * n])
            for j in range(n):
                text, bad = _candidate_play(steps[8 * j : 8 * j + 8])
                if bad >= 0:
                    self._analysis_error(
                        f"candidate {j + 1} has a step that is no move on a board",
                        recno,
                        _BEST_STEPS + 8 * j + bad,
                    )
                    return
                e = 7 * j
                candidates.append(
                    _candidate(
                        text,
                        evals[e + 6],
                        (evals[e + 3], evals[e + 4], evals[e + 5], evals[e + 1], evals[e]),
                    )
                )
            # The played candidate: the one whose board after is the record's.
            boards = bytes(rec[_BEST_BOARDS : _BEST_BOARDS + 26 * n])
            end = bytes(rec[35:61])
            at = boards.find(end)
            while at >= 0 and at % 26:
                at = boards.find(end, at + 1)
            played = at // 26 if at >= 0 else None
        self.notes.append(
            CheckerNote(
                game=self.game_no,
                line=recno,
                column=column,
                side=side,
                candidates=tuple(candidates),
                played=played if rec[2308] else None,
                level=_level(_i32(rec, _ANALYSED_AT) if n else _i32(rec, _BEST_LEVEL)),
                error=abs(err_move) if err_move != _NO_VALUE and rec[2308] else None,
                luck=luck if luck != _NO_VALUE else None,
            )
        )

    def _cube_analysis(self, rec: _Buffer, recno: int, side: int, doubled: bool) -> None:
        """A cube record's analysis as a `CubeNote`: the doubler's three equities, ErrCube
        (stored as a positive loss) and ErrTake (stored negative). A double's note is placed at
        the double; a decision not to double waits for the roll that follows it."""
        err_cube, err_take = _CUBE_ERRORS.unpack_from(rec, 200)
        if err_cube == _NO_VALUE:
            return  # not analysed (XG writes no analysis where the cube was not available)
        nd, dt, dp = _CUBE_EQUITIES.unpack_from(rec, 152)
        ev = _EVAL.unpack_from(rec, _CUBE_EVAL)
        if not _sane(err_cube, nd, dt, dp, *ev) or not (_sane(err_take) or err_take == _NO_VALUE):
            self._analysis_error("the cube analysis holds values that are no equities", recno, 124)
            return
        crawford = struct.unpack_from("<h", rec, _CUBE_CRAWFORD)[0]
        note = CubeNote(
            game=self.game_no,
            line=recno,
            column=17,
            side=side,
            no_double=nd,
            double_take=dt,
            double_pass=dp,
            level=_level(_i32(rec, _CUBE_LEVEL)),
            available=_i32(rec, _CUBE_OWNER) >= 0 and not crawford,
            probs=_probs(ev),
            cube_error=abs(err_cube),
            take_error=abs(err_take) if doubled and err_take != _NO_VALUE else None,
        )
        if doubled:
            self.notes.append(note)
        else:
            self.no_double = note

    def _check_board(self, rec: _Buffer, recno: int, side: int, moves: tuple[Move, ...]) -> None:
        """XG's board after the play must be what the steps make of its board before."""
        both = _BOARDS.unpack_from(rec, 9)
        # Before: player 1's view; after: the mover's. Player 2 sees player 1's board
        # turned round, with the signs changed.
        board = list(both[:26]) if side == 0 else [-x for x in reversed(both[:26])]
        for m in moves:
            src, dst = m.points
            if board[src] <= 0:
                break  # the replay reports a step from an empty point
            board[src] -= 1
            if dst != OFF:
                if board[dst] == -1:
                    board[dst] = 0
                    board[0] -= 1
                board[dst] += 1
        if tuple(board) != both[26:]:
            self.errors.append(
                Finding.make(
                    "S022",
                    "XG's own board after this play is not what its steps make of the board "
                    "before; the steps are replayed",
                    recno,
                    36,
                )
            )

    def _footer(
        self,
        rec: _Buffer,
        recno: int,
        actions: list[Action],
        length: int,
        score: tuple[int, int],
    ) -> None:
        winner = _i32(rec, 24)
        points = _i32(rec, 28)
        termination = _i32(rec, 32)
        if winner not in (1, -1):
            self.error(f"winner {winner} is neither 1 nor -1; no result", recno, 24)
            return
        if not 0 <= points <= 1_000_000:
            self.error(f"points won {points} out of range; no result", recno, 28)
            return
        side = 0 if winner == 1 else 1
        span = Span(recno, 25)
        kind, level = divmod(termination, 100)
        if kind == 1 and level in (1, 2, 3, 4):
            # XG writes 104 for a backgammon resigned (real files; 103 is read alike).
            words = _RESIGN_WORDS[min(level, 3)]
            actions.append(Resign(1 - side, min(level, 3), f"resigns {words}", Span(recno, 33)))
        elif termination >= 1000:
            actions.append(Comment(None, f"settled: {points} point(s)", Span(recno, 33)))
        elif termination not in (0, 1, 2, 3):
            self.error(f"termination code {termination} is not one XG writes", recno, 32)
        final = (score[0] + points, score[1]) if side == 0 else (score[0], score[1] + points)
        and_match = length > 0 and final[side] >= length
        actions.append(Win(side, points, and_match, span))


def _refuse_position_file(files: dict[str, bytes]) -> None:
    """An `.xgp` file is the same container holding one position to analyse, not a match: one
    game set up by hand (not from the start position), one decision, no result."""
    body = files.get("temp.xg", b"")
    if len(body) > 4 * RECORD_SIZE:
        return
    kinds = [body[i + 8] for i in range(0, len(body) - RECORD_SIZE + 1, RECORD_SIZE)]
    if kinds.count(_HEADER_GAME) != 1 or _FOOTER_GAME in kinds or len(kinds) > 4:
        return
    game = kinds.index(_HEADER_GAME) * RECORD_SIZE
    board = _board(body[game : game + RECORD_SIZE], 21)
    if not any(board):
        return  # XG leaves the first game's start position empty: a match just begun
    own, opp = _sides(board)
    starts = [tuple(start.get(i, 0) for i in range(26)) for start in _STARTS.values()]
    if not any(own == start and opp == start for start in starts):
        raise XgFileError(
            "S003",
            "this is an eXtreme Gammon position file (.xgp): one position, not a match record",
        )


def iter_xg_matches(data: bytes, path: str) -> Iterator[MatchRecord]:
    """The match of an XG file. Raises `SyntaxRecordError` (S020, S021, S003) when the file
    cannot be read as a whole; damaged records inside a readable file become findings."""
    try:
        files = unpack_archive(data)
        _refuse_position_file(files)
        record = _Reader(path, files).read()
    except XgFileError as exc:
        raise SyntaxRecordError(
            Finding.make(exc.code, exc.message, exc.line, exc.column), path
        ) from None
    yield record
