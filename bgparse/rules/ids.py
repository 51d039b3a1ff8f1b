"""GNU Backgammon Match IDs and eXtreme Gammon XGIDs: encoding and decoding.

(GNU Position IDs belong to `Position`: `Position.from_position_id`, `Position.position_id`.)

Match ID: 72 bits, least significant bit first, base64 without padding (12 characters). Fields
(offset, width): 0-3 log2 cube, 4-5 cube owner (0, 1, 3 = centred), 6 player on roll, 7 Crawford
game, 8-10 game state, 11 player to decide, 12 double offered, 13-14 resignation offered, 15-17 and
18-20 the dice, 21-35 match length, 36-50 and 51-65 the scores, 66 "Jacoby not in use".

XGID: `XGID=<board>:<cube log2>:<owner>:<turn>:<dice>:<score X>:<score O>:<CJ>:<length>:<max
cube log2>`. The 26-character board is absolute: index 0 is the lowercase player's (O's) bar,
1-24 are points in the uppercase player's (X's) numbering, 25 is X's bar; 'A'-'P' are 1-16 X
checkers, 'a'-'p' O checkers, '-' empty.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from bgparse.helpers.errors import RulesError
from bgparse.rules.position import BAR, Position

__all__ = [
    "IdError",
    "MatchIdState",
    "XgidState",
    "decode_match_id",
    "decode_xgid",
    "decode_xgid_board",
    "encode_match_id",
    "encode_xgid",
    "encode_xgid_board",
    "final_match_id",
]

#: Game states of a Match ID.
GAME_STATES: Final = ("none", "playing", "over", "resigned", "dropped")


class IdError(RulesError):
    """A Match ID or XGID that cannot be decoded, or a state that cannot be encoded."""


@dataclass(frozen=True, slots=True)
class MatchIdState:
    """What a GNU Match ID holds. Players are GNU's 0 and 1 (0 = the left column of a .mat).

    `cube` is the cube value; `cube_owner` -1 centred, else the owning player; `on_roll` the
    player on roll (who rolled the dice, if any); `turn` the player who must decide next (they
    differ while a double or resignation waits for an answer); `game_state` 0 none, 1 playing,
    2 over, 3 resigned, 4 dropped; `resignation` 0 none, 1 single, 2 gammon, 3 backgammon;
    `dice` (0, 0) when not rolled, in the order written; `match_length` 0 for money;
    `jacoby` is the negation of bit 66, which older GNU versions never set.
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    cube_owner: int = -1
    on_roll: int = 0
    turn: int = 0
    crawford: bool = False
    game_state: int = 1
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    jacoby: bool = True


def _put(value: int, width: int, name: str) -> int:
    if isinstance(value, bool):
        value = int(value)
    if not 0 <= value < (1 << width):
        raise IdError(f"{name} = {value} does not fit the Match ID ({width} bits)")
    return value


@lru_cache(maxsize=1 << 10)  # once per game; few distinct ends in a match
def final_match_id(
    *,
    length: int,
    score: tuple[int, int],
    cube: int,
    cube_owner: int,
    on_roll: int,
    winner: int | None,
    end: str,
    crawford: bool,
    resign_level: int | None,
    jacoby: bool,
) -> str:
    """The Match ID GNU Backgammon leaves at the end of a game: `score` is the score after it,
    `end` "normal", "resign", "drop" or "unfinished". After a drop the dropper is the one who
    decided; a resignation keeps its level. "" where the state cannot be encoded."""
    try:
        return encode_match_id(
            MatchIdState(
                match_length=length,
                score=score,
                cube=cube,
                cube_owner=cube_owner,
                on_roll=on_roll,
                turn=1 - winner if end == "drop" and winner is not None else on_roll,
                crawford=crawford,
                game_state={"normal": 2, "resign": 3, "drop": 4}.get(end, 1),
                resignation=(resign_level or 0) if end == "resign" else 0,
                dice=(0, 0),
                jacoby=jacoby,
            )
        )
    except IdError:
        return ""


def encode_match_id(state: MatchIdState) -> str:
    """The 12-character GNU Match ID of `state`."""
    cube = state.cube
    if cube < 1 or cube & (cube - 1):
        raise IdError(f"cube value {cube} is not a power of two")
    if state.cube_owner not in (-1, 0, 1):
        raise IdError(f"cube owner must be -1 (centred), 0 or 1, got {state.cube_owner}")
    if state.on_roll not in (0, 1) or state.turn not in (0, 1):
        raise IdError(f"player on roll / to decide must be 0 or 1: {state.on_roll}, {state.turn}")
    fields = (
        (_put(cube.bit_length() - 1, 4, "log2 cube"), 4),
        (3 if state.cube_owner == -1 else state.cube_owner, 2),
        (state.on_roll, 1),
        (_put(state.crawford, 1, "crawford"), 1),
        (_put(state.game_state, 3, "game state"), 3),
        (state.turn, 1),
        (_put(state.double_offered, 1, "double offered"), 1),
        (_put(state.resignation, 2, "resignation"), 2),
        (_put(state.dice[0], 3, "die 1"), 3),
        (_put(state.dice[1], 3, "die 2"), 3),
        (_put(state.match_length, 15, "match length"), 15),
        (_put(state.score[0], 15, "score 0"), 15),
        (_put(state.score[1], 15, "score 1"), 15),
        (0 if state.jacoby else 1, 1),
    )
    bits = 0
    shift = 0
    for value, width in fields:
        bits |= value << shift
        shift += width
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(match_id: str) -> MatchIdState:
    """Decode a 12-character GNU Match ID."""
    text = match_id.strip()
    if len(text) != 12:
        raise IdError(f"Match ID must be 12 characters, got {match_id!r}")
    try:
        bits = int.from_bytes(base64.b64decode(text, validate=True), "little")
    except (binascii.Error, ValueError):
        raise IdError(f"Match ID {match_id!r} is not base64") from None

    def take(offset: int, width: int) -> int:
        return (bits >> offset) & ((1 << width) - 1)

    owner = take(4, 2)
    if owner == 2:
        raise IdError(f"Match ID {match_id!r}: cube owner field is 2 (neither player nor centred)")
    game_state = take(8, 3)
    if game_state > 4:
        raise IdError(f"Match ID {match_id!r}: game state {game_state} is undefined")
    dice = (take(15, 3), take(18, 3))
    if any(d > 6 for d in dice) or (0 in dice and dice != (0, 0)):
        raise IdError(f"Match ID {match_id!r}: dice {dice} are not a roll")
    return MatchIdState(
        match_length=take(21, 15),
        score=(take(36, 15), take(51, 15)),
        cube=1 << take(0, 4),
        cube_owner=-1 if owner == 3 else owner,
        on_roll=take(6, 1),
        turn=take(11, 1),
        crawford=bool(take(7, 1)),
        game_state=game_state,
        double_offered=bool(take(12, 1)),
        resignation=take(13, 2),
        dice=dice,
        jacoby=not take(66, 1),
    )


# --- XGID -----------------------------------------------------------------------------------


def decode_xgid_board(board: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The 26-character XGID board (also XG's `; Set Pos=`) as (X, O): each side's 26 counts
    in its own numbering (index 25 its bar), X being the uppercase player."""
    if len(board) != 26:
        raise IdError(f"an XGID board has 26 characters, got {len(board)}: {board!r}")
    x = [0] * 26
    o = [0] * 26
    for i, ch in enumerate(board):
        if ch == "-":
            continue
        if "A" <= ch <= "P":
            if i == 0:
                raise IdError(f"XGID board {board!r}: index 0 is O's bar, cannot hold X ({ch})")
            x[i] += ord(ch) - ord("A") + 1
        elif "a" <= ch <= "p":
            if i == 25:
                raise IdError(f"XGID board {board!r}: index 25 is X's bar, cannot hold O ({ch})")
            o[BAR if i == 0 else 25 - i] += ord(ch) - ord("a") + 1
        else:
            raise IdError(f"XGID board {board!r}: character {ch!r} at {i}")
    for side, name in ((x, "X"), (o, "O")):
        if sum(side) > 15:
            raise IdError(f"XGID board {board!r}: {name} has {sum(side)} checkers")
    return tuple(x), tuple(o)


def encode_xgid_board(x: tuple[int, ...], o: tuple[int, ...]) -> str:
    """Inverse of decode_xgid_board."""
    chars = []
    for i in range(26):
        xc = x[i] if 1 <= i <= 25 else 0
        oc = o[BAR] if i == 0 else (o[25 - i] if i <= 24 else 0)
        if xc and oc:
            raise IdError(f"XGID board: both players on point {i}")
        if xc < 0 or oc < 0 or xc > 16 or oc > 16:
            raise IdError(f"XGID board: count out of range on point {i}")
        chars.append(chr(ord("A") + xc - 1) if xc else chr(ord("a") + oc - 1) if oc else "-")
    return "".join(chars)


@dataclass(frozen=True, slots=True)
class XgidState:
    """An XGID. X is the uppercase player (drawn at the bottom), O the lowercase one.

    `x` and `o` are each side's 26 counts in its own numbering; `cube` the cube value;
    `cube_owner` 1 X, -1 O, 0 centred; `turn` 1 X, -1 O; `dice` (0, 0) when not rolled, in the
    order written; `cube_action` 'D', 'B' or 'R' while a double, beaver or raccoon awaits an
    answer (dice then (0, 0)); `crawford_jacoby` in a match 1 = Crawford game, in money a
    bitmask 1 Jacoby, 2 beaver; `max_cube` log2 of the cube limit.
    """

    x: tuple[int, ...]
    o: tuple[int, ...]
    cube: int = 1
    cube_owner: int = 0
    turn: int = 1
    dice: tuple[int, int] = (0, 0)
    cube_action: str = ""
    score_x: int = 0
    score_o: int = 0
    crawford_jacoby: int = 0
    match_length: int = 0
    max_cube: int = 10

    def position(self, *, checkers: int = 15) -> Position:
        """The board with the player to move (`turn`) as the mover."""
        if self.turn == 1:
            return Position(self.x, self.o, checkers)
        return Position(self.o, self.x, checkers)


#: Digits of the largest XGID number read (a match length, a score); more is no position.
_XGID_DIGITS = 9


def _quoted(text: str, limit: int = 60) -> str:
    """`text` quoted for a message, cut short past `limit` characters: an XGID of thousands
    of digits must not make a message of thousands of characters."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _int(text: str, name: str, full: str) -> int:
    digits = text.strip().lstrip("+-").lstrip("0")
    if len(digits) > _XGID_DIGITS and digits.isdigit():
        # Also keeps int() below its 4,300-digit limit, past which it raises ValueError.
        raise IdError(f"XGID {_quoted(full)}: {name} {_quoted(text, 20)} is too large")
    try:
        return int(text)
    except ValueError:
        raise IdError(f"XGID {_quoted(full)}: {name} {_quoted(text, 20)} is not a number") from None


def decode_xgid(text: str) -> XgidState:
    """Decode `XGID=...` (the prefix is optional)."""
    full = text.strip()
    body = full[5:] if full.upper().startswith("XGID=") else full
    parts = body.split(":")
    if len(parts) not in (9, 10):
        raise IdError(f"XGID {text!r}: expected 10 fields, got {len(parts)}")
    x, o = decode_xgid_board(parts[0])
    cube_log = _int(parts[1], "cube", full)
    if not 0 <= cube_log <= 15:
        raise IdError(f"XGID {text!r}: cube log2 {cube_log} out of range")
    owner = _int(parts[2], "cube owner", full)
    turn = _int(parts[3], "turn", full)
    if owner not in (-1, 0, 1) or turn not in (-1, 1):
        raise IdError(f"XGID {text!r}: cube owner {owner} / turn {turn} out of range")
    dice_text = parts[4].upper()
    dice = (0, 0)
    action = ""
    if dice_text in ("D", "B", "R"):
        action = dice_text
    elif len(dice_text) == 2 and dice_text.isdigit():
        dice = (int(dice_text[0]), int(dice_text[1]))
        if dice != (0, 0) and not all(1 <= d <= 6 for d in dice):
            raise IdError(f"XGID {text!r}: dice {parts[4]!r}")
    else:
        raise IdError(f"XGID {text!r}: dice {parts[4]!r}")
    length = _int(parts[8], "match length", full)
    scores = (_int(parts[5], "score X", full), _int(parts[6], "score O", full))
    # Scores are points won so far: a match that has reached its length is over.
    if length < 0:
        raise IdError(f"XGID {_quoted(full)}: match length {length} out of range")
    if length == 0 and scores != (0, 0):
        # Money play keeps no score: XG writes 0:0 there, so a score means a damaged XGID.
        named = "score X" if scores[0] else "score O"
        raise IdError(
            f"XGID {_quoted(full)}: {named} {scores[0] if scores[0] else scores[1]} in money "
            "play (match length 0), where the scores must be 0"
        )
    if min(scores) < 0 or (length > 0 and max(scores) >= length):
        raise IdError(
            f"XGID {_quoted(full)}: score X {scores[0]}, O {scores[1]} out of range for "
            + ("money play" if length == 0 else f"a {length}-point match")
        )
    return XgidState(
        x=x,
        o=o,
        cube=1 << cube_log,
        cube_owner=owner,
        turn=turn,
        dice=dice,
        cube_action=action,
        score_x=scores[0],
        score_o=scores[1],
        crawford_jacoby=_int(parts[7], "Crawford/Jacoby", full),
        match_length=length,
        max_cube=_int(parts[9], "max cube", full) if len(parts) == 10 else 10,
    )


def encode_xgid(state: XgidState) -> str:
    """`XGID=...` for `state`."""
    cube = state.cube
    if cube < 1 or cube & (cube - 1):
        raise IdError(f"cube value {cube} is not a power of two")
    if state.cube_action:
        if state.cube_action not in ("D", "B", "R"):
            raise IdError(f"cube action {state.cube_action!r}: use 'D', 'B' or 'R'")
        dice = state.cube_action
    else:
        dice = f"{state.dice[0]}{state.dice[1]}"
    fields = (
        encode_xgid_board(state.x, state.o),
        str(cube.bit_length() - 1),
        str(state.cube_owner),
        str(state.turn),
        dice,
        str(state.score_x),
        str(state.score_o),
        str(state.crawford_jacoby),
        str(state.match_length),
        str(state.max_cube),
    )
    return "XGID=" + ":".join(fields)
