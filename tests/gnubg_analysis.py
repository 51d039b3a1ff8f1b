"""GNU Backgammon's own analysis of a match file, run headless, as an outside oracle for tests.

GNU Backgammon (`/usr/games/gnubg`, 1.07) is GPL: tests run it as a separate program; the
bgparse package never imports or calls it. The glue below is this project's own.

How to use it. `analyse(source, out_dir)` runs gnubg ONCE on one `.mat` (imported with
`import mat`) or GNU `.sgf` (`load match`): it analyses the whole match at 0-ply (chequer play,
cube decisions and luck; one thread), saves the analysed match as SGF, exports it as text (one
file a game), prints `show statistics match` and `show statistics game` for every game, and
returns an `Analysis`: the paths, gnubg's exact stdout/stderr (also written beside the outputs
as `gnubg.stdout`/`gnubg.stderr`, with the command script as `gnubg.commands`) and the parsed
`Statistics` of the match and of each game. `parse_statistics(text)` reads one printed
statistics block; `parse_gs(sgf_text)` reads the `GS[...]` game statistics of a saved SGF.

The session fixture `gnubg_analyses` analyses `ORACLE_FILES` (real human matches from
`../shared/corpus`, one engine money session, the two `.mat` twins of the XG folder and one
GNU SGF twin) once per test session, two gnubg processes at a time, into a pytest temporary
folder, and returns `{name: Analysis}`. It skips where gnubg or `../shared` is absent. A test
module binds it in its own namespace (pytest finds fixtures by name there):

    from tests import gnubg_analysis
    gnubg_analyses = gnubg_analysis.gnubg_analyses

(`from tests.gnubg_analysis import gnubg_analyses` works too, but ruff then flags each test
taking the fixture as F811); a conftest.py does the same to share it with its folder. Measured on
2 cores: the fixture takes 5.5-6 s wall for the 9 files (the 50-game money session 4.4 s of
it, the 17-game GammonSite match 1.7 s, a Galaxy 5-point match 0.4 s), 10 s of gnubg time
summed over the processes; the fastsleep shim of ../shared/tools/gnubg is not needed here (the
analysis does not wait on the 10 ms poll: same time with and without it).

What GNU 1.07 writes, learnt from its output here and checked against its source (sgf.c,
analysis.c, eval.c, formatgs.c, text.c, export.c of an older GNU, read-only):

Equity units. GNU's "EMG" is equity normalised to the cube value of the decision: in money
play the cubeful equity per cube; in match play `mwc2eq`, a linear map of match winning chance
(MWC) onto -1 (lose the cube's points) .. +1 (win them) at the score and cube value of the
decision. In the statistics the second figure of each total is the cost in MWC (a fraction,
printed x100 with `%`) in match play and `cube value x EMG` (points) in money play; the labels
say which ("EMG (MWC)" or "EMG (Points)").

SGF properties (`save match`), GNU SGF format version 3:

- `A[i][move E ver 3 w wg wbg lg lbg eq NC 0 det noise prune]...`: after a played move, the
  analysed candidate list. `A[i]` first: the index (0-based) in that list of the move played.
  Then one value a candidate: the move in SGF letters (bar `y`, off `z`, from the mover's side),
  `E` (an evaluation; `R`... would be a rollout), `ver 3`, the five cubeless outcome
  probabilities from the mover's side after the move (win, win gammon, win backgammon, lose
  gammon, lose backgammon), then the move's score `eq`: cubeful equity from the mover's side,
  EMG in both money and match play (match play converts MWC with `mwc2eq`), then the
  evaluation context: plies with `C` when cubeful (`0C`), a literal 0, deterministic flag,
  noise, pruning flag. The best candidate is first; a move's error is its `eq` minus the
  first's. Followed by `MR[]` (rollout marks).
  Sample: `A[0][agln E ver 3 0.507380 0.133161 0.006572 0.140586 0.005943 0.014174 0C 0 1
  0.000000 1][aggi E ver 3 ... 0.008782 0C 0 1 0.000000 1]...`.
- `DA[E ver 3 NC det noise prune` then 2 x 7 numbers`]`: the cube analysis before a move (on
  the move's node, when analysed) and on `double`/`take`/`drop` nodes (the same numbers on the
  double and on its answer, always from the doubler's = the player on roll's side). The 7
  numbers are GNU's rollout outputs: the 5 probabilities, the cubeless equity (normalised, EMG)
  and the cubeful equity; the first 7 with the cube where it is (no double), the second 7 with
  it doubled and taken. The cubeful equity (7th) is MWC (0..1) in match play and EMG in money
  play: at 0-0 of a 5-point match `0.566888` / `0.580880` are printed as "No double +0.865" /
  "Double, take +1.046" (EMG = (MWC - 0.5) x 12.93 there, the slope 2/(MWC(win 1) - MWC(lose
  1))). Double, pass is +1 EMG and is not stored.
  Sample: `DA[E ver 3 0C 1 0.000000 1 0.796705 0.033452 0.000303 0.002383 0.000000 0.622166
  0.566888 0.796705 0.033452 0.000303 0.002383 0.000000 0.622166 0.580880]`.
- `LU[x]`: the luck of the roll, EMG from the roller's side, 5 decimals (the text export's
  "Rolled 62 (+0.014)"); `GB[n]`/`GW[n]` mark lucky (GW for White = player 0: [1] lucky, [2]
  very lucky; GB the same for Black; an unlucky roll marks the other side). Sample:
  `LU[-0.13146]`. Skill marks: `DO[]` doubtful, `BM[1]` bad, `BM[2]` very bad (chequer play, or
  a double/take/drop node's cube action); `DC[]`/`BC[1]`/`BC[2]` the cube action before a move.
- `GS[M:...][C:...][D:...]` on each game's root: the game's statistics, player 0 (White, PW, the
  first column of the statistics) before player 1 in each pair. All error and luck figures are
  stored positive for errors (GNU prints them negated) with EMG then MWC-or-points, 6 decimals:
  `M:` unforced0 unforced1 total0 total1, marked very bad 0/1, bad 0/1, doubtful 0/1, unmarked
  0/1, error EMG0 MWC0 EMG1 MWC1.
  `C:` total cube decisions 0/1, doubles 0/1, takes 0/1, passes 0/1, then counts missed doubles
  below CP 0/1, missed doubles above CP (GNU's "TG", too good) 0/1, wrong doubles below DP 0/1,
  wrong doubles above TG 0/1, wrong takes 0/1, wrong passes 0/1; then for player 0 the six
  errors in that order as EMG MWC pairs (12 numbers), then the same 12 for player 1. The close-
  or-actual cube count is not stored.
  `D:` rolls very unlucky 0/1, unlucky 0/1, unmarked 0/1, lucky 0/1, very lucky 0/1, then luck
  EMG0 MWC0 EMG1 MWC1 (luck signed, good positive).
  Sample: `GS[M:24 25 29 30 0 2 0 1 0 1 29 26 0.009508 0.000952 0.493963 0.038958][C:30 19 0 1
  1 0 0 0 0 1 0 0 0 0 0 0 1 0 0 0 0.000000 ... 0.046038 0.003560 ...][D:1 0 1 0 24 26 2 3 1 1
  -1.062231 -0.103167 0.541819 0.042727]`.

Text export (`export match text OUT.txt`): one file a game, game 1 as OUT.txt, game n as
OUT_00n.txt (`_%03d` before the extension; without one, appended), each ending with "Game
statistics for game n" (the last file also has the match statistics) in the format of `show
statistics`. Equities print as EMG with 3 decimals (`set output mwc off`, pinned here), a cube
analysis after the board and the mover's line, then the roll's luck and the candidate plays:

    * platopatax moves bar/24 23/20

    Cube analysis
    0-ply cubeless equity +0.070 (Money: +0.070)
      0.528 0.152 0.010 - 0.472 0.143 0.005
    Cubeful equities:
    1. No double           +0.099
    2. Double, pass        +1.000  (+0.901)
    3. Double, take        -0.177  (-0.276)
    Proper cube action: No double, take (23.5%)
    Alert: doubtful move ( -0.052)

    Rolled 31 (-0.236):
         1. Cubeful 0-ply    bar/21                       Eq.: -0.127
           0.479 0.121 0.005 - 0.521 0.176 0.005
    *    2. Cubeful 0-ply    bar/24 23/20                 Eq.: -0.179 (-0.052)
           0.466 0.118 0.005 - 0.534 0.183 0.006

`*` marks the play made; "Eq." is the A[] score (EMG) and the bracket its difference from the
best; "Rolled 31 (-0.236)" the LU[] luck (EMG); the probability line is win, win gammon, win
backgammon - lose, lose gammon, lose backgammon. The cube lines are EMG from the player on
roll; "Alert: wrong take (-0.046)!", "Alert: missed double (-0.005)!" flag cube errors (EMG).
A take or drop node prints "* NAME accepts" / "rejects" and the cube analysis from the taker's
side (the DA numbers negated).

The statistics (`show statistics match|game`): a header `Player` + both names, then sections
"Chequerplay statistics", "Luck statistics", "Cube statistics", "Overall statistics", one row
a line, `%-40s %-23s %-23s` (a wide value pushes the next column right, so values are read as
tokens, not by column). Error and luck totals print 3 decimals (EMG) and `%+7.3f%%` (MWC)
or `%+7.3f` (points); rates print mEMG with 1 decimal. Rates: chequer errors per unforced
move, cube errors per close-or-actual cube decision, overall per (unforced + close cube), luck
per total move. The match block is the sum of the game blocks for every count and total
(GNU adds the games' statcontexts); rates, ratings and results are not sums. "Luck based
FIBS rating diff." has player 0's column only; money play adds "Advantage ... in ppg" rows and
two "95% confidence interval (ppg)" rows (told apart here by the row before them).

Pitfalls found: an analysed SGF keeps its stored analysis (`analyse match` redoes a decision
only when its own settings rate above the stored ones: analysis.c, cmp_evalsetup), so a GNU
1.08 SGF analysed at 2-ply gave other figures than its `.mat` twin; `analyse` loads a copy
without the analysis properties (`strip_analysis`), and the twins then agree row for row.
`first game`/`next game` print "No game in progress." (ShowBoard at a game's
start) but do move; `next game` at the last game silently stays, so the script sends one
`show score` ("The score (after k games) ...", printed without a newline) before each game
block and the reader drops repeats. A `.mat` money session is imported with gnubg's defaults
(Jacoby on, cube alive: a cubeless session gets cube "errors"), as GNU would analyse it.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

GNUBG = Path("/usr/games/gnubg")
ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TIMEOUT = 120.0

#: The analysis settings, pinned so that gnubg's defaults (2-ply) never leak in.
SETTINGS = (
    "set sound enable off",
    "set display off",
    "set confirm new off",
    "set confirm save off",
    "set threads 1",
    "set output mwc off",
    "set output digits 3",
    "set analysis chequerplay evaluation plies 0",
    "set analysis cubedecision evaluation plies 0",
    "set analysis luckanalysis plies 0",
    "set analysis cube on",
    "set analysis luck on",
    "set analysis threshold doubtful 0.03",
    "set analysis threshold bad 0.06",
    "set analysis threshold verybad 0.12",
    "set analysis threshold lucky 0.3",
    "set analysis threshold verylucky 0.6",
    "set analysis threshold unlucky 0.3",
    "set analysis threshold veryunlucky 0.6",
)


class GnubgError(RuntimeError):
    """gnubg failed, timed out or printed what the reader cannot follow; says where its output is."""


# -- the printed statistics ------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?%?")
# One cell of a statistics row: a count with its cost, an equity with its MWC/points, an
# interval, or a single number. Tried left to right on the text after the label.
_CELL = re.compile(
    r"\d+ \(\s*[+-]?\d+\.\d+ \(\s*[+-]?\d+\.\d+%?\)\)"
    r"|[+-]?\d+\.\d+\s+\(\s*[+-]?\d+\.\d+%?\)"
    r"|\[\s*[+-]?\d+\.\d+,\s*[+-]?\d+\.\d+\]"
    r"|[+-]?\d+(?:\.\d+)?%?"
)
_UNITS = re.compile(r"\s*\(?m?EMG \((?:MWC|Points)\)\)?$")
_SECTIONS = {
    "Chequerplay statistics": "chequer",
    "Luck statistics": "luck",
    "Cube statistics": "cube",
    "Overall statistics": "overall",
}
_HEADER = re.compile(r"Player {30,}")
_SCORE = re.compile(r"The score \(after (\d+) games?\)")


@dataclass(frozen=True, slots=True)
class Number:
    """One number as GNU printed it: `text` keeps sign, decimals and `%`."""

    text: str
    value: float

    @property
    def decimals(self) -> int:
        t = self.text.rstrip("%")
        return len(t) - t.index(".") - 1 if "." in t else 0

    @property
    def percent(self) -> bool:
        return self.text.endswith("%")

    @property
    def half_unit(self) -> float:
        """Half the last printed digit: how far the printed value may be from the true one."""
        return 0.5 * 10.0**-self.decimals

    @classmethod
    def from_text(cls, text: str) -> Number:
        return cls(text, float(text.rstrip("%")))


@dataclass(frozen=True, slots=True)
class Cell:
    """One player's value in a row: the printed text and the numbers in it.

    `count` is the leading whole number of a count row ("Wrong takes  1 (-0.046 ( -0.356%))");
    `emg` the first decimal (EMG, mEMG for rates, or the row's one decimal figure); `mwc` the
    figure in parentheses: MWC in percent in match play, points in money play."""

    text: str
    numbers: tuple[Number, ...]

    @property
    def count(self) -> int | None:
        if self.numbers and "." not in self.numbers[0].text and not self.numbers[0].percent:
            return int(self.numbers[0].value)
        return None

    @property
    def emg(self) -> Number | None:
        return next((n for n in self.numbers if "." in n.text), None)

    @property
    def mwc(self) -> Number | None:
        decimals = [n for n in self.numbers if "." in n.text]
        return decimals[1] if "(" in self.text and len(decimals) > 1 else None


@dataclass(frozen=True, slots=True)
class Row:
    """A statistics line: `key` is "section: label without its units", e.g. "cube: Wrong takes"."""

    section: str
    label: str
    key: str
    cells: tuple[Cell, Cell | None]


#: Short names for the rows tests use most, to their keys.
FIELDS: dict[str, str] = {
    "total_moves": "chequer: Total moves",
    "unforced_moves": "chequer: Unforced moves",
    "unmarked_moves": "chequer: Unmarked moves",
    "moves_doubtful": "chequer: Moves marked doubtful",
    "moves_bad": "chequer: Moves marked bad",
    "moves_very_bad": "chequer: Moves marked very bad",
    "chequer_error_total": "chequer: Error total",
    "chequer_error_rate": "chequer: Error rate",
    "chequer_rating": "chequer: Chequerplay rating",
    "rolls_very_lucky": "luck: Rolls marked very lucky",
    "rolls_lucky": "luck: Rolls marked lucky",
    "rolls_unmarked": "luck: Rolls unmarked",
    "rolls_unlucky": "luck: Rolls marked unlucky",
    "rolls_very_unlucky": "luck: Rolls marked very unlucky",
    "luck_total": "luck: Luck total",
    "luck_rate": "luck: Luck rate",
    "luck_rating": "luck: Luck rating",
    "cube_total": "cube: Total cube decisions",
    "cube_close": "cube: Close or actual cube decisions",
    "doubles": "cube: Doubles",
    "takes": "cube: Takes",
    "passes": "cube: Passes",
    "missed_doubles_below_cp": "cube: Missed doubles below CP",
    "missed_doubles_above_cp": "cube: Missed doubles above CP",
    "wrong_doubles_below_dp": "cube: Wrong doubles below DP",
    "wrong_doubles_above_tg": "cube: Wrong doubles above TG",
    "wrong_takes": "cube: Wrong takes",
    "wrong_passes": "cube: Wrong passes",
    "cube_error_total": "cube: Error total",
    "cube_error_rate": "cube: Error rate",
    "cube_rating": "cube: Cube decision rating",
    "error_total": "overall: Error total",
    "error_rate": "overall: Error rate",
    "snowie_error_rate": "overall: Snowie error rate",
    "overall_rating": "overall: Overall rating",
    "actual_result": "overall: Actual result",
    "luck_adjusted_result": "overall: Luck adjusted result",
    "luck_fibs_rating_diff": "overall: Luck based FIBS rating diff.",
    "error_fibs_rating": "overall: Error based abs. FIBS rating",
    "chequer_rating_loss": "overall: Chequerplay errors rating loss",
    "cube_rating_loss": "overall: Cube errors rating loss",
    # money play, over more than one game
    "advantage_ppg": "overall: Advantage (actual) in ppg",
    "advantage_ppg_interval": "overall: 95% confidence interval (ppg)",
    "luck_adjusted_advantage_ppg": "overall: Advantage (luck adjusted) in ppg",
    "luck_adjusted_advantage_ppg_interval": (
        "overall: Advantage (luck adjusted) in ppg: 95% confidence interval (ppg)"
    ),
}

#: Rows whose match value is the sum of the game values (counts, and error and luck totals).
SUMMED: tuple[str, ...] = (
    "total_moves",
    "unforced_moves",
    "unmarked_moves",
    "moves_doubtful",
    "moves_bad",
    "moves_very_bad",
    "chequer_error_total",
    "rolls_very_lucky",
    "rolls_lucky",
    "rolls_unmarked",
    "rolls_unlucky",
    "rolls_very_unlucky",
    "luck_total",
    "cube_total",
    "cube_close",
    "doubles",
    "takes",
    "passes",
    "missed_doubles_below_cp",
    "missed_doubles_above_cp",
    "wrong_doubles_below_dp",
    "wrong_doubles_above_tg",
    "wrong_takes",
    "wrong_passes",
    "cube_error_total",
    "error_total",
)


@dataclass(frozen=True, slots=True)
class Statistics:
    """One printed statistics block (a match's or a game's), row by row in GNU's order."""

    players: tuple[str, str]
    rows: tuple[Row, ...]

    def row(self, name: str) -> Row:
        """A row by its short name (FIELDS) or its key ("cube: Wrong takes")."""
        key = FIELDS.get(name, name)
        for r in self.rows:
            if r.key == key:
                return r
        raise KeyError(f"no statistics row {name!r} ({key!r})")

    def __contains__(self, name: object) -> bool:
        key = FIELDS.get(name, name) if isinstance(name, str) else name
        return any(r.key == key for r in self.rows)

    def cell(self, name: str, player: int) -> Cell:
        cell = self.row(name).cells[player]
        if cell is None:
            raise KeyError(f"row {name!r} has no value for player {player}")
        return cell

    def count(self, name: str, player: int) -> int:
        """A count: the row's leading whole number ("Wrong takes 1 (...)" is 1)."""
        n = self.cell(name, player).count
        if n is None:
            raise ValueError(f"row {name!r} holds no count: {self.cell(name, player).text!r}")
        return n

    def emg(self, name: str, player: int) -> Number:
        """The EMG figure of a total or rate; a count row of 0 has none and reads as 0."""
        cell = self.cell(name, player)
        return cell.emg or Number("0.000", 0.0)

    def mwc(self, name: str, player: int) -> Number:
        """The parenthesised figure (MWC percent, or points in money); 0 where none printed."""
        cell = self.cell(name, player)
        return cell.mwc or Number("0.000%", 0.0)


def _cell(text: str) -> Cell:
    text = text.strip()
    numbers = tuple(Number.from_text(m.group()) for m in _NUMBER.finditer(text))
    return Cell(text, numbers)


def _split_cells(rest: str) -> tuple[Cell, Cell | None]:
    """The two players' cells of a row (the text after the 40-character label)."""
    stripped = rest.strip()
    found: list[str] = []
    pos = 0
    while pos < len(stripped) and len(found) < 3:
        m = _CELL.match(stripped, pos)
        if m is None:
            break
        found.append(m.group())
        pos = m.end()
        while pos < len(stripped) and stripped[pos] == " ":
            pos += 1
    if found and pos >= len(stripped) and len(found) <= 2:
        first = _cell(found[0])
        return first, _cell(found[1]) if len(found) == 2 else None
    # Words ("Expert", "Bad dice, man!", "n/a"): by GNU's columns, 23 wide after a space.
    left, right = rest[:23].strip(), rest[24:].strip()
    return _cell(left), _cell(right) if right else None


def parse_statistics(text: str) -> Statistics:
    """One `show statistics match|game` block (from its `Player` header) into rows."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if start is None:
        raise ValueError("no 'Player' header: not GNU statistics")
    names = lines[start][41:]
    if len(names) > 23 and names[23] == " ":
        players = (names[:23].strip(), names[24:].strip())
    else:  # a name over 23 characters pushes the other right
        first, _, second = names.strip().partition("  ")
        players = (first.strip(), second.strip())
    rows: list[Row] = []
    seen: set[str] = set()
    section = ""
    previous = ""
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        if line.strip() in _SECTIONS:
            section = _SECTIONS[line.strip()]
            continue
        if (
            not section
            or len(line) < 41
            or line[40] != " "
            or _HEADER.match(line)
            or _SCORE.search(line)
        ):
            break  # the block ends ("No game in progress.", a score marker, the next header)
        label = line[:40].rstrip()
        stem = _UNITS.sub("", label)
        key = f"{section}: {stem}"
        if key in seen:  # money play's second "95% confidence interval (ppg)"
            key = f"{section}: {previous}: {stem}"
        seen.add(key)
        previous = stem
        rows.append(Row(section, label, key, _split_cells(line[41:])))
    return Statistics(players, tuple(rows))


# -- the SGF's GS[] game statistics ----------------------------------------------------------

# Per kind: the counts (a pair each) then the costs, as GNU writes them.
_GS_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "M": (
        (
            "unforced_moves",
            "total_moves",
            "moves_very_bad",
            "moves_bad",
            "moves_doubtful",
            "unmarked_moves",
        ),
        ("chequer_error_total",),
    ),
    "C": (
        ("cube_total", "doubles", "takes", "passes"),
        (
            "missed_doubles_below_cp",
            "missed_doubles_above_cp",
            "wrong_doubles_below_dp",
            "wrong_doubles_above_tg",
            "wrong_takes",
            "wrong_passes",
        ),
    ),
    "D": (
        (
            "rolls_very_unlucky",
            "rolls_unlucky",
            "rolls_unmarked",
            "rolls_lucky",
            "rolls_very_lucky",
        ),
        ("luck_total",),
    ),
}


@dataclass(frozen=True, slots=True)
class GameStats:
    """A game's `GS[...]`: counts (player 0, player 1) and costs (EMG, MWC-or-points) a player.

    Costs are as stored: errors positive (GNU prints them negated), luck signed."""

    counts: dict[str, tuple[int, int]]
    costs: dict[str, tuple[tuple[float, float], tuple[float, float]]]


def parse_gs(sgf: str) -> list[GameStats]:
    """The GS[] statistics of each game of a GNU SGF, in game order."""
    games: list[GameStats] = []
    for m in re.finditer(r"GS((?:\[[MCD]:[^\]]*\])+)", sgf):
        counts: dict[str, tuple[int, int]] = {}
        costs: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {}
        for part in re.finditer(r"\[([MCD]):([^\]]*)\]", m.group(1)):
            kind, values = part.group(1), part.group(2).split()
            count_names, cost_names = _GS_FIELDS[kind]
            if kind == "C":  # the four decision counts, then a count for each kind of error
                count_names += cost_names
            ints = [int(v) for v in values[: 2 * len(count_names)]]
            floats = [float(v) for v in values[2 * len(count_names) :]]
            for i, name in enumerate(count_names):
                counts[name] = (ints[2 * i], ints[2 * i + 1])
            if kind == "C":  # player 0's six (EMG, MWC) pairs, then player 1's
                for i, name in enumerate(cost_names):
                    p0 = (floats[2 * i], floats[2 * i + 1])
                    p1 = (floats[12 + 2 * i], floats[12 + 2 * i + 1])
                    costs[name] = (p0, p1)
            else:
                costs[cost_names[0]] = ((floats[0], floats[1]), (floats[2], floats[3]))
        games.append(GameStats(counts, costs))
    return games


# -- running gnubg ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Analysis:
    """What one gnubg run made of one file."""

    source: Path
    out_dir: Path
    sgf: Path
    text_files: tuple[Path, ...]
    commands: str
    stdout: str
    stderr: str
    seconds: float
    match: Statistics
    games: tuple[Statistics, ...]


def count_games(source: Path) -> int:
    """How many games a .mat or GNU .sgf holds, to know how many `next game` to send."""
    text = source.read_text(encoding="utf-8", errors="replace")
    if source.suffix.lower() == ".sgf":
        return len(re.findall(r"\(\s*;", text))
    return len(re.findall(r"^\s*Game \d+\s*$", text, re.MULTILINE))


def text_export_files(base: Path, games: int) -> list[Path]:
    """GNU's names for a text export of `games` games: OUT.txt, OUT_002.txt, ..."""
    return [base] + [
        base.with_name(f"{base.stem}_{i:03d}{base.suffix}") for i in range(2, games + 1)
    ]


_SGF_PROPERTY = re.compile(r"([A-Z]+)((?:\s*\[(?:[^\]\\]|\\.)*\])+)", re.DOTALL)
#: GNU's analysis and marks: `analyse match` keeps a stored analysis it does not rate below its
#: own settings (analysis.c, cmp_evalsetup), so an analysed SGF would keep its 2-ply figures.
ANALYSIS_PROPERTIES = frozenset(
    {"A", "DA", "LU", "GS", "MR", "CR", "BM", "DO", "IT", "TE", "BC", "DC", "GB", "GW"}
)


def strip_analysis(sgf: str) -> str:
    """A GNU SGF without its analysis, so that gnubg analyses every decision afresh."""
    return _SGF_PROPERTY.sub(lambda m: "" if m.group(1) in ANALYSIS_PROPERTIES else m.group(0), sgf)


def commands_for(source: Path, sgf: Path, txt: Path, games: int) -> str:
    """The command script: analyse, save, export, then the match's and each game's statistics."""
    # gnubg reads a quoted file name whole (spaces and all: Dueller's names have them).
    verb = "load match" if source.suffix.lower() == ".sgf" else "import mat"
    load = f'{verb} "{source}"'
    save = [f'save match "{sgf}"', f'export match text "{txt}"']
    lines = [*SETTINGS, load, "analyse match", *save]
    lines += ["show statistics match", "first game"]
    # One extra round: an undercount shows up as a game missing from the text export, an
    # overcount as a repeated score marker (dropped).
    for i in range(games + 1):
        if i:
            lines.append("next game")
        lines += ["show score", "show statistics game"]
    return "\n".join([*lines, "quit", ""])


def _blocks(stdout: str) -> tuple[str, list[tuple[int, str]]]:
    """The match block and (games before, block) for each game block of gnubg's stdout."""
    parts = re.split(r"(?=Player {30,})", stdout)
    if len(parts) < 2:
        raise ValueError("gnubg printed no statistics")
    games: list[tuple[int, str]] = []
    for before, block in itertools.pairwise(parts[1:]):
        # `show score` prints its marker, without a newline, just before the block's header.
        scores = _SCORE.findall(before)
        if not scores:
            raise ValueError("a game statistics block without its `show score` marker")
        games.append((int(scores[-1]), block))
    return parts[1], games


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(HOME=str(home), LANG="C", LC_ALL="C")
    return env


def analyse(source: Path, out_dir: Path, *, timeout: float = TIMEOUT) -> Analysis:
    """Run gnubg once on `source` (.mat or GNU .sgf), writing into `out_dir` (made if absent)."""
    source = Path(source).resolve()
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    sgf, txt = out_dir / "analysed.sgf", out_dir / "analysed.txt"
    games = count_games(source)
    loaded = source
    if source.suffix.lower() == ".sgf":
        loaded = out_dir / "input.sgf"
        loaded.write_text(strip_analysis(source.read_text(encoding="utf-8")), encoding="utf-8")
    commands = commands_for(loaded, sgf, txt, games)
    (out_dir / "gnubg.commands").write_text(commands, encoding="utf-8")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gnubg-home-") as home:
        try:
            done = subprocess.run(
                [str(GNUBG), "-t", "-q", "-r"],
                input=commands,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                env=_environment(Path(home)),
                cwd=out_dir,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as e:
            raise GnubgError(f"gnubg took over {timeout} s on {source}") from e
    seconds = time.perf_counter() - start
    (out_dir / "gnubg.stdout").write_text(done.stdout, encoding="utf-8")
    (out_dir / "gnubg.stderr").write_text(done.stderr, encoding="utf-8")
    where = f"{source}: see {out_dir}/gnubg.stdout and gnubg.stderr"
    if done.returncode != 0:
        raise GnubgError(f"gnubg exited with {done.returncode} on {where}")
    if not sgf.is_file():
        raise GnubgError(f"gnubg saved no SGF for {where}")
    exported = [p for p in text_export_files(txt, games + 1) if p.is_file()]
    try:
        match_block, game_blocks = _blocks(done.stdout)
        match = parse_statistics(match_block)
        by_number: dict[int, Statistics] = {}
        for before, block in game_blocks:
            by_number.setdefault(before, parse_statistics(block))
    except ValueError as e:
        raise GnubgError(f"{e}: {where}") from e
    if sorted(by_number) != list(range(len(exported))):
        raise GnubgError(
            f"game statistics for games after {sorted(by_number)} games, but "
            f"{len(exported)} text export files: {where}"
        )
    return Analysis(
        source=source,
        out_dir=out_dir,
        sgf=sgf,
        text_files=tuple(exported),
        commands=commands,
        stdout=done.stdout,
        stderr=done.stderr,
        seconds=seconds,
        match=match,
        games=tuple(by_number[i] for i in sorted(by_number)),
    )


def analyse_all(sources: dict[str, Path], out_root: Path, *, jobs: int = 2) -> dict[str, Analysis]:
    """Analyse several files, `jobs` gnubg processes at a time, each into out_root/name."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {
            name: pool.submit(analyse, path, out_root / name) for name, path in sources.items()
        }
        return {name: f.result() for name, f in futures.items()}


# -- the session fixture ---------------------------------------------------------------------

_REAL = "corpus/real"
#: The selection: name -> path under ../shared. Real human matches unless noted.
ORACLE_FILES: dict[str, str] = {
    # Backgammon Galaxy (.mat as .txt): 5-point, 4 games, doubles, takes and a pass.
    "galaxy-5p-llabba": f"{_REAL}/lassehjorthmadsen__bglab/data-raw/Llabba/raw/match1280660.txt",
    # Galaxy 5-point, 5 games: 7 doubles, 3 takes, 4 drops.
    "galaxy-5p-drops": f"{_REAL}/lassehjorthmadsen__bglab/data-raw/lasse/raw/match6979227.txt",
    # Galaxy 7-point, 5 games.
    "galaxy-7p": f"{_REAL}/lassehjorthmadsen__bglab/data-raw/lasse/raw/match12139018.txt",
    # Galaxy 5-point, one game, the cube reaches 8.
    "galaxy-cube8": f"{_REAL}/lassehjorthmadsen__bglab/data-raw/Llabba/raw/match1278964.txt",
    # GammonSite, 25-point World Championship final, 17 games (UTF-8 BOM, CRLF).
    "gammonsite-25p": f"{_REAL}/andrewbaine__td-gammon/test_data/173915-WCfinal.mat",
    # The corpus's only money session: engine play (Raccoon v GNUBG), 50 games, cubeless.
    "money-raccoon": f"{_REAL}/lassehjorthmadsen__raccoon/experiments/exp001-6x128-200sims/"
    "logs/gnubg_eval_20260426_083421.txt",
    # The .mat twins of the XG folder (human play), and one GNU 1.08 SGF twin.
    "xg-charlot-7p": "corpus/xg/charlot1-charlot2_7p_2025-11-08-2305.mat",
    "xg-hsbt-7p": "corpus/xg/test.mat",
    "xg-hsbt-7p-sgf": "corpus/xg/test.sgf",
}


def oracle_sources(shared: Path = SHARED) -> dict[str, Path]:
    return {name: shared / rel for name, rel in ORACLE_FILES.items()}


def skip_unless_available(sources: Sequence[Path] = ()) -> None:
    """Skip the test where gnubg, ../shared or one of the files is absent."""
    if not (GNUBG.is_file() and os.access(GNUBG, os.X_OK)):
        pytest.skip(f"GNU Backgammon is not installed at {GNUBG}")
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent")
    missing = [str(p) for p in sources if not p.is_file()]
    if missing:
        pytest.skip(f"corpus files absent: {', '.join(missing)}")


@pytest.fixture(scope="session")
def gnubg_analyses(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Analysis]]:
    """GNU's analysis of every ORACLE_FILES entry, made once a session: {name: Analysis}."""
    sources = oracle_sources()
    skip_unless_available(list(sources.values()))
    out_root = tmp_path_factory.mktemp("gnubg-analysis")
    yield analyse_all(sources, out_root, jobs=min(2, os.cpu_count() or 1))
