"""GNU Backgammon's own `.mat` import of the same files, for comparison: MB/s, import only.

    .venv/bin/python bench/gnubg_import.py [--files GLOB] [--repeat N] [--gnubg PATH] [--no-shim]

Installs nothing. When /usr/games/gnubg (or `gnubg` on PATH) is absent it says so and exits 0.
One headless process (`gnubg -t -q -r -p THIS_FILE`) runs this file in gnubg's embedded Python,
which times `import mat "FILE"` over every file with time.perf_counter: once cold, then N more
passes (best of N). Start-up is timed apart; nothing is analysed. A last, untimed pass counts
the games and moves gnubg read, to compare with bgparse's counts (a failed gnubg import keeps
the previous match, so only the totals show it). The fastsleep shim
(../shared/tools/gnubg/fastsleep.c, see GNUBG.md §2) is built with gcc into a temporary folder
when gcc is there and LD_PRELOADed; an import makes no computer decisions, so it should not
matter, and the output says whether it was used.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_JOB_ENV = "BGPARSE_BENCH_GNUBG_JOB"
CANDIDATES = ("/usr/games/gnubg", "/usr/bin/gnubg", "/usr/local/bin/gnubg")
SHIM = ("shared", "tools", "gnubg", "fastsleep.c")  # beside the repository


@dataclass(frozen=True)
class GnubgImport:
    """What one gnubg process measured (seconds are for all files together)."""

    version: str
    shim: bool
    files: int
    size: int  # bytes
    cold: float  # first pass
    best: float  # best of the later passes
    repeat: int
    startup: float  # process start to the first command, wall clock
    peak_rss_mb: float
    games: int  # read by gnubg in the check pass
    moves: int  # "move" actions (dances included) in the check pass
    failed: tuple[str, ...]  # files whose import raised or left no games

    @property
    def mbps(self) -> float:
        return self.size / 1e6 / self.best

    @property
    def cold_mbps(self) -> float:
        return self.size / 1e6 / self.cold


def find_gnubg(explicit: str | None = None) -> str | None:
    for p in ((explicit,) if explicit else ()) + CANDIDATES:
        if os.access(p, os.X_OK):
            return p
    return shutil.which("gnubg")


def _build_shim(folder: str) -> str | None:
    gcc = shutil.which("gcc")
    source = Path(__file__).resolve().parents[2].joinpath(*SHIM)
    if not gcc or not source.is_file():
        return None
    out = os.path.join(folder, "fastsleep.so")
    r = subprocess.run(
        [gcc, "-O2", "-shared", "-fPIC", "-o", out, str(source)], capture_output=True
    )
    return out if r.returncode == 0 else None


def _version(gnubg: str, env: dict[str, str]) -> str:
    try:
        r = subprocess.run(
            [gnubg, "--version"], capture_output=True, text=True, env=env, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return "GNU Backgammon"
    first = (r.stdout.strip().splitlines() or ["GNU Backgammon"])[0]
    return " ".join(first.split()[:3])


def measure(
    paths: list[Path], repeat: int = 3, gnubg: str | None = None, shim: bool = True
) -> GnubgImport | str:
    """Time gnubg's import of `paths`; a string says why it could not be measured."""
    exe = find_gnubg(gnubg)
    if exe is None:
        return "skipped: GNU Backgammon not found (/usr/games/gnubg; apt-get install gnubg)"
    with tempfile.TemporaryDirectory(prefix="bgparse-bench-gnubg-") as tmp:
        env = dict(os.environ, HOME=tmp, LANG="C", LC_ALL="C")
        env.pop("PYTHONPATH", None)
        shim_path = _build_shim(tmp) if shim else None
        if shim_path:
            env["LD_PRELOAD"] = shim_path
        job = os.path.join(tmp, "job.json")
        result = os.path.join(tmp, "result.json")
        files = [str(p.resolve()) for p in paths]
        with open(job, "w") as f:  # with the spawn time (wall clock), to time the start-up
            json.dump(
                {"files": files, "repeat": repeat, "result": result, "started": time.time()}, f
            )
        env[_JOB_ENV] = job
        r = subprocess.run(
            [exe, "-t", "-q", "-r", "-p", os.path.abspath(__file__)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp,
        )
        if not os.path.exists(result):
            tail = r.stderr.decode("utf-8", "replace").strip()[-500:]
            return f"gnubg exited with rc={r.returncode} before reporting: {tail}"
        with open(result) as f:
            res: dict[str, Any] = json.load(f)
        return GnubgImport(
            version=_version(exe, env),
            shim=shim_path is not None,
            files=len(paths),
            size=sum(p.stat().st_size for p in paths),
            cold=res["cold"],
            best=min(res["runs"]),
            repeat=repeat,
            startup=res["startup"],
            peak_rss_mb=res["peak_kb"] * 1024 / 1e6,
            games=res["games"],
            moves=res["moves"],
            failed=tuple(res["failed"]),
        )


def _inner(job_path: str) -> None:
    """Runs inside gnubg's embedded Python (no bgparse, no bench helpers there)."""
    import resource

    import gnubg  # type: ignore[import-not-found, unused-ignore]  # gnubg -p

    entered = time.time()
    with open(job_path) as f:
        job = json.load(f)
    gnubg.command("set display off")
    gnubg.command("set confirm new off")
    commands = ['import mat "{}"'.format(p.replace('"', '\\"')) for p in job["files"]]

    def one_pass() -> float:
        start = time.perf_counter()
        for c in commands:
            gnubg.command(c)
        return time.perf_counter() - start

    cold = one_pass()
    runs = [one_pass() for _ in range(max(job["repeat"], 1))]
    games = moves = 0
    failed = []
    for path, c in zip(job["files"], commands, strict=True):
        try:
            gnubg.command(c)
            m = gnubg.match(0, 0, 0, 0) or {}
        except Exception:
            m = {}
        found = m.get("games") or []
        if not found:
            failed.append(path)
        games += len(found)
        moves += sum(1 for g in found for a in g["game"] if a.get("action") == "move")
    with open(job["result"], "w") as f:
        json.dump(
            {
                "cold": cold,
                "runs": runs,
                "startup": entered - job["started"],
                "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                "games": games,
                "moves": moves,
                "failed": failed,
            },
            f,
        )


def report(res: GnubgImport | str) -> str:
    from _common import table

    if isinstance(res, str):
        return res
    once = res.size / 1e6 / (res.startup + res.cold)
    rows = [
        [f"{res.version} import mat, best of {res.repeat}", res.mbps, res.best],
        [f"{res.version} import mat, cold first pass", res.cold_mbps, res.cold],
        ["  one process, start-up + one pass", once, res.startup + res.cold],
    ]
    lines = [
        f"gnubg: {res.files:,} files, {res.size / 1e6:.2f} MB; read {res.games:,} games, "
        f"{res.moves:,} moves; start-up {res.startup:.2f} s; peak RSS {res.peak_rss_mb:.0f} MB; "
        f"fastsleep shim {'used' if res.shim else 'not used'}",
        "",
        table(["", "MB/s", "seconds"], rows),
    ]
    if res.failed:
        lines.append(f"gnubg imported nothing from {len(res.failed)} file(s), e.g. {res.failed[0]}")
    return "\n".join(lines)


def main() -> int:
    import argparse

    from _common import corpus_files, machine

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", metavar="GLOB", help="files to import (default: the gnubg corpus)")
    ap.add_argument("--repeat", type=int, default=3, metavar="N", help="timed passes (best of N)")
    ap.add_argument("--gnubg", metavar="PATH", help="the gnubg binary")
    ap.add_argument("--no-shim", action="store_true", help="do not LD_PRELOAD fastsleep.so")
    args = ap.parse_args()
    paths = corpus_files(args.files)
    print(machine())
    print(report(measure(paths, args.repeat, args.gnubg, not args.no_shim)))
    return 0


if os.environ.get(_JOB_ENV):
    _inner(os.environ[_JOB_ENV])
elif __name__ == "__main__":
    sys.exit(main())
