"""eXtreme Gammon `.xg` read-and-replay throughput beside the same matches as `.mat`.

    .venv/bin/python bench/xg.py [--files GLOB] [--repeat N]

The files (default ../shared/corpus/xg/*.xg) are read into memory with their `.mat` twins
where one sits beside them (same stem); `iter_records` is timed alone, then with `replay`
(validation, `keep_turns=False`), for the `.xg` files and for the twins' `.mat`. MB/s is input
bytes per second (an `.xg` file is binary and compressed, so per match is the fair comparison);
"cold" is the first pass in this process, "best" the fastest after it (see README.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import MB, ROOT, best_of, corpus_files, machine, rate, read_all, read_records, table

XG_GLOB = str(ROOT.parent / "shared" / "corpus" / "xg" / "*.xg")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", metavar="GLOB", help=f".xg files (default: {XG_GLOB})")
    ap.add_argument("--repeat", type=int, default=5, metavar="N", help="timed passes (best of N)")
    args = ap.parse_args()

    print(f"  {machine()}")
    paths = [p for p in corpus_files(args.files or XG_GLOB) if p.suffix.lower() == ".xg"]
    sets = {
        ".xg (all files)": paths,
        ".xg with a .mat twin": [p for p in paths if p.with_suffix(".mat").is_file()],
        ".mat twins": [p.with_suffix(".mat") for p in paths if p.with_suffix(".mat").is_file()],
    }
    rows = []
    for name, chosen in sets.items():
        files = read_all(chosen)
        if not files:
            continue
        size = sum(len(d) for d, _ in files)
        matches = read_records(files, check=False)
        for label, check in (("read", False), ("read + replay", True)):
            timing = best_of(
                lambda files=files, check=check: read_records(files, check), args.repeat
            )
            for kind, seconds in ((f"best of {args.repeat}", timing.best), ("cold", timing.cold)):
                rows.append(
                    [
                        f"{name}: {len(files)} files, {size / MB:.2f} MB, {matches} matches",
                        f"{label}, {kind}",
                        rate(matches, seconds),
                        size / MB / seconds,
                        1000 * seconds / max(matches, 1),
                    ]
                )
    print(table(["files", "", "matches/s", "MB/s", "ms/match"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
