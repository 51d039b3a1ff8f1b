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
from bgparse.questions.filters import Filters
from bgparse.questions.query import connect, run
from bgparse.questions.stats import STATISTICS

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
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def openings(data: Path, *args: str) -> Counter[str]:
    return Counter({r["roll"]: r["games"] for r in stat(data, "opening-rolls", *args)})


def test_no_filter_counts_every_game(data: Path) -> None:
    assert openings(data) == Counter({"31": 4, "61": 1, "42": 1, "52": 1})


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # opening-rolls counts the opening mover's games: Alice opened M1G1, M3, M4 (Bob
        # opened M1G2); Dave opened only M2G2 (Carol M2G1, M2G3, Alice M3).
        (["--player", "Alice"], {"31": 2, "52": 1}),
        (["--player", "  ALICE "], {"31": 2, "52": 1}),  # spacing and case ignored
        (["--player", "Dave"], {"31": 1}),
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
    def offers(*args: str) -> int:
        [whole] = [r for r in stat(data, "cube-rates", *args) if r["kind"] == "all"]
        return int(whole["offers"])

    all_doubles, three, five = offers(), offers("--length", "3"), offers("--length", "5")
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


# Statistics counted from one side: under --player, only that player's side. Sides in the
# dataset: M1 Alice 0, Bob 1; M2 Carol 0, Dave 1; M3 Alice 0, Dave 1; M4 Alice 0, Erin 1.


def test_a_player_filter_still_selects_either_sides_matches(data: Path) -> None:
    con = connect(data, Filters(player="Dave"))
    assert run(con, "SELECT count(*) AS n FROM matches").to_pylist() == [{"n": 2}]  # M2, M3
    assert run(con, "SELECT count(*) AS n FROM games").to_pylist() == [{"n": 4}]


def test_opening_outcomes_are_the_opening_movers(data: Path) -> None:
    # Dave opened only M2G2 (31, 8/5 6/5) and won it, a single game at cube 1.
    [row] = stat(data, "opening-outcomes", "--player", "Dave")
    assert (row["roll"], row["play"], row["games"], row["mover_wins"]) == ("31", "8/5 6/5", 1, 1)
    assert row["points_per_game"] == 1.0
    # opening-plays: Alice's three openings, each the only one of its roll.
    plays = {
        (r["roll"], r["play"]): r["games"] for r in stat(data, "opening-plays", "--player", "Alice")
    }
    assert plays == {("31", "8/5 6/5"): 2, ("52", "13/8 13/11"): 1}
    assert stat(data, "opening-plays", "--player", "Bob") == [
        r for r in stat(data, "opening-plays") if r["roll"] == "61"
    ]  # Bob opened only M1G2, the only 61


def test_reply_plays_are_the_repliers(data: Path) -> None:
    # Bob replied once (M1G1: 42 after 31); Alice once (M1G2: 52 after Bob's 61); Dave three
    # times (M2G1 64, M2G3 55, M3 66); Carol once (M2G2: 21 after Dave's 31).
    def replies(player: str) -> set[tuple[str, str, int]]:
        rows = stat(data, "reply-plays", "--player", player)
        return {(r["opening_roll"], r["reply_roll"], r["games"]) for r in rows}

    assert replies("Bob") == {("31", "42", 1)}
    assert replies("Alice") == {("61", "52", 1)}
    assert replies("Dave") == {("31", "64", 1), ("42", "55", 1), ("31", "66", 1)}
    assert replies("Carol") == {("31", "21", 1)}
    assert stat(data, "reply-plays", "--player", "Nobody") == []


def test_first_mover_is_the_players_openings_and_game_one_wins(data: Path) -> None:
    # Carol opened M2G1 (won) and M2G3 (lost); she won M2's game 1 and lost the match.
    rows = {r["length"]: r for r in stat(data, "first-mover", "--player", "Carol")}
    three = rows["3"]
    assert (three["games"], three["mover_wins"]) == (2, 1)
    assert (three["matches"], three["game1_winner_won"]) == (1, 0)
    # Dave opened M2G2 and won it; he won no match's game 1: no match rows.
    dave = {r["length"]: r for r in stat(data, "first-mover", "--player", "Dave")}
    assert (dave["3"]["games"], dave["3"]["mover_wins"], dave["3"]["matches"]) == (1, 1, 0)


def test_cube_rates_and_timing_are_the_doublers(data: Path) -> None:
    # Offers: Alice doubled M1G1 (taken); Carol doubled M2G1 (dropped) and M2G3 (taken);
    # Dave redoubled M2G3 (taken); Bob and Erin never offered.
    def offers(player: str) -> Counter[str]:
        rows = stat(data, "cube-rates", "--player", player)
        return Counter({r["kind"]: r["offers"] for r in rows})

    assert offers("Alice") == Counter({"initial": 1, "all": 1})
    assert offers("Dave") == Counter({"redouble": 1, "all": 1})
    assert stat(data, "cube-rates", "--player", "Bob") == []
    carol = [r for r in stat(data, "cube-rates", "--player", "Carol") if r["kind"] != "all"]
    assert sum(r["takes"] for r in carol) == sum(r["drops"] for r in carol) == 1
    # Carol made the first double of M2G1 and M2G3, each on her second turn, in M2's three
    # games where a double was allowed; Dave made no first double.
    [timing] = stat(data, "cube-timing", "--player", "Carol")
    assert (timing["move_no"], timing["first_doubles"], timing["games"]) == (2, 2, 3)
    assert stat(data, "cube-timing", "--player", "Dave") == []


def test_take_outcomes_and_race_takes_are_the_takers(data: Path) -> None:
    # Dave took Carol's double in M2G3 (cube 2), redoubled later and won; his drop in M2G1
    # was no take. Carol took his redouble (cube 4) and lost. Bob took Alice's double in
    # M1G1 (cube 2) and lost a gammon.
    [dave] = stat(data, "take-outcomes", "--player", "Dave")
    assert (dave["cube_offered"], dave["accepted"], dave["doubler_wins"]) == (2, 1, 0)
    assert (dave["recubes"], dave["taker_gammons"]) == (1, 0)
    [carol] = stat(data, "take-outcomes", "--player", "Carol")
    assert (carol["cube_offered"], carol["accepted"], carol["doubler_wins"]) == (4, 1, 1)
    [bob] = stat(data, "take-outcomes", "--player", "Bob")
    assert (bob["cube_offered"], bob["doubler_wins"], bob["doubler_gammons"]) == (2, 1, 1)
    assert stat(data, "take-outcomes", "--player", "Alice") == []
    # Both race doubles are in M2G3: Dave took 66 pips against Carol's 60 (10% behind) and
    # won; Carol took 50 against Dave's 49 (2% ahead: bucket -5) and lost.
    [dave_race] = stat(data, "race-takes", "--player", "Dave")
    assert (dave_race["deficit_pct"], dave_race["takes"], dave_race["taker_wins"]) == (10, 1, 1)
    [carol_race] = stat(data, "race-takes", "--player", "Carol")
    assert (carol_race["deficit_pct"], carol_race["takes"], carol_race["taker_wins"]) == (-5, 1, 0)


def test_dice_are_the_rollers(data: Path) -> None:
    # Dave's rolls after the opening roll: 64 (M2G1), 55 and 11 (M2G3), 66 (M3); his opening
    # 31 of M2G2 is left out by default and counted with --include-opening.
    def counts(*args: str) -> dict[str, int]:
        return {r["roll"]: r["n"] for r in stat(data, "dice", *args) if r["n"]}

    assert counts("--player", "Dave") == {"64": 1, "55": 1, "11": 1, "66": 1, "total": 4}
    opening = counts("--player", "Dave", "--include-opening")
    assert opening == {"64": 1, "55": 1, "11": 1, "66": 1, "31": 1, "total": 5}
    # Carol: 21 (M2G2) and 65 (M2G3) after her openings.
    assert counts("--player", "Carol") == {"21": 1, "65": 1, "total": 2}


def test_gammon_by_cube_is_the_winners(data: Path) -> None:
    # Alice won M1G1 (cube 2, gammon), M1G2, M3 (backgammon) and M4 at cube 1; Bob won nothing;
    # Dave won M2G2 (cube 1) and M2G3 (cube 4), both singles.
    alice = {r["final_cube"]: r for r in stat(data, "gammon-by-cube", "--player", "Alice")}
    assert set(alice) == {1, 2}
    assert (alice[1]["games"], alice[1]["singles"], alice[1]["backgammons"]) == (3, 2, 1)
    assert (alice[2]["games"], alice[2]["gammons"]) == (1, 1)
    assert stat(data, "gammon-by-cube", "--player", "Bob") == []
    dave = {
        r["final_cube"]: (r["games"], r["singles"])
        for r in stat(data, "gammon-by-cube", "--player", "Dave")
    }
    assert dave == {1: (1, 1), 4: (1, 1)}


@pytest.mark.parametrize(
    ("name", "column", "where"),
    [
        ("opening-rolls", "games", None),
        ("opening-plays", "games", None),
        ("opening-outcomes", "games", None),
        ("reply-plays", "games", None),
        ("cube-rates", "offers", None),
        ("cube-timing", "first_doubles", None),
        ("take-outcomes", "accepted", None),
        ("race-takes", "doubles", None),
        ("dice", "n", "total"),
        ("gammon-by-cube", "games", None),
        ("matches", "games", None),
        ("head-to-head", "matches", None),
    ],
)
def test_the_players_sides_add_up_to_the_whole(
    data: Path, name: str, column: str, where: str | None
) -> None:
    # Each side of each match is one player's: the players' counts partition the unfiltered one.
    def total(*args: str) -> int:
        rows = stat(data, name, *args)
        return sum(r[column] for r in rows if where is None or r["roll"] == where)

    players = ("Alice", "Bob", "Carol", "Dave", "Erin")
    assert total() > 0
    assert sum(total("--player", p) for p in players) == total()


def test_every_statistic_with_sides_says_which_side_player_keeps() -> None:
    # findings and player have no side; every other statistic names the side --player keeps,
    # in its help (stats --list, stats NAME --help) and in its section of docs/STATISTICS.md.
    doc = (Path(__file__).parents[2] / "docs" / "STATISTICS.md").read_text(encoding="utf-8")
    sections = {
        name.strip(): body
        for chunk in doc.split("\n## ")[1:]
        for title, _, body in [chunk.partition("\n")]
        for name in title.split(",")
    }
    for s in STATISTICS.values():
        if s.name in ("findings", "player"):
            assert s.side == "" and s.help == s.description
            continue
        assert s.side and s.help.endswith(f"Under --player: {s.side}.")
        assert "Side:" in sections[s.name], s.name
    listed = runner.invoke(app, ["stats", "--list"], env={"COLUMNS": "400"})
    assert listed.exit_code == 0
    assert "Under --player: the taker's race doubles." in listed.output
