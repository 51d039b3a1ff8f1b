"""C006, the dead cube (RULES.md §3: "a cube beyond what either side needs is a dead cube:
legal, note it, score it"): noted at the take that makes the cube worth more than either side
still needs, such as a cube of 4 at 3-away 3-away; a cube short of it, or worth exactly what
both need, is not noted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app

runner = CliRunner()


def _match(length: int, score: int, rows: str, wins: str) -> str:
    return (
        f" {length} point match\n\n Game 1\n"
        f" Alice : {score}                          Bob : {score}\n"
        f"{rows}{wins}\n"
    )


_ALICE = "      "
_BOB = " " * 42
# Alice doubles to 2, Bob takes; Bob redoubles to 4, Alice takes; Bob wins a single.
_TWO_DOUBLES = """\
  1)  Doubles => 2                    Takes
  2)  31: 8/5 6/5                     Doubles => 4
  3)  Takes                           64: 24/18 13/9
"""
# Alice doubles to 2, Bob takes, and the game goes on at 2.
_ONE_DOUBLE = """\
  1)  Doubles => 2                    Takes
  2)  31: 8/5 6/5                     64: 24/18 13/9
"""


def _findings(tmp_path: Path, text: str) -> list[tuple[str, int, str]]:
    path = tmp_path / "m.mat"
    path.write_text(text)
    result = runner.invoke(app, ["validate", "--format", "json", str(path)])
    assert result.exit_code == 0, result.output
    [record] = [json.loads(line) for line in result.stdout.splitlines()]
    return [(f["code"], f["line"], f["message"]) for f in record["findings"]]


@pytest.mark.parametrize(
    ("length", "score"),
    [(3, 0), (9, 6)],  # a 3-point match at 0-0, GNU's 9-point match at 6-6: 3-away 3-away
)
def test_a_cube_of_4_taken_at_3_away_3_away_is_noted(
    tmp_path: Path, length: int, score: int
) -> None:
    text = _match(length, score, _TWO_DOUBLES, _BOB + "Wins 4 points and the match")
    found = _findings(tmp_path, text)
    if score:
        assert found.pop(0) == (
            "R007",
            3,
            f"the first game starts at {score}-{score}, not 0-0 (penalty points or a resumed match)",
        )
    assert found == [
        (
            "C006",
            7,
            f"a cube of 4 is dead: worth more than either side needs at {score}-{score} "
            f"(3-away, 3-away) in a {length}-point match",
        )
    ]


def test_a_cube_of_2_at_3_away_3_away_is_not_noted(tmp_path: Path) -> None:
    assert _findings(tmp_path, _match(3, 0, _ONE_DOUBLE, _ALICE + "Wins 2 points")) == [
        ("R004", 3, "the record ends at 2-0, short of the 3-point match (unfinished or cut short)")
    ]


def test_a_cube_worth_exactly_what_both_need_is_not_noted(tmp_path: Path) -> None:
    # 2-away 2-away (a 5-point match at 3-3): a cube of 2 is what each needs, not beyond it.
    assert _findings(
        tmp_path, _match(5, 3, _ONE_DOUBLE, _ALICE + "Wins 2 points and the match")
    ) == [("R007", 3, "the first game starts at 3-3, not 0-0 (penalty points or a resumed match)")]


def test_a_dead_cube_offered_and_dropped_is_not_noted(tmp_path: Path) -> None:
    rows = "  1)  Doubles => 2                    Takes\n  2)  31: 8/5 6/5                     Doubles => 4\n  3)  Drops\n"
    assert _findings(tmp_path, _match(3, 0, rows, _BOB + "Wins 2 points")) == [
        ("R004", 3, "the record ends at 0-2, short of the 3-point match (unfinished or cut short)")
    ]
