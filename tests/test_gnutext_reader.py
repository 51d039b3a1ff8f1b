"""GNU Backgammon's text export (`export match text`) read as a match record.

Truth is GNU itself: the shared tools make gnubg play fresh matches and money sessions and write
each as `.mat` and as text (one file per game); every game read from its text file must replay
to what the `.mat` game replays to (score before, winner, points, cube, final position, every
turn's dice and steps), and each Position ID GNU prints before a roll must be the replay's.
The bglab exports (analysed at 0-ply by GNU) read with no error where their `.mat` twins read
with none. Skipped where gnubg or ../shared is absent."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.model.findings import Severity, SyntaxRecordError
from bgparse.model.verified import VerifiedGame
from bgparse.readers import iter_records, read_path
from bgparse.readers.gnutext import move_blocks
from bgparse.replay import replay
from tests.conftest import SHARED

GNUBG = Path("/usr/games/gnubg")
GENERATE = SHARED / "tools" / "gnubg" / "gen_corpus.py"
BGLAB = SHARED / "corpus" / "real" / "lassehjorthmadsen__bglab" / "data-raw" / "lasse"
MATCHES = 10
SEED = 612_000

#: The Position ID GNU prints under a `... to play DD` heading: the board before that roll.
_ROLL_ID = re.compile(
    r"^Move number \d+:  .* to play \d\d\n\n GNU Backgammon  Position ID: (\S+)", re.M
)


def _game(g: VerifiedGame) -> tuple[object, ...]:
    # Boards, not steps: the two exports may write one play's steps in another order
    # (`24/23 13/9`, `13/9 24/23`) and the replay may then split a merged move differently.
    turns = tuple(
        (t.kind, t.side, tuple(sorted(t.dice)) if t.dice else None, t.position_id) for t in g.turns
    )
    return (
        *(g.score_before, g.winner, g.points, g.end, g.cube, g.cube_owner, g.crawford),
        *(g.plays, g.doubles, g.takes, g.drops, g.final_position_id, turns),
    )


def _game_files(folder: Path, stem: str) -> list[Path]:
    """GNU's text export of one match: `stem.txt` for game 1, `stem_002.txt`... after it."""
    return [folder / f"{stem}.txt", *sorted(folder.glob(f"{stem}_[0-9][0-9][0-9].txt"))]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not GNUBG.exists():
        pytest.skip("GNU Backgammon is not installed (apt-get install gnubg)")
    if not GENERATE.is_file():
        pytest.skip(f"{GENERATE} is absent")
    out = tmp_path_factory.mktemp("gnutext")
    args = [sys.executable, str(GENERATE), str(out), str(MATCHES), str(SEED), "--formats",
            "mat,txt", "--cycle-lengths", "--money-frac", "0.3"]  # fmt: skip
    done = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.mark.oracle
def test_text_exports_replay_as_the_mat_of_the_same_match(fresh: Path) -> None:
    rows = [json.loads(line) for line in (fresh / "manifest.jsonl").read_text().splitlines()]
    assert len(rows) == MATCHES and all(r["ok"] for r in rows)
    games = ids = money = 0
    for row in rows:
        mat = fresh / row["files"]["mat"]
        overrides = {"jacoby": bool(row["jacoby"])} if not row["length"] else None
        [truth] = [replay(r, overrides) for r in read_path(mat)]
        texts = _game_files(fresh, mat.stem)
        assert len(texts) == len(truth.games), mat.name
        money += not row["length"]
        for number, (want, text) in enumerate(zip(truth.games, texts, strict=True), 1):
            [record] = read_path(text)
            assert (record.format, record.dialect) == ("gnutext", "gnubg-text")
            assert record.players == truth.players and record.length == truth.length
            [got] = [replay(record, overrides)]
            errors = [f for f in got.findings if f.severity is not Severity.INFO]
            assert errors == [], text.name
            # A later game's file is a match starting at its printed score, noted as such.
            assert ("R007" in {f.code for f in got.findings}) == (want.score_before != (0, 0))
            [game] = got.games
            assert game.number == number
            assert _game(game) == _game(want), text.name
            printed = _ROLL_ID.findall(text.read_text())
            rolled = [t.position_id for t in game.turns if t.dice is not None]
            assert printed == rolled, text.name
            games += 1
            ids += len(printed)
    assert money > 0 and games > MATCHES and ids > 100 * MATCHES


@pytest.mark.oracle
def test_a_whole_match_of_text_exports_in_one_file_reads_as_the_mat(fresh: Path) -> None:
    """Each file's score line starts a game: a match's game files joined into one text are the
    whole match, with no score mismatch between the games."""
    joined = 0
    rows = [json.loads(line) for line in (fresh / "manifest.jsonl").read_text().splitlines()]
    for row in rows:
        mat = fresh / row["files"]["mat"]
        texts = _game_files(fresh, mat.stem)
        if len(texts) < 2:
            continue
        overrides = {"jacoby": bool(row["jacoby"])} if not row["length"] else None
        [truth] = [replay(r, overrides) for r in read_path(mat)]
        whole = b"".join(t.read_bytes() for t in texts)
        [got] = [replay(r, overrides) for r in iter_records(whole, "whole.txt")]
        assert [f for f in got.findings if f.severity is not Severity.INFO] == [], mat.name
        assert [_game(g) for g in got.games] == [_game(g) for g in truth.games]
        assert (got.final_score, got.winner) == (truth.final_score, truth.winner)
        joined += 1
    assert joined > 0


def test_one_game_of_a_match_reads_from_its_printed_score(tmp_path: Path) -> None:
    text = _short_export()
    path = tmp_path / "m_003.txt"
    path.write_text(text)
    [record] = read_path(path)
    [game] = record.games
    assert (game.number, game.score, record.length) == (3, (1, 2), 5)
    assert record.tags == (("EventDate", "04/01/2024"), ("Site", "Galaxy"))
    assert record.info.ratings == (1650.0, None)
    kinds = [(type(a).__name__, a.side, a.span.line) for a in game.actions]
    assert kinds == [
        ("Roll", 1, 16),
        ("Roll", 0, 24),
        ("Double", 1, 28),
        ("Drop", 0, 32),
        ("Win", 1, 34),
    ]
    roll = game.actions[0]
    assert roll.span.column == 17 and roll.text == "24/18 13/10"  # type: ignore[union-attr]
    [vm] = [replay(record)]
    assert [f.code for f in vm.findings] == ["R007", "R004"]  # starts at 1-2, ends short
    assert (vm.games[0].winner, vm.games[0].points) == (1, 1)


def _short_export(
    *, first: str = "The score (after 2 games) is: Ann 1, Bob Lee 2 (match to 5 points)"
) -> str:
    board = (
        " GNU Backgammon  Position ID: 4HPwATDgc/ABMA\n                 Match ID   : cAgAAAAAAAAA\n"
    )
    return "\n".join(
        [
            first,
            "",
            "Match Information:",
            "Ann's rating: 1650",
            "Date: 04/01/2024",
            "Place: Galaxy",
            "",
            "Move number 1:  Bob Lee to play 63",
            "",
            board,
            "Pip counts: O 167, X 167",
            "",
            "",
            "* Bob Lee moves 24/18 13/10",
            "",
            "Move number 2:  Ann to play 66",
            "",
            board,
            "",
            "* Ann moves 24/18(2) 8/2(2)",
            "",
            "Move number 3:  Bob Lee on roll, cube decision?",
            "",
            "* Bob Lee doubles",
            "",
            "Move number 4:  Bob Lee doubles to 2",
            "",
            "* Ann rejects",
            "",
            "Bob Lee wins 1 point",
            "",
        ]
    )


def test_other_languages_are_refused_naming_the_line(tmp_path: Path) -> None:
    german = _short_export(first="Der Spielstand (nach 2 Spielen) ist: Ann 1, Bob Lee 2")
    path = tmp_path / "de.txt"
    path.write_text(german)
    with pytest.raises(SyntaxRecordError) as caught:
        list(iter_records(german.encode(), str(path)))
    finding = caught.value.finding
    assert finding.code == "S003" and finding.line == 1
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 2  # unreadable
    assert "S003 line 1 is not GNU Backgammon's English text export" in result.output


def test_html_and_latex_exports_keep_s003(tmp_path: Path) -> None:
    for name, text in (("a.html", "<html><body>Position ID: x Match ID : y"),
                       ("a.tex", "\\documentclass{article}\nPosition ID: x\nMatch ID : y")):  # fmt: skip
        with pytest.raises(SyntaxRecordError, match=r"S003 this is (an HTML page|a LaTeX)"):
            list(iter_records(text.encode(), name))


BGLAB_TEXTS = sorted((BGLAB / "analyzed" / "0-ply").glob("*.txt")) if BGLAB.is_dir() else []


@pytest.mark.corpus
@pytest.mark.skipif(not BGLAB_TEXTS, reason="../shared bglab corpus is absent")
def test_bglab_analysed_exports_read_without_errors() -> None:
    twins = 0
    for text in BGLAB_TEXTS:
        [record] = read_path(text)
        [vm] = [replay(record)]
        errors = [f for f in vm.findings if f.severity is Severity.ERROR]
        assert errors == [], text.name
        [game] = vm.games
        assert game.winner is not None and game.points > 0
        printed = _ROLL_ID.findall(text.read_text())
        assert printed == [t.position_id for t in game.turns if t.dice is not None]
        stem = re.sub(r"_\d{3}$", "", text.stem)
        twin = BGLAB / "raw" / f"{stem}.txt"
        if twin.is_file():
            [mat] = [replay(r) for r in read_path(twin)]
            assert not [f for f in mat.findings if f.severity is Severity.ERROR]
            [same] = [g for g in mat.games if g.number == game.number]
            # The .mat may list the players the other way round: compare by name.
            names = [record.players[s] for s in (0, 1)]
            flip = [mat.players.index(n) for n in names]
            assert same.score_before == tuple(game.score_before[flip.index(s)] for s in (0, 1))
            assert mat.players[same.winner] == record.players[game.winner], text.name
            assert (same.end, same.cube) == (game.end, game.cube), text.name
            twins += 1
    assert twins >= 1


@pytest.mark.corpus
@pytest.mark.skipif(not BGLAB_TEXTS, reason="../shared bglab corpus is absent")
def test_move_blocks_keep_what_each_move_printed() -> None:
    """`move_blocks` (for the analysis reader to come) keeps each move's heading, IDs, move
    line and analysis lines as written; its IDs before each roll are the replay's."""
    for text in BGLAB_TEXTS:
        source = text.read_text()
        blocks = move_blocks(source)
        [record] = read_path(text)
        [game] = replay(record).games
        rolls = [b for b in blocks if " to play " in b.heading]
        assert [b.position_id for b in rolls] == [
            t.position_id for t in game.turns if t.dice is not None
        ]
        assert all(b.match_id and b.move and b.move.startswith("* ") for b in blocks)
        # Analysed at 0-ply: every roll's candidates (after any cube analysis) follow its move.
        for b in rolls:
            if not b.move.endswith("cannot move"):  # type: ignore[union-attr]
                assert f"Rolled {b.heading[-2:]}:" in b.analysis, (text.name, b.line)
                assert any("Cubeful 0-ply" in line for line in b.analysis)
        last = source.split("\n")[blocks[-1].line - 1 :]
        assert not any(" wins " in line for line in blocks[-1].analysis)
        assert any(" wins " in line for line in last)


def test_a_resignation_reads_as_gnu_exports_it(tmp_path: Path) -> None:
    """GNU plays one side and accepts the other's resignation after one roll each: its text
    export shows only the result line (no resignation, nor the roll before it) and replays to the
    resigned game its `.mat` replays to."""
    if not GNUBG.exists():
        pytest.skip("GNU Backgammon is not installed (apt-get install gnubg)")
    text, mat = tmp_path / "r.txt", tmp_path / "r.mat"
    commands = ["set player 0 human", "set player 1 gnubg", "set seed 7", "new match 3",
                "roll", "resign backgammon", f"export match text {text}",
                f"export match mat {mat}"]  # fmt: skip
    subprocess.run([str(GNUBG), "-t", "-q"], input="\n".join(commands) + "\n", text=True,
                   capture_output=True, timeout=120)  # fmt: skip
    assert text.is_file() and mat.is_file()
    [got] = [replay(r) for r in read_path(text)]
    [want] = [replay(r) for r in read_path(mat)]
    assert not [f for f in got.findings if f.severity is Severity.ERROR]
    g, w = got.games[0], want.games[0]
    same = ("score_before", "winner", "points", "end", "cube")
    assert [getattr(g, k) for k in same] == [getattr(w, k) for k in same]
    # The `.mat` writes the resigner's roll (`52:`, no play); the text export leaves it out.
    assert [t.dice for t in g.turns] == [t.dice for t in w.turns][:-1]
    assert (got.games[0].end, got.games[0].points, got.final_score) == ("resign", 3, (0, 3))


def test_a_resignation_heading_and_its_answer_make_no_event(tmp_path: Path) -> None:
    lines = _short_export().split("\n")
    at = lines.index("Move number 3:  Bob Lee on roll, cube decision?")
    text = "\n".join(
        [*lines[:at], "Move number 3:  Ann resigns 1 point", "", "* Bob Lee accepts", "",
         "Bob Lee wins 1 point", ""]
    )  # fmt: skip
    path = tmp_path / "resigned.txt"
    path.write_text(text)
    [record] = read_path(path)
    assert [type(a).__name__ for a in record.games[0].actions] == ["Roll", "Roll", "Win"]
    assert record.errors == ()
    [vm] = [replay(record)]
    assert (vm.games[0].winner, vm.games[0].points, vm.games[0].end) == (1, 1, "resign")


def test_validate_names_the_game_a_file_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "m_003.txt").write_text(_short_export())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["validate", "m_003.txt"])
    line = "    The score (after 2 games) is: Ann 1, Bob Lee 2 (match to 5 points)\n    ^\n"
    assert result.output == (
        "m_003.txt:1:1: info: R007 the first game starts at 1-2, not 0-0 (GNU's text export "
        "writes a file per game: this is game 3)\n" + line
        + "m_003.txt:1:1: info: R004 the record ends at 1-3, short of the 5-point match "
        "(unfinished or cut short)\n" + line
        + "m_003.txt: Ann vs Bob Lee, 5-point match, 1 game, final score 1-3\n"
        "1 file, 1 match: 0 errors, 0 warnings; 0 matches with errors, 0 with warnings only\n"
    )  # fmt: skip
    assert result.exit_code == 0


def test_numbers_too_large_and_unknown_lines_are_findings_not_tracebacks() -> None:
    text = _short_export(
        first="The score (after 2 games) is: Ann 1, Bob Lee 12345678901 (match to 5 points)"
    ).replace("* Ann rejects", "* Ann ponders")
    [record] = iter_records(text.encode(), "t.txt")
    found = [(f.code, f.line, f.column) for f in record.errors]
    assert found == [("S017", 1, 46), ("S005", 32, 7)]
