"""The replay: walks an event record through the rules engine and produces the verified match
with every finding (illegal plays, cube actions the rules forbid, scores that do not add up).

It never stops at the first problem: after an illegal play it reports it and goes on from the
position the record implies, as tournament rules let an illegal play stand (RULES.md §6).
Sides are absolute (0 = left column); the engine's positions are relative to the side on roll.
"""

from __future__ import annotations

from base64 import b64decode
from binascii import b2a_base64
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal

from bgparse.events import (
    Action,
    Beaver,
    CannotMove,
    Comment,
    Double,
    Drop,
    Game,
    HiddenPlay,
    IllegalPlay,
    Loss,
    MatchRecord,
    Move,
    Raccoon,
    Resign,
    Roll,
    SetPosition,
    Span,
    Take,
    Win,
)
from bgparse.findings import Finding, Severity
from bgparse.rules import (
    DiceError,
    PlayCheck,
    PlayError,
    Position,
    PositionError,
    diagram,
    format_play,
    legal_plays,
    verify_play,
)
from bgparse.rules.cube import CubeError, CubeState, is_dead_cube
from bgparse.rules.ids import IdError, decode_xgid_board, encode_match_id, final_match_id
from bgparse.rules.ids import MatchIdState as IdState
from bgparse.rules.match import MatchState
from bgparse.rules.ruleset import RuleSet
from bgparse.rules.scoring import (
    explain_win_points,
    game_points,
    jacoby_reduces,
    result_type,
)
from bgparse.rules.wording import plural
from bgparse.verified import CubeAction, Turn, VerifiedGame, VerifiedMatch

__all__ = ["replay", "rules_for"]

#: Builds a named tuple from a tuple of its fields (see `_record_turn`).
_tuple_new = tuple.__new__

#: Agreement that ends the search for the board after an illegal play at once (the rest of
#: the game agrees, or this many plays do: more than any game has).
_LOOKAHEAD = 1000
#: Plays one match may check while looking for the board after its illegal plays. Real
#: records use a few hundred; a file of nothing but illegal plays would otherwise cost time
#: in proportion to its plays times their alternatives.
_SEARCH_BUDGET = 20_000
#: Illegal plays of one match shown with the board and the legal plays (the rest: message only).
_DETAILS = 200
_LEVEL_RESULT = {1: "single", 2: "gammon", 3: "backgammon"}
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
    """Mutable state of the game being replayed."""

    number: int
    line: int
    score: tuple[int, int]
    crawford: bool
    post_crawford: bool
    pos: Position  # relative to `pos_side`
    pos_side: int
    cube: CubeState
    last_roller: int | None = None
    rolls: list[int] = field(default_factory=lambda: [0, 0])
    over: bool = False
    winner: int | None = None
    end: str = "unfinished"
    result: str | None = None  # result type of a bear-off or a resignation
    points: int = 0
    resign_level: int | None = None
    resign_side: int | None = None  # who offered a resignation (explicit marker)
    hidden: bool = False  # a hidden play: the board after it is unknown
    board_unknown: bool = False
    win_seen: bool = False
    plays: int = 0
    dances: int = 0
    doubles: int = 0
    takes: int = 0
    drops: int = 0
    beavers: int = 0
    turns: list[Turn] = field(default_factory=list)
    match_keys: dict[tuple[int, int, int, int, bool], int] = field(default_factory=dict)
    n_turns: int = 0  # actions counted, also where the Turn rows are not kept
    cube_actions: list[list[Any]] = field(default_factory=list)
    drop_value: int = 0
    jacoby_applied: bool = False


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
        self.search_budget = _SEARCH_BUDGET
        # Boards and legal plays shown under illegal plays: enough for any reader.
        self.details_left = _DETAILS
        self.rules = rules
        self.keep_turns = keep_turns
        self.next_game: Game | None = None  # the game after the one being replayed
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
                turn=g.n_turns if g else None,
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

    def _game(self, game: Game, match: MatchState, *, counted: bool) -> VerifiedGame:
        flags_crawford = match.crawford_game if counted else False
        post = match.post_crawford if counted else False
        g = _GameState(
            number=game.number,
            line=game.span.line,
            score=match.scores,
            crawford=flags_crawford,
            post_crawford=post,
            pos=Position.initial(self.rules.variant),
            pos_side=0,
            cube=CubeState.new_game(self.rules),
        )
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
            g.resign_level = a.level
            g.resign_side = a.side
        elif t is IllegalPlay:
            self._illegal_dump(g, a)  # type: ignore[arg-type]
        elif t is SetPosition:
            self._set_position(g, a, actions, i)  # type: ignore[arg-type]
        elif t is Comment:
            pass

    # --- checker play ------------------------------------------------------------------------

    def _turn_order(self, g: _GameState, side: int, span: Span, what: str) -> None:
        if g.last_roller is not None and side == g.last_roller:
            self.add(
                "P006",
                f"{what} by side {side} twice in a row: the other side's turn is missing",
                span,
                g,
            )

    def _to_side(self, g: _GameState, side: int) -> Position:
        if g.pos_side != side:
            g.pos = g.pos.swap()
            g.pos_side = side
        return g.pos

    def _roll(
        self, g: _GameState, a: Roll | CannotMove, actions: tuple[Action, ...], i: int
    ) -> None:
        side = a.side
        span = a.span
        if g.over:
            self.add("P003", f"a roll after the game was over ({_fmt_dice(a.dice)})", span, g)
            return
        self._turn_order(g, side, span, "a roll")
        if g.cube.pending is not None:
            before = g.cube
            pending = g.cube.pending
            try:
                g.cube = g.cube.before_roll()
                # After a beaver or raccoon, Jellyfish records write no 'Takes': the roll is
                # the take (SGF writes it). Recorded as a take, so both read the same.
                g.takes += 1
                self._record_turn(
                    g, 1 - pending.doubler, "take", span, None, (), "", None, cube=before
                )
                self._answer(g, "take")
            except CubeError as exc:
                self.add("C003", exc.message, span, g)
                g.cube = exc.recorded or g.cube
                self._answer(g, "none")
        d1, d2 = a.dice
        first_roll = g.last_roller is None
        g.last_roller = side
        g.rolls[side] += 1
        dice_ok = 1 <= d1 <= 6 and 1 <= d2 <= 6
        if not dice_ok:
            self.add(
                "P002",
                f"impossible dice {d1}-{d2}: a die shows 1 to 6",
                span,
                g,
                reason="dice-invalid",
            )
        if dice_ok and first_roll and d1 == d2 and self.rules.variant == "standard":
            self.add(
                "P008",
                f"the opening roll {d1}-{d2} is a double: the first player plays the two "
                "different opening dice",
                span,
                g,
            )
        pos = self._to_side(g, side)
        moves = a.moves if type(a) is Roll else ()  # type: ignore[union-attr]
        if moves and any(m.points == (0, 0) for m in moves):
            moves = _without_placeholders(moves)
            self.add("N003", "'0/0' stands for a die that was not played; ignored", span, g)
        g.plays += 1
        if g.board_unknown:
            # After a hidden play nothing can be checked; only note the roll.
            self._record_turn(g, side, "play", span, a.dice, (), a, None)
            g.pos = pos.swap()
            g.pos_side = 1 - side
            return
        try:
            res = verify_play(pos, (d1, d2), moves)
        except (PlayError, DiceError, PositionError) as exc:
            self.add("P001", f"illegal play {_fmt_dice(a.dice)}: {exc}", span, g)
            g.pos = pos.swap()
            g.pos_side = 1 - side
            return
        kind = "play"
        if not moves:
            if res.ok:
                kind = "dance"
                g.dances += 1
            elif self._ends_after(actions, i):
                # Dice with no play, then the game ends: rolled, then resigned (GNU's reading).
                kind = "hidden"
                self.add(
                    "P007",
                    f"{_fmt_dice(a.dice)} rolled and no play shown before the game ended "
                    "(a resignation after rolling)",
                    span,
                    g,
                )
                self._record_turn(g, side, kind, span, a.dice, (), "", None)
                g.pos = pos.swap()
                g.pos_side = 1 - side
                return
        after = res.after
        if not res.ok:
            if dice_ok:  # impossible dice are reported once, as P002
                self._illegal(g, a, res, span)
            after = self._continuation(g, res, actions, i, side)
        elif res.hit_star_mismatch:
            self._stars(g, res, span)
        if res.ambiguous:
            self.add(
                "P005",
                f"{_written(a)} fits several plays with {_fmt_dice(a.dice)}: read as "
                f"{_play_info(res.steps)[0]}",
                span,
                g,
            )
        self._record_turn(g, side, kind, span, a.dice, res.steps, a, res.ok, pos=pos)
        g.pos = after
        g.pos_side = 1 - side
        # The mover is now `after.opponent`: all borne off ends the game at once.
        if sum(after.opponent) == 0:
            self._bear_off_win(g, side, after)

    def _continuation(
        self, g: _GameState, res: Any, actions: tuple[Action, ...], i: int, side: int
    ) -> Position:
        """The board to go on from after an illegal play.

        The record's own result (its steps applied as far as they physically go) stands, as
        an illegal play stands at the table, unless the plays that follow show that the board
        was really otherwise: then the legal play of the roll (or of a one-die correction of
        impossible dice) that the next plays agree with is taken. So one slip in a record is
        reported once, not again at every later play it would otherwise throw off."""
        best: Position = res.after
        if self.search_budget <= 0:
            return best
        best_score = self._agreement(best, actions, i, 1 - side)
        if best_score >= _LOOKAHEAD:
            return best
        for cand in self._candidates(res):
            if self.search_budget <= 0:
                self.add(
                    "N004",
                    "too many illegal plays to look for the board after each: from here on the "
                    "record's own results are taken as they stand",
                    actions[i].span,
                    g,
                    severity=Severity.INFO,
                )
                break
            score = self._agreement(cand, actions, i, 1 - side)
            if score > best_score:
                best, best_score = cand, score
                if score >= _LOOKAHEAD:
                    break
        return best

    def _candidates(self, res: PlayCheck) -> list[Position]:
        d1, d2 = res.dice
        rolls: list[tuple[int, int]] = []
        if 1 <= d1 <= 6 and 1 <= d2 <= 6:
            rolls.append((d1, d2))
        else:
            # Impossible dice: one die was miswritten; try every correction of it.
            good = [d for d in (d1, d2) if 1 <= d <= 6]
            if len(good) == 1:
                rolls.extend((good[0], d) for d in range(1, 7))
        out: list[Position] = []
        seen: set[Position] = {res.after}
        for roll in rolls:
            for play in legal_plays(res.position, roll):
                if play.after not in seen:
                    seen.add(play.after)
                    out.append(play.after)
        return out

    def _agreement(self, pos: Position, actions: tuple[Action, ...], i: int, on_roll: int) -> int:
        """How many of the plays after action i read as legal (with their hit stars right,
        where the record marks hits) when the board after it is `pos`, `on_roll` to play."""
        count = 0
        side = on_roll
        marks = self.record.hit_marks
        for k in range(i + 1, len(actions)):
            b = actions[k]
            t = type(b)
            if t is Roll or t is CannotMove:
                assert isinstance(b, Roll | CannotMove)
                if b.side != side:
                    pos, side = pos.swap(), b.side
                moves = _without_placeholders(b.moves) if isinstance(b, Roll) else ()
                d1, d2 = b.dice
                if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                    return count
                self.search_budget -= 1
                try:
                    res = verify_play(pos, (d1, d2), moves)
                except (PlayError, DiceError, PositionError):
                    return count
                if not res.ok or (marks and res.hit_star_mismatch and _star_slips(res)):
                    return count
                count += 1
                pos, side = res.after, 1 - side
                if count >= _LOOKAHEAD or sum(pos.opponent) == 0:
                    return _LOOKAHEAD
            elif t in (HiddenPlay, IllegalPlay, SetPosition):
                return count
        return _LOOKAHEAD  # agrees with everything to the end of the game

    def _ends_after(self, actions: tuple[Action, ...], i: int) -> bool:
        for k in range(i + 1, len(actions)):
            b = actions[k]
            t = type(b)
            if t is Win or t is Loss or t is Resign:
                return True
            if t is Comment:
                continue
            return False
        return True  # the record stops here: nothing follows the roll

    def _illegal(self, g: _GameState, a: Roll | CannotMove, res: Any, span: Span) -> None:
        reason = res.reason or "illegal"
        written = _written(a) or "no play"
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
        for src, dst, what in _star_slips(res):
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
                        turn=g.n_turns,
                        reason=what,
                    )
                )

    def _bear_off_win(self, g: _GameState, side: int, after: Position) -> None:
        loser = after.mover  # the loser's board in its own numbering
        loser_off = after.checkers - sum(loser)
        back = any(loser[p] for p in range(19, 26))
        rt = result_type(loser_off, back)
        g.over = True
        g.winner = side
        g.end = "normal"
        g.result = rt
        value = g.cube.scoring_value(crawford_game=g.crawford, rules=self.rules)
        g.points = game_points(
            rt, value, rules=self.rules, cube_used=g.cube.used, length=self.length
        )
        g.jacoby_applied = jacoby_reduces(
            rt, rules=self.rules, cube_used=g.cube.used, length=self.length
        )

    def _hidden(self, g: _GameState, a: HiddenPlay) -> None:
        if g.over:
            self.add("P003", "a hidden play after the game was over", a.span, g)
            return
        self._turn_order(g, a.side, a.span, "a roll")
        g.last_roller = a.side
        self.add("P007", f"the play of {_fmt_dice(a.dice)} is not shown ({a.text})", a.span, g)
        self._record_turn(g, a.side, "hidden", a.span, a.dice, (), a.text, None)
        g.plays += 1
        g.hidden = True
        # The board after it is not known: later plays of the game cannot be checked.
        g.board_unknown = True

    def _illegal_dump(self, g: _GameState, a: IllegalPlay) -> None:
        self.add(
            "P009",
            f"the producer marks the play of {_fmt_dice(a.dice)} as illegal ('Illegal play' "
            "dump): the moves are not in the record; the board is taken from the dump",
            a.span,
            g,
        )
        board = _snowie_board(a.fields)
        g.last_roller = a.side
        g.plays += 1
        if board is None:
            g.board_unknown = True
            return
        on_roll, mover, opponent = board
        try:
            pos = Position(mover, opponent, self.rules.checkers).ensure_valid()
        except PositionError:
            g.board_unknown = True
            return
        # The dump shows the board with `on_roll` to play next.
        side_next = 1 - a.side if on_roll is None else on_roll
        g.pos, g.pos_side, g.board_unknown = pos, side_next, False

    def _set_position(
        self, g: _GameState, a: SetPosition, actions: tuple[Action, ...], i: int
    ) -> None:
        """A set-up inside a game: a board (XG `; Set Pos=`, SGF AE/AB/AW), the cube, the side
        on roll or dice (SGF PL/DI, CV, CP), in any combination."""
        if a.cube_value is not None:
            g.cube = CubeState(
                value=a.cube_value,
                owner=a.cube_owner if a.cube_owner is not None else g.cube.owner,
                used=g.cube.used or a.cube_value > 1,
                enabled=g.cube.enabled,
            )
        elif a.cube_owner is not None:
            g.cube = CubeState(
                value=g.cube.value, owner=a.cube_owner, used=g.cube.used, enabled=g.cube.enabled
            )
        boards = a.boards
        if boards is None and a.text.lstrip(";# ").lower().startswith("set"):
            boards = _xg_set_pos(a.text)
            if boards is None:
                self.add(
                    "S006",
                    "cannot read the set-up position; the moves after it are not checked",
                    a.span,
                    g,
                    severity=Severity.WARNING,
                )
                g.board_unknown = True
                return
        side = a.side_on_roll if a.side_on_roll is not None else g.pos_side
        if boards is not None:
            try:
                pos = Position(boards[side], boards[1 - side], self.rules.checkers).ensure_valid()
            except PositionError as exc:
                self.add("S006", f"set-up position is not valid: {exc}", a.span, g)
                g.board_unknown = True
                return
            g.pos, g.pos_side, g.board_unknown = pos, side, False
        elif a.side_on_roll is not None:
            self._to_side(g, side)
        if a.dice is not None and a.side_on_roll is not None and self._ends_after(actions, i):
            # Dice set and nothing played before the game ends: rolled, then resigned.
            self.add(
                "P007",
                f"{_fmt_dice(a.dice)} rolled and no play shown before the game ended "
                "(a resignation after rolling)",
                a.span,
                g,
            )
            self._record_turn(g, side, "hidden", a.span, a.dice, (), "", None)
            g.last_roller = side

    # --- cube --------------------------------------------------------------------------------

    def _cube_error(self, g: _GameState, exc: CubeError, span: Span) -> None:
        code = _CUBE_CODES.get(exc.code, "C001")
        if exc.code == "crawford-game" and self.crawford_assumed:
            # Match play uses the Crawford rule unless the record or the user says otherwise
            # (every seed rule sheet; GNU Backgammon and eXtreme Gammon default to it), so this
            # is an error under the default rules. The record does not name the rule (GNU's
            # .mat export cannot): the message says it was assumed and how to turn it off.
            message = (
                f"{exc.message} (the Crawford rule is assumed: the record does not say; "
                f"validate with --no-crawford if the match was played without it) [{exc.code}]"
            )
            self.add(code, message, span, g, reason=exc.code)
            return
        self.add(code, f"{exc.message} [{exc.code}]", span, g, reason=exc.code)

    def _double(self, g: _GameState, a: Double) -> None:
        side = a.side
        if g.over:
            self.add("P003", f"a double after the game was over (to {a.value})", a.span, g)
            return
        before = g.cube
        on_roll = g.last_roller is None or g.last_roller != side
        scores = g.score
        if g.cube.pending is not None and g.cube.pending.doubler != side:
            # A double by the doubled side is a beaver (SGF writes it so).
            self._beaver(g, Beaver(side, a.value, a.span))
            return
        try:
            g.cube = g.cube.offer(
                side,
                rules=self.rules,
                length=self.length,
                scores=scores,
                on_roll=on_roll,
                crawford_game=g.crawford,
                post_crawford=g.post_crawford,
                rolls=(g.rolls[0], g.rolls[1]),
            )
        except CubeError as exc:
            self._cube_error(g, exc, a.span)
            if exc.recorded is not None:
                g.cube = exc.recorded
        g.doubles += 1
        expected = 2 * before.value
        if a.value and a.value != expected:
            self.add(
                "C005",
                f"'Doubles => {a.value}', but the cube is at {before.value}: a double is to "
                f"{expected}",
                a.span,
                g,
            )
        if self.length > 0 and is_dead_cube(expected, scores, self.length):
            self.add("C006", f"a cube of {expected} is dead at this score", a.span, g)
        self._record_turn(g, side, "double", a.span, None, (), "", None, cube=before)
        g.cube_actions.append(self._cube_row(g, side, before.value, expected, a.span, "double"))

    def _cube_row(
        self, g: _GameState, side: int, before: int, after_value: int, span: Span, offer: str
    ) -> list[Any]:
        # [turn index, doubler, cube before, cube after, position_id, response, match_id, pips,
        #  span, race, offer]; finished into a CubeAction when the game ends.
        turn = g.n_turns - 1
        t = g.turns[-1] if g.turns and self.keep_turns else None
        return [
            turn,
            side,
            before,
            after_value,
            t.position_id if t else "",
            "none",
            t.match_id if t else "",
            t.pips if t else (0, 0),
            span,
            t.race if t else None,
            offer,
        ]

    def _answer(self, g: _GameState, response: str) -> None:
        if g.cube_actions and g.cube_actions[-1][5] == "none":
            g.cube_actions[-1][5] = response

    def _take(self, g: _GameState, a: Take) -> None:
        if g.over:
            self.add("P003", "a take after the game was over", a.span, g)
            return
        before = g.cube
        try:
            g.cube = g.cube.take(a.side)
        except CubeError as exc:
            self._cube_error(g, exc, a.span)
            if exc.recorded is not None:
                g.cube = exc.recorded
            return
        g.takes += 1
        self._record_turn(g, a.side, "take", a.span, None, (), "", None, cube=before)
        self._answer(g, "take")

    def _drop(self, g: _GameState, a: Drop) -> None:
        if g.over:
            self.add("P003", "a drop after the game was over", a.span, g)
            return
        before = g.cube
        try:
            points = g.cube.drop(a.side)
        except CubeError as exc:
            self._cube_error(g, exc, a.span)
            return
        g.drops += 1
        self._record_turn(g, a.side, "drop", a.span, None, (), "", None, cube=before)
        self._answer(g, "drop")
        assert before.pending is not None
        g.over = True
        g.winner = before.pending.doubler
        g.end = "drop"
        g.result = None  # a drop is never a gammon: no result type, as GNU reports it
        value = points
        if g.crawford and self.rules.crawford_double == "void":
            value = 1
        g.points = value
        g.drop_value = value

    def _beaver(self, g: _GameState, a: Beaver | Raccoon) -> None:
        if g.over:
            self.add("P003", "a beaver after the game was over", a.span, g)
            return
        before = g.cube
        try:
            g.cube = g.cube.beaver(a.side, rules=self.rules, length=self.length)
        except CubeError as exc:
            self._cube_error(g, exc, a.span)
            if exc.recorded is None:
                return
            g.cube = exc.recorded
        # A beaver is not a double (counted apart), though it makes an offer like one.
        g.beavers += 1
        pending = before.pending
        taken = pending.value if pending else before.value
        expected = 2 * taken
        if a.value and a.value != expected:
            self.add(
                "C005",
                f"'Beavers => {a.value}', but a beaver here makes the cube {expected}",
                a.span,
                g,
            )
        kind = "raccoon" if isinstance(a, Raccoon) or before.beavers else "beaver"
        self._answer(g, kind)
        self._record_turn(g, a.side, kind, a.span, None, (), "", None, cube=before)
        # The beaverer's offer starts from the cube it has just taken (a beaver to 4 offers 4
        # on a cube of 2), so each `Beavers => N` is filed at its own level.
        offered = g.cube.pending.value if g.cube.pending else 0
        g.cube_actions.append(self._cube_row(g, a.side, taken, offered, a.span, kind))

    # --- results -----------------------------------------------------------------------------

    def _needed(self, g: _GameState, side: int) -> int | None:
        if self.length == 0:
            return None
        return max(self.length - g.score[side], 0)

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
        rules = self.rules
        if g.over:
            winner = g.winner
            assert winner is not None
            if side != winner:
                self.add(
                    "R005",
                    f"'Wins {a.points}' stands in side {side}'s column, but side {winner} won "
                    f"the game ({g.end})",
                    a.span,
                    g,
                    severity=Severity.WARNING,
                )
            end: Literal["bearoff", "drop"] = "bearoff" if g.end == "normal" else "drop"
            cube = (
                g.drop_value
                if g.end == "drop"
                else g.cube.scoring_value(crawford_game=g.crawford, rules=rules)
            )
            points = a.points
            confirmed = True  # by the next score line, where it bears on the Jacoby rule
            if end == "bearoff" and self.length == 0 and g.result != "single" and not g.cube.used:
                # A money gammon with the cube never turned is worth what the Jacoby rule says,
                # and GNU writes its 'Wins' line without the rule while its running score keeps
                # it: where the next score line counts the game as a single, that is the value.
                scored = self._scored_points(g, winner)
                confirmed = scored is not None
                if scored is not None and scored != points and scored == cube:
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
            verdict = explain_win_points(
                points,
                cube=cube,
                end=end,
                rules=rules,
                cube_used=g.cube.used,
                length=self.length,
                result=g.result if end == "bearoff" else None,  # type: ignore[arg-type]
                needed=self._needed(g, winner),
            )
            self._judge(g, a, verdict, winner, points, confirmed=confirmed)
            return
        # The game had not ended: the other side resigned (or the game was forfeited).
        if g.cube.pending is not None:
            # A double left open and then 'Wins': the doubled side gave up (a drop unwritten).
            pending = g.cube.pending
            if side == pending.doubler:
                g.over, g.winner, g.end, g.result = True, side, "drop", None
                g.points = g.cube.value
                g.drop_value = g.points
                self._answer(g, "drop")
                g.drops += 1
                verdict = explain_win_points(
                    a.points,
                    cube=g.points,
                    end="drop",
                    rules=rules,
                    cube_used=g.cube.used,
                    length=self.length,
                    needed=self._needed(g, side),
                )
                self._judge(g, a, verdict, side)
                return
        cube = g.cube.scoring_value(crawford_game=g.crawford, rules=rules)
        level = g.resign_level if g.resign_side in (None, 1 - side) else None
        verdict = explain_win_points(
            a.points,
            cube=cube,
            end="resign",
            rules=rules,
            cube_used=g.cube.used,
            length=self.length,
            level=level,
            needed=self._needed(g, side),
        )
        g.over, g.winner, g.end = True, side, "resign"
        g.resign_level = verdict.level or level
        g.result = _LEVEL_RESULT.get(g.resign_level or 0)
        self._judge(g, a, verdict, side)

    def _scored_points(self, g: _GameState, winner: int) -> int | None:
        """The points the next game's score line gives this game's winner (the loser's score
        unchanged), or None where it says nothing clear."""
        nxt = self.next_game
        if nxt is None or min(nxt.score) < 0:
            return None
        gained = nxt.score[winner] - g.score[winner]
        if nxt.score[1 - winner] != g.score[1 - winner] or gained <= 0:
            return None
        return gained

    def _judge(
        self,
        g: _GameState,
        a: Win,
        verdict: Any,
        winner: int,
        points: int | None = None,
        *,
        confirmed: bool = True,
    ) -> None:
        """Score the game by the verdict on its 'Wins' line (`points` where the next score line
        corrected it; `confirmed`: a score line follows to bear the value out)."""
        written = a.points if points is None else points
        code = verdict.code
        if code in ("consistent", "resignation"):
            g.points = written if g.end == "resign" else g.points
            if (
                code == "consistent"
                and g.end == "normal"
                and g.result != "single"
                and not g.cube.used
                and self.length == 0
            ):
                if confirmed:
                    self.jacoby_against += 1
                else:
                    self.jacoby_against_unconfirmed += 1
            return
        if code == "jacoby-inferred":
            self.jacoby_support += 1
            g.points = written
            self.add("R010", verdict.message, a.span, g, severity=Severity.INFO)
            return
        if code == "jacoby-not-applied":
            # GNU scores resignations without the Jacoby rule: score as written. A game
            # played out is scored by the rule (GNU writes its 'Wins' line without it).
            if g.end != "normal":
                g.points = written
            self.add("R001", verdict.message, a.span, g, severity=Severity.INFO)
            return
        if code == "capped":
            g.points = a.points
            self.add("R008", verdict.message, a.span, g)
            return
        if code == "studio-1004":
            if verdict.expected is not None:
                g.points = verdict.expected
            else:
                g.points = g.cube.value
            self.add("R009", verdict.message, a.span, g)
            return
        needed = self._needed(g, winner)
        if g.end == "resign" and needed is not None and a.points >= needed > 0:
            # More than any resignation is worth, exactly what ends the match: a forfeit.
            g.points = a.points
            g.end = "resign"
            self.add(
                "R011",
                f"'Wins {a.points}' with the game unfinished gives side {winner} the match: "
                "a forfeit (time or abandonment)",
                a.span,
                g,
            )
            return
        self.add("R001", verdict.message, a.span, g)
        if g.end == "resign":
            # Score what the record says: the replay follows the record.
            g.points = a.points

    def _loss(self, g: _GameState, a: Loss) -> None:
        # Backgammon Galaxy mirrors the result in the loser's column; check it agrees.
        if not g.over:
            return
        if a.side == g.winner:
            self.add(
                "R012",
                f"'Losses {a.points}' stands in the winner's column",
                a.span,
                g,
                severity=Severity.WARNING,
            )

    # --- end of game -------------------------------------------------------------------------

    def _finish(self, g: _GameState, game: Game) -> None:
        if g.cube.pending is not None and not g.over:
            self.add(
                "C003",
                f"the double to {g.cube.pending.value} is never answered",
                game.span,
                g,
            )
        if not g.over:
            if g.hidden:
                return
            if game.actions:
                self.add(
                    "R006",
                    f"game {game.number} ends without a result (unfinished or cut short)",
                    game.span,
                    g,
                )

    def _verified(self, g: _GameState, game: Game) -> VerifiedGame:
        final_pos = g.pos
        final_side = g.pos_side
        try:
            final_pid = final_pos.position_id()
        except PositionError:
            final_pid = ""
        cube = g.cube
        owner = cube.owner if cube.owner in (0, 1) else -1
        cube_actions = tuple(self._cube_action(g, row) for row in g.cube_actions)
        match_id = final_match_id(
            length=self.length,
            score=_add(g.score, g.winner, g.points) if g.winner is not None else g.score,
            cube=cube.value,
            cube_owner=owner,
            on_roll=final_side,
            winner=g.winner,
            end=g.end,
            crawford=g.crawford,
            resign_level=g.resign_level,
            jacoby=self.rules.jacoby,
        )
        return VerifiedGame(
            number=game.number,
            score_before=g.score,
            score_written=game.score,
            winner=g.winner,
            points=g.points if g.winner is not None else 0,
            end=g.end,
            # As scored (as GNU reports it): a gammon the Jacoby rule made a single is a single;
            # `jacoby_applied` keeps what the board showed.
            result_type=(
                ("single" if g.jacoby_applied else g.result) if g.winner is not None else None
            ),
            cube=cube.value,
            cube_owner=owner,
            crawford=g.crawford,
            plays=g.plays,
            doubles=g.doubles,
            takes=g.takes,
            drops=g.drops,
            beavers=g.beavers,
            dances=g.dances,
            final_position_id=final_pid,
            final_match_id=match_id,
            line=g.line,
            turns=tuple(g.turns),
            cube_actions=cube_actions,
            resign_level=g.resign_level if g.end == "resign" else None,
            jacoby_applied=g.jacoby_applied,
            post_crawford=g.post_crawford,
            n_turns=g.n_turns,
        )

    def _cube_action(self, g: _GameState, row: list[Any]) -> CubeAction:
        turn, doubler, before, after, pid, response, mid, pips, span, race, offer = row
        result = None
        if g.winner is not None:
            result = g.points if g.winner == doubler else -g.points
        away = None
        if self.length:
            away = (self.length - g.score[doubler], self.length - g.score[1 - doubler])
        return CubeAction(
            game=g.number,
            turn=turn,
            doubler=doubler,
            cube_before=before,
            cube_after=after if response in ("take", "beaver", "raccoon") else before,
            response=response,
            position_id=pid,
            match_id=mid,
            pips=pips,
            score=g.score,
            away=away,
            crawford=g.crawford,
            line=span.line,
            column=span.column,
            doubler_result=result,
            race=race,
            offer=offer,
        )

    # --- turn rows ---------------------------------------------------------------------------

    def _record_turn(
        self,
        g: _GameState,
        side: int,
        kind: str,
        span: Span,
        dice: tuple[int, int] | None,
        steps: Any,
        written: str | Roll | CannotMove,
        legal: bool | None,
        *,
        pos: Position | None = None,
        cube: CubeState | None = None,
    ) -> None:
        """Count the action, and where turns are kept build its row (the costly part: IDs,
        pips, notation), so a plain validation does none of it."""
        g.n_turns += 1
        if not self.keep_turns:
            return
        if pos is None:
            pos = self._to_side(g, side) if kind in ("double", "play", "dance", "hidden") else None
        c = cube or g.cube
        if pos is None:
            # A take, drop or beaver: the board as the doubler left it, the answerer deciding.
            doubler_pos = g.pos if g.pos_side == 1 - side else g.pos.swap()
            pos_for_id = doubler_pos
            on_roll = 1 - side
        else:
            pos_for_id = pos
            on_roll = side
        race: bool | None
        try:
            pid, pips_a, pips_b, race = pos_for_id.summary()
        except PositionError:
            pid, pips_a, pips_b, race = "", 0, 0, None
        pips = (pips_a, pips_b) if on_roll == side else (pips_b, pips_a)
        offered = kind in ("take", "drop", "beaver", "raccoon")
        # The Match ID without dice changes a few times a game: kept per game by what varies.
        owner = c.owner if c.owner in (0, 1) else -1
        key = (c.value, owner, on_roll, side, offered)
        base = g.match_keys.get(key)
        if base is None:
            base = g.match_keys[key] = _match_key(
                self.length,
                g.score,
                c.value,
                owner,
                on_roll,
                side,
                g.crawford,
                1,
                offered,
                0,
                self.rules.jacoby,
            )
        mid = _with_dice(
            base, dice if dice is not None and kind in ("play", "dance", "hidden") else (0, 0)
        )
        away = None
        if self.length:
            away = (self.length - g.score[side], self.length - g.score[1 - side])
        text, hits = _play_info(steps)
        # Built from a tuple of its fields: the named tuple's generated __new__ is interpreted
        # code even where bgparse is compiled.
        g.turns.append(
            _tuple_new(
                Turn,
                (
                    g.number,
                    g.n_turns - 1,
                    side,
                    kind,
                    span.line,
                    span.column,
                    pid,
                    mid,
                    dice,
                    steps,
                    text,
                    written if isinstance(written, str) else _written(written),
                    hits,
                    pips,
                    c.value,
                    owner,
                    legal,
                    None,
                    g.score,
                    away,
                    g.crawford,
                    race,
                ),
            ),
        )


def _without_placeholders(moves: tuple[Move, ...]) -> tuple[Move, ...]:
    """Some archives write `0/0` for a die that could not be played (`21: 2/0 0/0`): a
    placeholder, not a move."""
    return tuple(m for m in moves if m.points != (0, 0))


def _has_stars(record: MatchRecord) -> bool:
    return any(True in m.hits for _, a in record.iter_actions() if type(a) is Roll for m in a.moves)


def _star_slips(res: Any) -> list[tuple[int, int, str]]:
    """A play's hit-star mismatches that are real slips. Producers star every move that lands
    where the play hit (GNU: `6/1* 6/1*`; Studio: `13/7*(2)`), not only the checker that hit,
    so a star is right wherever the play hit."""
    hit_points = {s[1] for s in res.steps if s[2]}
    return [
        m for m in res.hit_star_mismatch if not (m[2] == "star-without-hit" and m[1] in hit_points)
    ]


def _add(score: tuple[int, int], winner: int | None, points: int) -> tuple[int, int]:
    if winner == 0:
        return (score[0] + points, score[1])
    if winner == 1:
        return (score[0], score[1] + points)
    return score


def _fmt_dice(dice: tuple[int, int]) -> str:
    return f"{dice[0]}{dice[1]}"


def _pt(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def _written(a: Roll | CannotMove) -> str:
    if type(a) is CannotMove:
        return "Cannot Move"
    assert isinstance(a, Roll)
    return a.text or " ".join(m.notation() for m in a.moves)


@lru_cache(maxsize=1 << 15)
def _play_info(steps: tuple[tuple[int, int, bool], ...]) -> tuple[str, int]:
    """Canonical notation and number of hits of resolved steps (plays repeat: cached)."""
    return (format_play(steps) if steps else "", sum(1 for s in steps if s[2]))


def _with_dice(base: int, dice: tuple[int, int]) -> str:
    """A Match ID from its dice-less part (`_match_key`) and the dice: they change every turn,
    the rest a few times a game, so only the rest is cached and the dice go straight into
    their bits (15-17, 18-20). "" where either cannot be encoded."""
    d1, d2 = dice
    if base < 0 or not (0 <= d1 <= 7 and 0 <= d2 <= 7):
        return ""
    key = base | (d1 << 15) | (d2 << 18)
    return b2a_base64(key.to_bytes(9, "little"), newline=False).decode("ascii")


@lru_cache(maxsize=1 << 14)
def _match_key(
    length: int,
    score: tuple[int, int],
    cube: int,
    owner: int,
    on_roll: int,
    turn: int,
    crawford: bool,
    state: int,
    offered: bool,
    resignation: int,
    jacoby: bool,
) -> int:
    """A Match ID without dice, as a number (-1 where it cannot be encoded)."""
    try:
        text = encode_match_id(
            IdState(
                length,
                score,
                cube,
                owner,
                on_roll,
                turn,
                crawford,
                state,
                offered,
                resignation,
                (0, 0),
                jacoby,
            )
        )
    except IdError:
        return -1
    return int.from_bytes(b64decode(text), "little")


def _xg_set_pos(text: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The boards of an XG `; Set Pos=<26-char board>/<cube>` line: side 0 (left column, the
    uppercase checkers, as bg-db found in real files) and side 1, each in its own numbering."""
    start = text.find("=")
    if start < 0:
        return None
    board = text[start + 1 :].split("/", 1)[0].strip()
    try:
        return decode_xgid_board(board)
    except (IdError, PositionError, ValueError):
        return None


def _snowie_board(
    fields: tuple[str, ...],
) -> tuple[int | None, tuple[int, ...], tuple[int, ...]] | None:
    """The board of a Snowie 40-field dump (formats.md §5.4), which shows the position for the
    player to roll NEXT (named first), with that player's next dice in fields 38-39. Fields
    13-36 are that player's points 1-24 (+ its checkers, - the opponent's), 37 its bar and 12
    the opponent's bar (checked on real dumps: both sides then hold 15 checkers). Returns
    (None, roller's board, opponent's board), or None if the fields do not read."""
    if len(fields) < 38:
        return None
    try:
        vals = [int(f.strip() or 0) for f in fields[12:38]]
    except ValueError:
        return None
    mover = [0] * 26
    opponent = [0] * 26
    opponent[25] = abs(vals[0])
    mover[25] = abs(vals[25])
    for i in range(24):
        v = vals[1 + i]
        p = i + 1
        if v > 0:
            mover[p] = v
        elif v < 0:
            opponent[25 - p] = -v
    return None, tuple(mover), tuple(opponent)
