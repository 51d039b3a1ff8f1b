# cython: language_level=3
"""Typed C versions of the rules engine's hottest small computations, compiled by setup.py
where it can. Each has its pure-Python original in the module that uses it, which stays the
reference: tests/rules/test_speedups.py checks that both give the same answers, and bgparse
uses the original wherever this module is not built (or BGPARSE_PURE_PYTHON=1)."""

cimport cython
from libc.string cimport memcpy

from cpython.object cimport PyObject_GenericSetAttr
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

# C declarations only (no Python import: rules/ imports nothing from the rest of bgparse).
from bgparse.helpers._slots cimport slot_get, slot_offset


# The sides read lately, as C counts: a game's boards are tuples the play before made
# (`_counts`) or passed on unchanged, and each is read again by the next play's check and its
# turn's summary. Keyed by the tuple itself, held here (so its address names no other object
# while it is cached); a tuple never changes.
cdef enum:
    _SIDES_KEPT = 6

cdef PyObject *_kept[_SIDES_KEPT]
cdef int _kept_counts[_SIDES_KEPT][26]
cdef int _kept_next = 0


cdef inline void _keep(tuple side, const int *counts) noexcept:
    global _kept_next
    cdef int slot = _kept_next
    _kept_next = (slot + 1) % _SIDES_KEPT
    Py_XDECREF(_kept[slot])
    Py_INCREF(side)
    _kept[slot] = <PyObject *> side
    memcpy(_kept_counts[slot], counts, 26 * sizeof(int))


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline int _read_side(tuple side, int *out) except -1:
    """A side's 26 counts into `out` (1), or 0 where it is not 26 items; raises where an item is
    not an int that fits a C int, as reading it item by item does."""
    cdef PyObject *key = <PyObject *> side
    cdef int i
    for i in range(_SIDES_KEPT):
        if _kept[i] == key:
            memcpy(out, _kept_counts[i], 26 * sizeof(int))
            return 1
    if len(side) != 26:
        return 0
    for i in range(26):
        out[i] = side[i]
    _keep(side, out)
    return 1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline bint _side_key(tuple side, unsigned long long *key, int *nbits, long *pips,
                           int *back) except -1:
    """One side (26 counts: 0 unused, 1-24, 25 the bar) as its half of the Position ID key:
    per slot from 1 to 25 its checkers as 1-bits then a 0-bit, the first slot lowest. False
    where the side is not a legal one (a count outside 0-15, or over 15 checkers)."""
    cdef unsigned long long k = 0
    cdef int shift = 0, total = 0, slot, c
    cdef long p = 0
    cdef int rear = 0
    cdef int counts[26]
    if not _read_side(side, counts):
        return False
    for slot in range(1, 26):
        c = counts[slot]
        if c < 0 or c > 15:
            return False
        if c:
            k |= ((1ULL << c) - 1) << shift
            total += c
            p += slot * c
            rear = slot
        shift += c + 1
    if total > 15:
        return False
    key[0] = k
    nbits[0] = shift
    pips[0] = p
    back[0] = rear
    return True


cdef const char *_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


cdef inline int _b64(const unsigned char *src, int n, char *out) noexcept:
    """Standard base64 of n bytes into out (4 characters per 3 bytes, '=' padded); returns
    the characters written. binascii's, without a bytes object and a call per ID."""
    cdef int i = 0, o = 0
    cdef unsigned int v
    while i + 3 <= n:
        v = (src[i] << 16) | (src[i + 1] << 8) | src[i + 2]
        out[o] = _B64[(v >> 18) & 63]
        out[o + 1] = _B64[(v >> 12) & 63]
        out[o + 2] = _B64[(v >> 6) & 63]
        out[o + 3] = _B64[v & 63]
        i += 3
        o += 4
    if i < n:
        v = src[i] << 16
        if i + 1 < n:
            v |= src[i + 1] << 8
        out[o] = _B64[(v >> 18) & 63]
        out[o + 1] = _B64[(v >> 12) & 63]
        out[o + 2] = _B64[(v >> 6) & 63] if i + 1 < n else 61  # '='
        out[o + 3] = 61
        o += 4
    return o


cpdef str match_id_text(bytes raw, tuple dice):
    """turns.py's `match_id_python`: the Match ID of its 9 bytes without dice and the dice
    (bits 15-17 and 18-20); "" where the bytes are not 9 or a die is outside 0-7."""
    cdef unsigned char buf[9]
    cdef char out[12]
    cdef int d1, d2
    if len(raw) != 9 or len(dice) != 2:
        return ""
    a, b = dice
    if type(a) is not int or type(b) is not int or not (0 <= a <= 7 and 0 <= b <= 7):
        return ""
    d1 = a
    d2 = b
    memcpy(buf, <const char *>raw, 9)
    buf[1] |= (d1 & 1) << 7
    buf[2] |= (d1 >> 1) | (d2 << 2)
    _b64(buf, 9, out)
    return out[:12].decode("ascii")


cpdef object play_key(object steps):
    """turns.py's `play_key_python`: resolved steps (from, to, hit) as one number, 11 bits a
    step under a leading 1; None where a point is out of 0-25, a hit is not a bool, or there
    are more than five steps (the Python original takes any number), or the steps are not a
    tuple."""
    cdef unsigned long long key = 1
    cdef long src, dst
    cdef Py_ssize_t i, n
    if not isinstance(steps, tuple):
        return None
    n = len(steps)
    if n > 5:
        return None
    for i in range(n):
        step = (<tuple>steps)[i]
        if not isinstance(step, tuple) or len(<tuple>step) != 3:  # a Step is a named tuple
            return None
        # Read as a tuple (a named tuple is one): unpacking a tuple subclass goes through its
        # iterator, three times the instructions.
        a = (<tuple>step)[0]
        b = (<tuple>step)[1]
        hit = (<tuple>step)[2]
        if type(a) is not int or type(b) is not int or type(hit) is not bool:
            return None
        try:
            src = a
            dst = b
        except OverflowError:
            return None
        if src < 0 or src > 25 or dst < 0 or dst > 25:
            return None
        key = ((key << 11) | (<unsigned long long>src << 6) | (<unsigned long long>dst << 1)
               | (1 if hit is True else 0))
    return key


cpdef object board_summary(tuple opponent, tuple mover):
    """(Position ID, mover's pips, opponent's pips, is_race) of a board, as
    Position.summary computes them; None where a side is not a legal one (the caller then
    takes the checked Python path and its error)."""
    cdef unsigned long long lo = 0, hi = 0
    cdef int lo_bits = 0, hi_bits = 0, lo_back = 0, hi_back = 0, i
    cdef long lo_pips = 0, hi_pips = 0
    cdef unsigned char raw[10]
    cdef char out[16]
    if not _side_key(opponent, &lo, &lo_bits, &lo_pips, &lo_back):
        return None
    if not _side_key(mover, &hi, &hi_bits, &hi_pips, &hi_back):
        return None
    # 80-bit key: the opponent's half in the low bits, the mover's above it, little-endian.
    # 25 <= lo_bits <= 40: the mover's half may reach past bit 64 (into high16).
    cdef unsigned long long low64 = lo | (hi << lo_bits)
    cdef unsigned long long high16 = hi >> (64 - lo_bits)
    for i in range(8):
        raw[i] = (low64 >> (8 * i)) & 0xFF
    raw[8] = high16 & 0xFF
    raw[9] = (high16 >> 8) & 0xFF
    _b64(raw, 10, out)
    pid = out[:14].decode("ascii")
    return pid, hi_pips, lo_pips, lo_back + hi_back <= 25


cdef inline int _b64_value(unsigned int ch) noexcept:
    if 65 <= ch <= 90:  # A-Z
        return ch - 65
    if 97 <= ch <= 122:  # a-z
        return ch - 71
    if 48 <= ch <= 57:  # 0-9
        return ch + 4
    if ch == 43:  # +
        return 62
    if ch == 47:  # /
        return 63
    return -1


@cython.boundscheck(False)
@cython.wraparound(False)
cpdef object canonical_board_id(str pid):
    """store.rows `_final_board`'s answer for a clean Position ID (its Python path stays the
    reference): the smaller of the board's Position ID and that of the same board with the
    other side on roll, both encoded afresh. None where `pid` is not 14 base64 characters of
    a valid board (a side over 15 checkers, bits left over, both colours on a point, both
    sides off): the caller then takes the checked path and its answer for those."""
    cdef unsigned char raw[10]
    cdef int values[14]
    cdef int sides[2][26]
    cdef int i, v, side, slot, count, shift = 0, total
    cdef int totals[2]
    if len(pid) != 14:
        return None
    for i in range(14):
        v = _b64_value(<unsigned int>(<Py_UCS4>pid[i]))
        if v < 0:
            return None
        values[i] = v
    # As base64.b64decode(pid + "=="): 3 bytes from each 4 characters, one from the last
    # two (the last character's low 4 bits unused).
    for i in range(3):
        raw[3 * i] = (values[4 * i] << 2) | (values[4 * i + 1] >> 4)
        raw[3 * i + 1] = ((values[4 * i + 1] & 15) << 4) | (values[4 * i + 2] >> 2)
        raw[3 * i + 2] = ((values[4 * i + 2] & 3) << 6) | values[4 * i + 3]
    raw[9] = (values[12] << 2) | (values[13] >> 4)
    # Per side, per slot 1-25: its checkers as 1 bits, then a 0 bit; lowest bit first. The
    # side NOT on roll comes first (sides[0]).
    for side in range(2):
        sides[side][0] = 0
        total = 0
        for slot in range(1, 26):
            count = 0
            while shift < 80 and (raw[shift >> 3] >> (shift & 7)) & 1:
                count += 1
                shift += 1
            if shift >= 80 and count and slot <= 25:
                # ran into the end of the key inside a run: too many checkers (the Python
                # reading's error)
                return None
            shift += 1
            sides[side][slot] = count
            total += count
        if total > 15:
            return None
        totals[side] = total
    for i in range(shift, 80):
        if (raw[i >> 3] >> (i & 7)) & 1:
            return None  # bits set after both sides
    # Position(mover=sides[1], opponent=sides[0]): no point held by both colours, and not
    # both sides off.
    for i in range(1, 25):
        if sides[1][i] > 0 and sides[0][25 - i] > 0:
            return None
    if totals[0] == 0 and totals[1] == 0:
        return None
    first = _counts(sides[0])
    second = _counts(sides[1])
    own = board_summary(first, second)
    swapped = board_summary(second, first)
    if own is None or swapped is None:
        return None
    return min((<tuple>own)[0], (<tuple>swapped)[0])


cdef inline tuple _counts(int *board):
    """A board's 26 counts as a tuple (without a list in between)."""
    cdef tuple out = PyTuple_New(26)
    cdef int i
    cdef object value
    for i in range(26):
        value = board[i]
        Py_INCREF(value)
        PyTuple_SET_ITEM(out, i, value)
    _keep(out, board)  # the next play reads it
    return out


def verify_fast(object position, tuple roll, object moves, tuple step_table,
                object position_type, object check_type):
    """verification.py's `_verify_fast_python` whole (which stays the reference): the check of
    a play whose written moves are single-die steps using every die (or merged moves whose
    route is plain: verification._merged_legs), legal in the order written, built as a `check_type` (PlayCheck) with its `after` a `position_type`
    (Position) made as Position._make makes one; None for "not this case". `step_table` is
    steps.STEP_TABLE. The position must be a checked one."""
    cdef int d1 = roll[0]
    cdef int d2 = roll[1]
    done = _play_steps(position.mover, position.opponent, d1, d2, moves, step_table, False)
    if done is None:
        return None
    after = object.__new__(position_type)
    # The frozen dataclass refuses setattr; Position._make goes round it the same way. The
    # other side is on roll after the play.
    PyObject_GenericSetAttr(after, "mover", (<tuple>done)[0])
    PyObject_GenericSetAttr(after, "opponent", (<tuple>done)[1])
    PyObject_GenericSetAttr(after, "checkers", position.checkers)
    PyObject_GenericSetAttr(after, "_checked", True)
    return tuple.__new__(
        check_type,
        (True, after, (<tuple>done)[2], None, "", position, roll, False, (<tuple>done)[3], []),
    )


def play_steps(tuple mover, tuple opponent, int d1, int d2, object moves, tuple step_table,
               bint partial=False):
    """The board work of `verify_fast` (verification._play_steps_python, which stays the
    reference): a play whose written moves are single-die steps, using every die (merged
    moves with a plain route too), or, with `partial`, single steps leaving dice unplayed and
    every hit star right, legal in the order written.
    Returns (opponent after, mover after, steps from `step_table` (steps.STEP_TABLE), hit-star
    notes), or None for "not this case" (the full check decides). Both sides must be a checked
    position's."""
    return _play_steps(mover, opponent, d1, d2, moves, step_table, partial)


# The class of the written moves last met (the readers' Move) where its fields are plain slots,
# and their offsets: its fields read in C (bgparse/helpers/_slots.pxd), not by name.
cdef type _move_cls = None
cdef type _not_slotted = None
cdef Py_ssize_t _mv_points = 0, _mv_hits = 0, _mv_count = 0


cdef bint _slotted_move(type cls) except -1:
    """Whether a written move of class `cls` is read by its slots (learning them once)."""
    global _move_cls, _not_slotted, _mv_points, _mv_hits, _mv_count
    if cls is _move_cls:
        return True
    if cls is _not_slotted:
        return False
    try:
        points = slot_offset(cls, "points")
        hits = slot_offset(cls, "hits")
        count = slot_offset(cls, "count")
    except ImportError:
        _not_slotted = cls
        return False
    _move_cls = cls
    _mv_points, _mv_hits, _mv_count = points, hits, count
    return True


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline int _merged_legs(int s, int t, int *want, int *nwant, const int *op,
                             int *legs) noexcept:
    """verification._merged_legs in C: the points of a written move of more than one die
    into `legs` (from `s` to `t`, each the next step's start) and its dice taken from `want`;
    returns the number of steps, 0 where the full check must read it."""
    cdef int dist = s - t, die = want[0], k, i, d, m
    if nwant[0] < 2:
        return 0
    if nwant[0] == 2 and want[1] != die:  # two different dice
        if dist != want[0] + want[1]:
            return 0
        for i in range(2):
            d = want[0] if (want[0] > want[1]) == (i == 0) else want[1]
            m = s - d
            if not op[25 - m]:
                legs[0] = s
                legs[1] = m
                legs[2] = t
                nwant[0] = 0
                return 2
        return 0
    for i in range(1, nwant[0]):
        if want[i] != die:
            return 0
    if dist % die:
        return 0
    k = dist // die
    if k > nwant[0]:
        return 0
    for i in range(k + 1):
        legs[i] = s - i * die
        if 0 < i < k and op[25 - legs[i]]:
            return 0
    nwant[0] -= k
    return k


@cython.boundscheck(False)
@cython.wraparound(False)
cdef object _play_steps(tuple mover, tuple opponent, int d1, int d2, object moves,
                        tuple step_table, bint partial):
    """`play_steps` as a C call (verify_fast calls it per play)."""
    cdef int mv[26]
    cdef int op[26]
    cdef int starred[26]
    cdef int plain[26]
    cdef int want[4]
    cdef int nwant = 4 if d1 == d2 else 2
    cdef int i, j, k, s, t, a, b, dist, c, count, best, nlegs
    cdef int legs[5]
    cdef Py_ssize_t n
    cdef bint hit, star, mark, hit_any = False
    cdef list steps = []
    cdef list notes = None
    if len(step_table) != 1352:
        return None
    if not _read_side(mover, mv) or not _read_side(opponent, op):
        return None
    for i in range(26):
        starred[i] = 0
        plain[i] = 0
    want[0] = d1
    want[1] = d2 if d1 != d2 else d1
    want[2] = d1
    want[3] = d1
    if type(moves) is not tuple and type(moves) is not list:
        return None
    for m in moves:
        if isinstance(m, tuple):
            n = len(m)
            if n != 2 and n != 3:
                return None
            ps = m[0]
            pt = m[1]
            pstar = m[2] if n == 3 else False
            count = 1
        else:
            # Only the readers' own shape (bgparse.model.events.Move): anything else is left to the
            # Python original, whose answer is the same or an error of its own.
            if _slotted_move(type(m)):
                points = slot_get(m, _mv_points)
                hits = slot_get(m, _mv_hits)
                pcount = slot_get(m, _mv_count)
            else:
                points = getattr(m, "points", None)
                hits = getattr(m, "hits", None)
                pcount = getattr(m, "count", None)
            if type(points) is not tuple or type(hits) is not tuple or type(pcount) is not int:
                return None
            if len(points) != 2 or len(hits) != 2 or pcount < 1:
                return None
            ps = points[0]
            pt = points[1]
            pstar = hits[1]
            # No roll has five steps: a fifth copy already means "not this case".
            count = 5 if pcount > 5 else pcount
        if type(ps) is not int or type(pt) is not int or not (0 < ps < 26 and 0 <= pt < ps):
            return None
        s = ps
        t = pt
        star = bool(pstar)
        for _ in range(count):
            dist = s - t
            nlegs = 1
            legs[0] = s
            legs[1] = t
            k = -1
            for i in range(nwant):
                if want[i] == dist:
                    k = i
                    break
            if k >= 0:
                nwant -= 1
                want[k] = want[nwant]
            elif t == 0:
                if nwant == 0:
                    return None
                # Bearing off from below the die: the smallest larger die, and no checker
                # may stand higher in the home board.
                best = -1
                for i in range(nwant):
                    if want[i] > dist and (best < 0 or want[i] < want[best]):
                        best = i
                if best < 0:
                    return None
                for i in range(s + 1, 7):
                    if mv[i]:
                        return None
                nwant -= 1
                want[best] = want[nwant]
            elif partial:
                return None
            else:
                # A move of more than one die: verification._merged_legs, whose twin this is.
                nlegs = _merged_legs(s, t, want, &nwant, op, legs)
                if nlegs == 0:
                    return None
            for j in range(nlegs):
                a = legs[j]
                b = legs[j + 1]
                mark = star if b == t else False
                if mv[a] <= 0 or (a != 25 and mv[25]):
                    return None
                hit = False
                if b:
                    c = op[25 - b]
                    if c >= 2:
                        return None
                    if c == 1:
                        op[25 - b] = 0
                        op[25] += 1
                        hit = True
                        hit_any = True
                    mv[b] += 1
                else:
                    for i in range(7, 26):
                        if mv[i]:
                            return None
                mv[a] -= 1
                if mark:
                    starred[b] += 1
                else:
                    plain[b] += 1
                steps.append(step_table[(a * 26 + b) * 2 + hit])
                if hit != mark:
                    if nlegs > 1:
                        return None  # a merged move's star written wrong: the full check
                    if notes is None:
                        notes = []
                    notes.append((a, b, "hit-without-star" if hit else "star-without-hit"))
    if nwant and (not partial or notes is not None):
        return None
    if notes is not None:
        # A star written wrong where a step with the other star lands too: another order may
        # give the hit to the starred step, which the full check prefers
        # (verification._star_order_matters).
        for note in notes:
            t = note[1]
            if starred[t] and plain[t]:
                return None
    after_opponent = _counts(op) if hit_any else opponent
    return (
        after_opponent,
        _counts(mv),
        tuple(steps),
        tuple(notes) if notes is not None else (),
    )
