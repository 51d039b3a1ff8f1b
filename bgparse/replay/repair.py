"""The search for the board after an illegal play: the legal play (of the roll, or of a one-die
correction of impossible dice) that the plays the record goes on with agree with."""

from __future__ import annotations

from typing import Any

from bgparse.model.events import (
    Action,
    CannotMove,
    HiddenPlay,
    IllegalPlay,
    Move,
    Roll,
    SetPosition,
)
from bgparse.rules import (
    DiceError,
    PlayCheck,
    PlayError,
    Position,
    PositionError,
    legal_plays,
    verify_play,
)

__all__ = ["LOOKAHEAD", "SEARCH_BUDGET", "BoardSearch", "star_slips", "without_placeholders"]

#: Agreement that ends the search at once (the rest of the game agrees, or this many plays do:
#: more than any game has).
LOOKAHEAD = 1000
#: Plays one match may check while looking for the board after its illegal plays. Real
#: records use a few hundred; a file of nothing but illegal plays would otherwise cost time
#: in proportion to its plays times their alternatives.
SEARCH_BUDGET = 20_000


def without_placeholders(moves: tuple[Move, ...]) -> tuple[Move, ...]:
    """Some archives write `0/0` for a die that could not be played (`21: 2/0 0/0`): a
    placeholder, not a move."""
    return tuple(m for m in moves if m.points != (0, 0))


def star_slips(res: Any) -> list[tuple[int, int, str]]:
    """A play's hit-star mismatches that are real slips. Producers star every move that lands
    where the play hit (GNU: `6/1* 6/1*`; Studio: `13/7*(2)`), not only the checker that hit,
    so a star is right wherever the play hit."""
    hit_points = {s[1] for s in res.steps if s[2]}
    return [
        m for m in res.hit_star_mismatch if not (m[2] == "star-without-hit" and m[1] in hit_points)
    ]


class BoardSearch:
    """The search of one match, with its budget of plays to check (shared by all its illegal
    plays). `hit_marks`: the record marks hits, so a wrong star counts against a board."""

    __slots__ = ("budget", "hit_marks")

    def __init__(self, hit_marks: bool, budget: int = SEARCH_BUDGET) -> None:
        self.hit_marks = hit_marks
        self.budget = budget

    def board_after(
        self, res: PlayCheck, actions: tuple[Action, ...], i: int, side: int
    ) -> tuple[Position, bool]:
        """The board to go on from after the illegal play `res` (action i, by `side`), and
        whether the budget ran out during this search (the caller says so once).

        The record's own result (its steps applied as far as they physically go) stands, as
        an illegal play stands at the table, unless the plays that follow show that the board
        was really otherwise: then the legal play the next plays agree with is taken. So one
        slip in a record is reported once, not again at every later play it would otherwise
        throw off."""
        best: Position = res.after
        if self.budget <= 0:
            return best, False
        best_score = self.agreement(best, actions, i, 1 - side)
        if best_score >= LOOKAHEAD:
            return best, False
        for cand in candidates(res):
            if self.budget <= 0:
                return best, True
            score = self.agreement(cand, actions, i, 1 - side)
            if score > best_score:
                best, best_score = cand, score
                if score >= LOOKAHEAD:
                    break
        return best, False

    def agreement(self, pos: Position, actions: tuple[Action, ...], i: int, on_roll: int) -> int:
        """How many of the plays after action i read as legal (with their hit stars right,
        where the record marks hits) when the board after it is `pos`, `on_roll` to play."""
        count = 0
        side = on_roll
        marks = self.hit_marks
        for k in range(i + 1, len(actions)):
            b = actions[k]
            t = type(b)
            if t is Roll or t is CannotMove:
                assert isinstance(b, Roll | CannotMove)
                if b.side != side:
                    pos, side = pos.swap(), b.side
                moves = without_placeholders(b.moves) if isinstance(b, Roll) else ()
                d1, d2 = b.dice
                if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                    return count
                self.budget -= 1
                try:
                    res = verify_play(pos, (d1, d2), moves)
                except (PlayError, DiceError, PositionError):
                    return count
                if not res.ok or (marks and res.hit_star_mismatch and star_slips(res)):
                    return count
                count += 1
                pos, side = res.after, 1 - side
                if count >= LOOKAHEAD or sum(pos.opponent) == 0:
                    return LOOKAHEAD
            elif t in (HiddenPlay, IllegalPlay, SetPosition):
                return count
        return LOOKAHEAD  # agrees with everything to the end of the game


def candidates(res: PlayCheck) -> list[Position]:
    """The boards the legal plays of the roll make (of each one-die correction, where the dice
    are impossible), apart from the record's own result."""
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
