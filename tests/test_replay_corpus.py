"""The replay on real records: GNU Backgammon's reading as truth, edited illegal games, and the
public corpus against a reviewed list of its findings."""

from __future__ import annotations

import csv
import os
from dataclasses import replace
from pathlib import Path

import pytest

from bgparse.model.findings import RecordError, Severity
from bgparse.readers import read_path
from bgparse.replay import replay
from bgparse.rules.ids import decode_match_id
from tests.conftest import CORPUS, ROOT, corpus_dir, corpus_files, load_truth

GNU_FILES = (
    corpus_files("gnubg", "*.mat")
    + corpus_files("gnubg-sample", "*.mat")
    + corpus_files("gnubg", "*.sgf")
    + corpus_files("gnubg-sample", "*.sgf")
)


def gnu_truth_mismatches(path: Path, overrides: dict[str, object] | None = None) -> list[str]:
    """How bgparse's reading of a GNU Backgammon file differs from GNU's own (the file's
    `.truth.json`): errors found, games, per game score before, winner, points, end, result
    type, cube and owner, final Position ID and final Match ID, and the match result. Empty
    when they agree. `overrides`: rules the file cannot state (GNU's Jacoby setting)."""
    truth = load_truth(path)
    [rec] = read_path(path)
    m = replay(rec, overrides)
    out = [
        f"{f.code} at {f.line}:{f.column}: {f.message}"
        for f in m.findings
        if f.severity is Severity.ERROR
    ]
    if len(m.games) != truth["n_games"]:
        out.append(f"{len(m.games)} games, GNU reads {truth['n_games']}")
    for g, tg in zip(m.games, truth["games"], strict=False):
        mine = {
            "score_before": list(g.score_before),
            "winner": g.winner,
            "points": g.points,
            "end": g.end,
            "result_type": g.result_type,
            "final_cube": g.cube,
            "final_cube_owner": g.cube_owner,
            "final_position_id": g.final_position_id,
        }
        theirs = {k: tg["points_won" if k == "points" else k] for k in mine}
        out += [f"game {g.number} {k}: {mine[k]!r}, GNU {theirs[k]!r}" for k in mine
                if mine[k] != theirs[k]]  # fmt: skip
        ours, gnu = decode_match_id(g.final_match_id), decode_match_id(tg["final_match_id"])
        if rec.format == "mat" and rec.length == 0:
            # A .mat money session cannot say whether GNU played it with the Jacoby rule
            # (GNU writes no tag): that one bit of the Match ID is not the record's to know.
            ours = replace(ours, jacoby=gnu.jacoby)
        if ours != gnu:
            out.append(f"game {g.number} final Match ID: {ours}, GNU {gnu}")
    if list(m.final_score) != truth["final_score"]:
        out.append(f"final score {list(m.final_score)}, GNU {truth['final_score']}")
    if m.winner != truth["match_winner"]:
        out.append(f"match winner {m.winner}, GNU {truth['match_winner']}")
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("path", GNU_FILES, ids=[f"{p.parent.name}/{p.name}" for p in GNU_FILES])
def test_gnubg_records_verify_and_score_as_gnu_reads_them(path: Path) -> None:
    assert gnu_truth_mismatches(path) == []


# The reason each edited file must be reported with (from EXPECTED.tsv's description).
ILLEGAL_REASONS = {
    "a_pips_not_dice.mat": ("P001", "wrong-dice"),
    "a2_pips_not_dice_nosum.mat": ("P001", "wrong-dice"),
    "b_same_sum_wrong_dice.mat": ("P001", "wrong-dice"),
    "c_blocked_point.mat": ("P001", "blocked-point"),
    "d_from_empty_point.mat": ("P001", "no-checker"),
    "e_bearoff_not_home.mat": ("P001", "bear-off-not-home"),
    "f_only_one_die.mat": ("P001", "fewer-dice-than-possible"),
    "g_no_move_but_legal.mat": ("P001", "missing-play"),
    "h_three_submoves.mat": ("P001", "too-many-steps"),
    "i_ignore_bar.mat": ("P001", "bar-not-cleared"),
    "j_die_7.mat": ("P002", "dice-invalid"),
    "n_star_without_hit.mat": ("N001", "star-without-hit"),
    "o_hit_without_star.mat": ("N002", "hit-without-star"),
    "p_doubles_five_sub.mat": ("P001", "too-many-steps"),
    "q_doubles_two_sub.mat": ("P001", "fewer-dice-than-possible"),
    "s_consolidated_illeg.mat": ("P001", "wrong-dice"),
    "t_move_opponent_chq.mat": ("P001", "bad-point"),
    "v_bar_entry_blocked.mat": ("P001", "blocked-point"),
    "sgf_blocked.sgf": ("P001", "blocked-point"),
    "sgf_die7.sgf": ("P002", "dice-invalid"),
    "sgf_empty.sgf": ("P001", "no-checker"),
    "sgf_onlyone.sgf": ("P001", "fewer-dice-than-possible"),
    "sgf_pips.sgf": ("P001", "wrong-dice"),
    "sgf_threesub.sgf": ("P001", "too-many-steps"),
}


def _expected_rows() -> list[dict[str, str]]:
    f = CORPUS / "gnubg-illegal" / "EXPECTED.tsv"
    if not f.is_file():
        return []
    with f.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


EXPECTED = _expected_rows()


@pytest.mark.corpus
@pytest.mark.parametrize("row", EXPECTED, ids=[r["file"] for r in EXPECTED])
def test_each_edited_move_is_reported_at_its_line_with_its_reason(row: dict[str, str]) -> None:
    path = corpus_dir("gnubg-illegal") / row["file"]
    [rec] = read_path(path)
    m = replay(rec)
    # The SGF files keep GNU's analysis of the move before the edit: where the edit changed
    # the play, the analysis no longer marks it (A002, only there).
    stale = [f for f in m.findings if f.code.startswith("A")]
    assert all(f.code == "A002" and f.line == int(row["line"]) for f in stale), stale
    problems = [
        f for f in m.findings if f.severity is not Severity.INFO and not f.code.startswith("A")
    ]
    errors = [f for f in problems if f.severity is Severity.ERROR]
    if row["expected"] == "clean":
        assert errors == []
        # A legal edit may leave a notation slip after it (a star that now hits nothing):
        # that is true of the edited file, and only notation may be said.
        assert all(f.code.startswith("N") for f in problems), problems
        return
    code, reason = ILLEGAL_REASONS[row["file"]]
    reported = [(f.line, f.code, f.reason) for f in problems]
    assert reported == [(int(row["line"]), code, reason)] or (
        # Two stars that hit nothing are two findings on the same line.
        code == "N001" and set(reported) == {(int(row["line"]), code, reason)}
    ), reported
    wanted = "error" if row["expected"] == "error" else "warning"
    assert {str(f.severity) for f in problems} == {wanted}


REAL_EXPECTED = ROOT / "tests" / "expected" / "real_findings.tsv"


def _real_findings() -> list[tuple[str, int, int, str, str]]:
    real = corpus_dir("real")
    rows: list[tuple[str, int, int, str, str]] = []
    for path in sorted(p for p in real.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv"):
        rel = path.relative_to(real).as_posix()
        try:
            records = read_path(path)
        except RecordError as exc:
            rows.append((rel, exc.finding.line, exc.finding.column, exc.finding.code, "unreadable"))
            continue
        for rec in records:
            for f in replay(rec, keep_turns=False).findings:
                if f.severity is Severity.ERROR:
                    rows.append((rel, f.line, f.column, f.code, f.reason or ""))
    return rows


@pytest.mark.corpus
def test_real_corpus_errors_match_the_reviewed_list() -> None:
    """Every error bgparse finds in the public corpus, file by file, against
    tests/expected/real_findings.tsv (reviewed by hand; BGPARSE_UPDATE=1 rewrites it). Every
    Jellyfish or SGF file must replay; other formats are listed as unreadable."""
    rows = _real_findings()
    text = "path\tline\tcolumn\tcode\treason\n" + "".join(
        "\t".join(str(x) for x in r) + "\n" for r in rows
    )
    if os.environ.get("BGPARSE_UPDATE"):
        REAL_EXPECTED.write_text(text, encoding="utf-8")
    expected = REAL_EXPECTED.read_text(encoding="utf-8")
    assert text == expected
    # The Snowie records with impossible moves (MANIFEST notes) must be caught.
    flagged = {r[0] for r in rows if r[4] != "unreadable"}
    for name in ("nicksbar-nori-2009Jan302316.txt", "Wakagashira-nori-2009Feb092110.txt"):
        assert any(p.endswith(name) for p in flagged), name
