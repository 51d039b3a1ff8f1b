"""The dataset commands of the CLI: `import`, `query`, `compact` and `stats` (added to the app by
`register`). A thin layer: library errors go to the boundary (`bgparse.cli.base`), which words
them and says what became of an import or a compaction they stopped.

Exit codes: 0 every input imported (or a duplicate, or already in the dataset); 1 some input
was quarantined; 2 usage error, missing dataset or input, dataset locked by another import, a
file-system error (read-only, full disk: nothing committed), a Dask scheduler that cannot be
reached; 3 the import failed (a worker process died, or the Dask cluster gave a unit up),
nothing committed; 130 interrupted by Ctrl-C (SIGINT), 143 by SIGTERM: nothing committed,
unless the signal came after the commit (the message says which).
"""

from __future__ import annotations

import functools
import inspect
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from bgparse.cli.base import OutputFormat, RulesOption, echo_error, rule_profile
from bgparse.cli.workers import ExecutorName, SchedulerOption, WorkersOption, usable_executor
from bgparse.helpers.errors import UsageError
from bgparse.helpers.paths import display_path
from bgparse.helpers.printable import printable
from bgparse.questions.stats import STATISTICS, Statistic
from bgparse.rules.wording import plural

if TYPE_CHECKING:
    from bgparse.ingest import ImportSummary, InputOutcome

__all__ = ["register"]

_MiB = 1024 * 1024
_QUARANTINE_SHOWN = 20


_DATA_HELP = "dataset folder (default ./bgdata, or $BGPARSE_DATA)"
DataOption = Annotated[
    Path,
    typer.Option(
        "--data", "-d", envvar="BGPARSE_DATA", metavar="FOLDER", help=_DATA_HELP, show_default=False
    ),
]
FormatOption = Annotated[OutputFormat, typer.Option("--format", "-f", help="output format")]
WideOption = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="on a terminal, every column, intervals apart (default: the key columns and "
        "those that fit, each rate and its interval in one column)",
    ),
]
_DEFAULT_DATA = Path("bgdata")


def _is_terminal() -> bool:
    return sys.stdout.isatty()


def _stdout(wide: bool = False) -> Console:
    # Off a terminal (or --wide), no wrapping: a table piped to a file keeps one line per row.
    # On one, the table is drawn to the screen's width (soft wrap would overrun it by one).
    screen = _is_terminal() and not wide
    return Console(width=None if screen else 1000, soft_wrap=not screen)


def _fold(wide: bool) -> bool:
    """Fold intervals into their rate's column: only for a person at a terminal."""
    return _is_terminal() and not wide


#: The most rows a table shows on a screen (a note says how many more, and how to see them).
SCREEN_ROWS = 500


def _screen_rows() -> int | None:
    return SCREEN_ROWS if _is_terminal() else None


def import_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="PATH",
            help="match files (.mat, SGF, .xg, GNU text exports), folders (recursive), .zip, "
            ".tar, .tar.gz/.tgz archives",
        ),
    ],
    data: DataOption = _DEFAULT_DATA,
    workers: WorkersOption = None,
    source: Annotated[
        str | None,
        typer.Option(
            metavar="LABEL", help="partition label for these inputs (default: each file's producer)"
        ),
    ] = None,
    executor: Annotated[
        ExecutorName, typer.Option(help="run the per-file work locally or on Dask")
    ] = ExecutorName.local,
    scheduler: SchedulerOption = None,
    max_file_mb: Annotated[int, typer.Option(min=1, help="largest file or member, MiB")] = 16,
    max_archive_mb: Annotated[
        int, typer.Option(min=1, help="most one archive may expand to, MiB")
    ] = 4096,
    max_ratio: Annotated[
        float, typer.Option(min=2.0, help="largest decompression ratio accepted")
    ] = 200.0,
    progress: Annotated[bool, typer.Option(help="show a progress bar on a terminal")] = True,
    report: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="write what became of every input to this file, one JSON object a line "
            "(path, kind, status, matches, duplicate_matches, errors, warnings, reason)",
            show_default=False,
        ),
    ] = None,
    rules: RulesOption = None,
) -> None:
    """Import match files and archives into the dataset: every input is recorded in the
    `imports` ledger as imported, duplicate or quarantined; inputs already there are skipped.
    The summary counts the matches stored with errors and warnings and names the files with
    the most errors; --report lists every input."""
    from bgparse.ingest import ImportOptions, ImportProgress, run_import, verify_file
    from bgparse.store.inputs import Limits, check_paths, scan_inputs

    overrides = rule_profile(rules, {})
    verify = functools.partial(verify_file, rules=overrides) if overrides else verify_file

    # The dataset's own folder is no input, even where it lies inside one.
    check_paths(paths, exclude=[data])
    if report is not None and (report.is_dir() or not report.parent.is_dir()):
        why = "is a folder" if report.is_dir() else "its folder does not exist"
        raise UsageError(f"--report {display_path(report)}: {why}")

    workers, scheduler = usable_executor(workers, executor, scheduler)
    options = ImportOptions(
        workers=workers,
        source=source,
        executor=executor.value,
        scheduler=scheduler,
        limits=Limits(
            max_file_bytes=max_file_mb * _MiB,
            max_archive_bytes=max_archive_mb * _MiB,
            max_ratio=max_ratio,
        ),
    )
    err = Console(stderr=True)
    show = progress and err.is_terminal
    bar = None
    on_progress = None
    if show:
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        _, total = scan_inputs(paths)
        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
        )
        task = bar.add_task("importing", total=total or None)

        def on_progress(p: ImportProgress) -> None:
            bar.update(
                task,
                completed=p.bytes_done,
                description=f"{plural(p.inputs, 'file')}, {plural(p.matches, 'match')}",
            )

        bar.start()
    spool = _Report(report) if report is not None else None
    on_input = spool.add if spool is not None else None
    try:
        summary = run_import(
            paths,
            data,
            options,
            verify=verify,
            on_progress=on_progress,
            on_input=on_input,
            on_notice=lambda text: err.print(text, markup=False, highlight=False) if show else None,
        )
        if spool is not None:
            spool.write()
    finally:
        if bar is not None:
            bar.stop()
        if spool is not None:
            spool.close()
    mb = summary.bytes_done / 1e6
    rate = mb / summary.seconds if summary.seconds > 0 else 0.0
    typer.echo(
        f"{plural(summary.inputs, 'input')}: {summary.imported:,} imported, "
        f"{summary.duplicate:,} duplicate, {summary.quarantined:,} quarantined, "
        f"{summary.skipped:,} already in the dataset; stored {plural(summary.matches, 'match')}, "
        f"{plural(summary.games, 'game')}, {plural(summary.turns, 'turn')}, "
        f"{plural(summary.cube_actions, 'cube offer')} in {display_path(data)}; "
        f"{mb:.1f} MB in {summary.seconds:.1f} s ({rate:.1f} MB/s)"
    )
    _print_damage(summary, report)
    for path, reason in summary.quarantine[:_QUARANTINE_SHOWN]:
        typer.echo(printable(f"quarantined: {path}: {reason}"), err=True)
    hidden = summary.quarantined - min(len(summary.quarantine), _QUARANTINE_SHOWN)
    if hidden > 0:
        typer.echo(
            f'... and {hidden:,} more: bgparse query "SELECT path, reason FROM imports '
            f"WHERE status = 'quarantined'\"",
            err=True,
        )
    if spool is not None and spool.error is not None:
        raise typer.Exit(2)  # the report asked for is missing: a file-system error
    if summary.quarantined:
        raise typer.Exit(1)


class _Report:
    """`import --report`: each input's outcome as a JSON line, spooled to an anonymous
    temporary file (one appearing in an input folder would be imported) and written to the
    named file whole once the import has committed; no file at all if it did not."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.spool: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        self.error: OSError | None = None

    def add(self, outcome: InputOutcome) -> None:
        if self.error is not None:
            return
        line = json.dumps(outcome.as_dict(), ensure_ascii=False) + "\n"
        try:
            self.spool.write(line.encode("utf-8"))
        except OSError as exc:  # a full temporary folder must not stop the import
            self.error = exc

    def write(self) -> None:
        from bgparse.helpers.outfiles import atomic_output

        if self.error is None:
            self.spool.seek(0)
            try:
                with atomic_output(self.target) as out:
                    shutil.copyfileobj(self.spool, out)
            except OSError as exc:
                self.error = exc
        if self.error is not None:
            # The import has committed: say so, and that the report asked for is missing
            # (the command then exits 2, as for any file it could not write).
            why = self.error.strerror or self.error
            echo_error(
                f"--report {display_path(self.target)}: cannot write: {why} "
                "(the import itself is committed)"
            )

    def close(self) -> None:
        self.spool.close()


def _print_damage(summary: ImportSummary, report: Path | None) -> None:
    """What came in damaged: matches stored with errors or warnings, and the worst files."""
    errors, warnings = summary.matches_with_errors, summary.matches_with_warnings
    if not errors and not warnings:
        return
    head = f"{plural(errors, 'match')} stored with errors, {warnings:,} with warnings only"
    typer.echo(head + ("; most errors:" if summary.worst else ""))
    for o in summary.worst:
        typer.echo(
            f"  {o.path}: {plural(o.errors, 'error')}, {plural(o.warnings, 'warning')} "
            f"in {plural(o.matches, 'match')}"
        )
    hidden = summary.files_with_errors - len(summary.worst)
    if hidden > 0:
        where = (
            f"--report {display_path(report)}"
            if report is not None
            else '--report FILE, or bgparse query "SELECT source_path, n_errors FROM matches '
            'WHERE n_errors > 0 ORDER BY n_errors DESC"'
        )
        typer.echo(f"  ... and {plural(hidden, 'more file')} with errors: {where}")


def compact_command(data: DataOption = _DEFAULT_DATA) -> None:
    """Merge the dataset's small files: every partition (and the ledger) that several imports
    wrote to becomes as few files as the file size allows. The rows stay the same; queries
    open fewer files. Refused while an import runs."""
    from bgparse.helpers.errors import DatasetError
    from bgparse.ingest import bgparse_version
    from bgparse.store.dataset import Dataset

    ds = Dataset(data)
    if not ds.exists():
        raise DatasetError(f"no dataset at {display_path(data)} (bgparse import creates one)")
    done = ds.compact(bgparse_version())
    if not done.partitions:
        why = "no partition has more than one file"
        typer.echo(f"{display_path(data)}: nothing to compact ({why})")
        return
    typer.echo(
        f"{display_path(data)}: {plural(done.partitions, 'partition')} compacted, "
        f"{plural(done.files_before, 'file')} -> "
        f"{done.files_after:,} ({done.bytes_before / 1e6:.1f} MB -> "
        f"{done.bytes_after / 1e6:.1f} MB), {plural(done.rows, 'row')}"
    )


def check_command(data: DataOption = _DEFAULT_DATA) -> None:
    """Verify the dataset: every part the manifest lists is there, has its recorded size and
    SHA-256 and reads back whole with its table's schema; every other file in the folder is
    named. Exit 0: clean; 1: damaged (each bad part named); 2: no dataset or it is locked.
    Writes nothing."""
    from bgparse.helpers.errors import DatasetError
    from bgparse.store.dataset import Dataset

    ds = Dataset(data)
    if not ds.exists():
        raise DatasetError(f"no dataset at {display_path(data)} (bgparse import creates one)")
    done = ds.check()
    for damage in done.damage:
        typer.echo(printable(f"{display_path(data / damage.rel)}: {damage.problem}"))
    for rel in done.unlisted:
        why = "not in the manifest (left by a killed import, or not bgparse's)"
        typer.echo(printable(f"{display_path(data / rel)}: {why}"))
    unrecorded = (
        f"; {plural(done.unrecorded, 'part')} with no checksum recorded (written by an older "
        "bgparse) read back whole"
        if done.unrecorded
        else ""
    )
    if not done.clean:
        typer.echo(
            f"{display_path(data)}: damaged: {plural(len(done.damage), 'bad part')} of "
            f"{done.parts:,}, {plural(len(done.unlisted), 'file')} not in the manifest"
            f"{unrecorded}"
        )
        raise typer.Exit(1)
    typer.echo(
        f"{display_path(data)}: clean: {plural(done.parts, 'part')}, {done.bytes:,} bytes, "
        f"every size and checksum the manifest's, every part read back{unrecorded}"
    )


def _param_value(text: str) -> int | float | str:
    """A --param as the number it spells, else as text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def query_command(
    sql: Annotated[str, typer.Argument(help="one SQL statement (DuckDB dialect)")],
    data: DataOption = _DEFAULT_DATA,
    fmt: FormatOption = OutputFormat.table,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            metavar="VALUE",
            help="a value for ? or $1, $2... in the SQL, in order (repeatable)",
        ),
    ] = None,
    wide: WideOption = False,
    allow_writes: Annotated[
        bool,
        typer.Option(
            "--allow-writes", help="let COPY, EXPORT and ATTACH write files and databases"
        ),
    ] = False,
) -> None:
    """Run SQL over the dataset: views matches, games, turns, cube_actions, findings, imports,
    and the bg_* macros of pipelines/ (see 'bgparse stats --list')."""
    from bgparse.helpers.checks import utf8_text
    from bgparse.questions.query import connect, print_result, run

    # DuckDB takes text as UTF-8 only: bytes of another encoding in argv are refused here.
    utf8_text("SQL", sql)
    params = [_param_value(utf8_text("--param", p)) for p in param or []]
    con = connect(data)
    result = run(con, sql, params, allow_writes=allow_writes)
    print_result(result, fmt.value, _stdout(wide), fold=_fold(wide), screen_rows=_screen_rows())


def _list_statistics() -> None:
    """Every statistic: its name, what it needs and its options on one line, its description
    wrapped below, as wide as the terminal (or $COLUMNS; 100 columns when piped)."""
    import textwrap

    width = max(shutil.get_terminal_size((100, 24)).columns, 40)
    lines = ["Statistics (bgparse stats NAME [options])", ""]
    for s in STATISTICS.values():
        opts = " ".join(p.option for p in s.params)
        head = f"{s.name}  (needs: {s.needs}" + (f"; options: {opts})" if opts else ")")
        lines += textwrap.wrap(head, width - 1, subsequent_indent="    ")
        lines += textwrap.wrap(s.help, width - 1, initial_indent="    ", subsequent_indent="    ")
    typer.echo(printable("\n".join(lines)))


_SubDataOption = Annotated[
    Path | None,
    typer.Option(
        "--data",
        "-d",
        metavar="FOLDER",
        help=_DATA_HELP + "; also before the name",
        show_default=False,
    ),
]


def _print_notes(con: Any, filters: Any, name: str | None) -> None:
    """What the filters left out that the table cannot say, one line each on stderr; and a
    `player --name` that is no stored player, noted as --player is."""
    from bgparse.questions.filter_notes import filter_notes, name_note

    notes: list[str | None] = list(filter_notes(con, filters))
    if filters.player is None and name:
        notes.append(name_note(con, name, "--name", "bg_all_" if filters else ""))
    for note in notes:
        if note:
            typer.echo(f"bgparse: note: {note}", err=True)


def _stats_command(stat: Statistic) -> Any:
    def command(ctx: typer.Context, **values: Any) -> None:
        from bgparse.cli.filters import filters_from
        from bgparse.questions.query import connect, print_result

        # --data after the name wins over --data before it (or $BGPARSE_DATA).
        data = values.pop("data") or (ctx.obj or {}).get("data") or _DEFAULT_DATA
        fmt: OutputFormat = values.pop("fmt")
        wide: bool = values.pop("wide")
        filters = filters_from(values)
        # A statistic's own --length is the filter's; the player profile shows the
        # filtered player's row.
        if any(p.name == "length" for p in stat.params):
            values["length"] = filters.length
        if filters.player is not None and any(p.name == "name" for p in stat.params):
            values["name"] = values.get("name") or filters.player
        # Options first: a bad one is a usage error whatever the dataset.
        stat.arguments(values)
        con = connect(data, filters)
        result = stat.run(con, values)
        _print_notes(con, filters, values.get("name"))
        title = stat.title if fmt is OutputFormat.table else None
        if title and filters:
            title += f" ({filters.describe()})"
        screen = _screen_rows()
        print_result(
            result,
            fmt.value,
            _stdout(wide),
            title=title,
            fold=_fold(wide),
            keys=stat.columns,
            screen_rows=screen,
        )

    from bgparse.cli.filters import FILTER_NAMES, filter_parameters

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context),
        inspect.Parameter("data", kw, default=None, annotation=_SubDataOption),
        inspect.Parameter("fmt", kw, default=OutputFormat.table, annotation=FormatOption),
        inspect.Parameter("wide", kw, default=False, annotation=WideOption),
        *filter_parameters(),
    ]
    for p in stat.params:
        if p.name in FILTER_NAMES:
            continue
        if p.type is bool:
            option = typer.Option(f"{p.option}/--no-{p.option[2:]}", help=p.help)
            annotation: Any = Annotated[bool, option]
        else:
            kind = p.type if p.default is not None else (p.type | None)
            # A text option's value is named for what it is: --roll ROLL, --name NAME.
            metavar = p.name.upper() if p.type is str else None
            annotation = Annotated[kind, typer.Option(p.option, metavar=metavar, help=p.help)]
        params.append(inspect.Parameter(p.name, kw, default=p.default, annotation=annotation))
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = stat.help
    command.__name__ = stat.name.replace("-", "_")
    return command


def _stats_app() -> typer.Typer:
    app = typer.Typer(
        help="Named statistics over the dataset ('bgparse stats --list' describes them).",
        invoke_without_command=True,
        no_args_is_help=False,
    )

    @app.callback()
    def stats(
        ctx: typer.Context,
        list_: Annotated[bool, typer.Option("--list", help="describe every statistic")] = False,
        data: Annotated[
            Path | None,
            typer.Option(
                "--data",
                "-d",
                envvar="BGPARSE_DATA",
                metavar="FOLDER",
                help=_DATA_HELP,
                show_default=False,
            ),
        ] = None,
    ) -> None:
        """Run a named statistic: bgparse stats NAME [options]."""
        ctx.obj = {"data": data}
        # Without a NAME the list is what anyone asking would want, --list or not.
        if ctx.invoked_subcommand is None:
            _list_statistics()

    for stat in STATISTICS.values():
        app.command(stat.name, help=stat.help)(_stats_command(stat))
    return app


def register(app: typer.Typer) -> None:
    """Add `import`, `query`, `compact`, `check` and `stats` to the bgparse command-line
    app."""
    app.command("import")(import_command)
    app.command("query")(query_command)
    app.command("compact")(compact_command)
    app.command("check")(check_command)
    app.add_typer(_stats_app(), name="stats")
