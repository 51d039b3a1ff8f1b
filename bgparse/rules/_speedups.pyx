# cython: language_level=3, boundscheck=False, wraparound=False
"""Typed C versions of the rules engine's hottest small computations, compiled by setup.py
where it can. Each has its pure-Python original in the module that uses it, which stays the
reference: tests/rules/test_speedups.py checks that both give the same answers, and bgparse
uses the original wherever this module is not built (or BGPARSE_PURE_PYTHON=1)."""

from binascii import b2a_base64


cdef inline bint _side_key(tuple side, unsigned long long *key, int *nbits, long *pips,
                           int *back):
    """One side (26 counts: 0 unused, 1-24, 25 the bar) as its half of the Position ID key:
    per slot from 1 to 25 its checkers as 1-bits then a 0-bit, the first slot lowest. False
    where the side is not a legal one (a count outside 0-15, or over 15 checkers)."""
    cdef unsigned long long k = 0
    cdef int shift = 0, total = 0, slot, c
    cdef long p = 0
    cdef int rear = 0
    if len(side) != 26:
        return False
    for slot in range(1, 26):
        c = side[slot]
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


def board_summary(tuple opponent, tuple mover):
    """(Position ID, mover's pips, opponent's pips, is_race) of a board, as
    Position.summary computes them; None where a side is not a legal one (the caller then
    takes the checked Python path and its error)."""
    cdef unsigned long long lo = 0, hi = 0
    cdef int lo_bits = 0, hi_bits = 0, lo_back = 0, hi_back = 0, i
    cdef long lo_pips = 0, hi_pips = 0
    cdef unsigned char raw[10]
    if not _side_key(opponent, &lo, &lo_bits, &lo_pips, &lo_back):
        return None
    if not _side_key(mover, &hi, &hi_bits, &hi_pips, &hi_back):
        return None
    # 80-bit key: the opponent's half in the low bits, the mover's above it, little-endian.
    # 25 <= lo_bits <= 40, so the mover's half straddles bit 64.
    cdef unsigned long long low64 = lo | (hi << lo_bits)
    cdef unsigned long long high16 = hi >> (64 - lo_bits)
    for i in range(8):
        raw[i] = (low64 >> (8 * i)) & 0xFF
    raw[8] = high16 & 0xFF
    raw[9] = (high16 >> 8) & 0xFF
    pid = b2a_base64(raw[:10], newline=False)[:14].decode("ascii")
    return pid, hi_pips, lo_pips, lo_back + hi_back <= 25
