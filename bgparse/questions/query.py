"""DuckDB over a dataset: a view per table over its committed files, the `pipelines/` macros,
and rendering a result as a table, CSV or JSON.

Everything runs in an embedded, in-memory DuckDB: no server, nothing written. Views list the
files the manifest commits (never a glob), so a query never sees an import half done.

A query reads what its user may read (the dataset, and any local file named in it), but writes
nothing unless asked: `run` refuses the statements that write files or databases (COPY, EXPORT,
ATTACH, DETACH) without `allow_writes`, and extensions (INSTALL, LOAD) always; once the views
are built the connection's configuration is locked, with DuckDB's automatic installing and
loading of extensions off (no network), so that no SET turns any of this back on.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import decimal
import io
import json
import math
import os
import uuid
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import duckdb
import pyarrow as pa
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from bgparse.helpers import interrupts
from bgparse.helpers.errors import UsageError
from bgparse.helpers.paths import display_path
from bgparse.helpers.printable import printable
from bgparse.helpers.resources import pipelines_dir
from bgparse.model.findings import CODES
from bgparse.questions.filters import FILTERED, Filters
from bgparse.rules.wording import plural
from bgparse.store.dataset import Dataset, DatasetError
from bgparse.store.schema import PARTITIONED, TABLES, row_schema

__all__ = [
    "Format",
    "QueryError",
    "cell_text",
    "connect",
    "interval_columns",
    "print_result",
    "render",
    "run",
]

Format = Literal["table", "csv", "json"]


class QueryError(UsageError):
    """A query DuckDB refused (syntax, unknown column...), with DuckDB's message."""


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@contextlib.contextmanager
def _signals_seen() -> Iterator[None]:
    """DuckDB runs Python's signal handlers while it works, swallows what they raise and says
    "Query interrupted" (a RuntimeError): the command line's handler noted which signal it was,
    and that is what the caller must see."""
    try:
        yield
    except RuntimeError:
        signum = interrupts.received()
        if signum is None:
            raise
        raise interrupts.Interrupted(signum) from None


def connect(
    root: str | os.PathLike[str], filters: Filters | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with views `matches`, `games`, `turns`, `cube_actions`, `findings`,
    `imports` over the dataset at `root`, the table `finding_codes`, and every view and macro
    of `pipelines/*.sql`; with `filters`, the match tables hold only the selected matches'
    rows. Raises DatasetError when there is no dataset there."""
    with _signals_seen():
        return _connect(root, filters)


def _connect(root: str | os.PathLike[str], filters: Filters | None) -> duckdb.DuckDBPyConnection:
    ds = Dataset(os.path.abspath(root))
    if not ds.exists():
        shown = display_path(root)
        raise DatasetError(f"no dataset at {shown} (run 'bgparse import' first, or give --data)")
    ds.check_path()
    manifest = ds.manifest()
    # Each part's size (a stat a file): a truncated or missing one is named here. DuckDB
    # verifies no Parquet page checksum, so changed bytes are `bgparse check`'s to find.
    Dataset(root).refuse_damaged(manifest, checksum=frozenset())  # named as the user wrote it
    con = duckdb.connect(":memory:")
    active = filters if filters else None
    for table in TABLES:
        files = ds.files(table, manifest)
        # Filtered tables are read under another name; the filter's views take theirs.
        name = f"bg_all_{table}" if active is not None and table in FILTERED else table
        shown_as = name
        if table == "decisions":
            # Read under a name of its own: the view keeps the first analysis of each source.
            name = "bg_raw_decisions"
        if files:
            listed = ", ".join(_literal(f.as_posix()) for f in files)
            hive = (
                "hive_partitioning = true, hive_types = {'source': VARCHAR, 'year': SMALLINT}"
                if table in PARTITIONED
                else "hive_partitioning = false"
            )
            try:
                con.execute(
                    f"CREATE VIEW {name} AS SELECT * FROM read_parquet([{listed}], {hive}, "
                    "union_by_name = true)"
                )
            except duckdb.Error as exc:
                # A listed file gone or damaged (DuckDB opens them here): its first line names it.
                cause = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                raise DatasetError(f"cannot read {display_path(root)}: {cause}") from exc
        else:
            # An empty table of the right types, so that every macro works on a new dataset.
            con.register("_bgparse_empty", row_schema(table).empty_table())
            con.execute(f"CREATE TABLE {name} AS SELECT * FROM _bgparse_empty")
            con.unregister("_bgparse_empty")
        if table == "decisions":
            # A match's copies may each bring the same source's analysis (the same SGF saved
            # twice): the first (by analysis run, then file) stands, as one copy's rows do.
            # A stored analysis is a file's (its decisions' levels vary: XG names each
            # move's); the engine's is a run at one level.
            con.execute(
                f"CREATE VIEW {shown_as} AS SELECT * FROM {name} QUALIFY dense_rank() OVER "
                "(PARTITION BY match_uid, source, CASE WHEN source = 'engine' THEN level END "
                "ORDER BY analysis_id, file_sha256 NULLS FIRST) = 1"
            )
    codes = pa.table(
        {
            "code": list(CODES),
            "severity": [str(sev) for sev, _ in CODES.values()],
            "description": [desc for _, desc in CODES.values()],
        }
    )
    con.register("_bgparse_codes", codes)
    con.execute("CREATE TABLE finding_codes AS SELECT * FROM _bgparse_codes")
    con.unregister("_bgparse_codes")
    if active is not None:
        active.install(con, "bg_all_")
    for path in sorted(pipelines_dir().glob("*.sql")):
        con.execute(path.read_text(encoding="utf-8"))
    if active is not None:
        active.install_sides(con)
    for setting in _LOCKED:
        con.execute(setting)
    return con


#: The connection's configuration once its views are built: no extension installed or loaded
#: behind the query's back (`read_csv('https://...')` would fetch httpfs), and no SET after.
_LOCKED = (
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
    "SET allow_community_extensions = false",
    "SET lock_configuration = true",
)

#: Statements that write a file or a database: refused unless the caller allows writes.
_WRITES = {
    duckdb.StatementType.COPY: "COPY",
    duckdb.StatementType.EXPORT: "EXPORT",
    duckdb.StatementType.ATTACH: "ATTACH",
    duckdb.StatementType.DETACH: "DETACH",
}


def _check_statement(statement: Any, allow_writes: bool) -> None:
    kind = statement.type
    if kind == duckdb.StatementType.LOAD:
        # INSTALL is a LOAD statement too.
        raise QueryError("extensions are not installed or loaded by a query")
    if kind in _WRITES and not allow_writes:
        raise QueryError(
            f"{_WRITES[kind]} writes files or databases: refused unless --allow-writes is given"
        )


def run(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    params: Sequence[Any] = (),
    *,
    allow_writes: bool = False,
) -> pa.Table:
    """Run one statement with positional parameters (`?` or `$1`) and fetch it as Arrow.
    More than one is refused: DuckDB would run them all and show only the last one's rows. A
    statement that writes a file or a database is refused unless `allow_writes`; one that
    installs or loads an extension always is."""
    try:
        statements = con.extract_statements(sql)
        n = len(statements)
        if n != 1:
            raise QueryError(
                "no SQL statement given"
                if n == 0
                else f"one SQL statement at a time, not {n}: run each on its own"
            )
        _check_statement(statements[0], allow_writes)
        with _signals_seen():
            rel = con.sql(sql, params=list(params) or None)
            # A statement without a result (CREATE, SET...) has run; it has no rows to show.
            return rel.to_arrow_table() if rel is not None else pa.table({})
    except duckdb.Error as exc:
        raise QueryError(_one_line(str(exc))) from exc


def _one_line(message: str) -> str:
    """DuckDB's message on one line: its first line, and its suggestion ("Did you mean ...")
    where it makes one; the quoted query and caret lines and the advice blocks are left out."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return "DuckDB refused the query"
    hint = next((line for line in lines[1:] if line.startswith("Did you mean")), None)
    return f"{lines[0]} ({hint})" if hint else lines[0]


def _plain(value: Any) -> Any:
    """A JSON-friendly value: UUIDs, dates and decimals as text or numbers, NaN as null."""
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        # DuckDB's sum of integers is a HUGEINT, which reaches Arrow as a decimal of scale 0:
        # a count, shown as one (4523, not 4523.0).
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and exponent >= 0:
            return int(value)
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def cell_text(value: Any) -> str:
    """A value as a table shows it: rates to three decimals, nothing for NULL, a record's text
    with its control characters shown (`bgparse.helpers.printable`)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "" if not math.isfinite(value) else f"{value:.3f}"
    if isinstance(value, list | dict):
        return json.dumps(_plain(value), ensure_ascii=False)
    return printable(str(_plain(value)))


def render(result: pa.Table, fmt: Literal["csv", "json"]) -> str:
    """The result as CSV (a header line, then one line per row) or as a JSON array of objects."""
    rows = result.to_pylist()
    if fmt == "json":
        return json.dumps([_plain(r) for r in rows], ensure_ascii=False, indent=1) + "\n"
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(result.column_names)
    for r in rows:
        writer.writerow(["" if v is None else _csv_value(v) for v in r.values()])
    return out.getvalue()


def _csv_value(value: Any) -> Any:
    plain = _plain(value)
    if isinstance(plain, list | dict):
        return json.dumps(plain, ensure_ascii=False)
    return "" if plain is None else plain


def interval_columns(names: Sequence[str]) -> dict[str, tuple[str, str]]:
    """The rate columns that have a confidence interval beside them: {rate: (lo, hi)}. A
    statistic names an interval `P_lo`, `P_hi` and its rate `P_rate` or `P`."""
    present = set(names)
    out: dict[str, tuple[str, str]] = {}
    for name in names:
        if not name.endswith("_lo") or f"{name[:-3]}_hi" not in present:
            continue
        stem = name[:-3]
        rate = next((c for c in (f"{stem}_rate", stem) if c in present), None)
        if rate is not None:
            out[rate] = (name, f"{stem}_hi")
    return out


def print_result(
    result: pa.Table,
    fmt: Format,
    console: Console,
    *,
    title: str | None = None,
    fold: bool = False,
    keys: Sequence[str] = (),
    screen_rows: int | None = None,
) -> None:
    """Print a result to `console` in the chosen format; a table has numbers right-aligned and
    rates to three decimals. Cell text is shown exactly as stored: never read as console markup.

    With `fold` (a terminal, not --wide) the table fits the screen, one line per row: each rate
    and its interval share one `rate [lo, hi]` column, the `keys` columns (a statistic's own;
    the first column when none are named) are always shown, the others in their order while
    they fit, and a note names those left out (--wide shows them).

    `screen_rows`: the output is a screen, which shows at most that many rows, and a note of how
    many more there are and how to see them. Without it (output piped or redirected) a table is
    written as it goes, row by row, in bounded memory however many rows there are."""
    if fmt != "table":
        console.file.write(render(result, fmt))
        return
    if screen_rows is None and not fold:
        stream_table(result, console.file, title=title)
        return
    hidden_rows = 0
    if screen_rows is not None and result.num_rows > screen_rows:
        hidden_rows = result.num_rows - screen_rows
        result = result.slice(0, screen_rows)
    _print_table(result, console, title=title, fold=fold, keys=keys)
    if hidden_rows:
        console.print(
            Text(
                f"({hidden_rows:,} more {'row' if hidden_rows == 1 else 'rows'} not shown; "
                "--format csv shows every row)",
                style="dim",
            )
        )


def _print_table(
    result: pa.Table,
    console: Console,
    *,
    title: str | None,
    fold: bool,
    keys: Sequence[str] = (),
) -> None:
    names = result.column_names
    numeric = [
        pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
        for t in result.schema.types
    ]
    # By position, not by name: a query may return two columns of one name.
    intervals = interval_columns(names) if fold else {}
    index = {n: i for i, n in enumerate(names)}
    hidden = {index[c] for pair in intervals.values() for c in pair}
    shown = [i for i in range(len(names)) if i not in hidden]
    columns = [result.column(i).to_pylist() for i in range(result.num_columns)]
    cells: dict[int, list[str]] = {}
    for i in shown:
        texts = [cell_text(v) for v in columns[i]]
        if names[i] in intervals:
            lo, hi = (columns[index[c]] for c in intervals[names[i]])
            texts = [
                f"{t} [{cell_text(a)}, {cell_text(b)}]" if t and (a, b) != (None, None) else t
                for t, a, b in zip(texts, lo, hi, strict=True)
            ]
        cells[i] = texts
    headers = {i: f"{names[i]} [lo, hi]" if names[i] in intervals else names[i] for i in shown}
    table = Table(title=Text(title) if title else None, title_justify="left", show_lines=False)
    left_out: list[int] = []
    widths: dict[int, int] = {}
    if fold:
        # A person reads this on a screen: lighter rules, headers that wrap between words,
        # every cell on one line (a text cell too long for the screen ends in an ellipsis).
        table.box = box.SIMPLE_HEAD
        table.pad_edge = False
        table.collapse_padding = True
        for i in shown:
            words = headers[i].replace("_", " ").split()
            widths[i] = max([*(len(w) for w in words), *(len(t) for t in cells[i]), 1])
            if not numeric[i] and names[i] not in intervals:
                widths[i] = max(min(widths[i], _TEXT_WIDTH), *(len(w) for w in words))
        shown, left_out = _fitting(shown, widths, _key_columns(names, shown, keys), console.width)
    for i in shown:
        table.add_column(
            # The header wraps between words even where the column's cells do not wrap.
            Text(headers[i].replace("_", " ") if fold else headers[i], no_wrap=False),
            justify="right" if numeric[i] else "left",
            overflow="ellipsis" if fold else "fold",
            no_wrap=fold and not numeric[i] and names[i] not in intervals,
            width=widths.get(i),
        )
    for r in range(result.num_rows):
        table.add_row(*(Text(cells[i][r]) for i in shown))
    console.print(table)
    if result.num_rows == 0:
        console.print("(no rows)")
    if left_out:
        more = ", ".join(headers[i] for i in left_out)
        console.print(Text(f"{plural(len(left_out), 'more column')} with --wide: {more}"))


#: The widest a text column is drawn on a screen (a long name or play ends in an ellipsis).
_TEXT_WIDTH = 32


def _key_columns(names: Sequence[str], shown: Sequence[int], keys: Sequence[str]) -> set[int]:
    """The shown columns (by position) that a table always keeps: those `keys` names (a rate
    with its interval folded in keeps its name), else the first."""
    chosen = {i for i in shown if names[i] in keys}
    return chosen or set(shown[:1])


def _fitting(
    shown: list[int], widths: dict[int, int], keep: set[int], width: int
) -> tuple[list[int], list[int]]:
    """The columns to draw, in their order, and those left out: every kept one (those on the
    right left out too if even they are too wide, the first never), then the others from the
    left while the table still fits `width` (a column costs its width and the two spaces
    before it; the rule's edges one each side)."""
    kept = sorted(keep)
    while len(kept) > 1 and 2 + sum(widths[i] for i in kept) + 2 * (len(kept) - 1) > width:
        kept.pop()
    used = 2 + sum(widths[i] for i in kept) + 2 * (len(kept) - 1)
    drawn = set(kept)
    for i in shown:
        if i not in drawn and used + 2 + widths[i] <= width:
            drawn.add(i)
            used += 2 + widths[i]
    return [i for i in shown if i in drawn], [i for i in shown if i not in drawn]


def _width(text: str) -> int:
    """Terminal cells the text takes (rich's measure; ASCII quickly)."""
    return len(text) if text.isascii() else cell_len(text)


def _texts(column: pa.Array) -> list[str]:
    """`cell_text` of every value of a column, by its type where that is quicker."""
    kind = column.type
    values = column.to_pylist()
    if pa.types.is_integer(kind):
        return ["" if v is None else str(v) for v in values]
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return ["" if v is None else printable(v) for v in values]
    return [cell_text(v) for v in values]


#: Rows of a result read at a time when a table is streamed.
_STREAM_BATCH = 4096


def stream_table(result: pa.Table, out: Any, *, title: str | None = None) -> None:
    """The table `print_result` draws off a screen (rich's heavy-headed box, numbers right,
    one line per row, every column), written to `out` a batch of rows at a time: the widths
    come from a first pass over the cells, the lines from a second, so no more than a batch
    of rows is ever held as text. Rich's own table holds every cell several times over and
    takes minutes for a hundred thousand rows."""
    names = result.column_names
    numeric = [
        pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
        for t in result.schema.types
    ]
    widths = [cell_len(n) for n in names]
    for batch in result.to_batches(_STREAM_BATCH):
        for i, column in enumerate(batch.columns):
            widths[i] = max(widths[i], max(map(_width, _texts(column)), default=0))

    def line(cells: Sequence[str], sep: str) -> str:
        padded = []
        for text, width, right in zip(cells, widths, numeric, strict=True):
            gap = " " * (width - _width(text))
            padded.append(f" {gap}{text} " if right else f" {text}{gap} ")
        return sep + sep.join(padded) + sep + "\n"

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right + "\n"

    if not names:
        widths, numeric = [0], [False]
        names = [""]
    if title:
        # Rich, without wrapping off a screen, prints it on one line as it is.
        out.write(printable(title) + "\n")
    out.write(rule("┏", "━", "┳", "┓"))
    out.write(line(names, "┃"))
    out.write(rule("┡", "━", "╇", "┩"))
    for batch in result.to_batches(_STREAM_BATCH):
        columns = [_texts(c) for c in batch.columns]
        out.write("".join(line(row, "│") for row in zip(*columns, strict=True)))
    out.write(rule("└", "─", "┴", "┘"))
    if result.num_rows == 0:
        out.write("(no rows)\n")
