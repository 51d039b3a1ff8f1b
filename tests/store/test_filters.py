"""Filters on every statistic: each on a hand-made dataset whose answer is known.

The dataset: conftest.hand_matches imported as source `club` (M1 Alice-Bob, 5 points,
2019-06-01, with a P001 error; M2 Carol-Dave, 3 points, 2020-02-02; M3 Alice-Dave, money,
undated) and M4 Alice-Erin, 5 points, 2021-05-05, imported as source `online`. Opening rolls
by game: M1 31, 61; M2 31, 31, 42; M3 31; M4 52.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.filters import Filters
from bgparse.query import connect, run
from bgparse.stats import STATISTICS

from .conftest import hand_matches, write_inputs
from .factories import game, match, roll

runner = CliRunner()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bgparse.ingest import ImportOptions, run_import

    from .factories import fake_verify

    base = tmp_path_factory.mktemp("filters")
    club = write_inputs(base / "club", hand_matches())
    m4 = match(
        game(roll(0, "52", "13/8 13/11"), roll(1, "31", "8/5 6/5"), winner=0),
        players=("Alice", "Erin"),
        length=5,
        date="2021-05-05",
    )
    online = write_inputs(base / "online", {"m4.json": m4})
    out = base / "data"
    run_import([club], out, ImportOptions(workers=1, source="club"), verify=fake_verify)
    run_import([online], out, ImportOptions(workers=1, source="online"), verify=fake_verify)
    return out


def stat(data: Path, name: str, *args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["stats", name, "--data", str(data), "-f", "json", *args])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.output)
    return rows


def openings(data: Path, *args: str) -> Counter[str]:
    return Counter({r["roll"]: r["games"] for r in stat(data, "opening-rolls", *args)})


def test_no_filter_counts_every_game(data: Path) -> None:
    assert openings(data) == Counter({"31": 4, "61": 1, "42": 1, "52": 1})


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--player", "Alice"], {"31": 2, "61": 1, "52": 1}),  # M1, M3, M4
        (["--player", "  ALICE "], {"31": 2, "61": 1, "52": 1}),  # spacing and case ignored
        (["--player", "Dave"], {"31": 3, "42": 1}),  # M2, M3
        (["--player", "Nobody"], {}),
        (["--since", "2020-01-01"], {"31": 2, "42": 1, "52": 1}),  # M2, M4
        (["--since", "2020-02-02"], {"31": 2, "42": 1, "52": 1}),  # inclusive
        (["--until", "2019-12-31"], {"31": 1, "61": 1}),  # M1
        (["--since", "2020-01-01", "--until", "2020-12-31"], {"31": 2, "42": 1}),  # M2
        (["--length", "0"], {"31": 1}),  # M3
        (["--length", "5"], {"31": 1, "61": 1, "52": 1}),  # M1, M4
        (["--source", "online"], {"52": 1}),  # M4
        (["--source", "club"], {"31": 4, "61": 1, "42": 1}),  # M1-M3
        (["--valid-only"], {"31": 3, "42": 1, "52": 1}),  # not M1 (P001)
        (["--player", "Alice", "--valid-only", "--length", "5"], {"52": 1}),  # M4
    ],
)
def test_each_filter(data: Path, args: list[str], expected: dict[str, int]) -> None:
    assert openings(data, *args) == Counter(expected)


def test_filters_reach_sql_only_as_parameters(data: Path) -> None:
    for hostile in ("x' OR '1'='1", "Alice'; DROP VIEW matches; --", 'Alice"', "%"):
        assert openings(data, "--player", hostile) == Counter()
        assert openings(data, "--source", hostile) == Counter()


@pytest.mark.parametrize("player", ["Alice", "Bob", "Carol", "Dave", "Erin"])
def test_player_profile_of_one_player_equals_their_unfiltered_row(data: Path, player: str) -> None:
    [everyone_row] = [r for r in stat(data, "player") if r["player"] == player]
    assert stat(data, "player", "--player", player) == [everyone_row]


def test_sided_statistics_count_only_the_players_side(data: Path) -> None:
    # gammon-by-score counts every game from each side; for Alice only her side of her four
    # games: M1 (two games at 5-5 and 3-5 away), M3 (money), M4 (5-5 away).
    rows = stat(data, "gammon-by-score", "--player", "Alice")
    assert sum(r["games"] for r in rows) == 4
    assert all(r["note"] is None for r in rows)  # one side: nothing mirrored
    # Unfiltered, an equal-score or money row is mirrored and counts its games once (M1G1,
    # M2G1, M2G3, M3G1, M4G1); the other two games (M1G2, M2G2) once from each side: 5 + 2·2.
    everyone = stat(data, "gammon-by-score")
    assert sum(r["games"] for r in everyone) == 5 + 2 * 2


def test_statistics_with_their_own_length_use_the_filter(data: Path) -> None:
    # cube-rates had --length before the filters: the one option now does both.
    all_doubles = sum(r["offers"] for r in stat(data, "cube-rates"))
    three = sum(r["offers"] for r in stat(data, "cube-rates", "--length", "3"))
    five = sum(r["offers"] for r in stat(data, "cube-rates", "--length", "5"))
    assert (all_doubles, three, five) == (4, 3, 1)


def test_data_before_or_after_the_name(data: Path) -> None:
    after = runner.invoke(app, ["stats", "opening-rolls", "--data", str(data), "-f", "csv"])
    before = runner.invoke(app, ["stats", "--data", str(data), "opening-rolls", "-f", "csv"])
    assert after.exit_code == before.exit_code == 0
    assert before.output == after.output
    elsewhere = runner.invoke(
        app, ["stats", "--data", str(data / "nope"), "opening-rolls", "--data", str(data)]
    )
    assert elsewhere.exit_code == 0  # the later --data wins


def test_bad_date_is_a_usage_error(data: Path) -> None:
    result = runner.invoke(app, ["stats", "dice", "--data", str(data), "--since", "2020-13-01"])
    assert result.exit_code == 2


def test_every_statistic_takes_every_filter(data: Path) -> None:
    con = connect(data, Filters(player="Alice", length=5, valid_only=True))
    for s in STATISTICS.values():
        s.run(con)  # each runs on the filtered views
    assert run(con, "SELECT count(*) AS n FROM matches").to_pylist() == [{"n": 1}]
    assert run(con, "SELECT count(*) AS n FROM findings").to_pylist() == [{"n": 0}]


def test_equal_scores_are_a_players_own_under_a_player_filter(data: Path) -> None:
    # Unfiltered, 5-away/5-away holds M1G1 (M4 is unfinished) from both sides: one game,
    # 0.5 by construction, no wins and no interval.
    [both] = [r for r in stat(data, "match-equity") if (r["away_me"], r["away_opp"]) == (5, 5)]
    assert (both["n"], both["wins"], both["mwc"], both["mwc_lo"]) == (1, None, 0.5, None)
    # Alice's side only: she won M1, so her 5-5 row is 1 of 1, with its interval.
    rows = stat(data, "match-equity", "--player", "Alice")
    [mine] = [r for r in rows if (r["away_me"], r["away_opp"]) == (5, 5)]
    assert (mine["n"], mine["wins"], mine["mwc"], mine["note"]) == (1, 1, 1.0, None)
    assert round(mine["mwc_lo"], 5) == 0.20654
