"""legal_plays and verify_play: counts, the collection API, notation, and every reason code."""

from __future__ import annotations

import json
import re

import pytest

from bgparse.model.events import Move
from bgparse.rules import (
    REASONS,
    DiceError,
    LegalPlays,
    Play,
    PlayError,
    Position,
    Step,
    WrittenPlay,
    format_play,
    legal_plays,
    parse_play,
    verify_play,
)

from ._shared import FIXTURES, ROLLS, shared_path

START = Position.initial()

# RULES.md §7: distinct results per roll from the starting position.
START_COUNTS = {
    "11": 42, "21": 15, "31": 16, "41": 14, "51": 8, "61": 10, "22": 75, "32": 17, "42": 18,
    "52": 8, "62": 14, "33": 73, "43": 17, "53": 9, "63": 14, "44": 52, "54": 9, "64": 14,
    "55": 4, "65": 7, "66": 11,
}  # fmt: skip


def test_start_counts_depth_1() -> None:
    got = {f"{a}{b}": len(legal_plays(START, (a, b))) for a, b in ROLLS}
    assert got == START_COUNTS
    assert sum(got.values()) == 447
    # Die order does not matter.
    assert all(len(legal_plays(START, (b, a))) == START_COUNTS[f"{a}{b}"] for a, b in ROLLS)


def test_start_perft_depth_2() -> None:
    fixture = json.loads((FIXTURES / "start_perft.json").read_text())
    assert fixture["depth1"] == 447 and fixture["depth1_by_roll"] == START_COUNTS
    by_roll = {}
    for a, b in ROLLS:
        by_roll[f"{a}{b}"] = sum(
            len(legal_plays(play.after, roll))
            for play in legal_plays(START, (a, b))
            for roll in ROLLS
        )
    assert by_roll == fixture["depth2_by_first_roll"]
    assert sum(by_roll.values()) == fixture["depth2"] == 202782


def test_collection_api() -> None:
    plays = legal_plays(START, (2, 1))
    assert isinstance(plays, LegalPlays) and len(plays) == 15 and not plays.forced
    assert plays.dice_used == 2 and plays.pips_used == 3
    listed = list(plays)
    assert len(listed) == 15 and all(isinstance(p, Play) for p in listed)
    assert len({p.after for p in listed}) == 15
    for i, play in enumerate(listed):
        assert play in plays and play.after in plays
        assert plays.index_of(play.after) == i and plays[i] == play
        assert play.after == START.apply(play.steps)  # both: the other side on roll
        assert all(isinstance(s, Step) and s == (s.src, s.dst, s.hit) for s in play.steps)
    assert START.swap() not in plays and 42 not in plays
    assert plays.positions() == frozenset(p.after for p in listed)
    notations = {p.notation for p in listed}
    assert {"24/21", "13/11 6/5", "24/23 13/11", "6/3", "8/5"} <= notations
    assert repr(plays) == "<LegalPlays 2-1: 15 plays>"


def test_no_move_is_one_empty_play() -> None:
    pos = Position.from_points({"bar": 1}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2})
    plays = legal_plays(pos, (6, 6))
    assert len(plays) == 1 and plays.forced and plays.dice_used == 0
    (play,) = plays
    assert play.steps == () and play.after == pos.swap() and play.notation == ""
    assert pos.swap() in plays and plays.index_of(pos.swap()) == 0


def test_notation() -> None:
    assert format_play([(24, 18, False), (18, 13, False)]) == "24/13"
    assert format_play([(13, 10, True), (10, 4, False)]) == "13/10*/4"
    assert format_play([(25, 21, False), (21, 15, True)]) == "bar/15*"
    assert format_play([(8, 4, False)] * 2 + [(6, 2, True), (6, 2, False)]) == "8/4(2) 6/2* 6/2"
    assert format_play([(6, 0, False), (6, 0, False), (5, 0, False)]) == "6/off(2) 5/off"
    assert format_play([]) == ""
    assert str(Step(25, 20, True)) == "bar/20*"
    assert [(m.points, m.hits, m.count) for m in parse_play("bar/20* 13/7*/4(2), 6/off")] == [
        ((25, 20), (False, True), 1),
        ((13, 7, 4), (False, True, False), 2),
        ((6, 0), (False, False), 1),
    ]
    assert parse_play("25/20 6/0 8/4*(2)")[2].hits == (False, True)
    assert parse_play("8/4(2)*")[0].hits == (False, True)
    assert parse_play("") == ()
    with pytest.raises(PlayError):
        parse_play("13-7")


def test_dice_errors() -> None:
    for bad in [(0, 1), (7, 1), (1,), (1, 2, 3), ("6", 1), (True, 1)]:
        with pytest.raises(DiceError):
            legal_plays(START, bad)  # type: ignore[arg-type]


# --- verify_play ---------------------------------------------------------------------------


def test_verify_accepts_every_input_shape() -> None:
    want = START.apply([(24, 18), (18, 16)])
    shapes: list[WrittenPlay] = [
        "24/16",
        "24/18 18/16",
        [(24, 18), (18, 16)],
        [(18, 16), (24, 18)],
        [Step(24, 18), Step(18, 16)],
        [Move((24, 16), (False, False))],
        [Move((24, 18, 16), (False, False, False))],
        (Move((24, 18), (False, False)), Move((18, 16), (False, False))),
    ]
    for moves in shapes:
        check = verify_play(START, (6, 2), moves)
        assert check.ok and check.after == want and check.reason is None, moves
        assert check.steps == (Step(24, 18), Step(18, 16)) or check.steps == (
            Step(24, 22),
            Step(22, 16),
        )
        assert bool(check) and check.message == "" and not check.ambiguous
    with pytest.raises(PlayError):
        verify_play(START, (6, 2), [object()])  # type: ignore[list-item]
    with pytest.raises(PlayError):
        verify_play(START, (6, 2), [(24, 18, False, 1)])  # type: ignore[list-item]
    with pytest.raises(DiceError):
        verify_play(START, (6,), "24/18")


def test_verify_garbage_counts() -> None:
    check = verify_play(START, (3, 3), [Move((13, 10), (False, False), 10**9)])
    assert check.reason == "too-many-steps" and "at least 5" in check.message
    check = verify_play(START, (3, 3), "13/10 " * 40)
    assert check.reason == "too-many-steps"
    for bad in ([Move((13, 10), (False, False), 0)], [Move((13, 10), (False,), 1)]):
        with pytest.raises(PlayError):
            verify_play(START, (3, 1), bad)


def test_verify_merged_notation() -> None:
    assert verify_play(START, (6, 5), "24/13").ok
    assert verify_play(START, (4, 4), [Move((24, 16), (False, False), 2)]).ok
    assert verify_play(START, (4, 4), "24/20(2) 13/9(2)").ok
    six = Position.from_points({6: 2}, {24: 1})
    check = verify_play(six, (6, 6), "6/off(2)")
    assert check.ok and check.after.off()[1] == 15
    bar = Position.from_points({"bar": 1, 6: 5}, {})
    assert verify_play(bar, (6, 5), "bar/14").ok
    run = Position.from_points({22: 1, 6: 3}, {})
    assert verify_play(run, (4, 4), "22/6").after == run.apply([(22, 6)])
    lone = Position.from_points({10: 1}, {})
    for dice in ((6, 5), (5, 6)):
        check = verify_play(lone, dice, "10/off")
        assert check.ok and check.after.is_game_over()
    assert verify_play(lone, (6, 3), "10/off").reason == "wrong-dice"


def test_verify_intermediate_hits() -> None:
    # Blot on 10 only: unmarked 13/4 is the route via 7; 13/4* with 4 empty means via 10.
    pos = Position.from_points({13: 1}, {10: 1})
    quiet = verify_play(pos, (6, 3), "13/4")
    assert quiet.ok and quiet.after.mover[25] == 0 and quiet.hit_star_mismatch == ()
    loud = verify_play(pos, (6, 3), "13/4*")
    assert loud.ok and loud.after.mover[25] == 1 and not loud.ambiguous
    assert loud.steps == (Step(13, 10, True), Step(10, 4, False))
    # Blots on 10 and 7: every route hits, and the two routes hit different checkers.
    both = Position.from_points({13: 1}, {10: 1, 7: 1})
    check = verify_play(both, (6, 3), "13/4")
    assert check.ok and check.ambiguous and "several" in check.message
    assert check.hit_star_mismatch == ((13, 4, "hit-without-star"),)
    assert not verify_play(both, (6, 3), "13/7*/4").ambiguous
    # Only route open hits: taken, and the missing star is noted.
    forced = Position.from_points({13: 1}, {10: 1, 7: 2})
    check = verify_play(forced, (6, 3), "13/4")
    assert check.ok and check.after.mover[25] == 1
    assert check.hit_star_mismatch == ((13, 4, "hit-without-star"),)


def test_verify_star_notes() -> None:
    check = verify_play(START, (4, 2), "24/20* 24/22*")
    assert check.ok
    assert check.hit_star_mismatch == ((24, 20, "star-without-hit"), (24, 22, "star-without-hit"))
    pos = Position.from_points({8: 2, 6: 2}, {4: 1})
    check = verify_play(pos, (4, 2), "8/4 6/4")
    assert check.ok and check.hit_star_mismatch == ((8, 4, "hit-without-star"),)
    assert check.steps[0].hit and not check.steps[1].hit


def test_verify_dance() -> None:
    closed = Position.from_points({"bar": 1, 6: 2}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2})
    check = verify_play(closed, (3, 1), [])
    assert check.ok and check.after == closed.swap() and check.steps == ()
    check = verify_play(START, (3, 1), "")
    assert not check.ok and check.reason == "missing-play" and check.after == START.swap()
    assert "16 legal plays" in check.message


# Each reason code, with the record the lenient `after` must follow.
REASON_CASES = [
    ("dice-invalid", START, (7, 2), "24/17 24/22", [(24, 22)]),  # 17 is O's 8-point
    ("bad-point", START, (4, 2), [Move((1, -3), (False, False)), Move((24, 22), (False, False))],
     [(24, 22)]),
    ("bad-point", START, (4, 2), [(24, 26)], []),
    ("too-many-steps", START, (4, 2), "24/20 24/22 13/11", [(24, 20), (24, 22), (13, 11)]),
    ("too-many-steps", START, (3, 3), "13/10 8/5 6/3 6/3 6/3",
     [(13, 10), (8, 5), (6, 3), (6, 3), (6, 3)]),
    ("wrong-dice", START, (4, 2), "24/18 13/11", [(24, 18), (13, 11)]),
    ("wrong-dice", START, (4, 2), "13/7 13/11", [(13, 7), (13, 11)]),
    ("wrong-dice", START, (4, 2), "24/21 24/21", [(24, 21), (24, 21)]),
    ("wrong-dice", START, (4, 2), "24/17", []),
    ("no-checker", START, (4, 2), "10/6 24/22", [(24, 22)]),
    ("blocked-point", START, (4, 1), "13/9 13/12", [(13, 9)]),
    ("bar-not-cleared", Position.from_points({"bar": 1, 13: 2, 8: 2}, {}), (6, 1), "13/7 8/7",
     [(13, 7), (8, 7)]),
    ("bear-off-not-home", START, (4, 2), "6/2 2/0", [(6, 2), (2, 0)]),
    ("bear-off-not-highest", Position.from_points({6: 1, 3: 1}, {}), (5, 4), "6/2 2/off",
     [(6, 2), (2, 0)]),
    ("fewer-dice-than-possible", START, (4, 2), "24/20", [(24, 20)]),
    ("fewer-dice-than-possible", START, (3, 3), "13/10 8/5", [(13, 10), (8, 5)]),
    ("higher-die-not-played", Position.from_points({13: 1}, {2: 2}), (6, 5), "13/8", [(13, 8)]),
    ("missing-play", START, (4, 2), "", []),
]  # fmt: skip


@pytest.mark.parametrize(("reason", "pos", "dice", "moves", "as_written"), REASON_CASES)
def test_verify_reasons(
    reason: str,
    pos: Position,
    dice: tuple[int, int],
    moves: WrittenPlay,
    as_written: list[tuple[int, int]],
) -> None:
    check = verify_play(pos, dice, moves)
    assert not check.ok and not bool(check)
    assert check.reason == reason, check.message
    assert check.message
    assert check.after == pos.apply(as_written)
    if reason != "dice-invalid":
        alternatives = check.alternatives
        assert alternatives is not None and len(alternatives) >= 1
        assert check.after not in alternatives
    else:
        assert check.alternatives is None


def test_every_reason_code_is_exercised() -> None:
    assert {case[0] for case in REASON_CASES} == set(REASONS)


def test_alternatives_are_lazy_and_cached() -> None:
    check = verify_play(START, (4, 2), "24/20 24/22")
    assert check.ok and check.cache == []
    first = check.alternatives
    assert first is not None and len(first) == 18 and check.alternatives is first


def test_position_must_be_valid() -> None:
    from bgparse.rules import PositionError

    with pytest.raises(PositionError):
        verify_play(Position.from_points({6: 16}), (2, 1), "6/4 6/5")


# --- the corpus ----------------------------------------------------------------------------


def test_gnubg_sample_plays_are_all_legal() -> None:
    folder = shared_path("corpus", "gnubg-sample")
    count = 0
    for path in sorted(folder.glob("*.mat.truth.json")):
        for game in json.loads(path.read_text())["games"]:
            for action in game.get("actions") or []:
                if action["action"] != "move" or "board" not in action:
                    continue
                pos = Position.from_position_id(action["board"])
                dice = tuple(action["dice"])
                steps = [tuple(step) for step in action["move"]]
                check = verify_play(pos, dice, steps)
                assert check.ok, (path.name, action, check.reason, check.message)
                assert check.after == pos.apply(steps)
                assert check.after in legal_plays(pos, dice)
                count += 1
    assert count > 8000


# What each edited record of corpus/gnubg-illegal must give (EXPECTED.tsv has the verdicts).
ILLEGAL_REASONS = {
    "a_pips_not_dice.mat": "wrong-dice",
    "a2_pips_not_dice_nosum.mat": "wrong-dice",
    "b_same_sum_wrong_dice.mat": "wrong-dice",
    "c_blocked_point.mat": "blocked-point",
    "d_from_empty_point.mat": "no-checker",
    "e_bearoff_not_home.mat": "bear-off-not-home",
    "f_only_one_die.mat": "fewer-dice-than-possible",
    "g_no_move_but_legal.mat": "missing-play",
    "h_three_submoves.mat": "too-many-steps",
    "i_ignore_bar.mat": "bar-not-cleared",
    "j_die_7.mat": "dice-invalid",
    "n_star_without_hit.mat": "star-without-hit",
    "o_hit_without_star.mat": "hit-without-star",
    "p_doubles_five_sub.mat": "too-many-steps",
    "q_doubles_two_sub.mat": "fewer-dice-than-possible",
    "r_consolidated_legal.mat": None,
    "s_consolidated_illeg.mat": "wrong-dice",
    "t_move_opponent_chq.mat": "bad-point",
    "v_bar_entry_blocked.mat": "blocked-point",
}


def _cells(path_text: str) -> list[tuple[tuple[int, int], tuple[Move, ...]]]:
    """The plays of a one-game .mat in order (a throwaway reader for these files only)."""
    plays = []
    for line in path_text.splitlines():
        if not re.match(r"\s*\d+\)", line):
            continue
        for dice, text in re.findall(r"(\d\d):([^:]*?)(?=\s+\d\d:|$)", line.split(")", 1)[1]):
            moves = []
            for token in text.split():
                parts = token.split("/")
                points = tuple(int(p.rstrip("*")) for p in parts)
                hits = tuple(p.endswith("*") and i > 0 for i, p in enumerate(parts))
                moves.append(Move(points, hits))
            plays.append(((int(dice[0]), int(dice[1])), tuple(moves)))
    return plays


def test_gnubg_illegal_edits() -> None:
    folder = shared_path("corpus", "gnubg-illegal")
    expected = {}
    for row in (folder / "EXPECTED.tsv").read_text().splitlines()[1:]:
        name, _line, verdict, _what = row.split("\t")
        expected[name] = verdict
    truth = json.loads((folder / "00_orig.mat.truth.json").read_text())
    boards = [a["board"] for a in truth["games"][0]["actions"] if a["action"] == "move"]
    original = _cells((folder / "00_orig.mat").read_text())
    assert len(original) == len(boards) == 4
    for (dice, moves), board in zip(original, boards, strict=True):
        assert verify_play(Position.from_position_id(board), dice, moves).ok
    for name, want in ILLEGAL_REASONS.items():
        plays = _cells((folder / name).read_text())
        changed = [i for i, play in enumerate(plays) if play != original[i]]
        assert len(changed) == 1, name
        i = changed[0]
        check = verify_play(Position.from_position_id(boards[i]), *plays[i])
        if expected[name] == "clean":
            assert want is None and check.ok and not check.hit_star_mismatch, name
        elif expected[name] == "warning":
            assert check.ok and {kind for _, _, kind in check.hit_star_mismatch} == {want}, name
        else:
            assert not check.ok and check.reason == want, (name, check.reason, check.message)


@pytest.mark.parametrize("kind", ["contact", "race"])
def test_wildbg_totals(kind: str) -> None:
    """Distinct results over the 21 rolls for the 2,000 wildbg positions, against the totals
    GNU Backgammon's generator gives (fixtures/wildbg_totals.json, made by make_fixtures.py)."""
    path = shared_path("oracle", f"wildbg-{kind}.ids")
    fixture = json.loads((FIXTURES / "wildbg_totals.json").read_text())[kind]
    ids = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    assert len(ids) == fixture["positions"]
    per = []
    for pid in ids:
        pos = Position.from_position_id(pid)
        counts = {roll: len(legal_plays(pos, roll)) for roll in ROLLS}
        per.append(
            [
                sum(n for (a, b), n in counts.items() if a == b),
                sum(n for (a, b), n in counts.items() if a != b),
            ]
        )
    pairs = zip(ids, per, fixture["per_position"], strict=True)
    wrong = [(pid, got, want) for pid, got, want in pairs if got != want]
    assert not wrong, wrong[:5]
    assert sum(p[0] for p in per) == fixture["doubles"]
    assert sum(p[1] for p in per) == fixture["mixed"]
