"""The replay of checker play: rolls and plays checked against the board (an illegal play
reported with the board and the legal plays, the board after it found by `repair.py`), hit
stars, dances, hidden plays, producers' illegal-play dumps and set-up positions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bgparse.model.events import (
    Action,
    CannotMove,
    Comment,
    HiddenPlay,
    IllegalPlay,
    Loss,
    Resign,
    Roll,
    SetPosition,
    Span,
    Win,
)
from bgparse.model.findings import Finding, Severity
from bgparse.replay.repair import star_slips, without_placeholders
from bgparse.replay.turns import play_info, written_play
from bgparse.rules import DiceError, PlayError, PositionError, diagram
from bgparse.rules.cube import LARGEST_CUBE

if TYPE_CHECKING:
    from bgparse.replay.context import ReplayContext
    from bgparse.replay.state import GameState


def roll(
    r: ReplayContext, g: GameState, a: Roll | CannotMove, actions: tuple[Action, ...], i: int
) -> None:
    game = g.game
    side = a.side
    span = a.span
    if game.over:
        r.add("P003", f"a roll after the game was over ({fmt_dice(a.dice)})", span, g)
        return
    for v in game.turn_order(side):
        r.add("P006", f"a roll by {v.message}", span, g)
    before = game.cube
    if before.pending is not None:
        for v in game.before_roll():
            r.add("C003", v.message, span, g)
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
            r.add("P002", v.message, span, g, reason="dice-invalid")
        else:
            r.add("P008", v.message, span, g)
    moves = a.moves if type(a) is Roll else ()  # type: ignore[union-attr]
    if moves and has_placeholder(moves):
        moves = without_placeholders(moves)
        r.add("N003", "'0/0' stands for a die that was not played; ignored", span, g)
    g.plays += 1
    if not game.board_known:
        # After a hidden play nothing can be checked; only note the roll.
        g.rows.turn(g.game, side, "play", span, a.dice, (), a, None)
        game.passed(side)
        return
    try:
        res = game.check_play(side, a.dice, moves)
    except (PlayError, DiceError, PositionError) as exc:
        r.add("P001", f"illegal play {fmt_dice(a.dice)}: {exc}", span, g)
        game.passed(side)
        return
    kind = "play"
    if not moves:
        if res.ok:
            kind = "dance"
            g.dances += 1
        elif ends_after(actions, i):
            # Dice with no play, then the game ends: rolled, then resigned (GNU's reading).
            rolled_then_resigned(r, g, side, a.dice, span)
            game.passed(side)
            return
    after = res.after
    if not res.ok:
        if dice_ok:  # impossible dice are reported once, as P002
            illegal(r, g, a, res, span)
        after, exhausted = r.search.board_after(res, actions, i, side)
        if exhausted:
            r.add(
                "N004",
                "too many illegal plays to look for the board after each: from here on the "
                "record's own results are taken as they stand",
                span,
                g,
                severity=Severity.INFO,
            )
    elif res.hit_star_mismatch:
        stars(r, g, res, span)
    if res.ambiguous:
        r.add(
            "P005",
            f"{written_play(a)} fits several plays with {fmt_dice(a.dice)}: read as "
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


def rolled_then_resigned(
    r: ReplayContext, g: GameState, side: int, dice: tuple[int, int], span: Span
) -> None:
    r.add(
        "P007",
        f"{fmt_dice(dice)} rolled and no play shown before the game ended "
        "(a resignation after rolling)",
        span,
        g,
    )
    g.rows.turn(g.game, side, "hidden", span, dice, (), "", None)


def illegal(r: ReplayContext, g: GameState, a: Roll | CannotMove, res: Any, span: Span) -> None:
    reason = res.reason or "illegal"
    written = written_play(a) or "no play"
    detail = None
    r.details_left -= 1
    try:
        alts = res.alternatives if r.details_left >= 0 else None
        if alts is not None:
            shown = ", ".join(alts[k].notation for k in range(min(len(alts), 8)))
            more = f" (+{len(alts) - 8} more)" if len(alts) > 8 else ""
            detail = diagram(res.position) + (f"\nlegal plays: {shown}{more}" if shown else "")
    except (PositionError, ValueError):
        detail = None
    stands = ""
    severity = None
    if r.rules.illegal_play == "stands":
        # The rule book lets a play nobody corrected before the next roll stand, and the
        # record shows it played: a warning, not an error.
        severity = Severity.WARNING
        stands = (
            f" (it stands under the {r.rules.profile or 'chosen'} rules: not corrected in time)"
        )
    r.add(
        "P001",
        f"illegal play {fmt_dice(a.dice)}: {written} [{reason}]: {res.message}{stands}",
        span,
        g,
        severity=severity,
        detail=detail,
        reason=reason,
    )


def stars(r: ReplayContext, g: GameState, res: Any, span: Span) -> None:
    for src, dst, what in star_slips(res):
        if what == "star-without-hit":
            r.add(
                "N001",
                f"{pt(src)}/{pt(dst)}* has a hit star but hits nothing",
                span,
                g,
                reason=what,
            )
        else:
            r.unstarred.append(
                Finding.make(
                    "N002",
                    f"{pt(src)}/{pt(dst)} hits a blot but has no star",
                    span.line,
                    span.column,
                    game=g.number,
                    turn=g.rows.n_turns,
                    reason=what,
                )
            )


def hidden(r: ReplayContext, g: GameState, a: HiddenPlay) -> None:
    if r.after_over(g, "a hidden play", a.span):
        return
    r.turn_order(g, a.side, a.span)
    g.game.last_roller = a.side
    r.add("P007", f"the play of {fmt_dice(a.dice)} is not shown ({a.text})", a.span, g)
    g.rows.turn(g.game, a.side, "hidden", a.span, a.dice, (), a.text, None)
    g.plays += 1
    g.hidden = True
    # The board after it is not known: later plays of the game cannot be checked.
    g.game.board_known = False


def illegal_dump(r: ReplayContext, g: GameState, a: IllegalPlay) -> None:
    r.add(
        "P009",
        f"the producer marks the play of {fmt_dice(a.dice)} as illegal ('Illegal play' "
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


def set_position(
    r: ReplayContext, g: GameState, a: SetPosition, actions: tuple[Action, ...], i: int
) -> None:
    """A set-up inside a game: a board (XG `; Set Pos=`, SGF AE/AB/AW), the cube, the side
    on roll or dice (SGF PL/DI, CV, CP), in any combination."""
    game = g.game
    cube_value = a.cube_value
    if cube_value is not None and cube_value > LARGEST_CUBE:
        r.add(
            "C005",
            f"a cube of {cube_value:,} is past {LARGEST_CUBE:,}, the largest cube bgparse keeps: "
            f"read as {LARGEST_CUBE:,}",
            a.span,
            g,
        )
        cube_value = LARGEST_CUBE
    game.set_cube(cube_value, a.cube_owner)
    boards = a.boards
    if boards is None and a.text.lstrip(";# ").lower().startswith("set"):
        # The reader could not read the board of its `Set Pos` line.
        r.add(
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
            r.add("S006", f"set-up position is not valid: {exc}", a.span, g)
            game.board_known = False
            return
    elif a.side_on_roll is not None:
        game.board(side)
    if a.dice is not None and a.side_on_roll is not None and ends_after(actions, i):
        # Dice set and nothing played before the game ends: rolled, then resigned.
        rolled_then_resigned(r, g, side, a.dice, a.span)
        game.last_roller = side


def has_placeholder(moves: tuple[Any, ...]) -> bool:
    """Whether a play writes `0/0` for a die not played (a loop, not a generator: per roll)."""
    for m in moves:
        points = m.points
        if points[0] == 0 and points == (0, 0):  # an int test first: a tuple compare is dearer
            return True
    return False


def fmt_dice(dice: tuple[int, int]) -> str:
    return f"{dice[0]}{dice[1]}"


def pt(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def ends_after(actions: tuple[Action, ...], i: int) -> bool:
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
