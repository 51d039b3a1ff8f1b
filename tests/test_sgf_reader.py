"""Tests of the SGF reader: GNU Backgammon's own reading of real files, the hand-written samples
in sample_logs/sgf, one test per leniency (named after it), and fuzzing that only lets a
RecordError out."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Lark

from bgparse.helpers.resources import read_grammar
from bgparse.model.events import (
    Action,
    Beaver,
    Comment,
    Double,
    Drop,
    HiddenPlay,
    MatchRecord,
    Move,
    Resign,
    Roll,
    SetPosition,
    Span,
    Take,
    Win,
)
from bgparse.model.findings import RecordError, Severity, SyntaxRecordError
from bgparse.readers.sgf import iter_sgf_matches, looks_like_sgf
from bgparse.replay import replay

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs" / "sgf"
CORPUS = ROOT.parent / "shared" / "corpus"


def read(path: Path) -> list[MatchRecord]:
    return list(iter_sgf_matches(path.read_bytes(), str(path)))


def read_one(text: str | bytes) -> MatchRecord:
    records = list(iter_sgf_matches(text, "<test>"))
    assert len(records) == 1, records
    return records[0]


def sample(name: str) -> list[MatchRecord]:
    return read(SAMPLES / name)


def of(game_actions: tuple[Action, ...], kind: type) -> list[Any]:
    return [a for a in game_actions if isinstance(a, kind)]


def codes(record: MatchRecord) -> list[str]:
    return [f.code for f in record.errors]


HEAD = "(;FF[4]GM[6]CA[UTF-8]MI[length:3][game:0][ws:0][bs:0]PW[Al]PB[Bo]"


# --- GNU Backgammon's own reading of its files (truth files) ----------------------------------


def corpus_files(*folders: str) -> list[Any]:
    files = sorted(f for d in folders for f in CORPUS.glob(f"{d}/*.sgf"))
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus is absent"))]
    return [pytest.param(f, id=str(f.relative_to(CORPUS))) for f in files]


def truth_counts(game: Any) -> dict[str, int]:
    keys = ("n_moves", "n_dances", "n_doubles", "n_beavers", "n_takes", "n_drops", "n_resigns")
    return {k: game[k] for k in keys}


def our_counts(actions: tuple[Action, ...]) -> dict[str, int]:
    rolls = of(actions, Roll)
    # GNU counts every roll as a move (dances included) and every `double` node as a double
    # (beavers included); n_beavers counts the beavers among them.
    return {
        "n_moves": len(rolls),
        "n_dances": sum(1 for r in rolls if not r.moves),
        "n_doubles": len(of(actions, Double)) + len(of(actions, Beaver)),
        "n_beavers": len(of(actions, Beaver)),
        "n_takes": len(of(actions, Take)),
        "n_drops": len(of(actions, Drop)),
        "n_resigns": len(of(actions, Resign)),
    }


def as_truth_actions(actions: tuple[Action, ...]) -> list[dict[str, Any]]:
    """Our events in the shape of the truth files' action lists."""
    out: list[dict[str, Any]] = []
    for a in actions:
        if isinstance(a, Roll):
            steps = [list(m.points) for m in a.moves]
            out.append({"action": "move", "dice": list(a.dice), "move": steps, "player": a.side})
        elif isinstance(a, Double | Beaver):
            out.append({"action": "double", "player": a.side})
        elif isinstance(a, Take):
            out.append({"action": "take", "player": a.side})
        elif isinstance(a, Drop):
            out.append({"action": "drop", "player": a.side})
        elif isinstance(a, Resign):
            out.append({"action": "resign", "player": a.side, "points": a.level})
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files("gnubg", "gnubg-sample"))
def test_gnubg_files_match_gnubg_truth(path: Path) -> None:
    truth = json.loads(path.with_name(path.name + ".truth.json").read_text(encoding="utf-8"))
    (record,) = read(path)
    assert record.errors == ()
    assert record.format == "sgf" and record.dialect == "gnubg-sgf"
    assert list(record.players) == truth["players"]
    assert record.length == truth["match_length"]
    assert len(record.games) == truth["n_games"]
    assert record.info.crawford == truth["crawford_rule"]
    assert record.info.jacoby == truth["jacoby"]
    for game, expected in zip(record.games, truth["games"], strict=True):
        where = f"game {expected['game']}"
        assert game.number == expected["game"], where
        assert list(game.score) == expected["score_before"], where
        assert our_counts(game.actions) == truth_counts(expected), where
        (win,) = of(game.actions, Win)
        assert (win.side, win.points) == (expected["winner"], expected["points_won"]), where
        resigns = of(game.actions, Resign)
        assert [r.level for r in resigns] == ([expected["resign_level"]] * expected["resigned"])
        if "actions" in expected:
            ours = as_truth_actions(game.actions)
            theirs = [{k: v for k, v in a.items() if k != "board"} for a in expected["actions"]]
            for i, (mine, gnu) in enumerate(zip(ours, theirs, strict=False)):
                assert mine == gnu, f"{where}, action {i}: read {mine}, GNU read {gnu}"
            assert len(ours) == len(theirs), where


@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files("real/**"))
def test_real_sgf_files_read_without_errors(path: Path) -> None:
    records = read(path)
    assert records
    for record in records:
        assert record.errors == ()
        assert record.games
        assert all(g.actions for g in record.games)


@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files("gnubg-illegal"))
def test_illegal_sgf_edits_are_read_as_written(path: Path) -> None:
    # The edits make plays illegal, not the file: the reader keeps them for the replay.
    (record,) = read(path)
    assert record.errors == ()
    first = record.games[0].actions[0]
    assert isinstance(first, Roll) and first.side == 0
    if path.name == "sgf_die7.sgf":
        assert first.dice == (7, 2)
    if path.name == "sgf_threesub.sgf":
        assert len(first.moves) == 3


@pytest.mark.corpus
def test_gibbon_file_setup_nodes() -> None:
    path = CORPUS / "real" / "gitGNU__gnu_gibbon" / "src" / "edited.sgf"
    if not path.exists():
        pytest.skip("../shared/corpus is absent")
    (record,) = read(path)
    assert record.dialect == "gibbon-sgf"
    setups = of(record.games[0].actions, SetPosition)
    assert [s.cube_owner for s in setups if s.cube_owner is not None] == [0, 0]  # CO and CP
    board = next(s.boards for s in setups if s.boards is not None)
    assert sum(board[0]) == 15 and sum(board[1]) == 15
    assert board[1][25] == 2  # AB[y][y]: two black checkers on the bar


# --- the sample files ---------------------------------------------------------------------------


def test_multiple_trees_make_one_match() -> None:
    (record,) = sample("match_3pt.sgf")
    assert record.players == ("Alice", "Bob")
    assert record.length == 3
    assert [g.number for g in record.games] == [1, 2]
    assert [g.score for g in record.games] == [(0, 0), (1, 0)]
    assert [g.rules for g in record.games] == [("Crawford",), ("Crawford",)]
    assert record.info.event == "Club night" and record.info.round == "Final"
    assert record.info.site == "Oslo" and record.info.event_date == "2024-03-07"
    assert record.info.ratings == (1612.5, 1580.0)
    assert record.info.crawford is True
    assert record.tag("AN") == "Carol"
    # GNU's annotator: its `.mat` export writes it as the Transcriber tag, and reads it back.
    assert record.info.transcriber == "Carol"
    assert record.tag("MI") == "length:3][game:0][ws:0][bs:0"
    assert record.tag("analysis_props") == "0 0"
    assert record.comments == ("written by hand for the bgparse tests",)
    assert record.errors == ()


def test_moves_in_each_side_own_numbering() -> None:
    (record,) = sample("match_3pt.sgf")
    g1 = record.games[0]
    white, black = of(g1.actions, Roll)
    assert white.side == 0 and white.dice == (3, 1)
    assert white.moves == (Move((8, 5), (False, False)), Move((6, 5), (False, False)))
    assert black.side == 1 and black.dice == (6, 2)
    assert [m.points for m in black.moves] == [(24, 18), (13, 11)]
    assert of(g1.actions, Double) == [Double(0, 2, Span(4, 2, 9))]
    assert isinstance(g1.actions[-2], Drop) and g1.actions[-1] == Win(0, 1, False, Span(1, 214, 7))


def test_resignation_from_result() -> None:
    (record,) = sample("match_3pt.sgf")
    game = record.games[1]
    setup, resign, win = game.actions[-3:]
    # Rolled 65, then resigned: GNU writes the dice as a PL/DI node and the resignation only
    # in RE; the cube was taken at 2, so B+4 is a gammon.
    assert isinstance(setup, SetPosition)
    assert (setup.side_on_roll, setup.dice, setup.boards) == (0, (6, 5), None)
    assert resign == Resign(0, 2, "B+4R", resign.span)
    assert win == Win(1, 4, False, resign.span)
    assert resign.span.line == 6


def test_beaver_and_cube_values() -> None:
    (record,) = sample("money_beaver.sgf")
    assert record.length == 0 and record.info.jacoby is True
    g1, g2 = record.games
    cube = [a for a in g1.actions if isinstance(a, Double | Beaver | Take | Drop)]
    assert [type(a).__name__ for a in cube] == ["Double", "Beaver", "Take", "Double", "Drop"]
    assert [a.value for a in cube if isinstance(a, Double | Beaver)] == [2, 4, 8]
    assert [a.side for a in cube] == [1, 0, 1, 0, 1]
    assert g2.score == (4, 0)
    dance = of(g2.actions, Roll)[-1]
    assert dance.side == 0 and dance.dice == (6, 5) and dance.moves == ()


def test_setup_nodes() -> None:
    (record,) = sample("setup_bearoff.sgf")
    board, cube = of(record.games[0].actions, SetPosition)
    assert board.boards is not None
    white, black = board.boards
    assert len(white) == len(black) == 26
    assert (white[1], white[3], white[6], sum(white)) == (2, 2, 2, 6)
    assert (black[1], black[2], black[6], sum(black)) == (2, 1, 2, 5)
    assert board.side_on_roll == 0 and board.text.startswith("AE[a:y]AW[a]")
    assert (cube.cube_value, cube.cube_owner, cube.boards) == (2, 0, None)
    roll = of(record.games[0].actions, Roll)[0]
    assert [m.points for m in roll.moves] == [(3, 0), (1, 0)]  # z: off
    (double,) = of(record.games[0].actions, Double)
    assert double.value == 4  # the cube set to 2 by CV, redoubled


def test_comments_and_escapes() -> None:
    (record,) = sample("comments_escapes.sgf")
    assert record.players == ("Alice [A] Smith", "Bob\\Jones")
    comments = of(record.games[0].actions, Comment)
    assert comments[0].side is None  # the root node's comment
    assert comments[0].text == (
        "A game comment. Soft break above; hard break below.\nSecond line with ] and \\."
    )
    assert [(c.side, c.text) for c in comments[1:]] == [
        (0, "Good opening."),
        (1, "Black splits: 24/18 13/11"),
        (1, "Too strong to take."),  # a tab is white space: a space
    ]
    assert comments[1].span == Span(5, 11, 16)


def test_variations_keep_main_line() -> None:
    (record,) = sample("variations.sgf")
    actions = record.games[0].actions
    assert [m.points for m in of(actions, Roll)[1].moves] == [(24, 18), (13, 11)]
    assert not of(actions, Take) and not of(actions, Comment)
    assert record.errors == ()


def test_repeated_beavers_like_gnu() -> None:
    # GNU lets beavers follow one another (its .mat export writes each as `Beavers => N`).
    moves = ";W[31hefe];B[double];W[double];B[double];W[double];B[take];B[21ghgi]"
    record = read_one(HEAD.replace("length:3", "length:0") + "RE[W+32R]" + moves + ")")
    cube = [a for a in record.games[0].actions if isinstance(a, Double | Beaver)]
    assert [(type(a).__name__, a.side, a.value) for a in cube] == [
        ("Double", 1, 2),
        ("Beaver", 0, 4),
        ("Beaver", 1, 8),
        ("Beaver", 0, 16),
    ]
    resign, win = record.games[0].actions[-2:]
    assert isinstance(resign, Resign) and (resign.side, resign.level) == (1, 2)  # 32 = 2 x 16
    assert isinstance(win, Win) and (win.side, win.points) == (0, 32)


def test_analysis_properties_are_counted_not_read() -> None:
    text = (
        HEAD + "GS[M:1 2][C:0]RE[W+1]\n;W[31hefe]A[0][hefe E ver 3 0.5 0C]MR[]LU[0.1]"
        ";B[double]DA[E ver 3 0C 1]BC[1];W[drop]DO[])\n"
        + HEAD.replace("game:0", "game:1").replace("ws:0", "ws:1")
        + ";W[31hefe])"
    )
    record = read_one(text)
    assert record.tag("analysis_props") == "6 0"
    assert record.tag("GS") is None and record.tag("RE") == "W+1"
    assert [type(a).__name__ for a in record.games[0].actions] == ["Roll", "Double", "Drop", "Win"]


def test_two_matches_in_one_file() -> None:
    first, second = sample("two_matches.sgf")
    assert (first.index, first.players) == (0, ("Alice", "Bob"))
    assert (second.index, second.players) == (1, ("Carol", "Dave"))
    assert second.games[0].actions[-1] == Win(1, 1, False, Span(9, 90, 7))


def test_new_match_when_game_number_restarts() -> None:
    tree = HEAD.replace("game:0", "game:{n}") + "RE[W+1];W[31hefe];B[double];W[drop])\n"
    records = list(iter_sgf_matches(tree.format(n=0) + tree.format(n=1) + tree.format(n=0)))
    assert [len(r.games) for r in records] == [2, 1]
    assert [r.index for r in records] == [0, 1]


def test_score_from_earlier_results_without_ws_bs() -> None:
    tree = "(;FF[4]GM[6]MI[length:5]PW[Al]PB[Bo]RE[{re}];W[31hefe])\n"
    record = read_one(tree.format(re="W+2") + tree.format(re="B+1") + tree.format(re="W+1"))
    assert [g.score for g in record.games] == [(0, 0), (2, 0), (2, 1)]
    assert [g.number for g in record.games] == [1, 2, 3]


# --- one test per leniency (see the module docstring of bgparse.readers.sgf) ------------------


def test_junk_between_trees() -> None:
    (record,) = sample("junk_between_trees.sgf")
    assert len(record.games) == 2
    assert codes(record) == ["S013", "S013", "S013"]
    assert all(f.severity is Severity.WARNING for f in record.errors)
    assert [f.line for f in record.errors] == [1, 9, 15]


def test_lowercase_in_ident() -> None:
    (record,) = sample("comments_escapes.sgf")  # GaMe[6], PlayerWhite[...]
    assert record.tag("GM") == "6" and record.players[0] == "Alice [A] Smith"
    record = read_one(HEAD + "RE[W+1];Wmove[31hefe]lower[x]\n;B[double];W[drop])")
    assert of(record.games[0].actions, Roll)[0].dice == (3, 1)
    assert record.errors == ()


def test_game_zero_based() -> None:
    (record,) = sample("match_3pt.sgf")  # game:0, game:1
    assert [g.number for g in record.games] == [1, 2]
    one_based = HEAD.replace("game:0", "game:1").replace("MI[", "MI[BS:2][") + ";W[31hefe])"
    record = read_one(one_based.replace("[bs:0]", ""))
    assert record.games[0].number == 1  # a file that starts at 1 is taken as 1-based
    assert record.games[0].score == (0, 2)  # MI tags in any case and order


def test_co_for_cp() -> None:
    (record,) = sample("gibbon_style_setup.sgf")
    owner = of(record.games[0].actions, SetPosition)[0]
    assert (owner.cube_owner, owner.text) == (1, "CO[b]")
    record = read_one(HEAD + ";CO[n];CP[c];W[31hefe])")
    assert [s.cube_owner for s in of(record.games[0].actions, SetPosition)] == [None, -1]


def test_full_clear_setup() -> None:
    (record,) = sample("gibbon_style_setup.sgf")
    (board,) = [s for s in of(record.games[0].actions, SetPosition) if s.boards]
    assert board.boards is not None
    white, black = board.boards
    assert {i: n for i, n in enumerate(white) if n} == {6: 5, 8: 3, 13: 5, 24: 2}
    assert {i: n for i, n in enumerate(black) if n} == {6: 5, 8: 3, 13: 4, 24: 2, 25: 1}
    assert record.players == ("Alice", "Bob")  # PB written before PW
    assert record.games[0].score == (2, 3)
    # An edit without a full clear depends on the position before it: reported, not applied.
    record = read_one(HEAD + ";AE[a:f]AW[a];W[31hefe])")
    assert of(record.games[0].actions, SetPosition)[0].boards is None
    assert codes(record) == ["S011"]


def test_missing_close_paren() -> None:
    (record,) = sample("missing_paren.sgf")
    assert [g.number for g in record.games] == [1, 2]
    assert [len(g.actions) for g in record.games] == [5, 5]
    assert codes(record) == ["S010", "S010"]
    inner, end = record.errors
    assert (inner.line, inner.column) == (6, 1)
    assert "missing" in inner.message and end.message == "missing ')' at the end of the file"


def test_unterminated_value() -> None:
    (record,) = sample("truncated.sgf")
    actions = record.games[0].actions
    # The cut-off `B[dr` is dropped: half a move must not pass for a whole one.
    assert [type(a).__name__ for a in actions] == ["Roll", "Roll", "Double", "Win"]
    cut, end = record.errors
    assert (cut.code, cut.line, cut.column, cut.source_line) == ("S010", 5, 3, ";B[dr")
    assert "not closed" in cut.message and end.code == "S010"


def test_property_without_value() -> None:
    (record,) = sample("odd_nodes.sgf")
    missing = next(f for f in record.errors if f.code == "S010")
    assert (missing.line, missing.column, missing.message) == (3, 2, "property 'B' has no value")
    assert [r.side for r in of(record.games[0].actions, Roll)] == [0, 1, 0]


def test_duplicate_move() -> None:
    (record,) = sample("odd_nodes.sgf")
    dup = next(f for f in record.errors if f.code == "S011")
    assert (dup.severity, dup.line, dup.column, dup.game) == (Severity.WARNING, 2, 11, 1)
    first = record.games[0].actions[0]
    assert isinstance(first, Roll) and first.side == 0


def test_odd_dice() -> None:
    (record,) = sample("odd_nodes.sgf")
    roll = of(record.games[0].actions, Roll)[2]
    assert roll.dice == (7, 2) and [m.points for m in roll.moves] == [(8, 1), (6, 4)]


def test_other_games() -> None:
    first, _ = sample("two_matches.sgf")
    (skipped,) = first.errors
    assert (skipped.code, skipped.line, skipped.severity) == ("S013", 6, Severity.WARNING)
    assert "GM[1]" in skipped.message


def test_declared_charset() -> None:
    (record,) = sample("latin1_charset.sgf")
    assert record.players == ("Kévin", "Jörg")
    assert record.errors == ()
    tree = "(;FF[4]GM[6]CA[{}]MI[length:1]PW[Kévin]PB[Jörg];W[31hefe])"
    # Valid UTF-8 is UTF-8 whatever CA says; a charset that cannot be right (UTF-8 on bytes
    # that are not, UTF-16, not a text encoding, unknown) leaves decode's cp1252 (S009).
    assert read_one(tree.format("ISO-8859-1").encode("utf-8")).players[0] == "Kévin"
    cyrillic = tree.format("KOI8-R").replace("Kévin", "Кевин").replace("Jörg", "Юрий")
    assert read_one(cyrillic.encode("koi8-r")).players[0] == "Кевин"
    for charset in ("UTF-8", "UTF-16", "hex", "no-such-charset"):
        record = read_one(tree.format(charset).encode("latin-1"))
        assert record.players == ("Kévin", "Jörg") and codes(record) == ["S009"]


# --- values, spans, errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "side", "points"),
    [
        ("W[31hefe]", 0, [(8, 5), (6, 5)]),  # the spec's examples
        ("B[61yg]", 1, [(25, 18)]),
        ("W[66fzezdzcz]", 0, [(6, 0), (5, 0), (4, 0), (3, 0)]),
        ("W[11axxa]", 0, [(1, 24), (24, 1)]),
        ("B[11axxa]", 1, [(24, 1), (1, 24)]),
        ("B[21yxwz]", 1, [(25, 1), (2, 0)]),
    ],
)
def test_letters_to_own_points(move: str, side: int, points: list[tuple[int, int]]) -> None:
    record = read_one(HEAD + ";" + move + ")")
    (roll,) = of(record.games[0].actions, Roll)
    assert roll.side == side and [m.points for m in roll.moves] == points
    assert all(m.hits == (False, False) and m.count == 1 for m in roll.moves)


def test_unreadable_moves() -> None:
    record = read_one(HEAD + "\n;W[31hef];B[x1];W[];B[resign])")
    (hidden,) = record.games[0].actions
    assert hidden == HiddenPlay(0, (3, 1), "31hef", Span(2, 2, 8))
    assert codes(record) == ["S011"] * 4
    assert [f.column for f in record.errors] == [2, 11, 17, 21]
    assert all(f.game == 1 for f in record.errors)


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ("W+2", ["Win(0, 2)"]),
        ("B+6Resign", ["Resign(0, 3)", "Win(1, 6)"]),  # the spec's spelling; cube 1: level 3
        ("B+1r", ["Resign(0, 1)", "Win(1, 1)"]),
        ("W+R", ["Resign(1, None)"]),  # Go style: no points, so no Win line
        ("?", []),
        ("0", []),
    ],
)
def test_results(result: str, expected: list[str]) -> None:
    record = read_one(HEAD + f"RE[{result}];W[31hefe])")
    span = Span(1, len(HEAD) + 1, len(result) + 4)
    got = []
    for a in record.games[0].actions[1:]:
        assert isinstance(a, Resign | Win) and a.span == span
        if isinstance(a, Resign):
            assert a.text == result
            got.append(f"Resign({a.side}, {a.level})")
        else:
            assert not a.and_match
            got.append(f"Win({a.side}, {a.points})")
    assert got == expected
    assert record.errors == ()


def test_bad_result_is_reported() -> None:
    record = read_one(HEAD + "RE[white wins];W[31hefe])")
    assert codes(record) == ["S011"] and len(record.games[0].actions) == 1


def test_syntax_error_has_place_and_line() -> None:
    record = read_one(HEAD + "\n;W[31hefe] %% \n;B[62agln])")
    (f,) = record.errors
    assert (f.code, f.severity, f.line, f.column) == ("S010", Severity.ERROR, 2, 12)
    assert f.source_line == ";W[31hefe] %% " and "'%%'" in f.message
    assert len(of(record.games[0].actions, Roll)) == 2


def test_crlf_and_str_input_keep_lines() -> None:
    text = (SAMPLES / "match_3pt.sgf").read_text(encoding="utf-8")
    as_str = read_one(text)
    as_crlf = read_one(text.replace("\n", "\r\n").encode("utf-8"))
    assert as_str.games == as_crlf.games


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "S001"),
        ("   \n", "S001"),
        (b"\x00\x01\x02binary\x00" * 20, "S002"),
        ("; 7 point match\n Game 1\n", "S003"),
        ("(;FF[4]GM[1]SZ[19];B[pd])", "S003"),
        ("(((((((((((((((((((((((((((((((((((((", "S010"),
    ],
)
def test_unreadable_files_raise(data: str | bytes, code: str) -> None:
    with pytest.raises(SyntaxRecordError) as info:
        list(iter_sgf_matches(data, "x.sgf"))
    assert info.value.finding.code == code
    assert info.value.path == "x.sgf"


@pytest.mark.parametrize(
    "text",
    [
        "(;FF[4]GM[6])",
        "\ufeff  (\n ;\n GM [6] FF[4])",
        "(;CA[UTF-8]AP[x:1]MI[length:1][game:0]GM[6])",
        "(;C[a \\] comment]FF[4])",
    ],
)
def test_looks_like_sgf(text: str) -> None:
    assert looks_like_sgf(text)


@pytest.mark.parametrize(
    "text",
    ["", " 7 point match\n\n Game 1\n", "(;W[31hefe])", "(FF[4]GM[6])", "; (;FF[4])"],
)
def test_does_not_look_like_sgf(text: str) -> None:
    assert not looks_like_sgf(text)


def test_grammar_is_conflict_free() -> None:
    if importlib.util.find_spec("interegular") is None:
        pytest.skip("lark's strict mode needs interegular")
    Lark(read_grammar("sgf.lark"), parser="lalr", lexer="contextual", strict=True)


# --- fuzzing: only RecordError may come out ---------------------------------------------------


def check_reads_or_refuses(data: str | bytes) -> None:
    try:
        records = list(iter_sgf_matches(data, "fuzz.sgf"))
    except RecordError:
        return
    assert records
    for record in records:
        assert record.games
        for f in record.errors:
            assert f.line >= 0 and f.column >= 0


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SGF_ALPHABET = "()[];\\:+- \n\tABCDEGILMPRSUWabcdefghxyz0123456789é"


@FUZZ
@given(st.text(alphabet=SGF_ALPHABET, max_size=400))
def test_fuzz_sgf_like_text(text: str) -> None:
    check_reads_or_refuses(text)


@FUZZ
@given(st.text(max_size=300))
def test_fuzz_any_text(text: str) -> None:
    check_reads_or_refuses("(;FF[4]GM[6]" + text)
    check_reads_or_refuses(text)


@FUZZ
@given(st.binary(max_size=300))
def test_fuzz_any_bytes(data: bytes) -> None:
    check_reads_or_refuses(data)


def mutation_bases() -> list[str]:
    bases = [p.read_text(encoding="latin-1") for p in sorted(SAMPLES.glob("*.sgf"))]
    real = sorted((CORPUS / "gnubg-sample").glob("*.sgf"))[:2]
    bases += [p.read_text(encoding="utf-8")[:20000] for p in real]
    return bases


@FUZZ
@given(st.data())
def test_fuzz_mutated_sgf(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(mutation_bases()))
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(text)))
        kind = data.draw(st.sampled_from(["cut", "insert", "delete", "swap"]))
        if kind == "cut":
            text = text[:at]
        elif kind == "insert":
            text = text[:at] + data.draw(st.text(alphabet=SGF_ALPHABET, max_size=6)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + data.draw(st.integers(1, 8)) :]
        else:
            other = data.draw(st.integers(0, len(text)))
            text = text[:at] + text[other : other + 5] + text[at:]
    check_reads_or_refuses(text)
    check_reads_or_refuses(text.encode("utf-8"))


def test_gibbon_resignations() -> None:
    """Gibbon (libgsgf) writes a resignation as moves: `B[resign:4]` offers 4 points (the cube
    counted), `W[accept]`/`W[reject]` answers. An accepted offer reads as GNU reads RE[W+4R]:
    the level is the points over the cube; a rejected one leaves the game going on."""
    (record,) = sample("gibbon_resignations.sgf")
    assert codes(record) == []
    first, second = record.games
    assert first.actions[-2:] == (
        Resign(1, 2, "resign:4", first.actions[-2].span),
        Win(0, 4, False, first.actions[-1].span),
    )  # RE[W+4R] agrees: not read twice
    assert of(second.actions, Resign) == [
        Resign(0, 1, "resign:1", of(second.actions, Resign)[0].span)
    ]
    assert of(second.actions, Win)[0].side == 1
    m = replay(record)
    assert m.ok
    assert [(g.winner, g.points, g.end, g.resign_level) for g in m.games] == [
        (0, 4, "resign", 2),
        (1, 1, "resign", 1),
    ]
    assert m.final_score == (4, 1)
    # An answer without an offer, and an RE that disagrees: warnings, the moves stand.
    record = read_one(HEAD + ";W[31hefe];B[accept];B[resign:2];W[accept])")
    assert codes(record) == ["S011"]
    record = read_one(HEAD + "RE[B+1R];W[31hefe];B[resign:1];W[accept])")
    assert codes(record) == ["S011"]
    assert of(record.games[0].actions, Win) == [
        Win(0, 1, False, of(record.games[0].actions, Win)[0].span)
    ]
