# cython: language_level=3, boundscheck=False, wraparound=False
"""Typed C version of the `.mat` reader's per-cell work (`_GameReader.build`'s loop), compiled
by setup.py where it can. The pure-Python loop in readers/mat.py stays the reference and the
fallback: tests/test_mat_cells.py checks that both read the same events, and bgparse uses the
Python loop wherever this module is not built (or BGPARSE_PURE_PYTHON=1).

It splits a row into cells itself for the three cells nearly every row is made of (a roll, a
row number, the end of the line), reading the grammar's ROLL and ROWNO patterns character by
character, and hands every other position to the reader's own regular expression, so the cells
are those `_split_row` finds. Rolls, spans and their objects are built without the interpreter.
"""

from cpython.object cimport PyObject, PyTypeObject
from cpython.dict cimport PyDict_GetItemWithError, PyDict_SetItem
from cpython.ref cimport Py_INCREF
from cpython.set cimport PySet_Add
from cpython.tuple cimport PyTuple_SET_ITEM
from libc.string cimport memchr
from cpython.unicode cimport (
    Py_UNICODE_ISDECIMAL,
    PyUnicode_1BYTE_KIND,
    PyUnicode_DATA,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
    PyUnicode_READ,
    PyUnicode_Substring,
)

from bgparse.helpers._slots cimport slot_fill, slot_offset

from bgparse.model.events import Roll, Span

#: The group numbers of mat.py's cell regex this reads cells as.
GROUPS = {"ROLL": 1, "ROWNO": 2, "END": 3}


cdef extern from "Python.h":
    # A new, empty instance (slots or items NULL, tracked by the collector), as object.__new__
    # and tuple.__new__ start theirs.
    object _alloc "PyType_GenericAlloc"(PyTypeObject *cls, Py_ssize_t items)
    void PyObject_GC_UnTrack(void *op)


# The group numbers of mat.py's cell regex (mat checks they agree before it uses this).
cdef enum:
    ROLL = 1
    ROWNO = 2
    END = 3


cdef PyTypeObject *_ROLL = <PyTypeObject *> Roll
cdef PyTypeObject *_SPAN = <PyTypeObject *> Span
cdef Py_ssize_t _SIDE = slot_offset(Roll, "side")
cdef Py_ssize_t _DICE = slot_offset(Roll, "dice")
cdef Py_ssize_t _MOVES = slot_offset(Roll, "moves")
cdef Py_ssize_t _SPAN_AT = slot_offset(Roll, "span")
cdef Py_ssize_t _TEXT = slot_offset(Roll, "text")
if Roll.__slots__ != ("side", "dice", "moves", "span", "text"):
    raise ImportError("Roll has other fields than _cells.pyx fills")
if Span._fields != ("line", "column", "length"):
    raise ImportError("Span has other fields than _cells.pyx fills")

#: The roll cells read (`_read_roll_cell`'s values by cell text): a plain dict, as an LRU cache's
#: bookkeeping on every hit cost as much as the look-up; emptied when it holds `_MAX_CELLS`.
cdef dict _roll_cells = {}
cdef Py_ssize_t _MAX_CELLS = 1 << 16


cdef inline object _roll(object side, object dice, object moves, object span, object text):
    """`Roll(side, dice, moves, span, text)`, as `events.make_roll` builds it."""
    roll = _alloc(_ROLL, 0)
    slot_fill(roll, _SIDE, side)
    slot_fill(roll, _DICE, dice)
    slot_fill(roll, _MOVES, moves)
    slot_fill(roll, _SPAN_AT, span)
    slot_fill(roll, _TEXT, text)
    # Out of the collector's way: a roll's fields are numbers, strings and tuples of moves made
    # before it, so it can be in no reference cycle (the collector itself takes tuples of such
    # things off its lists, but not these). A game's rolls were most of what it walked.
    PyObject_GC_UnTrack(<void *> roll)
    return roll


cdef inline bint _decimal(Py_UCS4 c) noexcept:
    """The regular expressions' `\\d` (any Unicode decimal digit), ASCII first."""
    if c < 128:
        return 48 <= c <= 57
    return Py_UNICODE_ISDECIMAL(c)


cdef inline bint _blank(Py_UCS4 c) noexcept:
    return c == 32 or c == 9 or c == 12 or c == 11  # [ \t\f\v], the grammar's padding


cdef class _Row:
    """One row's text and the reader's regular expressions for the cells this file does not
    read itself; `cell()` leaves the cell it found in group/start/end."""

    cdef str text
    cdef Py_ssize_t n
    cdef int kind
    cdef void *data
    cdef object matcher
    cdef object search
    cdef object keyword
    cdef int group
    cdef Py_ssize_t start
    cdef Py_ssize_t end

    cdef inline Py_UCS4 at(self, Py_ssize_t i) noexcept:
        return PyUnicode_READ(self.kind, self.data, i)

    cdef int anchored(self, Py_ssize_t pos) except -2:
        """The cell after the blanks at `pos`, as `_cell_matcher()` matches it: 1 a cell, 0 the
        end of the line, -1 text that starts no cell (the caller then searches)."""
        cdef Py_ssize_t p = pos, q, n = self.n
        cdef Py_UCS4 c
        while p < n and _blank(self.at(p)):
            p += 1
        if p == n:
            return 0
        c = self.at(p)
        if _decimal(c):
            # ROLL: /\d\d:.../ (what follows the colon may be empty): tried first, as there.
            if p + 2 < n and _decimal(self.at(p + 1)) and self.at(p + 2) == 58:
                self.group, self.start, self.end = ROLL, p, self.roll_end(p + 3)
                return 1
            # ROWNO: /(?<!\d)\d+\)/
            if p == 0 or not _decimal(self.at(p - 1)):
                q = p + 1
                while q < n and _decimal(self.at(q)):
                    q += 1
                if q < n and self.at(q) == 41:
                    self.group, self.start, self.end = ROWNO, p, q + 1
                    return 1
        return self.found(self.matcher(self.text, pos))

    cdef bint plain_row(self) except -1:
        """Whether the row is cells to its end, each where the last one ended after blanks
        (`anchored` finds every one, no search): then it is what the grammar's ROW matches,
        cell for cell (no two cells start alike, so the first way the ROW pattern tries is
        the anchored one, and nothing after a cell makes it go back)."""
        cdef int r = self.anchored(0)
        while r == 1:
            r = self.anchored(self.end)
        return r == 0

    cdef int searched(self, Py_ssize_t pos) except -2:
        """The next cell from `pos` as `_cell_regex().search` finds it: 1 a cell, 0 none."""
        cdef int r = self.found(self.search(self.text, pos))
        return 0 if r == -1 else r

    cdef int found(self, object m) except -2:
        if m is None:
            return -1
        group = m.lastindex
        if group == END:
            return 0
        self.group = group
        self.start, self.end = m.span(group)
        return 1

    cdef Py_ssize_t roll_end(self, Py_ssize_t q) except -1:
        """Where a roll cell whose dice end at `q` ends: the grammar's ROLL takes each
        following word (after spaces or tabs) that starts no other cell,
        /(?:[ \\t]++(?:\\d(?!\\d:|\\d*\\))[^ \\t\\n]*+|(?!KEYWORD\\b)[^ \\t\\n\\d][^ \\t\\n]*+))*+/."""
        cdef Py_ssize_t r, s, n = self.n
        cdef Py_UCS4 c
        while True:
            r = q
            while r < n and (self.at(r) == 32 or self.at(r) == 9):
                r += 1
            if r == q or r == n:
                return q
            c = self.at(r)
            if _decimal(c):
                s = r + 1  # not another roll's dice, nor a row number
                if s + 1 < n and _decimal(self.at(s)) and self.at(s + 1) == 58:
                    return q
                while s < n and _decimal(self.at(s)):
                    s += 1
                if s < n and self.at(s) == 41:
                    return q
            elif c == 10:
                return q
            elif (c > 127 or c in u"drbtwlDRBTWL") and self.keyword(self.text, r) is not None:
                return q  # a keyword cell (which the regular expression reads, any case)
            r += 1
            while r < n:
                c = self.at(r)
                if c == 32 or c == 9 or c == 10:
                    break
                r += 1
            q = r


cdef inline object _triple(PyTypeObject *cls, object a, object b, object c):
    """`cls(a, b, c)` for a named tuple `cls`, without its generated __new__."""
    t = _alloc(cls, 3)
    Py_INCREF(a)
    PyTuple_SET_ITEM(t, 0, a)
    Py_INCREF(b)
    PyTuple_SET_ITEM(t, 1, b)
    Py_INCREF(c)
    PyTuple_SET_ITEM(t, 2, c)
    PyObject_GC_UnTrack(<void *> t)  # strings and ints (see `_roll`)
    return t


cdef inline object _span(object line, Py_ssize_t column, Py_ssize_t length):
    """`Span(line, column, length)` without its generated __new__."""
    # Objects (an untyped name would be inferred a C integer here), made before the tuple:
    # making an int never starts a collection, which would find the tuple half filled.
    cdef object col = column
    cdef object width = length
    return _triple(_SPAN, line, col, width)


cdef inline str _exact(object text):
    """`text` as a str of its own type (a subclass of str, such as a caller's wrapper that
    counts what is read, copied once): the typed code below takes only str itself."""
    if type(text) is str:
        return <str> text
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return PyUnicode_Substring(text, 0, PyUnicode_GET_LENGTH(text))


def game_lines(object text, Py_ssize_t indent, object first_line, object score, object matcher,
               object keyword, type line_type):
    """The score line and the lines of a game (`chunk`, its game line after `indent` blanks)
    as `_MatReader._game` takes them from the grammar's tokens, where every line after the
    score line is blank, a comment or a row whose cells follow one another (which is how
    records write nearly every game); None for any other game, which lark then reads.

    Such a game is what the grammar's `game` rule reads as GAME, SCORE, then ROWS, COMMENT and
    NL tokens that begin each line: a ROW is a line of cells and blanks (the lexer tries ROWS
    before COMMENT, and no cell starts with `;` or `#`), and blank lines go with the line
    break before the next line (or, at the end, are NL). `score` is the grammar's SCORE
    terminal anchored at the end of the game line; a line is read with the cell reader below.
    tests/test_mat_cells.py holds this to lark's reading."""
    cdef str chunk = _exact(text)
    cdef _Row row = _Row.__new__(_Row)
    cdef Py_ssize_t n = len(chunk), pos, start, end, i
    cdef PyTypeObject *cls = <PyTypeObject *> line_type
    cdef bint blank
    cdef Py_UCS4 c
    row.matcher, row.keyword = matcher, keyword
    pos = chunk.find("\n", indent)
    if pos < 0:
        return None
    m = score(chunk, pos)
    if m is None:
        return None
    end = m.end()
    start = chunk.rfind("\n", pos, end) + 1
    number = first_line + chunk.count("\n", pos, end)
    score_line = _triple(cls, "score", number, PyUnicode_Substring(chunk, start, end))
    lines = []
    pos = end
    while pos < n:
        # `pos` is the line break after the last line read.
        number += 1
        start = pos + 1
        end = chunk.find("\n", start)
        if end < 0:
            end = n
        pos = end
        i = start
        while i < end and _blank(chunk[i]):
            i += 1
        if i == end:
            continue  # a blank line
        c = chunk[i]
        text = PyUnicode_Substring(chunk, start, end)
        if c == 59 or c == 35:  # `;` or `#`
            lines.append(_triple(cls, "comment", number, text))
            continue
        row.text, row.n = text, end - start
        row.kind, row.data = PyUnicode_KIND(text), PyUnicode_DATA(text)
        if not row.plain_row():
            return None
        lines.append(_triple(cls, "row", number, text))
    return score_line, lines


cdef inline Py_ssize_t _visual(object visual, str text, bint tabs, Py_ssize_t index) except -1:
    return visual(text, index) if tabs else index


def threshold(list lines, object right_name_col, object matcher, object search,
              object keyword, object visual):
    """`_GameReader._threshold` (without keeping the rows it split)."""
    cdef _Row row = _Row.__new__(_Row)
    cdef Py_ssize_t cols[7]
    cdef int ncols = 0, r, i, j
    cdef Py_ssize_t pos, v, right
    row.matcher, row.search, row.keyword = matcher, search, keyword
    for line in lines:
        if (<tuple> line)[0] != "row":
            continue
        text = <str> (<tuple> line)[2]
        row.text, row.n = text, len(text)
        row.kind, row.data = PyUnicode_KIND(text), PyUnicode_DATA(text)
        # The second cell of the row (its own leading number not counted), if a roll.
        pos = 0
        r = row.anchored(0)
        if r == 1 and row.group == ROWNO:
            pos = row.end
            r = row.anchored(pos)
        for i in range(2):
            if r == -1:
                r = row.searched(pos)
            if r == 0:
                break
            if i == 1:
                if row.group == ROLL:
                    v = _visual(visual, text, "\t" in text, row.start)
                    j = ncols  # insertion sort: a median of seven
                    while j > 0 and cols[j - 1] > v:
                        cols[j] = cols[j - 1]
                        j -= 1
                    cols[j] = v
                    ncols += 1
                break
            pos = row.end
            r = row.anchored(pos)
        if ncols == 7:  # a few rows settle it; layouts do not change mid-game
            break
    if ncols:
        right = cols[ncols // 2]
    elif right_name_col is not None:
        right = right_name_col
    else:
        right = 33
    return max(11, (right + 5) // 2)


def read_rows(object reader, list lines, Py_ssize_t threshold, list actions,
              object matcher, object search, object keyword, object visual, object read_cell,
              tuple cell_types):
    """The loop of `_GameReader.build`: each line's events appended to `actions`; returns how
    many rolls were written low die first (of those `read_cell` reads: `_read_roll_cell`
    uncached, as this keeps its own cache)."""
    cdef _Row row = _Row.__new__(_Row)
    cdef Py_ssize_t low_high = 0, pos, start, end, column
    cdef int r, group, side, prev_side
    cdef bint tabs
    cdef set seen = reader.plays_seen
    cdef PyObject *found
    row.matcher, row.search, row.keyword = matcher, search, keyword
    sides = (0, 1)
    for line in lines:
        if (<tuple> line)[0] != "row":
            reader._comment(line, actions)
            continue
        line_no = (<tuple> line)[1]
        text = <str> (<tuple> line)[2]
        row.text, row.n = text, len(text)
        row.kind, row.data = PyUnicode_KIND(text), PyUnicode_DATA(text)
        tabs = "\t" in text
        prev_side = -1
        pos = 0
        r = row.anchored(0)
        if r == 1 and row.group == ROWNO:
            pos = row.end  # the row's own number: not a cell
            r = row.anchored(pos)
        while True:
            if r == -1:
                # Something no cell starts with (a row the grammar took by backtracking).
                r = row.searched(pos)
            if r == 0:
                break
            group, start, end = row.group, row.start, row.end
            pos = end
            r = row.anchored(pos)
            if group == ROWNO:
                # A row number inside a line starts a row of its own: its first cell is the
                # left player's whatever its column.
                prev_side = -2
                continue
            if prev_side == -2:
                side = 0
            else:
                column = _visual(visual, text, tabs, start)
                side = 1 if column >= threshold else 0
            if prev_side >= 0:
                if side < prev_side:
                    side = prev_side
                elif side == prev_side == 0 and group == ROLL:
                    side = 1  # two rolls on one row: the second is the right player's
            prev_side = side
            span = _span(line_no, start + 1, end - start)
            written = PyUnicode_Substring(text, start, end)
            if group == ROLL:
                found = PyDict_GetItemWithError(_roll_cells, written)
                if found is NULL:
                    known = read_cell(written)
                    if len(_roll_cells) >= _MAX_CELLS:
                        _roll_cells.clear()
                    PyDict_SetItem(_roll_cells, written, known)
                else:
                    known = <object> found
                if known is not None:
                    # (dice, low die first, play, moves, play text)
                    PySet_Add(seen, (<tuple> known)[2])
                    low_high += <Py_ssize_t> (<tuple> known)[1]
                    actions.append(
                        _roll(sides[side], (<tuple> known)[0], (<tuple> known)[3], span,
                              (<tuple> known)[4])
                    )
                else:
                    actions.append(reader._roll(written, sides[side], span))
            else:
                actions.append(reader._cell(cell_types[group - 1], written, sides[side], span))
    return low_high


cdef inline Py_ssize_t _skip_blanks(int kind, void *data, Py_ssize_t p, Py_ssize_t n) noexcept:
    """Past the spaces and tabs at `p` (the `[ \\t]*` of the match and game lines)."""
    cdef Py_UCS4 c
    while p < n:
        c = PyUnicode_READ(kind, data, p)
        if c != 32 and c != 9:
            break
        p += 1
    return p


cdef bint _may_be_match_line(int kind, void *data, Py_ssize_t p, Py_ssize_t n) noexcept:
    """Whether the line at `p` starts as mat.py's `_MATCH_LINE` needs, /[ \\t]*-?\\d+[ \\t]*p/i."""
    cdef Py_ssize_t q
    p = _skip_blanks(kind, data, p, n)
    if p < n and PyUnicode_READ(kind, data, p) == 45:  # '-'
        p += 1
    q = p
    while p < n and _decimal(PyUnicode_READ(kind, data, p)):
        p += 1
    if p == q:
        return False
    p = _skip_blanks(kind, data, p, n)
    return p < n and (<unsigned int> PyUnicode_READ(kind, data, p) | 32) == 112  # 'p' or 'P'


cdef bint _may_be_game_line(int kind, void *data, Py_ssize_t p, Py_ssize_t n) noexcept:
    """Whether the line at `p` starts as mat.py's `_GAME_LINE` needs, /[ \\t]*g/i."""
    p = _skip_blanks(kind, data, p, n)
    return p < n and (<unsigned int> PyUnicode_READ(kind, data, p) | 32) == 103  # 'g' or 'G'


def lines_that_may_start(object text, Py_ssize_t start, Py_ssize_t end, bint games):
    """The starts of the lines that may be match lines (`games` False) or game lines (True):
    the line at `start` (where it is 0, for match lines) and each after a line break at
    `start` to `end`, whose first characters are those the line's pattern begins with.
    mat.py matches its pattern at each; far fewer lines than the newline-led search tries
    (every row of moves begins with digits, which a match line's pattern starts to read)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i
    cdef list out = []
    if start < 0:
        start = 0
    if end > n:
        end = n
    if not games and start == 0 and _may_be_match_line(kind, data, 0, n):
        out.append(0)
    cdef const char *bytes_ = <const char *> data
    cdef const char *nl
    i = start
    while i < end:
        if kind == PyUnicode_1BYTE_KIND:  # one byte a character: the C library's search
            nl = <const char *> memchr(bytes_ + i, 10, end - i)
            if nl is NULL:
                break
            i = nl - bytes_
        elif PyUnicode_READ(kind, data, i) != 10:
            i += 1
            continue
        if _may_be_game_line(kind, data, i + 1, n) if games else _may_be_match_line(
            kind, data, i + 1, n
        ):
            out.append(i + 1)
        i += 1
    return out
