"""The analysis statistics (performance, cube-errors, blunders, the opening and reply plays'
errors) recomputed another way: in Python, from the `decisions`, `turns` and `matches` rows
read straight from the dataset's Parquet files, never through the statistics' SQL.

The dataset: the bundled samples imported and analysed by the engine (inline), and, where
../shared is present, eXtreme Gammon's `.xg` file with its GNU SGF twin, which bring their own
analysis: a match with three sources, of which the statistics must read one.
"""

from __future__ import annotations

import math
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from bgparse.analyze import AnalyzeOptions, run_analyze
from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.filters import Filters
from bgparse.questions.query import connect
from bgparse.questions.stats import get
from bgparse.replay.generate import generate_matches
from bgparse.store.dataset import Dataset
from bgparse.writers.mat import write_mat
from tests.conftest import CORPUS, SAMPLES

PREFERENCE = ["xg", "gnubg-sgf", "gnubg-text", "engine"]

#: The statistics of the analysis this module tests and recomputes (tests/store's checks that
#: every statistic is tested and recomputed count them here).
STATISTICS_TESTED = ("performance", "match-performance", "cube-errors", "blunders")


def _rows(root: Path, table: str) -> list[dict[str, Any]]:
    """Every row of `table` from its files, partition keys from the folder names."""
    out: list[dict[str, Any]] = []
    for rel in Dataset(root).manifest().files.get(table, ()):
        keys = dict(part.split("=", 1) for part in Path(rel).parts[1:-1] if "=" in part)
        for row in pq.read_table(root / rel).to_pylist():
            if "source" in keys:
                row["source"] = keys["source"]
            out.append(row)
    for row in out:
        if isinstance(row.get("match_uid"), bytes):
            row["match_uid"] = str(uuid.UUID(bytes=row["match_uid"]))
    return out


def _unfinished_match(folder: Path) -> Path:
    """A generated 5-point match cut in the middle of its last game: an unfinished game."""
    [made] = generate_matches(1, 5, 7)
    lines = write_mat(made).splitlines()
    last = max(i for i, line in enumerate(lines) if line.strip().startswith("Game "))
    cut = last + 2 + (len(lines) - last) // 2
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "unfinished.mat"
    path.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("analysed")
    root = base / "data"
    inputs = [SAMPLES, _unfinished_match(base / "in")]
    twins = [CORPUS / "xg" / "test.xg", CORPUS / "xg" / "test.sgf"]
    inputs += [p for p in twins if p.is_file()]
    run_import(inputs, root, ImportOptions(workers=1))
    summary = run_analyze(root, AnalyzeOptions(workers=1))
    assert summary.committed and summary.matches > 0
    return root


@pytest.fixture(scope="module")
def tables(data: Path) -> dict[str, list[dict[str, Any]]]:
    decisions = _rows(data, "decisions")

    def analysis(d: dict[str, Any]) -> tuple[str, str | None]:
        # A stored analysis is its source's whatever each decision's level; the engine's a
        # level's.
        return d["source"], d["level"] if d["source"] == "engine" else None

    # The view's rule: the first analysis (run, then file) of each (match, analysis).
    first: dict[tuple[Any, ...], tuple[str, str]] = {}
    for d in decisions:
        key = (d["match_uid"], *analysis(d))
        mark = (d["analysis_id"], d["file_sha256"] or "")
        if key not in first or mark < first[key]:
            first[key] = mark
    decisions = [
        d
        for d in decisions
        if first[(d["match_uid"], *analysis(d))] == (d["analysis_id"], d["file_sha256"] or "")
    ]
    # One analysis a match: the preferred source, of the engine's the deepest level.
    have: dict[str, set[tuple[str, str | None]]] = defaultdict(set)
    for d in decisions:
        have[d["match_uid"]].add(analysis(d))
    chosen = {
        uid: min(
            options,
            key=lambda o: (PREFERENCE.index(o[0]), [-ord(c) for c in o[1] or ""]),
        )
        for uid, options in have.items()
    }
    picked = [d for d in decisions if analysis(d) == chosen[d["match_uid"]]]
    return {
        "decisions": picked,
        "all_decisions": decisions,
        "turns": _rows(data, "turns"),
        "matches": _rows(data, "matches"),
    }


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _stat(data: Path, name: str, **values: Any) -> list[dict[str, Any]]:
    con = connect(data)
    try:
        return get(name).run(con, values).to_pylist()
    finally:
        con.close()


def _players(tables: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    return {m["match_uid"]: m for m in tables["matches"]}


def test_performance_per_player(data: Path, tables: dict[str, list[dict[str, Any]]]) -> None:
    matches = _players(tables)
    acc: dict[str, Counter[str]] = defaultdict(Counter)
    err: dict[str, defaultdict[str, float]] = defaultdict(lambda: defaultdict(float))
    seen: dict[str, set[str]] = defaultdict(set)
    for d in tables["decisions"]:
        m = matches[d["match_uid"]]
        key = m["player1_key"] if d["side"] else m["player0_key"]
        seen[key].add(d["match_uid"])
        if d["kind"] == "checker":
            acc[key]["checker"] += d["counted"]
            err[key]["checker"] += d["error"]
            if d["luck"] is not None:
                acc[key]["rolls"] += 1
                err[key]["luck"] += d["luck"]
        else:
            acc[key]["cube"] += d["counted"]
            err[key]["cube"] += d["error"]
    rows = _stat(data, "performance")
    assert len(rows) == len(seen)
    names = {m["player0_key"]: m["player0"] for m in matches.values()}
    names |= {m["player1_key"]: m["player1"] for m in matches.values()}
    by_name = {r["player"]: r for r in rows}
    for key in seen:
        row = by_name[names[key]]
        n = acc[key]["checker"] + acc[key]["cube"]
        total = err[key]["checker"] + err[key]["cube"]
        assert row["matches"] == len(seen[key])
        assert row["checker_decisions"] == acc[key]["checker"]
        assert row["cube_decisions"] == acc[key]["cube"]
        assert row["rolls"] == acc[key]["rolls"]
        assert _close(row["checker_error"], err[key]["checker"])
        assert _close(row["cube_error"], err[key]["cube"])
        assert _close(row["luck"], err[key]["luck"])
        assert _close(row["error_rate"], 1000 * total / n if n else None)
        assert _close(row["pr"], 500 * total / n if n else None)


def test_match_performance_sums_to_the_players(data: Path) -> None:
    per_player = {r["player"]: r for r in _stat(data, "performance")}
    per_match = _stat(data, "match-performance")
    summed: dict[str, Counter[str]] = defaultdict(Counter)
    errors: dict[str, float] = defaultdict(float)
    for r in per_match:
        assert r["opponent"] is not None and r["file"]
        summed[r["player"]]["checker"] += r["checker_decisions"]
        summed[r["player"]]["cube"] += r["cube_decisions"]
        errors[r["player"]] += r["checker_error"] + r["cube_error"]
    assert set(summed) == set(per_player)
    for name, row in per_player.items():
        assert summed[name]["checker"] == row["checker_decisions"]
        assert summed[name]["cube"] == row["cube_decisions"]
        assert math.isclose(errors[name], row["checker_error"] + row["cube_error"], abs_tol=1e-9)


def test_a_player_filter_keeps_the_players_own_row(data: Path) -> None:
    rows = _stat(data, "performance")
    busiest = max(rows, key=lambda r: r["checker_decisions"])
    con = connect(data, Filters(player=busiest["player"]))
    try:
        [mine] = get("performance").run(con, {}).to_pylist()
    finally:
        con.close()
    # Sums in another order: equal to rounding.
    assert mine.keys() == busiest.keys()
    for key, value in busiest.items():
        if isinstance(value, float):
            assert math.isclose(mine[key], value, rel_tol=1e-12, abs_tol=1e-12), key
        else:
            assert mine[key] == value, key


def test_one_analysis_a_match_is_read(data: Path, tables: dict[str, list[dict[str, Any]]]) -> None:
    """Where a match has several sources, the statistics read the preferred one, and say so;
    --analysis reads the one named."""
    sources = Counter(d["source"] for d in tables["decisions"])
    rows = _stat(data, "match-performance")
    used = {s for r in rows for s in r["analysis"].split(", ")}
    assert used == set(sources)
    engine_only = _stat(data, "performance", analysis="engine")
    expected = Counter()
    for d in tables["all_decisions"]:
        if d["source"] == "engine" and d["kind"] == "checker":
            expected["checker"] += d["counted"]
    assert sum(r["checker_decisions"] for r in engine_only) == expected["checker"]
    assert {r["analysis"] for r in engine_only} == {"engine"}


def test_cube_errors_by_score(data: Path, tables: dict[str, list[dict[str, Any]]]) -> None:
    turns = {(t["match_uid"], t["game_no"], t["ply"]): t for t in tables["turns"]}
    decisions: Counter[tuple[Any, Any]] = Counter()
    errors: Counter[tuple[Any, Any, str]] = Counter()
    cost: defaultdict[tuple[Any, Any, str], float] = defaultdict(float)
    for d in tables["decisions"]:
        if d["kind"] == "checker":
            continue
        t = turns[(d["match_uid"], d["game_no"], d["ply"])]
        score = (t["away_mover"], t["away_opponent"])
        decisions[score] += d["counted"]
        if d["error"] > 0:
            for kind in (d["error_type"], "all"):
                errors[(*score, kind)] += 1
                cost[(*score, kind)] += d["error"]
    rows = _stat(data, "cube-errors")
    assert {(r["away_me"], r["away_opp"]) for r in rows} == {
        s for s, n in decisions.items() if n >= 1
    }
    for r in rows:
        key = (r["away_me"], r["away_opp"], r["error_type"])
        assert r["decisions"] == decisions[key[:2]]
        assert r["errors"] == errors[key]
        assert math.isclose(r["cost"], cost[key], abs_tol=1e-9)
        if r["decisions"]:
            assert math.isclose(r["cost_rate"], 1000 * cost[key] / r["decisions"], abs_tol=1e-9)
    kinds = {r["error_type"] for r in rows}
    assert "all" in kinds
    assert kinds <= {
        "all",
        "missed double below CP",
        "missed double above CP",
        "wrong double below DP",
        "wrong double above TG",
        "wrong take",
        "wrong pass",
    }


def test_blunders_are_the_worst_decisions(
    data: Path, tables: dict[str, list[dict[str, Any]]]
) -> None:
    rows = _stat(data, "blunders", min_error=0.05, top=25)
    worst = sorted((d["error"] for d in tables["decisions"] if d["error"] >= 0.05), reverse=True)
    assert [r["error"] for r in rows] == pytest.approx(worst[:25])
    for r in rows:
        _path, game, turn = r["show"].rsplit(":", 2)
        assert game == str(r["game"]) and turn.startswith("t")
        assert r["position_id"] and r["made"]


def test_opening_play_errors(data: Path, tables: dict[str, list[dict[str, Any]]]) -> None:
    firsts = {
        (t["match_uid"], t["game_no"], t["ply"]): t
        for t in tables["turns"]
        if t["rolls_before"] == 0 and t["kind"] == "play" and t["position_id"] == "4HPwATDgc/ABMA"
    }
    per_play: dict[tuple[str, str], list[float]] = defaultdict(list)
    for d in tables["decisions"]:
        t = firsts.get((d["match_uid"], d["game_no"], d["ply"]))
        if t is not None and d["kind"] == "checker":
            per_play[(t["roll"], t["play"])].append(d["error"])
    rows = _stat(data, "opening-plays")
    analysed = {(r["roll"], r["play"]): r for r in rows if r["analysed"]}
    assert set(analysed) == set(per_play)
    for key, errors in per_play.items():
        assert analysed[key]["analysed"] == len(errors)
        assert math.isclose(analysed[key]["mean_error"], sum(errors) / len(errors), abs_tol=1e-9)


def test_an_unfinished_games_decisions_count(
    data: Path, tables: dict[str, list[dict[str, Any]]]
) -> None:
    """STATISTICS.md: the analysis's statistics keep an unfinished game's decisions (the play
    was made whatever came after). The fixture has such a game (a generated match cut in its
    last game), analysed: the per-player recomputation above counts its decisions, and so must
    the statistic."""
    unfinished = {
        (g["match_uid"], g["game_no"]) for g in _rows(data, "games") if g["end"] == "unfinished"
    }
    inside = [d for d in tables["decisions"] if (d["match_uid"], d["game_no"]) in unfinished]
    assert inside, "the fixture has an analysed unfinished game"
    counted = sum(1 for d in tables["decisions"] if d["kind"] == "checker" and d["counted"])
    rows = _stat(data, "performance")
    assert sum(r["checker_decisions"] for r in rows) == counted
