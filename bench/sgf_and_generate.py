"""SGF read throughput on GNU Backgammon's analysed SGF, and generator speed in matches/s.

    .venv/bin/python bench/sgf_and_generate.py [--files GLOB] [--matches N] [--length L]
                                               [--repeat N]

SGF: the files (default ../shared/corpus/gnubg/*.sgf, large: GNU stores its analysis of every
move, which the reader skips) are read into memory first; `iter_records` is timed alone, then
with `replay` (validation, `keep_turns=False`). MB/s is input bytes per second.

Generator: N random legal self-play matches of L points (`bgparse.replay.generate`), alone
and written as `.mat` and SGF by `bgparse.writers`, as `bgparse generate` does. "cold" is the
first pass in this process, "best" the fastest of the passes after it (see README.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import MB, ROOT, best_of, corpus_files, machine, rate, read_all, read_records, table

from bgparse.replay.generate import generate_matches
from bgparse.writers import write_mat, write_sgf

SGF_GLOB = str(ROOT.parent / "shared" / "corpus" / "gnubg" / "*.sgf")


def generate(count: int, length: int, write: bool) -> int:
    """Games generated (the matches written as .mat and SGF, with `write`)."""
    games = 0
    for match in generate_matches(count, length, seed=1):
        games += len(match.games)
        if write:
            write_mat(match)
            write_sgf(match)
    return games


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", metavar="GLOB", help=f"SGF files to read (default: {SGF_GLOB})")
    ap.add_argument("--matches", type=int, default=100, metavar="N", help="matches to generate")
    ap.add_argument("--length", type=int, default=7, metavar="L", help="their length")
    ap.add_argument("--repeat", type=int, default=3, metavar="N", help="timed passes (best of N)")
    args = ap.parse_args()

    before = machine()
    print(f"  {before}")
    paths = [p for p in corpus_files(args.files or SGF_GLOB) if p.suffix.lower() == ".sgf"]
    files = read_all(paths)
    size = sum(len(d) for d, _ in files)
    matches = read_records(files[:1], check=False)  # builds the grammar before the passes
    matches = read_records(files, check=False)
    print(f"\nsgf: {len(files):,} files, {size / MB:.2f} MB, {matches:,} matches")
    rows = []
    for label, check in (("iter_records", False), ("iter_records + replay", True)):
        timing = best_of(lambda check=check: read_records(files, check), args.repeat)
        for kind, seconds in ((f"best of {args.repeat}", timing.best), ("cold", timing.cold)):
            rows.append([f"{label}, {kind}", size / MB / seconds, rate(matches, seconds), seconds])
    print(table(["", "MB/s", "matches/s", "seconds"], rows))

    games = generate(args.matches, args.length, write=False)
    print(f"\ngenerate: {args.matches:,} {args.length}-point matches, {games:,} games (seed 1)")
    rows = []
    for label, write in (("generate", False), ("generate + write .mat and SGF", True)):
        timing = best_of(
            lambda write=write: generate(args.matches, args.length, write), args.repeat
        )
        for kind, seconds in ((f"best of {args.repeat}", timing.best), ("cold", timing.cold)):
            row = [f"{label}, {kind}", rate(args.matches, seconds), rate(games, seconds), seconds]
            rows.append(row)
    print(table(["", "matches/s", "games/s", "seconds"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
