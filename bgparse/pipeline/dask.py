"""The Dask executor: connect to a cluster (or start a local one) and run units there.

`bgparse import --executor dask` runs the same per-unit function as the process pool, on
`dask.distributed`: on a scheduler given by address (started with `dask scheduler` / `dask
worker`, dask-jobqueue or dask-kubernetes; bgparse manages no cluster of its own) or on a
`LocalCluster` of worker processes with one thread each. This module is imported only then,
so Dask stays an optional dependency.

What it sets deliberately:

- A task that raises (a passing filesystem error while writing its parts) is retried
  `TASK_RETRIES` times. A worker that dies mid-task (killed, out of memory) has its task rerun
  on another worker by the scheduler; a unit that has killed `ALLOWED_FAILURES` workers is
  given up (`WorkerLost`: the import fails, nothing committed). A rerun task writes parts
  under new names, so what the dead attempt left is never committed.
- An unreachable scheduler is one `ClusterError` after `CONNECT_TIMEOUT` seconds.
- Shutting down (the import's end, an error, Ctrl-C) cancels every task still queued or
  running for this import and closes the client, and a local cluster with it.
"""

from __future__ import annotations

import gc
import importlib.util
import logging
import os
import stat
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, Executor, Future
from typing import Any, TypeVar

from bgparse.helpers.errors import BgparseError, ClusterError
from bgparse.store.parts import PartTarget, SharedStorageError, check_staging

__all__ = [
    "ALLOWED_FAILURES",
    "CONNECT_TIMEOUT",
    "TASK_RETRIES",
    "ClusterError",
    "DaskExecutor",
    "WorkerLost",
    "open_dask",
]

#: Seconds to reach a scheduler before giving up (Dask's own default is 30).
CONNECT_TIMEOUT = 8
#: Reruns of a task that raised: enough for a passing error of a network filesystem.
TASK_RETRIES = 2
#: Workers a task may see die under it before the scheduler gives it up (Dask's default, set
#: here for a local cluster; a scheduler started elsewhere uses its own configuration).
ALLOWED_FAILURES = 3
#: Seconds to wait for a first worker to join a scheduler that has none.
WORKER_WAIT = 60

_T = TypeVar("_T")


class WorkerLost(BgparseError, BrokenExecutor):
    """The cluster failed a unit: its task was given up after the workers running it died, or
    the scheduler dropped it (stopped, or lost this client). Nothing is committed. A
    BrokenExecutor too, as a process pool's lost worker is: the import stops the same way."""

    exit_code = 3
    failure = True


def _batch_gc_worker() -> None:
    """The garbage-collection settings of a pool worker (`bgparse.pipeline.pool._init_worker`),
    once per Dask worker process, on its first unit."""
    from bgparse.pipeline import pool

    if not pool._BATCH_GC:
        gc.set_threshold(*pool._GC_THRESHOLD)
        pool._BATCH_GC = True


class _Args:
    """A task's arguments in one opaque object: Dask looks for futures inside lists, tuples
    and dataclasses it is given, one object at a time (for a unit, every file's task), and
    bgparse passes none."""

    __slots__ = ("args",)

    def __init__(self, args: tuple[Any, ...]) -> None:
        self.args = args

    def __reduce__(self) -> tuple[type[_Args], tuple[tuple[Any, ...]]]:
        return _Args, (self.args,)


def run_task(fn: Callable[..., _T], args: _Args) -> _T:
    """What a Dask worker runs: the given per-unit function, with batch garbage collection."""
    _batch_gc_worker()
    return fn(*args.args)


def _probe(target: PartTarget) -> str | None:
    """Runs on every worker before the import starts: None, or why it cannot write parts."""
    try:
        check_staging(target, f"Dask worker on {os.uname().nodename} (pid {os.getpid()})")
    except SharedStorageError as exc:
        return str(exc)
    return None


#: An input named on the command line as the client sees it: absolute path, is a folder, size
#: (of a file; None for a folder).
_Seen = tuple[str, bool, int | None]


def _seen(path: str) -> _Seen | None:
    try:
        st = os.stat(path)
    except OSError:
        return None  # the walk refuses it with the reason; no worker will be asked to read it
    folder = stat.S_ISDIR(st.st_mode)
    return os.path.abspath(path), folder, None if folder else st.st_size


def _probe_inputs(inputs: list[_Seen]) -> str | None:
    """Runs on every worker before the import starts: None, or why it cannot read an input
    the way the client sees it (the workers read the input files themselves)."""
    where = f"Dask worker on {os.uname().nodename} (pid {os.getpid()})"
    for path, folder, size in inputs:
        try:
            st = os.stat(path)
        except OSError as exc:
            return (
                f"{where} cannot see the input {path} ({exc.strerror or type(exc).__name__}); "
                f"with --executor dask the inputs must be on a filesystem every worker mounts "
                f"at the same path (NFS, Lustre, a shared volume)"
            )
        if stat.S_ISDIR(st.st_mode) != folder or (size is not None and st.st_size != size):
            return (
                f"{where} sees another {'folder' if folder else 'file'} at {path} than the "
                f"importing process does; with --executor dask the inputs must be on a "
                f"filesystem every worker mounts at the same path"
            )
    return None


class DaskExecutor(Executor):
    """`concurrent.futures.Executor` over a Dask client: futures complete from Dask's own
    completion callbacks, and Dask's errors become the ones the import knows."""

    def __init__(self, client: Any, cluster: Any | None) -> None:
        self.client = client
        self.cluster = cluster
        self._pending: set[Any] = set()
        self._lock = threading.Lock()

    def threads(self) -> int:
        """Worker threads in the cluster now (how many units to keep in flight)."""
        return int(sum(self.client.nthreads().values()))

    def dashboard(self) -> str | None:
        link = self.client.dashboard_link if self._has_dashboard() else None
        return str(link) if link else None

    def _has_dashboard(self) -> bool:
        # A local cluster's dashboard needs bokeh, which the dask extra does not install.
        if self.cluster is not None and importlib.util.find_spec("bokeh") is None:
            return False
        services = self.client.scheduler_info().get("services", {})
        return "dashboard" in services

    def check_shared(self, target: PartTarget) -> None:
        """Fail early where a worker cannot see the dataset folder at the client's path."""
        answers = self.client.run(_probe, target)
        problems = [why for why in answers.values() if why]
        if problems:
            more = f" (and {len(problems) - 1} more workers)" if len(problems) > 1 else ""
            raise SharedStorageError(problems[0] + more)

    def check_inputs(self, paths: Sequence[str]) -> None:
        """Fail early where a worker cannot see the inputs named at the client's paths (a file
        a worker cannot open later is quarantined with the reason, as a vanished file is)."""
        seen = [s for s in map(_seen, paths) if s is not None]
        if not seen:
            return
        answers = self.client.run(_probe_inputs, seen)
        problems = [why for why in answers.values() if why]
        if problems:
            more = f" (and {len(problems) - 1} more workers)" if len(problems) > 1 else ""
            raise SharedStorageError(problems[0] + more)

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        out: Future[_T] = Future()
        # pure=False: two units never share a key, even with equal arguments.
        task = self.client.submit(
            run_task, fn, _Args(args), pure=False, retries=TASK_RETRIES, **kwargs
        )
        with self._lock:
            self._pending.add(task)

        def done(task: Any) -> None:
            with self._lock:
                self._pending.discard(task)
            if task.cancelled():
                # Only the scheduler cancels while the import waits (shutdown comes after).
                out.set_exception(
                    WorkerLost(
                        "the Dask scheduler dropped a unit of files (did it stop, or lose this "
                        "client?)"
                    )
                )
                return
            try:
                out.set_result(task.result())
            except BaseException as exc:
                out.set_exception(_translate(exc))

        task.add_done_callback(done)
        return out

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            pending = list(self._pending)
            self._pending.clear()
        try:
            if pending:
                self.client.cancel(pending, force=True)
        finally:
            try:
                self.client.close(timeout=10)
            finally:
                if self.cluster is not None:
                    self.cluster.close(timeout=10)


def _translate(exc: BaseException) -> BaseException:
    from distributed.scheduler import KilledWorker  # type: ignore[import-not-found]

    if isinstance(exc, KilledWorker):
        return WorkerLost(
            f"a unit of files was given up after {ALLOWED_FAILURES} Dask workers died running "
            f"it (out of memory?)"
        )
    return exc


def _check_address(address: str) -> None:
    """A malformed address is a usage error, told at once (Dask would try it for its whole
    timeout, then complain from a finaliser)."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(address)
        get_backend(scheme)
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
        elif not location:
            raise ValueError("no location")
    except ValueError as exc:
        raise ClusterError(
            f"{address!r} is not a Dask scheduler address such as tcp://HOST:PORT ({exc})"
        ) from None


#: Dask keeps, for debugging, the last `low-level-log-length` batches of messages each
#: connection sent (1,000 by default): on the client those batches hold the units' tasks, so
#: every file of the last 1,000 units (128,000 files) stayed in its memory. A few suffice.
_SHORT_LOGS = {"distributed.admin.low-level-log-length": 16}

#: A local cluster's own settings. An import's tasks are few, long and even (a unit of files
#: each), so two of Dask's periodic services cost CPU and give nothing: the statistical
#: profiler, which samples every worker's task thread 100 times a second, and work stealing,
#: which rebalances queued tasks between workers. On two cores they took about a tenth of the
#: CPU of an import of 1,000 matches (docs/SCALE.md). A cluster started elsewhere keeps its
#: own configuration; docs/SCALE.md suggests the same there.
_LOCAL_CLUSTER = {
    "distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
    "distributed.scheduler.work-stealing": False,
    "distributed.worker.profile.enabled": False,
    **_SHORT_LOGS,
}


#: What a local cluster's worker process runs, loaded once by the fork server it is forked from.
_WORKER_MODULES = ("distributed.nanny", "distributed.worker")


def _local_start(preload: Sequence[str]) -> dict[str, str]:
    """How a local cluster starts its worker processes: forked from this process's fork server
    (`bgparse.pipeline.pool.start_forkserver`, the pool's), which loads Dask's worker and the
    run's modules (`preload`) once, rather than spawned, each a new interpreter loading them
    all again. Spawned, a worker used about 0.45 s of CPU before its first unit; forked, 0.04 s
    (bench/README.md). Where the platform has no fork server, Dask's default (spawn)."""
    from bgparse.pipeline.pool import start_forkserver

    if not start_forkserver([*_WORKER_MODULES, *preload]):
        return {}
    return {"distributed.worker.multiprocessing-method": "forkserver"}


def open_dask(scheduler: str | None, workers: int, preload: Sequence[str] = ()) -> DaskExecutor:
    """A client on the scheduler at `scheduler`, or on a new local cluster of `workers`
    processes with one thread each, forked from a fork server that has loaded the modules
    `preload` names (the run's worker function)."""
    try:
        import dask
        from distributed import Client, LocalCluster  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ClusterError(
            "--executor dask needs the dask extra: pip install 'bgparse[dask]'"
        ) from exc
    if scheduler:
        _check_address(scheduler)
        try:
            with dask.config.set(_SHORT_LOGS):
                client = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ClusterError(
                f"cannot reach the Dask scheduler at {scheduler} within {CONNECT_TIMEOUT} s ({why})"
            ) from None
        executor = DaskExecutor(client, None)
        try:
            if not client.nthreads():
                client.wait_for_workers(1, timeout=WORKER_WAIT)
        except (OSError, TimeoutError) as exc:
            executor.shutdown()
            raise ClusterError(
                f"no Dask worker joined the scheduler at {scheduler} within {WORKER_WAIT} s"
            ) from exc
        return executor
    # Read as each worker starts: one that dies and is started again later is spawned.
    with dask.config.set({**_LOCAL_CLUSTER, **_local_start(preload)}):
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            # Any free port: the scheduler's web server starts even without a dashboard.
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        client = Client(cluster, set_as_default=False)
    return DaskExecutor(client, cluster)
