"""Every named statistic on the hand-made dataset of conftest.hand_matches, against figures
worked out by hand from those moves (the arithmetic is in the comments).

Wilson 95% bounds used below (z = 1.96, z² = 3.8416), by hand:
  k=1, n=1: lo = (1 + z²/2 - z·√(z²/4)) / (1 + z²) = (2.9208 - 1.9208) / 4.8416 = 0.20654
  k=0, n=1: hi = 1 - 0.20654 = 0.79346
  k=4, n=4: lo = (1 + z²/8 - z·√(z²/64)) / (1 + z²/4) = (1.4802 - 0.4802) / 1.9604 = 0.51010
  k=2, n=4: (0.5 + 0.4802 ∓ 1.96·√(0.0625 + 0.060025)) / 1.9604 = 0.15004, 0.84996
  k=1, n=2: (0.5 + 0.9604 ∓ 1.96·√(0.125 + 0.2401)) / 2.9208 = 0.09453, 0.90547
  k=3, n=6: (0.5 + 0.32013 ∓ 1.96·√(0.041667 + 0.026678)) / 1.64027 = 0.18761, 0.81239
  k=1, n=3: (0.33333 + 0.64027 ∓ 1.96·√(0.074074 + 0.106711)) / 2.28053 = 0.06149, 0.79235
  k=3, n=4: (0.75 + 0.4802 ∓ 1.96·√(0.046875 + 0.060025)) / 1.9604 = 0.30064, 0.95441
  k=3, n=5: (0.6 + 0.38416 ∓ 1.96·√(0.048 + 0.038416)) / 1.76832 = 0.23072, 0.88238
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import duckdb
import pytest

from bgparse.questions.query import connect, run
from bgparse.questions.stats import STATISTICS, get
from tests.analysis.test_stats_analysis import STATISTICS_TESTED

W11 = (0.20654, 1.0)
W01 = (0.0, 0.79346)
W12 = (0.09453, 0.90547)


@pytest.fixture(scope="module")
def con(hand_dataset: Path) -> duckdb.DuckDBPyConnection:
    return connect(hand_dataset)


def rows(con: duckdb.DuckDBPyConnection, stat: str, /, **values: Any) -> list[dict[str, Any]]:
    return get(stat).run(con, values).to_pylist()


def pick(row: dict[str, Any], *cols: str) -> tuple[Any, ...]:
    return tuple(round(v, 5) if isinstance(v, float) else v for v in (row[c] for c in cols))


def test_wilson_helper_matches_hand_figures(con: duckdb.DuckDBPyConnection) -> None:
    got = run(
        con,
        "SELECT wilson_lo(3, 4), wilson_hi(3, 4), wilson_lo(1, 1), wilson_hi(0, 1), "
        "wilson_lo(0, 0)",
    ).to_pylist()[0]
    assert [None if v is None else round(v, 5) for v in got.values()] == [
        0.30064,
        0.95441,
        0.20654,
        0.79346,
        None,
    ]


def test_opening_rolls(con: duckdb.DuckDBPyConnection) -> None:
    # 31 opened M1G1 (Alice won a gammon), M2G1 (Carol won on a drop), M2G2 (Dave won),
    # M3G1 (Alice won a backgammon): 4 games, 4 wins, 2 gammons. 42 (M2G3) and 61 (M1G2)
    # each lost their one game.
    got = [pick(r, "roll", "games", "mover_wins", "win_rate", "win_lo", "win_hi") for r in
           rows(con, "opening-rolls")]  # fmt: skip
    assert got == [
        ("31", 4, 4, 1.0, 0.5101, 1.0),
        ("42", 1, 0, 0.0, *W01),
        ("61", 1, 0, 0.0, *W01),
    ]
    first = rows(con, "opening-rolls")[0]
    assert pick(first, "mover_gammons", "gammon_rate", "gammon_lo", "gammon_hi") == (
        2,
        0.5,
        0.15004,
        0.84996,
    )
    assert [r["roll"] for r in rows(con, "opening-rolls", min_games=2)] == ["31"]


def test_opening_plays_overall_and_by_era(con: duckdb.DuckDBPyConnection) -> None:
    got = [pick(r, "era", "roll", "play", "games", "share") for r in rows(con, "opening-plays")]
    assert got == [
        (None, "31", "8/5 6/5", 4, 1.0),
        (None, "42", "8/4 6/4", 1, 1.0),
        (None, "61", "13/7 8/7", 1, 1.0),
    ]
    # Eras of 10 years: M1 (2019) is 2010, M2 (2020) is 2020, M3 has no date and is left out.
    got = [pick(r, "era", "roll", "games", "roll_games") for r in
           rows(con, "opening-plays", era_years=10)]  # fmt: skip
    assert got == [(2010, "31", 1, 1), (2010, "61", 1, 1), (2020, "31", 2, 2), (2020, "42", 1, 1)]


def test_opening_outcomes(con: duckdb.DuckDBPyConnection) -> None:
    # 31 8/5 6/5: mover points +4 (gammon on a 2-cube) +1 (drop) +1 +3 (backgammon) = 9 / 4.
    got = [pick(r, "roll", "play", "games", "win_rate", "points_per_game", "gammon_rate")
           for r in rows(con, "opening-outcomes")]  # fmt: skip
    assert got == [
        ("31", "8/5 6/5", 4, 1.0, 2.25, 0.5),
        ("42", "8/4 6/4", 1, 0.0, -4.0, 0.0),  # lost a 4-cube single
        ("61", "13/7 8/7", 1, 0.0, -1.0, 0.0),
    ]


def test_reply_plays(con: duckdb.DuckDBPyConnection) -> None:
    got = [pick(r, "opening_roll", "reply_roll", "reply_play", "games", "share")
           for r in rows(con, "reply-plays")]  # fmt: skip
    assert got == [
        ("31", "21", "13/11 24/23", 1, 1.0),
        ("31", "42", "8/4 6/4", 1, 1.0),
        ("31", "64", "24/18 13/9", 1, 1.0),
        ("31", "66", "24/18 24/18 13/7 13/7", 1, 1.0),
        ("42", "55", "8/3 8/3 6/1 6/1", 1, 1.0),
        ("61", "52", "13/8 13/11", 1, 1.0),
    ]
    assert [r["reply_roll"] for r in rows(con, "reply-plays", roll="42")] == ["55"]
    assert rows(con, "reply-plays", roll="31", play="8/4 6/4") == []


def test_first_mover_edge(con: duckdb.DuckDBPyConnection) -> None:
    # Opening mover won: 5-point M1G1 yes, M1G2 no; 3-point M2G1 yes, M2G2 yes, M2G3 no;
    # money M3G1 yes. Game 1's winner won the match in M1 (Alice), not in M2 (Carol; Dave won).
    got = [pick(r, "length", "games", "mover_wins", "matches", "game1_winner_won")
           for r in rows(con, "first-mover")]  # fmt: skip
    assert got == [
        ("money", 1, 1, 0, 0),
        ("3", 3, 2, 1, 0),
        ("5", 2, 1, 1, 1),
        ("all", 6, 4, 2, 1),
    ]
    # The "all" row says that its match columns leave 1-point matches out.
    assert [r["note"] for r in rows(con, "first-mover")] == [
        None,
        None,
        None,
        "match columns without 1-point matches (game 1 decides them)",
    ]
    five = rows(con, "first-mover")[2]
    assert pick(five, "mover_win_rate", "mover_win_lo", "mover_win_hi") == (0.5, *W12)


def test_match_equity_beside_kazaross_xg2(con: duckdb.DuckDBPyConnection) -> None:
    # Each game of a finished match from both sides; the published figures are the table's
    # (2-away vs 3-away: 0.59947; Crawford 1-away vs 5-away: 0.84179). An equal score is one
    # game seen from both sides, one of which wins: 0.5 by construction, n = 1 game, no wins
    # and no interval.
    got = [pick(r, "away_me", "away_opp", "phase", "n", "wins", "mwc", "mwc_lo", "published")
           for r in rows(con, "match-equity")]  # fmt: skip
    assert got == [
        (1, 5, "crawford", 1, 1, 1.0, 0.20654, 0.84179),
        (2, 2, "pre-crawford", 1, None, 0.5, None, 0.5),
        (2, 3, "pre-crawford", 1, 0, 0.0, 0.0, 0.59947),
        (3, 2, "pre-crawford", 1, 1, 1.0, 0.20654, 0.40053),
        (3, 3, "pre-crawford", 1, None, 0.5, None, 0.5),
        (5, 1, "crawford", 1, 0, 0.0, 0.0, 0.15821),
        (5, 5, "pre-crawford", 1, None, 0.5, None, 0.5),
    ]
    notes = {r["note"] for r in rows(con, "match-equity") if r["away_me"] == r["away_opp"]}
    assert notes == {"equal score: 0.5 by construction, n is games"}
    assert all(
        r["note"] is None for r in rows(con, "match-equity") if r["away_me"] != r["away_opp"]
    )
    assert pick(rows(con, "match-equity")[2], "diff") == (-0.59947,)
    assert len(rows(con, "match-equity", min_n=2)) == 0
    assert len(rows(con, "match-equity", max_away=3)) == 4


def test_published_met_is_complete_and_consistent(con: duckdb.DuckDBPyConnection) -> None:
    # Pre-Crawford and Crawford entries of a score and its mirror add up to 1 (to the table's
    # 5-6 decimals); post-Crawford 1-away vs 2-away is 1 - 0.48803.
    worst = run(
        con,
        "SELECT max(abs(a.mwc + b.mwc - 1)) AS worst, count(*) AS n FROM met_published a "
        "JOIN met_published b ON a.away_me = b.away_opp AND a.away_opp = b.away_me "
        "AND a.phase = b.phase",
    ).to_pylist()[0]
    assert worst["worst"] < 2e-4
    assert worst["n"] == 625 + 49
    post = run(
        con, "SELECT mwc FROM met_published WHERE phase = 'post-crawford' AND away_me = 1 "
        "AND away_opp = 2"
    ).to_pylist()  # fmt: skip
    assert post == [{"mwc": pytest.approx(0.51197)}]


def test_cube_rates_by_score(con: duckdb.DuckDBPyConnection) -> None:
    # Doubles: Alice at 5-5 (taken, she won); Carol at 3-3 (dropped); Carol at 2-2 (taken,
    # she lost); Dave's redouble at 2-2 (taken, he won). (Beavers: test_right_facts.py.)
    got = [pick(r, "away_doubler", "away_taker", "kind", "offers", "takes", "drops",
                "doubler_wins", "doubler_win_rate") for r in rows(con, "cube-rates")]  # fmt: skip
    assert got == [
        (2, 2, "initial", 1, 1, 0, 0, 0.0),
        (2, 2, "redouble", 1, 1, 0, 1, 1.0),
        (3, 3, "initial", 1, 0, 1, 0, None),
        (5, 5, "initial", 1, 1, 0, 1, 1.0),
        # Every offer: 3 of the 4 taken, 2 of the 3 accepted won by the offering side.
        (None, None, "all", 4, 3, 1, 2, 0.66667),
    ]
    r = rows(con, "cube-rates")[2]
    assert pick(r, "drop_rate", "drop_lo", "drop_hi", "take_rate") == (1.0, *W11, 0.0)
    assert pick(rows(con, "cube-rates")[4], "take_rate", "drop_rate") == (0.75, 0.25)
    assert len(rows(con, "cube-rates", length=3)) == 3 + 1


def test_cube_timing(con: duckdb.DuckDBPyConnection) -> None:
    # Three games saw a double, each the doubler's second turn, of the five games where a
    # double was allowed (six games; M1G2, at 4-0 in a 5-point match, is the Crawford game).
    got = [pick(r, "move_no", "first_doubles", "games", "share", "share_lo", "share_hi",
                "cumulative_share") for r in rows(con, "cube-timing")]  # fmt: skip
    assert got == [(2, 3, 5, 0.6, 0.23072, 0.88238, 0.6)]
    assert [pick(r, "first_doubles", "games") for r in rows(con, "cube-timing", length=5)] == [
        (1, 1)
    ]


def test_take_outcomes(con: duckdb.DuckDBPyConnection) -> None:
    # 2-cubes taken: Alice's (won, gammon, final cube 2), Carol's (lost; Dave recubed, final 4).
    # 4-cube taken: Dave's redouble (won, single, final 4). The gammon is the doubler's.
    got = [pick(r, "cube_offered", "accepted", "beavered", "doubler_wins", "recubes",
                "recube_rate", "doubler_gammons", "taker_gammons", "avg_final_cube")
           for r in rows(con, "take-outcomes")]  # fmt: skip
    assert got == [(2, 2, 0, 1, 1, 0.5, 1, 0, 3.0), (4, 1, 0, 1, 0, 0.0, 0, 0, 4.0)]


def test_gammon_rate_by_cube(con: duckdb.DuckDBPyConnection) -> None:
    # Cube 1: M1G2 single, M2G1 drop, M2G2 single, M3G1 backgammon: 1 gammon+ of 3 not dropped.
    got = [pick(r, "final_cube", "games", "dropped", "singles", "gammons", "backgammons",
                "gammon_rate", "gammon_lo", "gammon_hi") for r in
           rows(con, "gammon-by-cube")]  # fmt: skip
    assert got == [
        (1, 4, 1, 2, 0, 1, 0.33333, 0.06149, 0.79235),
        (2, 1, 0, 0, 1, 0, 1.0, *W11),
        (4, 1, 0, 1, 0, 0, 0.0, *W01),
    ]


def test_gammon_rate_by_score(con: duckdb.DuckDBPyConnection) -> None:
    # Equal scores and money are one game seen from both sides: one game each, with the
    # per-game gammon figure only (won and lost would be the same half of it).
    got = [pick(r, "away_me", "away_opp", "phase", "games", "gammons_won", "gammons_lost",
                "gammons", "gammon_rate") for r in rows(con, "gammon-by-score")]  # fmt: skip
    assert got == [
        (1, 5, "crawford", 1, 0, 0, 0, 0.0),
        (2, 2, "pre-crawford", 1, None, None, 0, 0.0),
        (2, 3, "pre-crawford", 1, 0, 0, 0, 0.0),
        (3, 2, "pre-crawford", 1, 0, 0, 0, 0.0),
        (3, 3, "pre-crawford", 1, None, None, 0, 0.0),
        (5, 1, "crawford", 1, 0, 0, 0, 0.0),
        (5, 5, "pre-crawford", 1, None, None, 1, 1.0),  # Alice's gammon
        (None, None, "money", 1, None, None, 1, 1.0),  # Alice's backgammon
    ]
    five = rows(con, "gammon-by-score")[6]
    assert pick(five, "gammon_lo", "gammon_hi", "gammon_win_lo") == (*W11, None)
    assert five["note"] == "mirrored (money or equal score): per-game gammon rate only"
    assert rows(con, "gammon-by-score")[0]["note"] is None


def test_race_take_outcomes(con: duckdb.DuckDBPyConnection) -> None:
    # Carol doubled a race at 60 pips against 66: deficit 6/60 = 10% (bucket 10..15), taken,
    # taker Dave won. Dave redoubled at 50 against 49: deficit -1/50 = -2% (bucket -5..0),
    # taken, taker Carol lost. The other doubles were not races.
    got = [pick(r, "deficit_pct", "deficit_pct_to", "doubles", "takes", "taker_wins",
                "taker_win_rate") for r in rows(con, "race-takes")]  # fmt: skip
    assert got == [(-5, 0, 1, 1, 0, 0.0), (10, 15, 1, 1, 1, 1.0)]
    wide = [pick(r, "deficit_pct", "doubles") for r in rows(con, "race-takes", bucket_pct=20)]
    assert wide == [(-20, 1), (0, 1)]


def test_dice_distribution(con: duckdb.DuckDBPyConnection) -> None:
    # Rolls after the opening: 42 52 64 21 55 65 11 66 (8). Expected 8·2/36 = 0.44444 for a
    # non-doublet, 8/36 = 0.22222 for a doublet. χ² = Σ n²/E - N = 5/0.44444 + 3/0.22222 - 8
    # = 11.25 + 13.5 - 8 = 16.75; P(χ²₂₀ ≥ 16.75) = 0.66914 (by numerical integration).
    got = rows(con, "dice")
    assert len(got) == 22
    by_roll = {r["roll"]: r for r in got}
    assert pick(by_roll["65"], "n", "expected", "chi2") == (1, 0.44444, 0.69444)
    assert pick(by_roll["66"], "n", "expected", "chi2") == (1, 0.22222, 2.72222)
    assert pick(by_roll["31"], "n", "chi2") == (0, 0.44444)
    assert pick(got[-1], "roll", "n", "chi2", "p_value") == ("total", 8, 16.75, 0.66914)
    # With the six opening rolls (31 four times, 61, 42) there are 14.
    assert pick(rows(con, "dice", include_opening=True)[-1], "n") == (14,)


def test_findings_summary(con: duckdb.DuckDBPyConnection) -> None:
    got = [pick(r, "severity", "code", "findings", "duplicate_findings", "files", "matches",
                "description") for r in rows(con, "findings")]  # fmt: skip
    assert got == [
        ("error", "P001", 1, 0, 1, 1, "illegal checker play"),
        ("error", "S001", 1, 0, 1, 0, "file is empty"),  # the quarantined empty file
        ("warning", "N002", 1, 0, 1, 1, "hit without a star"),
    ]


def test_player_profile(con: duckdb.DuckDBPyConnection) -> None:
    got = [pick(r, "player", "matches", "match_wins", "games", "game_wins", "gammons_won",
                "gammons_lost", "doubles", "doubled", "takes", "take_rate", "beavers", "drops")
           for r in rows(con, "player")]  # fmt: skip
    assert got == [
        ("Alice", 2, 1, 3, 3, 2, 0, 1, 0, 0, None, 0, 0),  # the money session has no winner
        ("Dave", 2, 1, 4, 2, 0, 1, 1, 2, 1, 0.5, 0, 1),  # dropped Carol's first double
        ("Bob", 1, 0, 2, 0, 0, 1, 0, 1, 1, 1.0, 0, 0),
        ("Carol", 1, 0, 3, 1, 0, 0, 2, 1, 1, 1.0, 0, 0),
    ]
    # A name is matched the way the dataset keys players: trimmed, case-folded.
    assert [r["player"] for r in rows(con, "player", name="  DAVE ")] == ["Dave"]
    assert [r["player"] for r in rows(con, "player", min_matches=2)] == ["Alice", "Dave"]


def test_matches(con: duckdb.DuckDBPyConnection) -> None:
    got = [pick(r, "date", "player", "opponent", "length", "score", "opponent_score", "result",
                "games", "errors", "warnings") for r in rows(con, "matches")]  # fmt: skip
    d1, d2 = dt.date(2019, 6, 1), dt.date(2020, 2, 2)
    # Each match from both sides, by player then date (undated last).
    assert got == [
        (d1, "Alice", "Bob", "5", 5, 0, "won", 2, 1, 1),  # M1: a P001 error, an N002 warning
        (None, "Alice", "Dave", "money", 3, 0, "money", 1, 0, 0),  # a backgammon: 3 points
        (d1, "Bob", "Alice", "5", 0, 5, "lost", 2, 1, 1),
        (d2, "Carol", "Dave", "3", 1, 5, "lost", 3, 0, 0),
        (d2, "Dave", "Carol", "3", 5, 1, "won", 3, 0, 0),
        (None, "Dave", "Alice", "money", 0, 3, "money", 1, 0, 0),
    ]


def test_head_to_head(con: duckdb.DuckDBPyConnection) -> None:
    got = [pick(r, "player", "opponent", "matches", "wins", "losses", "undecided", "win_rate",
                "points_won", "points_lost") for r in rows(con, "head-to-head")]  # fmt: skip
    assert got == [
        ("Alice", "Bob", 1, 1, 0, 0, 1.0, 5, 0),
        ("Alice", "Dave", 1, 0, 0, 1, None, 3, 0),  # a money session: neither won nor lost
        ("Bob", "Alice", 1, 0, 1, 0, 0.0, 0, 5),
        ("Carol", "Dave", 1, 0, 1, 0, 0.0, 1, 5),
        ("Dave", "Alice", 1, 0, 0, 1, None, 0, 3),
        ("Dave", "Carol", 1, 1, 0, 0, 1.0, 5, 1),
    ]


def test_every_statistic_has_a_test_here() -> None:
    tested = {
        "opening-rolls", "opening-plays", "opening-outcomes", "reply-plays", "first-mover",
        "match-equity", "cube-rates", "cube-timing", "take-outcomes", "gammon-by-cube",
        "gammon-by-score", "race-takes", "dice", "findings", "player", "matches",
        "head-to-head",
    }  # fmt: skip
    # The analysis's statistics need analysed matches: tests/analysis/test_stats_analysis.py.
    assert set(STATISTICS) == tested | set(STATISTICS_TESTED)


def test_unknown_parameter_and_statistic_are_refused(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(ValueError, match="no parameter 'bogus'"):
        get("dice").run(con, {"bogus": 1})
    with pytest.raises(KeyError, match="no statistic 'nope'"):
        get("nope")


def test_user_values_reach_sql_only_as_parameters(con: duckdb.DuckDBPyConnection) -> None:
    # A value that would break out of a quoted literal is just a name that matches nobody.
    assert rows(con, "player", name="x' OR '1'='1") == []
    for stat in STATISTICS.values():
        assert "'" not in stat.sql()
