"""A fixed-width text picture of a position, for error messages and debugging."""

from __future__ import annotations

from bgparse.rules.position import BAR, Position

__all__ = ["diagram"]

_HEIGHT = 5


def _cell(count: int, row: int, mark: str) -> str:
    # Rows count from the edge of the board; a stack taller than the picture shows its size
    # in the last row.
    if count > _HEIGHT and row == _HEIGHT - 1:
        return f"{count:>3}"
    return f"  {mark}" if count > row else "   "


def _half(points: list[int], pos: Position, *, top: bool) -> list[str]:
    lines = []
    rows = range(_HEIGHT) if top else range(_HEIGHT - 1, -1, -1)
    for row in rows:
        cells = []
        for p in points:
            mine, theirs = pos.mover[p], pos.opponent[25 - p]
            if mine > 0:
                cells.append(_cell(mine, row, "X"))
            elif theirs > 0:
                cells.append(_cell(theirs, row, "O"))
            else:
                cells.append("   ")
        left, right = "".join(cells[:6]), "".join(cells[6:])
        bar = "     "
        if row == _HEIGHT - 1:
            count = pos.opponent[BAR] if top else pos.mover[BAR]
            if count:
                bar = f" {'O' if top else 'X'}{count:<2} "
        lines.append(f" |{left} |{bar}|{right} |")
    return lines


def diagram(position: Position) -> str:
    """The board with the side on roll (X) at the bottom moving from 24 down to 1, O at the top.

    Point numbers are the mover's; a stack taller than five shows its count; bar checkers stand
    in the middle column, borne-off counts on the right."""
    pos = position
    top_points = list(range(13, 25))
    bottom_points = list(range(12, 0, -1))
    off_x, off_o = pos.off()
    pips_x, pips_o = pos.pips()
    labels_top = "".join(f"{p:>3}" for p in top_points)
    labels_bottom = "".join(f"{p:>3}" for p in bottom_points)
    rule = " +" + "-" * 19 + "+-----+" + "-" * 19 + "+"
    lines = [
        f"  {labels_top[:18]}   BAR  {labels_top[18:]}",
        rule,
        *_half(top_points, pos, top=True),
        " |" + " " * 19 + "|     |" + " " * 19 + "|",
        *_half(bottom_points, pos, top=False),
        rule,
        f"  {labels_bottom[:18]}   BAR  {labels_bottom[18:]}",
    ]
    lines[2] += f"   O off {off_o}, pips {pips_o}"
    lines[-3] += f"   X off {off_x}, pips {pips_x} (on roll)"
    return "\n".join(lines)
