"""The filter options every statistic and report takes (--player, --since, --until, --length,
--source, --valid-only), as typer parameters and back as a `Filters`."""

from __future__ import annotations

import datetime as dt
import inspect
from typing import Annotated, Any

import typer

from bgparse.helpers.checks import checked_int, utf8_text
from bgparse.questions.filters import Filters

__all__ = ["FILTER_NAMES", "filter_parameters", "filters_from"]

_DATE = ["%Y-%m-%d"]

_OPTIONS: dict[str, Any] = {
    "player": Annotated[
        str | None,
        typer.Option("--player", metavar="NAME", help="only matches of this player (either side)"),
    ],
    "since": Annotated[
        dt.datetime | None,
        typer.Option(
            "--since", formats=_DATE, metavar="DATE", help="only matches played on or after DATE"
        ),
    ],
    "until": Annotated[
        dt.datetime | None,
        typer.Option(
            "--until", formats=_DATE, metavar="DATE", help="only matches played on or before DATE"
        ),
    ],
    "length": Annotated[
        int | None,
        typer.Option("--length", help="only matches of this length (0: money)"),
    ],
    "source": Annotated[
        str | None,
        typer.Option("--source", metavar="LABEL", help="only this source (partition label)"),
    ],
    "valid_only": Annotated[
        bool, typer.Option("--valid-only", help="only matches without error findings")
    ],
}

#: The parameter names filter_parameters adds to a command.
FILTER_NAMES = tuple(_OPTIONS)


def filter_parameters() -> list[inspect.Parameter]:
    """Keyword parameters for a command built with an explicit signature."""
    kw = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter(name, kw, default=False if name == "valid_only" else None, annotation=a)
        for name, a in _OPTIONS.items()
    ]


def filters_from(values: dict[str, Any]) -> Filters:
    """Take the filter options out of a command's `values` (removing them)."""
    since = values.pop("since", None)
    until = values.pop("until", None)
    # Checked here, before any SQL: the statistics' own option check words it so (typer's
    # min= would word it otherwise), and DuckDB takes a length as an INTEGER, names as UTF-8.
    length = values.pop("length", None)
    if length is not None:
        checked_int("--length", length)
    player = values.pop("player", None)
    source = values.pop("source", None)
    for option, text in (("--player", player), ("--source", source)):
        if text is not None:
            utf8_text(option, text)
    return Filters(
        player=player,
        since=since.date() if since is not None else None,
        until=until.date() if until is not None else None,
        length=length,
        source=source,
        valid_only=bool(values.pop("valid_only", False)),
    )
