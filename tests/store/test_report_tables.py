"""The analysis report shows every row and every away score (issue 31): a table past its first
SHOWN rows keeps the rest in a folded part up to ALL_ROWS and names the command that lists
them all beyond; a heatmap draws every away score that has data (the cube-rates one stopped
at 15-away), and a cell of too few cases is grey, not a full 0% or 100%, as its legend says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.filters import Filters
from bgparse.questions.query import connect
from bgparse.questions.stats import STATISTICS
from bgparse.render import analysis, charts

from .conftest import write_inputs
from .factories import double, drop, fake_verify, game, match, roll, take

runner = CliRunner()
PLAYERS = 130  # 260 player rows: past SHOWN


def _long_match(k: int) -> dict[str, object]:
    """A 25-point match. k = 0: Bob doubles in every game and Alice drops, so Bob's away
    score runs from 25 down to 2 against Alice's 25; the last game (Bob 1-away: Crawford)
    Alice wins, and the record stops at 24-1. Otherwise: that first game only, with a reply
    of its own (four more matches, not copies), so 25-away/25-away has 5 doubles and every
    other score 1."""
    games = [
        game(roll(0, "31", "8/5 6/5"), roll(1, ["42", "53", "64", "62", "51"][k], "13/9"),
             double(1), drop(0), winner=1, end="drop")
    ]  # fmt: skip
    if k == 0:
        games += [
            game(roll(0, "31", "8/5 6/5"), double(1), drop(0), winner=1, end="drop")
            for _ in range(23)
        ]
        games.append(game(roll(0, "31", "8/5 6/5"), roll(1, "42", "8/4 6/4"), winner=0))
    return match(*games, players=("Alice", "Bob"), length=25, date=f"2020-01-{k + 1:02d}")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("tables")
    specs = {
        f"p{i:03d}.json": match(
            game(roll(0, "31", "8/5 6/5"), double(1), take(0), winner=0),
            players=(f"Player {i:03d}", f"Rival {i:03d}"),
            length=3,
        )
        for i in range(PLAYERS)
    }
    specs |= {f"long{k}.json": _long_match(k) for k in range(5)}
    run_import([write_inputs(base / "in", specs)], base / "data", ImportOptions(workers=1),
               verify=fake_verify)  # fmt: skip
    return base / "data"


def page(data: Path, tmp_path: Path, *args: str) -> str:
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", "--data", str(data), "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def section(html: str, name: str) -> str:
    start = html.index(f'<section class="statistic" id="{name}">')
    return html[start : html.index("</section>", start)]


def test_a_long_table_keeps_every_row(data: Path, tmp_path: Path) -> None:
    players = section(page(data, tmp_path), "player")
    rows = 2 * PLAYERS + 2  # and Alice, Bob
    assert f"Table ({rows} rows, first {analysis.SHOWN} shown)" in players
    first, _, rest = players.partition('<details class="more-rows">')
    assert first.count("<tr><td") == analysis.SHOWN
    assert f"<summary>Rows {analysis.SHOWN + 1} to {rows}</summary>" in rest
    assert rest.count("<tr><td") == rows - analysis.SHOWN
    assert "more rows:" not in players  # all of them are on the page


def test_past_all_rows_the_page_names_the_command(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysis, "ALL_ROWS", 250)
    players = section(page(data, tmp_path, "--length", "3", "--until", "2030-01-01"), "player")
    # 260 players of 3-point matches: 200 shown, 50 folded, 10 named by the command.
    assert players.count("<tr><td") == 250
    assert (
        '<p class="note">10 more rows: <span class="mono">bgparse stats player --until '
        "2030-01-01 --length 3 --format csv</span></p>"
    ) in players


def test_the_command_quotes_what_the_shell_would_split() -> None:
    chosen = Filters(player="Kévin O'Neil", valid_only=True, source="club")
    assert analysis.command_for("matches", chosen) == (
        "bgparse stats matches --player 'Kévin O'\"'\"'Neil' --source club --valid-only "
        "--format csv"
    )
    assert analysis.command_for("dice", None) == "bgparse stats dice --format csv"


def test_the_cube_heatmap_draws_every_away_score(data: Path, tmp_path: Path) -> None:
    cube = section(page(data, tmp_path), "cube-rates")
    svg = cube[cube.index("<svg") : cube.index("</svg>")]
    ticks = set(re.findall(r">\s*(\d+)\s*</text>", svg))
    assert {"1", "15", "20", "25"} <= ticks
    # One double at every score but 25-away/25-away: grey, as the legend and caption say.
    assert f"fewer than {analysis.FEW} answered doubles" in svg
    assert f"grey ones fewer than {analysis.FEW} answered" in cube
    rows = [r for r in STATISTICS["cube-rates"].run(connect(data)).to_pylist()
            if r["kind"] == "initial" and r["away_taker"] == 25]  # fmt: skip
    cells, thin = charts.heat_cells(
        rows, "away_taker", "away_doubler", "take_rate", count=analysis._answered, few=5
    )
    assert cells == {(25, 25): 0.0}  # five doubles, all dropped
    assert thin == {(away, 25) for away in range(2, 25)}


def test_heat_cells_paint_only_enough_cases() -> None:
    rows = [
        {"a": 25, "b": 25, "rate": 1.0, "n": 5},
        {"a": 24, "b": 25, "rate": 0.0, "n": 1},
        {"a": 3, "b": 40, "rate": 0.5, "n": 9},
        {"a": None, "b": None, "rate": 0.5, "n": 9},  # money: no away score
    ]
    cells, thin = charts.heat_cells(rows, "a", "b", "rate", count=lambda r: r["n"], few=5)
    assert cells == {(25, 25): 1.0, (40, 3): 0.5}
    assert thin == {(25, 24)}
    # Without a count every cell with a value is painted.
    cells, thin = charts.heat_cells(rows, "a", "b", "rate")
    assert set(cells) == {(25, 25), (25, 24), (40, 3)} and thin == set()


def test_a_players_report_lists_their_matches_and_opponents(data: Path, tmp_path: Path) -> None:
    html = page(data, tmp_path, "--player", "alice")
    # Alice's five 25-point matches against Bob, all unfinished: 25 games and four of 1.
    versus = section(html, "head-to-head")
    assert "<td>Alice</td><td>Bob</td>" in versus.replace('<td class="num">', "<td>")
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", versus)
    assert cells[:6] == ["Alice", "Bob", "5", "0", "0", "5"]
    listing = section(html, "matches")
    assert listing.count("<tr><td") == 5
    assert "Sample: 29 games." in listing
    # Without --player the listing of every match stays out of the page.
    assert 'id="matches"' not in page(data, tmp_path) and 'id="head-to-head"' not in page(
        data, tmp_path
    )
