"""The `bgparse` command line: a thin layer over the library; errors become messages and exit
codes here and nowhere else.

Exit codes, for every command: 0 all good, 1 some record has errors (or could not be read),
2 usage error or unreadable input.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from bgparse import __version__
from bgparse.events import (
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
from bgparse.findings import RecordError, Severity, format_finding

__all__ = ["app", "main"]

app = typer.Typer(
    name="bgparse",
    help="Read, verify and analyse backgammon match records (Jellyfish .mat, GNU SGF).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: File name endings searched for when a folder is given.
MATCH_SUFFIXES = (".mat", ".txt", ".sgf")


class UsageError(Exception):
    """A problem with what the user asked for (exit code 2)."""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"bgparse {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Read, verify and analyse backgammon match records."""


def iter_input_files(paths: Iterable[str]) -> Iterator[Path]:
    """Files named, and match files found recursively in folders named, in a stable order."""
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and f.suffix.lower() in MATCH_SUFFIXES and not f.is_symlink():
                    yield f
        elif p.is_file():
            yield p
        else:
            raise UsageError(f"{raw}: no such file or folder")


def check_paths(paths: Iterable[str]) -> list[Path]:
    try:
        return list(iter_input_files(paths))
    except UsageError as exc:
        typer.echo(f"bgparse: {exc}", err=True)
        raise typer.Exit(2) from None


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
    files: Annotated[list[str], typer.Argument(help="Match files or folders.")],
    format: Annotated[
        str, typer.Option("--format", "-f", help="text (a summary) or json (JSON Lines).")
    ] = "text",
) -> None:
    """Read match files and print their event records (no rules applied)."""
    if format not in ("text", "json"):
        typer.echo(f"bgparse: --format must be text or json, not {format!r}", err=True)
        raise typer.Exit(2)
    from bgparse.readers import iter_records

    failed = False
    out = sys.stdout
    for path in check_paths(files):
        try:
            data = path.read_bytes()
        except OSError as exc:
            failed = True
            typer.echo(f"{path}: cannot read: {exc.strerror or exc}", err=True)
            continue
        try:
            for rec in iter_records(data, str(path)):
                if any(e.severity is Severity.ERROR for e in rec.errors):
                    failed = True
                if format == "json":
                    out.write(json.dumps(record_to_dict(rec), ensure_ascii=False) + "\n")
                else:
                    _print_record(rec)
        except RecordError as exc:
            failed = True
            if format == "json":
                out.write(json.dumps(_failure_dict(exc), ensure_ascii=False) + "\n")
            else:
                typer.echo(exc.format(), err=True)
    raise typer.Exit(1 if failed else 0)


def _print_record(rec: MatchRecord) -> None:
    length = "money session" if rec.length == 0 else f"{rec.length}-point match"
    names = " vs ".join(n or "(no name)" for n in rec.players)
    n_actions = sum(len(g.actions) for g in rec.games)
    typer.echo(
        f"{rec.path}: {names}, {length}, {len(rec.games)} games, {n_actions} actions "
        f"[{rec.dialect}]"
    )
    for e in rec.errors:
        typer.echo(format_finding(rec.path, e), err=True)


def main() -> None:
    """Console entry point: never a traceback for a user, whatever happens."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("bgparse: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
