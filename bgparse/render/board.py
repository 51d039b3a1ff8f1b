"""The SVG picture of a position: one renderer every part of bgparse draws boards with.

The side on roll ("mover") sits at the bottom and moves from its 24 point down to its ace
point, home board bottom right, as in `bgparse.rules.diagram`. Every drawn checker carries
`data-side` (mover | opponent) and `data-point` (1-24 in the mover's numbering, `bar` or
`off`), so a page script or a test can find them; a stack taller than the picture draws its
first checkers and a `stack-count` label with the full count. The SVG has no ids, no
scripts and no external references, so any number of boards can sit in one HTML page.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bgparse.helpers.printable import printable
from bgparse.rules.position import BAR, OFF, Position

__all__ = ["Board", "CubeOwner", "board_svg"]

CubeOwner = Literal["centre", "mover", "opponent"]

# Geometry (SVG user units). The board's inner area is two rows of twelve points with the
# bar between the halves; the trays stand right of it, the cube left of it.
_R = 17  # checker radius
_PW = 40  # point width
_BAR_W = 50
_LEFT = 60  # inner board's left edge
_TOP = 50  # inner board's top edge
_HALF_H = 210  # height of one row of points
_POINT_H = 170
_BOTTOM = _TOP + 2 * _HALF_H
_BAR_X = _LEFT + 6 * _PW
_RIGHT = _BAR_X + _BAR_W + 6 * _PW
_TRAY_X = _RIGHT + 12
_TRAY_W = 44
_WIDTH = _TRAY_X + _TRAY_W + 14
_HEIGHT = _BOTTOM + 60
_MID = _TOP + _HALF_H
_SHOWN = 5  # checkers drawn on a point before the count label takes over
_BAR_SHOWN = 4
_OFF_H = 12  # height of a borne-off checker seen edge on

_MOVER_FILL = "#f3efe4"
_OPPONENT_FILL = "#2f2a26"
_INK = "#222222"


@dataclass(frozen=True, slots=True)
class Board:
    """What to draw beside the checkers. `score` and `names` are (mover, opponent);
    `match_length` 0 for money, None when unknown; `play` the single-die steps (src, dst) of
    a play in the mover's numbering (25 bar, 0 off), drawn as arrows."""

    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: CubeOwner = "centre"
    score: tuple[int, int] | None = None
    match_length: int | None = None
    names: tuple[str, str] = ("X", "O")
    play: tuple[tuple[int, int], ...] = ()
    title: str | None = None


def _column_x(point: int) -> float:
    """Centre x of a point (mover's numbering 1-24)."""
    column = point - 13 if point >= 13 else 12 - point
    x = _LEFT + column * _PW
    if column >= 6:
        x += _BAR_W
    return x + _PW / 2


def _is_top(point: int) -> bool:
    return point >= 13


def _sub(parent: ET.Element, tag: str, **attrs: object) -> ET.Element:
    return ET.SubElement(
        parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attrs.items()}
    )


def _text(parent: ET.Element, x: float, y: float, text: str, **attrs: object) -> ET.Element:
    el = _sub(parent, "text", x=f"{x:g}", y=f"{y:g}", **attrs)
    el.text = text
    return el


def _checker(parent: ET.Element, cx: float, cy: float, side: str, point: str, fill: str) -> None:
    _sub(
        parent,
        "circle",
        class_="checker",
        data_side=side,
        data_point=point,
        cx=f"{cx:g}",
        cy=f"{cy:g}",
        r=_R,
        fill=fill,
        stroke=_INK,
        stroke_width=1.2,
    )


def _count_label(
    parent: ET.Element, cx: float, cy: float, count: int, side: str, point: str, fill: str
) -> None:
    colour = _OPPONENT_FILL if fill == _MOVER_FILL else _MOVER_FILL
    _text(
        parent,
        cx,
        cy + 5,
        str(count),
        class_="stack-count",
        data_side=side,
        data_point=point,
        text_anchor="middle",
        font_size=15,
        font_weight="bold",
        fill=colour,
    )


def _points(svg: ET.Element) -> None:
    colours = ("#b5653a", "#e4cf9b")
    for point in range(1, 25):
        x = _column_x(point) - _PW / 2
        colour = colours[point % 2]
        if _is_top(point):
            pts = f"{x:g},{_TOP} {x + _PW:g},{_TOP} {x + _PW / 2:g},{_TOP + _POINT_H}"
            label_y = _TOP - 8
        else:
            pts = f"{x:g},{_BOTTOM} {x + _PW:g},{_BOTTOM} {x + _PW / 2:g},{_BOTTOM - _POINT_H}"
            label_y = _BOTTOM + 18
        _sub(svg, "polygon", class_="point", data_point=point, points=pts, fill=colour)
        _text(
            svg,
            x + _PW / 2,
            label_y,
            str(point),
            class_="point-number",
            text_anchor="middle",
            font_size=12,
            fill=_INK,
        )


def _stack(svg: ET.Element, point: int, count: int, side: str) -> None:
    fill = _MOVER_FILL if side == "mover" else _OPPONENT_FILL
    cx = _column_x(point)
    shown = min(count, _SHOWN)
    for k in range(shown):
        offset = _R + k * 2 * _R
        cy = _TOP + offset if _is_top(point) else _BOTTOM - offset
        _checker(svg, cx, cy, side, str(point), fill)
        if count > _SHOWN and k == shown - 1:
            _count_label(svg, cx, cy, count, side, str(point), fill)


def _bar(svg: ET.Element, count: int, side: str) -> None:
    fill = _MOVER_FILL if side == "mover" else _OPPONENT_FILL
    cx = _BAR_X + _BAR_W / 2
    shown = min(count, _BAR_SHOWN)
    for k in range(shown):
        # The mover enters from its bar into the opponent's home (top right); its bar
        # checkers wait in the lower half, the opponent's in the upper half.
        offset = 30 + _R + k * 2 * _R
        cy = _MID + offset if side == "mover" else _MID - offset
        _checker(svg, cx, cy, side, "bar", fill)
        if count > _BAR_SHOWN and k == shown - 1:
            _count_label(svg, cx, cy, count, side, "bar", fill)


def _tray(svg: ET.Element, count: int, side: str) -> None:
    fill = _MOVER_FILL if side == "mover" else _OPPONENT_FILL
    for k in range(count):
        y = _BOTTOM - 4 - (k + 1) * _OFF_H if side == "mover" else _TOP + 4 + k * _OFF_H
        _sub(
            svg,
            "rect",
            class_="checker",
            data_side=side,
            data_point="off",
            x=_TRAY_X + 4,
            y=y,
            width=_TRAY_W - 8,
            height=_OFF_H - 2,
            rx=3,
            fill=fill,
            stroke=_INK,
            stroke_width=1,
        )


_PIPS = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.2), (0.25, 0.5), (0.25, 0.8), (0.75, 0.2), (0.75, 0.5), (0.75, 0.8)),
}


def _dice(svg: ET.Element, dice: tuple[int, int]) -> None:
    size = 34
    # The mover's dice in the right half, as a player rolls them on their own right.
    x0 = _BAR_X + _BAR_W + 3 * _PW - size - 6
    for i, value in enumerate(dice):
        x = x0 + i * (size + 12)
        y = _MID - size / 2
        g = _sub(svg, "g", class_="die", data_value=value)
        _sub(g, "rect", x=x, y=f"{y:g}", width=size, height=size, rx=6, fill="#ffffff", stroke=_INK)
        for px, py in _PIPS.get(value, ()):
            _sub(
                g,
                "circle",
                class_="pip",
                cx=f"{x + px * size:g}",
                cy=f"{y + py * size:g}",
                r=3.6,
                fill=_INK,
            )
        if value not in _PIPS:  # a die the record got wrong still shows what it said
            _text(g, x + size / 2, y + size / 2 + 5, str(value), text_anchor="middle", font_size=14)


def _cube(svg: ET.Element, value: int, owner: CubeOwner) -> None:
    size = 38
    x = (_LEFT - size) / 2
    y = {"centre": _MID - size / 2, "opponent": _TOP + 4, "mover": _BOTTOM - size - 4}[owner]
    g = _sub(svg, "g", class_="cube", data_value=value, data_owner=owner)
    _sub(
        g,
        "rect",
        x=f"{x:g}",
        y=f"{y:g}",
        width=size,
        height=size,
        rx=5,
        fill="#fffdf5",
        stroke=_INK,
    )
    # A centred cube at 1 shows 64, as on a real board.
    shown = "64" if value == 1 and owner == "centre" else str(value)
    _text(
        g,
        x + size / 2,
        y + size / 2 + 6,
        shown,
        text_anchor="middle",
        font_size=16 if len(shown) < 3 else 12,
        font_weight="bold",
        fill=_INK,
    )


def _anchor(point: int, lane: int) -> tuple[float, float]:
    """Where an arrow starts or ends at a step's point (mover's numbering); steps alternate
    between two depths so that arrows along the same points stay apart."""
    if point == BAR:
        return _BAR_X + _BAR_W / 2, _MID + 40
    if point <= OFF:
        return _TRAY_X + _TRAY_W / 2, _BOTTOM - 60
    depth = (2.5 + 2 * lane) * _R
    return _column_x(point), _TOP + depth if _is_top(point) else _BOTTOM - depth


def _arrows(svg: ET.Element, steps: Sequence[tuple[int, int]]) -> None:
    for i, (src, dst) in enumerate(steps):
        x1, y1 = _anchor(src, i % 2)
        x2, y2 = _anchor(dst, i % 2)
        g = _sub(
            svg,
            "g",
            class_="arrow",
            data_from="bar" if src == BAR else str(src),
            data_to="off" if dst <= OFF else str(dst),
        )
        dx, dy = x2 - x1, y2 - y1
        length = max((dx * dx + dy * dy) ** 0.5, 1.0)
        ux, uy = dx / length, dy / length
        # Stop short of the centre so the head does not hide the checker's point.
        hx, hy = x2 - ux * 4, y2 - uy * 4
        bx, by = hx - ux * 12, hy - uy * 12
        _sub(
            g,
            "line",
            x1=f"{x1:.1f}",
            y1=f"{y1:.1f}",
            x2=f"{bx:.1f}",
            y2=f"{by:.1f}",
            stroke="#1f5fbf",
            stroke_width=3,
            stroke_opacity=0.85,
        )
        left = (bx - uy * 6, by + ux * 6)
        right = (bx + uy * 6, by - ux * 6)
        _sub(
            g,
            "polygon",
            points=f"{hx:.1f},{hy:.1f} {left[0]:.1f},{left[1]:.1f} {right[0]:.1f},{right[1]:.1f}",
            fill="#1f5fbf",
            fill_opacity=0.85,
        )


def _side_line(name: str, pips: int, score: int | None) -> str:
    parts = [name, f"pips {pips}"]
    if score is not None:
        parts.append(f"score {score}")
    return ", ".join(parts)


def board_svg(position: Position, board: Board | None = None) -> str:
    """The SVG document (no XML declaration, ready to inline in HTML) of `position` with the
    dice, cube, score and play of `board`. Counts that no real board has (negative, more
    than fifteen) are drawn as far as they can be: the picture never raises."""
    b = board or Board()
    # Names and titles come from records: XML allows no control character but tab and line
    # ends, so they are shown (`bgparse.helpers.printable`), or the file would not open.
    b = replace(
        b,
        names=(printable(b.names[0]), printable(b.names[1])),
        title=printable(b.title) if b.title is not None else None,
    )
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {_WIDTH} {_HEIGHT}",
            "width": str(_WIDTH),
            "height": str(_HEIGHT),
            "class": "bg-board",
            "role": "img",
            "font-family": "sans-serif",
        },
    )
    title = ET.SubElement(svg, "title")
    title.text = b.title or "backgammon position"
    _sub(svg, "rect", x=0, y=0, width=_WIDTH, height=_HEIGHT, fill="#ffffff")
    _sub(
        svg,
        "rect",
        x=_LEFT - 6,
        y=_TOP - 4,
        width=_RIGHT - _LEFT + 12,
        height=_BOTTOM - _TOP + 8,
        fill="#6b4a2b",
    )
    _sub(svg, "rect", x=_LEFT, y=_TOP, width=_RIGHT - _LEFT, height=_BOTTOM - _TOP, fill="#f6ead0")
    _sub(svg, "rect", x=_BAR_X, y=_TOP - 4, width=_BAR_W, height=_BOTTOM - _TOP + 8, fill="#6b4a2b")
    for y in (_TOP - 4, _MID + 2):
        _sub(
            svg,
            "rect",
            class_="tray",
            x=_TRAY_X,
            y=y,
            width=_TRAY_W,
            height=_HALF_H + 2,
            fill="#6b4a2b",
        )
    _points(svg)

    mover = [max(c, 0) for c in position.mover]
    opponent = [max(c, 0) for c in position.opponent]
    for point in range(1, 25):
        if mover[point]:
            _stack(svg, point, mover[point], "mover")
        their = opponent[25 - point]
        if their:
            _stack(svg, point, their, "opponent")
    _bar(svg, mover[BAR], "mover")
    _bar(svg, opponent[BAR], "opponent")
    off_mover, off_opponent = position.off()
    _tray(svg, max(min(off_mover, position.checkers), 0), "mover")
    _tray(svg, max(min(off_opponent, position.checkers), 0), "opponent")

    _cube(svg, b.cube, b.cube_owner)
    if b.dice is not None:
        _dice(svg, b.dice)
    if b.play:
        _arrows(svg, b.play)

    pips_mover, pips_opponent = position.pips()
    score_m, score_o = b.score if b.score is not None else (None, None)
    top = _side_line(b.names[1], pips_opponent, score_o)
    bottom = _side_line(b.names[0], pips_mover, score_m) + " (on roll)"
    _text(svg, _LEFT, 18, top, class_="side-opponent", font_size=14, fill=_INK)
    _text(svg, _LEFT, _HEIGHT - 12, bottom, class_="side-mover", font_size=14, fill=_INK)
    if b.match_length is not None:
        what = "money game" if b.match_length == 0 else f"{b.match_length}-point match"
        _text(
            svg,
            _RIGHT,
            18,
            what,
            class_="match-length",
            text_anchor="end",
            font_size=14,
            fill=_INK,
        )
    return ET.tostring(svg, encoding="unicode")
