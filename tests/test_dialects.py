"""One test per dialect quirk the .mat reader accepts, each on its sample in sample_logs/mat/
(written by tests/make_samples.py; docs/DIALECTS.md lists them all).

Every sample is a legal match, so besides the quirk itself each test checks that the record
replays without an error: a cell given to the wrong player or a step misread would show as an
illegal play."""

from __future__ import annotations

from pathlib import Path

from bgparse.model.events import (
    Beaver,
    CannotMove,
    Double,
    HiddenPlay,
    IllegalPlay,
    Loss,
    MatchRecord,
    Roll,
    SetPosition,
    Take,
    Win,
)
from bgparse.model.findings import Severity
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import read_path
from bgparse.replay import replay
from tests.conftest import SAMPLES

MAT = SAMPLES / "mat"


def sample(name: str) -> tuple[MatchRecord, VerifiedMatch]:
    [record] = read_path(MAT / name)
    return record, checked(record)


def checked(record: MatchRecord) -> VerifiedMatch:
    assert [e for e in record.errors if e.severity is Severity.ERROR] == []
    m = replay(record)
    errors = [f for f in m.findings if f.severity is Severity.ERROR]
    assert errors == [], errors
    return m


def actions(record: MatchRecord, kind: type) -> list:  # type: ignore[type-arg]
    return [a for _, a in record.iter_actions() if isinstance(a, kind)]


def text(name: str) -> str:
    return (MAT / name).read_bytes().decode("utf-8")


def test_quirk_gnu_export() -> None:
    record, m = sample("gnu_export.mat")
    assert record.dialect == "jellyfish"
    assert any(True in mv.hits for r in actions(record, Roll) for mv in r.moves)
    assert m.winner is not None


def test_quirk_optional_header_and_boxes() -> None:
    record, _ = sample("optional_header_and_boxes.mat")
    assert record.comments[0].startswith("+---")
    assert "transcribed from the score sheets" in record.comments
    assert (record.info.site, record.info.event, record.info.round) == (
        "Club",
        "Championship",
        "Final",
    )


def test_quirk_zero_point_match() -> None:
    record, m = sample("zero_point_match.mat")
    assert record.length == 0 and text("zero_point_match.mat").startswith("0 point match")
    assert m.winner is None and len(m.games) >= 2


def test_quirk_score_line_no_space_before_colon() -> None:
    record, _ = sample("score_line_no_space_before_colon.mat")
    assert all(name and ":" not in name for name in record.players)
    assert f"{record.players[0]}: 0" in text("score_line_no_space_before_colon.mat")


def test_quirk_score_line_empty_name() -> None:
    record, _ = sample("score_line_empty_name.mat")
    assert record.players[0] != "" and record.players[1] == ""


def test_quirk_score_line_name_with_rating() -> None:
    record, _ = sample("score_line_name_with_rating.mat")
    assert record.info.ratings == (1780.0, 1830.0)
    assert not any("," in name for name in record.players)
    assert record.dialect == "gridgammon"


def test_quirk_drifting_columns() -> None:
    record, m = sample("drifting_columns.txt")
    assert record.dialect == "backgammon-studio"
    assert "  10) " in text("drifting_columns.txt")  # the row number gains a digit
    assert sum(g.plays for g in m.games) > 40


def test_quirk_single_space_overflow() -> None:
    import re

    record, _ = sample("single_space_overflow.mat")
    touching = re.findall(r"\S \d\d: ", text("single_space_overflow.mat"))
    assert touching, "the sample has cells touching with one blank"
    assert {a.side for a in actions(record, Roll)} == {0, 1}


def test_quirk_bar_off_words() -> None:
    record, _ = sample("bar_off_words.txt")
    body = text("bar_off_words.txt")
    assert "bar/" in body and "/off" in body
    points = {p for r in actions(record, Roll) for mv in r.moves for p in mv.points}
    assert {25, 0} <= points


def test_quirk_bar_off_capitalised_crlf() -> None:
    record, _ = sample("bar_off_capitalised_crlf.txt")
    raw = (MAT / "bar_off_capitalised_crlf.txt").read_bytes()
    assert b"\r\n" in raw and b"Bar/" in raw and b"/Off" in raw
    assert record.dialect == "xg-text"


def test_quirk_missing_hit_stars() -> None:
    record, m = sample("missing_hit_stars.txt")
    assert record.dialect == "galaxy-a" and "*" not in text("missing_hit_stars.txt")
    assert sum(t.hits for g in m.games for t in g.turns) > 0  # hits recomputed from the board
    assert not [f for f in m.findings if f.code == "N002"]


def test_quirk_star_before_count() -> None:
    record, m = sample("star_before_count.txt")
    assert "*(" in text("star_before_count.txt")
    counted = [
        mv for r in actions(record, Roll) for mv in r.moves if mv.count > 1 and True in mv.hits
    ]
    assert counted
    assert not [f for f in m.findings if f.code.startswith("N")]


def test_quirk_repeat_counts_and_merged_steps() -> None:
    record, _ = sample("repeat_counts_and_merged_steps.txt")
    moves = [mv for r in actions(record, Roll) for mv in r.moves]
    assert any(mv.count > 1 for mv in moves)
    assert any(mv.points[0] - mv.points[-1] > 6 for mv in moves if mv.points[-1] != 0)


def test_quirk_dice_as_rolled() -> None:
    record, _ = sample("dice_as_rolled.txt")
    assert record.dialect == "xg-mobile"
    assert any(r.dice[0] < r.dice[1] for r in actions(record, Roll))


def test_quirk_dances_three_forms() -> None:
    record, m = sample("dances_three_forms.mat")
    body = text("dances_three_forms.mat")
    assert ": Cannot Move" in body
    empty = [r for r in actions(record, Roll) if not r.moves]
    assert len(empty) >= 2 and actions(record, CannotMove)
    dances = sum(g.dances for g in m.games)
    assert dances == len(empty) + len(actions(record, CannotMove))


def test_quirk_long_arrow() -> None:
    record, _ = sample("long_arrow.mat")
    assert "==>" in text("long_arrow.mat")
    assert actions(record, Double) and record.dialect == "choue-net"


def test_quirk_always_plural_points() -> None:
    record, _ = sample("always_plural_points.mat")
    assert "Wins 1 points" in text("always_plural_points.mat") or all(
        w.points > 1 for w in actions(record, Win)
    )


def test_quirk_beavers() -> None:
    record, m = sample("beavers.mat")
    assert record.length == 0 and actions(record, Beaver)
    # Jellyfish writes no 'Takes' after a beaver: the next roll is the take.
    for game in record.games:
        for a, b in zip(game.actions, game.actions[1:], strict=False):
            if isinstance(a, Beaver):
                assert not isinstance(b, Take)
    assert sum(g.beavers for g in m.games) == len(actions(record, Beaver))


def test_quirk_results_in_every_position() -> None:
    record, m = sample("results_in_every_position.mat")
    body = text("results_in_every_position.mat").split("\n")
    wins = actions(record, Win)
    on_drop_rows = [w for w in wins if "Drops" in body[w.span.line - 1]]
    own_lines = [w for w in wins if body[w.span.line - 1].lstrip().startswith("Wins")]
    assert on_drop_rows and own_lines
    assert [g.winner for g in m.games] == [w.side for w in wins]


def test_quirk_results_in_rows() -> None:
    record, m = sample("results_in_rows.txt")
    body = text("results_in_rows.txt").split("\n")
    wins = actions(record, Win)
    assert all(body[w.span.line - 1].lstrip()[0].isdigit() for w in wins)
    assert [g.winner for g in m.games] == [w.side for w in wins]


def test_quirk_losses_lines() -> None:
    record, m = sample("losses_lines.txt")
    losses = actions(record, Loss)
    assert losses
    winners = {g.number: g.winner for g in m.games}
    for game in record.games:
        for a in game.actions:
            if isinstance(a, Loss):
                assert a.side != winners[game.number]


def test_quirk_hidden_plays() -> None:
    record, m = sample("hidden_plays.txt")
    [hidden] = actions(record, HiddenPlay)
    assert hidden.text == "???"
    assert any(f.code == "P007" for f in m.findings)


def test_quirk_resign_before_roll() -> None:
    record, m = sample("resign_before_roll.txt")
    [hidden] = actions(record, HiddenPlay)
    assert hidden.dice == (0, 0) and hidden.text == "????"
    assert m.games[-1].end == "resign"


def test_quirk_illegal_play_dump() -> None:
    [record] = read_path(MAT / "illegal_play_dump.txt")
    [dump] = actions(record, IllegalPlay)
    assert len(dump.fields) >= 40
    m = replay(record)
    errors = [f for f in m.findings if f.severity is Severity.ERROR]
    assert [(f.code, f.line) for f in errors] == [("P009", dump.span.line)]
    # The board comes from the dump: every later play verifies.
    later = [t for g in m.games for t in g.turns if t.kind == "play" and t.line > dump.span.line]
    assert later and all(t.legal for t in later)


def test_quirk_set_pos_line() -> None:
    record, m = sample("set_pos_line.mat")
    [setup] = actions(record, SetPosition)
    assert setup.text.startswith("; Set Pos=")
    assert all(t.legal for g in m.games for t in g.turns if t.kind == "play")


def test_quirk_empty_numbered_rows() -> None:
    _record, _ = sample("empty_numbered_rows.txt")
    assert text("empty_numbered_rows.txt").rstrip().endswith("99)")


def test_quirk_missing_final_newline() -> None:
    record, m = sample("missing_final_newline.mat")
    assert not text("missing_final_newline.mat").endswith("\n")
    assert m.winner is not None and actions(record, Win)


def test_quirk_galaxy_stray_row_number() -> None:
    import re

    record, m = sample("galaxy_stray_row_number.txt")
    body = text("galaxy_stray_row_number.txt").split("\n")
    [line] = [i + 1 for i, ln in enumerate(body) if re.search(r"\d\d: .* \d+\)  Losses", ln)]
    on_line = [a for _, a in record.iter_actions() if a.span.line == line]
    kinds = [type(a).__name__ for a in on_line]
    assert kinds[-2:] == ["Loss", "Win"]
    # The row number starts a row of its own: Losses in its left cell, Wins in its right.
    loss, win = on_line[-2], on_line[-1]
    assert (loss.side, win.side) == (0, 1)
    assert m.games[-1].winner == 1


ACCENTED = ("Jérôme", "Åsa Ødegård")


def test_quirk_utf8_bom() -> None:
    assert (MAT / "utf8_bom.mat").read_bytes().startswith(b"\xef\xbb\xbf")
    record, _ = sample("utf8_bom.mat")
    assert record.players == ACCENTED


def test_quirk_utf16_bom() -> None:
    assert (MAT / "utf16_bom.mat").read_bytes().startswith(b"\xff\xfe")
    record, _ = sample("utf16_bom.mat")
    assert record.players == ACCENTED


def test_quirk_windows_1252() -> None:
    record, _ = sample("windows_1252.mat")
    assert record.players == ACCENTED
    assert [e.code for e in record.errors] == ["S009"]


def test_quirk_crlf_line_ends() -> None:
    record, _ = sample("crlf_line_ends.mat")
    assert record.players == ACCENTED
    utf8, _ = sample("utf8_bom.mat")
    assert [(a.span.line, a.span.column) for _, a in record.iter_actions()] == [
        (a.span.line, a.span.column) for _, a in utf8.iter_actions()
    ]


def test_quirk_tabs() -> None:
    assert "\t" in text("tabs.mat")
    record, _ = sample("tabs.mat")
    assert {a.side for a in actions(record, Roll)} == {0, 1}


def test_quirk_several_matches_in_one_file() -> None:
    first, second = read_path(MAT / "several_matches_in_one_file.mat")
    checked(first)
    checked(second)
    assert (first.length, second.length) == (1, 3)
    assert second.info.site == "Club" and first.info.site is None
    assert second.span.line > first.games[-1].span.line


def test_quirk_player_tags_not_column_order() -> None:
    record, _ = sample("player_tags_not_column_order.mat")
    assert record.info.player1 == record.players[1]
    assert record.info.player2 == record.players[0]


def test_every_sample_has_its_test() -> None:
    names = {p.stem for p in MAT.iterdir() if p.is_file()}
    here = Path(__file__).read_text(encoding="utf-8")
    assert all(f"def test_quirk_{name}(" in here for name in names), sorted(
        n for n in names if f"def test_quirk_{n}(" not in here
    )
