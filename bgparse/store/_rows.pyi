# Types of the compiled loops over a game's turns (bgparse/store/_rows.pyx).

from collections.abc import Callable
from typing import Any

def turn_lines(turns: object) -> str | None: ...
def turn_rows(
    turns: object,
    lists: list[list[Any]],
    uid: object,
    number: object,
    texts: dict[tuple[int, int], str],
    roll_text: Callable[[tuple[int, int] | None], str | None],
    roll_kinds: frozenset[str],
) -> tuple[list[int], list[int], int] | None: ...
