"""Boards that records dump as text (XG's `; Set Pos=` line, Snowie's 'Illegal play' fields),
decoded where the reader builds the event that carries them."""

from __future__ import annotations

from bgparse.rules.ids import IdError, decode_xgid_board
from bgparse.rules.position import PositionError

__all__ = ["snowie_board", "xg_set_pos"]

Boards = tuple[tuple[int, ...], tuple[int, ...]]


def xg_set_pos(text: str) -> Boards | None:
    """The boards of an XG `; Set Pos=<26-char board>/<cube>` line: side 0 (left column, the
    uppercase checkers, as bg-db found in real files) and side 1, each in its own numbering.
    None where the board does not read."""
    start = text.find("=")
    if start < 0:
        return None
    board = text[start + 1 :].split("/", 1)[0].strip()
    try:
        return decode_xgid_board(board)
    except (IdError, PositionError, ValueError):
        return None


def snowie_board(fields: tuple[str, ...]) -> Boards | None:
    """The board of a Snowie 40-field dump (formats.md §5.4), which shows the position for the
    player to roll NEXT (named first), with that player's next dice in fields 38-39. Fields
    13-36 are that player's points 1-24 (+ its checkers, - the opponent's), 37 its bar and 12
    the opponent's bar (checked on real dumps: both sides then hold 15 checkers). Returns
    (the next roller's board, its opponent's board), or None if the fields do not read."""
    if len(fields) < 38:
        return None
    try:
        vals = [int(f.strip() or 0) for f in fields[12:38]]
    except ValueError:
        return None
    mover = [0] * 26
    opponent = [0] * 26
    opponent[25] = abs(vals[0])
    mover[25] = abs(vals[25])
    for i in range(24):
        v = vals[1 + i]
        p = i + 1
        if v > 0:
            mover[p] = v
        elif v < 0:
            opponent[25 - p] = -v
    return tuple(mover), tuple(opponent)
