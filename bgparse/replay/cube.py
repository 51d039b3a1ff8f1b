"""The replay of cube actions: doubles, takes, drops, beavers and raccoons as operations of
the rules' `Game`, their verdicts as findings, and each offer's row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bgparse.model.events import Beaver, Double, Drop, Raccoon, Span, Take
from bgparse.rules.game import Verdict

if TYPE_CHECKING:
    from bgparse.replay.context import ReplayContext
    from bgparse.replay.state import GameState

_CUBE_CODES = {
    "crawford-game": "C007",
    "no-pending-double": "C002",
    "wrong-side": "C002",
    "double-pending": "C003",
    "beaver-in-match": "C004",
    "beaver-not-allowed": "C004",
}


def cube_error(r: ReplayContext, g: GameState, v: Verdict, span: Span) -> None:
    code = _CUBE_CODES.get(v.reason, "C001")
    if v.reason == "crawford-game" and r.crawford_assumed:
        # Match play uses the Crawford rule unless the record or the user says otherwise
        # (every seed rule sheet; GNU Backgammon and eXtreme Gammon default to it), so this
        # is an error under the default rules. The record does not name the rule (GNU's
        # .mat export cannot): the message says it was assumed and how to turn it off.
        message = (
            f"{v.message} (the Crawford rule is assumed: the record does not say; "
            f"validate with --no-crawford if the match was played without it) [{v.reason}]"
        )
        r.add(code, message, span, g, reason=v.reason)
        return
    r.add(code, f"{v.message} [{v.reason}]", span, g, reason=v.reason)


def double(r: ReplayContext, g: GameState, a: Double) -> None:
    game = g.game
    side = a.side
    if game.over:
        r.add("P003", f"a double after the game was over (to {a.value})", a.span, g)
        return
    if game.answering(side):
        # A double by the doubled side is a beaver (SGF writes it so).
        beaver(r, g, Beaver(side, a.value, a.span))
        return
    before = game.cube
    for v in game.double(side, a.value):
        if v.reason == "wrong-value":
            r.add(
                "C005",
                f"'Doubles => {a.value}', but the cube is at {before.value}: {v.message}",
                a.span,
                g,
            )
        else:
            cube_error(r, g, v, a.span)
    g.doubles += 1
    g.rows.turn(g.game, side, "double", a.span, None, (), "", None, cube=before)
    g.rows.offer(side, before.value, 2 * before.value, a.span, "double")


def answer(r: ReplayContext, g: GameState, a: Take | Drop) -> None:
    """A take or a drop of the double pending."""
    response = "take" if type(a) is Take else "drop"
    if r.after_over(g, f"a {response}", a.span):
        return
    game = g.game
    before = game.cube
    for v in game.take(a.side) if response == "take" else game.drop(a.side):
        if v.reason == "dead-cube-taken":
            r.add("C006", v.message, a.span, g)
            continue
        cube_error(r, g, v, a.span)
        return
    if response == "take":
        g.takes += 1
    else:
        g.drops += 1
    g.rows.turn(game, a.side, response, a.span, None, (), "", None, cube=before)
    g.rows.answer(response)


def beaver(r: ReplayContext, g: GameState, a: Beaver | Raccoon) -> None:
    if r.after_over(g, "a beaver", a.span):
        return
    game = g.game
    before = game.cube
    for v in game.beaver(a.side, a.value):
        if v.reason == "wrong-value":
            r.add("C005", f"'Beavers => {a.value}', but {v.message}", a.span, g)
            continue
        cube_error(r, g, v, a.span)
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
