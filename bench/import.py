"""Import throughput (MB/s, matches/s) with 1 and 2 workers, and peak memory.

The input is the GNU Backgammon corpus (../shared/corpus/gnubg, 400 .mat matches) copied until
it holds --matches matches, the first player renamed in each copy (same length, so the file
layout is unchanged) so that every copy is a new match to verify and store, not a duplicate.
Each configuration runs in a fresh process, so its peak memory is its own: the importing
process's and the largest worker's, both from getrusage (with 1 worker the work runs in the
importing process itself). Memory is measured again on a quarter
of the corpus to show it does not grow with the number of files.

    python bench/import.py [--matches 10000] [--workers 1 2] [--corpus DIR] [--keep DIR] [--pure]

--pure also runs every configuration on the pure-Python build (BGPARSE_PURE_PYTHON=1: the
sources, where compiled modules are installed beside them), for the two side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import MB, ROOT, machine, peak_rss_mb, rate, table

from bgparse.compiled import child_environ, compiled_modules
from bgparse.verified import VerifiedMatch

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "gnubg"
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"

_peak_mb = 0.0


def bench_verify(data: bytes, path: str) -> list[VerifiedMatch]:
    """The real per-file work, plus a note of this worker's peak RSS when it grows."""
    from bgparse.ingest import verify_file

    global _peak_mb
    out = verify_file(data, path)
    peak = peak_rss_mb()
    where = os.environ.get("BENCH_RSS_DIR")  # workers inherit it; module globals they do not
    if peak > _peak_mb and where:
        _peak_mb = peak
        Path(where, f"rss-{os.getpid()}").write_text(str(peak))
    return out


def _code(i: int) -> str:
    return _DIGITS[i // 36 % 36] + _DIGITS[i % 36]


def make_corpus(src: Path, dest: Path, matches: int) -> tuple[int, int]:
    """Copies of src/*.mat with the first player renamed per copy; (files, bytes)."""
    originals = sorted(src.glob("*.mat"))
    if not originals:
        raise SystemExit(f"no .mat files in {src}")
    manifest = {}
    for line in (src / "manifest.jsonl").read_text().splitlines():
        doc = json.loads(line)
        manifest[doc["files"]["mat"]] = doc["players"]
    dest.mkdir(parents=True, exist_ok=True)
    files = total = 0
    copy = 0
    while files < matches:
        folder = dest / f"copy{copy:03d}"
        folder.mkdir(exist_ok=True)
        for path in originals:
            if files >= matches:
                break
            text = path.read_text(encoding="utf-8")
            name = manifest[path.name][0]
            renamed = name[: max(len(name) - 2, 1)] + _code(copy)
            text = re.sub(rf"\b{re.escape(name)}\b", renamed[: max(len(name), 3)], text)
            out = folder / path.name
            out.write_text(text, encoding="utf-8")
            files += 1
            total += out.stat().st_size
        copy += 1
    return files, total


def run_once(corpus: Path, data: Path, workers: int, rss_dir: Path) -> dict[str, float]:
    """One import in this process (called in a child process by main)."""
    os.environ["BENCH_RSS_DIR"] = str(rss_dir)
    from bgparse.ingest import ImportOptions, run_import

    started = time.perf_counter()
    summary = run_import([corpus], data, ImportOptions(workers=workers), verify=bench_verify)
    seconds = time.perf_counter() - started
    workers_mb = [float(p.read_text()) for p in rss_dir.glob("rss-*")]
    return {
        "seconds": seconds,
        "bytes": summary.bytes_done,
        "inputs": summary.inputs,
        "matches": summary.matches,
        "quarantined": summary.quarantined,
        "parent_peak_mb": peak_rss_mb(),
        "worker_peak_mb": max(workers_mb, default=0.0),
    }


def measure(corpus: Path, workers: int, scratch: Path, pure: bool = False) -> dict[str, float]:
    data = scratch / f"data-{corpus.name}-{workers}"
    rss = scratch / f"rss-{corpus.name}-{workers}"
    shutil.rmtree(data, ignore_errors=True)
    shutil.rmtree(rss, ignore_errors=True)
    rss.mkdir()
    args = [sys.executable, __file__, "--run", str(corpus), str(data), str(workers), str(rss)]
    done = subprocess.run(args, check=True, capture_output=True, text=True, env=child_environ(pure))
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--keep", type=Path, help="build the inputs and datasets here, kept")
    parser.add_argument("--pure", action="store_true", help="also time the pure-Python build")
    parser.add_argument("--run", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        corpus, data, workers, rss = args.run
        print(json.dumps(run_once(Path(corpus), Path(data), int(workers), Path(rss))))
        return

    if not (args.corpus / "manifest.jsonl").is_file():
        print(f"skipped: no GNU Backgammon corpus at {args.corpus}")
        return
    print(machine())
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="bgparse-bench-"))
    try:
        big = scratch / "full"
        small = scratch / "quarter"
        files, size = make_corpus(args.corpus, big, args.matches)
        small_files, small_size = make_corpus(args.corpus, small, max(args.matches // 4, 1))
        print(
            f"input: {files:,} matches in {files:,} files, {size / MB:.1f} MB "
            f"({args.corpus} repeated, players renamed)"
        )
        rows = []
        speedups: list[str] = []
        builds = [("compiled" if compiled_modules() else "pure Python", False)]
        if args.pure and compiled_modules():
            builds.append(("pure Python", True))
        for build, pure in builds:
            rates = {}
            for w in args.workers:
                r = measure(big, w, scratch, pure)
                rates[w] = rate(r["bytes"] / MB, r["seconds"])
                rows.append(
                    [build, w, int(r["inputs"]), int(r["matches"]), r["bytes"] / MB, r["seconds"],
                     rates[w], rate(r["matches"], r["seconds"]), r["parent_peak_mb"],
                     r["worker_peak_mb"]]
                )  # fmt: skip
            if 1 in rates and 2 in rates:
                speedups.append(f"{build}: {rates[2] / rates[1]:.2f}x")
        headers = ["build", "workers", "files", "matches", "MB", "seconds", "MB/s", "matches/s",
                   "importer peak MB", "worker peak MB"]  # fmt: skip
        print(table(headers, rows))
        if speedups:
            print(f"speed-up with 2 workers: {', '.join(speedups)}")
        w = max(args.workers)
        q = measure(small, w, scratch)
        print(
            f"memory with {small_files:,} files ({small_size / MB:.1f} MB, {w} workers): "
            f"importer {q['parent_peak_mb']:.0f} MB, worker {q['worker_peak_mb']:.0f} MB"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
