"""The analysis report: one self-contained HTML page with a chart and a table per statistic,
for players and analysts. Tables show each statistic's columns as the query returns them,
so a statistic whose definition changes still reports in full; a chart is drawn where its
columns are there."""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import duckdb
from markupsafe import Markup

from bgparse.questions.filter_notes import filter_notes
from bgparse.questions.filters import Filters
from bgparse.questions.query import cell_text, run
from bgparse.questions.stats import STATISTICS
from bgparse.render import charts
from bgparse.render.html import environment
from bgparse.version import __version__

__all__ = ["ALL_ROWS", "FEW", "SECTIONS", "SHOWN", "Section", "analysis_report", "command_for"]

Rows = list[dict[str, Any]]
_CI = "Bars are Wilson 95% confidence intervals: where the true rate lies, 19 times in 20."


#: A heatmap cell with fewer cases than this is grey, not painted as a rate.
FEW = 5

#: A table shows its first SHOWN rows, the rest up to ALL_ROWS in a folded part; past that,
#: the page names the command that lists them (a page for 10,000 matches stays small).
SHOWN = 200
ALL_ROWS = 1000


def _answered(row: dict[str, Any]) -> int:
    return sum(int(row.get(c) or 0) for c in ("takes", "drops", "beavers"))


def _where(rows: Rows, column: str, value: Any) -> Rows:
    """The rows whose `column` is `value`, or all rows where there is no such column."""
    if rows and column in rows[0]:
        return [r for r in rows if r[column] == value]
    return rows


@dataclass(frozen=True, slots=True)
class Section:
    """One statistic of the report: its name in STATISTICS, the column that counts its
    sample, a chart (None: table only) and what the chart shows."""

    statistic: str
    sample: str | None
    chart: Callable[[Rows], str | None] | None
    caption: str
    #: Only in a report of one player (--player): a listing that is every match otherwise.
    player_only: bool = False
    #: The statistic's options (by parameter name), its title on the page, and the page's
    #: anchor where one statistic is shown twice.
    params: tuple[tuple[str, Any], ...] = ()
    title: str = ""
    anchor: str = ""
    #: The heading the section sits under (the players' analysis), "" for none.
    group: str = ""
    #: Boards drawn for its first rows (blunders: each row's position).
    boards: int = 0


SECTIONS: tuple[Section, ...] = (
    Section(
        "opening-rolls",
        "games",
        lambda rows: charts.intervals(
            rows,
            ["roll"],
            "win_rate",
            "win_lo",
            "win_hi",
            xlabel="opening mover's game win rate",
            reference=0.5,
        ),
        "Win rate of the player who moved first, by opening roll. " + _CI,
    ),
    Section(
        "opening-plays",
        "games",
        lambda rows: charts.intervals(
            sorted(rows, key=lambda r: -(r.get("games") or 0)),
            ["roll", "play"],
            "share",
            "share_lo",
            "share_hi",
            xlabel="share of the roll's openings",
        ),
        "How often each play was chosen for its roll (the 30 most played). " + _CI,
    ),
    Section(
        "opening-outcomes",
        "games",
        lambda rows: charts.intervals(
            sorted(rows, key=lambda r: -(r.get("games") or 0)),
            ["roll", "play"],
            "win_rate",
            "win_lo",
            "win_hi",
            xlabel="opening mover's game win rate",
            reference=0.5,
        ),
        "Game win rate after each opening play (the 30 most played). " + _CI,
    ),
    Section(
        "first-mover",
        "games",
        lambda rows: charts.intervals(
            rows,
            ["length"],
            "mover_win_rate",
            "mover_win_lo",
            "mover_win_hi",
            xlabel="opening mover's game win rate",
            reference=0.5,
        ),
        "The first mover's edge by match length ('all' pools them). " + _CI,
    ),
    Section(
        "cube-rates",
        "offers",
        lambda rows: charts.heatmap(
            _where(rows, "kind", "initial"),
            "away_taker",
            "away_doubler",
            "take_rate",
            label="take rate",
            count=_answered,
            few=FEW,
            few_label=f"fewer than {FEW} answered doubles",
        ),
        "Take rate of initial doubles by away-away score (doubler's away score down, "
        f"taker's across); blank cells had no double, grey ones fewer than {FEW} answered: "
        "too few to paint a rate (one double would paint 0% or 100%; the table has them).",
    ),
    Section(
        "match-equity",
        "n",
        lambda rows: charts.heatmap(
            _where(rows, "phase", "pre-crawford"),
            "away_opp",
            "away_me",
            "diff",
            label="empirical minus published",
            diverging=True,
            count=lambda r: int(r["n"] or 0),
            few=FEW,
            few_label=f"fewer than {FEW} games",
        ),
        "Empirical match winning chances minus the published Kazaross-XG2 table, before "
        "Crawford (blue: the side won more often than the table says). Small samples "
        f"swing widely: grey cells had fewer than {FEW} games; see each cell's interval in "
        "the table.",
    ),
    Section(
        "cube-timing",
        "first_doubles",
        lambda rows: charts.bars(
            rows,
            "move_no",
            [("share", "share of games")],
            ylabel="share of games",
            line=("cumulative_share", "cube turned by then"),
        ),
        "The doubler's move number at a game's first double, as a share of the games where "
        "a double was allowed (not the Crawford game, not a 1-point match), and the running "
        "share of those games with the cube turned.",
    ),
    Section(
        "take-outcomes",
        "accepted",
        lambda rows: charts.intervals(
            rows,
            ["cube_offered"],
            "doubler_win_rate",
            "doubler_win_lo",
            "doubler_win_hi",
            xlabel="offering side's win rate once accepted",
            reference=0.5,
        ),
        "After an offer was taken or beavered, by the cube value offered (a beaver's at its "
        "own level): how often the offering side won. " + _CI,
    ),
    Section(
        "gammon-by-cube",
        "games",
        lambda rows: charts.intervals(
            rows,
            ["final_cube"],
            "gammon_rate",
            "gammon_lo",
            "gammon_hi",
            xlabel="gammon rate of games played out",
        ),
        "Gammon rate by the game's final cube value (dropped games left out). " + _CI,
    ),
    Section(
        "gammon-by-score",
        "games",
        lambda rows: charts.heatmap(
            _where(rows, "phase", "pre-crawford"),
            "away_opp",
            "away_me",
            "gammon_rate",
            label="gammons per game",
            count=lambda r: int(r["games"] or 0),
            few=FEW,
            few_label=f"fewer than {FEW} games",
        ),
        "How often a game ended in a gammon (either side), by away-away score before "
        f"Crawford (grey: fewer than {FEW} games); the table splits them into won and lost, "
        "except at equal scores, where each game is counted from both sides.",
    ),
    Section(
        "race-takes",
        "doubles",
        lambda rows: charts.intervals(
            rows,
            ["deficit_pct"],
            "take_rate",
            "take_lo",
            "take_hi",
            xlabel="take rate (bucket: taker's deficit, % of the doubler's pips)",
        ),
        "Doubles in pure races, by the taker's pip deficit. " + _CI,
    ),
    Section(
        "dice",
        "n",
        lambda rows: charts.bars(
            [r for r in rows if r.get("roll") != "total"],
            "roll",
            [("freq", "observed"), ("expected_freq", "expected")],
            ylabel="share of rolls",
        ),
        "Each roll's share of all rolls beside its expected share (1/36, doubles; 2/36 "
        "otherwise). The total row's chi-square (20 degrees of freedom) and p-value say "
        "whether the dice look fair: a p-value under 0.01 would be suspicious.",
    ),
    Section(
        "match-performance",
        None,
        lambda rows: charts.timeline(rows, "pr", "player", ylabel="PR (lower is better)"),
        "Each player's Performance Rating match by match (500 times the equity lost a counted "
        "decision; lower is better), from each match's analysis ('analysis' says whose: a "
        "program's stored analysis first, else bgparse's engine).",
        title="Performance Rating by match",
        group="Players",
    ),
    Section(
        "performance",
        None,
        lambda rows: charts.bars(
            sorted(rows, key=lambda r: -(r.get("checker_decisions") or 0)),
            "player",
            [("pr", "PR")],
            ylabel="PR (lower is better)",
        ),
        "Per player over all analysed matches: decisions counted as GNU Backgammon counts "
        "them, equity lost (EMG), luck, GNU's error rate (mEMG a decision) and PR.",
        group="Players",
    ),
    Section(
        "cube-errors",
        "decisions",
        lambda rows: charts.heatmap(
            _where(rows, "error_type", "all"),
            "away_opp",
            "away_me",
            "cost_rate",
            label="cube error, mEMG a decision",
            count=lambda r: int(r["decisions"] or 0),
            few=FEW,
            few_label=f"fewer than {FEW} cube decisions",
        ),
        "Equity lost in cube decisions and answers a counted decision (mEMG), by the "
        "decider's away score (down) and the opponent's (across); the table splits it by "
        f"kind of error. Grey: fewer than {FEW} decisions; money play is in the table only.",
        group="Players",
    ),
    Section(
        "blunders",
        None,
        None,
        "The decisions that lost the most equity, worst first, each drawn as its board "
        "(the first 6) with what was done and what was best.",
        group="Players",
        boards=6,
    ),
    Section("player", "matches", None, "Per player: matches and games won, gammons, cube use."),
    Section(
        "head-to-head",
        "matches",
        None,
        "The player's record against each opponent.",
        player_only=True,
    ),
    Section(
        "matches",
        "games",
        None,
        "The player's matches: opponent, final score, result and findings.",
        player_only=True,
    ),
    Section(
        "findings",
        "findings",
        lambda rows: charts.bars(rows, "code", [("findings", "findings")], ylabel="findings"),
        "What the validation found in the imported matches, by code.",
    ),
)


@dataclass(frozen=True, slots=True)
class _Rendered:
    name: str
    title: str
    description: str
    caption: str
    chart: Markup | None
    columns: list[str]
    rows: list[list[str]]
    more_rows: list[list[str]]  # past the first SHOWN, up to ALL_ROWS: folded
    command: str  # what lists every row
    numeric: list[bool]
    total_rows: int
    sample: int | None
    sample_name: str | None
    verdict: str | None
    group: str = ""
    boards: tuple[tuple[Markup, str], ...] = ()
    #: `bgparse stats` and its arguments that give the table (the name, and any option).
    stats_args: str = ""


def _boards(rows: Rows, n: int) -> tuple[tuple[Markup, str], ...]:
    """The first `n` rows' positions drawn (rows with `position_id`, `match_id`), each with
    a caption: who, what was done, what was best, the equity lost."""
    from bgparse.render.show import ShowError, from_ids

    out: list[tuple[Markup, str]] = []
    for r in rows[:n]:
        if not r.get("position_id"):
            continue
        try:
            svg = from_ids(r["position_id"], r.get("match_id") or None).svg()
        except ShowError:
            continue
        caption = (
            f"{r.get('player')}, game {r.get('game')}: {r.get('made')} "
            f"(best {r.get('best')}), {float(r.get('error') or 0):.3f} lost"
        )
        out.append((Markup(svg), caption))
    return tuple(out)


def _dice_verdict(rows: Rows) -> str | None:
    total = next((r for r in rows if r.get("roll") == "total"), None)
    if total is None or total.get("p_value") is None or total.get("chi2") is None:
        return None
    p = float(total["p_value"])
    fair = "consistent with fair dice" if p >= 0.01 else "unlikely with fair dice"
    return f"χ² = {float(total['chi2']):.2f}, p = {p:.3f}: {fair} (at the 1% level)."


def command_for(
    name: str, filters: Filters | None, params: tuple[tuple[str, Any], ...] = ()
) -> str:
    """The command that lists statistic `name` under `filters` (and its `params`), every row,
    as CSV."""
    words = ["bgparse", "stats", name]
    for key, value in params:
        option = "--" + key.replace("_", "-")
        words += [option] if value is True else [option, str(value)]
    if filters:
        for option, value in (
            ("--player", filters.player),
            ("--since", filters.since.isoformat() if filters.since else None),
            ("--until", filters.until.isoformat() if filters.until else None),
            ("--length", None if filters.length is None else str(filters.length)),
            ("--source", filters.source),
        ):
            if value is not None:
                words += [option, value]
        if filters.valid_only:
            words.append("--valid-only")
    return shlex.join([*words, "--format", "csv"])


def _section(
    con: duckdb.DuckDBPyConnection, section: Section, filters: Filters | None = None
) -> _Rendered:
    stat = STATISTICS[section.statistic]
    table = stat.run(con, dict(section.params))
    rows: Rows = table.to_pylist()
    chart = section.chart(rows) if section.chart is not None and rows else None
    import pyarrow as pa

    numeric = [
        pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
        for t in table.schema.types
    ]
    sample = None
    if section.sample and rows and section.sample in rows[0]:
        # Not the summary rows (dice's total, first-mover's and cube-rates' all): no count twice.
        counted = [
            r
            for r in rows
            if r.get("roll") != "total"
            and r.get("length") != "all"
            and r.get("kind") != "all"
            and r.get("error_type") in (None, "all")
        ]
        sample = sum(int(r[section.sample] or 0) for r in counted)
    return _Rendered(
        name=section.anchor or stat.name,
        title=section.title or stat.title,
        description=stat.description,
        caption=section.caption,
        chart=Markup(chart) if chart else None,
        columns=list(table.column_names),
        rows=[[cell_text(v) for v in r.values()] for r in rows[:SHOWN]],
        more_rows=[[cell_text(v) for v in r.values()] for r in rows[SHOWN:ALL_ROWS]],
        command=command_for(stat.name, filters, section.params),
        numeric=numeric,
        total_rows=len(rows),
        sample=sample,
        sample_name=section.sample.replace("_", " ") if section.sample else None,
        verdict=_dice_verdict(rows) if section.statistic == "dice" else None,
        group=section.group,
        boards=_boards(rows, section.boards) if section.boards else (),
        stats_args=" ".join(
            [stat.name]
            + [
                "--" + k.replace("_", "-") + ("" if v is True else f" {v}")
                for k, v in section.params
            ]
        ),
    )


def analysis_report(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, *, title: str | None = None
) -> str:
    """The page for the dataset behind `con` (already narrowed by `filters`, which the page
    names)."""
    [totals] = run(
        con,
        "SELECT count(*) AS matches, coalesce(sum(n_games), 0) AS games, "
        "count(*) FILTER (WHERE is_valid) AS valid, min(match_date) AS first, "
        "max(match_date) AS last FROM matches",
    ).to_pylist()
    one_player = filters is not None and filters.player is not None
    sections = [
        _section(con, s, filters)
        for s in SECTIONS
        if s.statistic in STATISTICS and (one_player or not s.player_only)
    ]
    return (
        environment()
        .get_template("analysis.html.j2")
        .render(
            title=title or "bgparse analysis report",
            filters=filters.describe() if filters else "",
            notes=filter_notes(con, filters),
            matches=totals["matches"],
            games=totals["games"],
            valid=totals["valid"],
            first=totals["first"],
            last=totals["last"],
            sections=sections,
            version=__version__,
            generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )
    )
