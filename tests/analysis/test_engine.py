"""The bgsage adapter: its plays are bgparse's legal plays, its equities are GNU's units (EMG
normalised to the cube, double/pass +1), its luck averages to nothing, and it repeats itself."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

pytest.importorskip("bgsage")

from bgparse.analysis.engine import (
    DEFAULT_LEVEL,
    LEVELS,
    CubeInfo,
    Engine,
)
from bgparse.helpers.errors import RulesError, UsageError
from bgparse.model.verified import Turn
from bgparse.readers import iter_records
from bgparse.replay import replay
from bgparse.replay.generate import generate_match
from bgparse.rules import Position, legal_plays
from bgparse.writers import write_sgf

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
MONEY = CubeInfo()


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.open()


def _cube_of(turn: Turn, rules: dict[str, object]) -> CubeInfo:
    owner = -1 if turn.cube_owner == -1 else (0 if turn.cube_owner == turn.side else 1)
    money = turn.away is None
    return CubeInfo(
        turn.cube_value,
        owner,
        turn.away,
        turn.crawford,
        jacoby=money and bool(rules.get("jacoby")),
        beavers=money and bool(rules.get("beavers")),
    )


def _plays(
    seed: str, length: int, every: int = 3
) -> Iterator[tuple[Position, tuple[int, int], CubeInfo]]:
    # The generator keeps no positions: its SGF (which carries the money rules) replayed does.
    [record] = iter_records(write_sgf(generate_match(seed, length)).encode(), "generated.sgf")
    match = replay(record)
    for game in match.games:
        for turn in game.turns[::every]:
            if turn.kind in ("play", "dance") and turn.dice is not None:
                yield turn.position, turn.dice, _cube_of(turn, dict(match.rules))


def test_levels_use_gnu_numbering() -> None:
    assert DEFAULT_LEVEL == "0ply"
    assert LEVELS["0ply"] == 1  # GNU's 0-ply is bgsage's "1ply", the network alone
    with pytest.raises(UsageError, match="0ply"):
        Engine.open("4ply")


def test_opening_31_is_8_5_6_5(engine: Engine) -> None:
    (result,) = engine.checker([(Position.initial(), (3, 1), MONEY)])
    assert result.best.play == "8/5 6/5"
    assert result.n_legal == len(result.candidates) == 16
    equities = [c.equity for c in result.candidates]
    assert equities == sorted(equities, reverse=True)
    assert result.loss(result.best.after) == 0.0


def test_candidates_are_the_legal_plays(engine: Engine) -> None:
    items = [*_plays("engine-money", 0), *_plays("engine-match", 7)]
    assert len(items) > 100
    for (position, dice, _), result in zip(items, engine.checker(items), strict=True):
        legal = legal_plays(position, dice)
        assert result.n_legal == len(legal) == len(result.candidates)
        assert {c.after for c in result.candidates} == legal.positions()
        assert {c.play for c in result.candidates} == {p.notation for p in legal}
        for c in result.candidates:
            assert -3.0 <= c.equity <= 3.0
            assert 0.0 <= c.probabilities.win <= 1.0
            assert (
                c.probabilities.win_backgammon <= c.probabilities.win_gammon <= c.probabilities.win
            )
            assert c.level == DEFAULT_LEVEL


def test_cube_equities_in_gnu_units(engine: Engine) -> None:
    items = [
        (position, cube)
        for position, _, cube in [*_plays("engine-money", 0, 5), *_plays("engine-match", 7, 5)]
    ]
    for (_, cube), result in zip(items, engine.cube(items), strict=True):
        assert result.double_pass == pytest.approx(1.0)
        assert math.isfinite(result.no_double) and math.isfinite(result.double_take)
        if cube.away is None:
            # Normalised to the cube before the double: taking doubles what is at stake.
            assert -3.0 <= result.no_double <= 3.0
            assert -6.0 <= result.double_take <= 6.0
        assert result.can_double == cube.can_double


def test_money_equity_is_normalised_to_the_cube(engine: Engine) -> None:
    start = Position.initial()
    two, four = engine.cube([(start, CubeInfo(2, 0)), (start, CubeInfo(4, 0))])
    assert two.no_double == pytest.approx(four.no_double)
    (centred,) = engine.cube([(start, CubeInfo())])
    assert centred.double_pass == two.double_pass == 1.0
    assert centred.no_double < two.no_double  # owning the cube is worth something


def test_forced_plays_have_one_candidate(engine: Engine) -> None:
    # The mover on the bar against a closed board: the roll cannot be played.
    shut = Position.from_points(
        {"bar": 2, 6: 13}, {18: 3, 19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}
    )
    # A lone checker on the 2-point bears off with any roll, here 6-6.
    lone = Position.from_points({2: 1}, {1: 2, 12: 5})
    (dance, off) = engine.checker([(shut, (3, 1), MONEY), (lone, (6, 6), MONEY)])
    assert dance.n_legal == 1 and dance.best.play == "" and dance.best.after == shut.swap()
    assert off.n_legal == 1 and off.best.play == "2/off"
    assert off.best.probabilities.win == pytest.approx(1.0)


def test_last_checker_off_uses_both_dice(engine: Engine) -> None:
    # bgsage also lists 2/off for 6-1 (the game won with a die unplayed); the rules want both
    # dice used where they can be, and bgparse's legal plays are the candidates.
    position = Position.from_position_id("WyvIAiECAAAAAA")
    (result,) = engine.checker([(position, (6, 1), MONEY)])
    assert [c.play for c in result.candidates] == ["2/1*/off"] and result.n_legal == 1
    with pytest.raises(RulesError, match="dice"):
        engine.luck([(position, (7, 1), MONEY)])


def test_luck_averages_to_nothing(engine: Engine) -> None:
    # Opponent points in the mover's numbering (their 6-point is the mover's 19).
    position = Position.from_points(
        {6: 4, 8: 3, 13: 4, 24: 2, 5: 2}, {19: 3, 17: 3, 12: 5, 1: 2, 21: 2}
    )
    for cube in (MONEY, CubeInfo(2, 1, (5, 3))):
        lucks = engine.luck([(position, roll, cube) for roll in ROLLS])
        mean = sum(luck * (1 if a == b else 2) for luck, (a, b) in zip(lucks, ROLLS, strict=True))
        assert mean / 36 == pytest.approx(0.0, abs=1e-6)
        assert max(lucks) > 0.05 > -0.05 > min(lucks)


def test_opening_luck_averages_to_nothing_over_both_sides(engine: Engine) -> None:
    start = Position.initial()
    non_doubles = [r for r in ROLLS if r[0] != r[1]]
    cube = CubeInfo(1, -1, (3, 7))  # an uneven score: the two sides' rolls are worth different
    mine = engine.luck([(start, r, cube) for r in non_doubles])
    theirs = engine.luck([(start, r, cube.swapped()) for r in non_doubles])
    # Each of the 30 ways the opening can go, luck from the first side's view.
    assert (sum(mine) - sum(theirs)) / 30 == pytest.approx(0.0, abs=1e-6)
    # In money the start is symmetric: an opening roll's luck is its play's equity.
    (luck_31,) = engine.luck([(start, (1, 3), MONEY)])
    (play_31,) = engine.checker([(start, (3, 1), MONEY)])
    assert luck_31 == pytest.approx(play_31.best.equity)


def test_match_play_is_normalised(engine: Engine) -> None:
    position = Position.from_points(
        {6: 5, 8: 3, 13: 4, 24: 1, 4: 2}, {19: 5, 17: 3, 12: 5, 1: 1, 5: 1}
    )
    dmp = CubeInfo(1, -1, (1, 1))
    assert not dmp.can_double
    (cube,) = engine.cube([(position, dmp)])
    assert not cube.can_double and not cube.should_double
    assert cube.double_pass == 1.0
    # Double match point: gammons count for nothing, equity is 2 * wins - 1.
    (play,) = engine.checker([(position, (4, 2), dmp)])
    for c in play.candidates:
        assert c.equity == pytest.approx(2 * c.probabilities.win - 1, abs=1e-5)
    # A dead cube of 2 at 2-away 2-away is the same game, in the same units.
    (dead,) = engine.checker([(position, (4, 2), CubeInfo(2, 0, (2, 2)))])
    assert [c.equity for c in dead.candidates] == pytest.approx([c.equity for c in play.candidates])


def test_can_double_follows_gnu() -> None:
    assert CubeInfo().can_double and CubeInfo(4, 0).can_double
    assert not CubeInfo(2, 1).can_double
    assert not CubeInfo(1, -1, (2, 1), crawford=True).can_double
    assert CubeInfo(1, -1, (2, 1)).can_double  # post-Crawford trailer
    assert not CubeInfo(1, -1, (1, 2)).can_double  # post-Crawford leader
    assert not CubeInfo(2, 0, (2, 5)).can_double  # the cube already covers what I need
    assert CubeInfo(2, 0, (3, 5)).can_double


def test_deterministic_and_batch_independent(engine: Engine) -> None:
    items = list(_plays("engine-repeat", 5, 7))[:40]
    once = engine.checker(items)
    assert engine.checker(items) == once
    assert [engine.checker([item])[0] for item in items[:10]] == once[:10]
    cubes = [(p, c) for p, _, c in items]
    assert engine.cube(cubes) == engine.cube(cubes)
    assert engine.luck(items[:5]) == engine.luck(items[:5])


def test_refuses_what_bgsage_cannot_take(engine: Engine) -> None:
    with pytest.raises(RulesError, match="15-checker"):
        engine.checker([(Position.initial("hypergammon3"), (3, 1), MONEY)])
    with pytest.raises(RulesError, match="power of 2"):
        CubeInfo(3)
    with pytest.raises(RulesError, match="Crawford"):
        CubeInfo(1, -1, (3, 4), crawford=True)


def test_deeper_level_values_its_best_play_at_that_level() -> None:
    deeper = Engine.open("1ply")
    assert deeper.level == "1ply" and deeper.name == "bgsage" and deeper.version
    (result,) = deeper.checker([(Position.initial(), (3, 1), MONEY)])
    assert result.best.play == "8/5 6/5" and result.best.level == "1ply"
    assert {c.level for c in result.candidates} <= {"0ply", "1ply"}
