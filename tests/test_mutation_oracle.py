"""Mutation test of the replay against GNU Backgammon's move generator (issue 4, item 3).

Games GNU Backgammon played against itself (`../shared/corpus/gnubg/*.mat`, and the sample set
whose truth lists the board before every action) are changed in ONE roll cell: the play replaced
by another legal play, a step dropped, added or moved, a step sent to a blocked point or from
the bar, the steps reordered, the play removed, or one die changed. The changed cell is written
into the file's own text in GNU's style (single-die steps, `25` for the bar, `0` for off, a star
on each hit) and the real reader reads it. Then bgparse must report an error at exactly that
cell if and only if GNU's move generator (gnubg-nn, `tests/_gnubg_oracle.py`) says the new play
is illegal in the position before the turn, and nothing new before it. Findings after the cell
are not compared: an illegal change may throw the rest of the game off.

The position before the turn is bgparse's own (the replay of the unchanged file), checked
against GNU's: the recorded play must be legal there per gnubg and lead to the position bgparse
has before the next roll; in the sample set it must equal the truth file's board.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgparse.model.events import CannotMove, Comment, Loss, Resign, Roll, Win
from bgparse.model.findings import Finding, Severity
from bgparse.readers import iter_records
from bgparse.replay import replay
from tests.conftest import CORPUS

pytestmark = pytest.mark.oracle

#: Mutations in one run: at least 2,000 (issue 4); about 35 s of CPU on one core.
N_MUTATIONS = 2400

ILLEGAL_CODES = frozenset({"P001", "P004"})
#: Findings on the record as a whole, placed at a game header: a changed game result may add
#: one (R004: the record ends short of the match, at the last game's header line).
WHOLE_MATCH = frozenset({"R004"})
#: Kinds of change, drawn uniformly ("replace" twice: most others make a play illegal).
KINDS = (
    "replace",
    "replace",
    "reorder",
    "drop_step",
    "add_step",
    "shift_src",
    "shift_dst",
    "blocked",
    "from_bar",
    "die",
    "bad_die",
    "remove",
)

Step = tuple[int, int]


def _oracle() -> Any:
    """tests/_gnubg_oracle (imports gnubg-nn), or skip where gnubg-nn is not installed."""
    pytest.importorskip("gnubg_nn")
    from tests import _gnubg_oracle

    return _gnubg_oracle


def _corpus_paths() -> list[Path]:
    paths = sorted((CORPUS / "gnubg").glob("*.mat")) + sorted(
        (CORPUS / "gnubg-sample").glob("*.mat")
    )
    if not paths:
        pytest.skip(f"the GNU corpus ({CORPUS / 'gnubg'}) is absent")
    return paths


# --- the unchanged files -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Target:
    """One roll cell of an unchanged file, with the position before it."""

    game: int
    line: int
    column: int
    length: int
    dice: tuple[int, int]
    steps: tuple[Step, ...]
    position_id: str
    next_position_id: str | None  # before the next roll of the game, when the other side's
    first_roll: bool  # the game's opening roll (a double there is another finding, P008)
    ends_game: bool  # only the result follows: an empty play there reads as a resignation
    truth_board: str | None  # GNU's board before the turn, where the truth file lists it


@dataclass(slots=True)
class FileModel:
    path: Path
    lines: list[str] = field(repr=False)
    first_game_line: int = field(repr=False)
    targets: list[Target] = field(repr=False)
    errors: tuple[Finding, ...] = field(repr=False)  # the reader's findings
    findings: tuple[Finding, ...] = field(repr=False)  # the replay's


def _truth_boards(path: Path) -> dict[int, list[str]] | None:
    """Per game, GNU's board before each roll, from a truth file that lists actions."""
    truth = Path(f"{path}.truth.json")
    if not truth.is_file():
        return None
    data = json.loads(truth.read_text(encoding="utf-8"))
    out: dict[int, list[str]] = {}
    for game in data.get("games", []):
        actions = game.get("actions")
        if actions is None:
            return None
        out[game["game"]] = [a["board"] for a in actions if a["action"] == "move"]
    return out


def _ends_after(actions: tuple[Any, ...], i: int) -> bool:
    for b in actions[i + 1 :]:
        if isinstance(b, Win | Loss | Resign):
            return True
        if not isinstance(b, Comment):
            return False
    return True


@cache
def load(path: Path) -> FileModel:
    text = path.read_bytes().decode("utf-8")
    records = list(iter_records(text.encode("utf-8"), str(path)))
    assert len(records) == 1, f"{path}: one match per file expected"
    record = records[0]
    verified = replay(record, keep_turns=True)
    truth = _truth_boards(path)
    lines = text.split("\n")
    targets: list[Target] = []
    for game, vgame in zip(record.games, verified.games, strict=True):
        turns = {
            (t.line, t.column): t for t in vgame.turns if t.kind in ("play", "dance", "hidden")
        }
        rolls = [(i, a) for i, a in enumerate(game.actions) if isinstance(a, Roll | CannotMove)]
        boards = truth.get(game.number) if truth is not None else None
        for k, (i, a) in enumerate(rolls):
            assert isinstance(a, Roll), f"{path}: GNU writes no 'Cannot Move'"
            turn = turns[(a.span.line, a.span.column)]
            steps: list[Step] = []
            for mv in a.moves:
                assert len(mv.points) == 2 and mv.count == 1, f"{path}: GNU writes single steps"
                steps.append((mv.points[0], mv.points[1]))
            nxt = rolls[k + 1][1] if k + 1 < len(rolls) else None
            next_id = None
            if nxt is not None and nxt.side != a.side:
                next_id = turns[(nxt.span.line, nxt.span.column)].position_id
            cell = lines[a.span.line - 1][a.span.column - 1 :][: a.span.length]
            assert cell.startswith(f"{a.dice[0]}{a.dice[1]}:"), (path, a.span, cell)
            targets.append(
                Target(
                    game=game.number,
                    line=a.span.line,
                    column=a.span.column,
                    length=a.span.length,
                    dice=a.dice,
                    steps=tuple(steps),
                    position_id=turn.position_id,
                    next_position_id=next_id,
                    first_roll=k == 0,
                    ends_game=_ends_after(game.actions, i),
                    truth_board=boards[k] if boards is not None and k < len(boards) else None,
                )
            )
    return FileModel(
        path=path,
        lines=lines,
        first_game_line=record.games[0].span.line if record.games else 1,
        targets=targets,
        errors=record.errors,
        findings=verified.findings,
    )


# --- the mutations ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mutation:
    kind: str
    dice: tuple[int, int]
    steps: tuple[Step, ...]


def _points_with_checkers(board: Any) -> list[int]:
    """The mover's occupied points (25 = the bar)."""
    return [p for p in range(1, 26) if board[1][p - 1] > 0]


def _draw_mutation(draw: Callable[..., Any], t: Target, o: Any) -> Mutation:
    """One change of the cell `t`: its kind drawn first, falling back to a kind that applies
    where the drawn one does not (a dance has no step to drop)."""
    board = o.board_of(t.position_id)
    steps = list(t.steps)
    dice = t.dice
    kind = draw(st.sampled_from(KINDS))

    def add_step() -> Mutation:
        sources = _points_with_checkers(board)
        src = draw(st.sampled_from(sources) | st.integers(1, 25))
        pips = draw(st.sampled_from(sorted({*dice, 1, 2, 3, 4, 5, 6})))
        dst = max(src - pips, 0)  # past 0 is off (src is then at most 6)
        at = draw(st.integers(0, len(steps)))
        return Mutation("add_step", dice, (*steps[:at], (src, dst), *steps[at:]))

    if kind == "replace":
        own = o.result_of(board, steps)[0]
        own_key = o.key_of(own) if own is not None else None
        others = [mv for k, mv in o.legal_results(t.position_id, *dice) if k != own_key]
        if not others:
            return add_step()
        return Mutation("replace", dice, draw(st.sampled_from(others)))
    if kind == "reorder":
        if len(set(steps)) < 2:
            return add_step()
        order = draw(st.permutations(steps).filter(lambda p: list(p) != steps))
        return Mutation("reorder", dice, tuple(order))
    if kind == "remove":
        return Mutation("remove", dice, ()) if steps else add_step()
    if kind in ("die", "bad_die"):
        j = draw(st.integers(0, 1))
        values = range(1, 7) if kind == "die" else (0, 7, 8, 9)
        other = dice[1 - j]
        choices = [v for v in values if v != dice[j] and not (t.first_roll and v == other)]
        v = draw(st.sampled_from(choices))
        new = (v, dice[1]) if j == 0 else (dice[0], v)
        return Mutation(kind, new, tuple(steps))
    if not steps:
        if kind == "blocked":
            entry = [(25, p) for p in range(19, 25) if board[0][24 - p] >= 2]
            if entry:
                return Mutation("blocked", dice, (draw(st.sampled_from(entry)),))
        return add_step()
    if kind == "add_step":
        return add_step()
    i = draw(st.integers(0, len(steps) - 1))
    src, dst = steps[i]
    if kind == "drop_step":
        return Mutation("drop_step", dice, tuple(steps[:i] + steps[i + 1 :]))
    if kind == "blocked":
        cands = [
            (s, s - k)
            for s, _ in steps
            for k in range(1, 7)
            if s - k >= 1 and board[0][24 - (s - k)] >= 2
        ]
        if cands:
            step = draw(st.sampled_from(sorted(set(cands))))
            at = next(j for j, (s, _) in enumerate(steps) if s == step[0])
            return Mutation("blocked", dice, (*steps[:at], step, *steps[at + 1 :]))
        kind = "shift_dst"
    if kind == "from_bar":
        pips = src - dst
        if board[1][24] > 0 and src == 25:
            # Ignore the bar: the same die played by a checker on the board.
            cands = [(p, p - pips) for p in _points_with_checkers(board) if 25 > p > pips]
            if cands:
                new_step = draw(st.sampled_from(cands))
                return Mutation("from_bar", dice, (*steps[:i], new_step, *steps[i + 1 :]))
        new_step = (25, 25 - pips)
        if new_step != (src, dst):
            return Mutation("from_bar", dice, (*steps[:i], new_step, *steps[i + 1 :]))
        kind = "shift_src"
    # shift_src / shift_dst: one end of one step moved by 1 to 6 points, keeping it a step one
    # die could make in shape (at most 6 pips; backwards and zero-length moves included).
    shifted = [
        (src + d, dst) if kind == "shift_src" else (src, dst + d)
        for d in (-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6)
    ]
    cands = [(s, e) for s, e in shifted if 1 <= s <= 25 and 0 <= e <= 24 and s - e <= 6]
    new_step = draw(st.sampled_from(cands))
    return Mutation(kind, dice, (*steps[:i], new_step, *steps[i + 1 :]))


def _cell_text(m: Mutation, board: Any, o: Any) -> str:
    """The cell as GNU writes one: dice, then single steps with a star on each hit."""
    _, hits = o.result_of(board, m.steps)
    words = []
    for n, (src, dst) in enumerate(m.steps):
        star = "*" if n < len(hits) and hits[n] else ""
        words.append(f"{src}/{dst}{star}")
    return " ".join([f"{m.dice[0]}{m.dice[1]}:", *words])


def _mutated_text(model: FileModel, t: Target, cell: str) -> str:
    """The file with the cell replaced (padded so that the right column does not move left)."""
    lines = list(model.lines)
    line = lines[t.line - 1]
    start = t.column - 1
    lines[t.line - 1] = line[:start] + cell.ljust(t.length) + line[start + t.length :]
    return "\n".join(lines)


# --- the test ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    kinds: Counter[str] = field(default_factory=Counter)
    kind_verdicts: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)  # other findings at the cell
    verdicts: Counter[str] = field(default_factory=Counter)
    files: set[Path] = field(default_factory=set)
    disagreements: list[str] = field(default_factory=list)
    truth_checked: int = 0


def _at(f: Finding) -> tuple[int, int]:
    return (f.line, f.column)


def _check_position(t: Target, model: FileModel, o: Any) -> None:
    """bgparse's position before the turn against GNU: the recorded play is legal there, leads to
    the position bgparse has before the next roll, and is the truth file's board."""
    where = f"{model.path.name}:{t.line}:{t.column}"
    if t.truth_board is not None:
        assert t.position_id == t.truth_board, (
            f"{where}: bgparse {t.position_id}, GNU {t.truth_board}"
        )
    if t.steps or not t.ends_game:
        assert o.gnu_legal(t.position_id, t.dice, t.steps), f"{where}: recorded play illegal?"
    if t.next_position_id is not None:
        after = o.result_of(o.board_of(t.position_id), t.steps)[0]
        assert after is not None
        assert o.next_position_id(after) == t.next_position_id, f"{where}: chain"


def _run_one(model: FileModel, t: Target, m: Mutation, o: Any, tally: Tally) -> None:
    _check_position(t, model, o)
    if t.truth_board is not None:
        tally.truth_checked += 1
    board = o.board_of(t.position_id)
    cell = _cell_text(m, board, o)
    text = _mutated_text(model, t, cell)
    records = list(iter_records(text.encode("utf-8"), str(model.path)))
    assert len(records) == 1
    assert records[0].errors == model.errors, f"the reader did not take the cell {cell!r}"
    found = replay(records[0], keep_turns=False).findings
    here = (t.line, t.column)
    at_cell = [f for f in found if _at(f) == here]
    errors = {f.code for f in at_cell if f.severity is Severity.ERROR}

    def before(fs: tuple[Finding, ...]) -> list[tuple[str, int, int, str]]:
        return [
            (f.code, f.line, f.column, f.message)
            for f in fs
            if f.line >= model.first_game_line and _at(f) < here and f.code not in WHOLE_MATCH
        ]

    assert before(found) == before(model.findings), f"new findings before the cell {cell!r}"

    tally.kinds[m.kind] += 1
    tally.files.add(model.path)
    if m.kind == "bad_die":
        tally.verdicts["impossible dice"] += 1
        ok = "P002" in errors
        gnu = "impossible dice (not asked)"
    else:
        legal = o.gnu_legal(t.position_id, m.dice, m.steps)
        tally.verdicts["legal" if legal else "illegal"] += 1
        gnu = "legal" if legal else "illegal"
        if legal:
            ok = not errors
        elif not m.steps and t.ends_game:
            # Dice and no play, then the result: rolled, then resigned (P007), not a slip.
            gnu += " (empty play before the result)"
            ok = not errors and any(f.code == "P007" for f in at_cell)
        else:
            ok = bool(errors & ILLEGAL_CODES) and "P002" not in errors
    tally.kind_verdicts[f"{m.kind}:{gnu.split()[0]}"] += 1
    tally.notes.update(f.code for f in at_cell if f.severity is not Severity.ERROR)
    if not ok:
        tally.disagreements.append(
            f"{model.path.name}:{t.line}:{t.column} [{m.kind}] position {t.position_id} "
            f"dice {m.dice[0]}{m.dice[1]}: {cell!r} (was {t.dice[0]}{t.dice[1]}: "
            f"{' '.join(f'{a}/{b}' for a, b in t.steps)}); GNU: {gnu}; bgparse at the cell: "
            + ("; ".join(f"{f.code} {f.message}" for f in at_cell) or "nothing")
        )


@pytest.mark.corpus
def test_one_changed_play_is_reported_iff_gnu_calls_it_illegal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    o = _oracle()
    paths = _corpus_paths()
    tally = Tally()

    @st.composite
    def cases(draw: Callable[..., Any]) -> tuple[FileModel, Target, Mutation]:
        model = load(draw(st.sampled_from(paths)))
        t = draw(st.sampled_from(model.targets))
        return model, t, _draw_mutation(draw, t, o)

    @settings(
        max_examples=N_MUTATIONS,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.filter_too_much,
            HealthCheck.data_too_large,
        ],
    )
    @given(cases())
    def check(case: tuple[FileModel, Target, Mutation]) -> None:
        model, t, m = case
        _run_one(model, t, m, o, tally)

    start = time.perf_counter()
    check()
    seconds = time.perf_counter() - start
    total = sum(tally.kinds.values())
    with capsys.disabled():
        print(
            f"\nmutation oracle: {total} mutations in {len(tally.files)} files, {seconds:.1f} s; "
            f"GNU verdicts {dict(tally.verdicts)}; by kind {dict(sorted(tally.kind_verdicts.items()))}; "
            f"other findings at the cell {dict(tally.notes)}; "
            f"positions checked against truth boards: {tally.truth_checked}; "
            f"agreement {total - len(tally.disagreements)}/{total}"
        )
    assert not tally.disagreements, "\n".join(tally.disagreements[:40])
    assert total >= 2000
    assert tally.verdicts["legal"] >= 300 and tally.verdicts["illegal"] >= 1000
    assert tally.verdicts["impossible dice"] >= 50
    assert all(tally.kinds[k] >= 50 for k in set(KINDS)), tally.kinds


@pytest.mark.corpus
def test_replay_positions_are_gnus_truth_boards() -> None:
    """Before every roll of the sample set, bgparse's position is GNU's, and the recorded play is
    legal there per GNU's move generator (what the mutation test builds on)."""
    o = _oracle()
    paths = sorted((CORPUS / "gnubg-sample").glob("*.mat"))
    if not paths:
        pytest.skip("the GNU sample corpus is absent")
    checked = 0
    for path in paths:
        model = load(path)
        for t in model.targets:
            assert t.truth_board is not None, f"{path.name}:{t.line}: no truth board"
            _check_position(t, model, o)
            checked += 1
    assert checked > 5000
