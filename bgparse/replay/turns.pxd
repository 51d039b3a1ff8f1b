# Declarations for the compiled build (setup.py): `GameRows` as an extension type, so that the
# replay's plain lane (replay/_plain.pyx) builds a turn's row without looking its fields up
# by name. turns.py stays the source.

cdef class GameRows:
    cdef public object aways, jacoby, keep, n_turns, number, offers
    cdef public dict match_keys
    cdef public list turns
