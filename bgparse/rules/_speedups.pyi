# Types of the compiled speed-ups (bgparse/rules/_speedups.pyx).

from typing import Any

def board_summary(
    opponent: tuple[int, ...], mover: tuple[int, ...]
) -> tuple[str, int, int, bool] | None: ...
def play_steps(
    mover: tuple[int, ...],
    opponent: tuple[int, ...],
    d1: int,
    d2: int,
    moves: object,
    step_table: tuple[tuple[int, int, bool], ...],
    partial: bool = ...,
) -> (
    tuple[
        tuple[int, ...],
        tuple[int, ...],
        tuple[tuple[int, int, bool], ...],
        tuple[tuple[int, int, str], ...],
    ]
    | None
): ...
def verify_fast(
    position: object,
    roll: tuple[int, int],
    moves: object,
    step_table: tuple[tuple[int, int, bool], ...],
    position_type: type,
    check_type: type,
) -> Any: ...
def match_id_text(raw: bytes, dice: tuple[int, int]) -> str: ...
def play_key(steps: object) -> int | None: ...
def canonical_board_id(pid: str) -> str | None: ...
