"""`bgparse analyze` on real inputs: every stored match analysed once, a decision for every
roll, double and answer joining the turn it is about, the same rows on every executor, a
stopped run that commits nothing, and the command's exact summary and exit codes.

Inputs: the bundled samples (every dialect, dances, beavers and raccoons, an illegal play,
hidden plays), matches made by `bgparse.replay.generate` (1-point matches and money sessions with
Jacoby and beavers), and for a variant match, nackgammon and hypergammon made by the same
generator. Analysing is the engine's work (about 200 decisions a second a core, luck being 21
rolls' plays a roll), so each dataset is analysed as few times as the tests allow: the
samples' fixture is itself a stopped run followed by a complete one, whose results several
tests read.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("bgsage")

from typer.testing import CliRunner

import bgparse.analyze.run as analyze_run
from bgparse.analyze import AnalyzeOptions, AnalyzeSummary, run_analyze
from bgparse.cli import app
from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect, run
from bgparse.replay.generate import generate_match, generate_matches
from bgparse.rules import Position, RuleSet, legal_plays
from bgparse.writers import write_mat

from ..conftest import ROOT, SAMPLES
from ..store.conftest import files, group_alive, group_ends

#: From a signal to the command's end, with room for a loaded machine.
STOP_BOUND = 10.0

SUMMARY = re.compile(
    r"^bgsage (?P<version>\S+) at (?P<level>\dply): analysed (?P<matches>[\d,]+) match(?:es)? "
    r"\((?P<decisions>[\d,]+) decisions?\), (?P<already>[\d,]+) analysed before, "
    r"(?P<failed>[\d,]+) failed, in (?P<data>\S+); \d+\.\d s \([\d,]+ decisions/s\)\n$"
)


# --- helpers -------------------------------------------------------------------------------


def write_generated(folder: Path, seed: int, matches: int, money: int) -> Path:
    """`matches` generated 1-point matches and `money` money sessions as .mat files."""
    folder.mkdir(parents=True, exist_ok=True)
    made = [*generate_matches(matches, 1, seed)]
    made += [*generate_matches(money, 0, seed + 1, money=True)]
    for i, m in enumerate(made):
        (folder / f"gen-{seed}-{i:03d}.mat").write_text(write_mat(m), encoding="utf-8")
    return folder


def table(root: Path, name: str, drop: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """A table's rows, sorted, every value as text (floats exactly), `drop` left out."""
    con = connect(root)
    cols = [c for c in run(con, f"SELECT * FROM {name} LIMIT 0").column_names if c not in drop]
    keep = ", ".join(f'"{c}"' for c in cols)
    rows = run(con, f"SELECT {keep} FROM {name}").to_pylist()
    return sorted(tuple(repr(v) for v in r.values()) for r in rows)


def query(root: Path, sql: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = run(connect(root), sql).to_pylist()
    return rows


def cli_env() -> dict[str, str]:
    """The environment of a child `python -m bgparse`: this checkout's package first."""
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {**os.environ, "PYTHONPATH": path}


def _as_a_terminal_starts_it() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _forked(pgid: int) -> int:
    """The fork server and workers of a process group that are alive."""
    n = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            if (entry / "stat").read_text().split(") ", 1)[1][0] == "Z":
                continue
            n += b"forkserver" in (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
    return n


def stop_when(
    ready: Callable[[int], bool], sig: int, args: list[str], script: str | None = None
) -> tuple[int, str, float]:
    """Start the command (or `script` with ARGS) in a session of its own, send `sig` to its
    process group once `ready(pid)` holds (unless `script` sends it itself): its exit code,
    stderr, and seconds from the signal to its end; its processes all gone."""
    argv = [sys.executable, "-m", "bgparse"] if script is None else [sys.executable, "-c", script]
    child = subprocess.Popen(
        [*argv, *args],
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_as_a_terminal_starts_it,
    )
    try:
        sent = time.monotonic()
        if script is None:
            deadline = time.monotonic() + 120
            while not ready(child.pid):
                assert child.poll() is None, "the command ended before the signal"
                assert time.monotonic() < deadline, "the command never got to work"
                time.sleep(0.01)
            os.killpg(child.pid, sig)
            sent = time.monotonic()
        _, err = child.communicate(timeout=STOP_BOUND + 120)
        seconds = time.monotonic() - sent
        assert group_ends(child.pid, 10.0, 0.05), "processes of the command outlived it"
    finally:
        if group_alive(child.pid):
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
    return child.returncode, err.decode(errors="replace"), seconds


# --- the samples: a stopped run, then a complete one ----------------------------------------


class Samples:
    """The samples imported, a run stopped by Ctrl-C once its two workers are at work, then a
    complete run by the command (`--workers 2`) and what each left."""

    root: Path
    before: dict[str, str]  # the dataset's files before the stopped run
    stopped: tuple[int, str, float]  # its exit code, stderr, seconds after the signal
    after_stop: dict[str, str]
    check_after_stop: tuple[int, str]
    result: Any  # the complete run's CliRunner result
    stored: int


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Samples:
    s = Samples()
    s.root = tmp_path_factory.mktemp("samples") / "data"
    run_import([SAMPLES], s.root, ImportOptions(workers=2))
    [(s.stored,)] = [tuple(r.values()) for r in query(s.root, "SELECT count(*) FROM matches")]
    s.before = files(s.root)

    def working(pid: int) -> bool:  # the pool's fork server and two workers, a moment in
        if _forked(pid) < 3:
            return False
        time.sleep(0.5)
        return True

    s.stopped = stop_when(working, signal.SIGINT, ["analyze", "--data", str(s.root), "-w", "2"])
    s.after_stop = files(s.root)
    check = CliRunner().invoke(app, ["check", "--data", str(s.root)])
    s.check_after_stop = (check.exit_code, check.output)
    s.result = CliRunner().invoke(app, ["analyze", "--data", str(s.root), "--workers", "2"])
    return s


def test_a_stopped_run_commits_nothing_and_a_later_run_analyses_everything(
    samples: Samples,
) -> None:
    code, stderr, seconds = samples.stopped
    assert code == 130, stderr
    assert stderr == "bgparse: interrupted: nothing was committed, the dataset is as it was\n"
    assert seconds < STOP_BOUND
    assert samples.after_stop == samples.before  # every file, byte for byte; no staging left
    assert samples.check_after_stop[0] == 0, samples.check_after_stop[1]
    m = SUMMARY.match(samples.result.stdout)
    assert m, samples.result.stdout
    assert (m["matches"], m["already"], m["failed"]) == (str(samples.stored), "0", "0")


def test_the_summary_line_and_exit_code(samples: Samples) -> None:
    result = samples.result
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    m = SUMMARY.match(result.stdout)
    assert m, result.stdout
    [(n,)] = [tuple(r.values()) for r in query(samples.root, "SELECT count(*) FROM decisions")]
    assert m["decisions"] == f"{n:,}"
    assert (m["level"], m["data"]) == ("0ply", str(samples.root))
    import importlib.metadata

    assert m["version"] == importlib.metadata.version("bgsage")


def test_every_stored_match_has_one_analysed_ledger_row(samples: Samples) -> None:
    rows = query(
        samples.root,
        "SELECT m.match_uid, count(a.match_uid) AS n, min(a.status) AS status, "
        "min(a.n_decisions) AS counted, min(a.engine) AS engine, min(a.level) AS level, "
        "(SELECT count(*) FROM decisions d WHERE d.match_uid = m.match_uid) AS decisions "
        "FROM matches m LEFT JOIN analyses a USING (match_uid) GROUP BY m.match_uid",
    )
    assert len(rows) == samples.stored
    for r in rows:
        assert (r["n"], r["status"], r["engine"], r["level"]) == (1, "analysed", "bgsage", "0ply")
        assert r["counted"] == r["decisions"]
    # A match with none has no roll to judge (a resignation before the first roll).
    assert sum(r["decisions"] == 0 for r in rows) <= 1


def test_a_decision_for_every_roll_double_and_answer(samples: Samples) -> None:
    """Each play with legal dice has one checker decision with its luck; each dance one with
    luck alone; each double one cube decision and its answer (take, drop, beaver) one take
    decision whose offer is the double; and nothing else is a checker or take decision."""
    per_turn = query(
        samples.root,
        """
        SELECT t.kind, t.legal, d.kind AS decision, d.n_legal, d.counted, d.luck IS NULL AS
            no_luck, d.error, d.play = t.play AS same_play, d.action, d.offer_ply, d.proper_action,
            d.side = t.side AS same_side, d.position_id = t.position_id AS same_position,
            t.die1 BETWEEN 1 AND 6 AND t.die2 BETWEEN 1 AND 6 AS real_dice,
            lag(t.kind) OVER (PARTITION BY t.match_uid, t.game_no ORDER BY t.ply) AS before,
            lag(t.ply) OVER (PARTITION BY t.match_uid, t.game_no ORDER BY t.ply) AS before_ply
        FROM turns t LEFT JOIN decisions d
            ON d.match_uid = t.match_uid AND d.game_no = t.game_no AND d.ply = t.ply
            AND (d.kind <> 'cube' OR t.kind = 'double')
        """,
    )
    kinds: dict[str, int] = {}
    for r in per_turn:
        kind = r["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind == "play" and r["legal"] is not False and r["real_dice"]:
            assert r["decision"] == "checker" and r["n_legal"] >= 1 and r["same_play"], r
            assert not r["no_luck"] and r["same_side"] and r["same_position"], r
        elif kind == "dance":
            assert r["decision"] == "checker" and r["n_legal"] == 0, r
            assert not r["no_luck"] and not r["counted"] and r["error"] == 0.0, r
        elif kind == "double":
            assert r["decision"] == "cube" and r["action"] == "double", r
            # Counted, as GNU counts, unless the doubler could not double (a post-Crawford
            # leader, a cube worth what it needs): GNU analyses no such double.
            unavailable = r["proper_action"] == "no double (cube not available)"
            assert r["counted"] != unavailable and (r["error"] == 0 or not unavailable), r
        elif kind in ("take", "drop", "beaver") and r["before"] == "double":
            assert r["decision"] == "take" and r["offer_ply"] == r["before_ply"], r
            assert r["action"] == {"drop": "pass"}.get(kind, kind), r
        else:  # hidden plays, the answers to a beaver, the illegal play's impossible dice
            assert r["decision"] is None, r
    # The samples have every kind that has a decision, and those that have none.
    assert {"play", "dance", "double", "take", "drop", "beaver", "raccoon", "hidden"} <= set(kinds)
    # The cube decisions before a roll are at rolls, from the roller's view.
    at = query(
        samples.root,
        "SELECT t.kind, d.action, d.side = t.side AS same_side, count(*) AS n FROM decisions d "
        "JOIN turns t USING (match_uid, game_no, ply) WHERE d.kind = 'cube' GROUP BY ALL",
    )
    assert {(r["kind"], r["action"], r["same_side"]) for r in at} == {
        ("play", "no double", True),
        ("dance", "no double", True),
        ("double", "double", True),
    }


def test_every_decision_joins_its_turn_and_every_answer_its_offer(samples: Samples) -> None:
    [orphans] = query(
        samples.root,
        "SELECT count(*) FILTER (WHERE t.ply IS NULL) AS no_turn, count(*) AS n "
        "FROM decisions d LEFT JOIN turns t USING (match_uid, game_no, ply)",
    )
    assert orphans["no_turn"] == 0 and orphans["n"] > 3_000
    [takes] = query(
        samples.root,
        "SELECT count(*) AS n, count(c.ply) AS joined, "
        "count(*) FILTER (WHERE c.taker = d.side AND c.offer = 'double' "
        "AND c.response = CASE d.action WHEN 'pass' THEN 'drop' ELSE d.action END) AS agree "
        "FROM decisions d LEFT JOIN cube_actions c "
        "ON c.match_uid = d.match_uid AND c.game_no = d.game_no AND c.ply = d.offer_ply "
        "WHERE d.kind = 'take'",
    )
    assert takes["n"] == takes["joined"] == takes["agree"] > 50
    [others] = query(
        samples.root, "SELECT count(*) AS n FROM decisions WHERE kind <> 'take' AND offer_ply >= 0"
    )
    assert others["n"] == 0


def test_counted_checker_decisions_are_the_plays_with_a_choice(samples: Samples) -> None:
    """Recomputed from the turns' boards and dice: a checker decision counts where the roll
    has more than one legal play (plays that reach the same board are one), as GNU counts."""
    rows = query(
        samples.root,
        "SELECT t.position_id, t.die1, t.die2, d.n_legal, d.counted, d.played_rank, "
        "d.n_candidates FROM decisions d JOIN turns t USING (match_uid, game_no, ply) "
        "WHERE d.kind = 'checker'",
    )
    counted = 0
    for r in rows:
        plays = legal_plays(Position.from_position_id(r["position_id"]), (r["die1"], r["die2"]))
        n = len({p.after for p in plays if p.steps})  # a dance: one empty play, none to choose
        assert (r["n_legal"], r["counted"]) == (n, n > 1), r
        if n:
            assert r["n_candidates"] == n and 1 <= r["played_rank"] <= n, r
        counted += n > 1
    assert counted > 2_000


def test_a_second_run_analyses_nothing_and_adds_no_rows(samples: Samples) -> None:
    was = files(samples.root)
    again = run_analyze(samples.root, AnalyzeOptions(workers=1))
    assert (again.matches, again.already, again.decisions, again.failed) == (
        0,
        samples.stored,
        0,
        [],
    )
    assert files(samples.root) == was


# --- generated matches: every executor, the same rows ---------------------------------------


Run = tuple[AnalyzeSummary, list[tuple[str, ...]], list[tuple[str, ...]]]


def analysed(root: Path, options: AnalyzeOptions) -> Run:
    """A run over `root` and what it committed: the decisions but their analysis_id, the
    ledger but its id and time."""
    summary = run_analyze(root, options)
    return (
        summary,
        table(root, "decisions", ("analysis_id",)),
        table(root, "analyses", ("analysis_id", "analysed_at")),
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """18 generated 1-point matches and 2 money sessions, imported (not analysed)."""
    base = tmp_path_factory.mktemp("generated")
    run_import([write_generated(base / "in", 5, 18, 2)], base / "data", ImportOptions(workers=1))
    return base / "data"


@pytest.fixture
def small_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """Units of 4 matches (the client cuts them), so that every executor runs several."""
    monkeypatch.setattr(analyze_run, "_UNIT_MATCHES", 4)


@pytest.fixture(scope="module")
def inline(generated: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("inline") / "data"
    shutil.copytree(generated, root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(analyze_run, "_UNIT_MATCHES", 4)
        return analysed(root, AnalyzeOptions(workers=1))


def test_the_reference_run_analysed_every_generated_match(inline: Run) -> None:
    summary, decisions, ledger = inline
    assert (summary.matches, summary.already, summary.failed) == (20, 0, [])
    assert summary.decisions == len(decisions) > 1_000
    assert len(ledger) == 20


@pytest.mark.parametrize("how", ["pool", "dask"])
def test_every_executor_commits_the_same_rows(
    how: str, generated: Path, inline: Run, small_units: None, tmp_path: Path
) -> None:
    root = tmp_path / "data"
    shutil.copytree(generated, root)
    if how == "dask":
        pytest.importorskip("distributed")
        options = AnalyzeOptions(workers=2, executor="dask")
    else:
        options = AnalyzeOptions(workers=2)
    summary, decisions, ledger = analysed(root, options)
    ref_summary, ref_decisions, ref_ledger = inline
    assert len(decisions) == len(ref_decisions)
    assert decisions == ref_decisions  # every column but the run's id, to the last bit
    assert ledger == ref_ledger
    assert (summary.matches, summary.decisions) == (ref_summary.matches, ref_summary.decisions)
    if how == "pool":
        # A later import of new matches: the next run analyses those alone.
        run_import([write_generated(tmp_path / "new", 99, 2, 0)], root, ImportOptions(workers=1))
        more = run_analyze(root, AnalyzeOptions(workers=1))
        assert (more.matches, more.already, more.failed) == (2, 20, [])
        new = query(
            root,
            "SELECT a.analysis_id, count(*) AS n FROM analyses a GROUP BY ALL ORDER BY n DESC",
        )
        assert [r["n"] for r in new] == [20, 2] and new[1]["analysis_id"] == more.analysis_id
        [(n,)] = [
            tuple(r.values())
            for r in query(
                root,
                f"SELECT count(*) FROM decisions WHERE analysis_id = '{more.analysis_id}'",
            )
        ]
        assert n == more.decisions > 0
        assert table(root, "decisions", ("analysis_id",)) != decisions  # the old rows kept:
        assert set(decisions) <= set(table(root, "decisions", ("analysis_id",)))


# --- the command's exit codes ---------------------------------------------------------------


def test_no_dataset_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["analyze", "--data", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"bgparse: no dataset at {tmp_path / 'none'} (run 'bgparse import' first)\n"
    )


@pytest.mark.parametrize("level", ["5ply", "0", "ply"])
def test_a_bad_level_exits_2(level: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["analyze", "--data", str(tmp_path), "--level", level])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"bgparse: analysis level {level!r}: use one of 0ply, 1ply, 2ply, 3ply "
        "(GNU Backgammon's numbering: 0ply is the network alone)\n"
    )


def test_a_variant_match_is_not_analysed_and_exits_1(tmp_path: Path) -> None:
    """Nackgammon and hypergammon, generated: named with the reason, the standard match beside
    them committed, and tried again by the next run."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name, variant in (("nack", "nackgammon"), ("hyper", "hypergammon3")):
        m = generate_match(name, 1, rules=RuleSet(variant=variant))
        (inputs / f"{name}.mat").write_text(write_mat(m), encoding="utf-8")
    (inputs / "plain.mat").write_text(write_mat(generate_match("plain", 1)), encoding="utf-8")
    data = tmp_path / "data"
    run_import([inputs], data, ImportOptions(workers=1))
    for already in (0, 1):
        result = CliRunner().invoke(app, ["analyze", "--data", str(data), "-w", "1"])
        assert result.exit_code == 1, result.output
        m = SUMMARY.match(result.stdout)
        assert m, result.stdout
        assert (m["matches"], m["already"], m["failed"]) == (str(1 - already), str(already), "2")
        # failures in the matches' order (by identity): sorted here
        assert sorted(result.stderr.splitlines()) == [
            f"not analysed: {inputs / 'hyper.mat'} match 1: the engine plays standard "
            "backgammon, not hypergammon3",
            f"not analysed: {inputs / 'nack.mat'} match 1: the engine plays standard "
            "backgammon, not nackgammon",
        ]
    ledger = query(
        data,
        "SELECT m.variant, a.status, a.reason, a.n_decisions FROM analyses a "
        "JOIN matches m USING (match_uid) ORDER BY m.variant, a.analysed_at",
    )
    assert [(r["variant"], r["status"]) for r in ledger] == [
        ("hypergammon3", "failed"),
        ("hypergammon3", "failed"),
        ("nackgammon", "failed"),
        ("nackgammon", "failed"),
        ("standard", "analysed"),
    ]
    [(n,)] = [
        tuple(r.values()) for r in query(data, "SELECT count(DISTINCT match_uid) FROM decisions")
    ]
    assert n == 1


#: A child that sends SIGTERM to itself as the analysis's commit moves its first file into
#: the tree (the kill point of the import's signal tests, on the same dataset code).
ARMED = r"""
import signal, sys
from tests.store.killpoints import arm
arm("publish", 0, signal.SIGTERM)
sys.argv = ["bgparse", *sys.argv[1:]]
from bgparse.__main__ import main
main()
"""


def test_a_signal_in_the_commit_leaves_the_dataset_as_it_was(tmp_path: Path) -> None:
    data = tmp_path / "data"
    run_import([write_generated(tmp_path / "in", 3, 2, 0)], data, ImportOptions(workers=1))
    was = files(data)
    code, stderr, _ = stop_when(
        lambda pid: True, signal.SIGTERM, ["analyze", "--data", str(data), "-w", "1"], ARMED
    )
    assert (code, stderr) == (
        143,
        "bgparse: interrupted: nothing was committed, the dataset is as it was\n",
    )
    assert files(data) == was
    assert CliRunner().invoke(app, ["check", "--data", str(data)]).exit_code == 0
    done = run_analyze(data, AnalyzeOptions(workers=1))
    assert (done.matches, done.already, done.committed) == (2, 0, True)


def test_an_inline_run_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    """With one worker the units run in this process, collecting garbage once a unit (the
    engine's answers are hundreds of thousands of objects a unit); afterwards the thresholds,
    the frozen objects and the collector are as they were."""
    import gc

    from bgparse.pipeline import pool

    data = tmp_path / "data"
    run_import([write_generated(tmp_path / "in", 5, 2, 0)], data, ImportOptions(workers=1))
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen = []
    real = pool.unit_garbage

    def spy() -> Any:
        seen.append(pool._BATCH_GC)
        return real()

    pool.unit_garbage = spy  # type: ignore[assignment]
    try:
        assert run_analyze(data, AnalyzeOptions(workers=1)).matches == 2
    finally:
        pool.unit_garbage = real  # type: ignore[assignment]
    assert seen and all(seen)
    assert (gc.get_threshold(), gc.get_freeze_count(), pool._BATCH_GC) == (threshold, frozen, False)
    assert gc.isenabled()
