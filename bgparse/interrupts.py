"""Stop signals (Ctrl-C, SIGTERM): the command line's handlers, and the sections none may cut.

The command line installs `install()`'s handlers before it loads anything heavy. The first stop
signal raises `Interrupted` in the main thread, wherever it is; every signal after it is
ignored, so that the clean-up the first one started (abort the transaction, stop the workers)
runs to its end, which takes a bounded time. A section that must not be cut half way (the
manifest's replacement, the process pool's bookkeeping) runs under `deferred()`, which holds a
signal until the section ends and then acts on it.

The first signal also starts a watchdog: if the process has not ended `GRACE` seconds later, it
prints the command's one line (unless `report` printed it) and ends the process there. Nothing
of bgparse needs it; it is there because C code can swallow the exception a handler raises
(DuckDB does, now and then, and runs its query on), and because an exit handler that waits for
a process forever (multiprocessing's) would otherwise hang the command.

Nothing here is installed by importing bgparse as a library: a program that calls
`bgparse.ingest.run_import` keeps its own handlers, and `deferred()` holds whatever they are.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

__all__ = [
    "GRACE",
    "STOP_SIGNALS",
    "Interrupted",
    "deferred",
    "install",
    "received",
    "report",
    "uninstall",
]

#: Ctrl-C, and the polite kill of service managers and `kill PID`.
STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)

#: Seconds from the first stop signal to the watchdog's end of the process.
GRACE = 6.0

_Handler = Callable[[int, FrameType | None], Any] | int | None


class Interrupted(BaseException):
    """A stop signal arrived. A BaseException like KeyboardInterrupt, so that no `except
    Exception` swallows it; not a KeyboardInterrupt, so that click does not turn it into its
    own "Aborted!" and exit code 1. `committed`: the work had already made its commit when the
    signal came (an import is then complete)."""

    def __init__(self, signum: int, *, committed: bool = False) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.committed = committed

    @property
    def exit_code(self) -> int:
        """The shell's convention for a process ended by a signal: 130 for SIGINT, 143 for
        SIGTERM."""
        return 128 + self.signum


class _State:
    """The command line's handler state: the first signal received, and whether handlers are
    ours."""

    first: int | None = None
    installed: bool = False
    reported: bool = False
    lock = threading.Lock()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _State.first is not None:
        # The first signal's clean-up is under way: let it finish (it is bounded).
        return
    _State.first = signum
    threading.Thread(target=_watchdog, args=(signum,), daemon=True, name="bgparse-stop").start()
    raise Interrupted(signum)


def _watchdog(signum: int) -> None:
    time.sleep(GRACE)
    report("bgparse: interrupted")
    os._exit(128 + signum)


def report(line: str) -> None:
    """Print the line that says the command was stopped; only the first call prints."""
    with _State.lock:
        if _State.reported:
            return
        _State.reported = True
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def install() -> None:
    """Make SIGINT and SIGTERM raise `Interrupted` in the main thread. A signal inherited as
    ignored (`nohup`, a background job's Ctrl-C) stays ignored."""
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _on_signal)
    _State.first = None
    _State.reported = False
    _State.installed = True


def uninstall() -> None:
    """After the command's work: a stop signal ends the process at once, quietly, as it does any
    program (nothing is left to clean up)."""
    if not _State.installed:
        return
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    _State.installed = False


def received() -> int | None:
    """The first stop signal `install()`'s handlers received, if any."""
    return _State.first


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while the block runs, then act on the first one held as the
    handler in place before would have. Only the main thread runs Python's signal handlers; in
    another thread this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    before: dict[signal.Signals, _Handler] = {}
    for sig in STOP_SIGNALS:
        current = signal.getsignal(sig)
        if current is not signal.SIG_IGN:
            before[sig] = current
            signal.signal(sig, hold)
    try:
        yield
    finally:
        for sig, handler in before.items():
            # None: a handler installed outside Python; the default is the nearest we can do.
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        if held:
            _deliver(signal.Signals(held[0]), before[signal.Signals(held[0])])


def _deliver(sig: signal.Signals, handler: _Handler) -> None:
    if callable(handler):
        handler(sig, None)
    elif handler is None or handler == signal.SIG_DFL:
        signal.raise_signal(sig)
