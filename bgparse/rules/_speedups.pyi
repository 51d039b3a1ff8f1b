# Types of the compiled speed-ups (bgparse/rules/_speedups.pyx).

def board_summary(
    opponent: tuple[int, ...], mover: tuple[int, ...]
) -> tuple[str, int, int, bool] | None: ...
def play_steps(
    mover: tuple[int, ...],
    opponent: tuple[int, ...],
    d1: int,
    d2: int,
    moves: object,
    step_type: type[tuple[int, int, bool]],
) -> (
    tuple[
        tuple[int, ...],
        tuple[int, ...],
        tuple[tuple[int, int, bool], ...],
        tuple[tuple[int, int, str], ...],
    ]
    | None
): ...
