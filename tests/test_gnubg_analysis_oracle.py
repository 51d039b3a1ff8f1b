"""The GNU Backgammon analysis harness (tests/gnubg_analysis.py) checked against itself and GNU's files."""

from __future__ import annotations

import re

import pytest

from tests import gnubg_analysis
from tests.gnubg_analysis import (
    FIELDS,
    ORACLE_FILES,
    SUMMED,
    Analysis,
    Statistics,
    count_games,
    parse_gs,
    parse_statistics,
    strip_analysis,
    text_export_files,
)

# The session fixture: pytest finds it by name in this module.
gnubg_analyses = gnubg_analysis.gnubg_analyses

NAMES = list(ORACLE_FILES)
TOTALS = ["chequer_error_total", "luck_total", "cube_error_total", "error_total"]
COUNTS = [name for name in SUMMED if name not in TOTALS]
CUBE_ERRORS = (
    "missed_doubles_below_cp",
    "missed_doubles_above_cp",
    "wrong_doubles_below_dp",
    "wrong_doubles_above_tg",
    "wrong_takes",
    "wrong_passes",
)

# A money session's match block as gnubg 1.07 printed it (cut): columns pushed right by wide
# values, a row with one column, words, and the two "95% confidence interval" rows (its
# trailing spaces trimmed).
MONEY_SAMPLE = """\
Player                                   Raccoon                 GNUBG

Chequerplay statistics

Total moves                              1401                    1423
Error total EMG (Points)                      -72.199 (-72.199)       -1.282 ( -1.282)
Chequerplay rating                       Awful!                  Supernatural


Cube statistics

Missed doubles above CP (EMG (Points))     1 (-0.130 ( -0.130))  1019 (-72.385 (-72.385))
Wrong takes (EMG (Points))                 0                       0


Overall statistics

Luck based FIBS rating diff.              -23.88
Advantage (actual) in ppg                -1.000                  +1.000
95% confidence interval (ppg)            [-50.000,-50.000]       [50.000,50.000]
Advantage (luck adjusted) in ppg         -0.960                  +0.960
95% confidence interval (ppg)            [-48.233,-47.723]       [47.723,48.233]



No game in progress.
"""


def test_parse_statistics_reads_tokens_not_columns() -> None:
    stats = parse_statistics(MONEY_SAMPLE)
    assert stats.players == ("Raccoon", "GNUBG")
    assert stats.count("total_moves", 1) == 1423
    assert stats.emg("chequer_error_total", 0).text == "-72.199"
    assert stats.mwc("chequer_error_total", 1).text == "-1.282"
    assert stats.cell("chequer_rating", 0).text == "Awful!"
    assert stats.count("missed_doubles_above_cp", 1) == 1019
    assert stats.emg("missed_doubles_above_cp", 1).value == -72.385
    assert stats.count("wrong_takes", 0) == 0
    assert stats.emg("wrong_takes", 0).value == 0.0
    assert stats.row("luck_fibs_rating_diff").cells[1] is None
    assert [n.value for n in stats.cell("luck_adjusted_advantage_ppg_interval", 1).numbers] == [
        47.723,
        48.233,
    ]
    assert stats.rows[-1].key == FIELDS["luck_adjusted_advantage_ppg_interval"]
    assert len(stats.rows) == 10  # "No game in progress." ends the block


def test_strip_analysis_keeps_the_record() -> None:
    sgf = (
        "(;FF[4]GM[6]PW[A]GS[M:1 2][C:3]C[a comment with A[x\\] inside]\n"
        ";W[31hefe]DA[E ver 3 0C 1]A[0][hefe E ver 3 0.5]MR[]LU[0.01]GW[1]DO[]\n;B[double]BM[1])"
    )
    assert strip_analysis(sgf) == (
        "(;FF[4]GM[6]PW[A]C[a comment with A[x\\] inside]\n;W[31hefe]\n;B[double])"
    )


def _statistics(analysis: Analysis) -> list[Statistics]:
    return [analysis.match, *analysis.games]


@pytest.mark.parametrize("name", NAMES)
def test_counts_are_consistent(gnubg_analyses: dict[str, Analysis], name: str) -> None:
    for stats in _statistics(gnubg_analyses[name]):
        for p in (0, 1):
            c = {field: stats.count(field, p) for field in COUNTS}
            assert c["unforced_moves"] <= c["total_moves"]
            marked = c["moves_doubtful"] + c["moves_bad"] + c["moves_very_bad"]
            assert c["unmarked_moves"] + marked == c["total_moves"]
            rolls = sum(c[f] for f in COUNTS if f.startswith("rolls_"))
            assert rolls == c["total_moves"]
            assert c["cube_close"] <= c["cube_total"]
            assert c["doubles"] + c["takes"] + c["passes"] <= c["cube_close"]
            assert c["wrong_takes"] <= c["takes"] and c["wrong_passes"] <= c["passes"]
            assert c["wrong_doubles_below_dp"] + c["wrong_doubles_above_tg"] <= c["doubles"]


def _near(printed: float, exact: float, slack: float) -> bool:
    return abs(printed - exact) <= slack + 1e-9


@pytest.mark.parametrize("name", NAMES)
def test_totals_and_rates_agree_to_printed_precision(
    gnubg_analyses: dict[str, Analysis], name: str
) -> None:
    """The cube total is the sum of its six errors, overall = chequer + cube, and each rate is
    its total (x 1000, mEMG) per unforced move, close cube decision or move."""
    for stats in _statistics(gnubg_analyses[name]):
        for p in (0, 1):
            six = [stats.emg(f, p) for f in CUBE_ERRORS]
            cube = stats.emg("cube_error_total", p)
            slack = sum(n.half_unit for n in six) + cube.half_unit
            assert _near(cube.value, sum(n.value for n in six), slack)
            chequer, overall = stats.emg("chequer_error_total", p), stats.emg("error_total", p)
            slack = chequer.half_unit + cube.half_unit + overall.half_unit
            assert _near(overall.value, chequer.value + cube.value, slack)
            unforced, close = stats.count("unforced_moves", p), stats.count("cube_close", p)
            for total, rate, per in (
                ("chequer_error_total", "chequer_error_rate", unforced),
                ("cube_error_total", "cube_error_rate", close),
                ("error_total", "error_rate", unforced + close),
                ("luck_total", "luck_rate", stats.count("total_moves", p)),
            ):
                if per:
                    t, r = stats.emg(total, p), stats.emg(rate, p)
                    slack = 1000 * t.half_unit / per + r.half_unit
                    assert _near(r.value, 1000 * t.value / per, slack), (total, p)


@pytest.mark.parametrize("name", NAMES)
def test_games_sum_to_the_match(gnubg_analyses: dict[str, Analysis], name: str) -> None:
    analysis = gnubg_analyses[name]
    match, games = analysis.match, analysis.games
    assert games and all(g.players == match.players for g in games)
    for p in (0, 1):
        for field in COUNTS:
            assert match.count(field, p) == sum(g.count(field, p) for g in games), field
        for field in [*TOTALS, *CUBE_ERRORS]:
            for figure in (Statistics.emg, Statistics.mwc):
                parts = [figure(g, field, p) for g in games]
                whole = figure(match, field, p)
                slack = sum(n.half_unit for n in parts) + whole.half_unit
                assert _near(whole.value, sum(n.value for n in parts), slack), (field, p)


@pytest.mark.parametrize("name", NAMES)
def test_text_export_is_one_file_a_game(gnubg_analyses: dict[str, Analysis], name: str) -> None:
    analysis = gnubg_analyses[name]
    games = len(analysis.games)
    assert games == count_games(analysis.source)
    expected = text_export_files(analysis.out_dir / "analysed.txt", games)
    assert list(analysis.text_files) == expected
    assert not text_export_files(analysis.out_dir / "analysed.txt", games + 1)[-1].exists()
    for i, (path, stats) in enumerate(zip(expected, analysis.games, strict=True), start=1):
        text = path.read_text(encoding="utf-8")
        block = text.split(f"Game statistics for game {i}\n", 1)[1]
        assert parse_statistics(block) == stats  # the export prints `show statistics game`
    last = expected[-1].read_text(encoding="utf-8")
    overall = "Match statistics" if "(match to" in analysis.stdout else "Session statistics"
    assert parse_statistics(last.split(f"{overall}\n", 1)[1]) == analysis.match


@pytest.mark.parametrize("name", NAMES)
def test_sgf_holds_the_analysis(gnubg_analyses: dict[str, Analysis], name: str) -> None:
    sgf = gnubg_analyses[name].sgf.read_text(encoding="utf-8")
    for prop in ("A[", "DA[", "LU[", "GS["):
        assert prop in sgf, prop
    # every evaluation is the pinned 0-ply cubeful one
    assert re.findall(r"DA\[E ver 3 (\S+)", sgf) and set(re.findall(r"DA\[E ver 3 (\S+)", sgf)) == {
        "0C"
    }
    assert set(re.findall(r" E ver 3 (?:\S+ ){6}(\S+) ", sgf)) == {"0C"}


@pytest.mark.parametrize("name", NAMES)
def test_gs_is_the_printed_game_statistics(gnubg_analyses: dict[str, Analysis], name: str) -> None:
    """GS[] field order, as documented: counts, then errors stored positive (luck signed), EMG
    then MWC (a fraction; points in money play)."""
    analysis = gnubg_analyses[name]
    stored = parse_gs(analysis.sgf.read_text(encoding="utf-8"))
    assert len(stored) == len(analysis.games)
    for gs, stats in zip(stored, analysis.games, strict=True):
        for field, pair in gs.counts.items():
            assert pair == (stats.count(field, 0), stats.count(field, 1)), field
        for field, costs in gs.costs.items():
            sign = 1.0 if field == "luck_total" else -1.0
            for p, (emg, mwc) in enumerate(costs):
                e, m = stats.emg(field, p), stats.mwc(field, p)
                scale = 100.0 if m.percent else 1.0
                assert _near(e.value, sign * emg, e.half_unit), (field, p)
                assert _near(m.value, sign * mwc * scale, m.half_unit), (field, p)


def test_text_export_prints_the_sgf_equities(gnubg_analyses: dict[str, Analysis]) -> None:
    """Units, checked: the text's best "Eq.:" of each analysed roll is the SGF's first A[]
    candidate score, and "Rolled NN (x)" the LU[] luck, both EMG to 3 decimals (match play)."""
    analysis = gnubg_analyses["galaxy-5p-llabba"]
    game1 = analysis.sgf.read_text(encoding="utf-8").split("\n(;")[0]
    best = [float(v) for v in re.findall(r"A\[\d+\]\[\w* E ver 3 (?:\S+ ){5}(\S+)", game1)]
    luck = [float(v) for v in re.findall(r"LU\[([^\]]*)\]", game1)]
    text = analysis.text_files[0].read_text(encoding="utf-8")
    rolls = re.findall(r"^Rolled \d\d \(([+-]\d\.\d{3})\):\n(.*?)\n\n", text, re.M | re.S)
    printed_best = [m.group(1) for _, body in rolls if (m := re.search(r"Eq\.: (\S+)", body))]
    assert len(best) == len(printed_best) > 20 and len(luck) == len(rolls)
    for value, printed in zip(best, printed_best, strict=True):
        assert _near(float(printed), value, 0.0005)
    for value, (printed, _) in zip(luck, rolls, strict=True):
        assert _near(float(printed), value, 0.0005)


def test_sgf_twin_analyses_like_its_mat(gnubg_analyses: dict[str, Analysis]) -> None:
    """The analysed GNU 1.08 SGF, loaded without its analysis, gives its .mat twin's figures."""
    mat, sgf = gnubg_analyses["xg-hsbt-7p"], gnubg_analyses["xg-hsbt-7p-sgf"]
    assert sgf.match == mat.match
    assert sgf.games == mat.games


def test_gnubg_time_is_small(gnubg_analyses: dict[str, Analysis]) -> None:
    """The whole selection stays well under a minute of gnubg (about 10 s summed)."""
    assert sum(a.seconds for a in gnubg_analyses.values()) < 60
