"""The Python API as a program meets it: move text applied or refused with a typed error, one
convention of who is on roll after a play, a board that prints, a named summary, a turn's
Position, and `read_path` over folders and archives as the command line walks them."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgparse.helpers.errors import InputError, NoSuchPath, RulesError, UsageError
from bgparse.readers import read_path
from bgparse.replay import replay
from bgparse.rules import (
    Position,
    PositionError,
    PositionSummary,
    diagram,
    legal_plays,
    verify_play,
)
from bgparse.rules.notation import PlayError
from tests.conftest import SAMPLES
from tests.rules.test_properties import positions

START = Position.initial()
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- Position.apply --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("13/10*/9", "move '13/10\\*/9' in '13/10\\*/9': no opposing checker on 10 to hit"),
        ("7/1", "move '7/1' in '7/1': 7/1: no checker of the mover on 7"),
        ("6/1", "move '6/1' in '6/1': 6/1: point 1 is blocked"),
        ("6/8", "move '6/8' in '6/8': 6/8: points out of range or backwards"),
        ("30/20", "move '30/20' in '30/20': 30/20: points out of range or backwards"),
        ("bar/20", "move 'bar/20' in 'bar/20': bar/20: no checker of the mover on the bar"),
        ("8/5 6/5 6/5(5)", "move '6/5\\(5\\)' in '8/5 6/5 6/5\\(5\\)': 6/5: no checker"),
    ],
)
def test_apply_refuses_move_text_it_cannot_make_with_a_typed_error(text: str, why: str) -> None:
    with pytest.raises(PositionError, match=f"^{why}") as caught:
        START.apply(text)
    assert isinstance(caught.value, RulesError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("text", ["13/x", "13-10", "13/", "/"])
def test_apply_refuses_text_that_is_not_notation(text: str) -> None:
    with pytest.raises(PlayError, match=f"cannot read move .* in '{text}'"):
        START.apply(text)


@pytest.mark.parametrize("steps", [[(13,)], ["ab"], [(13, 10.5)], [(True, 1)], [13]])
def test_apply_refuses_steps_of_the_wrong_shape(steps: list[object]) -> None:
    with pytest.raises(PositionError, match="not \\(src, dst\\) or \\(src, dst, hit\\) ints"):
        START.apply(steps)  # type: ignore[arg-type]


def test_apply_makes_text_with_hits_repeats_bar_and_off() -> None:
    pos = Position.from_points({13: 2, 6: 3, 8: 1, "bar": 1}, {10: 1, 20: 1, 4: 2})
    after = pos.apply("bar/20* 13/10*/9 6/off(2) 8/5")
    back = after.swap()  # the mover again
    assert back.mover[25] == 0 and back.mover[20] == 1 and back.mover[13] == 1
    assert back.mover[10] == 0 and back.mover[9] == 1 and back.mover[6] == 1
    assert back.mover[5] == 1 and back.off() == (pos.off()[0] + 2, pos.off()[1])
    assert back.opponent[25] == 2 and back.opponent[15] == 0 and back.opponent[5] == 0
    # A hit without its star is still a hit (the notation of many records).
    assert pos.apply("bar/20 13/10/9 6/off(2) 8/5") == after
    assert START.apply("") == START.swap()


@SETTINGS
@given(positions(), st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_apply_of_a_plays_text_and_steps_is_its_after(pos: Position, dice: tuple[int, int]) -> None:
    for play in legal_plays(pos, dice):
        assert pos.apply(play.notation) == play.after == pos.apply(play.steps)
        check = verify_play(pos, dice, play.notation)
        assert check.ok and check.after == play.after  # one convention: the other side on roll


# --- printing and the summary ----------------------------------------------------------------


def test_print_draws_the_board_and_repr_builds_it_again() -> None:
    pos = START.apply("13/10 6/5")
    assert str(pos) == diagram(pos)
    lines = str(pos).split("\n")
    assert len(lines) > 10 and all("Position" not in line for line in lines)
    assert sum(line.count("X") for line in lines) >= 4 and "O" in str(pos)
    assert repr(pos).startswith("Position.from_points(")
    assert eval(repr(pos), {"Position": Position}) == pos


@SETTINGS
@given(positions())
def test_summary_is_a_named_tuple_that_still_unpacks(pos: Position) -> None:
    summary = pos.summary()
    assert isinstance(summary, PositionSummary) and isinstance(summary, tuple)
    pid, mover_pips, opponent_pips, race = summary
    assert summary == (pid, mover_pips, opponent_pips, race)
    assert summary.position_id == pid == pos.position_id()
    assert (summary.mover_pips, summary.opponent_pips) == pos.pips()
    assert summary.race is race is pos.is_race()


# --- a turn's Position -------------------------------------------------------------------------


def test_a_turns_position_is_its_position_id_and_the_next_roll_follows_from_it() -> None:
    [record] = read_path(SAMPLES / "mat" / "gnu_export.mat")
    match = replay(record)
    followed = 0
    for game in match.games:
        for turn, after in zip(game.turns, game.turns[1:], strict=False):
            assert isinstance(turn.position, Position)
            assert turn.position.position_id() == turn.position_id
            # `pips` are the acting side's: an answer's (take, drop, beaver) is not on roll.
            answer = turn.kind in ("take", "drop", "beaver", "raccoon")
            assert turn.position.pips() == (turn.pips[::-1] if answer else turn.pips)
            if turn.kind == "play" and turn.legal and after.kind == "play":
                assert after.side != turn.side
                assert turn.position.apply(turn.steps) == after.position
                followed += 1
    assert followed > 50


# --- read_path -------------------------------------------------------------------------------


def _tree(tmp_path: Path) -> Path:
    top = tmp_path / "records"
    (top / "a").mkdir(parents=True)
    (top / "b").mkdir()
    (top / "a" / "m.mat").write_bytes((SAMPLES / "mat" / "gnu_export.mat").read_bytes())
    (top / "b" / "m.mat").write_bytes((SAMPLES / "mat" / "beavers.mat").read_bytes())
    with zipfile.ZipFile(top / "b" / "more.zip", "w") as zf:
        zf.write(SAMPLES / "sgf" / "match_3pt.sgf", "inner/match_3pt.sgf")
    return top


def test_read_path_walks_a_folder_and_its_archives_as_the_commands_do(tmp_path: Path) -> None:
    top = _tree(tmp_path)
    records = read_path(top)
    assert [(r.path, r.format) for r in records] == [
        (f"{top}/a/m.mat", "mat"),
        (f"{top}/b/m.mat", "mat"),
        (f"{top}/b/more.zip!inner/match_3pt.sgf", "sgf"),
    ]
    [one] = read_path(top / "a" / "m.mat")
    assert one.path == f"{top}/a/m.mat" and one.games == records[0].games
    [member] = read_path(top / "b" / "more.zip")
    assert member.path == records[2].path


def test_read_path_says_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(NoSuchPath, match=f"^{tmp_path}/nothing: no such file or folder$"):
        read_path(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match=r"empty: no files in this folder$"):
        read_path(tmp_path / "empty")
    top = _tree(tmp_path)
    (top / "a" / "notes.pdf").write_bytes(b"%PDF-1.4\n" + b"x" * 100)
    with pytest.raises(InputError, match=f"^{top}/a/notes.pdf:1:1: S003 this is a PDF document$"):
        read_path(top)
    (top / "a" / "notes.pdf").unlink()
    (top / "a" / "linked").symlink_to(top / "b")
    with pytest.raises(InputError, match=f"^{top}/a/linked: symlinked folder not followed$"):
        read_path(top)


def test_the_readmes_library_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (SAMPLES.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## As a library", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert 'read_path("matches/")' in code
    exec(code.replace('"matches/"', repr(str(SAMPLES / "mat" / "gnu_export.mat"))), {})
    out = capsys.readouterr().out
    assert "False wrong-dice" in out and str(Position.initial()) in out
    assert str(Position.initial().apply("13/10 24/23")) in out
