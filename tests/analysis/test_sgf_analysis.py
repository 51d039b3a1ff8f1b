"""GNU Backgammon's analysed SGF read into decisions, checked against GNU's own statistics.

Real matches from ../shared/corpus are analysed by GNU Backgammon at 0-ply (the harness in
tests/gnubg_analysis.py); the analysed SGF it saves is read and replayed, and for each player
the decisions' counts and sums must be GNU's `show statistics` figures to the precision GNU
prints them (plus what rounding the stored values to their own decimals may add up to)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from bgparse.analysis.model import CheckerNote, CubeNote, Decision
from bgparse.model.events import MatchRecord
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import read_path
from bgparse.readers.sgf import iter_sgf_matches
from bgparse.replay import replay
from tests.conftest import CORPUS
from tests.gnubg_analysis import (
    Analysis,
    Statistics,
    gnubg_analyses,  # noqa: F401  (a fixture)
    parse_gs,
)

#: How far a sum of stored values may be from GNU's sum of its own: half the last stored
#: digit a value (A and DA hold 6 decimals, LU 5), and for a cube decision in match play the
#: MWC's 6 decimals stretched by the slope of GNU's mwc2eq (about 40 at a 25-point match's
#: start, the largest in these files).
CHECKER_SLACK = 0.5e-6
LUCK_SLACK = 0.5e-5
CUBE_SLACK = 2e-5

#: The real human matches of the oracle's selection (GNU's analysis of each, at 0-ply).
HUMAN = (
    "galaxy-5p-llabba",
    "galaxy-5p-drops",
    "galaxy-7p",
    "galaxy-cube8",
    "gammonsite-25p",
    "xg-charlot-7p",
    "xg-hsbt-7p",
    "xg-hsbt-7p-sgf",
)


def _verified(path: Path) -> tuple[MatchRecord, VerifiedMatch]:
    [record] = read_path(path)
    return record, replay(record)


def _ours(decisions: Sequence[Decision], side: int) -> dict[str, tuple[float, int]]:
    """Each figure with the number of decisions summed in it (for the slack)."""
    checker = [d for d in decisions if d.side == side and d.kind == "checker"]
    cube = [d for d in decisions if d.side == side and d.kind in ("cube", "take")]
    lucky = [d for d in checker if d.luck is not None]
    return {
        "unforced_moves": (sum(d.counted for d in checker), 0),
        "cube_close": (sum(d.counted for d in cube), 0),
        "chequer_error_total": (sum(d.error for d in checker), len(checker)),
        "cube_error_total": (sum(d.error for d in cube), len(cube)),
        "luck_total": (sum(d.luck or 0.0 for d in lucky), len(lucky)),
    }


_SLACK = {
    "chequer_error_total": CHECKER_SLACK,
    "cube_error_total": CUBE_SLACK,
    "luck_total": LUCK_SLACK,
}


def _compare(stats: Statistics, decisions: Sequence[Decision], where: str) -> list[str]:
    """Every figure that differs from GNU's printed one, as text (empty: all agree)."""
    wrong = []
    for side in (0, 1):
        ours = _ours(decisions, side)
        for name in ("unforced_moves", "cube_close"):
            if ours[name][0] != stats.count(name, side):
                wrong.append(
                    f"{where} player {side} {name}: {ours[name][0]} != GNU's "
                    f"{stats.count(name, side)}"
                )
        for name, slack in _SLACK.items():
            printed = stats.emg(name, side)
            # GNU prints errors negated (a loss), luck signed.
            value = ours[name][0] if name == "luck_total" else -ours[name][0]
            allowed = printed.half_unit + slack * ours[name][1] + 1e-9
            if abs(value - printed.value) > allowed:
                wrong.append(
                    f"{where} player {side} {name}: {value:+.6f} != GNU's "
                    f"{printed.text} (allowed {allowed:.6f})"
                )
    return wrong


@pytest.mark.corpus
@pytest.mark.oracle
@pytest.mark.parametrize("name", HUMAN)
def test_decisions_sum_to_gnus_match_statistics(
    name: str,
    gnubg_analyses: dict[str, Analysis],  # noqa: F811
) -> None:
    analysis = gnubg_analyses[name]
    record, vm = _verified(analysis.sgf)
    assert record.analysis_source == "gnubg-sgf"
    assert not [f for f in vm.findings if f.code in ("A001", "A002", "S011")]
    assert _compare(analysis.match, vm.decisions, name) == []


@pytest.mark.corpus
@pytest.mark.oracle
@pytest.mark.parametrize("name", HUMAN)
def test_decisions_sum_to_gnus_game_statistics(
    name: str,
    gnubg_analyses: dict[str, Analysis],  # noqa: F811
) -> None:
    analysis = gnubg_analyses[name]
    record, vm = _verified(analysis.sgf)
    assert len(analysis.games) == len(record.games)
    wrong: list[str] = []
    for game, stats in zip(record.games, analysis.games, strict=True):
        mine = [d for d in vm.decisions if d.game_no == game.number]
        wrong += _compare(stats, mine, f"{name} game {game.number}")
    assert wrong == []


@pytest.mark.corpus
@pytest.mark.oracle
def test_money_session_sums_to_gnus_statistics(
    gnubg_analyses: dict[str, Analysis],  # noqa: F811
) -> None:
    """Money play: GNU stores every equity already normalised (no MWC to convert)."""
    analysis = gnubg_analyses["money-raccoon"]
    record, vm = _verified(analysis.sgf)
    assert record.length == 0
    assert _compare(analysis.match, vm.decisions, "money-raccoon") == []


# -- analysed SGF files of the corpus -------------------------------------------------------


def _analysed_sgfs() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    found = [*CORPUS.glob("xg/*.sgf"), *CORPUS.glob("gnubg/*.sgf"), *CORPUS.glob("real/**/*.sgf")]
    return sorted(p for p in found if re.search(rb"(?:^|[];\s])A\[[0-9]", p.read_bytes()))


ANALYSED = _analysed_sgfs()
#: Saved during play (GNU's hints kept), not by `analyse match`: its GS counts another
#: analysis than the one it stores.
NOT_ANALYSED_WHOLE = ("zmetcalf__backgammon_sgf/tests/gnubg_file.sgf",)


@pytest.mark.corpus
@pytest.mark.parametrize("path", ANALYSED, ids=[str(p.relative_to(CORPUS)) for p in ANALYSED])
def test_corpus_analysed_sgf_gives_decisions_that_agree_with_its_gs(path: Path) -> None:
    """Every analysed SGF of the corpus reads without a traceback and gives decisions; where
    GNU's `analyse` wrote it, each game's GS[] (GNU's statistics of that game, stored beside
    the analysis) is what the decisions add up to."""
    record, vm = _verified(path)
    assert record.analysis and record.analysis_source == "gnubg-sgf"
    assert vm.decisions
    assert not [f for f in record.errors if f.code == "S011" and "analysis" in f.message]
    if any(str(path).endswith(n) for n in NOT_ANALYSED_WHOLE):
        return
    if "gnubg-illegal" in str(path):
        return
    wrong: list[tuple[object, ...]] = []
    stored = parse_gs(path.read_text(encoding="utf-8"))
    for game, gs in zip(record.games, stored, strict=True):
        for side in (0, 1):
            ours = _ours([d for d in vm.decisions if d.game_no == game.number], side)
            if ours["unforced_moves"][0] != gs.counts["unforced_moves"][side]:
                wrong.append((game.number, side, "unforced", ours["unforced_moves"][0]))
            cube = sum(
                v[side][0]
                for k, v in gs.costs.items()
                if k not in ("chequer_error_total", "luck_total")
            )
            pairs = [
                ("chequer_error_total", gs.costs["chequer_error_total"][side][0]),
                ("cube_error_total", cube),
            ]
            luck = gs.costs["luck_total"][side][0]
            if abs(luck) != float("inf"):  # GNU 1.08 writes -inf where luck was not analysed
                pairs.append(("luck_total", luck))
            for name, theirs in pairs:
                value, n = ours[name]
                if abs(value - theirs) > _SLACK[name] * n + 1e-6:
                    wrong.append((game.number, side, name, value, theirs))
    assert wrong == []


# -- a damaged analysis ---------------------------------------------------------------------

_GAME = (
    "(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:5][game:0][ws:0][bs:0]"
    "PW[Alice]PB[Bob]RU[Crawford]\n"
    ";W[31hfgf]{A}LU[0.17500]\n"
    ";B[42cgab]DA[E ver 3 0C 1 0.000000 1 0.480000 0.130000 0.006000 0.150000 0.007000 "
    "-0.060000 0.470000 0.480000 0.130000 0.006000 0.150000 0.007000 -0.060000 {DT}]"
    "LU[{LU}])"
)
_A_GOOD = (
    "A[0][hfgf E ver 3 0.520000 0.140000 0.006000 0.130000 0.005000 0.160000 0C 0 1 0.000000 1]"
    "[mgmj E ver 3 0.500000 0.140000 0.006000 0.140000 0.005000 0.090000 0C 0 1 0.000000 1]"
)


def _damaged(a: str = _A_GOOD, dt: str = "0.440000", lu: str = "-0.10000") -> str:
    return _GAME.format(A=a, DT=dt, LU=lu)


def test_undamaged_sample_gives_its_notes() -> None:
    [record] = iter_sgf_matches(_damaged())
    checker = [n for n in record.analysis if isinstance(n, CheckerNote)]
    cube = [n for n in record.analysis if isinstance(n, CubeNote)]
    assert [len(n.candidates) for n in checker] == [2, 0]
    assert checker[0].candidates[0].play == "8/6 7/6"
    assert [n.luck for n in checker] == [0.175, -0.1]
    assert len(cube) == 1 and cube[0].side == 1 and cube[0].double_pass == 1.0
    assert record.errors == ()


@pytest.mark.parametrize(
    "text",
    [
        _damaged(a="A[0][hfgf E ver 3 0.520000 0.14"),  # cut off in a candidate
        _damaged(a="A[x][hfgf E ver 3 0.5 0.1 0.0 0.1 0.0 0.1 0C 0 1 0.0 1]"),  # no index
        _damaged(a="A[3]" + _A_GOOD[4:]),  # the play made beyond the list
        _damaged(a="A[0][hfgf Q 1 2 3]"),  # an evaluation GNU never writes
        _damaged(dt="0.4x0000"),  # a DA number that is none
        _damaged(dt="nan"),
        _damaged(lu="lucky"),
        _damaged(a="A[0][hfgf E ver 3 0.52 0.14 0.006 0.13 0.005 0.16 0C 0 1 0.0 1]")[:-60],
    ],
    ids=["cut-candidate", "index", "index-range", "kind", "da-number", "da-nan", "lu", "eof"],
)
def test_damaged_analysis_is_a_warning_and_the_moves_stand(text: str) -> None:
    [record] = iter_sgf_matches(text)
    # Both moves are read whatever their analysis says; the value not read is a warning.
    rolls = [a for a in record.games[0].actions if type(a).__name__ == "Roll"]
    assert len(rolls) == 2
    unread = [f for f in record.errors if f.code == "S011"]
    assert unread and all(f.severity.value == "warning" for f in unread), record.errors
    vm = replay(record)  # no traceback, and the analysis left is attached
    assert all(d.kind in ("checker", "cube") for d in vm.decisions)


def test_sgf_without_analysis_has_none() -> None:
    [record] = iter_sgf_matches(_damaged().replace(_A_GOOD, "").replace("LU[0.17500]", ""))
    plain = _GAME.replace("{A}LU[0.17500]", "").split("\n;B")[0] + ")"
    [bare] = iter_sgf_matches(plain)
    assert bare.analysis == () and bare.analysis_source is None
    assert record.analysis_source == "gnubg-sgf"  # the DA and LU of the second move
