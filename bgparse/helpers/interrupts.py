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
import importlib.abc
import importlib.machinery
import importlib.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from types import FrameType, ModuleType
from typing import Any

__all__ = [
    "GRACE",
    "STOP_SIGNALS",
    "Interrupted",
    "among_causes",
    "deferred",
    "hold_while_loading",
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


#: How long a signal that came inside a callback is held before it is sent again (`_on_signal`).
_REDELIVER = 0.005


#: Modules whose functions run as weak references' callbacks (a WeakValueDictionary's or a
#: WeakSet's `remove`, `weakref.finalize`), or only a step from one: a signal landing in any of
#: them is sent again a moment later, which costs nothing where it could have raised.
_CALLBACK_MODULES = frozenset({"weakref", "_weakrefset"})


def _swallowed_there(frame: FrameType | None) -> bool:
    """Would an exception raised in `frame` be printed as "Exception ignored in" and lost? So
    it is in a finalizer (`__del__`) and in a weak reference's callback, which Python calls
    from wherever an object dies: importlib's module-lock callback (`cb`, when a module lock
    is collected during an import; met 0.25 s into `bgparse stats`) and the standard
    library's weak containers (a WeakValueDictionary's `remove`, met 0.55 s into `bgparse
    import`)."""
    if frame is None:
        return False
    code = frame.f_code
    return (
        code.co_name == "__del__"
        or (code.co_name == "cb" and code.co_filename.startswith("<frozen importlib"))
        or frame.f_globals.get("__name__") in _CALLBACK_MODULES
    )


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _State.first is not None:
        # The first signal's clean-up is under way: let it finish (it is bounded).
        return
    if _swallowed_there(frame):
        # Raised here, the exception would be printed as a traceback and lost, and the
        # command would run on until the watchdog: the signal is sent again a moment later,
        # when the callback has returned.
        threading.Timer(_REDELIVER, os.kill, (os.getpid(), signum)).start()
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


def among_causes(exc: BaseException) -> Interrupted | None:
    """The stop signal's `Interrupted` behind `exc`, if any. Python wraps an exception raised
    in some places (a descriptor's `__set_name__` while a class is made, in 3.11: `RuntimeError:
    Error calling __set_name__`) in one of its own, and a signal's `Interrupted` can land
    there: it is found among `exc`'s causes. A library calling back into Python from C++
    (DuckDB reading a registered Arrow table's schema) keeps only its message, in an error of
    its own: once the handler has received a stop signal, whatever error follows is that
    signal's."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, Interrupted):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    signum = _State.first
    return Interrupted(signum) if signum is not None else None


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


class _HeldLoader(importlib.abc.Loader):
    """A module's loader, run with stop signals held (`deferred`)."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        with deferred():
            return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        with deferred():
            self._loader.exec_module(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _HoldWhileLoading(importlib.abc.MetaPathFinder):
    """Finds the named top-level packages as the other finders do, and loads them with stop
    signals held."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self._finding = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names or self._finding:
            return None
        self._finding = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _HeldLoader(spec.loader)
        return spec


def hold_while_loading(names: Sequence[str]) -> None:
    """Load the named top-level packages (their submodules with them) with stop signals held
    until each is loaded. A C extension's initialisation cannot be cut: a handler's exception
    raised in the Python code it calls reaches C++ that cannot take it, and DuckDB's import
    ends the process with SIGABRT. For the command line only (`bgparse.__main__`)."""
    wanted = frozenset(names)
    if not any(isinstance(f, _HoldWhileLoading) for f in sys.meta_path):
        sys.meta_path.insert(0, _HoldWhileLoading(wanted))


def _deliver(sig: signal.Signals, handler: _Handler) -> None:
    if callable(handler):
        handler(sig, None)
    elif handler is None or handler == signal.SIG_DFL:
        signal.raise_signal(sig)
