"""`bgparse show FILE:GAME:MOVE` reads MOVE in the record's own numbering (`19`, `19a`, `19b`;
`t37` counts turns as before), says which move, column and turn it drew, and numbers SGF and
`.xg` records as their `.mat` export (GNU's layout) does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.model.findings import RecordError
from bgparse.readers import read_path
from bgparse.render.show import ShowError, from_record
from bgparse.replay import replay
from tests.conftest import SAMPLES, corpus_dir

BEAVERS = ("beaver", "raccoon")

runner = CliRunner()

#: Rows numbered as written, with a gap (a hand transcription's 3 and 4 left out), a row whose
#: left cell is empty and a double and take on rows of their own cells.
ROWS = """\
 3 point match

 Game 1
 Alice : 0                      Bob : 0
  1)                             42: 24/20 24/22
  2) 41: 6/5* 24/20               Doubles => 2
  5)  Takes                      61: 25/24 22/16
  6) 33: 13/10 8/5 6/3 6/3
"""


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.mat"
    path.write_text(ROWS, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("move", "heading", "on_roll"),
    [
        ("1", "5:34: game 1, move 1b, turn 1: Bob to play 42", "Bob"),
        ("1b", "5:34: game 1, move 1b, turn 1: Bob to play 42", "Bob"),
        ("2", "6:6: game 1, move 2a, turn 2: Alice to play 41", "Alice"),
        ("2B", "6:35: game 1, move 2b, turn 3: Bob doubles", "Bob"),
        ("5a", "7:7: game 1, move 5a, turn 4: Alice takes", "Bob"),  # Bob's board, doubled
        ("5b", "7:34: game 1, move 5b, turn 5: Bob to play 61", "Bob"),
        ("6", "8:6: game 1, move 6a, turn 6: Alice to play 33", "Alice"),
        ("t3", "6:35: game 1, move 2b, turn 3: Bob doubles", "Bob"),
        ("T6", "8:6: game 1, move 6a, turn 6: Alice to play 33", "Alice"),
    ],
)
def test_a_move_is_the_records_numbering_and_the_output_says_which(
    rows: Path, move: str, heading: str, on_roll: str
) -> None:
    result = runner.invoke(app, ["show", f"{rows}:1:{move}"])
    assert result.exit_code == 0, result.output
    first, second = result.stdout.split("\n")[:2]
    assert first == f"{rows}:{heading}"
    other = "Alice" if on_roll == "Bob" else "Bob"
    assert second.startswith(f"X = {on_roll} (on roll), O = {other}; 3-point match;")


@pytest.mark.parametrize(
    ("move", "error"),
    [
        ("3", "game 1 has no move 3 (its moves: 1-2, 5-6)"),
        ("1a", "game 1, move 1 has nothing in the left column (1b has)"),
        ("6b", "game 1, move 6 has nothing in the right column (6a has)"),
        ("t7", "game 1 has 6 turns (rolls and cube actions), no turn 7"),
    ],
)
def test_a_move_the_record_has_not_is_one_line_naming_what_it_has(
    rows: Path, move: str, error: str
) -> None:
    result = runner.invoke(app, ["show", f"{rows}:1:{move}"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"bgparse: {rows}: {error}\n"


def test_the_library_takes_the_same_moves_and_an_int_as_a_turn_count(rows: Path) -> None:
    assert from_record(rows, 1, "2b").heading == from_record(rows, 1, 3).heading
    with pytest.raises(ShowError, match="cannot read move '2c'"):
        from_record(rows, 1, "2c")


def test_sgf_and_xg_are_numbered_as_their_mat_export_and_draw_the_same_boards() -> None:
    folder = corpus_dir("xg")
    stem = "charlot1-charlot2_7p_2025-11-08-2305"
    trio = [folder / f"{stem}.{ext}" for ext in ("mat", "sgf", "xg")]
    lines = (folder / f"{stem}.mat").read_text(encoding="utf-8").splitlines()
    row7 = next(line for line in lines if line.startswith("  7) "))
    assert row7.startswith("  7) 41: 13/9 22/21") and "33: 14/11" in row7
    for move, said in (("7a", "charlot1 to play 41"), ("7b", "charlot2 to play 33")):
        shown = [from_record(path, 1, move) for path in trio]
        assert {s.heading[0].split(": ", 1)[1] for s in shown} == {
            f"game 1, move {move}, turn {13 if move == '7b' else 12}: {said}"
        }
        assert len({s.text().split("\n", 1)[1] for s in shown}) == 1  # the same board


def test_a_take_a_beaver_implies_leaves_its_place_to_the_play_written_there() -> None:
    beavers = SAMPLES / "mat" / "beavers.mat"
    row = beavers.read_text(encoding="utf-8").splitlines()[17]
    assert row == " 14)  Beavers => 32              32: 6/3* 3/1* "
    assert (
        from_record(beavers, 1, "14b")
        .heading[0]
        .endswith(":18:34: game 1, move 14b, turn 29: Judy to play 32")
    )
    assert (
        from_record(beavers, 1, "t28")
        .heading[0]
        .endswith(":18:34: game 1, move 14b, turn 28: Judy takes")
    )


def test_every_turn_of_the_samples_is_found_again_by_the_move_its_output_names() -> None:
    for path in sorted(SAMPLES.glob("*/*")):
        try:
            records = read_path(path)
        except RecordError:
            continue
        for game in replay(records[0]).games[:1] if records else ():  # (each call replays)
            for i, turn in enumerate(game.turns[:40]):
                implied = turn.kind == "take" and i and game.turns[i - 1].kind in BEAVERS
                try:
                    heading = from_record(path, game.number, i + 1).heading[0]
                except ShowError:  # a record that sets up no board (odd_nodes.sgf)
                    continue
                found = re.search(r"move (\d+[ab]), turn (\d+):", heading)
                assert found is not None and found.group(2) == str(i + 1)
                if not implied:
                    assert from_record(path, game.number, found.group(1)).heading[0] == heading
