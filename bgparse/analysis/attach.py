"""Stored analysis meets the verified match: each note a reader took from a record is found at
its verified turn (by the span of the action it annotates), checked against what the replay
made of that action (the analysed play must be the play made), and becomes a `Decision`.

A note that finds no turn, or whose play is not the play made, is a finding, never an error:
the record's moves stand whatever its analysis says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bgparse.analysis.model import (
    CheckerNote,
    CubeNote,
    Decision,
    Note,
    cube_decision,
    take_decision,
)
from bgparse.model.findings import Finding
from bgparse.model.verified import Turn, VerifiedMatch
from bgparse.replay.turns import play_info
from bgparse.rules import LegalPlays, Position, PositionError, legal_plays

__all__ = ["ENGINES", "attach"]

#: The program whose numbers each stored source holds.
ENGINES = {"xg": "xg", "gnubg-sgf": "gnubg", "gnubg-text": "gnubg"}

_ROLLS = ("play", "dance", "hidden")
_ANSWERS = ("take", "drop", "beaver", "raccoon")


def _finding(code: str, message: str, where: Turn | Note, game: int) -> Finding:
    if isinstance(where, Turn):
        return Finding.make(code, message, where.line, where.column, game=game, turn=where.ply)
    return Finding.make(code, message, where.line, where.column, game=game)


def _legal(turn: Turn) -> tuple[Position, LegalPlays] | None:
    """The board before the turn's roll and the roll's legal plays (None where unknown)."""
    if turn.dice is None or not turn.position_id:
        return None
    try:
        before = Position.from_position_id(turn.position_id)
        return before, legal_plays(before, turn.dice)
    except (PositionError, ValueError):
        return None


def _index(before: Position, legal: LegalPlays, play: str | list[tuple[int, int]]) -> int | None:
    """Which legal play `play` (text or steps) is, by the board it leaves."""
    try:
        return legal.index_of(before.apply(play))
    except (PositionError, ValueError):
        return None


class _Attach:
    def __init__(self, vm: VerifiedMatch, source: str) -> None:
        self.vm = vm
        self.source = source
        self.engine = ENGINES.get(source, source)
        self.decisions: list[Decision] = []
        self.findings: list[Finding] = []
        self.done: set[tuple[int, int, str]] = set()
        # (game number, line, column) -> the game's turns there, and each game's turns
        self.at: dict[tuple[int, int, int], list[Turn]] = {}
        self.turns: dict[int, tuple[Turn, ...]] = {}
        for g in vm.games:
            self.turns.setdefault(g.number, g.turns)
            for t in g.turns:
                self.at.setdefault((g.number, t.line, t.column), []).append(t)

    def turn(self, note: Note, kinds: Sequence[str]) -> Turn | None:
        for t in self.at.get((note.game, note.line, note.column), ()):
            if t.kind in kinds:
                return t
        return None

    def add(self, d: Decision) -> None:
        key = (d.game_no, d.ply, d.kind)
        if key not in self.done:
            self.done.add(key)
            self.decisions.append(d)

    def checker(self, note: CheckerNote) -> None:
        turn = self.turn(note, _ROLLS)
        if turn is None:
            self.findings.append(
                _finding(
                    "A001",
                    f"{self.source} analysis of a roll the record has no turn for",
                    note,
                    note.game,
                )
            )
            return
        cands = note.candidates
        rank: int | None = None
        n_legal: int | None = 0 if turn.kind == "dance" else None
        best_play = cands[0].play if cands else None
        known = _legal(turn) if turn.kind == "play" else None
        if known is not None:
            before, legal = known
            n_legal = len(legal)
            made = _index(before, legal, [(s[0], s[1]) for s in turn.steps])
            # The candidate the source marks as played first, then the others in order, each
            # read once (a candidate's text becomes a board: the costly part of reading an
            # analysis of 30 candidates a play).
            where: dict[int, int | None] = {}

            def at(i: int) -> int | None:
                if i not in where:
                    where[i] = _index(before, legal, cands[i].play)
                return where[i]

            if made is not None:
                order = list(range(len(cands)))
                if note.played is not None and 0 <= note.played < len(cands):
                    order = [note.played, *(i for i in order if i != note.played)]
                rank = next((i for i in order if at(i) == made), None)
            first = at(0) if cands else None
            if first is not None:
                best_play = play_info(tuple(legal[first].steps))[0]
            if note.played is not None and note.played != rank and note.played < len(cands):
                ranked = "" if rank is not None else ", which it does not rank"
                self.findings.append(
                    _finding(
                        "A002",
                        f"{self.source} analysis marks {cands[note.played].play!r} as played, "
                        f"the record plays {turn.play!r}{ranked}: the record's play is judged",
                        turn,
                        note.game,
                    )
                )
        best = cands[0] if cands else None
        played = cands[rank] if rank is not None else None
        if note.error is not None:
            error = max(0.0, note.error)
        elif best is not None and played is not None:
            error = max(0.0, best.equity - played.equity)
        else:
            # GNU Backgammon's own rule: a play its list does not hold costs nothing.
            error = 0.0
        self.add(
            Decision(
                game_no=note.game,
                ply=turn.ply,
                side=turn.side,
                kind="checker",
                source=self.source,
                engine=self.engine,
                level=note.level,
                counted=turn.kind == "play" and (n_legal or 0) > 1,
                error=error if turn.kind == "play" else 0.0,
                luck=note.luck,
                error_mwc=note.error_mwc,
                luck_mwc=note.luck_mwc,
                play=turn.play if turn.kind == "play" else None,
                best_play=best_play,
                played_rank=rank + 1 if rank is not None else None,
                n_candidates=len(cands),
                n_legal=n_legal,
                equity_best=best.equity if best is not None else None,
                equity_played=played.equity if played is not None else None,
                position_id=turn.position_id or None,
                match_id=turn.match_id or None,
                cube_value=turn.cube_value,
                line=turn.line,
                column=turn.column,
            )
        )

    def cube(self, note: CubeNote) -> None:
        turn = self.turn(note, ("double", *_ROLLS, *_ANSWERS))
        if turn is None:
            self.findings.append(
                _finding(
                    "A001",
                    f"{self.source} analysis of a cube decision the record has no turn for",
                    note,
                    note.game,
                )
            )
            return
        shared = {
            "game_no": note.game,
            "source": self.source,
            "engine": self.engine,
            "level": note.level,
            "position_id": turn.position_id or None,
            "match_id": turn.match_id or None,
            "cube_value": turn.cube_value,
        }
        if turn.kind in _ANSWERS:
            self.take(note, turn, turn.ply - 1, shared)
            return
        doubled = turn.kind == "double"
        self.add(
            cube_decision(
                note.no_double,
                note.double_take,
                note.double_pass,
                doubled=doubled,
                available=note.available,
                redouble=turn.cube_owner == turn.side,
                stored_error=note.cube_error,
                ply=turn.ply,
                side=turn.side,
                line=turn.line,
                column=turn.column,
                **shared,
            )
        )
        if doubled:
            turns = self.turns.get(note.game, ())
            answer = next(
                (t for t in turns[turn.ply + 1 : turn.ply + 2] if t.kind in _ANSWERS), None
            )
            if answer is not None:
                self.take(note, answer, turn.ply, shared)

    def take(self, note: CubeNote, turn: Turn, offer_ply: int, shared: dict[str, Any]) -> None:
        self.add(
            take_decision(
                note.no_double,
                note.double_take,
                note.double_pass,
                answer=turn.kind,
                stored_error=note.take_error,
                offer_ply=offer_ply,
                ply=turn.ply,
                side=turn.side,
                line=turn.line,
                column=turn.column,
                **shared,
            )
        )


def attach(
    vm: VerifiedMatch, notes: Sequence[Note], source: str
) -> tuple[tuple[Decision, ...], tuple[Finding, ...]]:
    """The decisions `notes` describe in the verified match, and the findings of notes that
    do not fit it. Needs the match's turns (a replay with `keep_turns`)."""
    run = _Attach(vm, source)
    for note in notes:
        if isinstance(note, CheckerNote):
            run.checker(note)
        else:
            run.cube(note)
    run.decisions.sort(key=lambda d: (d.game_no, d.ply, d.kind))
    return tuple(run.decisions), tuple(run.findings)
