"""Import throughput (MB/s, matches/s) with 1 and 2 workers, and peak memory.

The input is the GNU Backgammon corpus (../shared/corpus/gnubg, 400 .mat matches) copied until
it holds --matches matches, the first player renamed in each copy (same length, so the file
layout is unchanged) so that every copy is a new match to verify and store, not a duplicate.
Each configuration runs in a fresh process, so its peak memory is its own: the importing
process's and the largest worker's, both from getrusage (with 1 worker the work runs in the
importing process itself). Memory is measured again on a quarter
of the corpus to show it does not grow with the number of files.

    python bench/import.py [--matches 10000] [--workers 1 2] [--corpus DIR] [--keep DIR] [--pure]
                           [--executor local dask] [--worker-parts] [--rounds N]
                           [--seen-limit KEYS]

--pure also runs every configuration on the pure-Python build (BGPARSE_PURE_PYTHON=1: the
sources, where compiled modules are installed beside them), for the two side by side.

--executor dask also imports on Dask with the same number of worker processes (workers write
their own Parquet parts), beside the process pool in the same run, twice: on the LocalCluster
that `--executor dask` starts (`dask`: its scheduler runs inside the importing process), and
on a scheduler and workers started with `dask scheduler` / `dask worker` (`dask-ext`: the
importing process is the client alone, as on a real cluster; the scheduler's CPU is shown).
--worker-parts also runs the process pool with its workers writing their parts. For each, the
importing process's (the client's) CPU time per committed file and per MB.
Every configuration also shows its workers' CPU time (the pool's processes, counted once they
have ended, and their fork server; on `dask-ext`, the CPU the worker commands' processes used
during the import, their start before it left out) and all of it per file: with 1 worker
the work runs in the importing process, so beside it the 2-worker figure shows what running on
two processes adds (the rows sent between them, each worker's start, and the two cores each
running slower with both busy: bench/README.md, issue 32); a speed-up short of 2x beyond that
is time a core sat idle.

--rounds N runs every configuration N times, interleaved (each round in another order), and
gives each ratio between executors as the median of the rounds' own ratios: on a shared
machine whose speed drifts by tens of percent between minutes, one pair of runs says little.
--seen-limit sets the keys the duplicate checks hold in memory before the older ones move to
disk (`ImportOptions.seen_limit`), to show the client's memory with them on disk.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing.util
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from _common import MB, ROOT, machine, peak_rss_mb, rate, table

from bgparse.helpers.compiled import child_environ, compiled_modules
from bgparse.helpers.environment import PROCESS_ENVIRONMENT
from bgparse.model.verified import VerifiedMatch

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "gnubg"
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"

_peak_mb = 0.0


def _note_cpu(where: str) -> None:
    # With its parent's pid: a worker the importing process started itself (a LocalCluster's)
    # is reaped by it, and so already in its RUSAGE_CHILDREN (`run_once`).
    Path(where, f"cpu-{os.getpid()}").write_text(f"{_cpu_seconds()} {os.getppid()}")


def bench_verify(data: bytes, path: str) -> list[VerifiedMatch]:
    """The real per-file work, plus a note of this worker's peak RSS when it grows."""
    from bgparse.ingest import verify_file

    global _peak_mb
    out = verify_file(data, path)
    peak = peak_rss_mb()
    where = os.environ.get("BENCH_RSS_DIR")  # workers inherit it; module globals they do not
    if where and _peak_mb == 0.0 and os.environ.get("BENCH_IMPORTER") != str(os.getpid()):
        # A worker's first file: its CPU time is noted when it ends (multiprocessing runs
        # its finalizers; the pool's processes are not this bench's children, so getrusage's
        # RUSAGE_CHILDREN does not see them).
        multiprocessing.util.Finalize(None, _note_cpu, args=(where,), exitpriority=10)
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


def _cpu_seconds(who: int = resource.RUSAGE_SELF) -> float:
    """This process's CPU seconds, or (RUSAGE_CHILDREN) those of its ended descendants: the
    pool's or a LocalCluster's worker processes once the import has stopped them."""
    ru = resource.getrusage(who)
    return ru.ru_utime + ru.ru_stime


def run_once(
    corpus: Path, data: Path, workers: int, rss_dir: Path, executor: str = "local"
) -> dict[str, float]:
    """One import in this process (called in a child process by main). `executor`: local,
    local-parts (the pool, workers writing their parts), dask (a LocalCluster) or a scheduler's
    address."""
    os.environ["BENCH_RSS_DIR"] = str(rss_dir)
    os.environ["BENCH_IMPORTER"] = str(os.getpid())
    from bgparse.ingest import ImportOptions, run_import

    limit = os.environ.get("BENCH_SEEN_LIMIT")
    options = ImportOptions(
        workers=workers,
        executor="local" if executor.startswith("local") else "dask",
        scheduler=executor if "://" in executor else None,
        worker_parts=executor != "local",
        **({"seen_limit": int(limit)} if limit else {}),
    )
    cpu = _cpu_seconds()
    children = _cpu_seconds(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    summary = run_import([corpus], data, options, verify=bench_verify)
    seconds = time.perf_counter() - started
    cpu = _cpu_seconds() - cpu
    children = _cpu_seconds(resource.RUSAGE_CHILDREN) - children
    workers_mb = [float(p.read_text()) for p in rss_dir.glob("rss-*")]
    # The pool's workers, as they noted it when they ended (the import ends its pool): those
    # of the fork server, not this process's children. A LocalCluster's workers are, and
    # getrusage has counted them already (adding their notes too counted them twice).
    children += sum(
        float(cpu)
        for cpu, parent in (p.read_text().split() for p in rss_dir.glob("cpu-*"))
        if int(parent) != os.getpid()
    )
    children += _forkserver_cpu()
    return {
        "client_cpu": cpu,
        "workers_cpu": children,  # 0 where they are not this process's (`measure` adds them)
        "imported": summary.imported,
        "seconds": seconds,
        "bytes": summary.bytes_done,
        "inputs": summary.inputs,
        "matches": summary.matches,
        "quarantined": summary.quarantined,
        "parent_peak_mb": peak_rss_mb(),
        "worker_peak_mb": max(workers_mb, default=0.0),
    }


def _forkserver_cpu() -> float:
    """CPU seconds of this process's fork server, if the import started one: the pool's
    workers are forked from it once it has loaded bgparse for them (0.3 s of CPU), and it is
    neither an ended child of this process nor a worker that notes its own."""
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    return _cpu_of(pid) if pid else 0.0


def _groups_cpu(groups: Sequence[int]) -> float:
    """CPU seconds the live processes of these process groups have used."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = _stat(int(entry.name))
        except OSError:
            continue  # ended meanwhile
        if int(fields[2]) in groups:  # the process group
            total += _cpu_seconds_of(fields)
    return total


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a live process has used."""
    return _cpu_seconds_of(_stat(pid))


def _stat(pid: int) -> list[str]:
    """A process's /proc stat fields from its state on (after the command's name, which may
    hold spaces and parentheses)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _cpu_seconds_of(fields: list[str]) -> float:
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def dask_commands(
    workers: int, env: dict[str, str], log: Path
) -> Iterator[tuple[str, int, list[int]]]:
    """A scheduler and `workers` single-thread workers started with Dask's own commands on
    127.0.0.1; (address, scheduler pid, the process groups of the workers: each `dask worker`
    command's nanny and the worker process it starts)."""
    from distributed import Client

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).with_name("dask"))
    procs: list[subprocess.Popen[bytes]] = []
    with open(log, "ab") as out:

        def start(*args: str) -> subprocess.Popen[bytes]:
            procs.append(
                subprocess.Popen(
                    [dask, *args], env=env, stdout=out, stderr=out, start_new_session=True
                )
            )
            return procs[-1]

        try:
            sched = start("scheduler", "--host", "127.0.0.1", "--port", str(port),
                          "--no-dashboard")  # fmt: skip
            for _ in range(workers):
                start("worker", address, "--nthreads", "1", "--no-dashboard")
            with Client(address, timeout=60) as client:
                client.wait_for_workers(workers, timeout=120)
            yield address, sched.pid, [p.pid for p in procs[1:]]
        finally:
            for p in procs:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, 9)
                p.wait()


def measure(
    corpus: Path, workers: int, scratch: Path, pure: bool = False, executor: str = "local"
) -> dict[str, float]:
    data = scratch / f"data-{corpus.name}-{workers}-{executor}"
    rss = scratch / f"rss-{corpus.name}-{workers}-{executor}"
    shutil.rmtree(data, ignore_errors=True)
    shutil.rmtree(rss, ignore_errors=True)
    rss.mkdir()
    # The importing process runs in the environment the `bgparse import` command gives itself
    # (its workers get it from the fork server either way).
    env = {**PROCESS_ENVIRONMENT, **child_environ(pure)}
    args = [sys.executable, __file__, "--run", str(corpus), str(data), str(workers), str(rss)]
    if executor != "dask-ext":
        done = subprocess.run([*args, executor], check=True, capture_output=True, text=True,
                              env=env)  # fmt: skip
        result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
        return result
    # Workers import this file's bench_verify (sent by value) and its _common.
    worker_env = {**env, "BENCH_RSS_DIR": str(rss), "PYTHONPATH": str(Path(__file__).parent)}
    with dask_commands(workers, worker_env, scratch / "dask.log") as (address, scheduler, groups):
        before = _cpu_of(scheduler)
        # The workers' CPU during the import, their start (before it) left out: a cluster that
        # is already running, as a scheduler apart is.
        workers_before = _groups_cpu(groups)
        done = subprocess.run([*args, address], check=True, capture_output=True, text=True,
                              env=env)  # fmt: skip
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result["scheduler_cpu"] = _cpu_of(scheduler) - before
        result["workers_cpu"] = _groups_cpu(groups) - workers_before
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--keep", type=Path, help="build the inputs and datasets here, kept")
    parser.add_argument("--pure", action="store_true", help="also time the pure-Python build")
    parser.add_argument("--executor", nargs="+", choices=["local", "dask"], default=["local"])
    parser.add_argument(
        "--worker-parts", action="store_true", help="also the pool with workers writing parts"
    )
    parser.add_argument("--rounds", type=int, default=1, help="runs of each, interleaved")
    parser.add_argument("--seen-limit", type=int, help="keys in memory for duplicate checks")
    parser.add_argument("--run", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seen_limit:
        os.environ["BENCH_SEEN_LIMIT"] = str(args.seen_limit)
    if args.run:
        corpus, data, workers, rss, executor = args.run
        print(json.dumps(run_once(Path(corpus), Path(data), int(workers), Path(rss), executor)))
        return
    executors = [e for x in args.executor for e in (["dask", "dask-ext"] if x == "dask" else [x])]
    if args.worker_parts:
        executors.insert(executors.index("local") + 1 if "local" in executors else 0,
                         "local-parts")  # fmt: skip

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
        cost = []
        speedups: list[str] = []
        builds = [("compiled" if compiled_modules() else "pure Python", False)]
        if args.pure and compiled_modules():
            builds.append(("pure Python", True))
        # Parts written by the one worker are the pool's own case: Dask runs with 2 and more.
        configs = [(e, w) for e in executors for w in args.workers if e == "local" or w > 1]
        for build, pure in builds:
            rates: dict[tuple[str, int], list[float]] = {}
            for n in range(args.rounds):
                # Each round starts one configuration later: none always runs first or last.
                turn = n % len(configs)
                for executor, w in configs[turn:] + configs[:turn]:
                    r = measure(big, w, scratch, pure, executor)
                    mbs = rate(r["bytes"] / MB, r["seconds"])
                    rates.setdefault((executor, w), []).append(mbs)
                    rows.append(
                        [build, n + 1, executor, w, int(r["inputs"]), int(r["matches"]),
                         r["bytes"] / MB, r["seconds"], mbs, rate(r["matches"], r["seconds"]),
                         r["parent_peak_mb"], r["worker_peak_mb"]]
                    )  # fmt: skip
                    cost.append(
                        [build, n + 1, executor, w, r["client_cpu"],
                         1000 * r["client_cpu"] / max(r["imported"], 1),
                         r["client_cpu"] / (r["bytes"] / MB),
                         1000 * r.get("scheduler_cpu", 0.0) / max(r["imported"], 1),
                         r["workers_cpu"],
                         1000 * (r["client_cpu"] + r["workers_cpu"]) / max(r["imported"], 1)]
                    )  # fmt: skip
            pairs = [(("local", 2), ("local", 1), build)]
            for e in executors:
                if e != "local":
                    pairs.append(((e, 2), ("local", 2), f"{build}, {e} / pool with 2 workers"))
            for num, den, label in pairs:
                if num in rates and den in rates:
                    ratios = [a / b for a, b in zip(rates[num], rates[den], strict=True)]
                    spread = f" (rounds: {', '.join(f'{x:.2f}' for x in ratios)})"
                    speedups.append(
                        f"{label}: {statistics.median(ratios):.2f}x"
                        + (spread if len(ratios) > 1 else "")
                    )
        headers = ["build", "round", "executor", "workers", "files", "matches", "MB", "seconds",
                   "MB/s", "matches/s", "importer peak MB", "worker peak MB"]  # fmt: skip
        print(table(headers, rows))
        if speedups:
            print(f"speed-up: {', '.join(speedups)}")
        print(table(["build", "round", "executor", "workers", "client CPU s", "client CPU ms/file",
                     "client CPU s/MB", "scheduler CPU ms/file", "workers CPU s",
                     "all CPU ms/file"], cost))  # fmt: skip
        w = max(args.workers)
        for executor in executors:
            q = measure(small, w, scratch, executor=executor)
            print(
                f"memory with {small_files:,} files ({small_size / MB:.1f} MB, {w} workers, "
                f"{executor}): importer {q['parent_peak_mb']:.0f} MB, "
                f"worker {q['worker_peak_mb']:.0f} MB"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
