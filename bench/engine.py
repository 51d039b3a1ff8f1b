"""Speed of the analysis engine (bgsage through bgparse.analysis.engine) on one core, beside GNU's.

    .venv/bin/python bench/engine.py [--seconds S] [--levels 0ply,1ply,2ply] [--gnubg N]

Reads the GNU Backgammon matches of ../shared/corpus/gnubg (`read_path`, `replay`), takes
every checker play (position, dice, cube from the turn) and every cube decision the roller
could make before rolling, and prints decisions per second at each level on one thread:
checker plays with their luck (luck at 0-ply, as GNU's), and cube decisions; each level runs
batches of 64 until S seconds have gone. It also prints how often the engine's best play is
the play GNU made (the corpus was played by GNU at 0-ply, some players with a little noise).
With --gnubg N, GNU Backgammon's own `analyse match` at 0-ply (one thread, the fastsleep
shim where gcc can build it) runs over the first N matches for comparison.

Measured (2 cores, BGPARSE_PURE_PYTHON=1, --seconds 15, bgsage 2.0.20260907), per second of
one core: 0ply checker 1,881, luck 200, checker+luck 181, cube 68,318; 1ply checker 27, cube
978; 2ply checker 2, cube 70. GNU's analyse match at 0-ply: 491 plays (each with its cube
decision and luck) per CPU second. bgsage's best play is GNU's played one in 61% of 28,224
corpus plays, forced and unforced (a separate count of unforced plays only: 75-95% for the
players GNU ran without noise).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bgparse.analysis.engine import LEVELS, CubeInfo, Engine  # noqa: E402
from bgparse.readers import read_path  # noqa: E402
from bgparse.replay import replay  # noqa: E402
from bgparse.rules import Position  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "gnubg"
FASTSLEEP = ROOT.parent / "shared" / "tools" / "gnubg" / "fastsleep.c"
GNUBG = Path("/usr/games/gnubg")
BATCH = 64

Play = tuple[Position, tuple[int, int], CubeInfo]
Cube = tuple[Position, CubeInfo]


def load(paths: Sequence[Path]) -> tuple[list[Play], list[str], list[Cube]]:
    """Every checker play (with the play GNU made) and every cube decision open to the roller."""
    plays: list[Play] = []
    played: list[str] = []
    cubes: list[Cube] = []
    for path in paths:
        truth = Path(f"{path}.truth.json")
        jacoby = truth.is_file() and bool(json.loads(truth.read_text())["jacoby"])
        for record in read_path(path):
            match = replay(record)
            money = match.length == 0
            for game in match.games:
                for turn in game.turns:
                    if turn.kind not in ("play", "double") or not turn.position_id:
                        continue
                    owner = turn.cube_owner
                    cube = CubeInfo(
                        turn.cube_value,
                        -1 if owner == -1 else (0 if owner == turn.side else 1),
                        turn.away,
                        turn.crawford,
                        jacoby=money and jacoby,
                        beavers=money,  # GNU's default: beavers on
                    )
                    position = turn.position
                    if cube.can_double:
                        cubes.append((position, cube))
                    if turn.kind == "play" and turn.dice is not None:
                        plays.append((position, turn.dice, cube))
                        played.append(turn.play)
    return plays, played, cubes


def timed(work: Callable[[int, int], None], total: int, seconds: float) -> tuple[int, float]:
    """(items done, CPU seconds): `work(start, stop)` over batches until `seconds` have gone."""
    done, start = 0, time.process_time()
    while done < total:
        stop = min(done + BATCH, total)
        work(done, stop)
        done = stop
        if time.process_time() - start >= seconds:
            break
    return done, time.process_time() - start


def bench_level(
    level: str, plays: list[Play], played: list[str], cubes: list[Cube], s: float
) -> None:
    engine = Engine.open(level, threads=1)
    engine.checker(plays[:4])  # warm: the networks load once a process
    engine.luck(plays[:1])
    agree = [0, 0]

    def checker(a: int, b: int) -> None:
        for i, result in enumerate(engine.checker(plays[a:b]), start=a):
            agree[0] += result.best.play == played[i]
            agree[1] += 1

    def luck(a: int, b: int) -> None:
        engine.luck(plays[a:b])

    def cube(a: int, b: int) -> None:
        engine.cube(cubes[a:b])

    n_c, t_c = timed(checker, len(plays), s)
    n_l, t_l = timed(luck, len(plays), s / 2)
    n_d, t_d = timed(cube, len(cubes), s / 2)
    per_play = t_c / n_c + t_l / n_l
    print(
        f"{level:5} (bgsage {LEVELS[level]}ply)  checker {n_c / t_c:9.0f}/s  "
        f"luck {n_l / t_l:8.0f}/s  checker+luck {1 / per_play:8.0f}/s  "
        f"cube {n_d / t_d:9.0f}/s  best = GNU's play {agree[0] / agree[1]:6.1%} "
        f"(of {agree[1]})",
        flush=True,
    )


def gnubg_analyse(paths: Sequence[Path], n_plays: int) -> None:
    if not GNUBG.is_file():
        print("GNU Backgammon: /usr/games/gnubg is absent, no comparison")
        return
    with tempfile.TemporaryDirectory(prefix="bench-gnubg-") as tmp:
        env = {**os.environ, "HOME": tmp, "LANG": "C"}
        if shutil.which("gcc") and FASTSLEEP.is_file():
            shim = Path(tmp) / "fastsleep.so"
            subprocess.run(
                ["gcc", "-shared", "-fPIC", "-o", str(shim), str(FASTSLEEP), "-ldl"], check=True
            )
            env["LD_PRELOAD"] = str(shim)
        lines = [
            "set sound enable off",
            "set display off",
            "set confirm new off",
            "set threads 1",
            "set analysis chequerplay evaluation plies 0",
            "set analysis cubedecision evaluation plies 0",
        ]
        for path in paths:
            lines += [f"import mat {path}", "analyse match"]

        def run(commands: list[str]) -> tuple[float, float]:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter()
            subprocess.run(
                [str(GNUBG), "-t", "-q", "-r"],
                input="\n".join(commands) + "\n",
                text=True,
                env=env,
                capture_output=True,
                check=True,
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            return time.perf_counter() - wall, cpu

        base_wall, base_cpu = run(lines[:6] + [f"import mat {p}" for p in paths])
        wall, cpu = run(lines)
        wall, cpu = wall - base_wall, cpu - base_cpu
        print(
            f"GNU Backgammon analyse match 0-ply, {len(paths)} matches, {n_plays} plays: "
            f"{wall:.2f} s wall, {cpu:.2f} s CPU (start-up and import taken off): "
            f"{n_plays / cpu:.0f} plays/s of CPU (each with its cube decision and luck)"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per measure")
    ap.add_argument("--levels", default="0ply,1ply,2ply", help="levels, GNU's numbering")
    ap.add_argument("--matches", type=int, default=400, help="corpus matches to read")
    ap.add_argument("--gnubg", type=int, default=20, help="matches for GNU's analyse (0: none)")
    args = ap.parse_args(argv)
    paths = sorted(CORPUS.glob("*.mat"))[: args.matches]
    if not paths:
        print(f"{CORPUS} is absent: nothing to measure")
        return 0
    start = time.perf_counter()
    plays, played, cubes = load(paths)
    print(
        f"{len(paths)} GNU matches: {len(plays)} checker plays, {len(cubes)} cube decisions "
        f"(read and replayed in {time.perf_counter() - start:.1f} s); Python "
        f"{platform.python_version()}, {platform.machine()}, one thread"
    )
    for level in args.levels.split(","):
        bench_level(level, plays, played, cubes, args.seconds)
    if args.gnubg:
        few = paths[: args.gnubg]
        few_plays, _, _ = load(few)
        gnubg_analyse(few, len(few_plays))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
