"""The replay: walks an event record through the rules engine and produces the verified match
with every finding (illegal plays, cube actions the rules forbid, scores that do not add up).

It never stops at the first problem: after an illegal play it reports it and goes on from the
position the record implies, as tournament rules let an illegal play stand (RULES.md §6).
Sides are absolute (0 = left column); the engine's positions are relative to the side on roll.

The judging is the rules' `Game` (bgparse/rules/game.py): each event becomes an operation of it,
each verdict a finding with the event's span. This module is the loop: the match's games and
scores, each game's events handed to the module of their kind (`plays`: rolls and checker
plays; `cube`: doubles and their answers; `results`: 'Wins' and 'Losses' lines), and the
verified game at its end. Those modules are handed the replay as a `ReplayContext`
(`context.py`: the record, its rules, the findings) and never import this one. The board after
an illegal play is `repair.py`'s search; the rows each game builds are `turns.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from bgparse.model.events import (
    GENERATED,
    Action,
    Beaver,
    CannotMove,
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
    Take,
    Win,
)
from bgparse.model.events import Game as GameRecord
from bgparse.model.findings import Finding
from bgparse.model.verified import VerifiedGame, VerifiedMatch
from bgparse.replay import cube, plays, results
from bgparse.replay.context import ReplayContext
from bgparse.replay.state import GameState
from bgparse.replay.turns import GameRows
from bgparse.rules import PositionError
from bgparse.rules.game import Game
from bgparse.rules.match import MatchState
from bgparse.rules.ruleset import RuleSet
from bgparse.rules.wording import plural

__all__ = ["GameState", "Replay", "replay", "rules_for"]

_plain_play: Callable[[GameState, Action], bool] | None
try:  # the typed plain roll, where setup.py built it (`plays.roll` is its reference)
    from bgparse.replay._plain import plain_play as _plain_play
except ImportError:
    _plain_play = None


def rules_for(record: MatchRecord, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The rule set a record is checked under: its tags (or SGF rule words) where they speak,
    then the caller's overrides (CLI options)."""
    if record.format == "sgf":
        words = record.games[0].rules if record.games else ()
        if not words and record.dialect in ("gnubg-sgf", "bgparse-sgf", GENERATED):
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
        if "profile" in overrides:
            from bgparse.rules.profiles import for_length

            overrides = for_length(overrides, record.length)
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
    # Stored analysis is checked against the turns: a record that has some keeps them.
    keep_turns = keep_turns or bool(record.analysis)
    run = Replay(record, rules, keep_turns, crawford_assumed=assumed)
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
        run = Replay(record, rules, keep_turns, crawford_assumed=assumed)
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
    if record.analysis:
        from bgparse.analysis.attach import attach

        decisions, notes = attach(result, record.analysis, record.analysis_source or "")
        result = replace(result, decisions=decisions)
        if notes:
            result = _with_findings(result, notes)
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


class Replay(ReplayContext):
    """The replay of one match: its games in order, each event handed to the judgement of its
    kind, and the verified match at the end."""

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
            if match.crawford_game and "CrawfordGame" in g0.rules:
                # The record says so (GNU's text export's score line, an SGF RU[CrawfordGame]).
                note = "; the record says it is the Crawford game"
            elif match.crawford_game:
                # Whether the Crawford game was already played before the record starts
                # cannot be known: take it as played, and do not call a double illegal.
                match = MatchState.new(self.length, self.rules, first_score, crawford_played=True)
                note = "; whether it is the Crawford game is not known, so doubles are allowed"
            why = (
                f"GNU's text export writes a file per game: this is game {g0.number}"
                if rec.format == "gnutext"
                else "penalty points or a resumed match"
            )
            self.add(
                "R007",
                f"the first game starts at {first_score[0]}-{first_score[1]}, not 0-0 "
                f"({why}){note}",
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
                    f"games before it make {match.scores[0]}-{match.scores[1]}"
                    + (
                        _automatic_doubles_note(
                            games[-1] if games else None, match.scores, game.score, rec.format
                        )
                        if self.length == 0
                        else ""
                    ),
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
        g = GameState(game.number, game.span.line, rules_game, rows)
        actions = game.actions
        plain = _plain_play
        for i, action in enumerate(actions):
            # A plain roll in typed C where it is built (nineteen in twenty); the rest, and the
            # reference, through `_action`.
            if plain is not None and type(action) is Roll and plain(g, action):
                continue
            self._action(g, action, actions, i)
        self._finish(g, game)
        return self._verified(g, game)

    def _action(self, g: GameState, a: Action, actions: tuple[Action, ...], i: int) -> None:
        t = type(a)
        if t is Roll or t is CannotMove:
            plays.roll(self, g, a, actions, i)  # type: ignore[arg-type]
        elif t is Double:
            cube.double(self, g, a)  # type: ignore[arg-type]
        elif t is Take or t is Drop:
            cube.answer(self, g, a)  # type: ignore[arg-type]
        elif t is Beaver or t is Raccoon:
            cube.beaver(self, g, a)  # type: ignore[arg-type]
        elif t is Win:
            results.win(self, g, a)  # type: ignore[arg-type]
        elif t is Loss:
            results.loss(self, g, a)  # type: ignore[arg-type]
        elif t is HiddenPlay:
            plays.hidden(self, g, a)  # type: ignore[arg-type]
        elif t is Resign:
            assert isinstance(a, Resign)
            g.game.offer_resignation(a.side, a.level)
        elif t is IllegalPlay:
            plays.illegal_dump(self, g, a)  # type: ignore[arg-type]
        elif t is SetPosition:
            plays.set_position(self, g, a, actions, i)  # type: ignore[arg-type]

    # --- end of game -------------------------------------------------------------------------

    def _finish(self, g: GameState, record: GameRecord) -> None:
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

    def _verified(self, g: GameState, record: GameRecord) -> VerifiedGame:
        game = g.game
        try:
            final_pid = game.position.position_id()
        except PositionError:
            final_pid = ""
        final = game.cube  # not `cube`: that names the module of cube actions here
        owner = final.owner if final.owner in (0, 1) else -1
        won = game.winner is not None
        cube_actions = g.rows.cube_actions(game)
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
            cube=final.value,
            cube_owner=owner,
            crawford=game.crawford,
            plays=g.plays,
            doubles=g.doubles,
            takes=g.takes,
            drops=g.drops,
            beavers=g.beavers,
            dances=g.dances,
            final_position_id=final_pid,
            final_match_id=game.match_id_after(),
            line=g.line,
            turns=tuple(g.rows.turns),
            cube_actions=cube_actions,
            resign_level=game.resign_level if game.end == "resign" else None,
            jacoby_applied=game.jacoby_applied,
            post_crawford=game.post_crawford,
            n_turns=g.rows.n_turns,
        )


def _automatic_doubles_note(
    previous: VerifiedGame | None, running: tuple[int, int], written: tuple[int, int], fmt: str
) -> str:
    """A note for a money session's score line that differs from the running score exactly by
    the automatic doubles of the game before it, either way: GNU Backgammon playing without a
    display records a game's automatic doubles (SGF `CV`) but keeps the cube at 1 for the
    score; a `.mat` cannot write them at all, while the score lines count them. Empty unless
    that is exactly the difference."""
    if (
        previous is None
        or previous.winner is None
        or previous.score_written != previous.score_before
        or previous.points <= 0
    ):
        return ""
    winner = previous.winner
    if written[1 - winner] != running[1 - winner]:
        return ""
    counted = written[winner] - previous.score_before[winner]
    points = plural(previous.points, "point")
    start = previous.cube_actions[0].cube_before if previous.cube_actions else previous.cube
    if start >= 2 and previous.points % start == 0 and counted == previous.points // start:
        return (
            f" (the score line counts game {previous.number}'s {points} as {counted}, the "
            f"result without the automatic doubles that started its cube at {start}: the "
            "producer did not apply them to the score)"
        )
    factor = counted // previous.points
    if (
        start == 1
        and counted == factor * previous.points
        and 2 <= factor <= 64
        and factor & (factor - 1) == 0
    ):
        return (
            f" (the score line counts game {previous.number}'s {points} as {counted}, "
            f"{factor} times as many: as if automatic doubles the record does not show had "
            f"started its cube at {factor}"
            + ("; a .mat cannot write them)" if fmt == "mat" else ")")
        )
    return ""


def _has_stars(record: MatchRecord) -> bool:
    return any(True in m.hits for _, a in record.iter_actions() if type(a) is Roll for m in a.moves)
