"""GNU Backgammon's move generator (the gnubg-nn package) as an outside legality oracle.

gnubg-nn is GPL: tests import this module (after `pytest.importorskip("gnubg_nn")`); the bgparse
package never does. The glue below is this project's own.

Board convention (gnubg's): `(opponent, mover)`, 25 counts each, index p - 1 = point p counted
from that side's own home, index 24 = that side's bar; the mover is the side on roll. A step is
`(src, dst)` in the mover's numbering: 25 the bar, 0 off.

Legality, as GNU sees it: gnubg lists every distinct position a legal play of the roll can
lead to. A written play is legal when its steps can be made one by one on the board (each from a
point holding a mover's checker, 1 to 6 pips forward or off, never onto two or more opposing
checkers; in some order: the written order is not binding) and the position they lead to is one
of those. A play of no steps is legal only when the roll has no legal play.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

import gnubg_nn

Board = tuple[tuple[int, ...], tuple[int, ...]]
Step = tuple[int, int]

BAR = 25
OFF = 0


def board_of(position_id: str) -> Board:
    """The board of a GNU Position ID, the side on roll as the mover."""
    opp, me = gnubg_nn.board_from_position_id(position_id)
    return tuple(opp), tuple(me)


def key_of(board: Board) -> str:
    """gnubg's 20-character key of a board (the form `moves` lists its results in)."""
    return str(gnubg_nn.key_of_board([list(board[0]), list(board[1])]))


def next_position_id(after: Board) -> str:
    """The Position ID after a play, from the view of the other side (who rolls next)."""
    return str(gnubg_nn.position_id([list(after[1]), list(after[0])]))


def step_shape_ok(step: Step) -> bool:
    """A step one die could make: from a point or the bar, 1 to 6 pips forward or off."""
    src, dst = step
    return 1 <= src <= BAR and OFF <= dst < BAR and 1 <= src - dst <= 6


def apply_in_order(board: Board, steps: Sequence[Step]) -> tuple[Board | None, list[bool]]:
    """The board after making `steps` in the order given, or None where one cannot be made;
    with, for each step made, whether it hit a blot."""
    opp, me = list(board[0]), list(board[1])
    hits: list[bool] = []
    for step in steps:
        src, dst = step
        if not step_shape_ok(step) or me[src - 1] == 0:
            return None, hits
        if dst != OFF:
            q = BAR - 1 - dst  # the same point in the opponent's numbering, as an index
            if opp[q] >= 2:
                return None, hits
            hit = opp[q] == 1
            if hit:
                opp[q] = 0
                opp[BAR - 1] += 1
            me[dst - 1] += 1
        else:
            hit = False
        me[src - 1] -= 1
        hits.append(hit)
    return (tuple(opp), tuple(me)), hits


def result_of(board: Board, steps: Sequence[Step]) -> tuple[Board | None, list[bool]]:
    """The board after `steps` made in the written order or, where that order cannot be made,
    in the first order that can (hits do not depend on which: a point with a blot holds no
    checker of the mover to leave from). The hit flags are in the written order."""
    after, hits = apply_in_order(board, steps)
    if after is not None or len(steps) < 2:
        return after, hits
    for order in itertools.permutations(range(len(steps))):
        after, hits_made = apply_in_order(board, [steps[i] for i in order])
        if after is not None:
            flags = [False] * len(steps)
            for i, h in zip(order, hits_made, strict=True):
                flags[i] = h
            return after, flags
    return None, apply_in_order(board, steps)[1]


@lru_cache(maxsize=1 << 16)
def legal_results(position_id: str, d1: int, d2: int) -> tuple[tuple[str, tuple[Step, ...]], ...]:
    """gnubg's legal plays of a roll: (key of the resulting board, one play leading there)."""
    board = board_of(position_id)
    out = gnubg_nn.moves([list(board[0]), list(board[1])], d1, d2, 1)
    return tuple((str(k), tuple((int(a), int(b)) for a, b in mv)) for k, mv in out)


@lru_cache(maxsize=1 << 16)
def legal_keys(position_id: str, d1: int, d2: int) -> frozenset[str]:
    return frozenset(k for k, _ in legal_results(position_id, d1, d2))


def gnu_legal(position_id: str, dice: tuple[int, int], steps: Sequence[Step]) -> bool:
    """GNU's verdict on a written play (dice 1-6) in the position before the turn."""
    d1, d2 = dice
    keys = legal_keys(position_id, d1, d2)
    if not steps:
        return not keys
    if not fits_dice(steps, dice):
        # A written play is one die per step: a legal end position reached with steps the
        # dice do not give (three steps for 6-4, a 5 for 4-2) is not a way to play the roll.
        return False
    after, _ = result_of(board_of(position_id), steps)
    return after is not None and key_of(after) in keys


def fits_dice(steps: Sequence[Step], dice: tuple[int, int]) -> bool:
    """Can each written step take dice of its own: one die of its distance, or several dice
    summing to it (a merged move such as 9/3 for three 2s), the last one possibly larger when
    it bears off?"""
    d1, d2 = dice
    free = [d1] * 4 if d1 == d2 else [d1, d2]

    def assign(i: int, left: list[int]) -> bool:
        if i == len(steps):
            return True
        src, dst = steps[i][0], steps[i][1]
        dist = src - dst
        for k in range(1, len(left) + 1):
            for combo in set(itertools.combinations(range(len(left)), k)):
                used = [left[j] for j in combo]
                total = sum(used)
                exact = total == dist
                over = dst == 0 and total > dist and total - max(used) < dist
                if (exact or over) and assign(
                    i + 1, [d for j, d in enumerate(left) if j not in combo]
                ):
                    return True
        return False

    return assign(0, free)
