"""`bgparse show`: a board from a Position ID, an XGID or a turn of a record, text and SVG."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.rules import Position, legal_plays
from bgparse.rules.diagram import diagram
from tests.records import SHORT_MATCH_ILLEGAL

runner = CliRunner()

RECORD = SHORT_MATCH_ILLEGAL

START_ID = "4HPwATDgc/ABMA"
# 5-point match, score 2-1 (player 1 on roll), cube 2 owned by player 0, dice 5-2.
XGID = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:2:1:0:5:10"


@pytest.fixture
def record(tmp_path: Path) -> Path:
    p = tmp_path / "illegal.mat"
    p.write_text(RECORD, encoding="utf-8")
    return p


def checkers(svg: str) -> Counter[tuple[str, str]]:
    root = ET.fromstring(svg)
    return Counter(
        (el.get("data-side", ""), el.get("data-point", ""))
        for el in root.iter()
        if el.get("class") == "checker"
    )


def find(svg: str, cls: str) -> list[ET.Element]:
    return [el for el in ET.fromstring(svg).iter() if el.get("class") == cls]


def test_position_id_as_text_is_the_diagram() -> None:
    result = runner.invoke(app, ["show", START_ID])
    assert result.exit_code == 0, result.output
    assert diagram(Position.initial()) in result.output
    assert result.output.startswith(f"Position ID {START_ID}\n")


def test_position_id_with_match_id_as_svg() -> None:
    # Player 0 on roll, dice 3-1, 7-point match at 2-4, cube 2 owned by player 1.
    from bgparse.rules.ids import MatchIdState, encode_match_id

    mid = encode_match_id(
        MatchIdState(match_length=7, score=(2, 4), cube=2, cube_owner=1, dice=(3, 1))
    )
    result = runner.invoke(app, ["show", f"{START_ID}:{mid}", "--format", "svg"])
    assert result.exit_code == 0, result.output
    svg = result.output
    assert checkers(svg)[("mover", "6")] == 5 and checkers(svg)[("opponent", "19")] == 5
    [cube] = find(svg, "cube")
    assert (cube.get("data-value"), cube.get("data-owner")) == ("2", "opponent")
    assert [d.get("data-value") for d in find(svg, "die")] == ["3", "1"]
    [side] = find(svg, "side-mover")
    assert side.text == "X, pips 167, score 2 (on roll)"
    assert find(svg, "match-length")[0].text == "7-point match"


def test_xgid_text_and_svg(tmp_path: Path) -> None:
    result = runner.invoke(app, ["show", XGID])
    assert result.exit_code == 0, result.output
    assert "5-point match; score X 2, O 1; cube 2 owned by O; X to play 52" in result.output
    out = tmp_path / "board.svg"
    result = runner.invoke(app, ["show", XGID, "--format", "svg", "--out", str(out)])
    assert result.exit_code == 0 and result.output == ""
    svg = out.read_text(encoding="utf-8")
    drawn = checkers(svg)
    # The XGID board: X (on roll) has 2 on its 1... read back through the decoder.
    from bgparse.rules.ids import decode_xgid

    pos = decode_xgid(XGID).position()
    for p in range(1, 25):
        assert drawn[("mover", str(p))] == min(pos.mover[p], 5)
        assert drawn[("opponent", str(p))] == min(pos.opponent[25 - p], 5)
    assert [d.get("data-value") for d in find(svg, "die")] == ["5", "2"]
    [cube] = find(svg, "cube")
    assert (cube.get("data-value"), cube.get("data-owner")) == ("2", "opponent")


def test_xgid_with_o_on_roll_draws_o_as_the_mover() -> None:
    other = XGID.replace(":1:-1:1:52:", ":1:-1:-1:52:")
    result = runner.invoke(app, ["show", other, "--format", "svg"])
    assert result.exit_code == 0
    [cube] = find(result.output, "cube")
    assert cube.get("data-owner") == "mover"
    assert find(result.output, "side-mover")[0].text == "O, pips 167, score 1 (on roll)"


def test_record_turn_with_an_illegal_play_lists_the_legal_plays(record: Path) -> None:
    result = runner.invoke(app, ["show", f"{record}:1:t1"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith(f"{record}:5:6: game 1, move 1a, turn 1: Alice to play 42\n")
    assert diagram(Position.initial()) in out
    assert "recorded: 24/18 13/11\n" in out
    assert "error: P001 illegal play 42: 24/18 13/11 [wrong-dice]" in out
    legal = [p.notation for p in legal_plays(Position.initial(), (4, 2))]
    assert f"legal plays ({len(legal)}):\n" in out
    assert out.rstrip("\n").endswith("\n".join(f"  {p}" for p in legal))


def test_record_turn_as_svg_draws_the_recorded_play(tmp_path: Path) -> None:
    legal = tmp_path / "legal.mat"
    legal.write_text(RECORD.replace("42: 24/18 13/11", "42: 24/20 24/22"), encoding="utf-8")
    result = runner.invoke(app, ["show", f"{legal}:1:t2", "--format", "svg"])
    assert result.exit_code == 0, result.output
    svg = result.output
    arrows = sorted((a.get("data-from"), a.get("data-to")) for a in find(svg, "arrow"))
    assert arrows == [("24", "20"), ("6", "5")]
    # Bob's turn after Alice's 24/20 24/22: her checkers stand on his 5 and 3 points.
    drawn = checkers(svg)
    assert drawn[("opponent", "5")] == 1 and drawn[("opponent", "3")] == 1
    assert drawn[("opponent", "1")] == 0
    assert find(svg, "side-mover")[0].text == "Bob, pips 167, score 0 (on roll)"


def test_legal_turn_lists_no_plays(record: Path) -> None:
    result = runner.invoke(app, ["show", f"{record}:1:t2"])
    assert result.exit_code == 0
    assert "recorded: 6/5* 24/20" in result.output
    assert "legal plays" not in result.output


@pytest.mark.parametrize(
    ("what", "message"),
    [
        ("nonsense", "bgparse: cannot read 'nonsense': give a GNU Position ID"),
        ("nofile.mat:1:t2", "bgparse: nofile.mat: no such file"),
        ("AAAAAAAAAAAAAA", "bgparse: Position ID 'AAAAAAAAAAAAAA' decodes to an invalid"),
        (f"{START_ID}:zzz", "bgparse: Match ID must be 12 characters"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:5x:0:0:0:7:10", "bgparse: XGID"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(what: str, message: str) -> None:
    result = runner.invoke(app, ["show", what])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1


def test_missing_game_and_turn_are_one_line(record: Path) -> None:
    for what, message in (
        (f"{record}:3:1", f"bgparse: {record}: no game 3 (games: 1)\n"),
        (
            f"{record}:1:t9",
            f"bgparse: {record}: game 1 has 4 turns (rolls and cube actions), no turn 9\n",
        ),
    ):
        result = runner.invoke(app, ["show", what])
        assert result.exit_code == 2
        assert result.stderr == message


def test_unreadable_record_is_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.mat"
    junk.write_bytes(b"\x00\x01binary\x00" * 20)
    result = runner.invoke(app, ["show", f"{junk}:1:t1"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"bgparse: {junk}:")
    assert result.stderr.count("\n") == 1


def test_odd_file_names_are_found_and_shown_in_display_form(tmp_path: Path) -> None:
    # Issue 11: a name with a newline was not found at all ('.' stopped at the newline), and
    # one with a byte that is not UTF-8 was printed raw in the heading and the messages.
    for raw, shown in ((b"nl\nname.mat", "nl\\nname.mat"), (b"x\xff.mat", "x\\xff.mat")):
        target = os.path.join(os.fsencode(tmp_path), raw)
        with open(target, "wb") as f:
            f.write(RECORD.encode())
        name = os.fsdecode(target)
        ok = runner.invoke(app, ["show", f"{name}:1:t2"])
        assert ok.exit_code == 0, ok.output
        heading = ok.stdout_bytes.decode("utf-8").splitlines()[0]
        assert heading.startswith(f"{tmp_path}/{shown}:")
        svg = runner.invoke(app, ["show", f"{name}:1:t2", "-f", "svg"])
        assert svg.exit_code == 0
        ET.fromstring(svg.stdout_bytes.decode("utf-8"))  # well-formed, valid UTF-8
        missing = runner.invoke(app, ["show", f"{name}:1:t9"])
        assert missing.exit_code == 2
        assert missing.stderr_bytes.decode("utf-8").startswith(f"bgparse: {tmp_path}/{shown}: ")
        assert missing.stderr.count("\n") == 1


def test_a_huge_game_or_turn_number_is_one_line(record: Path) -> None:
    # Issue 11: 5,000 digits passed int()'s limit and printed a ValueError traceback.
    huge = "9" * 5000
    for what in (f"{record}:{huge}:1", f"{record}:1:{huge}"):
        result = runner.invoke(app, ["show", what])
        assert result.exit_code == 2
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.stderr.startswith(f"bgparse: {record}: no ")
        assert result.stderr.count("\n") == 1 and len(result.stderr) < 200


def test_a_turn_of_a_match_too_long_for_a_match_id_is_drawn(tmp_path: Path) -> None:
    # A length past the range (S014: 99999, or a huge number read as its bound) leaves the
    # turns without a Match ID: show said "no board to draw: Match ID must be 12 characters".
    record = tmp_path / "long.mat"
    record.write_text(RECORD.replace(" 3 point match", " 99999 point match"), encoding="utf-8")
    result = runner.invoke(app, ["show", f"{record}:1:t1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"{record}:5:6: game 1, move 1a, turn 1: Alice to play 42"
    assert lines[1] == "X = Alice (on roll), O = Bob; cube 1 centred; X to play 42"
    assert diagram(Position.initial()) in result.stdout
    svg = runner.invoke(app, ["show", f"{record}:1:t2", "-f", "svg"])
    assert svg.exit_code == 0
    assert ET.fromstring(svg.stdout).get("class") == "bg-board"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        # 5,000 digits passed int()'s limit: a ValueError traceback, or (under the limit) a
        # message of thousands of characters calling a number "not a number".
        (("9" * 5000, "0", "7"), "score X '99999999999999999999…' is too large"),
        (("0", "0", "9" * 5000), "match length '99999999999999999999…' is too large"),
        # A score that has reached the length is no position of that match: it was drawn.
        (("99999999999999999999", "0", "7"), "score X '99999999999999999999' is too large"),
        (("7", "0", "7"), "score X 7, O 0 out of range for a 7-point match"),
        (("0", "-1", "5"), "score X 0, O -1 out of range for a 5-point match"),
        (("0", "0", "-3"), "match length -3 out of range"),
    ],
)
def test_an_xgid_number_out_of_range_is_one_short_line(
    fields: tuple[str, str, str], message: str
) -> None:
    score_x, score_o, length = fields
    xgid = f"XGID=-b----E-C---eE---c-e----B-:0:0:1:52:{score_x}:{score_o}:0:{length}:10"
    result = runner.invoke(app, ["show", xgid])
    assert result.exit_code == 2
    assert result.stderr.startswith("bgparse: XGID 'XGID=")
    assert result.stderr.endswith(f": {message}\n")
    assert len(result.stderr) < 200


def test_an_xgid_score_below_the_length_is_drawn() -> None:
    result = runner.invoke(app, ["show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:6:5:0:7:10"])
    assert result.exit_code == 0
    assert "7-point match; score X 6, O 5" in result.stdout


def test_a_turn_of_a_member_or_compressed_record_by_its_label(tmp_path: Path) -> None:
    # validate and the validation report name a member `archive!member` and print a name in
    # its display form; the report's hint `bgparse show 'LABEL:GAME:MOVE'` answered "no such
    # file" for both, and a .gz record, which every command reads, was refused (S003).
    import gzip
    import zipfile

    with zipfile.ZipFile(tmp_path / "club.zip", "w") as zf:
        zf.writestr("r1/a.mat", RECORD)
        zf.writestr(zipfile.ZipInfo("r1/b\nc.mat"), RECORD)
    (tmp_path / "one.mat.gz").write_bytes(gzip.compress(RECORD.encode()))
    odd = os.path.join(os.fsencode(tmp_path), b"x\xff.mat")
    with open(odd, "wb") as f:
        f.write(RECORD.encode())
    for what, label in (
        (f"{tmp_path}/club.zip!r1/a.mat:1:t2", f"{tmp_path}/club.zip!r1/a.mat"),
        (f"{tmp_path}/club.zip!r1/b\\nc.mat:1:t2", f"{tmp_path}/club.zip!r1/b\\nc.mat"),
        (f"{tmp_path}/one.mat.gz:1:t2", f"{tmp_path}/one.mat.gz!one.mat"),
        (f"{tmp_path}/x\\xff.mat:1:t2", f"{tmp_path}/x\\xff.mat"),
    ):
        result = runner.invoke(app, ["show", what])
        assert result.exit_code == 0, (what, result.output)
        assert result.stdout.startswith(f"{label}:5:34: game 1, move 1b, turn 2: Bob to play 41\n")
    whole = runner.invoke(app, ["show", f"{tmp_path}/club.zip:1:t2"])
    assert whole.exit_code == 2
    assert whole.stderr == (
        f"bgparse: {tmp_path}/club.zip holds 2 records: name one as ARCHIVE!MEMBER:GAME:MOVE, "
        f"such as '{tmp_path}/club.zip!r1/a.mat:1:1'\n"
    )
    missing = runner.invoke(app, ["show", f"{tmp_path}/club.zip!r1/z.mat:1:t2"])
    assert (missing.exit_code, missing.stderr.count("\n")) == (2, 1)
    assert missing.stderr.startswith(f"bgparse: {tmp_path}/club.zip!r1/z.mat: no such file")
