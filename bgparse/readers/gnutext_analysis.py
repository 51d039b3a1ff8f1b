"""GNU Backgammon's text export (`export match text`): the analysis of each move block, as the
notes of `bgparse.analysis.model`.

A block's analysis follows its move line (`* NAME moves ...`, `doubles`, `accepts`, ...): for
a roll, the cube analysis of the decision before it (where GNU shows one: an actual, close or
missed double), the alerts, `Rolled DD (luck):` and the ranked candidates, the one played
marked `*`; for a double or its answer, the alerts and the cube analysis. Figures are EMG
(`Eq.:`, `+0.123`) or, in match play with GNU's `set output mwc on`, match winning chances in
percent (`MWC:`, `56.69%`, differences `( -0.73%)`, luck `(+2.872%)`): those are turned into
EMG as GNU does (`mwc2eq` at the decision's score and cube, read from the block's Match ID,
with GNU's default table: `bgparse.analysis.met`). docs/ANALYSIS.md lists the lines.

A line the reader cannot read is a finding (A003), never an error: the block's moves stand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from bgparse.analysis.met import emg_between, mwc_bounds
from bgparse.analysis.model import Candidate, CheckerNote, CubeNote, Note, Probs
from bgparse.model.findings import Finding
from bgparse.rules.ids import decode_match_id

__all__ = ["Block", "read_block"]

_NUM = r"[+-]?\s*\d+\.\d+%?"
_EVAL = r"(?:Cubeful|Cubeless) \d+-ply|Rollout"
_CANDIDATE = re.compile(
    rf"^([* ])\s*(?:(\d+)\.|\?\?)\s+({_EVAL})\s+(.+?)\s+(Eq\.|MWC):\s*({_NUM})"
    rf"(?:\s+\(\s*({_NUM})\))?\s*$"
)
_PROBS = re.compile(r"^\s+(\d+\.\d+) (\d+\.\d+) (\d+\.\d+) - (\d+\.\d+) (\d+\.\d+) (\d+\.\d+)\s*$")
_ROLLED = re.compile(rf"^Rolled ([1-6])([1-6])(?: \(({_NUM})\))?:\s*$")
#: What any candidate line starts with, readable or not.
_RANKED = re.compile(r"^[* ]\s*(?:\d+\.|\?\?)\s|.*\b(?:Eq\.|MWC):")
_NO_LIST = re.compile(r"^\*\s{4}(\S.*?)\s*$")
_MOVE_ALERT = re.compile(rf"^Alert: (?:[a-z ]+) move \(\s*({_NUM})\)\s*$")
_LUCK_ALERT = re.compile(rf"^Alert: (?:[a-z ]+) roll! \(\s*({_NUM})\)\s*$")
_CUBE_ALERT = re.compile(
    rf"^Alert: (missed double|wrong take|wrong pass|wrong double) \(\s*({_NUM})\)!\s*$"
)
_MARKED = re.compile(r"^(?:\s*\[[a-z ]+\]|Alert: (?:double|take) decision marked [a-z ]+)\s*$")
_CUBE_LEVEL = re.compile(r"^(\d+-ply|Rollout|n/a) cubeless (?:equity|MWC)\b")
_CUBE_ROW = re.compile(
    rf"^[1-3]\. (No double|Double, take|Double, pass)\s+({_NUM})(?:\s+\(\s*({_NUM})\))?\s*$"
)
_PROPER = re.compile(r"^Proper cube action: ")


@dataclass(frozen=True, slots=True)
class Block:
    """The action a block's analysis is about, as the reader made it: `kind` is "play",
    "dance", "double", "take" or "drop"; `side` the actor (the roller, doubler or taker);
    `line`/`column` its span; `match_id` the block's board's (None where not printed)."""

    game: int
    kind: str
    side: int
    line: int
    column: int
    length: int  # the match length, 0 for money
    match_id: str | None


@dataclass(slots=True)
class _Read:
    notes: list[Note] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    take_error: float | None = None  # an answer block's: GNU's printed error of the answer


class _Unreadable(ValueError):
    """A line the reader cannot read: its message, line number and text."""

    def __init__(self, message: str, line: int = 0, text: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.text = text


def _level(text: str) -> str:
    """GNU's evaluation as the engine names levels: `Cubeful 0-ply` -> "0ply"."""
    m = re.match(r"(Cubeful|Cubeless)? ?(\d+)-ply", text)
    if m is None:
        return text.lower()
    return f"{m.group(2)}ply" + (" cubeless" if m.group(1) == "Cubeless" else "")


class _Units:
    """Printed figures into EMG for the side deciding: EMG as printed, MWC through mwc2eq."""

    def __init__(self, block: Block, decider: int) -> None:
        self.block = block
        self.decider = decider
        self._bounds: tuple[float, float] | None = None

    def bounds(self) -> tuple[float, float]:
        if self._bounds is None:
            if self.block.length == 0 or not self.block.match_id:
                raise _Unreadable("figures in MWC without the block's Match ID to convert them")
            try:
                state = decode_match_id(self.block.match_id)
            except ValueError as e:
                raise _Unreadable(f"the block's Match ID does not decode: {e}") from None
            length = state.match_length or self.block.length
            away = (length - state.score[0], length - state.score[1])
            try:
                self._bounds = mwc_bounds(away, self.decider, state.cube, state.crawford)
            except ValueError as e:
                raise _Unreadable(
                    f"figures in MWC at a score GNU's table is not held for: {e}"
                ) from None
        return self._bounds

    def value(self, text: str, *, flip: bool = False) -> float:
        """An equity (or MWC) as EMG; `flip`: printed from the other side's view."""
        t = text.replace(" ", "")
        if t.endswith("%"):
            mwc = float(t[:-1]) / 100.0
            return emg_between(1.0 - mwc if flip else mwc, self.bounds())
        return -float(t) if flip else float(t)

    def diff(self, text: str) -> float:
        """A difference (error, luck) as EMG."""
        t = text.replace(" ", "")
        if t.endswith("%"):
            win, lose = self.bounds()
            return 2.0 * float(t[:-1]) / 100.0 / (win - lose)
        return float(t)


def _decimals(text: str) -> int:
    """How many decimals a printed figure has: GNU prints equities with `set output digits`
    decimals (3 by default), alerts and luck with 3 whatever it is set to."""
    return len(text.rstrip("%").partition(".")[2])


def _probs(m: re.Match[str]) -> Probs:
    v = [float(m.group(i)) for i in (1, 2, 3, 5, 6)]
    if max(v) > 1.0:  # GNU's `set output winpc on`: percentages
        v = [x / 100.0 for x in v]
    return (v[0], v[1], v[2], v[3], v[4])


def read_block(
    block: Block, lines: list[tuple[int, str]]
) -> tuple[list[Note], list[Finding], float | None]:
    """The notes of one move block's analysis lines ((line number, text), blank lines left
    out), the findings of lines it cannot read, and for an answer block GNU's printed error of
    the answer (0.0 where it prints none), which belongs to the double's note."""
    out = _Read()
    answer = block.kind in ("take", "drop")
    # The cube analysis of an answer is printed from the taker's view; notes hold the doubler's.
    decider = 1 - block.side if answer else block.side
    units = _Units(block, decider)
    i = 0
    cube: CubeNote | None = None
    cube_alert: float | None = None
    cube_digits = 0  # the decimals of the cube equities
    move_alert: float | None = None
    move_digits = 0
    played_digits = 0
    luck: float | None = None
    rolled = False
    cands: list[Candidate] = []
    played: int | None = None
    played_error: float | None = None
    level = ""
    beaver = False
    try:
        while i < len(lines):
            lineno, text = lines[i]
            i += 1
            if text.startswith("Annotation:"):
                break  # the annotator's comment, to the end of the block
            if _MARKED.match(text):
                continue
            m = _CUBE_ALERT.match(text)
            if m:
                cube_alert = abs(units.diff(m.group(2)))
                continue
            m = _MOVE_ALERT.match(text)
            if m:
                move_alert = abs(units.diff(m.group(1)))
                move_digits = _decimals(m.group(1))
                continue
            if _LUCK_ALERT.match(text):
                continue  # the same luck as `Rolled DD (luck):`
            if text.startswith("Cannot analyse beaver nor raccoons!"):
                beaver = True
                continue
            if text == "Cube analysis":
                i, cube, cube_digits = _cube(block, lines, i, units, flip=answer, decider=decider)
                continue
            m = _ROLLED.match(text)
            if m and not rolled and block.kind in ("play", "dance"):
                rolled = True
                luck = units.diff(m.group(3)) if m.group(3) else None
                continue
            if rolled:
                m = _CANDIDATE.match(text)
                if m:
                    equity = units.value(m.group(6))
                    if m.group(1) == "*":
                        played = len(cands)
                        played_error = abs(units.diff(m.group(7))) if m.group(7) else 0.0
                        played_digits = _decimals(m.group(7) or m.group(6))
                    level = level or _level(m.group(3))
                    cands.append(Candidate(m.group(4), equity))
                    continue
                m = _PROBS.match(text)
                if m and cands and cands[-1].probs is None:
                    cands[-1] = replace(cands[-1], probs=_probs(m))
                    continue
                ranked = _RANKED.match(text) is not None
                if text.startswith(" ") and cands and not ranked:
                    continue  # evaluation parameters or rollout details of a candidate
                if _NO_LIST.match(text) and not cands and not ranked:
                    continue  # `*    Cannot move`, or a play made with no list kept
            if cube is not None and (text.startswith(" ") or text == "Rollout details:"):
                continue  # a cube rollout's details
            raise _Unreadable(f"an analysis line the reader cannot read: {text.strip()[:80]!r}")
    except _Unreadable as e:
        where, shown = (e.line, e.text) if e.line else (lineno, text)
        message = f"GNU text export: {e}: the block's analysis is left out"
        out.findings.append(
            Finding.make("A003", message, where, 1, game=block.game, source_line=shown)
        )
        return out.notes, out.findings, None
    if cube is not None and not beaver:
        # GNU's printed error (an alert, or none: no error) where it is at least as precise as
        # the equities: alerts print 3 decimals whatever `set output digits` says; with more
        # digits the error attach works out from the equities is the nearer GNU's own.
        if cube_digits > 3:
            pass
        elif answer:
            out.take_error = cube_alert or 0.0
            # Placed at the answer: attach judges the answer alone from it (where its double
            # has no note of its own), with GNU's printed error.
            cube = replace(cube, take_error=out.take_error)
        else:
            cube = replace(cube, cube_error=cube_alert or 0.0)
        out.notes.append(cube)
    if rolled:
        precise = move_alert is not None and (played_error is None or move_digits > played_digits)
        error = move_alert if precise else played_error
        out.notes.append(
            CheckerNote(
                game=block.game,
                line=block.line,
                column=block.column,
                side=block.side,
                candidates=tuple(cands),
                played=played,
                level=level or (cube.level if cube is not None else ""),
                error=error if block.kind == "play" else None,
                luck=luck,
            )
        )
    return out.notes, out.findings, out.take_error


def _cube(
    block: Block, lines: list[tuple[int, str]], i: int, units: _Units, *, flip: bool, decider: int
) -> tuple[int, CubeNote, int]:
    """The `Cube analysis` table from line i (after its header) to `Proper cube action:`."""
    level = ""
    probs: Probs | None = None
    equities: dict[str, float] = {}
    digits = 0
    lineno, text = lines[i - 1]
    while i < len(lines):
        lineno, text = lines[i]
        i += 1
        m = _CUBE_LEVEL.match(text)
        if m and not level:
            level = _level(m.group(1))
            continue
        m = _PROBS.match(text)
        if m and probs is None and not equities:
            probs = _probs(m)
            continue
        m = _CUBE_ROW.match(text)
        if m:
            equities[m.group(1)] = units.value(m.group(2), flip=flip)
            digits = max(digits, _decimals(m.group(2)))
            continue
        if _PROPER.match(text):
            break
        if text == "Cubeful equities:" or text.startswith("  "):
            continue  # the evaluation context, or rollout details
        raise _Unreadable(
            f"a cube analysis line the reader cannot read: {text.strip()[:80]!r}", lineno, text
        )
    if len(equities) != 3:
        raise _Unreadable("a cube analysis without its three cubeful equities", lineno, text)
    if flip and probs is not None:
        # The taker's chances: the doubler's are the other way round.
        w, wg, wbg, lg, lbg = probs
        probs = (1.0 - w, lg, lbg, wg, wbg)
    return (
        i,
        CubeNote(
            game=block.game,
            line=block.line,
            column=block.column,
            side=decider,
            no_double=equities["No double"],
            double_take=equities["Double, take"],
            double_pass=equities["Double, pass"],
            level=level,
            probs=probs,
        ),
        digits,
    )
