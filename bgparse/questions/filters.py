"""Narrowing a dataset's views to one player, period, match length, source or the valid
matches: every statistic and report then sees only those matches.

The values reach DuckDB only as query parameters: they are stored in a one-row temporary
table (`bg_filter`) that the filtered views join, never pasted into SQL text.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass

import duckdb

__all__ = ["FILTERED", "SIDED", "Filters", "player_key"]

#: The tables whose rows belong to a match, and so follow the match filter.
FILTERED = ("matches", "games", "turns", "cube_actions", "findings", "decisions")

#: The views of `pipelines/10_views.sql` whose rows each belong to one side (`me`): under a
#: player filter they keep only the player's side. game_sides: match-equity, gammon-by-score;
#: opening_games: the opening mover; reply_games: the replier; won_games: the game's winner;
#: doubler_offers / taker_offers: the side making / answering an offer; roller_turns: the roller;
#: match_sides: a match from a side (matches, head-to-head); decision_sides: the deciding
#: side's decisions (performance, cube-errors, blunders, the opening plays' errors).
SIDED = (
    "game_sides",
    "opening_games",
    "reply_games",
    "won_games",
    "doubler_offers",
    "taker_offers",
    "roller_turns",
    "match_sides",
    "decision_sides",
)


#: The selection of `Filters.install`, over `m` (a match) and `f` (bg_filter): every filter but
#: the dates, and the dates (which leave undated matches out).
_KEEP = """(f.player_key IS NULL OR f.player_key IN (m.player0_key, m.player1_key))
              AND (f.match_length IS NULL OR m.match_length = f.match_length)
              AND (f.source IS NULL OR m.source = f.source)
              AND (NOT f.valid_only OR m.is_valid)"""
_IN_PERIOD = """(f.since IS NULL OR m.match_date >= f.since)
              AND (f.until IS NULL OR m.match_date <= f.until)"""


def player_key(name: str) -> str:
    """A player's name as the `player*_key` columns hold it (see bgparse.ingest)."""
    return " ".join(unicodedata.normalize("NFC", name).split()).casefold()


@dataclass(frozen=True, slots=True)
class Filters:
    """Which matches a statistic counts. `player` either side (name compared as the
    `player*_key` columns: spacing and case do not matter), and only that player's side in
    the views of SIDED (`install_sides`); `since` and `until` the match
    date, both inclusive (undated matches are left out once either is given); `length` 0
    for money sessions; `source` the dataset partition label; `valid_only` matches without
    an error finding."""

    player: str | None = None
    since: dt.date | None = None
    until: dt.date | None = None
    length: int | None = None
    source: str | None = None
    valid_only: bool = False

    def __bool__(self) -> bool:
        return (
            any(
                v is not None
                for v in (self.player, self.since, self.until, self.length, self.source)
            )
            or self.valid_only
        )

    def describe(self) -> str:
        """The filters in words, for a report's heading ('' when none)."""
        parts = []
        if self.player is not None:
            parts.append(f"player {self.player}")
        if self.since is not None:
            parts.append(f"since {self.since.isoformat()}")
        if self.until is not None:
            parts.append(f"until {self.until.isoformat()}")
        if self.length is not None:
            parts.append("money sessions" if self.length == 0 else f"{self.length}-point matches")
        if self.source is not None:
            parts.append(f"source {self.source}")
        if self.valid_only:
            parts.append("valid matches only")
        return ", ".join(parts)

    def install(self, con: duckdb.DuckDBPyConnection, prefix: str) -> None:
        """Define each table of FILTERED as a view over `{prefix}{table}` keeping the
        selected matches' rows. Run before the pipelines load."""
        con.execute(
            "CREATE TEMP TABLE bg_filter AS SELECT ?::VARCHAR AS player_key, ?::DATE AS since, "
            "?::DATE AS until, ?::INTEGER AS match_length, ?::VARCHAR AS source, "
            "?::BOOLEAN AS valid_only",
            [
                player_key(self.player) if self.player is not None else None,
                self.since,
                self.until,
                self.length,
                self.source,
                self.valid_only,
            ],
        )
        con.execute(
            f"""
            CREATE TEMP TABLE bg_selected AS
            SELECT m.match_uid
            FROM {prefix}matches AS m, bg_filter AS f
            WHERE {_KEEP} AND {_IN_PERIOD}
            """
        )
        for table in FILTERED:
            con.execute(
                f"CREATE VIEW {table} AS SELECT * FROM {prefix}{table} "
                "WHERE match_uid IN (SELECT match_uid FROM bg_selected)"
            )

    def undated_left_out(self, con: duckdb.DuckDBPyConnection, prefix: str) -> tuple[int, int]:
        """(undated matches that --since/--until left out, matches the other filters keep),
        over `{prefix}matches` once `install` has run; (0, 0) without a date filter."""
        if self.since is None and self.until is None:
            return 0, 0
        [(undated, kept)] = con.execute(
            f"""
            SELECT count(*) FILTER (WHERE m.match_date IS NULL), count(*)
            FROM {prefix}matches AS m, bg_filter AS f
            WHERE {_KEEP}
            """
        ).fetchall()
        return int(undated), int(kept)

    def install_sides(self, con: duckdb.DuckDBPyConnection) -> None:
        """With a player, each view of SIDED (rows with `me`, the side whose statistic a row
        is) keeps only that player's side, so statistics counted from a side are the
        player's own. Run after the pipelines load; it wraps whatever views they define."""
        if self.player is None:
            return
        for view in SIDED:
            con.execute(f"ALTER VIEW {view} RENAME TO bg_all_{view}")
            con.execute(
                f"""
                CREATE VIEW {view} AS
                SELECT s.*
                FROM bg_all_{view} AS s
                JOIN matches AS m ON m.match_uid = s.match_uid
                CROSS JOIN bg_filter AS f
                WHERE CASE s.me WHEN 0 THEN m.player0_key ELSE m.player1_key END = f.player_key
                """
            )
