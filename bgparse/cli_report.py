"""The picture commands of the CLI: `show` (a board) and `report` (the analysis report), added
to the app by `register`. A thin layer: library errors become one-line messages here."""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]


class BoardFormat(enum.StrEnum):
    text = "text"
    svg = "svg"


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"bgparse: {message}", err=True)
    return typer.Exit(code)


def _write(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _fail(f"{out}: cannot write: {exc.strerror or exc}") from None


def show_command(
    what: Annotated[
        str,
        typer.Argument(
            help="a GNU Position ID (optionally :MatchID), an XGID, or FILE:GAME:MOVE "
            "(MOVE counts the game's rolls and cube actions from 1)",
            metavar="WHAT",
        ),
    ],
    fmt: Annotated[
        BoardFormat, typer.Option("--format", "-f", help="text (a diagram) or svg")
    ] = BoardFormat.text,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="write to this file, not stdout")
    ] = None,
) -> None:
    """Draw a board: a position by its ID, or the board before a turn of a record with the
    recorded play (and, for an illegal play, the legal plays)."""
    from bgparse.render.show import ShowError, resolve

    try:
        shown = resolve(what)
    except ShowError as exc:
        raise _fail(str(exc)) from None
    _write(shown.svg() if fmt is BoardFormat.svg else shown.text(), out)


def register(app: typer.Typer) -> None:
    """Add `show` and `report` to the bgparse command-line app."""
    app.command("show")(show_command)
