"""The engine's analysis (`bgparse analyze`, bgsage at 0-ply) against GNU Backgammon's own 0-ply
`analyse match` of the same real human matches (tests/gnubg_analysis.py, its `.mat` files
imported as they are): per player and match, the same decisions counted, and error rates that
go together.

What holds exactly, per player and match: the engine's counted checker decisions are GNU's
"Unforced moves" (a roll with more than one legal play, plays that reach the same board being
one: GNU generates its move list without duplicate boards, and so does `legal_plays`); its
checker rows (plays and dances) are GNU's "Total moves"; its cube rows plus its answers are
GNU's "Total cube decisions"; its doubles, takes and passes are GNU's.

What does not: each decision's value. bgsage and GNU are different networks; at 0-ply they
disagree on whether the play made was the best on about one decision in seven, and the error
rates (mEMG per counted decision) of a player in a 5-point match rest on 50 decisions. The
rates correlate at r = 0.848 over the 14 player-matches (measured 2026-12-07: bgsage
2.0.20260907, GNU 1.07), the same as the per-decision errors do (0.848 over 1,426 unforced
moves): `MIN_R` is a floor below that, not the 0.85 first asked for. "Close or actual" cube
decisions depend on the values too (a no-double within 0.16 of doubling): they differ by at
most one a player-match.

The money session of the fixture (engine play, cubeless, imported by GNU with Jacoby on and
the cube alive) and the SGF twin of a `.mat` are left out. Beside the fixture's 7 human
matches, 24 more Backgammon Galaxy matches (every 48th of the bglab archive's, in name order)
are analysed by both: over 14 player-matches alone the rates' r was 0.848; over the 62 it is
0.91 (measured 2026-12-07; 0.88-0.94 over other draws of 20-30 matches, 0.93-0.96 for the
overall error rate, cube decisions included).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("bgsage")

from bgparse.analyze import AnalyzeOptions, run_analyze
from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect, run
from tests import gnubg_analysis
from tests.gnubg_analysis import Analysis

gnubg_analyses = gnubg_analysis.gnubg_analyses

pytestmark = [pytest.mark.corpus, pytest.mark.oracle]

#: The fixture's human matches.
HUMAN = [n for n in gnubg_analysis.ORACLE_FILES if n != "money-raccoon" and not n.endswith("sgf")]
#: The floor of the Pearson correlation of the error rates (measured: 0.91).
MIN_R = 0.85
#: More real human matches: Backgammon Galaxy's, from the bglab archive.
GALAXY = "lassehjorthmadsen__bglab/data-raw"
GALAXY_MATCHES = 24
#: Close-or-actual cube decisions may differ by this many a player-match.
CLOSE_SLACK = 2


def pearson(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy)


@pytest.fixture(scope="module")
def analyses(
    gnubg_analyses: dict[str, Analysis], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Analysis]:
    """GNU's analysis of every human match compared: the fixture's and GALAXY_MATCHES more."""
    root = gnubg_analysis.SHARED / "corpus" / "real" / GALAXY
    found = sorted(p for p in root.rglob("*.txt") if "/raw/" in p.as_posix())
    if len(found) < GALAXY_MATCHES:
        pytest.skip(f"{root} holds fewer than {GALAXY_MATCHES} matches")
    picked = found[:: len(found) // GALAXY_MATCHES][:GALAXY_MATCHES]
    more = gnubg_analysis.analyse_all(
        {f"galaxy-{p.stem}": p for p in picked}, tmp_path_factory.mktemp("gnu-galaxy")
    )
    return {**{name: gnubg_analyses[name] for name in HUMAN}, **more}


@pytest.fixture(scope="module")
def ours(
    analyses: dict[str, Analysis], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[dict[str, Any]]]:
    """The human matches as plain .mat files, imported and analysed: per match and side."""
    base = tmp_path_factory.mktemp("vs-gnu")
    inputs = base / "in"
    inputs.mkdir()
    for name, analysis in analyses.items():
        (inputs / f"{name}.mat").write_bytes(analysis.source.read_bytes())
    data = base / "data"
    run_import([inputs], data, ImportOptions(workers=2))
    summary = run_analyze(data, AnalyzeOptions(workers=2))
    assert (summary.matches, summary.failed) == (len(analyses), [])
    rows = run(
        connect(data),
        """
        SELECT regexp_extract(m.source_path, '([^/]+)\\.mat$', 1) AS name, d.side,
            CASE d.side WHEN 0 THEN m.player0 ELSE m.player1 END AS player,
            count(*) FILTER (WHERE kind = 'checker') AS rolls,
            count(*) FILTER (WHERE kind = 'checker' AND counted) AS unforced,
            sum(error) FILTER (WHERE kind = 'checker') AS checker_error,
            sum(luck) FILTER (WHERE kind = 'checker') AS luck,
            count(*) FILTER (WHERE kind IN ('cube', 'take')) AS cube_total,
            count(*) FILTER (WHERE kind IN ('cube', 'take') AND counted) AS cube_close,
            sum(error) FILTER (WHERE kind IN ('cube', 'take')) AS cube_error,
            count(*) FILTER (WHERE kind = 'cube' AND action = 'double') AS doubles,
            count(*) FILTER (WHERE kind = 'take' AND action <> 'pass') AS takes,
            count(*) FILTER (WHERE kind = 'take' AND action = 'pass') AS passes
        FROM decisions d JOIN matches m USING (match_uid)
        GROUP BY ALL ORDER BY name, side
        """,
    ).to_pylist()
    assert len(rows) == 2 * len(analyses)
    yield rows


def test_the_same_decisions_are_counted_as_gnu_counts_them(
    ours: list[dict[str, Any]], analyses: dict[str, Analysis]
) -> None:
    for r in ours:
        stats, side = analyses[r["name"]].match, r["side"]
        if r["player"]:  # a record with no name: GNU prints its own placeholder
            assert stats.players[side] == r["player"], r
        for field in ("unforced", "rolls", "cube_total", "doubles", "takes", "passes"):
            gnu = stats.count(
                {"unforced": "unforced_moves", "rolls": "total_moves"}.get(field, field), side
            )
            assert r[field] == gnu, (r["name"], r["player"], field, r[field], gnu)


def test_error_rates_go_with_gnus(
    ours: list[dict[str, Any]], analyses: dict[str, Analysis]
) -> None:
    """Per player and match: the checker error rate (mEMG per unforced move), the luck and the
    close-or-actual cube decisions beside GNU's, printed; the rates' correlation."""
    ours_rates, gnu_rates = [], []
    close_diffs = []
    print()
    print(
        f"{'match':18} {'player':22} {'unforced':>8} {'rate':>6} {'GNU':>6} "
        f"{'luck':>7} {'GNU':>7} {'close':>5} {'GNU':>4} {'cube err':>8} {'GNU':>7}"
    )
    for r in ours:
        if not r["unforced"]:
            continue  # no unforced move: no rate
        stats, side = analyses[r["name"]].match, r["side"]
        rate = 1000.0 * r["checker_error"] / r["unforced"]
        gnu_rate = -stats.emg("chequer_error_rate", side).value
        gnu_close = stats.count("cube_close", side)
        ours_rates.append(rate)
        gnu_rates.append(gnu_rate)
        close_diffs.append(r["cube_close"] - gnu_close)
        print(
            f"{r['name']:18} {r['player'][:22]:22} {r['unforced']:8} {rate:6.1f} {gnu_rate:6.1f} "
            f"{r['luck'] or 0.0:+7.3f} {stats.emg('luck_total', side).value:+7.3f} "
            f"{r['cube_close']:5} {gnu_close:4} {r['cube_error'] or 0.0:8.3f} "
            f"{-stats.emg('cube_error_total', side).value:7.3f}"
        )
    r_rates = pearson(ours_rates, gnu_rates)
    print(
        f"Pearson r of the checker error rates: {r_rates:.3f} over {len(ours)} player-matches; "
        f"close-or-actual cube decisions, ours - GNU's: {close_diffs} (sum {sum(close_diffs)})"
    )
    assert r_rates >= MIN_R
    assert all(abs(d) <= CLOSE_SLACK for d in close_diffs), close_diffs
