"""The local process pool: a forkserver's workers, started with SIGINT ignored and
batch-friendly garbage collection, stopped at once when a run fails or is interrupted.

Stopping: workers ignore SIGINT (a terminal's Ctrl-C reaches the whole process group; the
client decides). When a run fails or is interrupted, its workers are killed and waited for a
bounded time (`_stop_pool`): they hold nothing of the dataset, and a graceful shutdown would
wait for the units they are working on.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

from bgparse.helpers.environment import defaults_set
from bgparse.helpers.interrupts import deferred

__all__ = ["Close", "open_pool", "start_forkserver", "unit_garbage"]

#: Reading and replaying make many small objects and keep few: collecting garbage less often
#: makes the per-file work about half again as fast.
_GC_THRESHOLD = (50_000, 20, 20)
#: Collect garbage once per unit (`_unit_garbage`): set in workers, and in the importing
#: process while an import runs its units there.
_BATCH_GC = False


@contextlib.contextmanager
def _batch_gc_here() -> Iterator[None]:
    """Units run in this process during the import collect their garbage per unit; after it,
    the objects frozen meanwhile go back to the collector."""
    global _BATCH_GC
    before = _BATCH_GC
    _BATCH_GC = True
    try:
        yield
    finally:
        _BATCH_GC = before
        if not before:
            gc.unfreeze()


@contextlib.contextmanager
def unit_garbage() -> Iterator[None]:
    """Where a run has asked for it (its workers, or this process while it runs units): no
    automatic garbage collection during a unit, then one collection of what the unit left and
    a freeze of what survives, so the next collection looks only at newer objects. A unit
    makes little cyclic garbage (an import's: lark's parser states) and keeps none; the caches
    it fills are frozen with the rest. Several percent faster than threshold tuning alone, and
    leaner; for `analyze`, whose units build hundreds of thousands of objects from the
    engine's answers, the inline run's time fell by a fifth."""
    if not _BATCH_GC:
        yield
        return
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        gc.freeze()
        if was:
            gc.enable()


def _init_worker() -> None:
    """Worker initializer: SIGINT ignored (the importer decides what a Ctrl-C stops; a worker
    that died of it would print its traceback and could leave the pool's queues locked),
    batch-friendly garbage collection, and exit when the importing process is gone. Killed with
    -9, it cannot tell its pool; and a forkserver's workers keep each other's pipes open, so
    without this they would wait for work forever."""
    global _BATCH_GC
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.set_threshold(*_GC_THRESHOLD)
    _BATCH_GC = True
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        # The sentinel becomes readable when the importer's end of the pipe closes: it died.
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="bgparse-parent-watch").start()


#: How long the importer waits for killed workers to be gone, and then for the pool's manager
#: thread, before it goes on without them.
_STOP_WAIT = 3.0

#: Closes an executor: True after a clean run (its work is done), False when the run failed
#: or was interrupted (stop now, whatever is running).
Close = Callable[[bool], None]


def open_pool(workers: int, preload: Sequence[str] = ()) -> tuple[ProcessPoolExecutor, Close]:
    """A pool of `workers` processes, and how to close it. `preload`: the modules the fork
    server loads before it forks the workers (what they run), besides the main module."""
    # forkserver: workers must not inherit the dataset lock's descriptor (a forked child would
    # keep the flock alive after the importer dies).
    method = "forkserver" if start_forkserver(preload) else "spawn"
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(method),
        initializer=_init_worker,
    )

    def close(ok: bool) -> None:
        if not ok:
            _stop_pool(pool)
            return
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        except BaseException:
            _stop_pool(pool)
            raise

    return pool, close


def start_forkserver(preload: Sequence[str] = ()) -> bool:
    """Start this process's fork server (if it is not running yet) with SIGINT blocked: the
    server and every worker it forks inherit the blocked signal, so a Ctrl-C that reaches them
    before a worker's initializer has run (`_init_worker`) cannot kill them with a traceback.
    The importer's own SIGINT waits the few milliseconds of the start and then acts. False
    where the platform has no fork server (nothing is started)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    from multiprocessing import forkserver, resource_tracker

    # The fork server starts the resource tracker, which blocks and then *unblocks* SIGINT and
    # SIGTERM around its own start: it goes first, so that SIGINT stays blocked here.
    resource_tracker.ensure_running()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    # The server loads what a worker runs once, before it forks them (besides the main module,
    # which it loads by default): each worker starts with it loaded rather than loading it.
    try:
        with defaults_set():  # the workers' environment (bgparse.helpers.environment)
            multiprocessing.set_forkserver_preload(["__main__", *preload])
            forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return True


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a process pool now: kill its workers, whatever they are doing, and wait a bounded
    time for them and for the pool's manager thread. Signals wait until it is done.

    Reaches into the pool (Python 3.14 has `terminate_workers()` for this): a graceful shutdown
    waits for the units being worked on, and a worker that is never joined makes
    multiprocessing's exit handler wait for it forever."""
    with deferred():
        processes = list((getattr(pool, "_processes", None) or {}).values())
        results = getattr(pool, "_result_queue", None)
        manager = getattr(pool, "_executor_manager_thread", None)
        for p in processes:
            with contextlib.suppress(Exception):
                p.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + _STOP_WAIT
        for p in processes:
            p.join(max(0.0, deadline - time.monotonic()))
        # A worker killed while sending its result leaves half a message in the result pipe,
        # and the manager thread waits in recv() for the rest, forever: it is joined at exit.
        # With the workers gone, closing our end for writing turns that wait into an EOF,
        # which the thread handles as a broken pool and ends.
        writer = getattr(results, "_writer", None)
        if writer is not None:
            with contextlib.suppress(OSError):
                writer.close()
        if manager is not None:
            manager.join(max(0.0, deadline - time.monotonic()))
