"""bgparse's rules engine against GNU Backgammon's move generator (the gnubg-nn package).

gnubg-nn is GPL and an optional test dependency: used here as an outside oracle only, never
by the bgparse package. Its board is [opponent, mover], 25 ints each, index i = point i + 1,
index 24 = bar; `moves(board, d1, d2)` gives one position key per distinct legal result, the
board before the turn passes ([opponent after hits, mover after the play]).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from bgparse.rules import Play, Position, legal_plays, verify_play

from ._shared import FIXTURES, ROLLS, read_ids, shared_path

pytestmark = pytest.mark.oracle
g: Any = pytest.importorskip("gnubg_nn")

SELF_PLAY_PAIRS = 100_000


def board_of(pos: Position) -> list[list[int]]:
    return [list(pos.opponent[1:]), list(pos.mover[1:])]


def key_after(after: Position) -> str:
    """gnubg's key of the board a play leads to (before the turn passes)."""
    return str(g.key_of_board([list(after.mover[1:]), list(after.opponent[1:])]))


def position_from_board(board: Any) -> Position:
    return Position((0, *board[1]), (0, *board[0]))


def closed_board_against(pos: Position) -> bool:
    return pos.mover[25] > 0 and all(pos.opponent[q] >= 2 for q in range(1, 7))


def blocking_score(play: Play) -> int:
    """How strongly a play builds the mover's home board and sends checkers back: a crude
    policy that makes the walk reach closed boards, which purely random play almost never does."""
    mover_after = play.after.opponent
    return 3 * sum(mover_after[p] >= 2 for p in range(1, 7)) + 2 * play.after.mover[25]


def test_random_self_play_matches_gnubg() -> None:
    rng = random.Random(20250)
    seen: Counter[str] = Counter()
    pos = Position.initial()
    for _ in range(SELF_PLAY_PAIRS):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        board = board_of(pos)
        plays = legal_plays(pos, (d1, d2))
        gnubg = g.moves(board, d1, d2, 1)
        theirs = {key for key, _ in gnubg}
        if plays.dice_used == 0:
            assert not theirs, (pos, (d1, d2))
            seen["dance"] += 1
        else:
            ours = {key_after(play.after) for play in plays}
            assert len(ours) == len(plays)
            assert ours == theirs, (pos, (d1, d2), len(ours), len(theirs))
        # Keep the ID codec honest on every position reached.
        if pos.checkers == 15:
            assert pos.position_id() == g.position_id(board)
        # gnubg's own play, as steps, must verify to the same result (its step tuples are cut
        # short after a bear-off, so only uncut ones can be checked).
        if gnubg:
            key, steps = gnubg[rng.randrange(len(gnubg))]
            if len(steps) == plays.dice_used:
                check = verify_play(pos, (d1, d2), [tuple(step) for step in steps])
                assert check.ok and key_after(check.after) == key, (pos, (d1, d2), steps)
                seen["gnubg-play-verified"] += 1
        if rng.random() < 0.3:
            play = plays[rng.randrange(len(plays))]
        else:
            play = max(plays, key=blocking_score)
        assert verify_play(pos, (d1, d2), play.steps).after == play.after
        seen["bar"] += pos.mover[25] > 0
        seen["closed-board"] += closed_board_against(pos)
        seen["bear-off"] += any(step.dst == 0 for step in play.steps)
        seen["hit"] += any(step.hit for step in play.steps)
        seen["doubles"] += d1 == d2
        pos = play.after
        if pos.is_game_over():
            seen["games"] += 1
            variant = rng.choice(["standard"] * 6 + ["nackgammon", "hypergammon1", "hypergammon3"])
            pos = Position.initial(variant)
    # The walk must have reached every kind of position it is meant to test.
    for kind, least in {
        "games": 300,
        "dance": 1000,
        "bar": 5000,
        "closed-board": 100,
        "bear-off": 5000,
        "hit": 5000,
        "gnubg-play-verified": 50_000,
    }.items():
        assert seen[kind] >= least, (kind, seen)


def test_position_ids_match_gnubg() -> None:
    for kind in ("contact", "race"):
        for pid in read_ids(shared_path("oracle", f"wildbg-{kind}.ids")):
            pos = Position.from_position_id(pid)
            board = g.board_from_position_id(pid)
            assert pos == position_from_board(board)
            assert pos.position_id() == g.position_id(board) == pid


def test_wildbg_fixture_matches_gnubg() -> None:
    fixture = json.loads((FIXTURES / "wildbg_totals.json").read_text())
    for kind in ("contact", "race"):
        ids = read_ids(shared_path("oracle", f"wildbg-{kind}.ids"))
        per = []
        for pid in ids:
            board = g.board_from_position_id(pid)
            counts = {roll: len(g.moves(board, *roll)) or 1 for roll in ROLLS}
            per.append(
                [
                    sum(n for (a, b), n in counts.items() if a == b),
                    sum(n for (a, b), n in counts.items() if a != b),
                ]
            )
        assert per == fixture[kind]["per_position"]


def test_start_perft_fixture_matches_gnubg() -> None:
    fixture = json.loads((FIXTURES / "start_perft.json").read_text())
    start = g.board_from_position_id("4HPwATDgc/ABMA")
    total = 0
    for d1, d2 in ROLLS:
        keys = g.moves(start, d1, d2)
        assert len(keys) == fixture["depth1_by_roll"][f"{d1}{d2}"]
        for key in keys:
            opp, mover = g.board_from_position_key(key)
            nxt = [list(mover), list(opp)]
            total += sum(len(g.moves(nxt, a, b)) or 1 for a, b in ROLLS)
    assert total == fixture["depth2"]
