# What other typed modules call in C, without Python's call (the replay's plain lane,
# replay/_plain.pyx): `cimport`ed there, still importable from Python.

cpdef str match_id_text(bytes raw, tuple dice)
cpdef object board_summary(tuple opponent, tuple mover)
cpdef object play_key(object steps)
cdef object _play_steps(tuple mover, tuple opponent, int d1, int d2, object moves,
                        tuple step_table, bint partial)
