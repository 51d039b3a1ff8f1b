"""Position: construction, numbering, validity, pips, contact, Position IDs and the diagram."""

from __future__ import annotations

import dataclasses

import pytest

from bgparse.rules import Position, PositionError, diagram, legal_plays

from ._shared import read_ids, shared_path

START = Position.initial()


def test_initial_layout_and_numbering() -> None:
    assert START.mover[24] == 2 and START.mover[13] == 5
    assert START.mover[8] == 3 and START.mover[6] == 5
    assert START.mover == START.opponent and START.checkers == 15
    # The opponent's 24-point is the mover's 1-point.
    same = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5})
    assert same == START
    assert START.mover[0] == 0 and START.mover[25] == 0


def test_variants() -> None:
    nack = Position.initial("Nackgammon")
    assert {p: c for p, c in enumerate(nack.mover) if c} == {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
    assert nack.checkers == 15 and nack.off() == (0, 0)
    for n in (1, 2, 3):
        hyper = Position.initial(f"hypergammon-{n}")
        assert hyper.checkers == n
        assert {p for p, c in enumerate(hyper.mover) if c} == set(range(24, 24 - n, -1))
        assert hyper.off() == (0, 0) and hyper.is_valid()
    assert Position.initial("hypergammon") == Position.initial("hypergammon3")
    with pytest.raises(PositionError, match="unknown variant"):
        Position.initial("tavla")


def test_repr_reads_as_constructor() -> None:
    pos = Position.from_points({"bar": 1, 6: 2}, {"bar": 2, 19: 2, 3: 1}, checkers=5)
    assert repr(pos) == (
        "Position.from_points({'bar': 1, 6: 2}, {'bar': 2, 3: 1, 19: 2}, checkers=5)"
    )
    assert eval(repr(pos), {"Position": Position}) == pos
    assert eval(repr(START), {"Position": Position}) == START


def test_immutable_and_hashable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        START.checkers = 3  # type: ignore[misc]
    assert len({START, Position.initial(), START.swap()}) == 1  # the start is symmetric
    other = Position.from_points({6: 1}, {})
    assert len({START, other, other.swap()}) == 3


def test_constructor_checks_shape() -> None:
    assert Position([0] * 26, [0] * 26, 1).mover == (0,) * 26  # type: ignore[arg-type]
    with pytest.raises(PositionError, match="26 ints"):
        Position((0,) * 25, (0,) * 26)
    with pytest.raises(PositionError, match="26 ints"):
        Position((0.5,) * 26, (0,) * 26)  # type: ignore[arg-type]
    with pytest.raises(PositionError, match="checkers"):
        Position((0,) * 26, (0,) * 26, 16)
    with pytest.raises(PositionError, match="checkers"):
        Position((0,) * 26, (0,) * 26, 0)
    with pytest.raises(PositionError, match="point"):
        Position.from_points({26: 1})
    with pytest.raises(PositionError, match="point"):
        Position.from_points({}, {25: 1})


def test_swap() -> None:
    pos = Position.from_points({6: 3, "bar": 1}, {20: 2})
    swapped = pos.swap()
    assert swapped.mover == pos.opponent and swapped.opponent == pos.mover
    assert swapped.swap() == pos


def test_apply_moves_and_hits() -> None:
    pos = Position.from_points({13: 2, 6: 1, "bar": 0}, {10: 1, 4: 2})
    after = pos.apply([(13, 10), (6, 0)]).swap()  # apply puts the other side on roll
    assert after.mover[13] == 1 and after.mover[10] == 1 and after.mover[6] == 0
    assert after.opponent[25] == 1 and after.opponent[15] == 0  # the blot on 10 is on the bar
    assert after.off() == (pos.off()[0] + 1, pos.off()[1])
    with pytest.raises(PositionError, match="no checker"):
        pos.apply([(12, 10)])
    with pytest.raises(PositionError, match="blocked"):
        pos.apply([(6, 4)])
    with pytest.raises(PositionError, match="backwards"):
        pos.apply([(6, 8)])


def test_pips_and_off() -> None:
    assert START.pips() == (167, 167)
    pos = Position.from_points({"bar": 1, 3: 2}, {24: 1})
    assert pos.pips() == (25 + 6, 1)
    assert pos.off() == (12, 14)


def test_contact_and_race() -> None:
    assert START.has_contact() and not START.is_race()
    race = Position.from_points({6: 5, 10: 2}, {11: 3, 20: 4})
    assert race.is_race()
    touching = Position.from_points({6: 5, 12: 2}, {11: 3})
    assert touching.has_contact()
    on_bar = Position.from_points({6: 5}, {"bar": 1, 20: 2})
    assert on_bar.has_contact()  # it must come in through the mover's checkers... or pass them
    mover_on_bar = Position.from_points({"bar": 1}, {2: 2})
    assert mover_on_bar.has_contact()
    assert Position.from_points({6: 1}, {}).is_race()


def test_status_names_each_defect() -> None:
    assert START.status() == () and START.is_valid() and START.defects() == ()
    too_many = Position.from_points({6: 16})
    assert too_many.status() == ("checker-count",)
    shared = Position.from_points({6: 2}, {6: 1})
    assert shared.status() == ("shared-point",)
    negative = Position.from_points({6: -1})
    assert negative.status() == ("negative-count",)
    finished = Position.from_points({}, {})
    assert finished.status() == ("both-finished",)
    slot = Position((1,) + (0,) * 25, START.opponent)
    assert slot.status() == ("slot-zero",)
    many = Position.from_points({6: 17, 5: -1}, {6: 3})
    assert set(many.status()) == {"checker-count", "negative-count", "shared-point"}
    assert len(many.defects()) == 3
    assert all(isinstance(text, str) and text for text in many.defects())
    with pytest.raises(PositionError, match="both colours"):
        legal_plays(shared, (2, 1))
    with pytest.raises(PositionError, match="checkers on the board"):
        too_many.ensure_valid()


def test_position_id_start() -> None:
    assert START.position_id() == "4HPwATDgc/ABMA"
    assert Position.from_position_id("4HPwATDgc/ABMA") == START


def test_position_id_order_quirk() -> None:
    # The ID's first half is the side NOT on roll: a mover with a checker on its bar.
    pos = Position.from_points({"bar": 1, 6: 14}, {24: 15})
    decoded = Position.from_position_id(pos.position_id())
    assert decoded == pos and decoded.mover[25] == 1


def test_position_id_rejects_garbage() -> None:
    for bad in ("4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////"):
        with pytest.raises(PositionError):
            Position.from_position_id(bad)
    with pytest.raises(PositionError):
        Position.from_points({6: -1}).position_id()


@pytest.mark.parametrize("kind", ["contact", "race"])
def test_position_id_round_trip_oracle_ids(kind: str) -> None:
    ids = read_ids(shared_path("oracle", f"wildbg-{kind}.ids"))
    assert len(ids) == 1000
    for pid in ids:
        pos = Position.from_position_id(pid)
        assert pos.is_valid()
        assert pos.position_id() == pid
    if kind == "race":
        assert all(Position.from_position_id(pid).is_race() for pid in ids)


def test_diagram() -> None:
    text = diagram(START)
    lines = text.splitlines()
    assert lines[0].split() == [*map(str, range(13, 19)), "BAR", *map(str, range(19, 25))]
    assert lines[-1].split() == [*map(str, range(12, 6, -1)), "BAR", *map(str, range(6, 0, -1))]
    assert "X off 0, pips 167 (on roll)" in lines[-3]
    assert "O off 0, pips 167" in lines[2]
    assert len({len(line.split("   O off")[0].split("   X off")[0]) for line in lines[1:-1]}) == 1
    # The mover's two back checkers stand on its 24-point: top right; its 6-point bottom right.
    assert lines[2].rstrip().split("|")[3].endswith("X ")
    pos = Position.from_points({"bar": 2, 6: 7}, {"bar": 1, 19: 2})
    text = diagram(pos)
    assert " X2 " in text and " O1 " in text and "  7" in text
    assert "X off 6" in text and "O off 12" in text
