"""The picture commands of the CLI: `show` (a board) and `report` (the analysis report), added
to the app by `register`. A thin layer: library errors go to the boundary (`bgparse.cli.base`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer

from bgparse.cli.base import BoardFormat, validation_summary
from bgparse.cli.out import output_format
from bgparse.helpers.errors import OutputError
from bgparse.helpers.paths import display_path
from bgparse.model.findings import RecordError

__all__ = ["register"]


def _write(text: str, out: Path | None) -> None:
    # A file gets what stdout would show, its last line ended too.
    text = text if text.endswith("\n") else text + "\n"
    if out is None:
        sys.stdout.write(text)
        return
    from bgparse.helpers.outfiles import atomic_output

    try:
        if out.is_symlink() or (out.exists() and not out.is_file()):
            # A device, a FIFO, /dev/stdout: written through, never renamed over.
            out.write_text(text, encoding="utf-8")
        else:
            # Whole or not at all: a full disk left an empty or cut page behind.
            with atomic_output(out) as f:
                f.write(text.encode("utf-8"))
    except OSError as exc:
        raise OutputError(f"{display_path(out)}: cannot write: {exc.strerror or exc}") from None


def show_command(
    what: Annotated[
        str,
        typer.Argument(
            help="a GNU Position ID (optionally :MatchID), an XGID, or FILE:GAME:MOVE "
            "(MOVE: the record's move number, 19, with its column, 19a or 19b, or t and "
            "the game's turn count, both sides' rolls and cube actions, t37)",
            metavar="WHAT",
        ),
    ],
    fmt: Annotated[
        BoardFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="text (a diagram) or svg; default: svg for an --out named .svg, else text",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="FILE", help="write to this file, not stdout"),
    ] = None,
) -> None:
    """Draw a board: a position by its ID, or the board before a turn of a record with the
    recorded play (and, for an illegal play, the legal plays)."""
    from bgparse.render.show import resolve

    given = fmt.value if fmt is not None else None
    chosen = output_format("show", out, given, [f.value for f in BoardFormat], "text")
    shown = resolve(what)
    _write(shown.svg() if chosen == BoardFormat.svg else shown.text(), out)


def validate_html(
    blobs: Iterable[tuple[str, bytes, RecordError | None]],
    overrides: dict[str, Any],
    *,
    strict: bool,
    out: Path | None,
) -> int:
    """`bgparse validate --format html`: the validation report of `blobs`, written to `out`
    (stdout without it), and the exit code `validate` gives."""
    import gc
    from functools import partial

    from bgparse.readers import iter_records
    from bgparse.render.validation import ValidationReport
    from bgparse.replay import replay

    gc.set_threshold(50_000, 20, 20)
    report = ValidationReport(strict=strict)
    rules = overrides or None
    for path, data, refused in blobs:
        try:
            if refused is not None:
                raise refused
            for rec in iter_records(data, path):
                match = replay(rec, rules, keep_turns=False)
                report.add_match(match, data, partial(replay, rec, rules))
            report.end_file()
        except RecordError as exc:
            report.add_unreadable(exc)
    page = report.render()
    _write(page, out)
    totals = report.summary()
    # The same words as validate's text summary.
    line = validation_summary(**totals) + (
        f"; report written to {display_path(out)}" if out is not None else ""
    )
    typer.echo(line, err=out is None)
    if totals["unreadable"]:
        return 2
    return 1 if totals["error_matches"] else 0


_OutOption = Annotated[
    Path, typer.Option("--out", "-o", metavar="FILE", help="the HTML page to write")
]
_DataOption = Annotated[
    Path,
    typer.Option(
        "--data",
        "-d",
        envvar="BGPARSE_DATA",
        metavar="FOLDER",
        help="dataset folder (default ./bgdata, or $BGPARSE_DATA)",
        show_default=False,
    ),
]
_TitleOption = Annotated[str | None, typer.Option("--title", help="the page's title")]


def report_command(**values: Any) -> None:
    """Write the analysis report: one self-contained HTML page with a chart and a table for
    each statistic of the dataset (narrowed by the filters)."""
    from bgparse.cli.filters import filters_from
    from bgparse.questions.query import connect
    from bgparse.render.analysis import analysis_report

    out: Path = values.pop("out")
    output_format("report", out, None, ["html"], "html")  # a .json or .svg --out is refused
    data: Path = values.pop("data")
    title: str | None = values.pop("title")
    chosen = filters_from(values)
    from bgparse.questions.filter_notes import filter_notes

    con = connect(data, chosen)
    for note in filter_notes(con, chosen):
        typer.echo(f"bgparse: note: {note}", err=True)
    page = analysis_report(con, chosen, title=title)
    _write(page, out)
    typer.echo(f"report written to {display_path(out)}")


def _report_signature() -> None:
    # Built like the statistics' commands: typer reads the options from the signature.
    import inspect

    from bgparse.cli.filters import filter_parameters

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("out", kw, annotation=_OutOption),
        inspect.Parameter("data", kw, default=Path("bgdata"), annotation=_DataOption),
        inspect.Parameter("title", kw, default=None, annotation=_TitleOption),
        *filter_parameters(),
    ]
    report_command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    report_command.__annotations__ = {p.name: p.annotation for p in params}


def register(app: typer.Typer) -> None:
    """Add `show` and `report` to the bgparse command-line app."""
    app.command("show")(show_command)
    _report_signature()
    app.command("report")(report_command)
