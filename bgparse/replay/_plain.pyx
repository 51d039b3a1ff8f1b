# cython: language_level=3
"""The replay's plain roll in typed C, compiled by setup.py where it can: a roll whose play is
written as single-die steps that use every die, legal in the order written, with nothing to
report (the turn order kept, no double pending, the hits starred as made), or a dance (no play
written, a checker on the bar that neither die enters). Nineteen rolls in twenty of a real
record are one or the other. `plays.roll` stays the reference and does everything else:
`plain_play` answers False, having changed nothing the reference would not change the same
way, and the replay hands the roll to it. tests/test_plain_lane.py holds replays with and
without this lane identical on every corpus folder, generated matches and fuzz mutants.

What it saves is the way through the reference, not the board work (`_speedups.play_steps`
does that for both) nor the game's state (`Game.board`, `Game.roll` and `Game.moved` change
it for both): the turn-order and cube checks as verdict tuples, the check's chain of calls
down to the board work and its `PlayCheck`, a dance's legal plays generated to find none,
and the stored turn's row built field by field."""

cimport cython
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_SET_ITEM
from cpython.object cimport PyTypeObject

cdef extern from "Python.h":
    # The allocation a tuple subclass's instance gets (its type's tp_alloc, inherited).
    object _generic_alloc "PyType_GenericAlloc" (PyTypeObject *type, Py_ssize_t nitems)

from bgparse.helpers._slots cimport slot_fill, slot_get, slot_offset
from bgparse.replay.state cimport GameState
from bgparse.rules.game cimport Game
from bgparse.replay.turns cimport GameRows
from bgparse.rules._speedups cimport _play_steps, board_summary, match_id_text, play_key

from bgparse.model.events import Move, Roll, Span
from bgparse.rules.cube import CubeState
from bgparse.rules.position import Position
from bgparse.rules.steps import STEP_TABLE
from bgparse.replay.turns import _PLAY_INFO, play_info, written_play
from bgparse.model.verified import Turn

cdef dict _play_infos = _PLAY_INFO
cdef tuple _steps = STEP_TABLE

# The fields read and filled here, at their offsets (bgparse/helpers/_slots.pxd): of a Roll, exactly.
cdef Py_ssize_t _R_SIDE = slot_offset(Roll, "side")
cdef Py_ssize_t _R_DICE = slot_offset(Roll, "dice")
cdef Py_ssize_t _R_MOVES = slot_offset(Roll, "moves")
cdef Py_ssize_t _R_SPAN = slot_offset(Roll, "span")
cdef Py_ssize_t _R_TEXT = slot_offset(Roll, "text")
cdef Py_ssize_t _M_POINTS = slot_offset(Move, "points")
cdef Py_ssize_t _P_MOVER = slot_offset(Position, "mover")
cdef Py_ssize_t _P_OPPONENT = slot_offset(Position, "opponent")
cdef Py_ssize_t _P_CHECKERS = slot_offset(Position, "checkers")
cdef Py_ssize_t _P_CHECKED = slot_offset(Position, "_checked")
cdef Py_ssize_t _C_VALUE = slot_offset(CubeState, "value")
cdef Py_ssize_t _C_OWNER = slot_offset(CubeState, "owner")
cdef Py_ssize_t _C_PENDING = slot_offset(CubeState, "pending")
if Position.__slots__ != ("mover", "opponent", "checkers", "_checked"):
    raise ImportError("Position has other fields than _plain.pyx fills")


def plain_play(GameState g not None, object a):
    """Replay roll `a` of the game `g` (the replay's GameState) where it is a plain one, as
    `plays.roll` would: True when done, False for "not this case" (nothing changed that
    matters: at most the board turned to the roller's view, as `Game.board` turns it)."""
    cdef int side, d1, d2
    cdef Game game
    cdef GameRows rows
    if type(a) is not Roll:
        return False
    game = g.game
    if game.over or not game.board_known:
        return False
    who = slot_get(a, _R_SIDE)
    if type(who) is not int or (who != 0 and who != 1):
        return False
    side = who
    last = game.last_roller
    if last is not None and last == side:
        return False  # the turn order broken: P006
    cube = game.cube
    if type(cube) is not CubeState or slot_get(cube, _C_PENDING) is not None:
        return False  # a double or beaver to settle first
    dice = slot_get(a, _R_DICE)
    if type(dice) is not tuple or len(dice) != 2:
        return False
    x = (<tuple>dice)[0]
    y = (<tuple>dice)[1]
    if type(x) is not int or type(y) is not int or not (1 <= x <= 6 and 1 <= y <= 6):
        return False
    d1 = x
    d2 = y
    if last is None and d1 == d2 and game.rules.variant == "standard":
        return False  # a double as the opening roll
    moves = slot_get(a, _R_MOVES)
    if type(moves) is not tuple:
        return False
    for m in <tuple>moves:
        points = slot_get(m, _M_POINTS) if type(m) is Move else m.points
        if points[0] == 0 and points == (0, 0):
            return False  # '0/0' for a die not played: N003
    pos = game.board(side)  # the board from the roller's view
    if type(pos) is not Position or slot_get(pos, _P_CHECKED) is not True:
        return False
    mover = slot_get(pos, _P_MOVER)
    opponent = slot_get(pos, _P_OPPONENT)
    if moves:
        done = _play_steps(mover, opponent, d1, d2, moves, _steps, False)
        if done is None or (<tuple>done)[3]:
            return False  # not steps using every die in order, or a star written wrong
        steps = (<tuple>done)[2]
        after = _after((<tuple>done)[0], (<tuple>done)[1], slot_get(pos, _P_CHECKERS))
        kind = "play"
    elif _dances(mover, opponent, d1, d2):
        # No play written, and none possible: a checker on the bar that no die enters.
        steps = ()
        after = _after(opponent, mover, slot_get(pos, _P_CHECKERS))
        kind = "dance"
    else:
        return False  # no play written where one may be possible: the reference judges it
    rows = g.rows
    keep = rows.keep
    summary = None
    if keep:
        summary = board_summary(opponent, mover)
        if summary is None:
            return False
    # Legal: the state changes as the reference changes it (Game.roll, the counts, the row,
    # Game.moved). The checks above are Game.roll's own: it has no verdict to give here.
    if game.roll(side, dice):
        raise AssertionError(f"plain_play let through a roll Game.roll judges: {dice}")
    g.plays += 1
    if kind == "dance":
        g.dances += 1
    if keep:
        _row(rows, game, side, kind, a, dice, steps, <tuple>summary)
    else:
        rows.n_turns += 1
    game.moved(side, after)
    return True


cdef bint _dances(object mover, object opponent, int d1, int d2):
    """Whether the roller can move nothing because a checker of its own is on the bar (25)
    and both dice's entry points hold two or more of the opponent's (its points d1 and d2 in
    its own numbering): `verification._can_move`'s answer in that case."""
    if type(mover) is not tuple or type(opponent) is not tuple:
        return False
    if len(<tuple>mover) != 26 or len(<tuple>opponent) != 26:
        return False
    if not (<tuple>mover)[25] > 0:
        return False
    return (<tuple>opponent)[d1] >= 2 and (<tuple>opponent)[d2] >= 2


cdef object _after(object mover, object opponent, object checkers):
    """The board after the roll, the other side on roll (`mover`), as `Position._make` makes
    it (and `_speedups.verify_fast`): its fields stored in C, the frozen dataclass's setattr
    gone round, which costs four calls of `object.__setattr__` in Python."""
    after = _generic_alloc(<PyTypeObject *>Position, 0)  # as object.__new__(Position) does
    slot_fill(after, _P_MOVER, mover)
    slot_fill(after, _P_OPPONENT, opponent)
    slot_fill(after, _P_CHECKERS, checkers)
    slot_fill(after, _P_CHECKED, True)
    return after


cdef inline void _put(object out, Py_ssize_t i, object value):
    Py_INCREF(value)
    PyTuple_SET_ITEM(out, i, value)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef _row(GameRows rows, Game game, int side, str kind, object a, tuple dice, tuple steps,
          tuple summary):
    """`GameRows.turn` for a legal play or dance (the board before it, the game's cube)."""
    rows.n_turns += 1
    c = game.cube  # a CubeState (plain_play checked)
    value = slot_get(c, _C_VALUE)
    owner = slot_get(c, _C_OWNER)
    if owner is None or (owner != 0 and owner != 1):
        owner = -1
    raw = rows.match_keys.get((value, owner, side, side, False))
    if raw is None:
        raw = rows.match_key(game, value, owner, side, side, False)
    mid = match_id_text(raw, dice) if raw else ""
    aways = rows.aways
    if aways is None:
        aways = rows.aways = (game.away(0), game.away(1))
    # play_info's cache looked up here (`GameRows.turn` does the same): a call less a turn.
    key = play_key(steps)
    info = _play_infos.get(key) if key is not None else None
    if info is None:
        info = play_info(steps)
    written = slot_get(a, _R_TEXT)
    if not written:
        written = written_play(a)
    span = slot_get(a, _R_SPAN)
    if type(span) is Span:
        line = (<tuple>span)[0]
        column = (<tuple>span)[1]
    else:
        line = span.line
        column = span.column
    pips = (summary[1], summary[2])
    # The Turn made as tuple.__new__(Turn, fields) makes it (allocated by its type, the
    # fields stored in order), without the tuple of fields in between.
    cdef object out = _generic_alloc(<PyTypeObject *>Turn, 22)
    _put(out, 0, rows.number)
    _put(out, 1, rows.n_turns - 1)
    _put(out, 2, side)
    _put(out, 3, kind)
    _put(out, 4, line)
    _put(out, 5, column)
    _put(out, 6, summary[0])
    _put(out, 7, mid)
    _put(out, 8, dice)
    _put(out, 9, steps)
    _put(out, 10, (<tuple>info)[0])
    _put(out, 11, written)
    _put(out, 12, (<tuple>info)[1])
    _put(out, 13, pips)
    _put(out, 14, value)
    _put(out, 15, owner)
    _put(out, 16, True)
    _put(out, 17, None)
    _put(out, 18, game.score)
    _put(out, 19, (<tuple>aways)[side])
    _put(out, 20, game.crawford)
    _put(out, 21, summary[3])
    rows.turns.append(out)
