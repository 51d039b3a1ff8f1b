"""Single-die steps: the Step type and `single_step`, the one reference of one step's legality."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from bgparse.rules.notation import segment_text
from bgparse.rules.position import BAR, OFF

__all__ = ["STEP_REASONS", "STEP_TABLE", "Step", "single_step"]


class Step(NamedTuple):
    """One die's step in the mover's numbering (25 = bar, 0 = off); `hit` if it hit a blot."""

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{segment_text(self.src, self.dst)}{'*' if self.hit else ''}"


#: Every Step, shared: STEP_TABLE[(src * 26 + dst) * 2 + hit] (the fast paths make one per
#: step of every play, and a look-up is cheaper than a new tuple).
STEP_TABLE: Final = tuple(
    Step(s, t, h) for s in range(26) for t in range(26) for h in (False, True)
)


#: The reasons `single_step` refuses a step (a subset of verification.REASONS).
STEP_REASONS: Final = (
    "no-checker",
    "bar-not-cleared",
    "blocked-point",
    "bear-off-not-home",
    "bear-off-not-highest",
)


def single_step(mover: Sequence[int], opponent: Sequence[int], src: int, die: int) -> Step | str:
    """One checker moved `die` pips from `src` now: the Step it makes, or why it may not.

    This is the rules' single statement of one step (RULES.md §2); every slow path (the plain
    generator, the verification search, "can anything move?") asks it, and the fast paths
    (plays.py's generators, verification's fast path and its typed twin in _speedups.pyx) are
    tested against it. `mover` holds the mover's counts (index 25 the bar), `opponent` the
    opposing checkers on the mover's points (opponent[p] is the opponent's point 25 - p), both
    before the step; `src` is 1-25 and `die` 1-6. In order:

    - a checker must stand on `src` ("no-checker");
    - while one is on the bar, only the bar moves ("bar-not-cleared");
    - a landing on a point is open unless two or more opposing checkers hold it
      ("blocked-point"); a lone one there is hit;
    - bearing off needs every checker home ("bear-off-not-home"), and a die larger than the
      point bears off only from the highest point the mover holds ("bear-off-not-highest");
      an exact die bears off from its point.
    """
    if mover[src] <= 0:
        return "no-checker"
    if src != BAR and mover[BAR]:
        return "bar-not-cleared"
    dst = src - die
    if dst > 0:
        here = opponent[dst]
        if here >= 2:
            return "blocked-point"
        # The shared Step, not a new one: a named tuple's generated __new__ runs interpreted
        # even where this module is compiled, and the generator asks for a step per point.
        return STEP_TABLE[(src * 26 + dst) * 2 + (here == 1)]
    if any(mover[7:]):
        return "bear-off-not-home"
    if dst < 0 and any(mover[src + 1 : 7]):
        return "bear-off-not-highest"
    return STEP_TABLE[(src * 26 + OFF) * 2]
