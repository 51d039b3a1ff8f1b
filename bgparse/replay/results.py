"""The replay of results: a game's 'Wins' and 'Losses' lines scored by the rules' verdict
(`Game.judge_points`), with the next game's score line as evidence for the Jacoby rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bgparse.model.events import Loss, Win
from bgparse.model.findings import Severity
from bgparse.rules.scoring import WinPoints, jacoby_eligible
from bgparse.rules.wording import plural

if TYPE_CHECKING:
    from bgparse.replay.context import ReplayContext
    from bgparse.replay.state import GameState


def win(r: ReplayContext, g: GameState, a: Win) -> None:
    if g.win_seen:
        r.add("R005", "a second result line for the same game", a.span, g)
        return
    g.win_seen = True
    if a.points <= 0:
        # No game is won for nothing or less (a minus sign, or a number too large read as
        # its negative bound): a game that ended keeps the points its end gave; one that
        # had not is left without a result.
        r.add(
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
            r.add(
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
            game.result, cube_used=game.cube.used, length=r.length
        ):
            # A money gammon with the cube never turned is worth what the Jacoby rule says,
            # and GNU writes its 'Wins' line without the rule while its running score keeps
            # it: where the next score line counts the game as a single, that is the value.
            scored = scored_points(r, g, winner)
            confirmed = scored is not None
            if scored is not None and scored != points and scored == game.scoring_value():
                r.jacoby_scored += 1
                r.add(
                    "R010",
                    f"'Wins {plural(points, 'point')}' but the next game's score counts "
                    f"{scored}: "
                    "the gammon was scored as a single game (the Jacoby rule)",
                    a.span,
                    g,
                    severity=Severity.INFO,
                )
                points = scored
        judge(r, g, a, game.judge_points(points, winner), winner, points, confirmed)
        return
    # The game had not ended: the other side resigned (or the game was forfeited).
    pending = game.cube.pending
    if pending is not None and side == pending.doubler:
        # A double left open and then 'Wins': the doubled side gave up (a drop unwritten).
        game.dropped_unwritten(side)
        g.rows.answer("drop")
        g.drops += 1
        judge(r, g, a, game.judge_points(a.points, side), side)
        return
    level = game.level_offered_to(side)
    verdict = game.judge_points(a.points, side)
    game.resigned(side, verdict.level or level, 0)
    judge(r, g, a, verdict, side)


def scored_points(r: ReplayContext, g: GameState, winner: int) -> int | None:
    """The points the next game's score line gives this game's winner (the loser's score
    unchanged), or None where it says nothing clear."""
    nxt = r.next_game
    score = g.game.score
    if nxt is None or min(nxt.score) < 0:
        return None
    gained = nxt.score[winner] - score[winner]
    if nxt.score[1 - winner] != score[1 - winner] or gained <= 0:
        return None
    return gained


def judge(
    r: ReplayContext,
    g: GameState,
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
            and jacoby_eligible(game.result, cube_used=game.cube.used, length=r.length)
        ):
            if confirmed:
                r.jacoby_against += 1
            else:
                r.jacoby_against_unconfirmed += 1
        return
    if code == "jacoby-inferred":
        r.jacoby_support += 1
        game.points = written
        r.add("R010", verdict.message, a.span, g, severity=Severity.INFO)
        return
    if code == "jacoby-not-applied":
        # GNU scores resignations without the Jacoby rule: score as written. A game
        # played out is scored by the rule (GNU writes its 'Wins' line without it).
        if game.end != "normal":
            game.points = written
        r.add("R001", verdict.message, a.span, g, severity=Severity.INFO)
        return
    if code == "capped":
        # Stored as the note says: the points the winner needed (the record's may be more).
        game.points = game.needed(winner) or a.points
        r.add("R008", verdict.message, a.span, g)
        return
    if code == "studio-1004":
        game.points = verdict.expected if verdict.expected is not None else game.cube.value
        r.add("R009", verdict.message, a.span, g)
        return
    needed = game.needed(winner)
    if game.end == "resign" and needed is not None and a.points >= needed > 0:
        # More than any resignation is worth, exactly what ends the match: a forfeit.
        game.points = a.points
        r.add(
            "R011",
            f"'Wins {a.points}' with the game unfinished gives side {winner} the match: "
            "a forfeit (time or abandonment)",
            a.span,
            g,
        )
        return
    r.add("R001", verdict.message, a.span, g)
    if game.end == "resign":
        # Score what the record says: the replay follows the record.
        game.points = a.points


def loss(r: ReplayContext, g: GameState, a: Loss) -> None:
    # Backgammon Galaxy mirrors the result in the loser's column; check it agrees.
    if g.game.over and a.side == g.game.winner:
        r.add(
            "R012",
            f"'Losses {a.points}' stands in the winner's column",
            a.span,
            g,
            severity=Severity.WARNING,
        )
