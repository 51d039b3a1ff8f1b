"""Tables on a terminal fit its width, one line per row: each statistic's key columns always,
the others while they fit, a note naming those left out (--wide shows every column); piped
output keeps every column; `stats --list` reads piped as on a screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.cli import data as cli_data
from bgparse.questions.stats import STATISTICS

runner = CliRunner()


def on_terminal(monkeypatch: pytest.MonkeyPatch, columns: int, *args: str) -> tuple[int, list[str]]:
    monkeypatch.setattr(cli_data, "_is_terminal", lambda: True)
    result = runner.invoke(app, list(args), env={"COLUMNS": str(columns)})
    return result.exit_code, result.output.splitlines()


def test_cube_rates_at_80_columns(hand_dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, lines = on_terminal(monkeypatch, 80, "stats", "cube-rates", "--data", str(hand_dataset))
    assert code == 0
    assert [line.rstrip() for line in lines] == [
        "Cube rates by score",
        "",
        "    away   away",
        " doubler  taker  kind      offers    take rate [lo, hi]    drop rate [lo, hi]",
        " " + "─" * 76,
        "       2      2  initial        1  1.000 [0.207, 1.000]  0.000 [0.000, 0.793]",
        "       2      2  redouble       1  1.000 [0.207, 1.000]  0.000 [0.000, 0.793]",
        "       3      3  initial        1  0.000 [0.000, 0.793]  1.000 [0.207, 1.000]",
        "       5      5  initial        1  1.000 [0.207, 1.000]  0.000 [0.000, 0.793]",
        "                 all            4  0.750 [0.301, 0.954]  0.250 [0.046, 0.699]",
        "",
        "7 more columns with --wide: takes, drops, beavers, beaver_rate,",
        "accepted_finished, doubler_wins, doubler_win_rate [lo, hi]",
    ]


def test_a_wider_terminal_shows_more_columns_still_one_line_a_row(
    hand_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, lines = on_terminal(monkeypatch, 160, "stats", "cube-rates", "--data", str(hand_dataset))
    assert code == 0
    assert all(len(line) <= 160 for line in lines)
    rows = [line for line in lines if line.strip().startswith(("2 ", "3 ", "5 ", "all "))]
    assert len(rows) == 5  # one line per row
    # Every column fits at 160, intervals still folded into their rates.
    text = "\n".join(lines)
    assert "more column" not in text and "doubler_win_lo" not in text
    for header in ("takes", "drops", "beavers", "accepted", "doubler", "wins"):
        assert header in " ".join(lines[:5]).split()


@pytest.mark.parametrize("name", list(STATISTICS))
@pytest.mark.parametrize("columns", [80, 120])
def test_every_statistic_fits_with_its_key_columns(
    hand_dataset: Path, monkeypatch: pytest.MonkeyPatch, name: str, columns: int
) -> None:
    code, lines = on_terminal(monkeypatch, columns, "stats", name, "--data", str(hand_dataset))
    assert code == 0, lines
    assert all(len(line) <= columns for line in lines), "\n".join(lines)
    assert not any(line.startswith("-[ row ") for line in lines)
    header = " ".join(lines[:6]).replace("_", " ")
    for key in STATISTICS[name].columns:
        assert key.replace("_", " ") in header or key.split("_")[0] in header, (key, header)


def test_wide_and_piped_show_every_column(
    hand_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    piped = runner.invoke(app, ["stats", "player", "--data", str(hand_dataset)])
    header = piped.output.splitlines()[2]
    for column in ("take_lo", "doubles_per_game", "drops", "gammons_lost"):
        assert column in header
    assert "more column" not in piped.output
    code, lines = on_terminal(
        monkeypatch, 80, "stats", "player", "--wide", "--data", str(hand_dataset)
    )
    assert code == 0 and "take_lo" in "\n".join(lines) and "more column" not in "\n".join(lines)


def test_query_on_a_terminal_keeps_its_first_column(
    hand_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sql = "SELECT source_path AS path, * FROM matches"
    code, lines = on_terminal(monkeypatch, 60, "query", sql, "--data", str(hand_dataset))
    assert code == 0
    assert all(len(line) <= 60 for line in lines)
    text = [line for line in lines if line.strip()]
    rule = next(i for i, t in enumerate(text) if t.strip().startswith("─"))
    assert text[rule - 1].split()[0] == "path"  # the headers' last line, above the rule
    # No statistic names its columns: the first is kept, the rest left out and named.
    note = " ".join(text[next(i for i, t in enumerate(text) if "more columns with" in t) :])
    assert " more columns with --wide: " in note and "source_path" in note


def test_stats_list_piped_is_one_block_a_statistic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    listed = runner.invoke(app, ["stats", "--list"])
    assert listed.exit_code == 0
    lines = listed.stdout.splitlines()
    assert all(len(line) <= 100 for line in lines)
    assert lines[:5] == [
        "Statistics (bgparse stats NAME [options])",
        "",
        "opening-rolls  (needs: record; options: --min-games)",
        "    Per opening roll: games, the opening mover's win rate and gammon rate (Wilson 95% CI). Under",
        "    --player: the opening mover's games.",
    ]
    named = [line.split()[0] for line in lines[2:] if not line.startswith(" ")]
    assert named == list(STATISTICS)
    narrow = runner.invoke(app, ["stats", "--list"], env={"COLUMNS": "60"})
    assert all(len(line) <= 60 for line in narrow.stdout.splitlines())
