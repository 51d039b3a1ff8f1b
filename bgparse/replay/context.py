"""What the judgements of one replay share: the record, its rules and the findings so far.

`match.py`'s `Replay` drives a match through its games and events; the judgements of each kind
of event (`plays`, `cube`, `results`) are handed this context and the game's `GameState`
(`state.py`), and import neither `match.py` nor each other's driver: the replay's modules form
no circle (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from bgparse.model.events import Game as GameRecord
from bgparse.model.events import MatchRecord, Span
from bgparse.model.findings import Finding, Severity
from bgparse.replay.repair import BoardSearch
from bgparse.replay.state import GameState
from bgparse.rules.ruleset import RuleSet

__all__ = ["DETAILS", "ReplayContext"]

#: Illegal plays of one match shown with the board and the legal plays (the rest: message only).
DETAILS = 200


class ReplayContext:
    """The state every judgement of a match's replay reads or adds to: the record and its
    rules, the findings, the evidence gathered for rules a record does not name, and the
    budgets of the work done for findings."""

    def __init__(
        self,
        record: MatchRecord,
        rules: RuleSet,
        keep_turns: bool,
        *,
        crawford_assumed: bool = False,
    ) -> None:
        self.record = record
        self.crawford_assumed = crawford_assumed
        # The search for the board after an illegal play, with the match's budget.
        self.search = BoardSearch(record.hit_marks)
        # Boards and legal plays shown under illegal plays: enough for any reader.
        self.details_left = DETAILS
        self.rules = rules
        self.keep_turns = keep_turns
        self.next_game: GameRecord | None = None  # the game after the one being replayed
        self.length = record.length
        self.findings: list[Finding] = list(record.errors)
        # Evidence for the Jacoby rule in a money session: games whose result scores an
        # unturned-cube gammon as a single (`jacoby_scored` of them by the next score line),
        # and against it: such gammons scored in full by the next score line, or only by
        # their 'Wins' line (`jacoby_against_unconfirmed`, which GNU writes without the rule).
        self.jacoby_support = 0
        self.jacoby_scored = 0
        self.jacoby_against = 0
        self.jacoby_against_unconfirmed = 0
        # Hits written without a star: a slip only where the record marks hits elsewhere.
        self.unstarred: list[Finding] = []
        self.lines: list[str] | None = None
        for note in rules.notes:
            self.findings.append(
                Finding.make(
                    "R010" if "jacoby" in note.code else "S013",
                    f"rule tag: {note.message}",
                    record.span.line,
                    record.span.column,
                    severity=Severity.INFO,
                )
            )

    # --- findings ----------------------------------------------------------------------------

    def add(
        self,
        code: str,
        message: str,
        span: Span | None,
        g: GameState | None,
        *,
        severity: Severity | None = None,
        detail: str | None = None,
        reason: str | None = None,
    ) -> None:
        line, col = (span.line, span.column) if span is not None else (0, 0)
        self.findings.append(
            Finding.make(
                code,
                message,
                line,
                col,
                severity=severity,
                game=g.number if g else None,
                turn=g.rows.n_turns if g else None,
                detail=detail,
                reason=reason,
            )
        )

    def after_over(self, g: GameState, what: str, span: Span) -> bool:
        """Report an action after the game ended (True), which then changes nothing."""
        if g.game.over:
            self.add("P003", f"{what} after the game was over", span, g)
            return True
        return False

    def turn_order(self, g: GameState, side: int, span: Span) -> None:
        for v in g.game.turn_order(side):
            self.add("P006", f"a roll by {v.message}", span, g)
