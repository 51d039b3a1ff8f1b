"""The work of `bgparse analyze` on one unit: stored matches' turns evaluated by the engine into
`decisions` rows, in a worker process (or this one, or a Dask worker).

A unit holds, per match, what the dataset stored of its turns: each turn's board before it
(its Position ID), dice, resolved play, cube and score. From those alone the worker asks the
engine, in one batch per kind for the whole unit, for every roll's ranked plays and luck and
every cube decision the side on roll could make, and judges each decision as GNU Backgammon
does (`bgparse.analysis.model`). It reads no file and writes nothing: its rows go back to the
client, which commits them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from bgparse.analysis.engine import CheckerEval, CubeEval, CubeInfo, Engine
from bgparse.analysis.model import Decision, cube_decision, take_decision
from bgparse.helpers.errors import BgparseError
from bgparse.pipeline import pool
from bgparse.replay.turns import play_info
from bgparse.rules import Position, PositionError
from bgparse.store.rows import Columns, decision_row

__all__ = ["SOURCE", "MatchTurns", "TurnRow", "UnitAnalysis", "analyse_unit"]

#: The decisions table's source of the engine's rows.
SOURCE = "engine"

_ROLLS = ("play", "dance")
_ANSWERS = ("take", "drop", "beaver", "raccoon")


@dataclass(frozen=True, slots=True)
class TurnRow:
    """The stored columns of one turn that an evaluation needs (`turns`, docs/SCHEMA.md)."""

    game_no: int
    ply: int
    side: int
    kind: str
    position_id: str | None
    match_id: str | None
    dice: tuple[int, int] | None
    steps: tuple[tuple[int, int], ...]
    play: str | None
    cube_value: int
    cube_owner: int
    away: tuple[int, int] | None  # the side's and its opponent's
    crawford: bool
    line: int
    column: int
    legal: bool | None = None  # did the play pass the rules


@dataclass(frozen=True, slots=True)
class MatchTurns:
    """One stored match to analyse: its identity, partition year, money rules and turns."""

    uid: bytes
    year: int | None
    jacoby: bool
    beavers: bool
    turns: tuple[TurnRow, ...]


@dataclass(slots=True)
class UnitAnalysis:
    """A unit's result: its decisions' rows by partition year, and per match (in the unit's
    order) its decisions counted or the reason it could not be analysed."""

    rows: dict[int | None, pa.RecordBatch] = field(default_factory=dict)
    outcomes: list[tuple[bytes, int, str | None]] = field(default_factory=list)


_ENGINES: dict[str, Engine] = {}


def _engine(level: str) -> Engine:
    """The process's engine at `level`: opened once (its networks load once a process)."""
    engine = _ENGINES.get(level)
    if engine is None:
        engine = _ENGINES[level] = Engine.open(level)
    return engine


def _cube(t: TurnRow, jacoby: bool, beavers: bool, side: int) -> CubeInfo:
    """The cube and score from `side`'s view (the side on roll: the roller, or the doubler)."""
    owner = -1 if t.cube_owner not in (0, 1) else (0 if t.cube_owner == side else 1)
    away = t.away if side == t.side else (t.away[1], t.away[0]) if t.away else None
    if away is None:
        return CubeInfo(t.cube_value, owner, None, False, jacoby, beavers)
    return CubeInfo(t.cube_value, owner, away, t.crawford and 1 in away, False, False)


class _Match:
    """One match's requests to the engine, and its decisions once they are answered."""

    def __init__(self, m: MatchTurns) -> None:
        self.m = m
        self.checker: list[tuple[TurnRow, Position, tuple[int, int], CubeInfo]] = []
        self.luck: list[tuple[TurnRow, Position, tuple[int, int], CubeInfo]] = []
        # (the roll's or double's turn, board, cube, the answer's turn for a double)
        self.cube: list[tuple[TurnRow, Position, CubeInfo, TurnRow | None]] = []
        initial = Position.initial()
        turns = m.turns
        for i, t in enumerate(turns):
            if not t.position_id:
                continue
            if t.kind in _ROLLS and t.dice is not None:
                if not all(1 <= d <= 6 for d in t.dice):
                    continue  # impossible dice (a finding of the record): nothing to judge
                pos = Position.from_position_id(t.position_id)
                cube = _cube(t, m.jacoby, m.beavers, t.side)
                # An illegal play is judged by the rules, not ranked by the engine.
                if t.kind == "play" and t.legal is not False:
                    self.checker.append((t, pos, t.dice, cube))
                self.luck.append((t, pos, t.dice, cube))
                # GNU analyses no cube decision before the game's first roll.
                if cube.can_double and pos != initial and pos != initial.swap():
                    self.cube.append((t, pos, cube, None))
            elif t.kind == "double":
                pos = Position.from_position_id(t.position_id)
                cube = _cube(t, m.jacoby, m.beavers, t.side)
                nxt = turns[i + 1] if i + 1 < len(turns) else None
                answer = nxt if nxt is not None and nxt.game_no == t.game_no else None
                if answer is not None and answer.kind not in _ANSWERS:
                    answer = None
                # the answer is judged from the double's evaluation
                self.cube.append((t, pos, cube, answer))

    def decisions(
        self,
        engine: Engine,
        checker: list[CheckerEval],
        luck: list[float],
        cube: list[CubeEval],
    ) -> list[Decision]:
        out: list[Decision] = []
        base = {"source": SOURCE, "engine": engine.name, "level": engine.level}
        # by game and ply: every game numbers its plies from 0
        lucks = {
            (t.game_no, t.ply): (t, value) for (t, *_), value in zip(self.luck, luck, strict=True)
        }
        for (t, pos, _dice, _), ev in zip(self.checker, checker, strict=True):
            after = pos.apply(list(t.steps))
            rank = ev.index_of(after)
            best = ev.best
            made = ev.candidates[rank] if rank is not None else None
            # The candidate is a legal play already: its steps give the canonical notation.
            best_play = play_info(tuple(best.move.steps))[0]
            out.append(
                Decision(
                    game_no=t.game_no,
                    ply=t.ply,
                    side=t.side,
                    kind="checker",
                    counted=ev.n_legal > 1,
                    error=max(0.0, best.equity - made.equity) if made is not None else 0.0,
                    luck=lucks.pop((t.game_no, t.ply))[1],
                    play=t.play,
                    best_play=best_play,
                    played_rank=rank + 1 if rank is not None else None,
                    n_candidates=len(ev.candidates),
                    n_legal=ev.n_legal,
                    equity_best=best.equity,
                    equity_played=made.equity if made is not None else None,
                    position_id=t.position_id,
                    match_id=t.match_id,
                    cube_value=t.cube_value,
                    line=t.line,
                    column=t.column,
                    **base,  # type: ignore[arg-type]
                )
            )
        for t, value in lucks.values():  # rolls with no play: a dance's luck
            out.append(
                Decision(
                    game_no=t.game_no,
                    ply=t.ply,
                    side=t.side,
                    kind="checker",
                    counted=False,
                    error=0.0,
                    luck=value,
                    n_legal=0,
                    position_id=t.position_id,
                    match_id=t.match_id,
                    cube_value=t.cube_value,
                    line=t.line,
                    column=t.column,
                    **base,  # type: ignore[arg-type]
                )
            )
        for (t, _, cinfo, answer), cev in zip(self.cube, cube, strict=True):
            nd, dt, dp = cev.no_double, cev.double_take, cev.double_pass
            shared: dict[str, Any] = {
                "game_no": t.game_no,
                "position_id": t.position_id,
                "match_id": t.match_id,
                "cube_value": t.cube_value,
                **base,
            }
            out.append(
                cube_decision(
                    nd,
                    dt,
                    dp,
                    doubled=t.kind == "double",
                    available=cinfo.can_double,
                    redouble=cinfo.owner == 0,
                    ply=t.ply,
                    side=t.side,
                    line=t.line,
                    column=t.column,
                    **shared,
                )
            )
            if answer is not None:
                out.append(
                    take_decision(
                        nd,
                        dt,
                        dp,
                        answer=answer.kind,
                        offer_ply=t.ply,
                        ply=answer.ply,
                        side=answer.side,
                        line=answer.line,
                        column=answer.column,
                        **shared,
                    )
                )
        out.sort(key=lambda d: (d.game_no, d.ply, d.kind))
        return out


#: What a match's turns or the engine may raise about one match (a stored play that cannot be
#: made again, a position the engine refuses): that match fails, never the run.
_REFUSED = (BgparseError, ValueError)


def analyse_unit(level: str, analysis_id: str, matches: list[MatchTurns]) -> UnitAnalysis:
    """Every decision of `matches` evaluated at `level`: one engine batch per kind for the
    unit; a match the engine or the rules cannot take is reported, the others go on."""
    with pool.unit_garbage():
        return _analyse_unit(level, analysis_id, matches)


def _analyse_unit(level: str, analysis_id: str, matches: list[MatchTurns]) -> UnitAnalysis:
    engine = _engine(level)
    prepared: list[_Match | str] = []
    for m in matches:
        try:
            prepared.append(_Match(m))
        except (PositionError, BgparseError, ValueError) as exc:
            prepared.append(f"its stored turns cannot be replayed: {exc}")
    ok = [p for p in prepared if isinstance(p, _Match)]
    try:
        # A play's roll is ranked from the same answers as its luck (see Engine.checker_and_luck):
        # the plays are the rolls the luck asks about that were played.
        asked = []
        for each in ok:
            played = {id(t) for (t, *_) in each.checker}
            asked += [(p, d, c, id(t) in played) for (t, p, d, c) in each.luck]
        both = engine.checker_and_luck(asked)
        luck = [value for _, value in both]
        checker = [ev for ev, _ in both if ev is not None]
        cube = engine.cube([(p, c) for each in ok for (_, p, c, _) in each.cube])
    except _REFUSED:
        if len(matches) == 1:
            raise
        # One match the engine refuses: each alone, so that it is named and the rest go on.
        whole = UnitAnalysis()
        for m in matches:
            try:
                part = _analyse_unit(level, analysis_id, [m])
            except _REFUSED as exc:
                whole.outcomes.append((m.uid, 0, f"the engine cannot evaluate it: {exc}"))
                continue
            whole.outcomes.extend(part.outcomes)
            for year, batch in part.rows.items():
                have = whole.rows.get(year)
                whole.rows[year] = batch if have is None else pa.concat_batches([have, batch])
        return whole
    result = UnitAnalysis()
    by_year: dict[int | None, Columns] = {}
    ci = li = ki = 0
    for m, p in zip(matches, prepared, strict=True):
        if isinstance(p, str):
            result.outcomes.append((m.uid, 0, p))
            continue
        nc, nl, nk = len(p.checker), len(p.luck), len(p.cube)
        try:
            found = p.decisions(
                engine, checker[ci : ci + nc], luck[li : li + nl], cube[ki : ki + nk]
            )
        except _REFUSED as exc:
            result.outcomes.append((m.uid, 0, f"its stored turns cannot be judged: {exc}"))
            continue
        finally:
            ci, li, ki = ci + nc, li + nl, ki + nk
        cols = by_year.get(m.year)
        if cols is None:
            cols = by_year[m.year] = Columns("decisions")
        for d in found:
            cols.add(decision_row(d, m.uid, analysis_id, None))
        result.outcomes.append((m.uid, len(found), None))
    result.rows = {year: cols.batch() for year, cols in by_year.items()}
    return result
