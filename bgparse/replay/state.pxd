# Declarations for the compiled build (setup.py): `GameState` as an extension type, so that
# the replay's plain lane (replay/_plain.pyx) reads and counts in it without look-ups by name.
# state.py stays the source.

cdef class GameState:
    cdef public object beavers, dances, doubles, drops, game, hidden, line, number, plays
    cdef public object rows, takes, win_seen
