"""What a filter left out that its user may not expect, in one line each: a `--player` name
that matches nobody (with the stored names near it), and the undated matches that `--since`
or `--until` leave out. `bgparse stats` and `bgparse report` print them on stderr; the report
also shows them on its page. They are notes: the result stands (exit 0)."""

from __future__ import annotations

import difflib
import unicodedata

import duckdb

from bgparse.questions.filters import Filters, player_key
from bgparse.rules.wording import plural

__all__ = ["filter_notes", "folded", "name_note", "near_names"]

#: How many near names a note offers, and how close (difflib's ratio) a name must be.
_NEAR = 5
_CUTOFF = 0.75


def folded(name: str) -> str:
    """`name` without accents, case, spaces or punctuation: 'Kévin  UNGER' -> 'kevinunger'."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c)).casefold()


def near_names(wanted: str, names: list[str]) -> list[str]:
    """The names of `names` a user typing `wanted` may have meant, closest first: the same
    letters but for accents, case, spacing and punctuation; then a name holding the typed
    letters (a first or last name alone); then a close spelling (difflib)."""
    want = folded(wanted)
    by_fold: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        by_fold.setdefault(folded(name), []).append(name)
    picked: list[str] = []
    same = [f for f in by_fold if f == want]
    within = sorted(f for f in by_fold if len(want) >= 3 and want in f and f != want)
    close = difflib.get_close_matches(want, list(by_fold), n=_NEAR, cutoff=_CUTOFF)
    for f in [*same, *within, *close]:
        for name in by_fold[f]:
            if name not in picked:
                picked.append(name)
    return picked[:_NEAR]


def name_note(
    con: duckdb.DuckDBPyConnection, name: str, option: str, prefix: str = ""
) -> str | None:
    """A note when `name` (given as `option`) is no stored player of `{prefix}matches`, with
    the names near it; None when it is one (in any case and spacing)."""
    key = player_key(name)
    rows = con.execute(
        f"SELECT player0 AS name, player0_key AS key FROM {prefix}matches "
        f"UNION SELECT player1, player1_key FROM {prefix}matches"
    ).fetchall()
    if any(k == key for _, k in rows):
        return None
    near = near_names(name, [n for n, _ in rows if n is not None])
    said = f'{option} "{name}" matches no player of the dataset'
    if near:
        return f"{said}; near names: " + ", ".join(f'"{n}"' for n in near)
    return f"{said} ('bgparse stats player' lists them)"


def _player_note(con: duckdb.DuckDBPyConnection, filters: Filters, prefix: str) -> str | None:
    if filters.player is None:
        return None
    return name_note(con, filters.player, "--player", prefix)


def _undated_note(con: duckdb.DuckDBPyConnection, filters: Filters, prefix: str) -> str | None:
    undated, kept = filters.undated_left_out(con, prefix)
    if not undated:
        return None
    options = "/".join(
        o for o, v in (("--since", filters.since), ("--until", filters.until)) if v is not None
    )
    left = plural(undated, "undated match", "undated matches")
    return f"{options} left out {left} (of {plural(kept, 'match')})"


def filter_notes(con: duckdb.DuckDBPyConnection, filters: Filters | None) -> list[str]:
    """The notes for `filters` over the dataset behind `con` (opened by
    `bgparse.questions.query.connect` with those filters), each one line without a prefix."""
    if not filters:
        return []
    prefix = "bg_all_"
    notes = [_player_note(con, filters, prefix), _undated_note(con, filters, prefix)]
    return [n for n in notes if n is not None]
