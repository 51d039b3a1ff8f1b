"""Every rate of every statistic is empty exactly when its denominator is 0 (docs/STATISTICS.md):
a numerator of 0 gives 0, never an empty cell. Checked on the hand-made dataset and on the
gnubg-sample slice, unfiltered and narrowed to each match length, each player and both at
once, so that rows with no doubles, no gammons or no wins are met (issue 31: `stats player
--length 3` left `doubles_per_game` empty for a player who never doubled)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bgparse.analyze import AnalyzeOptions, run_analyze
from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.filters import Filters
from bgparse.questions.query import connect, run
from bgparse.questions.stats import STATISTICS
from tests.conftest import corpus_files

from .conftest import hand_matches, write_inputs
from .factories import fake_verify

Row = dict[str, Any]
Denominator = Callable[[Row, dict[str, Any]], int]


def col(name: str) -> Denominator:
    return lambda r, _: int(r[name])


def answered(r: Row, _: dict[str, Any]) -> int:
    return int(r["takes"] + r["drops"] + r["beavers"])


#: (statistic, rate column) -> its denominator, from the row (or from `facts`, the player's
#: decided matches and finished games, which the row does not show). Every column that reads
#: as a rate must be here: a new one is audited too.
RATES: dict[tuple[str, str], Denominator] = {
    ("opening-rolls", "win_rate"): col("games"),
    ("opening-rolls", "gammon_rate"): col("games"),
    ("opening-plays", "share"): col("roll_games"),
    ("opening-outcomes", "win_rate"): col("games"),
    ("opening-outcomes", "points_per_game"): col("games"),
    ("opening-outcomes", "gammon_rate"): col("games"),
    ("reply-plays", "share"): col("reply_roll_games"),
    ("first-mover", "mover_win_rate"): col("games"),
    ("first-mover", "game1_match_rate"): col("matches"),
    ("match-equity", "mwc"): col("n"),
    ("cube-rates", "take_rate"): answered,
    ("cube-rates", "drop_rate"): answered,
    ("cube-rates", "beaver_rate"): answered,
    ("cube-rates", "doubler_win_rate"): col("accepted_finished"),
    ("cube-timing", "share"): col("games"),
    ("cube-timing", "cumulative_share"): col("games"),
    ("take-outcomes", "doubler_win_rate"): col("finished"),
    ("take-outcomes", "recube_rate"): col("accepted"),
    ("take-outcomes", "doubler_gammon_rate"): col("finished"),
    ("take-outcomes", "taker_gammon_rate"): col("finished"),
    ("take-outcomes", "avg_final_cube"): col("accepted"),
    ("gammon-by-cube", "drop_rate"): col("games"),
    ("gammon-by-cube", "gammon_rate"): lambda r, _: int(r["games"] - r["dropped"]),
    ("gammon-by-cube", "backgammon_rate"): lambda r, _: int(r["games"] - r["dropped"]),
    # Mirrored rows show no won/lost split (their `note` says so): no denominator.
    ("gammon-by-score", "gammon_win_rate"): lambda r, _: 0 if r["note"] else int(r["games"]),
    ("gammon-by-score", "gammon_loss_rate"): lambda r, _: 0 if r["note"] else int(r["games"]),
    ("gammon-by-score", "gammon_rate"): col("games"),
    ("race-takes", "take_rate"): answered,
    ("race-takes", "taker_win_rate"): col("finished"),
    ("dice", "freq"): lambda r, f: int(f["rolls"]),
    ("dice", "expected_freq"): lambda r, f: 1,  # a constant: never empty
    ("player", "match_win_rate"): lambda r, f: int(f["decided"][r["player"]]),
    ("player", "game_win_rate"): lambda r, f: int(f["finished"][r["player"]]),
    ("player", "doubles_per_game"): col("games"),
    ("player", "take_rate"): col("doubled"),
    ("head-to-head", "win_rate"): lambda r, _: int(r["wins"] + r["losses"]),
    ("performance", "checker_error_rate"): col("checker_decisions"),
    ("performance", "cube_error_rate"): col("cube_decisions"),
    ("performance", "error_rate"): lambda r, _: int(r["checker_decisions"] + r["cube_decisions"]),
    ("match-performance", "checker_error_rate"): col("checker_decisions"),
    ("match-performance", "cube_error_rate"): col("cube_decisions"),
    ("match-performance", "error_rate"): lambda r, _: int(
        r["checker_decisions"] + r["cube_decisions"]
    ),
    ("cube-errors", "error_share"): col("decisions"),
    ("cube-errors", "cost_rate"): col("decisions"),
}


def is_rate(column: str) -> bool:
    return column.endswith(("_rate", "share", "_per_game", "freq", "mwc")) or column.startswith(
        "avg_"
    )


def facts(con: Any) -> dict[str, Any]:
    """What the rows do not show, counted from the filtered base tables."""
    sides = "(SELECT m.*, s.me FROM matches AS m, (VALUES (0), (1)) AS s(me))"
    name = "CASE me WHEN 0 THEN player0 ELSE player1 END"
    key = "CASE me WHEN 0 THEN player0_key ELSE player1_key END"
    decided = run(con, f"SELECT {key} AS k, min({name}) AS n, count(winner) AS c "
                       f"FROM {sides} GROUP BY k").to_pylist()  # fmt: skip
    finished = run(con, f"SELECT {key} AS k, count(g.winner) AS c FROM {sides} AS m "
                        "JOIN games AS g USING (match_uid) GROUP BY k").to_pylist()  # fmt: skip
    names = {r["k"]: r["n"] for r in decided}
    [rolls] = run(con, "SELECT n FROM bg_dice_distribution() WHERE roll = 'total'").to_pylist()
    return {
        "decided": {r["n"]: r["c"] for r in decided},
        "finished": {names[r["k"]]: r["c"] for r in finished},
        "rolls": rolls["n"],
    }


def slices(data: Path, *, crossed: bool, players: int | None = None) -> Iterator[Filters]:
    con = connect(data)
    lengths = [r["l"] for r in run(con, "SELECT DISTINCT match_length AS l FROM matches")
               .to_pylist()]  # fmt: skip
    names = [r["p"] for r in run(con, "SELECT DISTINCT player0 AS p FROM matches UNION "
                                        "SELECT player1 FROM matches").to_pylist()]  # fmt: skip
    yield Filters()
    for length in lengths:
        yield Filters(length=length)
    for player in sorted(names)[:players]:
        yield Filters(player=player)
        for length in lengths if crossed else ():
            yield Filters(player=player, length=length)


def audit(data: Path, *, crossed: bool = True, players: int | None = None) -> int:
    """Check every rate of every statistic over every slice (`crossed`: each player with each
    length too; `players`: only so many players); the number of rates seen."""
    checked = 0
    for chosen in slices(data, crossed=crossed, players=players):
        con = connect(data, chosen)
        known = facts(con)
        for stat in STATISTICS.values():
            table = stat.run(con)
            rates = [c for c in table.column_names if is_rate(c)]
            for c in rates:
                assert (stat.name, c) in RATES, f"{stat.name}.{c}: a rate the audit does not know"
            for row in table.to_pylist():
                if stat.name == "dice" and row["roll"] == "total":
                    continue  # its freq is 1 by definition, empty with no roll
                for c in rates:
                    n = RATES[stat.name, c](row, known)
                    where = (chosen.describe() or "unfiltered", stat.name, c, row)
                    assert (row[c] is None) == (n == 0), where
                    lo = c.removesuffix("_rate") + "_lo"
                    # match-equity's mirrored rows are 0.5 by construction, with no interval.
                    mirrored = stat.name == "match-equity" and row["note"] is not None
                    if lo in row and not mirrored:
                        assert (row[lo] is None) == (row[c] is None), where
                    checked += 1
    return checked


def test_no_rate_is_empty_over_a_denominator(tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path / "in", hand_matches())
    run_import([inputs], tmp_path / "data", ImportOptions(workers=1), verify=fake_verify)
    run_analyze(tmp_path / "data", AnalyzeOptions(workers=1))  # the analysis's rates too
    assert audit(tmp_path / "data") > 500


@pytest.mark.corpus
def test_no_rate_is_empty_over_a_denominator_in_the_sample(tmp_path: Path) -> None:
    files = corpus_files("gnubg-sample", "*.mat")
    if not files:
        pytest.skip("corpus folder gnubg-sample is absent")
    run_import(files, tmp_path / "data", ImportOptions(workers=1))
    assert audit(tmp_path / "data", crossed=False, players=4) > 5000


def test_a_player_who_never_doubled_doubles_0_per_game(tmp_path: Path) -> None:
    # The money session M3 (Alice-Dave): one game, no double.
    inputs = write_inputs(tmp_path / "in", hand_matches())
    run_import([inputs], tmp_path / "data", ImportOptions(workers=1), verify=fake_verify)
    con = connect(tmp_path / "data", Filters(length=0))
    rows = {r["player"]: r for r in STATISTICS["player"].run(con).to_pylist()}
    assert {p: (r["games"], r["doubles"], r["doubles_per_game"]) for p, r in rows.items()} == {
        "Alice": (1, 0, 0.0),
        "Dave": (1, 0, 0.0),
    }
