"""The `bgparse` command line: a thin layer over the library; the `parse` and `validate` commands
here, the others registered from the modules beside it, every error worded by `bgparse.cli.base`.

Exit codes, for every command: 0 all good, 1 some record has errors, 2 usage error or
unreadable input (a file no record could be read from: `parse` and `validate` alike).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bgparse.cli.base import (
    Boundary,
    RecordFormat,
    ReportFormat,
    RulesOption,
    iter_blobs,
    rule_profile,
    validation_summary,
)
from bgparse.cli.out import output_format, redirect_stdout_to
from bgparse.helpers import interrupts
from bgparse.helpers.errors import UsageError
from bgparse.helpers.paths import display_path
from bgparse.helpers.printable import printable
from bgparse.model.events import (
    Action,
    Beaver,
    CannotMove,
    Comment,
    Double,
    Drop,
    HiddenPlay,
    IllegalPlay,
    Loss,
    MatchRecord,
    Raccoon,
    Resign,
    Roll,
    SetPosition,
    Take,
    Win,
)
from bgparse.model.findings import RecordError, Severity, format_finding
from bgparse.rules.wording import plural
from bgparse.version import __version__

if TYPE_CHECKING:
    from bgparse.readers import SourceLines

__all__ = ["app", "main"]

app = typer.Typer(
    name="bgparse",
    help="Read, verify and analyse backgammon match records (Jellyfish .mat, GNU Backgammon SGF "
    "and text exports, eXtreme Gammon .xg).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=Boundary,
)


def _version(value: bool) -> None:
    if value:
        from bgparse.helpers.compiled import build_info

        typer.echo(f"bgparse {__version__} ({build_info()})")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Read, verify and analyse backgammon match records."""


# --- parse ----------------------------------------------------------------------------------


def action_to_dict(a: Action) -> dict[str, Any]:
    """One event as plain JSON values."""
    d: dict[str, Any] = {"line": a.span.line, "column": a.span.column}
    match a:
        case Roll():
            d |= {
                "type": "roll",
                "side": a.side,
                "dice": list(a.dice),
                "play": " ".join(m.notation() for m in a.moves),
                "moves": [
                    {"points": list(m.points), "hits": list(m.hits), "count": m.count}
                    for m in a.moves
                ],
            }
        case CannotMove():
            d |= {"type": "cannot_move", "side": a.side, "dice": list(a.dice)}
        case HiddenPlay():
            d |= {"type": "hidden", "side": a.side, "dice": list(a.dice), "text": a.text}
        case IllegalPlay():
            d |= {"type": "illegal_play", "side": a.side, "dice": list(a.dice)}
            d["fields"] = list(a.fields)
        case Double():
            d |= {"type": "double", "side": a.side, "value": a.value}
        case Beaver():
            d |= {"type": "beaver", "side": a.side, "value": a.value}
        case Raccoon():
            d |= {"type": "raccoon", "side": a.side, "value": a.value}
        case Take():
            d |= {"type": "take", "side": a.side}
        case Drop():
            d |= {"type": "drop", "side": a.side}
        case Resign():
            d |= {"type": "resign", "side": a.side, "level": a.level, "text": a.text}
        case Win():
            d |= {"type": "win", "side": a.side, "points": a.points, "and_match": a.and_match}
        case Loss():
            d |= {"type": "loss", "side": a.side, "points": a.points}
        case SetPosition():
            d |= {"type": "set_position", "text": a.text}
        case Comment():
            d |= {"type": "comment", "side": a.side, "text": a.text}
    return d


def record_to_dict(rec: MatchRecord) -> dict[str, Any]:
    return {
        "path": rec.path,
        "index": rec.index,
        "format": rec.format,
        "players": list(rec.players),
        "length": rec.length,
        "tags": {k: v for k, v in rec.tags},
        "dialect": rec.dialect,
        "games": [
            {
                "number": g.number,
                "score": list(g.score),
                "line": g.span.line,
                "actions": [action_to_dict(a) for a in g.actions],
            }
            for g in rec.games
        ],
        "errors": [
            {"code": e.code, "message": e.message, "line": e.line, "column": e.column}
            for e in rec.errors
            if e.severity is Severity.ERROR
        ],
        "warnings": [
            {"code": e.code, "message": e.message, "line": e.line, "column": e.column}
            for e in rec.errors
            if e.severity is not Severity.ERROR
        ],
    }


def _failure_dict(exc: RecordError) -> dict[str, Any]:
    f = exc.finding
    return {
        "path": exc.path,
        "players": None,
        "length": None,
        "tags": {},
        "dialect": None,
        "games": [],
        "errors": [{"code": f.code, "message": f.message, "line": f.line, "column": f.column}],
    }


@app.command()
def parse(
    files: Annotated[list[str], typer.Argument(help="Match files or folders.", metavar="PATH")],
    format: Annotated[
        RecordFormat,
        typer.Option("--format", "-f", help="text (a summary) or json (JSON Lines)."),
    ] = RecordFormat.text,
) -> None:
    """Read match files and print their event records (no rules applied)."""
    from bgparse.readers import iter_records

    failed = unreadable = False
    out = sys.stdout
    for path, data, refused in iter_blobs(files):
        try:
            if refused is not None:
                raise refused
            for rec in iter_records(data, path):
                if any(e.severity is Severity.ERROR for e in rec.errors):
                    failed = True
                if format == "json":
                    out.write(json.dumps(record_to_dict(rec), ensure_ascii=False) + "\n")
                else:
                    _print_record(rec)
        except RecordError as exc:
            # Not read at all: the README's exit code 2, as `validate` gives for the same input.
            unreadable = True
            if format == "json":
                out.write(json.dumps(_failure_dict(exc), ensure_ascii=False) + "\n")
            else:
                typer.echo(exc.format(), err=True)
    raise typer.Exit(2 if unreadable else 1 if failed else 0)


def _print_record(rec: MatchRecord) -> None:
    length = "money session" if rec.length == 0 else f"{rec.length}-point match"
    names = printable(" vs ".join(n or "(no name)" for n in rec.players))
    n_actions = sum(len(g.actions) for g in rec.games)
    typer.echo(
        f"{rec.path}: {names}, {length}, {plural(len(rec.games), 'game')}, "
        f"{plural(n_actions, 'action')} "
        f"[{rec.dialect}]"
    )
    for e in rec.errors:
        typer.echo(format_finding(rec.path, e), err=True)


# --- validate -------------------------------------------------------------------------------


def _rule_overrides(
    jacoby: bool | None,
    crawford: bool | None,
    beavers: int | None,
    cube_limit: int | None,
    backgammon_value: int | None,
    holland: bool | None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if jacoby is not None:
        out["jacoby"] = jacoby
    if crawford is not None:
        out["crawford"] = crawford
    if beavers is not None:
        if beavers < 0:
            raise UsageError(f"--beavers must be 0 or more, not {beavers}")
        out["beavers"] = beavers
    if cube_limit is not None:
        if cube_limit < 1:
            raise UsageError(f"--cube-limit must be 1 or more, not {cube_limit}")
        out["cube_limit"] = cube_limit
    if backgammon_value is not None:
        if backgammon_value not in (2, 3):
            raise UsageError("--backgammon-value must be 2 or 3")
        out["backgammon_value"] = backgammon_value
    if holland is not None:
        out["holland"] = holland
    return out


def verified_to_dict(m: Any, *, strict: bool = False) -> dict[str, Any]:
    """The JSON object `bgparse validate --format json` prints for one match."""
    findings = [_finding_dict(f, strict) for f in m.findings]
    return {
        "path": m.path,
        "index": m.index,
        "ok": not any(f["severity"] == "error" for f in findings),
        "format": m.format,
        "dialect": m.dialect,
        "length": m.length,
        "players": list(m.players),
        "final_score": list(m.final_score),
        "winner": m.winner,
        "rules": m.rules,
        "games": [
            {
                "number": g.number,
                "line": g.line,
                "score_before": list(g.score_before),
                "winner": g.winner,
                "points": g.points,
                "end": g.end,
                "result_type": g.result_type,
                "resign_level": g.resign_level,
                "cube": g.cube,
                "cube_owner": g.cube_owner,
                "crawford": g.crawford,
                "turns": g.n_turns,
                "plays": g.plays,
                "doubles": g.doubles,
                "takes": g.takes,
                "drops": g.drops,
                "beavers": g.beavers,
                "dances": g.dances,
                "final_position_id": g.final_position_id,
                "final_match_id": g.final_match_id,
            }
            for g in m.games
        ],
        "findings": findings,
    }


def _finding_dict(f: Any, strict: bool) -> dict[str, Any]:
    d: dict[str, Any] = f.as_dict()
    if strict and f.severity is Severity.WARNING:
        d["severity"] = "error"
    return d


def _unreadable_dict(exc: RecordError) -> dict[str, Any]:
    """The JSON line of an input that could not be read: its one finding says why."""
    return {
        "path": exc.path,
        "index": 0,
        "ok": False,
        "format": None,
        "dialect": None,
        "length": None,
        "players": None,
        "final_score": None,
        "winner": None,
        "games": [],
        "findings": [exc.finding.as_dict()],
    }


def _count_files(paths: list[str]) -> int:
    from bgparse.store.inputs import scan_inputs

    # Files on disk (an archive counts once): the bar's total, an estimate of the inputs.
    return scan_inputs(paths)[0]


class _Progress:
    """A rich progress bar on a terminal for long runs; nothing otherwise."""

    def __init__(self, paths: list[str], what: str) -> None:
        self.bar: Any = None
        if sys.stderr.isatty() and (total := _count_files(paths)) >= 20:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn(what),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(what, total=total)

    def advance(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@app.command()
def validate(
    paths: Annotated[
        list[str], typer.Argument(help="Match files, or folders to search.", metavar="PATH")
    ],
    format: Annotated[
        ReportFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="text (compiler style), json (JSON Lines) or html (a report); "
            "default: as --out's suffix names it (.html, .json), else text.",
            show_default=False,
        ),
    ] = None,
    html_out: Annotated[
        Path | None,
        typer.Option("--out", "-o", metavar="FILE", help="Write to this file, not stdout."),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print errors and warnings only, no notes.")
    ] = False,
    jacoby: Annotated[
        bool | None, typer.Option("--jacoby/--no-jacoby", help="Jacoby rule (money play).")
    ] = None,
    crawford: Annotated[
        bool | None, typer.Option("--crawford/--no-crawford", help="Crawford rule (matches).")
    ] = None,
    beavers: Annotated[
        int | None, typer.Option("--beavers", help="Beavers and raccoons allowed per double.")
    ] = None,
    cube_limit: Annotated[
        int | None, typer.Option("--cube-limit", help="Highest cube value (1 = cubeless).")
    ] = None,
    backgammon_value: Annotated[
        int | None,
        typer.Option("--backgammon-value", help="3, or 2 where backgammons count as gammons."),
    ] = None,
    holland: Annotated[
        bool | None, typer.Option("--holland/--no-holland", help="Holland rule.")
    ] = None,
    rules: RulesOption = None,
) -> None:
    """Replay match records through the rules and report every illegal play, cube action and
    score that does not add up. Exit 0: no errors; 1: some record has errors; 2: usage error or
    unreadable input."""
    given = format.value if format is not None else None
    choices = [f.value for f in ReportFormat]
    format = ReportFormat(output_format("validate", html_out, given, choices, "text"))
    overrides = _rule_overrides(jacoby, crawford, beavers, cube_limit, backgammon_value, holland)
    overrides = rule_profile(rules, overrides)
    blobs = iter_blobs(paths)
    if format == "html":
        from bgparse.cli.report import validate_html

        raise typer.Exit(validate_html(blobs, overrides, strict=strict, out=html_out))
    import gc

    from bgparse.readers import SourceLines, iter_records
    from bgparse.replay import replay

    # Batch work makes many small objects and keeps few: collect garbage less often.
    gc.set_threshold(50_000, 20, 20)
    counts = dict.fromkeys(
        (
            "files",
            "matches",
            "errors",
            "warnings",
            "unreadable",
            "error_matches",
            "warning_matches",
        ),
        0,
    )
    bad_records = False
    progress = _Progress(paths, "validating")
    # With --out, the file gets what stdout would have shown, and stdout the summary.
    with redirect_stdout_to(html_out):
        out = sys.stdout
        try:
            for path, data, refused in blobs:
                counts["files"] += 1
                progress.advance()
                try:
                    if refused is not None:
                        raise refused
                    source = SourceLines(data)
                    for rec in iter_records(data, path):
                        m = replay(rec, overrides or None, keep_turns=False)
                        counts["matches"] += 1
                        d = verified_to_dict(m, strict=strict)
                        n_err = sum(1 for f in d["findings"] if f["severity"] == "error")
                        n_warn = sum(1 for f in d["findings"] if f["severity"] == "warning")
                        counts["errors"] += n_err
                        counts["warnings"] += n_warn
                        bad_records |= n_err > 0
                        counts["error_matches"] += n_err > 0
                        counts["warning_matches"] += n_err == 0 and n_warn > 0
                        if format == "json":
                            out.write(json.dumps(d, ensure_ascii=False) + "\n")
                        else:
                            _print_verified(m, source, strict=strict, quiet=quiet)
                except RecordError as exc:
                    counts["unreadable"] += 1
                    counts["errors"] += 1  # its one finding, S0xx
                    if format == "json":
                        out.write(json.dumps(_unreadable_dict(exc), ensure_ascii=False) + "\n")
                    else:
                        text = exc.format()
                        code = exc.finding.code
                        # Same shape as every other finding: path:line:col: severity: CODE message
                        typer.echo(text.replace(f": {code} ", f": error: {code} ", 1))
        finally:
            progress.close()
        summary = validation_summary(**counts)
        if format == "text":
            typer.echo(summary)
    if html_out is not None:
        typer.echo(f"{summary}; written to {display_path(html_out)}")
    raise typer.Exit(2 if counts["unreadable"] else 1 if bad_records else 0)


def _print_verified(m: Any, source: SourceLines, *, strict: bool, quiet: bool) -> None:
    shown = tuple(f for f in m.findings if not (quiet and f.severity is Severity.INFO))
    for f in source.fill(shown, m.format):
        sev = "error" if strict and f.severity is Severity.WARNING else str(f.severity)
        text = format_finding(m.path, f)
        head, _, rest = text.partition("\n")
        head = head.replace(f": {f.code} ", f": {sev}: {f.code} ", 1)
        typer.echo(head + ("\n" + rest if rest else ""))
    length = "money session" if m.length == 0 else f"{m.length}-point match"
    result = ""
    if m.winner is not None:
        result = printable(f", won by {m.players[m.winner] or 'side ' + str(m.winner)}")
    if not quiet:
        typer.echo(
            f"{m.path}: {printable(' vs '.join(m.players))}, {length}, "
            f"{plural(len(m.games), 'game')}, "
            f"final score {m.final_score[0]}-{m.final_score[1]}{result}"
        )


def main() -> None:
    """Console entry point: Ctrl-C and SIGTERM stop a command with one line and exit 130 or
    143 (`bgparse.helpers.interrupts`); every other error is worded by the boundary
    (`bgparse.cli.base.Boundary`)."""
    interrupts.install()
    try:
        app()
    finally:
        interrupts.uninstall()


from bgparse.cli.convert import register as _reg_convert  # noqa: E402 - after `app` exists

_reg_convert(app)

from bgparse.cli.data import register as _reg_data  # noqa: E402 - after `app` exists

_reg_data(app)

from bgparse.cli.report import register as _reg_report  # noqa: E402 - after `app` exists

_reg_report(app)

from bgparse.cli.analyze import register as _reg_analyze  # noqa: E402 - after `app` exists

_reg_analyze(app)
