"""The rows of one replayed game: each action's `Turn` (with its Position and Match ID, pips
and canonical play) and each cube offer's `CubeAction`, built beside the rules' `Game`."""

from __future__ import annotations

from base64 import b64decode
from binascii import b2a_base64
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from bgparse.model.events import CannotMove, Roll, Span
from bgparse.model.verified import CubeAction, Turn
from bgparse.rules import CubeState, Position, PositionError, format_play
from bgparse.rules.game import Game
from bgparse.rules.ids import IdError, encode_match_id
from bgparse.rules.ids import MatchIdState as IdState

__all__ = ["GameRows", "play_info", "written_play"]

#: Builds a named tuple from a tuple of its fields (see `GameRows.turn`).
_tuple_new = tuple.__new__
#: The kinds of action that roll dice, which a Match ID shows.
_ROLLS = ("play", "dance", "hidden")
_NO_DICE = (0, 0)


class GameRows:
    """The rows of game `number`. `n_turns` counts the actions, also where `keep` is False and
    no row is built (a plain validation needs none: IDs, pips and notation are the costly
    part)."""

    __slots__ = ("aways", "jacoby", "keep", "match_keys", "n_turns", "number", "offers", "turns")

    def __init__(self, number: int, jacoby: bool, keep: bool) -> None:
        self.number = number
        self.jacoby = jacoby
        self.keep = keep
        self.turns: list[Turn] = []
        self.n_turns = 0
        # Match IDs without dice, by what varies in a game (see `turn`).
        self.match_keys: dict[tuple[int, int, int, int, bool], bytes] = {}
        # [turn index, doubler, cube before, cube after, position_id, response, match_id,
        #  pips, span, race, offer]; finished into CubeActions when the game ends.
        self.offers: list[list[Any]] = []
        # Points each side is away: the score does not change within a game.
        self.aways: tuple[tuple[int, int] | None, tuple[int, int] | None] | None = None

    def turn(
        self,
        game: Game,
        side: int,
        kind: str,
        span: Span,
        dice: tuple[int, int] | None,
        steps: Any,
        written: str | Roll | CannotMove,
        legal: bool | None,
        *,
        pos: Position | None = None,
        cube: CubeState | None = None,
    ) -> None:
        """Count the action, and where turns are kept build its row (the costly part: IDs,
        pips, notation), so a plain validation does none of it."""
        self.n_turns += 1
        if not self.keep:
            return
        if pos is None:
            pos = game.board(side) if kind in ("double", "play", "dance", "hidden") else None
        c = cube or game.cube
        if pos is None:
            # A take, drop or beaver: the board as the doubler left it, the answerer deciding.
            doubler_pos = game.position if game.side == 1 - side else game.position.swap()
            pos_for_id = doubler_pos
            on_roll = 1 - side
        else:
            pos_for_id = pos
            on_roll = side
        race: bool | None
        try:
            pid, pips_a, pips_b, race = pos_for_id.summary()
        except PositionError:
            pid, pips_a, pips_b, race = "", 0, 0, None
        pips = (pips_a, pips_b) if on_roll == side else (pips_b, pips_a)
        offered = kind in ("take", "drop", "beaver", "raccoon")
        # The Match ID without dice changes a few times a game: kept per game by what varies.
        owner = c.owner if c.owner in (0, 1) else -1
        raw = self.match_keys.get((c.value, owner, on_roll, side, offered))
        if raw is None:
            raw = self.match_key(game, c.value, owner, on_roll, side, offered)
        mid = (
            _match_id(raw, dice if dice is not None and kind in _ROLLS else _NO_DICE) if raw else ""
        )
        aways = self.aways
        if aways is None:
            aways = self.aways = (game.away(0), game.away(1))
        away = aways[side]
        # play_info's cache, looked up here: a call less per turn stored.
        play = _play_key(steps)
        info = _PLAY_INFO.get(play) if play is not None else None
        text, hits = info if info is not None else play_info(steps)
        # Built from a tuple of its fields: the named tuple's generated __new__ is interpreted
        # code even where bgparse is compiled.
        self.turns.append(
            _tuple_new(
                Turn,
                (
                    self.number,
                    self.n_turns - 1,
                    side,
                    kind,
                    span.line,
                    span.column,
                    pid,
                    mid,
                    dice,
                    steps,
                    text,
                    written if isinstance(written, str) else written_play(written),
                    hits,
                    pips,
                    c.value,
                    owner,
                    legal,
                    None,
                    game.score,
                    away,
                    game.crawford,
                    race,
                ),
            ),
        )

    def match_key(
        self, game: Game, value: int, owner: int, on_roll: int, side: int, offered: bool
    ) -> bytes:
        """The game's Match ID without dice for a cube, who is on roll and who acts, as its 9
        bytes (b"" where it cannot be encoded), kept in `match_keys` by (value, owner,
        on_roll, side, offered): those vary in a game, the rest does not."""
        raw = self.match_keys[(value, owner, on_roll, side, offered)] = _match_key(
            game.length,
            game.score,
            value,
            owner,
            on_roll,
            side,
            game.crawford,
            1,
            offered,
            0,
            self.jacoby,
        )
        return raw

    def offer(self, side: int, before: int, after_value: int, span: Span, offer: str) -> None:
        """A double, beaver or raccoon by `side` (its turn just counted), from the cube
        `before` to `after_value`, awaiting its answer."""
        turn = self.n_turns - 1
        t = self.turns[-1] if self.turns and self.keep else None
        self.offers.append(
            [
                turn,
                side,
                before,
                after_value,
                t.position_id if t else "",
                "none",
                t.match_id if t else "",
                t.pips if t else (0, 0),
                span,
                t.race if t else None,
                offer,
            ]
        )

    def answer(self, response: str) -> None:
        """The answer to the last offer, where it has none yet."""
        if self.offers and self.offers[-1][5] == "none":
            self.offers[-1][5] = response

    def cube_actions(self, game: Game) -> tuple[CubeAction, ...]:
        """The offers as the finished game's cube actions."""
        return tuple(self._cube_action(game, row) for row in self.offers)

    def _cube_action(self, game: Game, row: list[Any]) -> CubeAction:
        turn, doubler, before, after, pid, response, mid, pips, span, race, offer = row
        result = None
        if game.winner is not None:
            result = game.points if game.winner == doubler else -game.points
        return CubeAction(
            game=self.number,
            turn=turn,
            doubler=doubler,
            cube_before=before,
            cube_after=after if response in ("take", "beaver", "raccoon") else before,
            response=response,
            position_id=pid,
            match_id=mid,
            pips=pips,
            score=game.score,
            away=game.away(doubler),
            crawford=game.crawford,
            line=span.line,
            column=span.column,
            doubler_result=result,
            race=race,
            offer=offer,
        )


def written_play(a: Roll | CannotMove) -> str:
    """The play as the record wrote it."""
    if type(a) is CannotMove:
        return "Cannot Move"
    assert isinstance(a, Roll)
    return a.text or " ".join(m.notation() for m in a.moves)


def play_info(steps: tuple[tuple[int, int, bool], ...]) -> tuple[str, int]:
    """Canonical notation and number of hits of resolved steps. Plays repeat, so the answers
    are kept by the steps' number (`play_key`), cheaper to hash and compare than the tuples
    of tuples themselves (which an `lru_cache` did on every turn stored)."""
    key = _play_key(steps)
    if key is None:
        return _play_info(steps)
    info = _PLAY_INFO.get(key)
    if info is None:
        if len(_PLAY_INFO) >= _PLAY_INFO_LIMIT:
            _PLAY_INFO.clear()
        info = _PLAY_INFO[key] = _play_info(steps)
    return info


def _play_info(steps: tuple[tuple[int, int, bool], ...]) -> tuple[str, int]:
    return (format_play(steps) if steps else "", sum(1 for s in steps if s[2]))


_PLAY_INFO: dict[int, tuple[str, int]] = {}
_PLAY_INFO_LIMIT = 1 << 15


def play_key_python(steps: tuple[tuple[int, int, bool], ...]) -> int | None:
    """Resolved steps as one number, different for different steps: 11 bits a step (from
    and to, 0-25, in 5 bits each, then the hit) under a leading 1. None where a point is out
    of 0-25 or a hit is not a bool. `_speedups.play_key` is its typed twin (five steps at
    most there, a legal play's four and one to spare)."""
    key = 1
    for src, dst, hit in steps:
        if not (0 <= src <= 25 and 0 <= dst <= 25) or type(hit) is not bool:
            return None
        key = (key << 11) | (src << 6) | (dst << 1) | hit
    return key


_play_key: Callable[[tuple[tuple[int, int, bool], ...]], int | None]
try:  # the typed version, where setup.py built it
    from bgparse.rules._speedups import play_key as _play_key
except ImportError:
    _play_key = play_key_python


def match_id_python(raw: bytes, dice: tuple[int, int]) -> str:
    """A Match ID from its 9 bytes without dice (`_match_key`) and the dice: they change every
    turn, the rest a few times a game, so only the rest is kept per game and the dice go
    straight into their bits (15-17, 18-20). "" where either cannot be encoded.
    `_speedups.match_id_text` is its typed twin."""
    d1, d2 = dice
    if len(raw) != 9 or not (0 <= d1 <= 7 and 0 <= d2 <= 7):
        return ""
    return _encoded(int.from_bytes(raw, "little") | (d1 << 15) | (d2 << 18))


@lru_cache(maxsize=1 << 11)  # small: a game's few dozen IDs, not a match's (peak memory)
def _encoded(key: int) -> str:
    """A Match ID's text from its number (a game repeats a few dozen: cached)."""
    return b2a_base64(key.to_bytes(9, "little"), newline=False).decode("ascii")


_match_id: Callable[[bytes, tuple[int, int]], str]
try:  # the typed version, where setup.py built it
    from bgparse.rules._speedups import match_id_text as _match_id
except ImportError:
    _match_id = match_id_python


@lru_cache(maxsize=1 << 14)
def _match_key(
    length: int,
    score: tuple[int, int],
    cube: int,
    owner: int,
    on_roll: int,
    turn: int,
    crawford: bool,
    state: int,
    offered: bool,
    resignation: int,
    jacoby: bool,
) -> bytes:
    """A Match ID without dice, as its 9 bytes (b"" where it cannot be encoded)."""
    try:
        text = encode_match_id(
            IdState(
                length,
                score,
                cube,
                owner,
                on_roll,
                turn,
                crawford,
                state,
                offered,
                resignation,
                (0, 0),
                jacoby,
            )
        )
    except IdError:
        return b""
    return b64decode(text)
