"""The replay: walks an event record through the rules engine and produces the verified match
with every finding (illegal plays, cube actions the rules forbid, scores that do not add up).

It never stops at the first problem: after an illegal play it reports it and goes on from the
position the record implies, as tournament rules let an illegal play stand (RULES.md §6).
Sides are absolute (0 = left column); the engine's positions are relative to the side on roll.

The judging is the rules' `Game` (bgparse/rules/game.py): each event becomes an operation of it,
each verdict a finding with the event's span. What is left here is reading the record: which
operation an event means, what its findings say, and the evidence a record gives for rules it
does not state (Jacoby in money play, Crawford assumed). The board after an illegal play is
`repair.py`'s search; the rows each game builds are `turns.py`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from bgparse.events import (
    Action,
    Beaver,
    CannotMove,
    Comment,
    Double,
    Drop,
    HiddenPlay,
    IllegalPlay,
    Loss,
    MatchRecord,
    Raccoon,
    Resign,
    Roll,
    SetPosition,
    Span,
    Take,
    Win,
)
from bgparse.events import Game as GameRecord
from bgparse.findings import Finding, Severity
from bgparse.repair import BoardSearch, star_slips, without_placeholders
from bgparse.rules import (
    DiceError,
    PlayError,
    PositionError,
    diagram,
)
from bgparse.rules.game import Game, Verdict
from bgparse.rules.ids import final_match_id
from bgparse.rules.match import MatchState
from bgparse.rules.ruleset import RuleSet
from bgparse.rules.scoring import WinPoints, jacoby_eligible
from bgparse.rules.wording import plural
from bgparse.turns import GameRows, play_info, written_play
from bgparse.verified import VerifiedGame, VerifiedMatch

__all__ = ["replay", "rules_for"]


#: Illegal plays of one match shown with the board and the legal plays (the rest: message only).
_DETAILS = 200
_CUBE_CODES = {
    "crawford-game": "C007",
    "no-pending-double": "C002",
    "wrong-side": "C002",
    "double-pending": "C003",
    "beaver-in-match": "C004",
    "beaver-not-allowed": "C004",
}


def rules_for(record: MatchRecord, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The rule set a record is checked under: its tags (or SGF rule words) where they speak,
    then the caller's overrides (CLI options)."""
    if record.format == "sgf":
        words = record.games[0].rules if record.games else ()
        if not words and record.dialect in ("gnubg-sgf", "bgparse-sgf"):
            # GNU Backgammon (and bgparse, as GNU) writes RU only when some rule applies: none
            # means none (no Crawford). Other producers may leave RU out, and then the
            # defaults stand.
            rules = RuleSet.from_sgf_rules((), record.length)
        else:
            rules = RuleSet.from_sgf_rules(words or None, record.length)
    else:
        rules = RuleSet.from_tags(record.tags, record.length)
    if (
        record.length == 0
        and record.tag("Beaver") is None
        and not (overrides and "beavers" in overrides)
    ):
        # A money session that does not say whether beavers were allowed: allow GNU
        # Backgammon's default of three (GNU writes no tag or SGF rule for it), rather than
        # calling every recorded beaver illegal.
        rules = rules.replace(beavers=3)
    if overrides:
        rules = rules.replace(**dict(overrides))
    return rules.for_length(record.length)


def replay(
    record: MatchRecord,
    overrides: Mapping[str, Any] | None = None,
    *,
    keep_turns: bool = True,
) -> VerifiedMatch:
    """Verify a match record. Never raises for a bad record: every problem is a finding.

    `overrides` are RuleSet fields that win over the file's tags (`jacoby=True`, ...).
    `keep_turns=False` skips building the per-turn rows (positions, IDs) that only the store
    needs, for a faster validation."""
    rules = rules_for(record, overrides)
    assumed = _crawford_assumed(record, overrides)
    run = _Replay(record, rules, keep_turns, crawford_assumed=assumed)
    result = run.run()
    support = run.jacoby_support
    explicit_jacoby = overrides is not None and "jacoby" in overrides
    if (
        record.length == 0
        and not rules.jacoby
        and not explicit_jacoby
        and run.jacoby_support
        and not run.jacoby_against
        and not (run.jacoby_against_unconfirmed and not run.jacoby_scored)
    ):
        # Money sessions rarely say whether the Jacoby rule was on (GNU writes no tag): when
        # the results score unturned-cube gammons as singles and none contradicts it, that is
        # the rule the session was played under (RULES.md §3).
        rules = rules.replace(jacoby=True)
        run = _Replay(record, rules, keep_turns, crawford_assumed=assumed)
        result = run.run()
        note = Finding.make(
            "R010",
            f"the Jacoby rule was in use: {plural(support, 'game')} "
            f"{'scores' if support == 1 else 'score'} a gammon with the cube never turned as a "
            "single game, and none says otherwise",
            record.span.line,
            record.span.column,
        )
        result = _with_findings(result, (note,))
    return result


def _crawford_assumed(record: MatchRecord, overrides: Mapping[str, Any] | None) -> bool:
    """Is the Crawford rule only the default (the record does not say, nor the caller)? A
    `.mat` says so only with a `Crawford` tag, which GNU Backgammon never writes."""
    if record.length <= 1 or (overrides is not None and "crawford" in overrides):
        return False
    if record.format == "sgf":
        return not (record.games and record.games[0].rules)
    return record.tag("Crawford") is None


def _with_findings(m: VerifiedMatch, extra: tuple[Finding, ...]) -> VerifiedMatch:
    return replace(m, findings=tuple(sorted(m.findings + extra, key=_finding_order)))


def _finding_order(f: Finding) -> tuple[int, int]:
    return (f.line, f.column)


@dataclass(slots=True)
class _GameState:
    """What the replay keeps of the game being replayed beside the rules' `Game`: its place in
    the record, what it counts, and the rows it builds."""

    number: int
    line: int
    game: Game
    rows: GameRows
    hidden: bool = False  # a hidden play: the board after it is unknown
    win_seen: bool = False
    plays: int = 0
    dances: int = 0
    doubles: int = 0
    takes: int = 0
    drops: int = 0
    beavers: int = 0


class _Replay:
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
        self.details_left = _DETAILS
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
        g: _GameState | None,
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

    # --- the match ---------------------------------------------------------------------------

    def run(self) -> VerifiedMatch:
        rec = self.record
        games: list[VerifiedGame] = []
        first_score = rec.games[0].score if rec.games else (0, 0)
        if min(first_score) < 0:
            first_score = (max(first_score[0], 0), max(first_score[1], 0))
        match = MatchState.new(self.length, self.rules, first_score)
        if rec.games and first_score != (0, 0):
            g0 = rec.games[0]
            note = ""
            if match.crawford_game:
                # Whether the Crawford game was already played before the record starts
                # cannot be known: take it as played, and do not call a double illegal.
                match = MatchState.new(self.length, self.rules, first_score, crawford_played=True)
                note = "; whether it is the Crawford game is not known, so doubles are allowed"
            self.add(
                "R007",
                f"the first game starts at {first_score[0]}-{first_score[1]}, not 0-0 "
                f"(penalty points or a resumed match){note}",
                g0.span,
                None,
            )
        match_over_reported = False
        for index, game in enumerate(rec.games):
            self.next_game = rec.games[index + 1] if index + 1 < len(rec.games) else None
            if match.is_over:
                if not match_over_reported:
                    self.add(
                        "R003",
                        f"game {game.number} is recorded after the match was won "
                        f"({match.scores[0]}-{match.scores[1]} in a {self.length}-point match)",
                        game.span,
                        None,
                    )
                    match_over_reported = True
                vg = self._game(game, match, counted=False)
                games.append(vg)
                continue
            if game.score != match.scores:
                self.add(
                    "R002",
                    f"game {game.number} starts at {game.score[0]}-{game.score[1]}, but the "
                    f"games before it make {match.scores[0]}-{match.scores[1]}",
                    game.span,
                    None,
                )
                if min(game.score) >= 0:
                    # Go on from the record's own score: its later games follow it.
                    match = MatchState.new(
                        self.length,
                        self.rules,
                        game.score,
                        crawford_played=match.crawford_played or match.crawford_game,
                    )
                    if match.is_over:
                        vg = self._game(game, match, counted=False)
                        games.append(vg)
                        continue
            vg = self._game(game, match, counted=True)
            games.append(vg)
            if vg.winner is not None:
                match = match.finish_game(vg.winner, vg.points)
        if (
            self.record.hit_marks
            and self.unstarred
            and (len(self.unstarred) == 1 or _has_stars(self.record))
        ):
            # A record with stars elsewhere, or a single unmarked hit: a notation slip. Many
            # unmarked hits and no star at all is a producer that does not mark hits.
            self.findings.extend(self.unstarred)
        final = match.scores
        winner = match.winner
        if self.length > 0 and not match.is_over and rec.games:
            last = rec.games[-1]
            self.add(
                "R004",
                f"the record ends at {final[0]}-{final[1]}, short of the {self.length}-point "
                "match (unfinished or cut short)",
                last.span,
                None,
            )
        return VerifiedMatch(
            path=rec.path,
            index=rec.index,
            format=rec.format,
            dialect=rec.dialect,
            players=rec.players,
            length=self.length,
            info=rec.info,
            tags=rec.tags,
            games=tuple(games),
            final_score=final,
            winner=winner,
            findings=tuple(sorted(self.findings, key=_finding_order)),
            rules=self.rules.as_dict(),
        )

    # --- one game ----------------------------------------------------------------------------

    def _game(self, game: GameRecord, match: MatchState, *, counted: bool) -> VerifiedGame:
        rules_game = Game(
            self.rules,
            self.length,
            match.scores,
            crawford=match.crawford_game if counted else False,
            post_crawford=match.post_crawford if counted else False,
        )
        rows = GameRows(game.number, self.rules.jacoby, self.keep_turns)
        g = _GameState(game.number, game.span.line, rules_game, rows)
        actions = game.actions
        for i, action in enumerate(actions):
            self._action(g, action, actions, i)
        self._finish(g, game)
        return self._verified(g, game)

    def _action(self, g: _GameState, a: Action, actions: tuple[Action, ...], i: int) -> None:
        t = type(a)
        if t is Roll or t is CannotMove:
            self._roll(g, a, actions, i)  # type: ignore[arg-type]
        elif t is Double:
            self._double(g, a)  # type: ignore[arg-type]
        elif t is Take:
            self._take(g, a)  # type: ignore[arg-type]
        elif t is Drop:
            self._drop(g, a)  # type: ignore[arg-type]
        elif t is Beaver or t is Raccoon:
            self._beaver(g, a)  # type: ignore[arg-type]
        elif t is Win:
            self._win(g, a)  # type: ignore[arg-type]
        elif t is Loss:
            self._loss(g, a)  # type: ignore[arg-type]
        elif t is HiddenPlay:
            self._hidden(g, a)  # type: ignore[arg-type]
        elif t is Resign:
            assert isinstance(a, Resign)
            g.game.offer_resignation(a.side, a.level)
        elif t is IllegalPlay:
            self._illegal_dump(g, a)  # type: ignore[arg-type]
        elif t is SetPosition:
            self._set_position(g, a, actions, i)  # type: ignore[arg-type]

    def _after_over(self, g: _GameState, what: str, span: Span) -> bool:
        """Report an action after the game ended (True), which then changes nothing."""
        if g.game.over:
            self.add("P003", f"{what} after the game was over", span, g)
            return True
        return False

    # --- checker play ------------------------------------------------------------------------

    def _turn_order(self, g: _GameState, side: int, span: Span) -> None:
        for v in g.game.turn_order(side):
            self.add("P006", f"a roll by {v.message}", span, g)

    def _roll(
        self, g: _GameState, a: Roll | CannotMove, actions: tuple[Action, ...], i: int
    ) -> None:
        game = g.game
        side = a.side
        span = a.span
        if game.over:
            self.add("P003", f"a roll after the game was over ({_fmt_dice(a.dice)})", span, g)
            return
        for v in game.turn_order(side):
            self.add("P006", f"a roll by {v.message}", span, g)
        before = game.cube
        if before.pending is not None:
            for v in game.before_roll():
                self.add("C003", v.message, span, g)
                g.rows.answer("none")
                break
            else:
                # After a beaver or raccoon, Jellyfish records write no 'Takes': the roll is
                # the take (SGF writes it). Recorded as a take, so both read the same.
                g.takes += 1
                answerer = 1 - before.pending.doubler
                g.rows.turn(g.game, answerer, "take", span, None, (), "", None, cube=before)
                g.rows.answer("take")
        dice_ok = True
        for v in game.roll(side, a.dice):
            if v.reason == "dice-invalid":
                dice_ok = False
                self.add("P002", v.message, span, g, reason="dice-invalid")
            else:
                self.add("P008", v.message, span, g)
        moves = a.moves if type(a) is Roll else ()  # type: ignore[union-attr]
        if moves and _has_placeholder(moves):
            moves = without_placeholders(moves)
            self.add("N003", "'0/0' stands for a die that was not played; ignored", span, g)
        g.plays += 1
        if not game.board_known:
            # After a hidden play nothing can be checked; only note the roll.
            g.rows.turn(g.game, side, "play", span, a.dice, (), a, None)
            game.passed(side)
            return
        try:
            res = game.check_play(side, a.dice, moves)
        except (PlayError, DiceError, PositionError) as exc:
            self.add("P001", f"illegal play {_fmt_dice(a.dice)}: {exc}", span, g)
            game.passed(side)
            return
        kind = "play"
        if not moves:
            if res.ok:
                kind = "dance"
                g.dances += 1
            elif _ends_after(actions, i):
                # Dice with no play, then the game ends: rolled, then resigned (GNU's reading).
                self._rolled_then_resigned(g, side, a.dice, span)
                game.passed(side)
                return
        after = res.after
        if not res.ok:
            if dice_ok:  # impossible dice are reported once, as P002
                self._illegal(g, a, res, span)
            after, exhausted = self.search.board_after(res, actions, i, side)
            if exhausted:
                self.add(
                    "N004",
                    "too many illegal plays to look for the board after each: from here on the "
                    "record's own results are taken as they stand",
                    span,
                    g,
                    severity=Severity.INFO,
                )
        elif res.hit_star_mismatch:
            self._stars(g, res, span)
        if res.ambiguous:
            self.add(
                "P005",
                f"{written_play(a)} fits several plays with {_fmt_dice(a.dice)}: read as "
                f"{play_info(res.steps)[0]}",
                span,
                g,
            )
        rows = g.rows
        if rows.keep:
            rows.turn(game, side, kind, span, a.dice, res.steps, a, res.ok, pos=res.position)
        else:
            rows.n_turns += 1  # as `turn` counts it: no row for a plain validation (per roll)
        game.moved(side, after)

    def _rolled_then_resigned(
        self, g: _GameState, side: int, dice: tuple[int, int], span: Span
    ) -> None:
        self.add(
            "P007",
            f"{_fmt_dice(dice)} rolled and no play shown before the game ended "
            "(a resignation after rolling)",
            span,
            g,
        )
        g.rows.turn(g.game, side, "hidden", span, dice, (), "", None)

    def _illegal(self, g: _GameState, a: Roll | CannotMove, res: Any, span: Span) -> None:
        reason = res.reason or "illegal"
        written = written_play(a) or "no play"
        detail = None
        self.details_left -= 1
        try:
            alts = res.alternatives if self.details_left >= 0 else None
            if alts is not None:
                shown = ", ".join(alts[k].notation for k in range(min(len(alts), 8)))
                more = f" (+{len(alts) - 8} more)" if len(alts) > 8 else ""
                detail = diagram(res.position) + (f"\nlegal plays: {shown}{more}" if shown else "")
        except (PositionError, ValueError):
            detail = None
        self.add(
            "P001",
            f"illegal play {_fmt_dice(a.dice)}: {written} [{reason}]: {res.message}",
            span,
            g,
            detail=detail,
            reason=reason,
        )

    def _stars(self, g: _GameState, res: Any, span: Span) -> None:
        for src, dst, what in star_slips(res):
            if what == "star-without-hit":
                self.add(
                    "N001",
                    f"{_pt(src)}/{_pt(dst)}* has a hit star but hits nothing",
                    span,
                    g,
                    reason=what,
                )
            else:
                self.unstarred.append(
                    Finding.make(
                        "N002",
                        f"{_pt(src)}/{_pt(dst)} hits a blot but has no star",
                        span.line,
                        span.column,
                        game=g.number,
                        turn=g.rows.n_turns,
                        reason=what,
                    )
                )

    def _hidden(self, g: _GameState, a: HiddenPlay) -> None:
        if self._after_over(g, "a hidden play", a.span):
            return
        self._turn_order(g, a.side, a.span)
        g.game.last_roller = a.side
        self.add("P007", f"the play of {_fmt_dice(a.dice)} is not shown ({a.text})", a.span, g)
        g.rows.turn(g.game, a.side, "hidden", a.span, a.dice, (), a.text, None)
        g.plays += 1
        g.hidden = True
        # The board after it is not known: later plays of the game cannot be checked.
        g.game.board_known = False

    def _illegal_dump(self, g: _GameState, a: IllegalPlay) -> None:
        self.add(
            "P009",
            f"the producer marks the play of {_fmt_dice(a.dice)} as illegal ('Illegal play' "
            "dump): the moves are not in the record; the board is taken from the dump",
            a.span,
            g,
        )
        game = g.game
        game.last_roller = a.side
        g.plays += 1
        if a.board is None:
            game.board_known = False
            return
        try:
            # The dump shows the board with the other side to play next.
            game.set_board(a.board[0], a.board[1], 1 - a.side)
        except PositionError:
            game.board_known = False

    def _set_position(
        self, g: _GameState, a: SetPosition, actions: tuple[Action, ...], i: int
    ) -> None:
        """A set-up inside a game: a board (XG `; Set Pos=`, SGF AE/AB/AW), the cube, the side
        on roll or dice (SGF PL/DI, CV, CP), in any combination."""
        game = g.game
        game.set_cube(a.cube_value, a.cube_owner)
        boards = a.boards
        if boards is None and a.text.lstrip(";# ").lower().startswith("set"):
            # The reader could not read the board of its `Set Pos` line.
            self.add(
                "S006",
                "cannot read the set-up position; the moves after it are not checked",
                a.span,
                g,
                severity=Severity.WARNING,
            )
            game.board_known = False
            return
        side = a.side_on_roll if a.side_on_roll is not None else game.side
        if boards is not None:
            try:
                game.set_board(boards[side], boards[1 - side], side)
            except PositionError as exc:
                self.add("S006", f"set-up position is not valid: {exc}", a.span, g)
                game.board_known = False
                return
        elif a.side_on_roll is not None:
            game.board(side)
        if a.dice is not None and a.side_on_roll is not None and _ends_after(actions, i):
            # Dice set and nothing played before the game ends: rolled, then resigned.
            self._rolled_then_resigned(g, side, a.dice, a.span)
            game.last_roller = side

    # --- cube --------------------------------------------------------------------------------

    def _cube_error(self, g: _GameState, v: Verdict, span: Span) -> None:
        code = _CUBE_CODES.get(v.reason, "C001")
        if v.reason == "crawford-game" and self.crawford_assumed:
            # Match play uses the Crawford rule unless the record or the user says otherwise
            # (every seed rule sheet; GNU Backgammon and eXtreme Gammon default to it), so this
            # is an error under the default rules. The record does not name the rule (GNU's
            # .mat export cannot): the message says it was assumed and how to turn it off.
            message = (
                f"{v.message} (the Crawford rule is assumed: the record does not say; "
                f"validate with --no-crawford if the match was played without it) [{v.reason}]"
            )
            self.add(code, message, span, g, reason=v.reason)
            return
        self.add(code, f"{v.message} [{v.reason}]", span, g, reason=v.reason)

    def _double(self, g: _GameState, a: Double) -> None:
        game = g.game
        side = a.side
        if game.over:
            self.add("P003", f"a double after the game was over (to {a.value})", a.span, g)
            return
        if game.answering(side):
            # A double by the doubled side is a beaver (SGF writes it so).
            self._beaver(g, Beaver(side, a.value, a.span))
            return
        before = game.cube
        for v in game.double(side, a.value):
            if v.reason == "wrong-value":
                self.add(
                    "C005",
                    f"'Doubles => {a.value}', but the cube is at {before.value}: {v.message}",
                    a.span,
                    g,
                )
            elif v.reason == "dead-cube-offered":
                self.add("C006", v.message, a.span, g)
            else:
                self._cube_error(g, v, a.span)
        g.doubles += 1
        g.rows.turn(g.game, side, "double", a.span, None, (), "", None, cube=before)
        g.rows.offer(side, before.value, 2 * before.value, a.span, "double")

    def _take(self, g: _GameState, a: Take) -> None:
        if self._after_over(g, "a take", a.span):
            return
        before = g.game.cube
        for v in g.game.take(a.side):
            self._cube_error(g, v, a.span)
            return
        g.takes += 1
        g.rows.turn(g.game, a.side, "take", a.span, None, (), "", None, cube=before)
        g.rows.answer("take")

    def _drop(self, g: _GameState, a: Drop) -> None:
        if self._after_over(g, "a drop", a.span):
            return
        before = g.game.cube
        for v in g.game.drop(a.side):
            self._cube_error(g, v, a.span)
            return
        g.drops += 1
        g.rows.turn(g.game, a.side, "drop", a.span, None, (), "", None, cube=before)
        g.rows.answer("drop")

    def _beaver(self, g: _GameState, a: Beaver | Raccoon) -> None:
        if self._after_over(g, "a beaver", a.span):
            return
        game = g.game
        before = game.cube
        for v in game.beaver(a.side, a.value):
            if v.reason == "wrong-value":
                self.add("C005", f"'Beavers => {a.value}', but {v.message}", a.span, g)
                continue
            self._cube_error(g, v, a.span)
            if not v.stands:
                return
        # A beaver is not a double (counted apart), though it makes an offer like one.
        g.beavers += 1
        pending = before.pending
        taken = pending.value if pending else before.value
        kind = "raccoon" if isinstance(a, Raccoon) or before.beavers else "beaver"
        g.rows.answer(kind)
        g.rows.turn(g.game, a.side, kind, a.span, None, (), "", None, cube=before)
        # The beaverer's offer starts from the cube it has just taken (a beaver to 4 offers 4
        # on a cube of 2), so each `Beavers => N` is filed at its own level.
        offered = game.cube.pending.value if game.cube.pending else 0
        g.rows.offer(a.side, taken, offered, a.span, kind)

    # --- results -----------------------------------------------------------------------------

    def _win(self, g: _GameState, a: Win) -> None:
        if g.win_seen:
            self.add("R005", "a second result line for the same game", a.span, g)
            return
        g.win_seen = True
        if a.points <= 0:
            # No game is won for nothing or less (a minus sign, or a number too large read as
            # its negative bound): a game that ended keeps the points its end gave; one that
            # had not is left without a result.
            self.add(
                "R001",
                f"'Wins {a.points}': a game is won for at least one point",
                a.span,
                g,
            )
            return
        side = a.side
        game = g.game
        if game.over:
            winner = game.winner
            assert winner is not None
            if side != winner:
                self.add(
                    "R005",
                    f"'Wins {a.points}' stands in side {side}'s column, but side {winner} won "
                    f"the game ({game.end})",
                    a.span,
                    g,
                    severity=Severity.WARNING,
                )
            points = a.points
            confirmed = True  # by the next score line, where it bears on the Jacoby rule
            if game.end == "normal" and jacoby_eligible(
                game.result, cube_used=game.cube.used, length=self.length
            ):
                # A money gammon with the cube never turned is worth what the Jacoby rule says,
                # and GNU writes its 'Wins' line without the rule while its running score keeps
                # it: where the next score line counts the game as a single, that is the value.
                scored = self._scored_points(g, winner)
                confirmed = scored is not None
                if scored is not None and scored != points and scored == game.scoring_value():
                    self.jacoby_scored += 1
                    self.add(
                        "R010",
                        f"'Wins {plural(points, 'point')}' but the next game's score counts "
                        f"{scored}: "
                        "the gammon was scored as a single game (the Jacoby rule)",
                        a.span,
                        g,
                        severity=Severity.INFO,
                    )
                    points = scored
            self._judge(g, a, game.judge_points(points, winner), winner, points, confirmed)
            return
        # The game had not ended: the other side resigned (or the game was forfeited).
        pending = game.cube.pending
        if pending is not None and side == pending.doubler:
            # A double left open and then 'Wins': the doubled side gave up (a drop unwritten).
            game.dropped_unwritten(side)
            g.rows.answer("drop")
            g.drops += 1
            self._judge(g, a, game.judge_points(a.points, side), side)
            return
        level = game.level_offered_to(side)
        verdict = game.judge_points(a.points, side)
        game.resigned(side, verdict.level or level, 0)
        self._judge(g, a, verdict, side)

    def _scored_points(self, g: _GameState, winner: int) -> int | None:
        """The points the next game's score line gives this game's winner (the loser's score
        unchanged), or None where it says nothing clear."""
        nxt = self.next_game
        score = g.game.score
        if nxt is None or min(nxt.score) < 0:
            return None
        gained = nxt.score[winner] - score[winner]
        if nxt.score[1 - winner] != score[1 - winner] or gained <= 0:
            return None
        return gained

    def _judge(
        self,
        g: _GameState,
        a: Win,
        verdict: WinPoints,
        winner: int,
        points: int | None = None,
        confirmed: bool = True,
    ) -> None:
        """Score the game by the verdict on its 'Wins' line (`points` where the next score line
        corrected it; `confirmed`: a score line follows to bear the value out)."""
        game = g.game
        written = a.points if points is None else points
        code = verdict.code
        if code in ("consistent", "resignation"):
            if game.end == "resign":
                game.points = written
            if (
                code == "consistent"
                and game.end == "normal"
                and jacoby_eligible(game.result, cube_used=game.cube.used, length=self.length)
            ):
                if confirmed:
                    self.jacoby_against += 1
                else:
                    self.jacoby_against_unconfirmed += 1
            return
        if code == "jacoby-inferred":
            self.jacoby_support += 1
            game.points = written
            self.add("R010", verdict.message, a.span, g, severity=Severity.INFO)
            return
        if code == "jacoby-not-applied":
            # GNU scores resignations without the Jacoby rule: score as written. A game
            # played out is scored by the rule (GNU writes its 'Wins' line without it).
            if game.end != "normal":
                game.points = written
            self.add("R001", verdict.message, a.span, g, severity=Severity.INFO)
            return
        if code == "capped":
            game.points = a.points
            self.add("R008", verdict.message, a.span, g)
            return
        if code == "studio-1004":
            game.points = verdict.expected if verdict.expected is not None else game.cube.value
            self.add("R009", verdict.message, a.span, g)
            return
        needed = game.needed(winner)
        if game.end == "resign" and needed is not None and a.points >= needed > 0:
            # More than any resignation is worth, exactly what ends the match: a forfeit.
            game.points = a.points
            self.add(
                "R011",
                f"'Wins {a.points}' with the game unfinished gives side {winner} the match: "
                "a forfeit (time or abandonment)",
                a.span,
                g,
            )
            return
        self.add("R001", verdict.message, a.span, g)
        if game.end == "resign":
            # Score what the record says: the replay follows the record.
            game.points = a.points

    def _loss(self, g: _GameState, a: Loss) -> None:
        # Backgammon Galaxy mirrors the result in the loser's column; check it agrees.
        if g.game.over and a.side == g.game.winner:
            self.add(
                "R012",
                f"'Losses {a.points}' stands in the winner's column",
                a.span,
                g,
                severity=Severity.WARNING,
            )

    # --- end of game -------------------------------------------------------------------------

    def _finish(self, g: _GameState, record: GameRecord) -> None:
        game = g.game
        if game.over:
            return
        if game.cube.pending is not None:
            self.add(
                "C003",
                f"the double to {game.cube.pending.value} is never answered",
                record.span,
                g,
            )
        if not g.hidden and record.actions:
            self.add(
                "R006",
                f"game {record.number} ends without a result (unfinished or cut short)",
                record.span,
                g,
            )

    def _verified(self, g: _GameState, record: GameRecord) -> VerifiedGame:
        game = g.game
        try:
            final_pid = game.position.position_id()
        except PositionError:
            final_pid = ""
        cube = game.cube
        owner = cube.owner if cube.owner in (0, 1) else -1
        won = game.winner is not None
        cube_actions = g.rows.cube_actions(game)
        match_id = final_match_id(
            length=self.length,
            score=game.score_after(),
            cube=cube.value,
            cube_owner=owner,
            on_roll=game.side,
            winner=game.winner,
            end=game.end,
            crawford=game.crawford,
            resign_level=game.resign_level,
            jacoby=self.rules.jacoby,
        )
        return VerifiedGame(
            number=record.number,
            score_before=game.score,
            score_written=record.score,
            winner=game.winner,
            points=game.points if won else 0,
            end=game.end,
            # As scored (as GNU reports it): a gammon the Jacoby rule made a single is a single;
            # `jacoby_applied` keeps what the board showed.
            result_type=(("single" if game.jacoby_applied else game.result) if won else None),
            cube=cube.value,
            cube_owner=owner,
            crawford=game.crawford,
            plays=g.plays,
            doubles=g.doubles,
            takes=g.takes,
            drops=g.drops,
            beavers=g.beavers,
            dances=g.dances,
            final_position_id=final_pid,
            final_match_id=match_id,
            line=g.line,
            turns=tuple(g.rows.turns),
            cube_actions=cube_actions,
            resign_level=game.resign_level if game.end == "resign" else None,
            jacoby_applied=game.jacoby_applied,
            post_crawford=game.post_crawford,
            n_turns=g.rows.n_turns,
        )


def _has_stars(record: MatchRecord) -> bool:
    return any(True in m.hits for _, a in record.iter_actions() if type(a) is Roll for m in a.moves)


def _has_placeholder(moves: tuple[Any, ...]) -> bool:
    """Whether a play writes `0/0` for a die not played (a loop, not a generator: per roll)."""
    for m in moves:
        points = m.points
        if points[0] == 0 and points == (0, 0):  # an int test first: a tuple compare is dearer
            return True
    return False


def _fmt_dice(dice: tuple[int, int]) -> str:
    return f"{dice[0]}{dice[1]}"


def _pt(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def _ends_after(actions: tuple[Action, ...], i: int) -> bool:
    """Whether the game ends after action i with no other play: a result, a resignation, or
    the end of the record."""
    for k in range(i + 1, len(actions)):
        t = type(actions[k])
        if t is Win or t is Loss or t is Resign:
            return True
        if t is Comment:
            continue
        return False
    return True  # the record stops here: nothing follows the roll
