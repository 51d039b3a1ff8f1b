"""The dataset's rows from a verified match: each table's columns filled by name, beside the schema.

A table's rows are held as one list per column (`Columns`), in the order of its schema in
`bgparse.store.schema`, and every value comes in under its column's name: a row is a dict
(`Columns.add`), a game's turns a dict of whole columns (`Columns.extend`). A name the schema
does not have, or a column left out, is refused at once, so a value can never land in its
neighbour's column. Building by column also spares the transposition that row tuples needed
before Arrow takes them, and a game's turns become each column in one pass over them.

The match's identity (`match_uid`, `canonical_match`) is here too: it is the key of every row.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final

import pyarrow as pa

from bgparse.analysis.model import Decision
from bgparse.helpers.errors import InputError
from bgparse.model.findings import Finding, Severity, source_window
from bgparse.model.verified import Turn, VerifiedGame, VerifiedMatch
from bgparse.rules import Position, PositionError
from bgparse.store.schema import SCHEMA_VERSION, TABLES

__all__ = [
    "START_POSITION_ID",
    "Columns",
    "ImportContext",
    "LedgerRows",
    "MatchCounts",
    "PartKey",
    "Rows",
    "Unstorable",
    "canonical_match",
    "decision_row",
    "match_uid",
    "partition_label",
]

#: GNU Position ID of the standard starting position (either side on roll).
START_POSITION_ID = "4HPwATDgc/ABMA"
_ROLL_KINDS = frozenset({"play", "dance", "hidden"})

#: The turns table's columns in the order `Rows._game` fills them (its local names' order).
_TURN_COLUMNS: Final = (
    "match_uid",
    "game_no",
    "ply",
    "side",
    "kind",
    "move_no",
    "rolls_before",
    "position_id",
    "match_id",
    "die1",
    "die2",
    "roll",
    "is_doublet",
    "play",
    "written",
    "steps",
    "hits",
    "pips_mover",
    "pips_opponent",
    "is_race",
    "cube_value",
    "cube_owner",
    "score_mover",
    "score_opponent",
    "away_mover",
    "away_opponent",
    "is_crawford",
    "legal",
    "n_legal",
    "line",
    "column",
)
if tuple(TABLES["turns"].names) != _TURN_COLUMNS:
    raise ImportError(
        "bgparse.store.rows builds the turns' columns in another order than the schema's"
    )
#: A `Turn`'s fields in the order `_turn_rows_python` unpacks them (`_rows.turn_rows` too).
_TURN_FIELDS: Final = (
    "game",
    "ply",
    "side",
    "kind",
    "line",
    "column",
    "position_id",
    "match_id",
    "dice",
    "steps",
    "play",
    "written",
    "hits",
    "pips",
    "cube_value",
    "cube_owner",
    "legal",
    "n_legal",
    "score",
    "away",
    "crawford",
    "race",
)
if Turn._fields != _TURN_FIELDS:
    raise ImportError("bgparse.store.rows unpacks a Turn's fields in another order than Turn's")

#: Where a table's rows go: (table, source, year); source and year are None for the ledger.
PartKey = tuple[str, str | None, int | None]


@dataclass(frozen=True, slots=True)
class ImportContext:
    """What every row of one import shares."""

    import_id: str
    imported_at: datetime
    bgparse_version: str
    source: str | None = None  # partition label; None: each match's producer (dialect)


@dataclass(frozen=True, slots=True)
class MatchCounts:
    uid: bytes
    games: int
    turns: int
    cube_actions: int
    findings: int = 0
    errors: int = 0
    warnings: int = 0
    repeat: bool = False  # an earlier file of the same unit (or this file) has it: no rows
    index: int = 0  # which match of its file, from 0 (`matches.match_index`)

    def __reduce__(self) -> tuple[type[MatchCounts], tuple[Any, ...]]:
        # Sent back by every worker for every match: a slots dataclass's own pickling looks
        # its fields up each time, on the worker and again on the importing client.
        return MatchCounts, (
            self.uid,
            self.games,
            self.turns,
            self.cube_actions,
            self.findings,
            self.errors,
            self.warnings,
            self.repeat,
            self.index,
        )


class Unstorable(InputError, ValueError):
    """A verified match with a value the dataset's columns cannot hold: its file is
    quarantined with this reason."""


# --- match identity ------------------------------------------------------------------------


def _norm_name(name: str) -> str:
    return " ".join(unicodedata.normalize("NFC", name).split())


#: A roll as stored: the higher die first ("31"), whatever order the record wrote.
_ROLL_TEXT: Final[dict[tuple[int, int], str]] = {
    (a, b): f"{max(a, b)}{min(a, b)}" for a in range(8) for b in range(8)
}


def _roll_text(dice: tuple[int, int] | None) -> str | None:
    if dice is None:
        return None
    return _ROLL_TEXT.get(dice) or f"{max(dice)}{min(dice)}"


def canonical_match(vm: VerifiedMatch) -> str:
    """The content that identifies a match, whatever file or format it came from: players,
    length, and per game its starting position, every roll, play and cube action, and who won
    how much. Paths, dates, comments and dice order are left out, so the same match exported as
    `.mat`, `.sgf` and `.xg` gets the same identity. A play counts by the board it leaves (the
    next turn's Position ID, the game's final one): producers write the same play by different
    paths (GNU's SGF `7/3 3/2` where XG and its `.mat` have `7/6 6/2`)."""
    lines = [
        "bgparse-match/2",
        f"players\t{_norm_name(vm.players[0])}\t{_norm_name(vm.players[1])}",
        f"length\t{vm.length}",
    ]
    for g in vm.games:
        # The first position tells a game set up mid-way from one played from the start.
        lines.append(f"game\t{g.turns[0].position_id if g.turns else ''}")
        if g.turns:
            text = _turn_lines(g.turns) if _turn_lines is not None else None
            lines.append(text if text is not None else turn_lines_python(g.turns))
        lines.append(f"result\t{_final_board(g)}\t{g.winner}\t{g.points}")
    return "\n".join(lines) + "\n"


def turn_lines_python(turns: tuple[Turn, ...]) -> str:
    """A game's turns as lines of the canonical content: side, kind, roll (the higher die
    first) and the Position ID before the turn. The reference of `_rows.turn_lines`."""
    return "\n".join(
        f"{t.side}\t{t.kind}\t{_roll_text(t.dice) or ''}\t{t.position_id}" for t in turns
    )


def _final_board(g: VerifiedGame) -> str:
    """The board a game ends on, whichever side it is seen from: after a roll not played
    (a resignation) the replay's view of it depends on where the record writes the result."""
    if _canonical_board_id is not None:
        fast = _canonical_board_id(g.final_position_id)
        if fast is not None:
            return fast
    return _final_board_python(g)


def _final_board_python(g: VerifiedGame) -> str:
    """`_final_board` by decoding the board (`_speedups.canonical_board_id` is its typed
    twin, for clean Position IDs of valid boards)."""
    try:
        final = Position.from_position_id(g.final_position_id)
    except (PositionError, ValueError):
        return g.final_position_id
    return min(final.position_id(), final.swap().position_id())


def match_uid(vm: VerifiedMatch) -> tuple[bytes, str]:
    """(16-byte match_uid, SHA-256 hex of the canonical content)."""
    digest = hashlib.sha256(canonical_match(vm).encode("utf-8")).digest()
    return digest[:16], digest.hex()


# --- partitions and header facts -----------------------------------------------------------


def partition_label(text: str | None) -> str:
    """The `source` partition's folder name for a label or a producer's name."""
    s = re.sub(r"[^a-z0-9_.-]+", "_", (text or "").strip().lower()).strip("_.")
    return s[:40] or "unknown"


_DATE = re.compile(r"(\d{4})[-./](\d{1,2})[-./](\d{1,2})")


def _match_date(text: str | None) -> tuple[date | None, int | None]:
    """(date, year) of a record's date text; None for what it does not say plausibly."""
    t = (text or "").strip()
    year = int(t[:4]) if re.match(r"\d{4}", t) else None
    if year is None or not 1900 <= year <= 2100:
        return None, None
    m = _DATE.match(t)
    try:
        return (date(int(m[1]), int(m[2]), int(m[3])) if m else None), year
    except ValueError:  # 2021-02-30
        return None, year


def _rule(vm: VerifiedMatch, key: str, fallback: Any) -> Any:
    value = vm.rules.get(key)
    return fallback if value is None else value


# --- one table's columns -------------------------------------------------------------------


class Columns:
    """One table's rows as a list per column, in its schema's order. Values come in by column
    name; a row or a set of columns that names other columns than the schema's is refused."""

    __slots__ = ("lists", "names", "nameset", "table")

    def __init__(self, table: str) -> None:
        self.table = table
        self.names: tuple[str, ...] = tuple(TABLES[table].names)
        self.nameset = frozenset(self.names)
        self.lists: list[list[Any]] = [[] for _ in self.names]

    def __len__(self) -> int:
        return len(self.lists[0])

    def add(self, row: Mapping[str, Any]) -> None:
        """One row, as {column name: value}."""
        if len(row) != len(self.names):
            raise self._mismatch(row)
        try:
            for name, values in zip(self.names, self.lists, strict=True):
                values.append(row[name])
        except KeyError:
            self.truncate(min(len(values) for values in self.lists))  # none of the row
            raise self._mismatch(row) from None

    def extend(self, columns: Mapping[str, Sequence[Any]]) -> None:
        """Several rows at once, as {column name: its values}, every column as long."""
        if columns.keys() != self.nameset:
            raise self._mismatch(columns)
        if len({len(v) for v in columns.values()}) > 1:
            sizes = {name: len(v) for name, v in columns.items()}
            raise ValueError(f"{self.table}: columns of different lengths {sizes}")
        for name, values in zip(self.names, self.lists, strict=True):
            values.extend(columns[name])

    def _mismatch(self, given: Mapping[str, Any]) -> ValueError:
        missing = [n for n in self.names if n not in given]
        unknown = [n for n in given if n not in self.names]
        return ValueError(f"{self.table}: columns missing {missing}, not in the schema {unknown}")

    def truncate(self, rows: int) -> None:
        for values in self.lists:
            del values[rows:]

    def batch(self) -> pa.RecordBatch:
        """The rows as one record batch of the table's schema."""
        return _batch(self.table, self.lists)


def _joined(parts: Sequence[list[Any]]) -> list[Any]:
    """One column's lists end to end: list.extend copies a list's items at once, where a
    chain of iterators hands them over one by one (a third of `batches` where it was used)."""
    out = list(parts[0])
    for part in parts[1:]:
        out.extend(part)
    return out


def _batch(table: str, lists: Iterable[Sequence[Any]]) -> pa.RecordBatch:
    """One record batch of `table` from its columns' values, in its schema's order: each
    column by the typed converter where it is built and takes the column (`_arrays`), else
    by `pa.array`, which also judges the values that do not fit."""
    arrays = []
    typed = _typed_array
    for values, (name, kind) in zip(lists, _FIELDS[table], strict=True):
        array = typed(values, kind) if typed is not None else None
        if array is not None:
            arrays.append(array)
            continue
        try:
            arrays.append(pa.array(values, type=kind))
        except (pa.ArrowInvalid, OverflowError) as exc:
            # Only a hostile record gets here (a cube doubled past 2^31, say).
            raise Unstorable(f"a value of {table}.{name} does not fit its column ({exc})") from None
    return pa.RecordBatch.from_arrays(arrays, schema=TABLES[table])


def _turn_rows_python(
    turns: tuple[Turn, ...], lists: list[list[Any]], uid: bytes, number: int
) -> tuple[list[int], list[int], int]:
    """A game's turns appended to the turns table's column lists (in the schema's order:
    `Columns`), one pass, each value straight to its column; returns per turn the mover's turn
    number and the rolls by either side before it, and the game's rolls. The reference of
    `_rows.turn_rows`, which does it typed where setup.py built it."""
    (
        c_uid,
        c_game,
        c_ply,
        c_side,
        c_kind,
        c_move_no,
        c_rolls_before,
        c_pid,
        c_mid,
        c_die1,
        c_die2,
        c_roll,
        c_doublet,
        c_play,
        c_written,
        c_steps,
        c_hits,
        c_pips_mover,
        c_pips_opponent,
        c_race,
        c_cube_value,
        c_cube_owner,
        c_score_mover,
        c_score_opponent,
        c_away_mover,
        c_away_opponent,
        c_crawford,
        c_legal,
        c_n_legal,
        c_line,
        c_column,
    ) = lists
    move_no: list[int] = []
    rolls_before: list[int] = []
    moves = [0, 0]
    before = 0
    texts = _ROLL_TEXT
    for t in turns:
        (
            _,
            ply,
            s,
            k,
            line,
            column,
            pid,
            mid,
            d,
            steps,
            play,
            written,
            hits,
            pips,
            cube_value,
            cube_owner,
            legal,
            n_legal,
            score,
            away_pair,
            crawford,
            race,
        ) = t
        mover_move = moves[s] + 1
        move_no.append(mover_move)
        rolls_before.append(before)
        c_move_no.append(mover_move)
        c_rolls_before.append(before)
        if d is not None:
            if k in _ROLL_KINDS:
                moves[s] = mover_move
                before += 1
            c_die1.append(d[0])
            c_die2.append(d[1])
            c_roll.append(texts[d] if d in texts else _roll_text(d))
            c_doublet.append(d[0] == d[1])
        else:
            c_die1.append(None)
            c_die2.append(None)
            c_roll.append(None)
            c_doublet.append(None)
        c_uid.append(uid)
        c_game.append(number)
        c_ply.append(ply)
        c_side.append(s)
        c_kind.append(k)
        c_pid.append(pid or None)
        c_mid.append(mid or None)
        c_play.append(play or None)
        c_written.append(written or None)
        c_steps.append(steps if k == "play" else None)  # a tuple: Arrow takes it as a list
        c_hits.append(hits)
        c_pips_mover.append(pips[0])
        c_pips_opponent.append(pips[1])
        c_race.append(race)
        c_cube_value.append(cube_value)
        c_cube_owner.append(cube_owner)
        c_score_mover.append(score[s])
        c_score_opponent.append(score[1 - s])
        if away_pair:
            c_away_mover.append(away_pair[0])
            c_away_opponent.append(away_pair[1])
        else:
            c_away_mover.append(None)
            c_away_opponent.append(None)
        c_crawford.append(crawford)
        c_legal.append(legal)
        c_n_legal.append(n_legal)
        c_line.append(line)
        c_column.append(column)
    return move_no, rolls_before, before


_canonical_board_id: Callable[[str], str | None] | None
try:  # a game's final board in C, where setup.py built it
    from bgparse.rules._speedups import canonical_board_id as _canonical_board_id
except ImportError:
    _canonical_board_id = None

_typed_array: Callable[[Any, pa.DataType], pa.Array | None] | None
try:  # the typed C conversion of a column list, where setup.py built it
    from bgparse.store._arrays import typed_array as _typed_array
except ImportError:
    _typed_array = None

_turn_rows: Callable[..., tuple[list[int], list[int], int] | None] | None
_turn_lines: Callable[[tuple[Turn, ...]], str | None] | None
try:  # the typed C loops over a game's turns, where setup.py built them
    from bgparse.store._rows import turn_lines as _turn_lines
    from bgparse.store._rows import turn_rows as _turn_rows
except ImportError:
    _turn_lines = _turn_rows = None


#: Each table's (column name, Arrow type), looked up once: reading them from the schema
#: wraps a new Python object per field, per column converted.
_FIELDS: Final[dict[str, tuple[tuple[str, pa.DataType], ...]]] = {
    table: tuple((f.name, f.type) for f in schema) for table, schema in TABLES.items()
}


class LedgerRows:
    """Rows of the `imports` ledger: one per input, with what became of it."""

    __slots__ = ("columns", "ctx")

    def __init__(self, ctx: ImportContext) -> None:
        self.ctx = ctx
        self.columns = Columns("imports")

    def __len__(self) -> int:
        return len(self.columns)

    def add(
        self,
        path: str,
        kind: str,
        archive_path: str | None,
        archive_sha256: str | None,
        size: int | None,
        sha256: str | None,
        status: str,
        reason: str | None,
        counts: tuple[int, int, int, int, int],
        findings: tuple[int, int],
    ) -> None:
        """`counts` are (matches, duplicate matches, games, turns, cube offers), `findings`
        (findings, errors)."""
        ctx = self.ctx
        self.columns.add(
            {
                "import_id": ctx.import_id,
                "imported_at": ctx.imported_at,
                "path": path,
                "kind": kind,
                "archive_path": archive_path,
                "archive_sha256": archive_sha256,
                "size_bytes": size,
                "sha256": sha256,
                "status": status,
                "reason": reason,
                "bgparse_version": ctx.bgparse_version,
                "schema_version": SCHEMA_VERSION,
                "n_matches": counts[0],
                "n_duplicate_matches": counts[1],
                "n_games": counts[2],
                "n_turns": counts[3],
                "n_cube_actions": counts[4],
                "n_findings": findings[0],
                "n_errors": findings[1],
            }
        )

    def batch(self) -> pa.RecordBatch:
        return self.columns.batch()


# --- the rows of a unit's matches ----------------------------------------------------------

#: Rows of one table and partition held as lists before they become a record batch: a file
#: of thousands of matches then keeps its rows as Arrow columns, a fraction of the memory.
_FLUSH_ROWS = 32_768


def decision_row(
    d: Decision, uid: bytes, analysis_id: str, file_sha256: str | None
) -> dict[str, Any]:
    """A `decisions` row of `d`: its fields, the match, the run that wrote it and the file whose
    analysis it is (None: the engine's); its source is the partition's, not a column."""
    row = d._asdict()
    del row["source"]
    row["match_uid"] = uid
    row["analysis_id"] = analysis_id
    row["file_sha256"] = file_sha256
    return row


class Rows:
    """Rows of the matches of one file, or of a unit's files one after another (`start_file`
    before each), by table and partition, turned into batches at the end: once per unit,
    since each Arrow conversion has a cost per column that a small file's few rows do not
    repay. A large file's rows become batches as they pile up (`flush_full`, between
    matches)."""

    def __init__(self, ctx: ImportContext) -> None:
        self.ctx = ctx
        self.file_sha256 = ""
        self.source_path = ""
        self.columns: dict[PartKey, Columns] = {}
        self.done: dict[PartKey, list[pa.RecordBatch]] = {}
        # Rows holding a value no column takes: left as lists for `batches` to refuse.
        self.stuck: set[PartKey] = set()

    def start_file(self, path: str, sha256: str) -> None:
        """The file whose matches come next."""
        self.source_path = path
        self.file_sha256 = sha256

    def table(self, name: str, source: str, year: int | None) -> Columns:
        key = (name, source, year)
        cols = self.columns.get(key)
        if cols is None:
            cols = self.columns[key] = Columns(name)
        return cols

    def _flushed(self, key: PartKey) -> int:
        return sum(b.num_rows for b in self.done.get(key, ()))

    def flush_full(self) -> None:
        for key, cols in self.columns.items():
            if len(cols) >= _FLUSH_ROWS and key not in self.stuck:
                try:
                    batch = cols.batch()
                except Unstorable:
                    self.stuck.add(key)
                    continue
                self.done.setdefault(key, []).append(batch)
                cols.truncate(0)

    def mark(self) -> dict[PartKey, int]:
        return {key: self._flushed(key) + len(cols) for key, cols in self.columns.items()}

    def rollback(self, mark: dict[PartKey, int]) -> None:
        """Drop the rows added since `mark` (a file that failed half way keeps none)."""
        for key in list(self.columns):
            if key not in mark:
                del self.columns[key]
                self.done.pop(key, None)
                continue
            keep, flushed = mark[key], self._flushed(key)
            if keep >= flushed:
                self.columns[key].truncate(keep - flushed)
                continue
            self.columns[key].truncate(0)
            kept: list[pa.RecordBatch] = []
            for batch in self.done[key]:
                if keep <= 0:
                    break
                kept.append(batch.slice(0, keep) if batch.num_rows > keep else batch)
                keep -= batch.num_rows
            self.done[key] = kept

    def batches(self) -> dict[PartKey, pa.RecordBatch]:
        """Every table and partition's rows as one batch; raises Unstorable where a value does
        not fit its column."""
        # Each table's rows still held as lists are converted once, all partitions together,
        # and each partition gets its slice: a conversion has a cost per column (pyarrow
        # reads an environment variable, wraps the type, checks the arrays) that a unit of
        # files spread over dozens of years (partitions) paid dozens of times per column.
        keys: dict[str, list[PartKey]] = {}
        for key in self.columns:
            keys.setdefault(key[0], []).append(key)
        out = {}
        for table, held in keys.items():
            parts_of = [self.columns[key].lists for key in held]
            lists: Iterable[list[Any]] = parts_of[0]
            if len(held) > 1:
                # One column joined at a time, each dropped once converted: the peak grows by
                # a column's list, not by the table's.
                lists = (_joined(c) for c in zip(*parts_of, strict=True))
            whole = _batch(table, lists)
            start = 0
            for key in held:
                rows = len(self.columns[key])
                parts = self.done.get(key, [])
                if rows or not parts:
                    # A table opened for a match with no rows in it (a game with no turns)
                    # gives an empty batch.
                    parts = [*parts, whole.slice(start, rows)]
                start += rows
                out[key] = parts[0] if len(parts) == 1 else pa.concat_batches(parts)
        return out

    def add_file_finding(self, f: Finding) -> None:
        """A finding about the file as a whole (one that could not be read)."""
        self._finding(f, None, None, partition_label(self.ctx.source), None)

    def _finding(
        self,
        f: Finding,
        uid: bytes | None,
        index: int | None,
        source: str,
        year: int | None,
        duplicate: bool = False,
    ) -> None:
        # The line as the text report shows it: whole, or a window around the column.
        excerpt = source_window(f.source_line, f.column)[0] if f.source_line is not None else None
        self.table("findings", source, year).add(
            {
                "file_sha256": self.file_sha256,
                "source_path": self.source_path,
                "match_uid": uid,
                "match_index": index,
                "game_no": f.game,
                "turn": f.turn,
                "code": f.code,
                "severity": str(f.severity),
                "message": f.message,
                "line": f.line,
                "column": f.column,
                "excerpt": excerpt,
                "import_id": self.ctx.import_id,
                "in_duplicate": duplicate,
            }
        )

    def add_decisions(
        self,
        decisions: Sequence[Decision],
        uid: bytes,
        analysis_id: str,
        year: int | None,
        file_sha256: str | None,
    ) -> None:
        """The `decisions` rows of one match, in the partition of their analysis source."""
        for d in decisions:
            row = decision_row(d, uid, analysis_id, file_sha256)
            self.table("decisions", d.source, year).add(row)

    def add_duplicate(self, vm: VerifiedMatch, uid: bytes) -> MatchCounts:
        """A match already met: no rows of its own, but the input keeps its findings (its
        score lines, its `Wins` lines are its own, whatever the match identity leaves out)."""
        source = partition_label(self.ctx.source or vm.dialect or vm.format)
        _, year = _match_date(vm.info.event_date)
        for f in vm.findings:
            self._finding(f, uid, vm.index, source, year, duplicate=True)
        # A copy keeps the analysis it brings: the first of each source is the one queries
        # see (the `decisions` view), whichever copy brought it.
        self.add_decisions(vm.decisions, uid, self.ctx.import_id, year, self.file_sha256)
        sev = [f.severity for f in vm.findings]
        n_errors, n_warnings = sev.count(Severity.ERROR), sev.count(Severity.WARNING)
        return MatchCounts(uid, 0, 0, 0, len(sev), n_errors, n_warnings, True, vm.index)

    def add_match(self, vm: VerifiedMatch, uid: bytes, content_sha: str) -> MatchCounts:
        """Every row of a match: its own, its games', their turns' and cube actions', and its
        findings'."""
        ctx = self.ctx
        source = partition_label(ctx.source or vm.dialect or vm.format)
        info = vm.info
        match_date, year = _match_date(info.event_date)
        sev = [f.severity for f in vm.findings]
        n_errors = sev.count(Severity.ERROR)
        n_warnings = sev.count(Severity.WARNING)
        ratings = info.ratings
        self.table("matches", source, year).add(
            {
                "match_uid": uid,
                "content_sha256": content_sha,
                "file_sha256": self.file_sha256,
                "source_path": self.source_path,
                "match_index": vm.index,
                "format": vm.format,
                "dialect": vm.dialect,
                "import_id": ctx.import_id,
                "imported_at": ctx.imported_at,
                "bgparse_version": ctx.bgparse_version,
                "match_date": match_date,
                "event_date": info.event_date,
                "site": info.site,
                "event": info.event,
                "round": info.round,
                "player0": vm.players[0],
                "player1": vm.players[1],
                "player0_key": _norm_name(vm.players[0]).casefold(),
                "player1_key": _norm_name(vm.players[1]).casefold(),
                "rating0": ratings[0] if ratings[0] is not None else info.elo1,
                "rating1": ratings[1] if ratings[1] is not None else info.elo2,
                "match_length": vm.length,
                "variant": _rule(vm, "variant", info.variation),
                "crawford": _rule(vm, "crawford", info.crawford),
                "jacoby": _rule(vm, "jacoby", info.jacoby),
                "beaver": _rule(vm, "beaver", info.beaver),
                "cube_limit": _rule(vm, "cube_limit", info.cube_limit),
                "n_games": len(vm.games),
                "final_score0": vm.final_score[0],
                "final_score1": vm.final_score[1],
                "winner": vm.winner,
                "is_complete": vm.length == 0 or vm.winner is not None,
                "is_valid": n_errors == 0,
                "n_errors": n_errors,
                "n_warnings": n_warnings,
                "n_infos": sev.count(Severity.INFO),
                "rules_json": json.dumps(vm.rules, sort_keys=True, default=str),
                "tags_json": json.dumps([list(kv) for kv in vm.tags], ensure_ascii=False),
            }
        )
        turns = cubes = 0
        for i, g in enumerate(vm.games):
            counters = self._game(vm, i, g, uid, source, year)
            turns += len(g.turns)
            cubes += self._cube_actions(vm, g, uid, source, year, *counters)
        for f in vm.findings:
            self._finding(f, uid, vm.index, source, year)
        self.add_decisions(vm.decisions, uid, ctx.import_id, year, self.file_sha256)
        counts = (len(vm.games), turns, cubes, len(vm.findings), n_errors, n_warnings)
        return MatchCounts(uid, *counts, False, vm.index)

    def _game(
        self,
        vm: VerifiedMatch,
        index: int,
        g: VerifiedGame,
        uid: bytes,
        source: str,
        year: int | None,
    ) -> tuple[list[int], list[int], int]:
        """The game's row and its turns' rows; returns per action the mover's turn number and
        the rolls by either side before it, and the game's number of rolls, for its cube
        actions."""
        length = vm.length
        away = (length - g.score_before[0], length - g.score_before[1]) if length else None
        turns = g.turns
        rolls = [t for t in turns if t.kind in _ROLL_KINDS and t.dice is not None]
        opening: Turn | None = None
        reply: Turn | None = None
        if rolls and rolls[0].position_id == START_POSITION_ID:
            opening = rolls[0]
            reply = next((t for t in rolls[1:] if t.side != opening.side), None)
        self.table("games", source, year).add(
            {
                "match_uid": uid,
                "game_no": g.number,
                "game_index": index,
                "match_length": length,
                "score0_before": g.score_before[0],
                "score1_before": g.score_before[1],
                "score0_written": g.score_written[0],
                "score1_written": g.score_written[1],
                "away0": away[0] if away else None,
                "away1": away[1] if away else None,
                "is_crawford": g.crawford,
                # As the replay judged it (a record may start past its Crawford game): never
                # derived again here.
                "is_post_crawford": g.post_crawford,
                "opening_side": opening.side if opening else None,
                "opening_roll": _roll_text(opening.dice) if opening else None,
                "opening_play": (opening.play or None)
                if opening and opening.kind == "play"
                else None,
                "reply_roll": _roll_text(reply.dice) if reply else None,
                "reply_play": (reply.play or None) if reply and reply.kind == "play" else None,
                "n_turns": len(turns),
                "n_plays": g.plays,
                "n_dances": g.dances,
                "n_doubles": g.doubles,
                "n_takes": g.takes,
                "n_drops": g.drops,
                "n_beavers": g.beavers,
                "final_cube": g.cube,
                "final_cube_owner": g.cube_owner,
                "end": g.end,
                "winner": g.winner,
                "result_type": g.result_type,
                "points": g.points,
                "resign_level": g.resign_level,
                "jacoby_applied": g.jacoby_applied,
                "final_position_id": g.final_position_id,
                "final_match_id": g.final_match_id,
                "line": g.line,
            }
        )
        lists = self.table("turns", source, year).lists
        if _turn_rows is not None:
            done = _turn_rows(turns, lists, uid, g.number, _ROLL_TEXT, _roll_text, _ROLL_KINDS)
            if done is not None:
                return done
        return _turn_rows_python(turns, lists, uid, g.number)

    def _cube_actions(
        self,
        vm: VerifiedMatch,
        g: VerifiedGame,
        uid: bytes,
        source: str,
        year: int | None,
        move_no: list[int],
        rolls_before: list[int],
        total_rolls: int,
    ) -> int:
        """The game's cube actions' rows; `move_no` and `rolls_before` per action and
        `total_rolls` as `_game` counted them."""
        # Per cube action: does each side double again later in the game (a recube)? Only a
        # double counts: a beaver or raccoon answers the offer at once, it is no recube.
        doubles_later: list[tuple[bool, bool]] = []
        seen = [False, False]
        for ca in reversed(g.cube_actions):
            doubles_later.append((seen[0], seen[1]))
            if ca.offer == "double":
                seen[ca.doubler] = True
        doubles_later.reverse()
        for i, ca in enumerate(g.cube_actions):
            doubler, taker = ca.doubler, 1 - ca.doubler
            turn = g.turns[ca.turn] if 0 <= ca.turn < len(g.turns) else None
            before = rolls_before[ca.turn] if turn else 0
            owner_before = turn.cube_owner if turn else (-1 if ca.cube_before == 1 else doubler)
            self.table("cube_actions", source, year).add(
                {
                    "match_uid": uid,
                    "game_no": g.number,
                    "ply": ca.turn,
                    "doubler": doubler,
                    "taker": taker,
                    "move_no": move_no[ca.turn] if turn else 0,
                    "rolls_before": before,
                    "is_first_double": i == 0,
                    "cube_before": ca.cube_before,
                    "cube_offered": ca.cube_before * 2,
                    "cube_after": ca.cube_after,
                    "is_redouble": ca.offer == "double" and owner_before == doubler,
                    "offer": ca.offer,
                    "response": ca.response,
                    "position_id": ca.position_id or None,
                    "match_id": ca.match_id or None,
                    "pips_doubler": ca.pips[0],
                    "pips_taker": ca.pips[1],
                    "pip_diff": ca.pips[1] - ca.pips[0],
                    "is_race": ca.race,
                    "match_length": vm.length,
                    "score_doubler": ca.score[doubler],
                    "score_taker": ca.score[taker],
                    "away_doubler": ca.away[0] if ca.away else None,
                    "away_taker": ca.away[1] if ca.away else None,
                    "is_crawford": ca.crawford,
                    "is_post_crawford": g.post_crawford,
                    "game_winner": g.winner,
                    "doubler_won": None if g.winner is None else g.winner == doubler,
                    "doubler_result": ca.doubler_result,
                    "game_end": g.end,
                    "result_type": g.result_type,
                    "final_cube": g.cube,
                    "taker_recubed": doubles_later[i][taker],
                    "rolls_after": total_rolls - before,
                    "line": ca.line,
                    "column": ca.column,
                }
            )
        return len(g.cube_actions)
