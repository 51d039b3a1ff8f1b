"""Validate throughput of one large `.mat` file: 400 matches in one file, then 4,000.

    .venv/bin/python bench/large_file.py [--files GLOB] [--copies 1 10] [--repeat N]

The corpus files (default ../shared/corpus/gnubg/*.mat, 400 matches) are written one after
another into one file, once and then ten times (4,000 matches, 33 MB), in a temporary folder.
Each file is validated in a fresh process exactly as `bgparse validate` does it
(`iter_records`, then `replay` with `keep_turns=False` for every match; the output is left
out), and its throughput and peak memory (getrusage) are printed side by side. Reading is linear
in the file's size (issue 11, defect 5), so the MB/s of the two files should agree within
noise, and the peak memory should grow by the file's own bytes, not by its matches.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import MB, best_of, corpus_files, machine, peak_rss_mb, rate, table

from bgparse.model.findings import Severity
from bgparse.readers import iter_records
from bgparse.replay import replay

_TINY = b" 1 point match\n\n Game 1\n A : 0                              B : 0\n"


@dataclass(frozen=True)
class Run:
    size: int  # bytes
    matches: int
    errors: int  # error findings
    cold: float  # seconds of the first pass
    best: float  # best of the passes after it
    baseline_mb: float  # peak RSS before the passes (the file's bytes read)
    peak_mb: float


def validate(data: bytes, path: str) -> tuple[int, int]:
    matches = errors = 0
    for rec in iter_records(data, path):
        m = replay(rec, keep_turns=False)
        matches += 1
        errors += sum(f.severity is Severity.ERROR for f in m.findings)
    return matches, errors


def child(path: str, repeat: int) -> Run:
    for rec in iter_records(_TINY, "<set-up>"):  # builds the grammar outside the timing
        replay(rec, keep_turns=False)
    data = Path(path).read_bytes()
    baseline = peak_rss_mb()
    counts: list[tuple[int, int]] = []
    timing = best_of(lambda: counts.append(validate(data, path)), repeat)
    return Run(len(data), *counts[0], timing.cold, timing.best, baseline, peak_rss_mb())


def run_child(path: Path, repeat: int) -> Run:
    cmd = [sys.executable, __file__, "--child", str(path), "--repeat", str(repeat)]
    out = subprocess.run(cmd, capture_output=True)
    if out.returncode:
        sys.exit(f"run on {path} failed:\n{out.stderr.decode('utf-8', 'replace')}")
    return Run(**json.loads(out.stdout.decode().splitlines()[-1]))


def build(paths: list[Path], copies: int, out: Path) -> None:
    with out.open("wb") as f:
        for _ in range(copies):
            for p in paths:
                f.write(p.read_bytes().rstrip(b"\r\n") + b"\n\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", metavar="GLOB", help="files to join (default: the gnubg corpus)")
    ap.add_argument(
        "--copies", type=int, nargs="+", default=[1, 10], metavar="N", help="copies per file"
    )
    ap.add_argument("--repeat", type=int, default=1, metavar="N", help="timed passes (best of N)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(asdict(child(args.child, args.repeat))))
        return 0

    paths = corpus_files(args.files)
    print(f"validate one large file: {len(paths):,} files joined, as 1 file per row")
    print(f"  {machine()}")
    rows: list[list[object]] = []
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="bgparse-large-") as tmp:
        for copies in args.copies:
            path = Path(tmp) / f"joined-{copies}.mat"
            build(paths, copies, path)
            r = run_child(path, args.repeat)
            path.unlink()
            runs.append(r)
            rows.append(
                [
                    f"{r.matches:,} matches in one file",
                    r.size / MB,
                    r.cold,
                    rate(r.size / MB, r.cold),
                    r.best,
                    rate(r.size / MB, r.best),
                    rate(r.matches, r.best),
                    r.baseline_mb,
                    r.peak_mb,
                ]
            )
    print(
        table(
            [
                "file",
                "MB",
                "cold s",
                "cold MB/s",
                f"best of {args.repeat} s",
                "MB/s",
                "matches/s",
                "RSS before MB",
                "peak MB",
            ],
            rows,
        )
    )
    first, last = runs[0], runs[-1]
    ratio = rate(last.size, last.best) / rate(first.size, first.best)
    print(
        f"throughput of the largest file / the smallest: {ratio:.2f} "
        f"(1.00 = linear; it was 0.17 for 16x the size before issue 11)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
