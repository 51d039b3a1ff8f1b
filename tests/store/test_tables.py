"""Terminal tables: cell text is never read as markup, rates fold with their intervals on a
screen, piped output keeps every column."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.cli import data as cli_data
from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect, interval_columns, print_result
from bgparse.questions.stats import get

from .conftest import hand_matches, write_inputs
from .factories import fake_verify, game, match, roll

runner = CliRunner()

NAME = "Ann [/club]"
MESSAGE = "[missing-play] the record has [bold]no[/bold] play here"


@pytest.fixture(scope="module")
def markup_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("markup")
    specs = hand_matches()
    specs["ann.json"] = match(
        game(roll(0, "31", "8/5 6/5"), roll(1, "42", "8/4 6/4"), winner=0),
        players=(NAME, "Bob"),
        length=3,
        findings=[{"code": "P001", "message": MESSAGE, "line": 5}],
    )
    inputs = write_inputs(base / "in", specs)
    run_import([inputs], base / "data", ImportOptions(workers=1), verify=fake_verify)
    return base / "data"


def test_player_name_with_markup_prints_exactly_in_stats_player(markup_dataset: Path) -> None:
    result = runner.invoke(app, ["stats", "player", "--data", str(markup_dataset)])
    assert result.exit_code == 0, result.output
    assert NAME in result.output


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT player0 FROM matches ORDER BY player0",
        "SELECT message FROM findings ORDER BY message",
    ],
)
def test_query_cells_print_exactly(markup_dataset: Path, sql: str) -> None:
    result = runner.invoke(app, ["query", sql, "--data", str(markup_dataset)])
    assert result.exit_code == 0, result.output
    assert NAME in result.output or MESSAGE in result.output
    if "message" in sql:
        assert MESSAGE in result.output


def test_markup_prints_exactly_in_every_statistic_table(markup_dataset: Path) -> None:
    # Folded on a screen and full when piped: the name is shown as stored in both.
    con = connect(markup_dataset)
    table = get("player").run(con)
    for fold in (False, True):
        out = io.StringIO()
        # 240: the player table counts doubles, takes, beavers and drops apart (issue 12),
        # and at 200 a screen would wrap the name's cell.
        console = Console(file=out, width=240 if fold else 1000)
        print_result(table, "table", console, title="[b]x", fold=fold)
        assert NAME in out.getvalue() and "[b]x" in out.getvalue()


def test_interval_columns_pair_rates_with_their_bounds() -> None:
    names = ["roll", "win_rate", "win_lo", "win_hi", "share", "share_lo", "share_hi", "x_lo"]
    assert interval_columns(names) == {
        "win_rate": ("win_lo", "win_hi"),
        "share": ("share_lo", "share_hi"),
    }


def narrow(result_table: object, width: int, *, title: str) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width)
    print_result(result_table, "table", console, title=title, fold=True)  # type: ignore[arg-type]
    return out.getvalue()


def test_folded_table_fits_80_columns(hand_dataset: Path) -> None:
    con = connect(hand_dataset)
    table = get("opening-rolls").run(con)
    text = narrow(table, 80, title="Opening roll win rate")
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "win rate [lo, hi]" in text
    assert "win_lo" not in text and "win lo" not in text
    # 31 opened 4 games, won 4 with 2 gammons (test_stats.py): Wilson 95% bounds by hand.
    assert "1.000 [0.510, 1.000]" in text and "0.500 [0.150, 0.850]" in text


def test_too_many_columns_leave_the_rest_to_wide(markup_dataset: Path) -> None:
    # They printed as one block of lines per row (3,417 lines for a real dataset's players):
    # now the statistic's key columns, one line per row, and a note naming the rest.
    stat = get("player")
    table = stat.run(connect(markup_dataset))
    out = io.StringIO()
    print_result(table, "table", Console(file=out, width=80), fold=True, keys=stat.columns)
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines) and "-[ row " not in out.getvalue()
    names = table.column("player").to_pylist()
    assert sum(1 for line in lines for n in names if line.startswith(f" {n} ")) == len(names)
    assert any(line.startswith(f" {NAME} ") for line in lines)
    note = " ".join(lines).split(" more columns with --wide: ")[1]
    assert "doubles_per_game" in note and "player" not in note


def test_piped_output_keeps_every_column(hand_dataset: Path) -> None:
    result = runner.invoke(app, ["stats", "opening-rolls", "--data", str(hand_dataset)])
    assert result.exit_code == 0
    header = next(line for line in result.output.splitlines() if "win_rate" in line)
    for column in ("win_rate", "win_lo", "win_hi", "gammon_lo", "gammon_hi"):
        assert column in header
    assert max(len(line) for line in result.output.splitlines()) > 80


def test_terminal_folds_and_wide_shows_every_column(
    hand_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_data, "_is_terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", "80")
    folded = runner.invoke(app, ["stats", "opening-rolls", "--data", str(hand_dataset)])
    assert folded.exit_code == 0
    assert "win rate [lo, hi]" in folded.output and "win_lo" not in folded.output
    assert all(len(line) <= 80 for line in folded.output.splitlines())
    wide = runner.invoke(app, ["stats", "opening-rolls", "--wide", "--data", str(hand_dataset)])
    assert wide.exit_code == 0
    assert "win_lo" in wide.output and "win_hi" in wide.output


def test_csv_and_json_are_unchanged_by_folding(
    hand_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_data, "_is_terminal", lambda: True)
    csv = runner.invoke(app, ["stats", "opening-rolls", "-f", "csv", "--data", str(hand_dataset)])
    assert csv.output.splitlines()[0] == (
        "roll,games,mover_wins,win_rate,win_lo,win_hi,mover_gammons,gammon_rate,gammon_lo,gammon_hi"
    )
    js = runner.invoke(app, ["stats", "opening-rolls", "-f", "json", "--data", str(hand_dataset)])
    assert {"win_lo", "win_hi"} <= set(json.loads(js.output)[0])


def test_a_sum_of_counts_prints_as_a_whole_number(hand_dataset: Path) -> None:
    """DuckDB sums integers into a HUGEINT, which reaches Arrow as a decimal of scale 0: it
    prints as the count it is in every format (not 12.0), and a decimal with places stays one."""
    sql = "SELECT sum(n_games) AS games, (SELECT count(*) FROM games) AS rows, 1.25::DECIMAL(5,2) AS d FROM matches"
    js = runner.invoke(app, ["query", sql, "-f", "json", "--data", str(hand_dataset)])
    assert js.exit_code == 0, js.output
    [row] = json.loads(js.output)
    assert isinstance(row["games"], int) and row["games"] == row["rows"] > 0
    assert row["d"] == 1.25
    csv = runner.invoke(app, ["query", sql, "-f", "csv", "--data", str(hand_dataset)])
    assert csv.output.splitlines()[1] == f"{row['games']},{row['rows']},1.25"
    table = runner.invoke(app, ["query", sql, "--data", str(hand_dataset)])
    assert f" {row['games']} " in table.output and f"{row['games']}.0" not in table.output
