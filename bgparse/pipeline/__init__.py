"""The pipeline runner: units of work sent to an executor, their results taken back in order.

A unit (a batch of files for `bgparse import`) goes to an executor, which runs a worker
function on it and returns the unit's result (its rows, or the names of the parts its worker
wrote); a committer in this process takes the results in the order the units were submitted
and owns the ledger and the single commit. The executors are `concurrent.futures` Executors:

- `inline.Inline`: each unit runs at once in this process (`--workers 1`, and tests);
- `pool.open_pool`: the local process pool (forkserver, worker start, garbage collection,
  stopping);
- `dask.open_dask`: a Dask cluster (imported only then: Dask is an optional dependency).

The executors know nothing of what the units hold; this package imports nothing of
`bgparse.ingest` (which drives it).
"""

from __future__ import annotations

import contextlib
import sys
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from types import TracebackType
from typing import Any, Generic, Literal, TypeVar

from bgparse.helpers.interrupts import deferred
from bgparse.pipeline.inline import Inline
from bgparse.pipeline.pool import Close, open_pool
from bgparse.store.parts import PartTarget

__all__ = [
    "Close",
    "Executor",
    "Inline",
    "Runner",
    "closing",
    "cluster_setup",
    "on_cluster",
    "once",
    "open_executor",
]

_R = TypeVar("_R")
_M = TypeVar("_M")


def open_executor(
    kind: Literal["local", "dask"],
    workers: int,
    scheduler: str | None = None,
    preload: Sequence[str] = (),
) -> tuple[Executor, Close]:
    """The executor a run asked for, and how to close it: a Dask client (on `scheduler`, or a
    local cluster of `workers`), this process for one worker, else a local process pool. A
    local pool's or cluster's fork server loads the modules `preload` names before it forks
    the workers."""
    if kind == "dask":
        from bgparse.pipeline.dask import open_dask

        dask = open_dask(scheduler, workers, preload)
        return dask, lambda ok: dask.shutdown(cancel_futures=True)
    if workers <= 1:
        return Inline(), lambda ok: None
    return open_pool(workers, preload)


def closing(close: Close) -> Callable[..., None]:
    """An ExitStack exit callback that closes an executor as its block ended: cleanly, or at
    once after an exception."""

    def exit_(
        kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        close(kind is None)

    return exit_


def once(close: Close) -> Close:
    """`close`, run once however often it is called (on an error, and as the block ends)."""
    done = False

    def call(ok: bool) -> None:
        nonlocal done
        if not done:
            done = True
            close(ok)

    return call


def on_cluster(executor: Executor) -> bool:
    """Is the run on a Dask cluster (whose workers read the inputs themselves)?"""
    if "bgparse.pipeline.dask" not in sys.modules:
        return False  # never imported: Dask is not in use
    from bgparse.pipeline.dask import DaskExecutor

    return isinstance(executor, DaskExecutor)


def cluster_setup(
    executor: Executor,
    target: PartTarget | None,
    on_notice: Callable[[str], None] | None,
    inputs: Sequence[str] = (),
) -> int | None:
    """On a Dask cluster: check every worker sees the dataset folder and the inputs named
    (before any work is sent), say where its dashboard is; returns its number of worker
    threads."""
    if not on_cluster(executor):
        return None
    from bgparse.pipeline.dask import DaskExecutor

    assert isinstance(executor, DaskExecutor)
    if target is not None:
        executor.check_shared(target)
    executor.check_inputs(inputs)
    link = executor.dashboard()
    if link and on_notice is not None:
        on_notice(f"Dask dashboard: {link}")
    return executor.threads()


class Runner(Generic[_R, _M]):
    """Units submitted to `executor`, each with what the committer keeps of it (`meta`); their
    results go to `on_result` in the order they were submitted, at most `inflight` units
    ahead (enough to keep workers busy, and a fixed bound on the memory they hold)."""

    def __init__(
        self, executor: Executor, inflight: int, on_result: Callable[[_R, _M], None]
    ) -> None:
        self.executor = executor
        self.inflight = inflight
        self.on_result = on_result
        self.pending: deque[tuple[Future[_R], _M]] = deque()
        # A pool's submit starts worker processes and books them; a signal that cut it half
        # way could leave a started worker the pool does not know, which nobody would stop.
        # (Inline, submit does the unit's work: a signal must stop that at once.)
        self._booking: Callable[[], contextlib.AbstractContextManager[Any]] = (
            deferred if isinstance(executor, ProcessPoolExecutor) else contextlib.nullcontext
        )

    def submit(self, meta: _M, fn: Callable[..., _R], /, *args: Any) -> None:
        """Send one unit, then take back the results beyond the bound."""
        with self._booking():
            self.pending.append((self.executor.submit(fn, *args), meta))
        self.drain(self.inflight)

    def drain(self, limit: int = 0) -> None:
        """Take back results, oldest first, until at most `limit` units are in flight."""
        while len(self.pending) > limit:
            fut, meta = self.pending.popleft()
            self.on_result(fut.result(), meta)
