"""Helpers shared by the benches: the corpus, timing, peak memory, profiles and tables."""

from __future__ import annotations

import cProfile
import glob
import io
import os
import platform
import pstats
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS_GLOB = str(ROOT.parent / "shared" / "corpus" / "gnubg" / "*.mat")
MB = 1_000_000  # throughput is in decimal megabytes, as the anchors are


def corpus_files(pattern: str | None) -> list[Path]:
    """The files to measure: `pattern` (a glob, `**` allowed) or the GNU Backgammon corpus.
    Exits 0 with a message when the default corpus is absent, 2 when `pattern` matches nothing."""
    paths = sorted(Path(p) for p in glob.glob(pattern or CORPUS_GLOB, recursive=True))
    paths = [p for p in paths if p.is_file()]
    if not paths:
        if pattern:
            print(f"no files match {pattern!r}", file=sys.stderr)
            sys.exit(2)
        print(f"skipped: no corpus at {CORPUS_GLOB}")
        sys.exit(0)
    return paths


def read_all(paths: Sequence[Path]) -> list[tuple[bytes, str]]:
    return [(p.read_bytes(), str(p)) for p in paths]


@dataclass(frozen=True)
class Timing:
    """Seconds of the first (cold) run and of the best of the runs after it."""

    cold: float
    best: float
    runs: tuple[float, ...]


def read_records(files: Sequence[tuple[bytes, str]], check: bool) -> int:
    """Matches read from in-memory files (and replayed, with `check`), as `bgparse validate`
    reads them; a file refused as a whole counts none."""
    from bgparse.model.findings import RecordError
    from bgparse.readers import iter_records
    from bgparse.replay import replay

    matches = 0
    for data, path in files:
        try:
            for record in iter_records(data, path):
                matches += 1
                if check:
                    replay(record, keep_turns=False)
        except RecordError:
            pass
    return matches


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def best_of(work: Callable[[], object], repeat: int) -> Timing:
    """Run `work` once cold, then `repeat` more times; the best is taken over the later runs
    (the first one fills the reader's and the engine's caches)."""
    cold = timed(work)
    runs = tuple(timed(work) for _ in range(max(repeat, 1)))
    return Timing(cold, min(runs), runs)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (getrusage)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / MB if sys.platform == "darwin" else peak * 1024 / MB  # bytes vs KiB


def rate(amount: float, seconds: float) -> float:
    return amount / seconds if seconds > 0 else float("inf")


def machine() -> str:
    from bgparse.helpers.compiled import build_info

    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {load} (1/5/15 min) before the run\n"
        f"bgparse: {build_info()}"
    )


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A small aligned table: the first column left-aligned, the others right-aligned."""
    cells = [[str(h) for h in headers], *[[_cell(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        parts = [row[0].ljust(widths[0])]
        parts += [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def profile(work: Callable[[], object], top: int = 25) -> str:
    """cProfile of one run of `work`: the `top` functions by own time (tottime)."""
    prof = cProfile.Profile()
    prof.runcall(work)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    return out.getvalue()
