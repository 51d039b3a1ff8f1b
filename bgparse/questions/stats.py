"""The named statistics: each a `bg_*` table macro of `pipelines/`, its parameters and a
description, run with user values passed only as query parameters."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from bgparse.helpers.checks import INT_MAX as _INT_MAX
from bgparse.helpers.checks import OptionError, checked_int, utf8_text
from bgparse.questions.query import run

__all__ = ["STATISTICS", "OptionError", "Param", "Statistic", "get"]


def _player_key(name: str) -> str:
    # The same normalisation as the `player*_key` columns (see bgparse.ingest).
    return " ".join(unicodedata.normalize("NFC", name).split()).casefold()


@dataclass(frozen=True, slots=True)
class Param:
    """One option of a statistic: `--name` on the command line, `arg` in the macro."""

    name: str
    arg: str
    type: type
    default: Any
    help: str
    convert: Callable[[Any], Any] | None = None
    low: int = 0  # the range of an int option
    high: int = _INT_MAX
    pattern: str | None = None  # what a str option must match (fully), and its description
    shape: str = ""

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    def value(self, v: Any) -> Any:
        """`v` as the macro takes it, or OptionError: SQL never sees a value out of range (a
        bucket of 0% divides by zero; a number past INTEGER overflows)."""
        if v is None:
            return None
        if self.type is int and not isinstance(v, bool):
            checked_int(self.option, v, self.low, self.high)
        elif self.type is str:
            if not isinstance(v, str) or not v.strip():
                raise OptionError(f"{self.option} must not be empty")
            utf8_text(self.option, v)
            if self.pattern is not None and re.fullmatch(self.pattern, v.strip()) is None:
                raise OptionError(f"{self.option} must be {self.shape}, not {v!r}")
        elif self.type is float and (
            isinstance(v, bool)
            or not isinstance(v, int | float)
            or not math.isfinite(v)
            or not self.low <= v <= self.high
        ):
            raise OptionError(f"{self.option} must be a number from {self.low} to {self.high}")
        elif self.type is bool and not isinstance(v, bool):
            raise OptionError(f"{self.option} is a yes/no option, not {v!r}")
        return self.convert(v) if self.convert is not None else v


@dataclass(frozen=True, slots=True)
class Statistic:
    name: str
    macro: str
    title: str
    description: str
    needs: str  # "record" (moves, dice, cube, results) or "replay" (positions, pips)
    params: tuple[Param, ...] = ()
    #: Whose side a row counts, which is all that `--player` keeps ("": no sides).
    side: str = ""
    #: The columns a terminal always shows (a rate with its interval); the others while the
    #: screen has room, all of them with --wide, piped or as CSV and JSON.
    columns: tuple[str, ...] = ()

    @property
    def help(self) -> str:
        """The description, with the side that `--player` keeps (for --list and --help)."""
        if not self.side:
            return self.description
        return f"{self.description} Under --player: {self.side}."

    def sql(self) -> str:
        args = ", ".join(f"{p.arg} := ?" for p in self.params)
        return f"SELECT * FROM {self.macro}({args})"

    def arguments(self, values: Mapping[str, Any] | None = None) -> list[Any]:
        """The macro's arguments in order: `values` by parameter name, checked and converted,
        defaults for the rest. Raises OptionError for a value out of range or shape."""
        given = dict(values or {})
        unknown = set(given) - {p.name for p in self.params}
        if unknown:
            raise OptionError(f"{self.name} has no parameter {sorted(unknown)[0]!r}")
        return [p.value(given.get(p.name, p.default)) for p in self.params]

    def run(
        self, con: duckdb.DuckDBPyConnection, values: Mapping[str, Any] | None = None
    ) -> pa.Table:
        """The statistic's rows; `values` by parameter name, defaults for the rest."""
        return run(con, self.sql(), self.arguments(values))


def _high_first(roll: str) -> str:
    roll = roll.strip()
    return max(roll) + min(roll)


_MIN_GAMES = Param("min_games", "min_games", int, 1, "leave out rows with fewer games")
_MIN_N = Param("min_n", "min_n", int, 1, "leave out rows with fewer cases")
_LENGTH = Param("length", "for_length", int, None, "only matches of this length (0: money)")
_ANALYSIS = Param(
    "analysis",
    "for_source",
    str,
    None,
    "whose analysis to read: xg, gnubg-sgf, gnubg-text or engine (default: each match's "
    "first of these it has)",
    pattern="xg|gnubg-sgf|gnubg-text|engine",
    shape="one of xg, gnubg-sgf, gnubg-text, engine",
)

_ALL = (
    Statistic(
        "opening-rolls",
        "bg_opening_roll_win_rate",
        "Opening roll win rate",
        "Per opening roll: games, the opening mover's win rate and gammon rate (Wilson 95% CI).",
        "record",
        (_MIN_GAMES,),
        side="the opening mover's games",
        columns=("roll", "games", "win_rate", "gammon_rate"),
    ),
    Statistic(
        "opening-plays",
        "bg_opening_play_share",
        "Opening play share per roll",
        "Share of each opening play within its roll; --era-years N splits by N-year eras "
        "(undated games left out of a split). Where games are analysed: how many, what the "
        "play lost on average against the best (mean_error, EMG), the best play named most "
        "often, and whose analysis.",
        "record",
        (
            Param("era_years", "era_years", int, 0, "split by eras of this many years (0: no)"),
            _MIN_GAMES,
            _ANALYSIS,
        ),
        side="the opening mover's games",
        columns=("era", "roll", "play", "games", "share"),
    ),
    Statistic(
        "opening-outcomes",
        "bg_opening_play_outcomes",
        "Opening play outcomes",
        "Per opening roll and play: the mover's win rate (CI), points per game, gammon rate.",
        "record",
        (_MIN_GAMES,),
        side="the opening mover's games",
        columns=("roll", "play", "games", "win_rate", "points_per_game"),
    ),
    Statistic(
        "reply-plays",
        "bg_reply_play_share",
        "Reply play share",
        "Per opening (roll, play) and reply roll: the share of each reply play (CI); where "
        "analysed, what it lost on average against the best (mean_error, EMG) and the best.",
        "record",
        (
            Param(
                "roll",
                "for_roll",
                str,
                None,
                "only this opening roll, e.g. 31",
                convert=_high_first,
                pattern="[1-6][1-6]",
                shape="a roll of two dice from 1 to 6, like 31",
            ),
            Param("play", "for_play", str, None, "only this opening play, e.g. '8/5 6/5'"),
            _MIN_GAMES,
            _ANALYSIS,
        ),
        side="the replier's games",
        columns=("opening_roll", "opening_play", "reply_roll", "reply_play", "games", "share"),
    ),
    Statistic(
        "first-mover",
        "bg_first_mover_edge",
        "First-mover edge",
        "Per match length: the opening mover's game win rate, and how often the winner of "
        "game 1 won the match (CI). The 'all' row's match columns leave out 1-point matches "
        "(game 1 decides them); `note` says so.",
        "record",
        side="the opening mover's games; the match columns, game 1's winner's matches",
        columns=("length", "games", "mover_win_rate", "matches", "game1_match_rate"),
    ),
    Statistic(
        "match-equity",
        "bg_empirical_met",
        "Empirical match equity",
        "Match winning chances by away-away score and phase (pre-crawford, crawford, "
        "post-crawford), from each side, with CI, beside the published Kazaross-XG2 table. "
        "Equal-score rows are 0.5 by construction: n counts games, no interval (`note`).",
        "record",
        (_MIN_N, Param("max_away", "max_away", int, 25, "largest away score shown", low=1)),
        side="the player's own side (nothing mirrored)",
        columns=("away_me", "away_opp", "phase", "n", "mwc", "published"),
    ),
    Statistic(
        "cube-rates",
        "bg_cube_rates_by_score",
        "Cube rates by score",
        "By away-away score and kind of offer (initial double, redouble, beaver, raccoon): "
        "offers, take, drop and beaver rates of the answered ones, and the offering side's win "
        "rate once it was accepted (CI); the 'all' row counts every offer. A beaver is neither a "
        "double nor a take.",
        "record",
        (_LENGTH, _MIN_N),
        side="the offering side's offers",
        columns=("away_doubler", "away_taker", "kind", "offers", "take_rate", "drop_rate"),
    ),
    Statistic(
        "cube-timing",
        "bg_cube_timing",
        "Cube timing",
        "When the first double of a game comes (the doubler's move number), as a share of the "
        "games where a double was allowed (not the Crawford game, not a 1-point match, cube "
        "in use), with the running share of those games with the cube turned.",
        "record",
        (_LENGTH,),
        side="the first doubles the player made, over every allowed game of their matches",
        columns=("move_no", "first_doubles", "games", "share", "cumulative_share"),
    ),
    Statistic(
        "take-outcomes",
        "bg_take_outcomes",
        "Take outcomes and recubes",
        "Per cube level offered, over accepted offers (taken or beavered; beavers at their own "
        "level): the offering side's win rate, the taker's recube rate (a later double, not a "
        "beaver), gammons won by each side, average final cube.",
        "record",
        (_MIN_N,),
        side="the taker's accepted offers",
        columns=("cube_offered", "accepted", "doubler_win_rate", "recube_rate"),
    ),
    Statistic(
        "gammon-by-cube",
        "bg_gammon_rate_by_cube",
        "Gammon rate by final cube",
        "Per final cube value: share of games ended by a drop; gammon and backgammon rates of "
        "the rest (CI).",
        "record",
        side="the games the player won",
        columns=("final_cube", "games", "drop_rate", "gammon_rate"),
    ),
    Statistic(
        "gammon-by-score",
        "bg_gammon_rate_by_score",
        "Gammon rate by score",
        "From each side, by away-away score and phase: how often the player won and lost a "
        "gammon, and the per-game gammon rate (CI). The money row and equal-score rows are "
        "mirrored: per-game rate only (`note`).",
        "record",
        (_MIN_N,),
        side="the player's own side (nothing mirrored)",
        columns=("away_me", "away_opp", "phase", "games", "gammon_rate"),
    ),
    Statistic(
        "race-takes",
        "bg_race_take_outcomes",
        "Race take outcomes by pip deficit",
        "Doubles in pure races (not beavers) by the taker's deficit (% of the doubler's pip "
        "count): take rate, beavers, drops, and the taker's win rate once it took or beavered "
        "(CI).",
        "replay",
        (
            Param(
                "bucket_pct",
                "bucket_pct",
                int,
                5,
                "width of a deficit bucket, in %",
                low=1,
                high=100,
            ),
            _MIN_N,
        ),
        side="the taker's race doubles",
        columns=("deficit_pct", "deficit_pct_to", "doubles", "take_rate", "taker_win_rate"),
    ),
    Statistic(
        "dice",
        "bg_dice_distribution",
        "Dice distribution",
        "The 21 rolls against their expected frequencies with each χ² contribution; the "
        "'total' row has χ² (20 degrees of freedom) and its p-value.",
        "record",
        (
            Param(
                "include_opening",
                "include_opening",
                bool,
                False,
                "count opening rolls too (no doublets there)",
            ),
        ),
        side="the player's own rolls",
        columns=("roll", "n", "freq", "expected_freq", "chi2", "p_value"),
    ),
    Statistic(
        "matches",
        "bg_player_matches",
        "Matches",
        "One row per match and side: date, player, opponent, length, the final score from "
        "that side, the result (won, lost, unfinished; money for a session), games, error and "
        "warning findings, event and file.",
        "record",
        side="the player's side: their matches, one row each",
    ),
    Statistic(
        "head-to-head",
        "bg_head_to_head",
        "Head to head",
        "Per player and opponent: matches, wins and losses (win rate of the decided matches, "
        "CI), undecided (unfinished or money), points won and lost (final scores summed), "
        "first and last date.",
        "record",
        side="the player's side: their record against each opponent",
    ),
    Statistic(
        "findings",
        "bg_findings_summary",
        "Findings summary",
        "Validation findings by severity and code: how many in the stored matches and whole "
        "files, how many in duplicate copies (counted apart), in how many files and matches.",
        "record",
        columns=("severity", "code", "findings", "files", "matches", "description"),
    ),
    Statistic(
        "player",
        "bg_player_profile",
        "Player profile",
        "Per player (or --name): matches and games won (CI), gammons for and against, doubles "
        "offered per game, and doubles answered: takes (rate, CI), beavers, drops. Beavers and "
        "raccoons are not doubles.",
        "record",
        (
            Param("name", "for_player", str, None, "only this player", convert=_player_key),
            Param("min_matches", "min_matches", int, 1, "leave out players with fewer matches"),
        ),
        columns=("player", "matches", "match_win_rate", "games", "game_win_rate"),
    ),
)

_MIN_DECISIONS = Param(
    "min_decisions", "min_decisions", int, 1, "leave out rows with fewer counted decisions"
)

_ANALYSED = (
    Statistic(
        "performance",
        "bg_performance",
        "Performance",
        "Per player, from the stored or engine analysis (`analysis` says whose): checker and "
        "cube decisions counted as GNU Backgammon counts them (unforced plays; close or actual "
        "cube decisions and answers), the equity they lost (EMG, cube 1), the luck of the "
        "player's rolls, GNU's error rate (mEMG a counted decision) and the Performance "
        "Rating (pr: 500 times the error a counted decision).",
        "replay",
        (_ANALYSIS, _MIN_DECISIONS),
        side="the player's own decisions",
        columns=("player", "matches", "checker_decisions", "error_rate", "pr", "luck"),
    ),
    Statistic(
        "match-performance",
        "bg_match_performance",
        "Performance by match",
        "Per player and match (date, opponent, length, file): performance's columns, each "
        "match's own.",
        "replay",
        (_ANALYSIS, _MIN_DECISIONS),
        side="the player's own decisions",
        columns=("date", "player", "opponent", "checker_decisions", "error_rate", "pr"),
    ),
    Statistic(
        "cube-errors",
        "bg_cube_errors",
        "Cube errors by score",
        "By away-away score (the decider's first; money: empty) and GNU Backgammon's kind of "
        "cube error (missed double below or above the cash point, wrong double below the "
        "double point or above too good, wrong take, wrong pass; 'all'): the counted cube "
        "decisions there, the errors of that kind, their cost (EMG) and the cost a decision "
        "(mEMG).",
        "replay",
        (_ANALYSIS, _LENGTH, _MIN_N),
        side="the player's own cube decisions and answers",
        columns=("away_me", "away_opp", "error_type", "decisions", "errors", "cost"),
    ),
    Statistic(
        "blunders",
        "bg_blunders",
        "Worst decisions",
        "The decisions that lost the most equity (EMG, cube 1), worst first: who, where "
        "(Position and Match ID; `show` is the argument of `bgparse show` that draws it from "
        "its file), what was done and what was best.",
        "replay",
        (
            _ANALYSIS,
            Param(
                "min_error",
                "min_error",
                float,
                0.1,
                "leave out decisions that lost less (EMG)",
                high=100,
            ),
            Param("top", "top", int, 50, "at most this many", low=1),
        ),
        side="the player's own decisions",
        columns=("player", "game", "move_no", "kind", "made", "best", "error", "show"),
    ),
)

#: Every statistic by its command-line name, in the order `bgparse stats --list` shows them.
STATISTICS: dict[str, Statistic] = {s.name: s for s in (*_ALL, *_ANALYSED)}


def get(name: str) -> Statistic:
    try:
        return STATISTICS[name]
    except KeyError:
        raise KeyError(f"no statistic {name!r}; 'bgparse stats --list' names them") from None
