"""`run_analyze`: the stored matches not yet analysed by the engine at a level, sent in units
through the pipeline runner (inline, the process pool, or Dask), their decisions committed
with the `analyses` ledger in one atomic commit.

The client reads each match's turns from the dataset (a stream ordered by match), cuts them
into units of whole matches, and takes the units' rows back in the order it sent them, so the
rows and their files do not depend on which worker ran what. A match that fails (its turns
cannot be replayed, the engine refuses a position) is a ledger row with its reason, analysed
again by the next run; a run that is stopped or fails commits nothing.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import secrets
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from bgparse.analysis.engine import Engine
from bgparse.analyze import worker
from bgparse.analyze.worker import MatchTurns, TurnRow, UnitAnalysis
from bgparse.helpers.errors import DatasetError
from bgparse.helpers.interrupts import Interrupted, received
from bgparse.helpers.paths import display_path
from bgparse.pipeline import Close, Runner, closing, once, open_executor, pool
from bgparse.store.dataset import Dataset
from bgparse.store.rows import Columns
from bgparse.version import __version__

__all__ = ["AnalyzeOptions", "AnalyzeProgress", "AnalyzeSummary", "run_analyze"]

#: Matches a unit holds at most, and turns: an engine batch is a unit's, and a unit of a few
#: hundred positions keeps bgsage's per-call cost small while the last units stay short.
_UNIT_MATCHES = 16
_UNIT_TURNS = 2_000


@dataclass(frozen=True, slots=True)
class AnalyzeOptions:
    level: str = "0ply"
    workers: int | None = None  # None: one per core
    executor: Literal["local", "dask"] = "local"
    scheduler: str | None = None
    #: At most this many matches (None: all that need it): to analyse an archive in steps.
    limit: int | None = None


@dataclass(slots=True)
class AnalyzeProgress:
    matches_done: int
    matches_total: int
    decisions: int


@dataclass(slots=True)
class AnalyzeSummary:
    analysis_id: str
    engine: str = ""
    engine_version: str = ""
    level: str = ""
    matches: int = 0  # analysed now
    already: int = 0  # analysed by an earlier run at this level
    failed: list[tuple[str, str]] = field(default_factory=list)  # (match, reason)
    decisions: int = 0
    seconds: float = 0.0
    committed: bool = False


def _new_id() -> str:
    return "a" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(4)


_DONE = """
SELECT match_uid FROM (
    SELECT match_uid, status, row_number() OVER (
        PARTITION BY match_uid ORDER BY analysed_at DESC, analysis_id DESC
    ) AS rn
    FROM analyses
    WHERE engine = ? AND level = ?
)
WHERE rn = 1 AND status = 'analysed'
"""

_TURNS = f"""
WITH todo AS (
    SELECT match_uid, year, rules_json, source_path, match_index
    FROM matches
    WHERE match_uid NOT IN ({_DONE})
    ORDER BY match_uid
    LIMIT ?
)
SELECT
    m.match_uid, m.year, m.rules_json, m.source_path, m.match_index,
    t.game_no, t.ply, t.side, t.kind, t.position_id, t.match_id, t.die1, t.die2,
    t.steps, t.play, t.cube_value, t.cube_owner, t.away_mover, t.away_opponent,
    t.is_crawford, t.line, t."column", t.legal
FROM todo AS m
LEFT JOIN turns AS t USING (match_uid)
ORDER BY m.match_uid, t.game_no, t.ply
"""


def _matches(
    con: Any, engine: str, level: str, limit: int | None
) -> Iterator[tuple[bytes, MatchTurns | None, str, str]]:
    """The matches to analyse, each with its turns, in match order: (uid, match, name,
    reason), the match None where it cannot be analysed (`reason` says why)."""
    reader = con.sql(_TURNS, params=[engine, level, limit if limit is not None else 2**62])
    batches = reader.to_arrow_reader(8_192)
    uid: bytes | None = None
    info: dict[str, Any] = {}
    turns: list[TurnRow] = []

    def done() -> tuple[bytes, MatchTurns | None, str, str]:
        rules = json.loads(info["rules_json"] or "{}")
        name = f"{display_path(info['source_path'])} match {info['match_index'] + 1}"
        variant = rules.get("variant", "standard")
        assert uid is not None
        if variant not in ("standard", None):
            return uid, None, name, f"the engine plays standard backgammon, not {variant}"
        m = MatchTurns(
            uid,
            info["year"],
            bool(rules.get("jacoby")),
            bool(rules.get("beavers")),
            tuple(turns),
        )
        return uid, m, name, ""

    for batch in batches:
        for row in batch.to_pylist():
            u = row["match_uid"]
            if isinstance(u, str):  # DuckDB gives a UUID as its text
                u = uuid.UUID(u).bytes
            if u != uid:
                if uid is not None:
                    yield done()
                uid, info, turns = u, row, []
            if row["ply"] is None:
                continue  # a match with no turns
            dice = (row["die1"], row["die2"]) if row["die1"] is not None else None
            away = (
                (row["away_mover"], row["away_opponent"]) if row["away_mover"] is not None else None
            )
            turns.append(
                TurnRow(
                    row["game_no"],
                    row["ply"],
                    row["side"],
                    row["kind"],
                    row["position_id"],
                    row["match_id"],
                    dice,
                    tuple((s["src"], s["dst"]) for s in row["steps"] or ()),
                    row["play"],
                    row["cube_value"],
                    row["cube_owner"],
                    away,
                    bool(row["is_crawford"]),
                    row["line"],
                    row["column"],
                    row["legal"],
                )
            )
    if uid is not None:
        yield done()


def run_analyze(
    root: str | os.PathLike[str],
    options: AnalyzeOptions | None = None,
    *,
    on_progress: Callable[[AnalyzeProgress], None] | None = None,
    executor: Executor | None = None,
) -> AnalyzeSummary:
    """Analyse with the engine every stored match not yet analysed at `options.level`, as one
    atomic commit of their `decisions` and `analyses` rows."""
    from bgparse.questions.query import connect

    opts = options or AnalyzeOptions()
    engine = Engine.open(opts.level)  # a level that does not exist fails before anything
    ds = Dataset(root)
    if not ds.exists():
        raise DatasetError(f"no dataset at {display_path(root)} (run 'bgparse import' first)")
    workers = opts.workers or len(os.sched_getaffinity(0))
    started = time.perf_counter()
    summary = AnalyzeSummary(_new_id(), engine.name, engine.version, engine.level)
    analysed_at = datetime.now(UTC).replace(microsecond=0)
    with contextlib.ExitStack() as stack:
        # Batch-friendly garbage collection for units run in this process, restored after.
        stack.callback(gc.set_threshold, *gc.get_threshold())
        gc.set_threshold(*pool._GC_THRESHOLD)
        stack.enter_context(pool._batch_gc_here())
        close: Close | None = None
        if executor is None:
            executor, close = open_executor(
                opts.executor, workers, opts.scheduler, [worker.__name__]
            )
            close = once(close)
            stack.push(closing(close))
        stack.enter_context(ds.lock())
        con = connect(root)
        stack.callback(con.close)
        [(todo,)] = con.execute(
            f"SELECT count(*) FROM matches WHERE match_uid NOT IN ({_DONE})",
            [engine.name, engine.level],
        ).fetchall()
        [(stored,)] = con.execute("SELECT count(*) FROM matches").fetchall()
        summary.already = stored - todo
        total = min(todo, opts.limit) if opts.limit is not None else todo
        analysis_id = summary.analysis_id
        tx = ds.begin(analysis_id, __version__)
        ledger = Columns("analyses")
        names: dict[bytes, str] = {}
        progress = AnalyzeProgress(0, total, 0)

        def record(uid: bytes, n: int, reason: str | None) -> None:
            ledger.add(
                {
                    "analysis_id": summary.analysis_id,
                    "analysed_at": analysed_at,
                    "match_uid": uid,
                    "engine": engine.name,
                    "engine_version": engine.version,
                    "level": engine.level,
                    "status": "failed" if reason else "analysed",
                    "reason": reason,
                    "n_decisions": n,
                    "bgparse_version": __version__,
                }
            )
            progress.matches_done += 1
            if reason:
                summary.failed.append((names.get(uid, uid.hex()), reason))
            else:
                summary.matches += 1
                summary.decisions += n
                progress.decisions += n

        def on_result(result: UnitAnalysis, meta: None) -> None:
            for year, batch in result.rows.items():
                tx.add("decisions", batch, worker.SOURCE, year)
            for uid, n, reason in result.outcomes:
                record(uid, n, reason)
            if on_progress is not None:
                on_progress(progress)

        try:
            runner: Runner[UnitAnalysis, None] = Runner(executor, max(2, 2 * workers), on_result)
            unit: list[MatchTurns] = []
            size = 0
            for uid, m, name, reason in _matches(con, engine.name, engine.level, opts.limit):
                names[uid] = name
                if m is None:
                    record(uid, 0, reason)
                    continue
                unit.append(m)
                size += len(m.turns)
                if len(unit) >= _UNIT_MATCHES or size >= _UNIT_TURNS:
                    runner.submit(
                        None, worker.analyse_unit, engine.level, summary.analysis_id, unit
                    )
                    unit, size = [], 0
            if unit:
                runner.submit(None, worker.analyse_unit, engine.level, summary.analysis_id, unit)
            runner.drain()
            if len(ledger):
                tx.add("analyses", ledger.batch())
            if (signum := received()) is not None:
                raise Interrupted(signum)
            summary.committed = tx.commit(as_import=False) is not None
        except Interrupted as exc:
            if close is not None:
                close(False)
            tx.abort()
            if tx.committed and not exc.committed:
                # The signal came once the manifest was replaced: the analysis is committed.
                raise Interrupted(exc.signum, committed=True) from None
            raise
        except BaseException:
            if close is not None:
                close(False)
            tx.abort()
            raise
    summary.seconds = time.perf_counter() - started
    return summary
