# Types of the typed C reading of .mat games and cells (bgparse/readers/_cells.pyx).

from collections.abc import Callable
from re import Match
from typing import Any

GROUPS: dict[str, int]

def game_lines(
    text: str,
    indent: int,
    first_line: int,
    score: Callable[[str, int], Match[str] | None],
    matcher: Callable[[str, int], Match[str] | None],
    keyword: Callable[[str, int], Match[str] | None],
    line_type: type[Any],
) -> tuple[Any, list[Any]] | None: ...
def threshold(
    lines: list[Any],
    right_name_col: int | None,
    matcher: Callable[[str, int], Match[str] | None],
    search: Callable[[str, int], Match[str] | None],
    keyword: Callable[[str, int], Match[str] | None],
    visual: Callable[[str, int], int],
) -> int: ...
def read_rows(
    reader: Any,
    lines: list[Any],
    threshold: int,
    actions: list[Any],
    matcher: Callable[[str, int], Match[str] | None],
    search: Callable[[str, int], Match[str] | None],
    keyword: Callable[[str, int], Match[str] | None],
    visual: Callable[[str, int], int],
    read_cell: Callable[[str], Any],
    cell_types: tuple[str, ...],
) -> int: ...
def lines_that_may_start(text: str, start: int, end: int, games: bool) -> list[int]: ...
