"""`convert` loses nothing a record says: `.mat -> SGF -> .mat` and `SGF -> .mat -> SGF` give back
the same event record (tags, match information, header comments, each game's actions with
hidden plays and comments as written) and the same verified match, over every sample file and
a slice of each corpus folder; and GNU Backgammon still reads what bgparse writes as the match
it is."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from bgparse.model.carry import SGF_TAG_PREFIX, game_comments, mat_tag_value, split_mat_tag_value
from bgparse.model.events import (
    Action,
    Beaver,
    CannotMove,
    Comment,
    Double,
    Drop,
    HiddenPlay,
    IllegalPlay,
    MatchRecord,
    Raccoon,
    Resign,
    Roll,
    SetPosition,
    Take,
    Win,
)
from bgparse.model.findings import RecordError
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import iter_records, read_path
from bgparse.replay import replay
from bgparse.writers import write_mat, write_sgf
from tests.conftest import CORPUS, corpus_files
from tests.test_writers import assert_same

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "sample_logs").rglob("*") if p.is_file())

#: Every 25th file of each format in each corpus folder (the first at least): each producer
#: and dialect, in a bounded time.
CORPUS_SLICE = [
    p
    for folder in ("gnubg", "gnubg-sample", "gnubg-illegal", "real", "xg")
    for suffix in (".mat", ".txt", ".sgf")
    for p in sorted(
        q
        for q in ((CORPUS / folder).rglob("*") if (CORPUS / folder).is_dir() else ())
        if q.is_file() and q.suffix.lower() == suffix
    )[::25]
]

#: SGF root properties that say who wrote the file or how bgparse counted it, not the match.
_PROVENANCE = {"AP", "CA", "analysis_props"}
#: Rule fields of the match information: an SGF without `RU` leaves the rules to the reader's
#: defaults, and the SGF bgparse writes states them (GNU reads a missing RU as no Crawford).
_RULE_FIELDS = ("variation", "crawford", "jacoby", "beaver", "cube_limit")


def convert(record: MatchRecord, to: str) -> list[MatchRecord]:
    """What `bgparse convert --to TO` writes for the record, read again."""
    m = replay(record)
    notes = game_comments(record, m)
    text = (
        write_mat(m, comments=record.comments, game_comments=notes)
        if to == "mat"
        else write_sgf(m, comments=record.comments, game_comments=notes)
    )
    return list(iter_records(text.encode("utf-8"), f"converted.{to}"))


#: Formats bgparse reads but does not write: their round trip is the `.mat` they convert to.
_READ_ONLY = frozenset({"gnutext"})


def round_trip(record: MatchRecord) -> MatchRecord:
    if record.format in _READ_ONLY:
        (written,) = convert(record, "mat")
        return written
    other = "sgf" if record.format == "mat" else "mat"
    (middle,) = convert(record, other)
    (again,) = convert(middle, record.format)
    return again


def by_place(notes: dict[int, list[tuple[int, str]]]) -> dict[int, list[tuple[int, str]]]:
    """Comments at the same place as one text, one line each."""
    out: dict[int, list[tuple[int, str]]] = {}
    for game, placed in notes.items():
        texts: dict[int, list[str]] = {}
        for n, text in placed:
            texts.setdefault(n, []).append(text)
        out[game] = [(n, "\n".join(t)) for n, t in texts.items()]
    return out


def hidden_plays(record: MatchRecord) -> list[tuple[int, int, tuple[int, ...], str]]:
    return [
        (g.number, a.side, tuple(sorted(a.dice)), a.text)
        for g in record.games
        for a in g.actions
        if isinstance(a, HiddenPlay)
    ]


def header(record: MatchRecord) -> dict[str, Any]:
    """What a record says of the match besides its games, as the format holds it."""
    info = dataclasses.asdict(record.info)
    if record.format in ("mat", *_READ_ONLY):
        tags: Any = list(record.tags)
    else:
        # Root properties: their order carries no meaning in SGF.
        tags = sorted((k, v) for k, v in record.tags if k not in _PROVENANCE | {"RU"})
        for name in _RULE_FIELDS:
            info.pop(name)
    return {
        "players": record.players,
        "length": record.length,
        "tags": tags,
        "info": info,
        "comments": record.comments,
        "scores": [g.score for g in record.games],
    }


def _action_key(a: Action) -> tuple[object, ...] | None:
    """An action as both formats can say it: the play itself is compared on the verified match
    (resolved steps), which notation (merged moves, `bar`, dice order) does not change."""
    if isinstance(a, Roll | CannotMove):
        return ("roll", a.side, tuple(sorted(a.dice)), isinstance(a, Roll) and bool(a.moves))
    if isinstance(a, SetPosition) and a.boards is None and a.cube_value is None and a.dice:
        # GNU's SGF `PL[B]DI[56]`: dice rolled and nothing played, a `.mat` file's `56:`.
        return ("roll", a.side_on_roll, tuple(sorted(a.dice)), False)
    if isinstance(a, SetPosition | IllegalPlay):
        return ("set-up",)  # Snowie's `Illegal play` dump is a set-up board (`; Set Pos=`)
    if isinstance(a, HiddenPlay):
        return ("hidden", a.side, tuple(sorted(a.dice)), a.text)
    if isinstance(a, Double | Beaver | Raccoon):
        return (type(a).__name__, a.side, a.value)
    if isinstance(a, Take | Drop):
        return (type(a).__name__, a.side)
    if isinstance(a, Resign):
        return ("resign", a.side, a.level)
    if isinstance(a, Win):
        # The points are compared on the verified match, which the writers write: a value the
        # rules cannot give (Studio's cube x 1004) is not kept. `and the match` follows from the
        # score.
        return ("win", a.side)
    if isinstance(a, Comment):
        return ("comment", a.text)
    return None  # Galaxy's `Losses N` mirrors the result line


def actions(record: MatchRecord) -> list[list[tuple[object, ...]]]:
    """Each game's actions as keys; set-ups in a row as one (SGF writes one node for them)."""
    out = []
    for game in record.games:
        keys: list[tuple[object, ...]] = []
        for a in game.actions:
            key = _action_key(a)
            if key is not None and not (key == ("set-up",) and keys and keys[-1] == key):
                keys.append(key)
        out.append(keys)
    return out


def assert_lossless(record: MatchRecord) -> None:
    again = round_trip(record)
    before, after = header(record), header(again)
    if record.format == "mat" and record.info.ratings != (None, None):
        # Ratings written after the names in the score line (GridGammon) come back as the tags
        # of GNU's SGF ratings: GNU's score line has names only.
        after["tags"] = [t for t in after["tags"] if t[0] not in ("SGF WR", "SGF BR")]
    assert after == before
    assert hidden_plays(again) == hidden_plays(record)
    original = replay(record)
    assert game_comments(again, replay(again)) == game_comments(record, original)
    if original.ok and not _cube_owned_at_one(original):
        # A record with errors is written as the replay reads it: its actions may change. A
        # position file (set-ups, no turn at all) has nothing to hang dice set without a play on.
        if any(g.turns for g in original.games):
            assert actions(again) == actions(record)
        final = replay(again)
        assert _rules_in_effect(final) == _rules_in_effect(original)
        assert_same(_ending_roll_not_played(original), _ending_roll_not_played(final), "sgf")


def _rules_in_effect(m: VerifiedMatch) -> dict[str, object]:
    """The rule set without the Crawford flag where no game can be the Crawford game (money, a
    1-point match): SGF writers state no Crawford rule there, and readers default it apart."""
    rules = dict(m.rules)
    if m.length <= 1:
        rules.pop("crawford", None)
    return rules


def _cube_owned_at_one(m: VerifiedMatch) -> bool:
    """A set-up cube of value 1 with an owner (Gibbon's `CO[b]`): XG's `; Set Pos=` line, the
    only set-up a `.mat` file has, writes a cube of 1 as centred."""
    return any(t.cube_value == 1 and t.cube_owner != -1 for g in m.games for t in g.turns) or any(
        g.cube == 1 and g.cube_owner != -1 for g in m.games
    )


def _ending_roll_not_played(m: VerifiedMatch) -> VerifiedMatch:
    """A game's last roll with nothing played: GNU's `.mat` export writes dice rolled before a
    resignation and a dance alike (`65:`), and its SGF `PL/DI` or a move without steps."""
    games = []
    for g in m.games:
        turns = list(g.turns)
        last = turns[-1] if turns else None
        if last and last.kind in ("hidden", "dance") and not last.steps and not last.written:
            turns[-1] = last._replace(kind="hidden")
        games.append(dataclasses.replace(g, turns=tuple(turns)))
    return dataclasses.replace(m, games=tuple(games))


def _records(path: Path) -> list[MatchRecord]:
    try:
        return read_path(path)
    except RecordError:
        pytest.skip("not a readable match record")


@pytest.mark.parametrize("path", SAMPLES, ids=[p.relative_to(ROOT).as_posix() for p in SAMPLES])
def test_every_sample_round_trips_through_the_other_format(path: Path) -> None:
    for record in _records(path):
        assert_lossless(record)


@pytest.mark.corpus
@pytest.mark.parametrize(
    "path", CORPUS_SLICE, ids=[p.relative_to(CORPUS).as_posix() for p in CORPUS_SLICE]
)
def test_corpus_slice_round_trips_through_the_other_format(path: Path) -> None:
    for record in _records(path):
        assert_lossless(record)


XG_HEADER = """\
; [Site "eXtreme Gammon"]
; [Match ID "-41239"]
; [Player 1 "Anna"]
; [Player 2 "Bo"]
; [Player 1 Elo "1612.50/204"]
; [Player 2 Elo "1540.00/17"]
; [EventDate "2024.05.06"]
; [EventTime "19.45"]
; [Transcriber "Carol: by hand"]
; [Variation "Backgammon"]
; [Unrated "On"]
; [Crawford "On"]
; [CubeLimit "64"]
"""

#: A hidden play in mid-game (one string per line: GNU's trailing blanks are layout).
HIDDEN_MID_GAME = XG_HEADER + "".join(
    line + "\n"
    for line in (
        "",
        " 3 point match",
        "",
        " Game 1",
        " Anna : 0                       Bo : 0",
        "  1) 31: 8/5 6/5                 42: 8/4 6/4 ",
        "  2) 33: ???                     61: 13/7 8/7 ",
        "  3)  Doubles => 2                Drops",
        "      Wins 1 point",
    )
)


#: Comment lines inside a game: before the first roll, between rows, after a left cell, after
#: the result.
COMMENTED_GAME = "".join(
    line + "\n"
    for line in (
        " 3 point match",
        "",
        " Game 1",
        " Anna : 0                       Bo : 0",
        "; before the first roll",
        "  1) 31: 8/5 6/5                 42: 8/4 6/4 ",
        "; between two rows",
        "  2) 33: 13/10 13/10 6/3 6/3     ",
        "; after a left cell",
        ";",
        "; and a blank one above",
        "  3)                             61: 13/7 8/7 ",
        "  4)  Doubles => 2                Drops",
        "      Wins 1 point",
        "; after the game",
    )
)


def test_comments_inside_games_survive_both_ways() -> None:
    [record] = iter_records(COMMENTED_GAME.encode(), "commented.mat")
    m = replay(record)
    assert m.ok
    notes = game_comments(record, m)
    assert notes == {
        0: [
            (0, "before the first roll"),
            (2, "between two rows"),
            (3, "after a left cell"),
            (3, ""),
            (3, "and a blank one above"),
            (6, "after the game"),
        ]
    }
    [middle] = convert(record, "sgf")
    sgf = write_sgf(replay(middle), game_comments=game_comments(middle, replay(middle)))
    assert "RE[W+1]C[before the first roll]" in sgf
    assert ";W[33mjmjfcfc]C[after a left cell\n\nand a blank one above]" in sgf
    assert ";B[drop]C[after the game])" in sgf
    # SGF has one comment per node: the three lines after the left cell are one `C`.
    assert by_place(game_comments(middle, replay(middle))) == by_place(notes)
    [again] = convert(middle, "mat")
    assert game_comments(again, replay(again)) == notes
    text = write_mat(replay(again), comments=again.comments, game_comments=notes)
    assert text == COMMENTED_GAME + "\n"  # GNU's layout: a blank line after each game


def test_every_mat_tag_and_a_hidden_play_survive_mat_to_sgf_to_mat() -> None:
    [record] = iter_records(HIDDEN_MID_GAME.encode(), "xg.mat")
    [middle] = convert(record, "sgf")
    # GNU's own properties say what GNU reads; the rest rides along in XT.
    assert middle.tag("PC") == "eXtreme Gammon" and middle.tag("DT") == "2024-05-06"
    assert middle.tag("AN") == "Carol: by hand"
    assert middle.info == record.info
    [again] = convert(middle, "mat")
    assert again.tags == record.tags
    assert again.info == record.info
    assert (again.info.match_id, again.info.event_time) == ("-41239", "19.45")
    assert (again.info.elo1, again.info.unrated, again.info.cube_limit) == (1612.5, True, 64)
    assert hidden_plays(again) == [(1, 0, (3, 3), "???")]
    text = write_mat(replay(again))
    assert "  2) 33: ???" in text  # not `33:`, which reads as a dance


def test_sgf_root_properties_survive_sgf_to_mat_to_sgf() -> None:
    sgf = (
        "(;FF[4]GM[6]CA[UTF-8]AP[someone:1]MI[length:3][game:0][ws:0][bs:0]PW[Alice]PB[Bob]"
        "WR[1612 (exp 300)]BR[1580]DT[2024-03-07]EV[Club]RO[Final]PC[Oslo]AN[Carol]"
        "US[Dave]SO[club book]GC[line one\nline two]RU[Crawford]RE[B+1]\n"
        ";W[31hefe]\n;B[double]\n;W[drop])\n"
    )
    [record] = iter_records(sgf.encode(), "x.sgf")
    [middle] = convert(record, "mat")
    assert ("SGF WR", "1612 (exp 300)") in middle.tags and ("SGF US", "Dave") in middle.tags
    assert middle.comments == ("line one", "line two")
    [again] = convert(middle, "sgf")
    assert header(again) == header(record)
    assert not any(k.startswith("XT") for k, _ in again.tags)  # nothing .mat-only to carry


def test_mat_tag_values_escape_and_split() -> None:
    for key, value in (("Site", "a]b\\c"), ("Odd:Key", "x:y"), ("K", "")):
        raw = mat_tag_value(key, value)
        assert split_mat_tag_value(raw) == (key, value)
    assert split_mat_tag_value("no colon") is None
    assert SGF_TAG_PREFIX == "SGF "


#: A resignation that wins the match, written with the points the winner needed (3) where it
#: was worth more (a gammon with the cube at 2: 4), as Backgammon Galaxy and Snowie write it.
CAPPED_RESIGNATION = "".join(
    line + "\n"
    for line in (
        " 3 point match",
        "",
        " Game 1",
        " Anna : 0                       Bo : 0",
        "  1) 31: 8/5 6/5                 42: 8/4 6/4 ",
        "  2)  Doubles => 2                Takes",
        "  3) 33: 13/10 13/10 6/3 6/3     ",
        "      Wins 3 points",
    )
)


def test_a_capped_resignation_keeps_its_level_in_sgf() -> None:
    [record] = iter_records(CAPPED_RESIGNATION.encode(), "capped.mat")
    m = replay(record)
    [game] = m.games
    assert (game.points, game.end, game.resign_level) == (3, "resign", 2)
    sgf = write_sgf(m)
    # RE says the worth, from which GNU takes the level (4 over the cube: a gammon); XR the
    # points the record wrote.
    assert "RE[W+4R]XR[3]" in sgf
    [again] = iter_records(sgf.encode(), "capped.sgf")
    [game] = replay(again).games
    assert (game.points, game.end, game.resign_level) == (3, "resign", 2)
    assert_lossless(record)


@pytest.mark.oracle
@pytest.mark.corpus
def test_gnubg_reads_what_convert_writes_with_carried_tags_and_hidden_plays(
    tmp_path: Path,
) -> None:
    """GNU's SGF lexer takes only one- or two-letter names (`XT`, `XW` must not upset it), and
    its `.mat` import must take `33: ???` and the tags it does not know."""
    from tests.test_gnubg_import_oracle import _oracle, _tools

    oracle, _ = _tools()
    [record] = iter_records(HIDDEN_MID_GAME.encode(), "xg.mat")
    m = replay(record)
    files = []
    for via, text in (("mat", write_mat(m, comments=record.comments)), ("sgf", write_sgf(m))):
        path = tmp_path / f"carried.{via}"
        path.write_text(text, encoding="utf-8")
        files.append(path)
    [middle] = convert(record, "sgf")
    path = tmp_path / "from-sgf.mat"
    path.write_text(write_mat(replay(middle), comments=middle.comments), encoding="utf-8")
    files.append(path)
    # Comment lines inside a game, and SGF `C` on the root and on move nodes.
    [commented] = iter_records(COMMENTED_GAME.encode(), "commented.mat")
    m = replay(commented)
    notes = game_comments(commented, m)
    for via, text in (
        ("mat", write_mat(m, game_comments=notes)),
        ("sgf", write_sgf(m, game_comments=notes)),
    ):
        path = tmp_path / f"commented.{via}"
        path.write_text(text, encoding="utf-8")
        files.append(path)
    # A capped resignation: GNU reads the SGF as it reads the `.mat` (a gammon, 4 points).
    capped = []
    [record] = iter_records(CAPPED_RESIGNATION.encode(), "capped.mat")
    for via, text in (("mat", CAPPED_RESIGNATION), ("sgf", write_sgf(replay(record)))):
        path = tmp_path / f"capped.{via}"
        path.write_text(text, encoding="utf-8")
        capped.append(path)
    out = _oracle(oracle, capped, False, tmp_path / "capped.jsonl")
    readings = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for row in readings:
        assert row["warnings"] == [] and row["final_score"] == [4, 0], row["file"]
        [game] = row["games"]
        assert (game["winner"], game["points_won"], game["end"], game["resign_level"]) == (
            0,
            4,
            "resign",
            2,
        )
    out = _oracle(oracle, files, False, tmp_path / "o.jsonl")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 5
    for row in rows:
        # GNU's `.mat` import takes a `;` line inside a game for a move it does not know: one
        # warning per file, and the same reading.
        expected = (
            ['Unrecognised move "; before the first roll" in .mat file.']
            if row["file"].endswith("commented.mat")
            else []
        )
        assert row["ok"] and row["warnings"] == expected, row["file"]
        assert row["players"] == ["Anna", "Bo"] and row["final_score"] == [1, 0]
        [game] = row["games"]
        assert (game["winner"], game["points_won"], game["end"]) == (0, 1, "drop")
        # gnubg keeps the hidden play `33: ???` as dice set, not as a move.
        moves = 4 if "commented" in row["file"] else 3
        assert (game["n_moves"], game["n_doubles"], game["n_drops"]) == (moves, 1, 1)


@pytest.mark.corpus
def test_corpus_slice_is_not_empty_where_the_corpus_is_present() -> None:
    if not CORPUS.is_dir():
        pytest.skip("no corpus")
    assert {p.relative_to(CORPUS).parts[0] for p in CORPUS_SLICE} >= {"gnubg", "real"}
    assert corpus_files("gnubg", "*.mat")


def test_a_rule_switched_off_stays_off_in_the_sgf_bgparse_writes() -> None:
    """bgparse writes RU as GNU does (only the rules in force), so its SGF reads as GNU's: no
    `Crawford` word means no Crawford rule, not the default."""
    text = '; [Crawford "Off"]\n\n' + CAPPED_RESIGNATION.replace(" 3 point match", " 5 point match")
    [record] = iter_records(text.encode(), "off.mat")
    assert replay(record).rules["crawford"] is False
    [middle] = convert(record, "sgf")
    assert middle.dialect == "bgparse-sgf" and middle.games[0].rules == ()
    assert replay(middle).rules["crawford"] is False


XG_FILES = corpus_files("xg", "*.xg")


@pytest.mark.corpus
@pytest.mark.parametrize("path", XG_FILES, ids=[p.name for p in XG_FILES])
def test_an_xg_match_header_survives_convert_to_mat_and_sgf(path: Path) -> None:
    """The `.xg` reader reads XG's match header into `.mat` tags: `convert` writes them all
    (`Match ID`, Elo, `EventTime`...), in the `.mat` file and in the SGF's `XT`."""
    for record in _records(path):
        [mat] = convert(record, "mat")
        assert mat.tags == record.tags
        [sgf] = convert(record, "sgf")
        carried = [(k[3:], v) for k, v in sgf.tags if k.startswith("XT:")]
        assert carried == list(record.tags)
        [again] = convert(sgf, "mat")
        assert again.tags == record.tags
        assert hidden_plays(again) == [(g, s, d, "???") for g, s, d, _t in hidden_plays(record)]


def test_convert_to_mat_says_which_cube_a_mat_cannot_write(tmp_path: Path) -> None:
    """A centred cube above 1 (an SGF money game started with automatic doubles, `CV[2]`) has
    no `.mat` spelling: XG's `; Set Pos=` line writes a centred cube as 1. `convert --to mat`
    says so for that file (its cube actions are written at their values), and says nothing
    for a file whose cube a `.mat` can write."""
    from typer.testing import CliRunner

    from bgparse.cli import app
    from bgparse.writers.mat import unwritable_cubes

    game = "(;FF[4]GM[6]MI[length:0][game:{n}][ws:0][bs:{bs}]PW[Al]PB[Bo]{cv}RE[B+{pts}]"
    body = ";W[31hefe];B[double];W[drop])\n"
    auto = (
        game.format(n=0, bs=0, cv="CV[2]", pts=2)
        + body
        + game.format(n=1, bs=2, cv="", pts=1)
        + body
    )
    plain = game.format(n=0, bs=0, cv="", pts=1) + body
    [record] = iter_records(auto.encode(), "auto.sgf")
    assert unwritable_cubes(replay(record)) == [
        "game 1's centred cube at 2, from automatic doubles"
    ]
    [record] = iter_records(plain.encode(), "plain.sgf")
    assert unwritable_cubes(replay(record)) == []
    (tmp_path / "auto.sgf").write_text(auto, encoding="utf-8")
    (tmp_path / "plain.sgf").write_text(plain, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["convert", str(tmp_path / "auto.sgf"), str(tmp_path / "plain.sgf"), "--to", "mat",
         "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].endswith(
        "auto.mat (a .mat cannot write game 1's centred cube at 2, from automatic doubles: "
        "the file reads back with other cube values)"
    )
    assert lines[1].endswith("plain.mat")
    # What the note warns of: the .mat reads the double to 4 from a cube of 1.
    [back] = read_path(out / "auto.mat")
    assert [f.code for f in replay(back).findings if f.code == "C005"] == ["C005"]
