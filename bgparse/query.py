"""DuckDB over a dataset: a view per table over its committed files, the `pipelines/` macros,
and rendering a result as a table, CSV or JSON.

Everything runs in an embedded, in-memory DuckDB: no server, nothing written. Views list the
files the manifest commits (never a glob), so a query never sees an import half done.
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
from rich.console import Console
from rich.table import Table
from rich.text import Text

from bgparse import interrupts
from bgparse.errors import UsageError
from bgparse.filters import FILTERED, Filters
from bgparse.findings import CODES
from bgparse.paths import display_path
from bgparse.printable import printable
from bgparse.resources import pipelines_dir
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
    return con


def run(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> pa.Table:
    """Run one statement with positional parameters (`?` or `$1`) and fetch it as Arrow.
    More than one is refused: DuckDB would run them all and show only the last one's rows."""
    try:
        n = len(con.extract_statements(sql))
        if n != 1:
            raise QueryError(
                "no SQL statement given"
                if n == 0
                else f"one SQL statement at a time, not {n}: run each on its own"
            )
        with _signals_seen():
            rel = con.sql(sql, params=list(params) or None)
            # A statement without a result (CREATE, SET...) has run; it has no rows to show.
            return rel.to_arrow_table() if rel is not None else pa.table({})
    except duckdb.Error as exc:
        raise QueryError(str(exc).strip()) from exc


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
    with its control characters shown (`bgparse.printable`)."""
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
) -> None:
    """Print a result to `console` in the chosen format; a table has numbers right-aligned and
    rates to three decimals. Cell text is shown exactly as stored: never read as console markup.

    With `fold` (a terminal, not --wide) the table fits the screen, one line per row: each rate
    and its interval share one `rate [lo, hi]` column, the `keys` columns (a statistic's own;
    the first column when none are named) are always shown, the others in their order while
    they fit, and a note names those left out (--wide shows them)."""
    if fmt != "table":
        console.file.write(render(result, fmt))
        return
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
