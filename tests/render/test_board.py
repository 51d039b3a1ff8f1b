"""The SVG board: random positions drawn and read back with an XML parser."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgparse.render.board import Board, CubeOwner, board_svg
from bgparse.rules import BAR, Position, legal_plays

NS = "{http://www.w3.org/2000/svg}"


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any position a board can show: each side's checkers on points, bar or off, never
    both sides on one point."""
    checkers = draw(st.integers(1, 15))
    mover = [0] * 26
    opponent = [0] * 26
    for _ in range(checkers):
        where = draw(st.integers(0, 25))  # 0 off, 25 bar
        if 1 <= where <= 24 and opponent[25 - where]:
            where = 0
        if where:
            mover[where] += 1
    for _ in range(checkers):
        where = draw(st.integers(0, 25))  # opponent's own numbering
        if 1 <= where <= 24 and mover[25 - where]:
            where = 0
        if where:
            opponent[where] += 1
    return Position(tuple(mover), tuple(opponent), checkers)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # raises on anything that is not well-formed XML


def checkers_at(root: ET.Element) -> Counter[tuple[str, str]]:
    found: Counter[tuple[str, str]] = Counter()
    for el in root.iter():
        if el.get("class") == "checker":
            found[(el.get("data-side", ""), el.get("data-point", ""))] += 1
    return found


def labels_at(root: ET.Element) -> dict[tuple[str, str], int]:
    return {
        (el.get("data-side", ""), el.get("data-point", "")): int(el.text or "")
        for el in root.iter(f"{NS}text")
        if el.get("class") == "stack-count"
    }


def point_spans(root: ET.Element) -> dict[str, tuple[float, float, float, float]]:
    """Each point triangle's bounding box (x0, x1, y0, y1), by its number."""
    spans = {}
    for el in root.iter(f"{NS}polygon"):
        if el.get("class") == "point":
            xy = [tuple(map(float, p.split(","))) for p in el.get("points", "").split()]
            xs, ys = [x for x, _ in xy], [y for _, y in xy]
            spans[el.get("data-point", "")] = (min(xs), max(xs), min(ys), max(ys))
    return spans


def expected(pos: Position) -> dict[tuple[str, str], int]:
    want: dict[tuple[str, str], int] = {}
    for p in range(1, 25):
        if pos.mover[p]:
            want[("mover", str(p))] = pos.mover[p]
        if pos.opponent[25 - p]:
            want[("opponent", str(p))] = pos.opponent[25 - p]
    if pos.mover[BAR]:
        want[("mover", "bar")] = pos.mover[BAR]
    if pos.opponent[BAR]:
        want[("opponent", "bar")] = pos.opponent[BAR]
    off_mover, off_opponent = pos.off()
    if off_mover:
        want[("mover", "off")] = off_mover
    if off_opponent:
        want[("opponent", "off")] = off_opponent
    return want


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pos=positions(),
    dice=st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)),
    cube=st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
    owner=st.sampled_from(["centre", "mover", "opponent"]),
    names=st.tuples(st.text(max_size=12), st.text(max_size=12)),
)
def test_random_positions_are_drawn_where_the_position_says(
    pos: Position,
    dice: tuple[int, int] | None,
    cube: int,
    owner: CubeOwner,
    names: tuple[str, str],
) -> None:
    # Names with markup characters must not break the XML (text is escaped, never pasted).
    names = tuple(n.replace("\x00", "") for n in names)  # type: ignore[assignment]
    names = tuple("".join(ch for ch in n if ch.isprintable()) for n in names)  # type: ignore[assignment]
    root = parse(board_svg(pos, Board(dice=dice, cube=cube, cube_owner=owner, names=names)))
    drawn = checkers_at(root)
    labels = labels_at(root)
    for (side, point), count in expected(pos).items():
        shown = count if point == "off" else min(count, 4 if point == "bar" else 5)
        assert drawn[(side, point)] == shown, (side, point, count)
        if shown < count:
            assert labels[(side, point)] == count
        else:
            assert (side, point) not in labels
    assert set(drawn) == set(expected(pos))
    # Each point's checkers stand on that point's triangle, in its half of the board.
    spans = point_spans(root)
    assert len(spans) == 24
    for el in root.iter(f"{NS}circle"):
        if el.get("class") == "checker" and el.get("data-point", "").isdigit():
            x0, x1, y0, y1 = spans[el.get("data-point", "")]
            cx, cy = float(el.get("cx", "")), float(el.get("cy", ""))
            assert x0 <= cx <= x1
            assert y0 - 20 <= cy <= y1 + 20
    cubes = [el for el in root.iter() if el.get("class") == "cube"]
    assert [(c.get("data-value"), c.get("data-owner")) for c in cubes] == [(str(cube), owner)]
    dice_drawn = [int(el.get("data-value", "")) for el in root.iter() if el.get("class") == "die"]
    assert dice_drawn == (list(dice) if dice else [])
    if dice:
        pips = [
            sum(1 for c in el if c.get("class") == "pip")
            for el in root.iter()
            if el.get("class") == "die"
        ]
        assert pips == list(dice)


def test_pip_counts_score_and_length_are_written() -> None:
    pos = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {19: 5, 17: 3, 12: 5, 1: 2})
    root = parse(board_svg(pos, Board(score=(3, 5), match_length=7, names=("Ann", "Bob"))))
    texts = {el.get("class"): el.text for el in root.iter(f"{NS}text") if el.get("class")}
    assert texts["side-mover"] == "Ann, pips 167, score 3 (on roll)"
    assert texts["side-opponent"] == "Bob, pips 167, score 5"
    assert texts["match-length"] == "7-point match"
    numbers = [el.text for el in root.iter(f"{NS}text") if el.get("class") == "point-number"]
    assert sorted(map(int, numbers)) == list(range(1, 25))


def test_play_is_drawn_as_one_arrow_per_step() -> None:
    pos = Position.initial()
    play = next(p for p in legal_plays(pos, (6, 6)) if p.notation == "24/18(2) 13/7(2)")
    steps = tuple((s.src, s.dst) for s in play.steps)
    root = parse(board_svg(pos, Board(dice=(6, 6), play=steps)))
    arrows = [
        (a.get("data-from"), a.get("data-to")) for a in root.iter() if a.get("class") == "arrow"
    ]
    assert sorted(arrows) == sorted([("24", "18"), ("24", "18"), ("13", "7"), ("13", "7")])


def test_bar_and_bear_off_arrows_name_bar_and_off() -> None:
    pos = Position.from_points({"bar": 1, 1: 1}, {})
    root = parse(board_svg(pos, Board(play=((BAR, 22), (1, 0)))))
    arrows = [
        (a.get("data-from"), a.get("data-to")) for a in root.iter() if a.get("class") == "arrow"
    ]
    assert arrows == [("bar", "22"), ("1", "off")]


def test_names_with_markup_are_escaped() -> None:
    svg = board_svg(Position.initial(), Board(names=("Ann [/club] <b>&", "O")))
    root = parse(svg)
    mover = next(el for el in root.iter(f"{NS}text") if el.get("class") == "side-mover")
    assert mover.text == "Ann [/club] <b>&, pips 167 (on roll)"
