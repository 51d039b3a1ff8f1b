# cython: language_level=3
"""The store's two loops over every turn of a match, in typed C: a game's turns as the lines
of the match's canonical content (`rows.turn_lines_python`, the reference) and as the rows of
the turns table (`rows._turn_rows_python`, the reference). setup.py compiles this module where
it can; without it the references do the work. Both answer None for anything but the shapes
the replay makes (a turn a 22-field tuple, sides 0 and 1, ASCII texts, dice of one digit),
and the reference then does the whole game: tests/store/test_rows_typed.py holds the two to
the same answers on the corpus and on turns made odd on purpose."""

cimport cython
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_Resize
from cpython.dict cimport PyDict_GetItem
from cpython.list cimport PyList_Append
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.object cimport PyObject, PyObject_IsTrue, PyObject_RichCompare, Py_EQ
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_DecodeASCII
from libc.string cimport memcpy


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object text)
    void *PyUnicode_DATA(object text)
    Py_ssize_t PyUnicode_GET_LENGTH(object text)


# Fields of a Turn (bgparse.model.verified.Turn) by position, and the characters written.
cdef enum:
    _SIDE = 2
    _KIND = 3
    _PID = 6
    _DICE = 8
    _FIELDS = 22
    _TAB = 9
    _NEWLINE = 10
    _ZERO = 48


cdef inline object _field(object turn, Py_ssize_t i):
    return <object>PyTuple_GET_ITEM(turn, i)


cdef inline bint _ascii(object text):
    return type(text) is str and PyUnicode_IS_ASCII(text)


cdef inline int _digit(object value):
    """A one-digit int's value, else -1."""
    cdef int overflow = 0
    cdef long v
    if type(value) is not int:
        return -1
    v = PyLong_AsLongAndOverflow(value, &overflow)
    if overflow or v < 0 or v > 9:
        return -1
    return <int>v


def turn_lines(object turns):
    """`rows.turn_lines_python(turns)`: per turn "side<TAB>kind<TAB>roll<TAB>Position ID",
    joined by newlines, the roll the higher die first ("" without dice); None where a turn is
    not of the usual shape."""
    cdef Py_ssize_t n, i, size = 0, at = 0, lk, lp
    cdef int side, a, b
    cdef char *out
    if type(turns) is not tuple:
        return None
    n = PyTuple_GET_SIZE(turns)
    if n == 0:
        return ""
    # First pass: check every turn and size the text.
    for i in range(n):
        t = <object>PyTuple_GET_ITEM(turns, i)
        if not isinstance(t, tuple) or PyTuple_GET_SIZE(t) != _FIELDS:
            return None
        if _digit(_field(t, _SIDE)) < 0:
            return None
        kind = _field(t, _KIND)
        pid = _field(t, _PID)
        if not _ascii(kind) or not _ascii(pid):
            return None
        dice = _field(t, _DICE)
        if dice is not None:
            if type(dice) is not tuple or PyTuple_GET_SIZE(dice) != 2:
                return None
            if _digit(_field(dice, 0)) < 0 or _digit(_field(dice, 1)) < 0:
                return None
            size += 2
        # side, three tabs and a newline (none after the last line), the texts.
        size += 5 + PyUnicode_GET_LENGTH(kind) + PyUnicode_GET_LENGTH(pid)
    buf = bytearray(size)
    out = PyByteArray_AS_STRING(buf)
    for i in range(n):
        t = <object>PyTuple_GET_ITEM(turns, i)
        if i:
            out[at] = _NEWLINE
            at += 1
        out[at] = <char>(_ZERO + <int>_field(t, _SIDE))
        out[at + 1] = _TAB
        at += 2
        kind = _field(t, _KIND)
        lk = PyUnicode_GET_LENGTH(kind)
        memcpy(out + at, PyUnicode_DATA(kind), lk)
        at += lk
        out[at] = _TAB
        at += 1
        dice = _field(t, _DICE)
        if dice is not None:
            a = <int>_field(dice, 0)
            b = <int>_field(dice, 1)
            out[at] = <char>(_ZERO + (a if a > b else b))
            out[at + 1] = <char>(_ZERO + (b if a > b else a))
            at += 2
        out[at] = _TAB
        at += 1
        pid = _field(t, _PID)
        lp = PyUnicode_GET_LENGTH(pid)
        memcpy(out + at, PyUnicode_DATA(pid), lp)
        at += lp
    return PyUnicode_DecodeASCII(out, at, NULL)


cdef inline object _or_none(object value):
    return value if PyObject_IsTrue(value) else None


# `texts` (the roll texts by dice) as a table by die1 * 7 + die2 for dice of 1 to 6, made from
# the last dictionary given: looking a pair up there hashes a tuple per turn.
cdef object _table_of = None
cdef tuple _table = None


cdef tuple _texts_table(dict texts):
    global _table_of, _table
    if texts is not _table_of:
        _table = tuple(texts.get((a, b)) for a in range(7) for b in range(7))
        _table_of = texts
    return _table


@cython.boundscheck(False)
@cython.wraparound(False)
def turn_rows(object turns, list lists, object uid, object number, dict texts,
              object roll_text, object roll_kinds):
    """`rows._turn_rows_python`: a game's turns appended to the turns table's column lists
    (`lists`, in the schema's order); returns (each turn's move number, each turn's rolls
    before it, the game's rolls), or None, having appended nothing, where a turn is not of
    the usual shape. `texts` is the roll texts by dice, `roll_text` their function for dice
    not in it, `roll_kinds` the kinds that roll."""
    cdef Py_ssize_t n, i
    cdef int s, before = 0, mover_move
    cdef int moves[2]
    cdef list move_no = [], rolls_before = []
    cdef PyObject *text
    if type(turns) is not tuple or len(lists) != 31:
        return None
    for c in lists:
        if type(c) is not list:
            return None
    n = PyTuple_GET_SIZE(turns)
    for i in range(n):
        t = <object>PyTuple_GET_ITEM(turns, i)
        if not isinstance(t, tuple) or PyTuple_GET_SIZE(t) != _FIELDS:
            return None
        side = _field(t, _SIDE)
        if type(side) is not int or (side != 0 and side != 1):
            return None
        d = _field(t, _DICE)
        if d is not None and (type(d) is not tuple or PyTuple_GET_SIZE(d) != 2):
            return None
        pips = _field(t, 13)
        score = _field(t, 18)
        if type(pips) is not tuple or PyTuple_GET_SIZE(pips) != 2:
            return None
        if type(score) is not tuple or PyTuple_GET_SIZE(score) != 2:
            return None
        away = _field(t, 19)
        if away is not None and (type(away) is not tuple or PyTuple_GET_SIZE(away) != 2):
            return None
    # The column lists typed: list.append compiles to its fast path (an item stored where the
    # list has room), where PyList_Append is a call into the interpreter per field.
    cdef list c_uid = lists[0], c_game = lists[1], c_ply = lists[2], c_side = lists[3]
    cdef list c_kind = lists[4], c_move_no = lists[5], c_rolls_before = lists[6]
    cdef list c_pid = lists[7], c_mid = lists[8], c_die1 = lists[9], c_die2 = lists[10]
    cdef list c_roll = lists[11], c_doublet = lists[12], c_play = lists[13]
    cdef list c_written = lists[14], c_steps = lists[15], c_hits = lists[16]
    cdef list c_pips_mover = lists[17], c_pips_opponent = lists[18], c_race = lists[19]
    cdef list c_cube_value = lists[20], c_cube_owner = lists[21], c_score_mover = lists[22]
    cdef list c_score_opponent = lists[23], c_away_mover = lists[24]
    cdef list c_away_opponent = lists[25], c_crawford = lists[26], c_legal = lists[27]
    cdef list c_n_legal = lists[28], c_line = lists[29], c_column = lists[30]
    cdef tuple table = _texts_table(texts)
    cdef int a, b
    moves[0] = 0
    moves[1] = 0
    for i in range(n):
        t = <object>PyTuple_GET_ITEM(turns, i)
        s = <int>_field(t, _SIDE)
        k = _field(t, _KIND)
        mover_move = moves[s] + 1
        move_no.append(mover_move)
        rolls_before.append(before)
        c_move_no.append(mover_move)
        c_rolls_before.append(before)
        d = _field(t, _DICE)
        if d is not None:
            if k in roll_kinds:
                moves[s] = mover_move
                before += 1
            d0 = _field(d, 0)
            d1 = _field(d, 1)
            c_die1.append(d0)
            c_die2.append(d1)
            a = _digit(d0)
            b = _digit(d1)
            text = NULL
            if 1 <= a <= 6 and 1 <= b <= 6:
                entry = <object>PyTuple_GET_ITEM(table, a * 7 + b)
                if entry is not None:
                    text = <PyObject *>entry
            if text is NULL:
                text = PyDict_GetItem(texts, d)
            c_roll.append(<object>text if text is not NULL else roll_text(d))
            c_doublet.append(PyObject_RichCompare(d0, d1, Py_EQ))
        else:
            c_die1.append(None)
            c_die2.append(None)
            c_roll.append(None)
            c_doublet.append(None)
        c_uid.append(uid)
        c_game.append(number)
        c_ply.append(_field(t, 1))
        c_side.append(_field(t, _SIDE))
        c_kind.append(k)
        c_pid.append(_or_none(_field(t, _PID)))
        c_mid.append(_or_none(_field(t, 7)))
        c_play.append(_or_none(_field(t, 10)))
        c_written.append(_or_none(_field(t, 11)))
        c_steps.append(_field(t, 9) if k == "play" else None)
        c_hits.append(_field(t, 12))
        pips = _field(t, 13)
        c_pips_mover.append(_field(pips, 0))
        c_pips_opponent.append(_field(pips, 1))
        c_race.append(_field(t, 21))
        c_cube_value.append(_field(t, 14))
        c_cube_owner.append(_field(t, 15))
        score = _field(t, 18)
        c_score_mover.append(_field(score, s))
        c_score_opponent.append(_field(score, 1 - s))
        away = _field(t, 19)
        if away is not None and PyObject_IsTrue(away):
            c_away_mover.append(_field(away, 0))
            c_away_opponent.append(_field(away, 1))
        else:
            c_away_mover.append(None)
            c_away_opponent.append(None)
        c_crawford.append(_field(t, 20))
        c_legal.append(_field(t, 16))
        c_n_legal.append(_field(t, 17))
        c_line.append(_field(t, 4))
        c_column.append(_field(t, 5))
    return move_no, rolls_before, before
