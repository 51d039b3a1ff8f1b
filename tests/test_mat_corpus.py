"""The .mat reader on real files: GNU Backgammon's own reading as truth, and every public file."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from bgparse.model.events import Beaver, CannotMove, Double, Drop, HiddenPlay, Raccoon, Roll, Take
from bgparse.model.findings import RecordError, Severity
from bgparse.readers import read_path
from tests.conftest import CORPUS, corpus_dir, corpus_files, ids, load_truth

GNU_MATS = corpus_files("gnubg", "*.mat") + corpus_files("gnubg-sample", "*.mat")


def gnu_counts(actions: tuple[object, ...]) -> dict[str, int]:
    """Per-game counts as GNU Backgammon counts them: every beaver or raccoon is also a double,
    and a beaver sequence that is not dropped ends in a take GNU infers from the next roll
    (Jellyfish files write no 'Takes' after a beaver)."""
    counts = dict(moves=0, doubles=0, takes=0, drops=0, beavers=0)
    in_beaver = False
    for a in actions:
        if isinstance(a, Roll | CannotMove | HiddenPlay):
            counts["moves"] += 1
            if in_beaver:
                counts["takes"] += 1
                in_beaver = False
        elif isinstance(a, Double):
            counts["doubles"] += 1
        elif isinstance(a, Beaver | Raccoon):
            counts["doubles"] += 1
            counts["beavers"] += 1
            in_beaver = True
        elif isinstance(a, Take):
            counts["takes"] += 1
            in_beaver = False
        elif isinstance(a, Drop):
            counts["drops"] += 1
            in_beaver = False
    return counts


@pytest.mark.corpus
@pytest.mark.parametrize("path", GNU_MATS, ids=ids(GNU_MATS))
def test_gnubg_mat_matches_gnu_reading(path: Path) -> None:
    truth = load_truth(path)
    [rec] = read_path(path)
    assert [e for e in rec.errors if e.severity is Severity.ERROR] == []
    assert list(rec.players) == truth["players"]
    assert rec.length == truth["match_length"]
    assert len(rec.games) == truth["n_games"]
    for game, tg in zip(rec.games, truth["games"], strict=True):
        assert list(game.score) == tg["score_before"], f"game {game.number} score line"
        expected = {
            "moves": tg["n_moves"],
            "doubles": tg["n_doubles"],
            "takes": tg["n_takes"],
            "drops": tg["n_drops"],
            "beavers": tg["n_beavers"],
        }
        assert gnu_counts(game.actions) == expected, f"game {game.number}"


def _manifest() -> list[dict[str, str]]:
    f = CORPUS / "real" / "MANIFEST.tsv"
    if not f.is_file():
        return []
    with f.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


MANIFEST = _manifest()
#: Producers whose .txt files are not Jellyfish records (analysis printouts, own formats).
NOT_JELLYFISH = {"GammonX", "Gibbon", "JavaFIBS(FIBS)"}


def _is_jellyfish(row: dict[str, str]) -> bool:
    if row["format"] not in ("mat", "txt") or row["producer"] in NOT_JELLYFISH:
        return False
    # GNU's 'export match text' printouts carry the producer gnubg and format txt.
    return not (
        row["producer"] == "gnubg" and row["format"] == "txt" and "analyzed" in row["local_path"]
    )


def _is_gnu_text(row: dict[str, str]) -> bool:
    """GNU's 'export match text', read by its own reader (tests/test_gnutext_reader.py)."""
    return not _is_jellyfish(row) and row["producer"] == "gnubg" and row["format"] == "txt"


JELLYFISH = [r for r in MANIFEST if _is_jellyfish(r)]
OTHER = [
    r for r in MANIFEST if not _is_jellyfish(r) and r["format"] != "sgf" and not _is_gnu_text(r)
]


def _expected_from_notes(notes: str) -> tuple[int | None, int | None]:
    length = None
    if m := re.search(r"(\d+)-point match", notes):
        length = int(m.group(1))
    elif "money/unlimited" in notes or "money session" in notes:
        length = 0
    games = int(m.group(1)) if (m := re.search(r"(\d+) games", notes)) else None
    return length, games


@pytest.mark.corpus
def test_every_real_jellyfish_file_parses_without_syntax_errors() -> None:
    """Every Jellyfish-family file of the public corpus reads with no syntax error; its match
    length and number of games agree with the MANIFEST's notes on the file, and its player
    names with its Player tags where it has them. Failures are listed file by file."""
    real = corpus_dir("real")
    failures: list[str] = []
    for row in JELLYFISH:
        path = real / row["local_path"]
        try:
            records = read_path(path)
        except RecordError as exc:
            failures.append(exc.format(context=False))
            continue
        rec = records[0]
        for e in rec.errors:
            if e.severity is Severity.ERROR:
                failures.append(f"{path}:{e.line}:{e.column}: {e.code} {e.message}")
        length, games = _expected_from_notes(row["notes"])
        if length is not None and rec.length != length:
            failures.append(f"{path}: length {rec.length}, MANIFEST says {length}")
        if games is not None and sum(len(r.games) for r in records) != games:
            failures.append(f"{path}: {len(rec.games)} games, MANIFEST says {games}")
        tagged = {rec.info.player1, rec.info.player2} - {None}
        if len(tagged) == 2 and set(rec.players) != tagged:
            failures.append(f"{path}: players {rec.players} but tags say {sorted(tagged)}")  # type: ignore[type-var]
    assert failures == [], "\n".join(failures)


@pytest.mark.corpus
def test_other_formats_in_the_real_corpus_are_refused_by_name() -> None:
    """GammonX logs and Gibbon/JavaFIBS files are other formats (GNU's text exports are read:
    tests/test_gnutext_reader.py): each
    is refused with one S003 message naming what it is, never a traceback."""
    real = corpus_dir("real")
    assert OTHER, "the MANIFEST lists non-Jellyfish files"
    for row in OTHER:
        with pytest.raises(RecordError) as info:
            read_path(real / row["local_path"])
        assert info.value.finding.code == "S003", row["local_path"]
        assert "\n" not in str(info.value)
