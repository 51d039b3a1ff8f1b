"""GNU Match IDs and XGIDs: the published vectors, the three-way cross-check and round trips."""

from __future__ import annotations

import pytest

from bgparse.rules import (
    IdError,
    MatchIdState,
    Position,
    XgidState,
    decode_match_id,
    decode_xgid,
    decode_xgid_board,
    encode_match_id,
    encode_xgid,
    encode_xgid_board,
)


def test_match_id_manual_example() -> None:
    # GNU manual: 9-point match, score 2-4, player 0 owns a 2-cube, player 1 rolled 52.
    state = decode_match_id("QYkqASAAIAAA")
    assert state.match_length == 9 and state.score == (2, 4)
    assert state.cube == 2 and state.cube_owner == 0
    assert state.on_roll == 1 and state.turn == 1 and state.dice == (5, 2)
    assert state.game_state == 1 and not state.crawford and not state.double_offered
    assert state.resignation == 0
    assert encode_match_id(state) == "QYkqASAAIAAA"


def test_match_id_money_start() -> None:
    state = decode_match_id("cAkAAAAAAAAA")
    assert state.match_length == 0 and state.score == (0, 0)
    assert state.cube == 1 and state.cube_owner == -1 and state.dice == (0, 0)
    assert state.game_state == 1
    assert encode_match_id(state) == "cAkAAAAAAAAA"


def test_match_id_fields_round_trip() -> None:
    state = MatchIdState(
        match_length=25,
        score=(24, 17),
        cube=64,
        cube_owner=1,
        on_roll=0,
        turn=1,
        crawford=True,
        game_state=3,
        double_offered=True,
        resignation=2,
        dice=(6, 6),
        jacoby=False,
    )
    assert decode_match_id(encode_match_id(state)) == state


def test_match_id_errors() -> None:
    with pytest.raises(IdError):
        decode_match_id("QYkqASAAIAA")
    with pytest.raises(IdError):
        decode_match_id("QYkqASAAIA!A")
    with pytest.raises(IdError, match="power of two"):
        encode_match_id(MatchIdState(cube=3))
    with pytest.raises(IdError, match="score"):
        encode_match_id(MatchIdState(score=(1 << 15, 0)))
    with pytest.raises(IdError, match="owner"):
        encode_match_id(MatchIdState(cube_owner=2))
    # cube owner bits = 2 is neither player nor centred
    with pytest.raises(IdError, match="owner"):
        decode_match_id("IAAAAAAAAAAA")


def test_gnubg_id_and_xgid_describe_the_same_position() -> None:
    # formats.md §7.3: one position three ways (BGBlitz export). GNU player 0 = XG lowercase.
    xg = decode_xgid("XGID=-B-CBBB---a---A---ABcbbbd-:1:-1:1:21:3:6:0:7:10")
    pos = Position.from_position_id("b9sBCIC5bYDQAA")
    match = decode_match_id("QYnoAGAAGAAE")
    assert xg.position() == pos
    assert match.on_roll == 1 and xg.turn == 1  # X (uppercase) = GNU player 1 is on roll
    assert match.match_length == xg.match_length == 7
    assert match.score == (xg.score_o, xg.score_x) == (6, 3)
    assert match.cube == xg.cube == 2
    assert match.cube_owner == 0 and xg.cube_owner == -1  # owned by lowercase = player 0
    assert sorted(match.dice) == sorted(xg.dice) == [1, 2]
    assert not match.jacoby and not match.crawford and xg.crawford_jacoby == 0


def test_xgid_money_start() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    xg = decode_xgid(text)
    assert xg.position() == Position.initial()
    assert xg.cube == 1 and xg.cube_owner == 0 and xg.dice == (0, 0) and xg.cube_action == ""
    assert encode_xgid(xg) == text


def test_xgid_real_export_with_lowercase_on_roll() -> None:
    text = "XGID=b-A-BaC-D---cB---bBcbb--A-:0:0:-1:52:0:0:1:0:10"
    xg = decode_xgid(text)
    assert xg.turn == -1 and xg.dice == (5, 2)
    pos = xg.position()
    assert pos.mover == xg.o and pos.opponent == xg.x
    assert pos.mover[25] == 2  # index 0 of the board is the lowercase player's bar
    assert pos.is_valid()
    assert encode_xgid(xg) == text


def test_xgid_board_alone() -> None:
    x, o = decode_xgid_board("-b----E-C---eE---c-e----B-")
    start = Position.initial()
    assert x == start.mover and o == start.opponent
    assert encode_xgid_board(x, o) == "-b----E-C---eE---c-e----B-"
    with pytest.raises(IdError, match="26 characters"):
        decode_xgid_board("-b----E-C---")
    with pytest.raises(IdError, match="character"):
        decode_xgid_board("-b----E-C---eE---c-e----B?")
    with pytest.raises(IdError, match="O's bar"):
        decode_xgid_board("Bb----E-C---eE---c-e----B-")
    with pytest.raises(IdError, match="both players"):
        encode_xgid_board(start.mover, Position.from_points({}, {6: 1}).opponent)


def test_xgid_cube_actions_and_errors() -> None:
    xg = decode_xgid("-b----E-C---eE---c-e----B-:2:1:-1:D:1:2:1:5:10")
    assert xg.cube_action == "D" and xg.dice == (0, 0) and xg.cube == 4 and xg.turn == -1
    assert decode_xgid(encode_xgid(xg)) == xg
    for bad in (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0",
        "XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10",
    ):
        with pytest.raises(IdError):
            decode_xgid(bad)
    with pytest.raises(IdError):
        encode_xgid(XgidState(x=xg.x, o=xg.o, cube_action="X"))
