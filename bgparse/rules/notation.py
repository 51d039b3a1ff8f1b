"""Play notation: the bar and off spellings, writing a play (`format_play`) and reading one
(`parse_play`) as move groups."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from bgparse.helpers.errors import RulesError
from bgparse.rules.position import BAR, OFF

__all__ = [
    "BAR_WORD",
    "OFF_WORD",
    "MoveLike",
    "PlayError",
    "WrittenMove",
    "format_play",
    "parse_play",
    "point_text",
    "segment_text",
]

#: How the bar (point 25) and bearing off (point 0) are written; read in any case.
BAR_WORD: Final = "bar"
OFF_WORD: Final = "off"


def point_text(point: int) -> str:
    """A point as notation writes it: `bar` for 25 (only ever a source), `off` for 0 (only
    ever a destination), the number otherwise."""
    return BAR_WORD if point == BAR else OFF_WORD if point == OFF else str(point)


def segment_text(src: int, dst: int) -> str:
    """One written move without its hit star: `bar/22`, `6/off`, `13/7`."""
    return f"{point_text(src)}/{point_text(dst)}"


class PlayError(RulesError):
    """A play given in a shape verify_play cannot read (not an illegal play: see PlayCheck)."""


@runtime_checkable
class MoveLike(Protocol):
    """A written move group as the readers produce it (bgparse.model.events.Move has this shape):
    `points` such as (13, 7, 4) (25 = bar, 0 = off), one hit star flag per point, and the
    repeat count of `(n)`."""

    @property
    def points(self) -> tuple[int, ...]: ...

    @property
    def hits(self) -> tuple[bool, ...]: ...

    @property
    def count(self) -> int: ...


def format_play(steps: Iterable[tuple[int, int, bool]]) -> str:
    """Standard notation: a checker's steps merged unless it hit on the way (`13/10*/4`),
    bar/off spelled out, repeats as `(n)`, highest source first; '' for no move."""
    chains: list[list[tuple[int, bool]]] = []
    for src, dst, hit in steps:
        for chain in reversed(chains):
            if chain[-1][0] == src and src != OFF:
                chain.append((dst, hit))
                break
        else:
            chains.append([(src, False), (dst, hit)])
    texts: list[tuple[int, int, str]] = []
    for chain in chains:
        parts = [point_text(chain[0][0])]
        last = len(chain) - 1
        for i, (point, hit) in enumerate(chain[1:], start=1):
            if i < last and not hit:
                continue
            parts.append(point_text(point) + ("*" if hit else ""))
        texts.append((chain[0][0], chain[-1][0], "/".join(parts)))
    texts.sort(key=lambda item: (-item[0], -item[1]))
    out: list[str] = []
    i = 0
    while i < len(texts):
        j = i
        while j + 1 < len(texts) and texts[j + 1][2] == texts[i][2]:
            j += 1
        out.append(texts[i][2] + (f"({j - i + 1})" if j > i else ""))
        i = j + 1
    return " ".join(out)


_POINT = rf"(?:{BAR_WORD}|{OFF_WORD}|\d+)\*?"
_TOKEN = re.compile(
    rf"^(?P<chain>{_POINT}(?:/{_POINT})+)(?P<star>\*)?(?:\((?P<count>\d+)\))?(?P<star2>\*)?$",
    re.IGNORECASE,
)
_WORDS: Final = {BAR_WORD: BAR, OFF_WORD: OFF}


@dataclass(frozen=True, slots=True)
class WrittenMove:
    """One move group read by parse_play (the same shape as bgparse.model.events.Move)."""

    points: tuple[int, ...]
    hits: tuple[bool, ...]
    count: int = 1


def parse_play(text: str) -> tuple[WrittenMove, ...]:
    """Read standard notation (`24/18 13/10*/4`, `bar/22`, `6/off(2)`, `8/4*(2)`, `25/20 6/0`)
    into move groups with `points`, `hits` and `count`; '' is the empty play."""
    groups = []
    for token in text.replace(",", " ").split():
        m = _TOKEN.match(token)
        if not m:
            raise PlayError(f"cannot read move {token!r} in {text!r}")
        points: list[int] = []
        hits: list[bool] = []
        for i, part in enumerate(m.group("chain").split("/")):
            word = part.rstrip("*").lower()
            points.append(_WORDS[word] if word in _WORDS else int(word))
            hits.append(part.endswith("*") and i > 0)
        if m.group("star") or m.group("star2"):
            hits[-1] = True
        groups.append(WrittenMove(tuple(points), tuple(hits), int(m.group("count") or 1)))
    return tuple(groups)
