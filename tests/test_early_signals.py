"""A stop signal early in a run, wherever it lands (Python's own start, the command line's
modules loading, DuckDB's and Arrow's C initialisation, typer building the command), ends the
command with its exit code and no traceback: 143 for SIGTERM, 130 for SIGINT. A signal that
comes before bgparse's first line runs ends the process by the signal's own default action,
which a shell reports with the same numbers (128 + the signal)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import pytest

from bgparse.ingest import ImportOptions, run_import

from .conftest import SAMPLES

#: Seconds after the start (or after bgparse's handlers are in place) the signal is sent.
DELAYS = [round(0.05 * i, 2) for i in range(13)]  # 0.0 .. 0.6


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("early") / "data"
    run_import([SAMPLES / "mat"], data, ImportOptions(workers=1))
    return data


def _commands(dataset: Path, tmp: Path) -> dict[str, list[str]]:
    return {
        "validate": ["validate", str(SAMPLES)],
        "query": ["query", "SELECT count(*) FROM turns", "-d", str(dataset)],
        "stats": ["stats", "opening-rolls", "-d", str(dataset)],
        "import": ["import", str(SAMPLES / "sgf"), "-d", str(tmp / "new"), "-w", "1"],
    }


def _handlers_installed(pid: int) -> bool:
    """bgparse's handlers are in place once SIGTERM is caught (Python's default leaves it be)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def _run(args: list[str], sig: signal.Signals, delay: float, *, after_install: bool) -> None:
    env = {**os.environ, "BGPARSE_PURE_PYTHON": "1"}
    child = subprocess.Popen(
        [sys.executable, "-m", "bgparse", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        if after_install:
            deadline = time.monotonic() + 30
            while not _handlers_installed(child.pid) and child.poll() is None:
                assert time.monotonic() < deadline
                time.sleep(0.002)
        time.sleep(delay)
        child.send_signal(sig)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    text = err.decode("utf-8", "replace")
    assert "Traceback" not in text and "Error" not in text, (args, sig.name, delay, text)
    if child.returncode == 128 + sig:
        assert text in ("", "bgparse: interrupted\n") or text.startswith("bgparse: interrupted")
        assert text.count("\n") <= 1, text
    elif child.returncode == -sig:
        assert text == "", text  # the default action: ended by the signal itself, silently
    elif child.returncode in (0, 1):
        pass  # the command ended before the signal came: it ran to its end
    else:
        raise AssertionError((args, sig.name, delay, child.returncode, text))


@pytest.mark.parametrize("command", ["validate", "query", "stats", "import"])
def test_sigterm_from_the_first_moment(command: str, dataset: Path, tmp_path: Path) -> None:
    for delay in DELAYS:
        _run(_commands(dataset, tmp_path)[command], signal.SIGTERM, delay, after_install=False)


@pytest.mark.parametrize("command", ["validate", "query"])
def test_sigint_from_the_handlers_on(command: str, dataset: Path, tmp_path: Path) -> None:
    """Before bgparse's first line Python's own SIGINT handler is in place (a traceback of
    KeyboardInterrupt, which no program can prevent); from bgparse's handlers on, none."""
    for delay in DELAYS:
        _run(_commands(dataset, tmp_path)[command], signal.SIGINT, delay, after_install=True)


#: The child for the points below: it sends itself the signal when the named module is first
#: imported, or the named function first called, then runs the command as `bgparse` does.
_AT_A_POINT = r"""
import os, signal, sys
kind, name, signum = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.argv = ["bgparse", *sys.argv[4:]]

def fire():
    os.kill(os.getpid(), signum)

if kind == "import":
    class Fire:
        def find_spec(self, fullname, path, target=None):
            if fullname == name:
                sys.meta_path.remove(self)
                fire()
            return None
    sys.meta_path.insert(0, Fire())
else:
    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name == name:
            sys.setprofile(None)
            fire()
    sys.setprofile(profile)

from bgparse.__main__ import main
main()
"""

#: Where a signal was seen to give a traceback or an abort: the command line's modules loading,
#: DuckDB's and Arrow's C initialisation (and what it imports), typer building the command
#: from its options (outside the boundary that words errors), the dataset's connection.
POINTS = [
    ("import", "typer"),
    ("import", "rich.table"),
    ("import", "duckdb"),
    ("import", "_duckdb"),
    ("import", "duckdb._seam"),
    ("import", "duckdb._expression"),
    ("import", "duckdb._relation"),
    ("import", "pyarrow"),
    ("import", "pyarrow.lib"),
    ("call", "get_command"),
    ("call", "get_group"),
    ("call", "_connect"),
]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
@pytest.mark.parametrize("kind,name", POINTS, ids=[n for _, n in POINTS])
def test_a_signal_at_each_point_of_the_start(
    kind: str, name: str, sig: signal.Signals, dataset: Path
) -> None:
    args = ["query", "SELECT count(*) FROM turns", "-d", str(dataset)]
    done = subprocess.run(
        [sys.executable, "-c", _AT_A_POINT, kind, name, str(int(sig)), *args],
        capture_output=True,
        env={**os.environ, "BGPARSE_PURE_PYTHON": "1"},
        timeout=120,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        128 + sig,
        b"",
        b"bgparse: interrupted\n",
    )


def _query_ends_as_interrupted(
    dataset: Path, monkeypatch: pytest.MonkeyPatch, connect: Callable[..., None]
) -> None:
    """`bgparse query` with the dataset's connection replaced by `connect`, where the stop
    signal comes: it ends as the interrupt, one line, exit 143."""
    from typer.testing import CliRunner

    import bgparse.questions.query
    from bgparse.cli import app

    monkeypatch.setattr(bgparse.questions.query, "connect", connect)
    result = CliRunner().invoke(app, ["query", "SELECT 1", "-d", str(dataset)])
    assert (result.exit_code, result.stdout, result.stderr) == (
        128 + signal.SIGTERM,
        "",
        "bgparse: interrupted\n",
    )


def test_a_signal_python_wrapped_in_its_own_exception_is_an_interrupt(
    dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.11 wraps an exception raised in a descriptor's `__set_name__` (a dataclass's
    fields, while a module that defines one loads) in `RuntimeError: Error calling
    __set_name__`: the handler's `Interrupted` came out as that, and a traceback (a SIGTERM 0.25 s
    into `query`, the dataset's modules loading). Whatever wraps it, it ends the command as an
    interrupt."""
    from bgparse.helpers.interrupts import Interrupted

    class Made:
        def __set_name__(self, owner: type, name: str) -> None:
            raise Interrupted(signal.SIGTERM)

    def connect(*args: object, **kwargs: object) -> None:
        type("Manifest", (), {"files": Made()})  # as a class with such a field is made

    _query_ends_as_interrupted(dataset, monkeypatch, connect)


def test_a_signal_that_a_library_made_an_error_of_its_own_is_an_interrupt(
    dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB reads a registered Arrow object's schema by calling back into Python; a SIGTERM
    whose handler raised there came out as DuckDB's `InvalidInputException`, the `Interrupted`
    reduced to its message, and a traceback (0.4 s into `stats` in a clean clone's CI run).
    Once the handler has received a stop signal, whatever error follows ends the command as
    the interrupt."""
    import duckdb

    from bgparse.helpers import interrupts

    monkeypatch.setattr(interrupts, "_watchdog", lambda signum: None)
    monkeypatch.setattr(interrupts._State, "first", None)
    monkeypatch.setattr(interrupts._State, "reported", False)

    class Stream:
        def __arrow_c_stream__(self, requested_schema: object = None) -> object:
            interrupts._on_signal(signal.SIGTERM, sys._getframe())  # the signal lands here
            raise AssertionError("the handler raises")

    def connect(*args: object, **kwargs: object) -> None:
        duckdb.connect().register("_bgparse_empty", Stream())

    _query_ends_as_interrupted(dataset, monkeypatch, connect)


def test_a_signal_inside_a_callback_that_loses_exceptions_is_sent_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A signal that lands in a weak reference's callback (importlib's module-lock `cb`, when
    a lock is collected mid-import) or a finalizer cannot raise there: Python would print the
    exception as a traceback and lose it (seen 0.25 s into `stats`). The handler sends the
    signal again a moment later instead; anywhere else it raises at once."""
    from bgparse.helpers import interrupts

    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
    monkeypatch.setattr(interrupts, "_watchdog", lambda signum: None)
    monkeypatch.setattr(interrupts._State, "first", None)
    where: dict[str, object] = {}
    code = "import sys\ndef cb():\n    return sys._getframe()\ndef __del__():\n    return sys._getframe()\n"
    exec(compile(code, "<frozen importlib._bootstrap>", "exec"), where)
    frames = [where[name]() for name in ("cb", "__del__")]  # type: ignore[operator]
    # The standard library's weak containers: their `remove` callbacks, as Python calls them.
    import weakref

    class Dying:
        pass

    def remove_frame(container: object) -> FrameType:
        caught: list[FrameType] = []
        tracer = sys.gettrace()

        # Only the callback's frame is kept: another (`__setitem__`'s) would keep the object.
        def trace(frame: FrameType, event: str, arg: object) -> None:
            if event == "call" and frame.f_code.co_name in ("remove", "_remove"):
                caught.append(frame)

        sys.settrace(trace)
        try:
            obj = Dying()
            if isinstance(container, weakref.WeakValueDictionary):
                container["k"] = obj
            else:
                container.add(obj)  # type: ignore[attr-defined]
            del obj  # its callback runs now, traced
        finally:
            sys.settrace(tracer)
        [frame] = caught
        return frame

    frames += [remove_frame(weakref.WeakValueDictionary()), remove_frame(weakref.WeakSet())]
    for frame in frames:
        interrupts._on_signal(signal.SIGTERM, frame)  # does not raise
    deadline = time.monotonic() + 5
    while len(sent) < len(frames) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sent == [(os.getpid(), signal.SIGTERM)] * len(frames)
    assert interrupts.received() is None
    with pytest.raises(interrupts.Interrupted):
        interrupts._on_signal(signal.SIGTERM, sys._getframe())
    assert interrupts.received() == signal.SIGTERM
