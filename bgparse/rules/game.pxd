# Declarations for the compiled build (setup.py): `Game` as an extension type, its fields in
# C, so that typed code (the replay's plain lane, replay/_plain.pyx) reads them without a
# look-up by name and calls its hot methods directly. game.py stays the source; without a
# build it is the same class in plain Python.

cdef class Game:
    cdef public object board_known, crawford, cube, drop_value, end, jacoby_applied
    cdef public object last_roller, length, over, points, position, post_crawford
    cdef public object resign_level, resign_side, result, rolls, rules, score, side, winner

    cpdef board(self, side)
    cpdef roll(self, side, dice)
    cpdef moved(self, side, after)
