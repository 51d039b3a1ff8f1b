# Types of the compiled speed-ups (bgparse/rules/_speedups.pyx).

def board_summary(
    opponent: tuple[int, ...], mover: tuple[int, ...]
) -> tuple[str, int, int, bool] | None: ...
