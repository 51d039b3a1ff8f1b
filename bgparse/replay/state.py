"""What the replay keeps of the game being replayed beside the rules' `Game`."""

from __future__ import annotations

from bgparse.replay.turns import GameRows
from bgparse.rules.game import Game

__all__ = ["GameState"]


class GameState:
    """What the replay keeps of the game being replayed beside the rules' `Game`: its place in
    the record, what it counts, and the rows it builds. `hidden`: a hidden play was written
    (the board after it is unknown); `win_seen`: the record wrote how the game ended.

    A class of its own module, not a dataclass: the compiled build makes it an extension type
    (state.pxd), whose fields the replay's plain lane reads in C."""

    __slots__ = (
        "beavers",
        "dances",
        "doubles",
        "drops",
        "game",
        "hidden",
        "line",
        "number",
        "plays",
        "rows",
        "takes",
        "win_seen",
    )

    def __init__(self, number: int, line: int, game: Game, rows: GameRows) -> None:
        self.number = number
        self.line = line
        self.game = game
        self.rows = rows
        self.hidden = False
        self.win_seen = False
        self.plays = 0
        self.dances = 0
        self.doubles = 0
        self.takes = 0
        self.drops = 0
        self.beavers = 0
