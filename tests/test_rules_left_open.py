"""Items left open in the rules: an XGID with a score in money play, a cube too large for the
dataset, and a single-game `.gam` file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.questions.query import connect, run
from bgparse.rules.cube import LARGEST_CUBE, CubeError, CubeState, PendingDouble
from bgparse.rules.ids import IdError, decode_xgid
from bgparse.rules.ruleset import RuleSet

runner = CliRunner()

_BOARD = "XGID=-b----E-C---eE---c-e----B-"


@pytest.mark.parametrize(
    ("scores", "field"),
    [("3:0", "score X 3"), ("0:2", "score O 2"), ("4:1", "score X 4")],
)
def test_show_refuses_an_xgid_with_a_score_in_money_play(scores: str, field: str) -> None:
    text = f"{_BOARD}:0:0:1:00:{scores}:0:0:10"
    result = runner.invoke(app, ["show", text])
    assert result.exit_code == 2
    assert result.output == (
        f"bgparse: XGID {text!r}: {field} in money play (match length 0), "
        "where the scores must be 0\n"
    )
    with pytest.raises(IdError, match=field):
        decode_xgid(text)


def test_an_xgid_of_money_play_at_0_0_and_of_a_match_with_a_score_are_read() -> None:
    assert decode_xgid(f"{_BOARD}:0:0:1:00:0:0:0:0:10").match_length == 0
    state = decode_xgid(f"{_BOARD}:0:0:1:00:3:1:0:7:10")
    assert (state.score_x, state.score_o, state.match_length) == (3, 1, 7)


# --- a cube past what the dataset can store -------------------------------------------------

# A money session whose set-up cube (2**30) and the double after it pass the largest cube
# bgparse keeps, then a match of its own: the dataset's int32 columns refused 2**31 and the
# whole file was quarantined.
_BIG_CUBE = """\
 0 point match

 Game 1
 Erin : 0                       Judy : 0
; Set Pos=-b----E-C---eE---c-e----B-/30
  1) 31: 8/5 6/5                 Doubles => 2147483648
  2)  Takes                      51: 13/8 24/23
      Wins 2 points

 5 point match

 Game 1
 Erin : 0                       Judy : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
      Wins 1 point
"""


def test_a_cube_past_the_largest_is_a_finding_at_its_line_and_the_file_is_imported(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big-cube.mat"
    path.write_text(_BIG_CUBE)
    result = runner.invoke(app, ["validate", "--format", "json", str(path)])
    assert result.exit_code == 1
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    cube = [(f["code"], f["line"], f["reason"]) for f in first["findings"] if f["code"][0] == "C"]
    assert cube == [
        ("C005", 5, None),
        ("C001", 6, "beyond-largest-cube"),
        ("C005", 6, None),
    ]
    assert [f["message"] for f in first["findings"][:2]] == [
        "a cube of 1,073,741,824 is past 536,870,912, the largest cube bgparse keeps: "
        "read as 536,870,912",
        "a double to 1,073,741,824 passes 536,870,912, the largest cube bgparse keeps (a "
        "record's numbers have at most 9 digits): the cube stays at 536,870,912 "
        "[beyond-largest-cube]",
    ]
    assert first["games"][0]["cube"] == LARGEST_CUBE == 2**29
    assert second["ok"] and second["final_score"] == [1, 0]

    data = tmp_path / "data"
    result = runner.invoke(app, ["import", str(path), "--data", str(data), "--workers", "1"])
    assert result.exit_code == 0, result.output
    con = connect(data)
    assert run(con, "select status from imports").to_pylist() == [{"status": "imported"}]
    rows = run(con, "select match_length, final_cube from games order by match_length")
    assert rows.to_pylist() == [
        {"match_length": 0, "final_cube": LARGEST_CUBE},
        {"match_length": 5, "final_cube": 1},
    ]


def test_no_double_beaver_or_automatic_double_passes_the_largest_cube() -> None:
    top = CubeState(value=LARGEST_CUBE, owner=0)
    with pytest.raises(CubeError) as exc:
        top.offer(0)
    assert exc.value.code == "beyond-largest-cube"
    assert exc.value.recorded is not None and exc.value.recorded.take(1).value == LARGEST_CUBE
    offered = CubeState(value=LARGEST_CUBE // 2).offer(0)
    with pytest.raises(CubeError) as exc:
        offered.beaver(1, rules=RuleSet(beavers=3))
    assert exc.value.code == "beyond-largest-cube"
    with pytest.raises(CubeError) as exc:
        CubeState(value=LARGEST_CUBE).automatic_double(rules=RuleSet(automatic_doubles=1))
    assert exc.value.code == "beyond-largest-cube"
    assert CubeState(value=LARGEST_CUBE // 2).offer(0).pending == PendingDouble(0, LARGEST_CUBE)


# --- a single-game .gam file ------------------------------------------------------------------

# As GNU Backgammon's 'export game gam' writes one: the names, then the game's rows.
_GAM = """\
 Alice                          Bob

  1) 31: 8/5 6/5                 64: 24/18 13/9
  2) 62: 24/18 13/11             Doubles => 2
  3)  Takes                      43: 13/9 13/10
      Wins 2 points
"""
_S024 = (
    "warning: S024 a '.gam' file: {games} without a match line or scores, read as a money "
    "session from 0-0 (the record gives no match length)"
)


def test_a_single_game_gam_file_is_read_as_money_play_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "one.gam"
    path.write_text(_GAM)
    result = runner.invoke(app, ["validate", str(path)])
    assert (result.exit_code, result.output) == (
        0,
        f"{path}:1:2: {_S024.format(games='1 game')}\n"
        "     Alice                          Bob\n"
        "     ^\n"
        f"{path}: Alice vs Bob, money session, 1 game, final score 2-0\n"
        "1 file, 1 match: 0 errors, 1 warning; 0 matches with errors, 1 with warnings only\n",
    )
    [record] = (
        json.loads(line)
        for line in runner.invoke(app, ["validate", "-f", "json", str(path)]).stdout.splitlines()
    )
    [game] = record["games"]
    assert (record["length"], record["players"], game["cube"], game["takes"]) == (
        0,
        ["Alice", "Bob"],
        2,
        1,
    )
    data = tmp_path / "data"
    result = runner.invoke(app, ["import", str(path), "--data", str(data), "--workers", "1"])
    assert result.exit_code == 0, result.output
    rows = run(connect(data), "select match_length, n_games from matches").to_pylist()
    assert rows == [{"match_length": 0, "n_games": 1}]


def test_a_gammonempire_gam_file_of_two_games_is_read_as_one_session(tmp_path: Path) -> None:
    path = tmp_path / "two.gam"
    second = "  1) 52: 13/8 13/11              61: 13/7 8/7\n                                 Wins 1 point\n"
    path.write_text(_GAM + second)
    result = runner.invoke(app, ["validate", "-f", "json", str(path)])
    assert result.exit_code == 0, result.output
    [record] = (json.loads(line) for line in result.stdout.splitlines())
    assert [(g["number"], g["line"], g["winner"], g["points"]) for g in record["games"]] == [
        (1, 1, 0, 2),
        (2, 1, 1, 1),
    ]
    assert [g["score_before"] for g in record["games"]] == [[0, 0], [2, 0]]
    assert record["final_score"] == [2, 1]
    assert [(f["code"], f["message"]) for f in record["findings"]] == [
        ("S024", _S024.format(games="2 games").removeprefix("warning: S024 "))
    ]


def test_a_line_a_gam_file_cannot_read_is_reported_where_it_is(tmp_path: Path) -> None:
    path = tmp_path / "bad.gam"
    path.write_text(_GAM.replace("  3)  Takes", "     zz?? what\n  3)  Takes"))
    result = runner.invoke(app, ["validate", "-f", "json", str(path)])
    [record] = (json.loads(line) for line in result.stdout.splitlines())
    assert [(f["code"], f["line"], f["column"]) for f in record["findings"]] == [
        ("S024", 1, 2),
        ("S005", 5, 6),
    ]
    assert record["games"][0]["takes"] == 1  # the rows after it are read
