"""Three definitions of docs/STATISTICS.md pinned on small records (issue 31): a third beaver
in a chain is a raccoon; which statistics count an unfinished game (each section's
`Unfinished:` line); and a record that starts with a side 1-away plays its first game as
post-Crawford, not as the Crawford game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect, run
from bgparse.questions.stats import STATISTICS
from tests.analysis.test_stats_analysis import STATISTICS_TESTED

from .conftest import write_inputs
from .factories import RACE, double, fake_verify, game, match, roll, take
from .test_right_facts import BEAVER_CHAIN, MIDWAY, imported

DOC = Path(__file__).parents[2] / "docs" / "STATISTICS.md"


def stat(data: Path, name: str, **values: Any) -> list[dict[str, Any]]:
    return STATISTICS[name].run(connect(data), values).to_pylist()


def test_a_third_beaver_in_a_chain_is_a_raccoon(tmp_path: Path) -> None:
    # Alice doubles to 2, Bob beavers to 4, Alice raccoons to 8, Bob redoubles again to 16:
    # the third redouble of the chain (the beaverer's again) is filed as a raccoon, like the
    # second, at its own level: kinds by cube offered.
    data = imported(tmp_path, {"beaver.mat": BEAVER_CHAIN})
    offers = [
        (r["cube_offered"], r["offer"], r["doubler"], r["response"])
        for r in run(connect(data), "SELECT * FROM cube_actions ORDER BY ply").to_pylist()
    ]
    assert offers == [
        (2, "double", 0, "beaver"),
        (4, "beaver", 1, "raccoon"),
        (8, "raccoon", 0, "raccoon"),
        (16, "raccoon", 1, "take"),
    ]
    kinds = {r["kind"]: r["offers"] for r in stat(data, "cube-rates")}
    assert kinds == {"initial": 1, "beaver": 1, "raccoon": 2, "all": 4}
    [bob] = [r for r in stat(data, "player") if r["player"] == "Bob"]
    assert (bob["doubles"], bob["beavers"]) == (0, 1)  # the beaver he answered Alice with


@pytest.fixture(scope="module")
def unfinished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 5-point match of two games: game 1 finished (Alice opens 31, doubles, Bob takes,
    Alice wins 2: not yet 1-away, so game 2 allows a double); game 2 stops unfinished after Bob opens 61, Alice replies 52 and Bob doubles
    in a race, taken."""
    spec = match(
        game(
            roll(0, "31", "8/5 6/5"),
            roll(1, "42", "8/4 6/4"),
            double(0),
            take(1),
            roll(0, "65", "24/18 18/13"),
            winner=0,
        ),
        game(
            roll(1, "61", "13/7 8/7"),
            roll(0, "52", "13/8 13/11"),
            double(1, pos=RACE, pips=(60, 66)),
            take(0),
            roll(1, "33", "6/3 6/3 6/3 6/3", pos=RACE),
            winner=None,
            end="unfinished",
        ),
        players=("Alice", "Bob"),
        length=5,
    )
    base = tmp_path_factory.mktemp("unfinished")
    run_import([write_inputs(base / "in", {"m.json": spec})], base / "data",
               ImportOptions(workers=1), verify=fake_verify)  # fmt: skip
    return base / "data"


def total(rows: list[dict[str, Any]], column: str) -> int:
    return sum(int(r[column] or 0) for r in rows if r.get("roll") != "total")


#: Per statistic, the count that says whether the unfinished game 2 is in: (column, with it,
#: without it). "kept" or "left out" must be what its section's `Unfinished:` line says.
COUNTS = {
    "opening-rolls": ("games", "left out", 1),
    "opening-plays": ("games", "kept", 2),
    "opening-outcomes": ("games", "left out", 1),
    "reply-plays": ("games", "kept", 2),
    "first-mover": ("games", "left out", 1),  # the `all` row too: 2 rows of 1
    "match-equity": ("n", "left out", 0),  # an unfinished match: none of its games
    "cube-rates": ("offers", "kept", 2),
    "cube-timing": ("first_doubles", "kept", 2),
    "take-outcomes": ("accepted", "kept", 2),
    "gammon-by-cube": ("games", "left out", 1),
    "gammon-by-score": ("games", "left out", 1),
    "race-takes": ("doubles", "kept", 1),
    "dice": ("n", "kept", 4),  # after the openings: 42 and 65 of game 1, 52 and 33 of game 2
    "player": ("games", "kept", 4),  # two games each, Alice and Bob
    "matches": ("games", "kept", 4),
    "head-to-head": ("undecided", "kept", 2),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_each_statistic_counts_an_unfinished_game_as_its_section_says(
    unfinished: Path, name: str
) -> None:
    column, verdict, want = COUNTS[name]
    rows = stat(unfinished, name)
    # the overall rows (player's length "all", cube-rates' kind "all") would count twice
    got = total([r for r in rows if "all" not in (r.get("length"), r.get("kind"))], column)
    assert got == want, (name, rows)
    assert _unfinished(name).startswith(verdict), name


def test_every_statistic_says_whether_unfinished_games_count() -> None:
    for name in STATISTICS:
        if name != "findings":
            assert _unfinished(name).startswith(("kept", "left out")), name
    # The analysis's statistics count decisions, an unfinished game's kept as every game's:
    # tests/analysis/test_stats_analysis.py recomputes them over every decision stored.
    assert set(STATISTICS) - {"findings"} - set(STATISTICS_TESTED) == set(COUNTS)


def test_unfinished_games_columns_of_outcomes_count_finished_games_only(
    unfinished: Path,
) -> None:
    # The offers of both games count; what became of them, game 1's only.
    [row] = stat(unfinished, "take-outcomes")
    assert (row["accepted"], row["finished"], row["doubler_wins"]) == (2, 1, 1)
    [alice] = [r for r in stat(unfinished, "player") if r["player"] == "Alice"]
    assert (alice["games"], alice["game_wins"], alice["game_win_rate"]) == (2, 1, 1.0)
    timing = [
        (r["move_no"], r["first_doubles"], r["games"]) for r in stat(unfinished, "cube-timing")
    ]
    assert timing == [(2, 2, 2)]


def test_a_record_starting_1_away_plays_post_crawford(tmp_path: Path) -> None:
    # MIDWAY starts at 4-1 in a 5-point match: its Crawford game is taken as played, so both
    # games are post-Crawford, doubles allowed (Bob doubles in each).
    data = imported(tmp_path, {"midway.mat": MIDWAY})
    phases = {(r["away_me"], r["away_opp"], r["phase"]) for r in stat(data, "match-equity")}
    assert phases == {
        (1, 4, "post-crawford"),
        (4, 1, "post-crawford"),
        (1, 3, "post-crawford"),
        (3, 1, "post-crawford"),
    }
    timing = [(r["move_no"], r["first_doubles"], r["games"]) for r in stat(data, "cube-timing")]
    assert timing == [(1, 2, 2)]  # both games allow a double; Bob's first comes at once
    rates = {(r["away_doubler"], r["away_taker"]): r["offers"] for r in stat(data, "cube-rates")}
    assert rates == {(4, 1): 1, (3, 1): 1, (None, None): 2}  # the last: the overall row


def _unfinished(name: str) -> str:
    """What `name`'s section says of unfinished games: its `Unfinished games:` sentence, or
    in a section of several statistics the clause (between semicolons) that names it."""
    body = " ".join(_sections()[name].split())
    found = re.search(r"Unfinished games: ([^.]*)\.", body)
    assert found, name
    clauses = [c.strip() for c in found.group(1).split(";")]
    if len(clauses) == 1:
        return clauses[0]
    [clause] = [c for c in clauses if re.search(rf"\b{re.escape(name)}\b", c)]
    return clause


def _sections() -> dict[str, str]:
    doc = DOC.read_text(encoding="utf-8")
    return {
        name.strip(): body
        for chunk in doc.split("\n## ")[1:]
        for title, _, body in [chunk.partition("\n")]
        for name in title.split(",")
    }
