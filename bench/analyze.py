"""Speed of `bgparse analyze` (decisions a second, luck included) beside GNU Backgammon's own
`analyse match` at 0-ply on the same matches.

    .venv/bin/python bench/analyze.py [--matches N] [--workers 1 2] [--no-gnubg] [--profile]

Imports the first N matches of ../shared/corpus/gnubg into a scratch dataset (not timed), then
for each --workers value runs `python -m bgparse analyze --data D --workers W` on a fresh copy
of it in a process of its own, at the default level (0ply): decisions a second are the
command's own count over the run's own seconds (its summary line: start-up and the Python
imports are not in them; the wall time of the whole command is printed beside), and peak MB is
the largest resident size of the command and its workers together (polled every 50 ms).
GNU Backgammon 1.07 (`/usr/games/gnubg`, one thread, the settings of tests/gnubg_analysis.py:
chequer play, cube and luck at 0-ply) analyses the same files in one process; its time is that
run's CPU less the CPU of a run that only imports them. Its rate counts bgparse's decisions
over GNU's seconds: both judge the same rolls, doubles and answers (tests/analysis/
test_engine_vs_gnu.py checks the counts). With --profile, cProfile of one inline run in this
process, and how its time splits between bgsage's compiled calls and bgparse's own Python.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import machine, table  # noqa: E402
from tests.gnubg_analysis import GNUBG, SETTINGS  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "gnubg"
FASTSLEEP = ROOT.parent / "shared" / "tools" / "gnubg" / "fastsleep.c"
SUMMARY = re.compile(r"analysed [\d,]+ match(?:es)? \(([\d,]+) decisions?\).*; ([\d.]+) s \(")


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def prepare(paths: Sequence[Path], base: Path) -> Path:
    from bgparse.ingest import ImportOptions, run_import

    inputs = base / "in"
    inputs.mkdir()
    for p in paths:
        shutil.copy(p, inputs / p.name)
    data = base / "pristine"
    run_import([inputs], data, ImportOptions(workers=1))
    return data


def ours(pristine: Path, workers: int, base: Path) -> tuple[int, float, float, float, float]:
    """(decisions, the run's seconds, the command's wall seconds, its CPU seconds (of the
    processes it waited for: not the pool's workers), peak MB (its processes together))."""
    data = base / f"w{workers}"
    shutil.copytree(pristine, data)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    argv = [sys.executable, "-m", "bgparse", "analyze", "--data", str(data), "-w", str(workers)]
    # The command in a session of its own; its processes' resident sizes polled (the pool's
    # workers are the fork server's children, which getrusage would never see).
    cpu0, t = children_cpu(), time.perf_counter()
    child = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    peak = 0
    while child.poll() is None:
        peak = max(peak, group_rss(child.pid))
        time.sleep(0.05)
    out, err = child.communicate()
    wall = time.perf_counter() - t
    cpu = children_cpu() - cpu0
    if child.returncode != 0:
        raise SystemExit(f"bgparse analyze exited {child.returncode}: {err.decode().strip()}")
    m = SUMMARY.search(out.decode())
    if m is None:
        raise SystemExit(f"no summary line in {out!r}")
    return int(m[1].replace(",", "")), float(m[2]), wall, cpu, peak / 1e6


def group_rss(pgid: int) -> int:
    """Bytes resident in the processes of a process group, summed."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            continue
    return total


def gnubg(paths: Sequence[Path]) -> tuple[float, float, bool]:
    """GNU's analysis of `paths`: (CPU seconds, wall seconds), import taken off; shim used."""
    with tempfile.TemporaryDirectory(prefix="bench-gnubg-") as tmp:
        env = {**os.environ, "HOME": tmp, "LANG": "C", "LC_ALL": "C"}
        shim = False
        if shutil.which("gcc") and FASTSLEEP.is_file():
            so = Path(tmp) / "fastsleep.so"
            built = subprocess.run(
                ["gcc", "-shared", "-fPIC", "-o", str(so), str(FASTSLEEP), "-ldl"],
                capture_output=True,
            )
            if built.returncode == 0:
                env["LD_PRELOAD"] = str(so)
                shim = True
        imports = [f'import mat "{p}"' for p in paths]
        analyses = [line for p in paths for line in (f'import mat "{p}"', "analyse match")]

        def run(lines: list[str]) -> tuple[float, float]:
            cpu, wall = children_cpu(), time.perf_counter()
            subprocess.run(
                [str(GNUBG), "-t", "-q", "-r"],
                input="\n".join([*SETTINGS, *lines, "quit", ""]),
                text=True,
                env=env,
                capture_output=True,
                check=True,
            )
            return children_cpu() - cpu, time.perf_counter() - wall

        base_cpu, base_wall = run(imports)
        cpu, wall = run(analyses)
        return cpu - base_cpu, wall - base_wall, shim


def profile(pristine: Path, base: Path, top: int) -> None:
    """One inline run under cProfile: the top functions by own time, and the split."""
    from bgparse.analyze import AnalyzeOptions, run_analyze

    data = base / "profiled"
    shutil.copytree(pristine, data)
    prof = cProfile.Profile()
    summary = prof.runcall(run_analyze, data, AnalyzeOptions(workers=1))
    stats = pstats.Stats(prof)
    total = bgsage = 0.0
    for (filename, _, name), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        total += tottime
        if "bgbot_cpp" in name or "bgsage" in filename:
            bgsage += tottime
    n = summary.decisions
    print(
        f"\nprofile of one inline run (cProfile; its overhead inflates the Python side): "
        f"{n:,} decisions, {total:.1f} s: bgsage {bgsage:.1f} s ({1e3 * bgsage / n:.2f} ms a "
        f"decision), bgparse's Python {total - bgsage:.1f} s ({1e3 * (total - bgsage) / n:.2f} "
        f"ms a decision)"
    )
    out = io.StringIO()
    pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    print(out.getvalue())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=20, help="corpus matches (default 20)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="default: 1 2")
    ap.add_argument("--no-gnubg", action="store_true", help="skip GNU Backgammon's analysis")
    ap.add_argument("--profile", action="store_true", help="cProfile one inline run")
    args = ap.parse_args(argv)
    paths = sorted(CORPUS.glob("*.mat"))[: args.matches]
    if not paths:
        print(f"skipped: no corpus at {CORPUS}")
        return 0
    print(machine())
    with tempfile.TemporaryDirectory(prefix="bench-analyze-") as tmp:
        base = Path(tmp)
        pristine = prepare(paths, base)
        rows = []
        first: tuple[int, float] | None = None
        for w in args.workers:
            n, seconds, wall, cpu, peak = ours(pristine, w, base)
            if first is None:
                first = (n, seconds)
            speedup = first[1] / seconds
            rows.append(
                [f"bgparse analyze -w {w}", n, seconds, wall, cpu, n / seconds, speedup, peak]
            )
        assert first is not None
        shim = False
        if not args.no_gnubg and GNUBG.is_file():
            cpu, wall, shim = gnubg(paths)
            rows.append(
                ["GNU analyse match 0-ply", first[0], None, wall, cpu, first[0] / cpu, None, None]
            )
            ratio = (
                f"ours/GNU's on one core: {cpu / first[1]:.2f}x (our run's seconds against GNU's "
                f"CPU seconds; against our whole command's CPU, start-up included: "
                f"{cpu / rows[0][4]:.2f}x)"
            )
        else:
            ratio = "GNU Backgammon not run"
        print(f"{len(paths)} matches of {CORPUS}; level 0ply, luck included")
        print(
            table(
                ["", "decisions", "run s", "wall s", "CPU s", "decisions/s", "speedup", "peak MB"],
                rows,
            )
        )
        print(ratio + ("; GNU with the fastsleep shim" if shim else ""))
        if args.profile:
            profile(pristine, base, 25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
