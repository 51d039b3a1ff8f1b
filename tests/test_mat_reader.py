"""The .mat reader on small texts: layout, cells, notation, encodings and errors."""

from __future__ import annotations

import codecs
import contextlib
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bgparse.model.events import (
    Beaver,
    CannotMove,
    Comment,
    Double,
    Drop,
    HiddenPlay,
    IllegalPlay,
    Loss,
    Move,
    Resign,
    Roll,
    SetPosition,
    Take,
    Win,
)
from bgparse.model.findings import RecordError, Severity
from bgparse.readers import iter_records, mat
from bgparse.readers.mat import parse_move_word
from tests.conftest import corpus_dir

GNU_GAME = """\
; [Site "Somewhere"]
; [EventDate "2024.05.01"]

 7 point match

 Game 1
 Alice : 0                      Bob : 0
  1)                             31: 8/5 6/5
  2) 52: 13/8 13/11              42: 24/20 13/11
  3) 64: 24/18* 13/9              Doubles => 2
  4)  Takes                      21: 25/23 6/5
  5) 66:                          Drops
      Wins 2 points
"""


def read(text: str | bytes, path: str = "t.mat") -> list:  # type: ignore[type-arg]
    data = text.encode("utf-8") if isinstance(text, str) else text
    return list(iter_records(data, path))


def one(text: str | bytes):  # type: ignore[no-untyped-def]
    [rec] = read(text)
    return rec


def errors(rec) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.code for e in rec.errors if e.severity is Severity.ERROR]


def test_gnu_layout_reads_every_cell_with_its_side_and_place() -> None:
    rec = one(GNU_GAME)
    assert rec.players == ("Alice", "Bob")
    assert rec.length == 7
    assert rec.tags == (("Site", "Somewhere"), ("EventDate", "2024.05.01"))
    assert rec.info.event_date == "2024-05-01"
    [game] = rec.games
    assert game.number == 1 and game.score == (0, 0)
    kinds = [(type(a).__name__, a.side) for a in game.actions]
    assert kinds == [
        ("Roll", 1),
        ("Roll", 0),
        ("Roll", 1),
        ("Roll", 0),
        ("Double", 1),
        ("Take", 0),
        ("Roll", 1),
        ("Roll", 0),
        ("Drop", 1),
        ("Win", 0),
    ]
    first = game.actions[0]
    assert isinstance(first, Roll)
    assert first.dice == (3, 1)
    assert first.moves == (Move((8, 5), (False, False)), Move((6, 5), (False, False)))
    assert (first.span.line, first.span.column) == (8, 34)
    hit = game.actions[3]
    assert isinstance(hit, Roll) and hit.moves[0] == Move((24, 18), (False, True))
    win = game.actions[-1]
    assert isinstance(win, Win) and win.points == 2 and (win.span.line, win.span.column) == (13, 7)
    assert rec.errors == ()
    assert rec.dialect == "jellyfish"


def test_header_boxes_free_text_and_comments_are_kept_as_comments() -> None:
    text = """\
+------------------------+
|  Nordic Open, Final    |
+------------------------+
; a remark
# another
; [Event "Final"]
5 point match

Game 1
A : 0      B : 0
  1) 31: 8/5 6/5
"""
    rec = one(text)
    assert rec.comments[:3] == (
        "+------------------------+",
        "|  Nordic Open, Final    |",
        "+------------------------+",
    )
    assert "a remark" in rec.comments and "another" in rec.comments
    assert rec.info.event == "Final"
    assert rec.length == 5


def test_zero_point_match_is_a_money_session() -> None:
    assert one(GNU_GAME.replace(" 7 point match", "0 point match")).length == 0


@pytest.mark.parametrize(
    ("line", "names", "score"),
    [
        (" Alice : 3                      Bob : 1", ("Alice", "Bob"), (3, 1)),
        (" Alice: 3    Bob: 1", ("Alice", "Bob"), (3, 1)),  # no space before the colon
        (" lasse : 0                             : 0", ("lasse", ""), (0, 0)),  # empty name
        (" Kenneth Moore : 2      Joe(JPN) : 4", ("Kenneth Moore", "Joe(JPN)"), (2, 4)),
        (" 012345 : 0                   Bob : 0", ("012345", "Bob"), (0, 0)),
    ],
)
def test_score_line_variants(line: str, names: tuple[str, str], score: tuple[int, int]) -> None:
    rec = one(f" 7 point match\n\n Game 1\n{line}\n  1) 31: 8/5 6/5\n")
    assert rec.players == names
    assert rec.games[0].score == score


def test_name_with_rating_keeps_the_name_and_the_rating_apart() -> None:
    rec = one(
        " 5 point match\n\n Game 1\n Alice,1780 : 0          nori,1830.5 : 0\n  1) 31: 8/5 6/5\n"
    )
    assert rec.players == ("Alice", "nori")
    assert rec.info.ratings == (1780.0, 1830.5)
    assert rec.dialect == "gridgammon"


def test_drifting_columns_studio_style_row_numbers_grow() -> None:
    rows = "\n".join(f"  {i}) 31: 8/5 6/5                     42: 8/4 6/4" for i in range(8, 12))
    rec = one(f"13 point match\n\n\n Game 1\n A : 0                             B : 0\n{rows}\n")
    sides = [a.side for a in rec.games[0].actions]
    assert sides == [0, 1] * 4


def test_single_space_overflow_splits_on_the_second_dice() -> None:
    text = " 5 point match\n\n Game 1\n A : 0                      B : 0\n  4) 22: 22/20 20/18 18/16 16/14 63: 25/22 13/7\n"
    [left, right] = one(text).games[0].actions
    assert isinstance(left, Roll) and left.side == 0 and len(left.moves) == 4
    assert isinstance(right, Roll) and right.side == 1 and right.dice == (6, 3)
    assert right.span.column == 34


@pytest.mark.parametrize(
    ("word", "points"),
    [
        ("25/20", (25, 20)),
        ("bar/20", (25, 20)),
        ("Bar/20", (25, 20)),
        ("6/0", (6, 0)),
        ("6/off", (6, 0)),
        ("6/Off", (6, 0)),
        ("24/18/13", (24, 18, 13)),
    ],
)
def test_bar_and_off_spellings(word: str, points: tuple[int, ...]) -> None:
    mv = parse_move_word(word)
    assert mv is not None and mv.points == points


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("13/7*", Move((13, 7), (False, True))),
        ("13/7", Move((13, 7), (False, False))),
        ("4/2*(2)", Move((4, 2), (False, True), 2)),
        ("6/off(4)", Move((6, 0), (False, False), 4)),
        ("24/18*/13", Move((24, 18, 13), (False, True, False))),
        ("13/9,", Move((13, 9), (False, False))),
        ("1/-3", Move((1, -3), (False, False))),
    ],
)
def test_hit_stars_counts_and_chains(word: str, expected: Move) -> None:
    assert parse_move_word(word) == expected


@pytest.mark.parametrize("word", ["13", "x/y", "13/7(x)", "(2)", "13//7x"])
def test_words_that_are_no_move(word: str) -> None:
    assert parse_move_word(word) is None


def test_dice_in_either_order_and_all_three_dance_forms() -> None:
    text = (
        " 5 point match\n\n Game 1\n A : 0                      B : 0\n"
        "  1) 15: 13/8 6/5                 66:\n"
        "  2) 36: 24/21 24/18               44: \n"
        "  3) 21: 6/5 6/4                  55: Cannot Move\n"
    )
    acts = one(text).games[0].actions
    assert [a.dice for a in acts] == [(1, 5), (6, 6), (3, 6), (4, 4), (2, 1), (5, 5)]  # type: ignore[union-attr]
    assert isinstance(acts[1], Roll) and acts[1].moves == ()
    assert isinstance(acts[3], Roll) and acts[3].moves == ()
    assert isinstance(acts[5], CannotMove)


def test_cube_cells_long_arrow_beavers_and_redoubles_across_columns() -> None:
    text = (
        " 0 point match\n\n Game 1\n A : 0                      B : 0\n"
        "  1) 31: 8/5 6/5                 Doubles ==> 2\n"
        "  2) Beavers => 4                  Takes\n"
        "  3) 42: 8/4 6/4                 Redoubles => 8\n"
        "  4)  Drops\n"
        "      Wins 4 points\n"
    )
    acts = one(text).games[0].actions
    assert [type(a) for a in acts] == [Roll, Double, Beaver, Take, Roll, Double, Drop, Win]
    assert [a.side for a in acts] == [0, 1, 0, 1, 0, 1, 0, 0]
    assert isinstance(acts[1], Double) and acts[1].value == 2
    assert isinstance(acts[2], Beaver) and acts[2].value == 4
    assert isinstance(acts[5], Double) and acts[5].value == 8


def test_results_in_every_position() -> None:
    text = (
        " 7 point match\n\n Game 1\n A : 0                      B : 0\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
        "  2)  Drops                       Wins 1 point\n"
        "\n Game 2\n A : 0                      B : 1\n"
        "  1) 31: 8/5 6/5\n"
        "                                  Wins 2 points and the   Match\n"
        "\n Game 3\n A : 0                      B : 3\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
        "  2) 64: 24/18 13/9               Wins 1 point\n"
        "\n Game 4\n A : 0                      B : 4\n"
        " 33)  Losses 1 point                                               Wins 1 point and the match\n"
    )
    games = one(text).games
    assert [(type(a).__name__, a.side) for a in games[0].actions[2:]] == [("Drop", 0), ("Win", 1)]
    win2 = games[1].actions[-1]
    assert isinstance(win2, Win) and win2.side == 1 and win2.points == 2 and win2.and_match
    assert [(type(a).__name__, a.side) for a in games[2].actions[2:]] == [("Roll", 0), ("Win", 1)]
    loss, win4 = games[3].actions
    assert isinstance(loss, Loss) and loss.side == 0 and loss.points == 1
    assert isinstance(win4, Win) and win4.side == 1 and win4.and_match


def test_galaxy_row_number_inside_a_line_starts_a_row_of_its_own() -> None:
    text = (
        "5 point match\n\n Game 1\n A : 0                      B : 0\n"
        " 13) 62: 10/4 10/8               52: 16/11 11/9\n"
        " 14) 22: 13/11 13/11 4/2 5/3      14)  Losses 1 point"
        "                                               Wins 1 point and the match\n"
    )
    acts = one(text).games[0].actions
    assert [(type(a).__name__, a.side) for a in acts] == [
        ("Roll", 0),
        ("Roll", 1),
        ("Roll", 0),
        ("Loss", 0),
        ("Win", 1),
    ]


def test_hidden_plays_resignations_and_illegal_play_dumps() -> None:
    text = (
        " 7 point match\n\n Game 1\n A : 0                      B : 0\n"
        "  1) 31: 8/5 6/5                 42: ???\n"
        "  2) 00: ????                    Resign gammon\n"
        "  3) 63:  Illegal play (7;0;0;0;1;A;B;0;0;0;1;0;0;2;-2)\n"
    )
    acts = one(text).games[0].actions
    assert isinstance(acts[1], HiddenPlay) and acts[1].text == "???"
    assert isinstance(acts[2], HiddenPlay) and acts[2].dice == (0, 0)
    assert isinstance(acts[3], Resign) and acts[3].level == 2 and acts[3].side == 1
    assert isinstance(acts[4], IllegalPlay) and acts[4].fields[:3] == ("7", "0", "0")


def test_set_pos_lines_and_comments_inside_a_game() -> None:
    text = (
        "11 point match\n\n Game 1\n A : 0                      B : 0\n"
        "; Set Pos=-b----E-C---eE---c-e----B-/-1\n"
        "  1) 31: 8/5 6/5\n"
        "; a note\n"
    )
    acts = one(text).games[0].actions
    assert isinstance(acts[0], SetPosition)
    assert (acts[0].cube_value, acts[0].cube_owner) == (2, 0)
    assert "-b----E-C---eE---c-e----B-" in acts[0].text
    assert isinstance(acts[2], Comment) and acts[2].text == "a note"


def test_empty_numbered_rows_unnumbered_cells_blank_lines_and_no_final_newline() -> None:
    text = (
        "5 point match\n\n\n\n Game 1\n A : 0                      B : 0\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
        "  2)\n\n\n"
        "      Drops      \n"
        " 33)"
    )
    rec = one(text)
    assert errors(rec) == []
    assert [type(a).__name__ for a in rec.games[0].actions] == ["Roll", "Roll", "Drop"]


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: t.encode("utf-8"),
        lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
        lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
        lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
        lambda t: t.encode("utf-16-le"),
        lambda t: t.encode("utf-16-be"),
        lambda t: codecs.BOM_UTF32_LE + t.encode("utf-32-le"),
        lambda t: codecs.BOM_UTF32_BE + t.encode("utf-32-be"),
        lambda t: t.encode("cp1252"),
        lambda t: t.replace("\n", "\r\n").encode("utf-8"),
        lambda t: t.replace("\n", "\r").encode("utf-8"),
    ],
    ids=[
        "utf8",
        "utf8-bom",
        "utf16le-bom",
        "utf16be-bom",
        "utf16le",
        "utf16be",
        "utf32le-bom",
        "utf32be-bom",
        "cp1252",
        "crlf",
        "cr",
    ],
)
def test_encodings_and_line_endings_keep_names_and_positions(encode) -> None:  # type: ignore[no-untyped-def]
    text = GNU_GAME.replace("Alice", "Jérôme Ærø")
    rec = one(encode(text))
    assert rec.players == ("Jérôme Ærø", "Bob")
    first = rec.games[0].actions[0]
    assert (first.span.line, first.span.column) == (8, 34)


def test_tabs_are_read_at_eight_column_stops_for_sides() -> None:
    text = " 5 point match\n\n Game 1\n A : 0\t\t\t\tB : 0\n  1) 31: 8/5 6/5\t\t\t42: 8/4 6/4\n  2)\t\t\t\t43: 24/20 13/10\n"
    acts = one(text).games[0].actions
    assert [a.side for a in acts] == [0, 1, 1]


def test_several_matches_in_one_file_each_with_its_header() -> None:
    text = (
        GNU_GAME
        + '\n; [Site "Other"]\n\n 3 point match\n\n Game 1\n C : 0      D : 0\n  1) 31: 8/5 6/5\n'
    )
    first, second = read(text)
    assert (first.length, second.length) == (7, 3)
    assert second.players == ("C", "D") and second.info.site == "Other"
    assert first.info.site == "Somewhere"
    assert len(first.games[0].actions) == 10
    assert second.index == 1


def test_a_bad_line_is_reported_at_its_column_and_the_rest_is_kept() -> None:
    text = GNU_GAME.replace("  4)  Takes ", "  4)  Takes  %%garbage")
    rec = one(text)
    [err] = [e for e in rec.errors if e.severity is Severity.ERROR]
    assert err.code == "S005"
    assert (err.line, err.column) == (11, 14)
    assert "%%garbage" in err.message
    assert err.source_line is not None and "%%garbage" in err.source_line
    # Every other line of the game is still there.
    assert len(rec.games[0].actions) == 8


def test_an_unreadable_move_word_is_reported_where_it_stands() -> None:
    rec = one(GNU_GAME.replace("52: 13/8 13/11", "52: 13/8 xx/11"))
    [err] = [e for e in rec.errors if e.severity is Severity.ERROR]
    assert (err.code, err.line, err.column) == ("S006", 9, 15)


def test_a_truncated_last_game_is_reported_and_earlier_games_kept() -> None:
    text = GNU_GAME + "\n Game 2\n"
    rec = one(text)
    assert len(rec.games) == 1
    [err] = [e for e in rec.errors if e.severity is Severity.ERROR]
    assert err.code == "S008" and err.line == 15


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "S001"),
        (b"   \n\n", "S001"),
        (b"\x00\x01\x02\x03binary\x00\xff" * 50, "S002"),
        (b"PK\x03\x04rest", "S003"),
        (b"hello world\nno match here\n", "S004"),
        (b"GMD-2 # Created by Gibbon\n", "S003"),
        (b"%!PS-Adobe-3.0\n%%Creator: cairo\n", "S003"),
        (b"\\documentclass{article}\n\\begin{document}\n", "S003"),
        (b"<!DOCTYPE html>\n<html><body><pre> 7 point match\n", "S003"),
        (
            b"Move number 1:  a to play 31\n GNU Backgammon  Position ID: 4HPwATDgc/ABMA\n Match ID   : cAgAAAAAAAAA\n",
            "S003",
        ),
    ],
)
def test_unreadable_files_get_one_clear_error(data: bytes, code: str) -> None:
    with pytest.raises(RecordError) as info:
        read(data)
    assert info.value.finding.code == code
    assert str(info.value).startswith("t.mat:")


def test_a_stray_nul_byte_costs_its_move_not_the_file() -> None:
    """A NUL inside a text record (a bad copy, an editor) is damage at one place: the move
    that holds it is reported at its column, every other cell read. A file of NULs, or text
    behind a run of them, is still binary (S002)."""
    text = GNU_GAME.replace("52: 13/8 13/11", "52: 13/8 1\x003/11")
    rec = one(text)
    [err] = [e for e in rec.errors if e.severity is Severity.ERROR]
    assert (err.code, err.line, err.column) == ("S006", 9, 15)
    assert len(rec.games[0].actions) == 10
    with pytest.raises(RecordError) as info:
        read(b"\x00" * 512 + GNU_GAME.encode())
    assert info.value.finding.code == "S002"


def test_nul_padding_after_the_text_is_a_warning_and_the_record_is_read() -> None:
    """A copy cut short and filled with NULs (or a preallocated download): the padding is
    damage to the file, not to the record. S023 says so at the line where it starts and the
    record reads as without it, even where the padding is most of the file; a UTF-16 file's
    final NUL is half of its last character, not padding."""
    clean = one(GNU_GAME)
    for padding in (1, 50_000):
        rec = one(GNU_GAME.encode() + b"\x00" * padding)
        [warning] = rec.errors
        assert (warning.code, warning.severity, warning.line) == ("S023", Severity.WARNING, 14)
        assert f"{padding:,} NUL bytes" in warning.message
        assert rec.games == clean.games
    wide = one(codecs.BOM_UTF16_LE + GNU_GAME.encode("utf-16-le"))
    assert wide.errors == () and wide.games == clean.games


def test_a_huge_line_is_refused_where_it_stands_and_the_rest_read() -> None:
    text = GNU_GAME.replace("; [Site", "; " + "x" * 2_000_000 + "\n; [Site")
    rec = one(text)
    assert [e.code for e in rec.errors] == ["S007"]
    assert rec.errors[0].line == 1
    assert len(rec.games[0].actions) == 10


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_only_ever_give_bgparse_errors(data: bytes) -> None:
    with contextlib.suppress(RecordError):
        read(data)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_records_only_ever_give_bgparse_errors(data: st.DataObject) -> None:
    text = GNU_GAME
    pos = data.draw(st.integers(0, len(text)))
    insert = data.draw(st.text(alphabet="0123456789 /*():;?\n\tabDoWinsTakesGame-=>", max_size=12))
    cut = data.draw(st.integers(0, 8))
    with contextlib.suppress(RecordError):
        read(text[:pos] + insert + text[pos + cut :])


# --- finding match and game lines ----------------------------------------------------------

#: The definitions the reader's newline-led searches must agree with (`^` in multi-line mode).
_MATCH_LINE_DEF = re.compile(r"^[ \t]*(-?\d+)[ \t]*points?[ \t]+match\b[^\n]*$", re.M | re.I)
_GAME_LINE_DEF = re.compile(r"^[ \t]*game[ \t]+-?\d+\b", re.M | re.I)

#: Pieces the texts are made of: the words of the lines and what sits around them.
_LINE_PIECES = st.sampled_from(
    [
        "\n",
        " ",
        "\t",
        "\r",
        "-",
        "7",
        "12",
        " point",
        " points",
        "POINTS",
        " match",
        "Match",
        "matches",
        "game",
        "Game ",
        " 1",
        "x",
        ":",
        "ſ",
        "İ",
        "\u0661",
        " match\n",
        "Game 2\n",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE_PIECES, max_size=40).map("".join), st.data())
def test_match_and_game_lines_as_their_definitions(text: str, data: st.DataObject) -> None:
    got = [(m.start(), m.end(), m.group(1)) for m in mat._match_lines(text)]
    want = [(m.start(), m.end(), m.group(1)) for m in _MATCH_LINE_DEF.finditer(text)]
    assert got == want
    # The reader looks for game lines from the end of a match line: never from the text's
    # first character, nor from just after a newline (where `^` would match at the start).
    start = data.draw(st.integers(min(1, len(text)), len(text)))
    assume(text[start - 1 : start] != "\n")
    end = data.draw(st.integers(start, len(text)))
    games = [g.start() + 1 for g in mat._GAME_LINE_AFTER_NL.finditer(text, start, end)]
    assert games == [g.start() for g in _GAME_LINE_DEF.finditer(text, start, end)]


def test_match_and_game_lines_on_the_corpus() -> None:
    files = sorted(corpus_dir("gnubg").parent.glob("**/*.mat"))
    wrong = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = [m.span() for m in mat._match_lines(text)]
        games = [g.start() + 1 for g in mat._GAME_LINE_AFTER_NL.finditer(text, 1)]
        if lines != [m.span() for m in _MATCH_LINE_DEF.finditer(text)] or games != [
            g.start() for g in _GAME_LINE_DEF.finditer(text, 1)
        ]:
            wrong.append(path.name)
    assert len(files) > 400
    assert not wrong
