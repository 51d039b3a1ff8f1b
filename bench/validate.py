"""End-to-end validation throughput on one core: read bytes, parse, replay, every check.

    .venv/bin/python bench/validate.py [--files GLOB] [--repeat N] [--no-gnubg] [--gnubg PATH]
                                       [--profile [fast|turns]]

Each pass reads every file (default ../shared/corpus/gnubg/*.mat) from disk, parses it with
`iter_records` and replays every match with `replay`. "fast" is `keep_turns=False` (what
`bgparse validate` needs); "turns" is `keep_turns=True` (what an import needs: a row per action
with its position and match IDs). Each mode runs in a fresh process, so its cold first pass
starts with empty caches and its peak memory (getrusage) is its own. "best" is the fastest of
N passes after the cold one. Where GNU Backgammon is installed, its own `.mat` import of the
same files is timed in the same run (bench/gnubg_import.py) and printed beside.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import MB, best_of, corpus_files, machine, peak_rss_mb, profile, rate, table

from bgparse.model.findings import RecordError, Severity
from bgparse.readers import iter_records
from bgparse.replay import replay

MODES = {"fast": False, "turns": True}
#: End-to-end MB/s of other tools (issue 4), and the target.
ANCHORS = (
    ("GNU Backgammon 1.07 import (C, almost no legality checks)", 12.0),
    ("gammonview full conversion", 0.43),
)
TARGET = 1.2
_TINY = b" 1 point match\n\n Game 1\n A : 0                              B : 0\n"


def validate_all(paths: list[Path], keep_turns: bool) -> dict[str, int]:
    """One end-to-end pass; the counts it saw."""
    n = dict(matches=0, games=0, plays=0, errors=0, unreadable=0)
    for p in paths:
        try:
            for rec in iter_records(p.read_bytes(), str(p)):
                m = replay(rec, keep_turns=keep_turns)
                n["matches"] += 1
                n["games"] += len(m.games)
                n["plays"] += sum(g.plays for g in m.games)
                n["errors"] += sum(f.severity is Severity.ERROR for f in m.findings)
        except RecordError:
            n["unreadable"] += 1
    return n


def _set_up() -> float:
    """The one-off cost of the first call (building the grammar), kept out of the cold pass."""
    start = time.perf_counter()
    for rec in iter_records(_TINY, "<set-up>"):
        replay(rec, keep_turns=False)
    return time.perf_counter() - start


@dataclass(frozen=True)
class Run:
    """What one mode's process measured."""

    files: int
    size: int  # bytes
    setup: float  # seconds of the one-off first call
    cold: float  # seconds of the first pass
    best: float  # best of the later passes
    baseline_mb: float  # peak RSS before the passes
    peak_mb: float  # peak RSS after all of them
    matches: int
    games: int
    plays: int
    errors: int  # error findings
    unreadable: int  # files that raised RecordError


def child(mode: str, pattern: str | None, repeat: int) -> Run:
    paths = corpus_files(pattern)
    setup = _set_up()
    baseline = peak_rss_mb()
    counts: list[dict[str, int]] = []
    timing = best_of(lambda: counts.append(validate_all(paths, MODES[mode])), repeat)
    size = sum(p.stat().st_size for p in paths)
    return Run(
        len(paths), size, setup, timing.cold, timing.best, baseline, peak_rss_mb(), **counts[0]
    )


def run_mode(mode: str, pattern: str | None, repeat: int) -> Run:
    cmd = [sys.executable, __file__, "--child", mode, "--repeat", str(repeat)]
    out = subprocess.run(cmd + (["--files", pattern] if pattern else []), capture_output=True)
    if out.returncode:
        sys.exit(f"{mode} run failed:\n{out.stderr.decode('utf-8', 'replace')}")
    return Run(**json.loads(out.stdout.decode().splitlines()[-1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", metavar="GLOB", help="files to read (default: the gnubg corpus)")
    ap.add_argument("--repeat", type=int, default=3, metavar="N", help="timed passes (best of N)")
    ap.add_argument("--no-gnubg", action="store_true", help="skip GNU Backgammon's import")
    ap.add_argument("--gnubg", metavar="PATH", help="the gnubg binary")
    ap.add_argument(
        "--profile",
        nargs="?",
        const="fast",
        choices=sorted(MODES),
        help="also cProfile a warm pass of this mode (default fast), top 25",
    )
    ap.add_argument("--child", choices=sorted(MODES), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(asdict(child(args.child, args.files, args.repeat))))
        return 0

    paths = corpus_files(args.files)
    before = machine()  # the load before this bench adds its own
    results = {mode: run_mode(mode, args.files, args.repeat) for mode in MODES}
    fast = results["fast"]
    size, matches, plays = fast.size, fast.matches, fast.plays
    print(
        f"validate: {fast.files:,} files, {size / MB:.2f} MB, {matches:,} matches, "
        f"{fast.games:,} games, {plays:,} plays; {fast.errors:,} error findings, "
        f"{fast.unreadable:,} unreadable files"
    )
    print(f"  {before}")
    print(
        f"  one-off set-up before the passes (first call builds the grammar): "
        f"{fast.setup:.3f} s; peak RSS before the passes {fast.baseline_mb:.0f} MB"
    )

    rows: list[list[object]] = []
    for mode, res in results.items():
        label = f"bgparse keep_turns={MODES[mode]}"
        for which, seconds in (
            (f"best of {args.repeat}", res.best),
            ("cold first pass", res.cold),
        ):
            rows.append(
                [
                    f"{label}, {which}",
                    size / MB / seconds,
                    rate(plays, seconds),
                    rate(matches, seconds),
                    seconds,
                    res.peak_mb,
                ]
            )

    gnubg = None
    if not args.no_gnubg:
        import gnubg_import

        gnubg = gnubg_import.measure(paths, args.repeat, args.gnubg)
        if isinstance(gnubg, gnubg_import.GnubgImport):
            shim = "shim" if gnubg.shim else "no shim"
            for which, seconds in ((f"best of {args.repeat}", gnubg.best), ("cold", gnubg.cold)):
                rows.append(
                    [
                        f"{gnubg.version} import mat ({shim}), {which}",
                        size / MB / seconds,
                        rate(gnubg.moves, seconds),
                        rate(gnubg.files, seconds),
                        seconds,
                        gnubg.peak_rss_mb,
                    ]
                )
    print()
    print(table(["", "MB/s", "plays/s", "matches/s", "seconds", "peak MB"], rows))
    if isinstance(gnubg, str):
        print(gnubg)
    elif gnubg is not None:
        same = gnubg.games == fast.games and gnubg.moves == plays
        print(
            f"gnubg read {gnubg.games:,} games and {gnubg.moves:,} moves "
            f"({'the same as bgparse' if same else 'NOT the same as bgparse'}); "
            f"start-up {gnubg.startup:.2f} s, not counted"
        )

    best = size / MB / fast.best
    print()
    anchors = [[name, mbps, f"{best / mbps:.2f}x"] for name, mbps in ANCHORS]
    print(table(["anchor (not measured here)", "MB/s", "bgparse fast is"], anchors))
    verdict = "meets" if best >= TARGET else "misses"
    print(f"\nbgparse validates at {best:.2f} MB/s: {verdict} the target of {TARGET} MB/s.")

    if args.profile:
        keep = MODES[args.profile]
        _set_up()
        validate_all(paths, keep)  # warm the caches: the profile shows the steady state
        print(f"\ncProfile, one warm pass, keep_turns={keep}:")
        print(profile(lambda: validate_all(paths, keep)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
