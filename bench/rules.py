"""Speed of the rules engine: legal-play generation and play verification, in pure Python.

    .venv/bin/python bench/rules.py [--seconds S]

Prints rolls/s for `legal_plays` at the starting position (the 21 distinct rolls in turn) and
over the wildbg positions of ../shared/oracle, and plays/s for `verify_play` over every play of
the GNU Backgammon matches in ../shared/corpus/gnubg (read with a small .mat reader below and
replayed through the engine first, so the timed loop sees the real positions, dice and written
moves). Targets: >= 25,000 rolls/s at the start, >= 150,000 verified plays/s.
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bgparse.model.events import Move  # noqa: E402
from bgparse.rules import Position, legal_plays, verify_play  # noqa: E402

SHARED = (ROOT / ".." / "shared").resolve()
ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
Case = tuple[Position, tuple[int, int], tuple[Move, ...]]


def rate(work: Callable[[], int], seconds: float) -> float:
    """Items per second: repeat `work` (which returns how many items it did) for ~seconds."""
    work()  # warm up
    done = 0
    start = time.perf_counter()
    while True:
        done += work()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def bench_start(seconds: float) -> None:
    start = Position.initial()

    def generate() -> int:
        for roll in ROLLS:
            len(legal_plays(start, roll))
        return len(ROLLS)

    def generate_and_build() -> int:
        for roll in ROLLS:
            for play in legal_plays(start, roll):
                play.after  # noqa: B018 - building every Play and its position is the point
        return len(ROLLS)

    print(f"legal_plays, start position, 21 rolls:     {rate(generate, seconds):>10,.0f} rolls/s")
    print(
        f"  ... and building every Play object:      {rate(generate_and_build, seconds):>10,.0f}"
        " rolls/s"
    )


def bench_wildbg(seconds: float) -> None:
    for kind in ("contact", "race"):
        path = SHARED / "oracle" / f"wildbg-{kind}.ids"
        if not path.exists():
            print(f"({path} not found: wildbg figures skipped)")
            return
        positions = [
            Position.from_position_id(line.strip()) for line in path.open() if line.strip()
        ]
        for label, rolls in (
            ("doubles", [r for r in ROLLS if r[0] == r[1]]),
            ("mixed", [r for r in ROLLS if r[0] != r[1]]),
        ):

            def generate(
                rolls: list[tuple[int, int]] = rolls, positions: list[Position] = positions
            ) -> int:
                for pos in positions:
                    for roll in rolls:
                        len(legal_plays(pos, roll))
                return len(positions) * len(rolls)

            figure = rate(generate, seconds)
            print(f"legal_plays, wildbg {kind:<7} {label:<7}          {figure:>10,.0f} rolls/s")


# --- a small reader for GNU Backgammon's own .mat files (bench only) --------------------------

# A roll cell: the dice, then move tokens up to the next cell (a long left cell can run into
# the right column with one space, so cells are found by their `DD:` start, not by column).
_CELL = re.compile(r"(?<!\S)(\d)(\d):((?:\s+(?!\d\d:)[\d*/()]+)*)")


def _moves(text: str) -> tuple[Move, ...]:
    moves = []
    for token in text.split():
        count = 1
        if token.endswith(")"):
            token, _, n = token[:-1].partition("(")
            count = int(n)
        parts = token.split("/")
        points = tuple(int(p.rstrip("*")) for p in parts)
        hits = tuple(p.endswith("*") and i > 0 for i, p in enumerate(parts))
        moves.append(Move(points, hits, count))
    return tuple(moves)


def read_plays(folder: Path) -> list[tuple[tuple[int, int], tuple[Move, ...]] | None]:
    """Every roll of every game in order (plays alternate, so sides need no tracking); None
    marks the start of a game."""
    plays: list[tuple[tuple[int, int], tuple[Move, ...]] | None] = []
    for path in sorted(folder.glob("*.mat")):
        for line in path.read_text().splitlines():
            if line.lstrip().startswith("Game "):
                plays.append(None)
                continue
            m = re.match(r"\s*\d+\)", line)
            if m:
                for found in _CELL.finditer(line, m.end()):
                    plays.append(((int(found[1]), int(found[2])), _moves(found[3])))
    return plays


def corpus_cases() -> list[Case]:
    folder = SHARED / "corpus" / "gnubg"
    if not folder.exists():
        return []
    cases: list[Case] = []
    pos = Position.initial()
    illegal = 0
    for item in read_plays(folder):
        if item is None:
            pos = Position.initial()
            continue
        dice, moves = item
        cases.append((pos, dice, moves))
        check = verify_play(pos, dice, moves)
        illegal += not check.ok
        pos = check.after
    print(f"corpus/gnubg: {len(cases):,} plays read and replayed, {illegal} illegal")
    return cases


def bench_verify(seconds: float) -> None:
    cases = corpus_cases()
    if not cases:
        print("(../shared/corpus/gnubg not found: verify_play figure skipped)")
        return

    def verify() -> int:
        for pos, dice, moves in cases:
            verify_play(pos, dice, moves)
        return len(cases)

    def verify_pairs() -> int:
        for pos, dice, steps in pair_cases:
            verify_play(pos, dice, steps)
        return len(pair_cases)

    # The same plays as plain (src, dst) pairs, one per written segment.
    pair_cases = [
        (
            pos,
            dice,
            [
                (m.points[i], m.points[i + 1])
                for m in moves
                for _ in range(m.count)
                for i in range(len(m.points) - 1)
            ],
        )
        for pos, dice, moves in cases
    ]
    print(f"verify_play, corpus/gnubg, Move objects:   {rate(verify, seconds):>10,.0f} plays/s")
    print(
        f"verify_play, same plays as (src, dst):     {rate(verify_pairs, seconds):>10,.0f} plays/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per figure")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} ({platform.python_implementation()})")
    bench_start(args.seconds)
    bench_wildbg(args.seconds)
    bench_verify(args.seconds)


if __name__ == "__main__":
    main()
