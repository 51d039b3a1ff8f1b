"""Single-die steps: the Step type and the legality of one step on a board."""

from __future__ import annotations

from typing import NamedTuple

from bgparse.rules.notation import segment_text
from bgparse.rules.position import BAR

__all__ = ["Step"]


class Step(NamedTuple):
    """One die's step in the mover's numbering (25 = bar, 0 = off); `hit` if it hit a blot."""

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{segment_text(self.src, self.dst)}{'*' if self.hit else ''}"


def _step_problem(mv: list[int], o: list[int], s: int, t: int) -> str | None:
    """Why the single step s -> t (t <= 0 bears off) may not be made now, or None."""
    if mv[s] <= 0:
        return "no-checker"
    if s != BAR and mv[BAR]:
        return "bar-not-cleared"
    if t > 0:
        if o[t] >= 2:
            return "blocked-point"
        return None
    if any(mv[7:]):
        return "bear-off-not-home"
    if t < 0 and any(mv[s + 1 : 7]):
        return "bear-off-not-highest"
    return None
