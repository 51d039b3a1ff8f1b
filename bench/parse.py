"""Parse throughput on one core: `iter_records` over every file, in MB/s and matches/s.

    .venv/bin/python bench/parse.py [--files GLOB] [--repeat N] [--profile]

The files (default ../shared/corpus/gnubg/*.mat) are read into memory first; only
`bgparse.readers.iter_records` is timed, over all of them. "cold" is the first pass in this
process (the reader caches what it reads of each play, so it starts empty); "best" is the
fastest of the N passes after it. The grammar is built before either, by a one-line record.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import MB, best_of, corpus_files, machine, profile, rate, read_all, table

from bgparse.model.findings import RecordError
from bgparse.readers import iter_records

#: MB/s of other .mat readers (issue 2), and the target (issue 16; issue 2 asked 2.5).
ANCHORS = (
    ("GNU Backgammon 1.07 .mat import (C)", 12.0),
    ("gammonview regex parser", 5.4),
    ("first lark grammar", 2.1),
)
TARGET = 7.0
_TINY = b" 1 point match\n\n Game 1\n A : 0                              B : 0\n"


def parse_all(files: list[tuple[bytes, str]]) -> tuple[int, int, int]:
    """(matches, games, unreadable files)."""
    matches = games = failed = 0
    for data, path in files:
        try:
            for rec in iter_records(data, path):
                matches += 1
                games += len(rec.games)
        except RecordError:
            failed += 1
    return matches, games, failed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", metavar="GLOB", help="files to read (default: the gnubg corpus)")
    ap.add_argument("--repeat", type=int, default=3, metavar="N", help="timed passes (best of N)")
    ap.add_argument("--profile", action="store_true", help="cProfile of a warm pass, top 25")
    args = ap.parse_args()

    before = machine()  # the load before this bench adds its own
    files = read_all(corpus_files(args.files))
    size = sum(len(d) for d, _ in files)
    start = time.perf_counter()
    list(iter_records(_TINY, "<set-up>"))
    setup = time.perf_counter() - start
    counts: list[tuple[int, int, int]] = []
    timing = best_of(lambda: counts.append(parse_all(files)), args.repeat)
    matches, games, failed = counts[0]

    print(f"parse: {len(files):,} files, {size / MB:.2f} MB, {matches:,} matches, {games:,} games")
    if failed:
        print(f"  {failed} file(s) raised RecordError (timed all the same)")
    print(f"  {before}")
    print(f"  one-off set-up before the passes (first call builds the grammar): {setup:.3f} s")
    print()
    rows = [
        [label, size / MB / seconds, rate(matches, seconds), seconds]
        for label, seconds in (
            (f"bgparse iter_records, best of {args.repeat}", timing.best),
            ("bgparse iter_records, cold first pass", timing.cold),
        )
    ]
    print(table(["", "MB/s", "matches/s", "seconds"], rows))
    print()
    best = size / MB / timing.best
    anchors = [[name, mbps, f"{best / mbps:.2f}x"] for name, mbps in ANCHORS]
    print(table(["anchor (not measured here)", "MB/s", "bgparse is"], anchors))
    verdict = "meets" if best >= TARGET else "misses"
    print(f"\nbgparse parses at {best:.2f} MB/s: {verdict} the target of {TARGET} MB/s.")
    if args.profile:
        print()
        print(profile(lambda: parse_all(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
