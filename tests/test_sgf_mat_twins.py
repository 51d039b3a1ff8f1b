"""GNU Backgammon writes each corpus match both as .mat and as SGF: the two must verify to the
same match, play for play."""

from __future__ import annotations

from pathlib import Path

import pytest

from bgparse.model.findings import Severity
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import read_path
from bgparse.replay import replay
from tests.conftest import corpus_files

TWINS = [
    p
    for p in corpus_files("gnubg", "*.sgf") + corpus_files("gnubg-sample", "*.sgf")
    if p.with_suffix(".mat").is_file()
]


def summary(m: VerifiedMatch) -> list[object]:
    out: list[object] = [m.players, m.length, m.final_score, m.winner]
    for g in m.games:
        out.append(
            (
                *(g.number, g.score_before, g.winner, g.points, g.end, g.result_type, g.cube),
                *(g.cube_owner, g.crawford, g.plays, g.doubles, g.takes, g.drops, g.beavers),
                g.final_position_id,
            )
        )
        out.extend(
            (t.kind, t.side, tuple(sorted(t.dice)) if t.dice else None, tuple(t.steps))
            for t in g.turns
        )
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("sgf", TWINS, ids=[f"{p.parent.name}/{p.stem}" for p in TWINS])
def test_sgf_and_mat_twins_verify_to_the_same_match(sgf: Path) -> None:
    [from_sgf] = [replay(r) for r in read_path(sgf)]
    [from_mat] = [replay(r) for r in read_path(sgf.with_suffix(".mat"))]
    for m in (from_sgf, from_mat):
        assert not [f for f in m.findings if f.severity is Severity.ERROR]
    assert summary(from_sgf) == summary(from_mat)
