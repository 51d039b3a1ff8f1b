"""Ctrl-C and SIGTERM during `bgparse import` (and `compact`): the command stops within a bounded
time, prints one line and no traceback, exits 130 (143 for SIGTERM), its worker processes go,
and the dataset is as it was: nothing of the interrupted import is committed, no file of it is
left behind, and a following import completes it exactly. A signal that comes once the commit
has begun is held until the manifest is replaced; the import is then complete, and the message
says so.

Each run is the real command in a child process with a session of its own, as a terminal runs
it; the signal goes to the whole process group (a terminal's Ctrl-C reaches every process of
the job, workers included) or to the importer alone. Points in the middle of the work are hit
deterministically with the kill points of killpoints.py sending a signal instead of SIGKILL;
"at startup" and "mid-import" in the real command are found by watching the child.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect

from ..conftest import SAMPLES, corpus_dir
from .conftest import files, group_alive, group_ends, snapshot

TESTS = Path(__file__).resolve().parents[1]

#: From the signal to the command's end; "a few seconds" with room for a loaded machine.
STOP_BOUND = 10.0
#: From the command's end to the end of its workers and fork server.
GROUP_BOUND = 10.0

#: The command with one kill point armed to send a signal, and one file per unit, so that the
#: workers are busy with later files when the signal comes.
ARMED = r"""
import dataclasses, sys, time
import bgparse.ingest as ingest
from store.killpoints import arm

point, n, sig, group, note = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
real = ingest.run_import

def one_file_units(paths, root, options=None, **kw):
    return real(paths, root, dataclasses.replace(options, chunk_files=1), **kw)

def sent():
    with open(note, "w") as fh:
        fh.write(repr(time.monotonic()))

ingest.run_import = one_file_units
arm(point, n, sig, group == "group", on_send=sent)
sys.argv = ["bgparse", *sys.argv[6:]]
from bgparse.__main__ import main
main()
"""


@dataclass(frozen=True)
class Stopped:
    code: int
    stderr: str
    seconds: float  # from the signal to the command's end

    @property
    def lines(self) -> list[str]:
        return self.stderr.splitlines()


def _as_a_terminal_starts_it() -> None:
    # A shell's background job (CI's, say) inherits SIGINT ignored, and bgparse rightly keeps
    # an ignored SIGINT ignored: start the command as a terminal would.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(argv: list[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    return subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_as_a_terminal_starts_it,
    )


def _group(pgid: int) -> list[str]:
    """Command lines of the live processes of a process group."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            cmd = (entry / "cmdline").read_bytes()
            if (entry / "stat").read_text().split(") ", 1)[1][0] == "Z":
                continue
        except (OSError, IndexError):
            continue
        out.append(cmd.replace(b"\0", b" ").decode(errors="replace"))
    return out


def _finish(child: subprocess.Popen[bytes], sent_at: Callable[[], float]) -> Stopped:
    """Wait (bounded) for the command and then for every process of its group."""
    try:
        try:
            _, err = child.communicate(timeout=STOP_BOUND + 60)
        except subprocess.TimeoutExpired:
            pytest.fail("the command did not stop (hung): killed it")
        seconds = time.monotonic() - sent_at()
        group_ends(child.pid, GROUP_BOUND, 0.05)
        assert not _group(child.pid), "processes of the import outlived it"
    finally:
        if group_alive(child.pid):
            os.killpg(child.pid, signal.SIGKILL)
    assert seconds < STOP_BOUND, f"stopped {seconds:.1f} s after the signal"
    return Stopped(child.returncode, err.decode(errors="replace"), seconds)


def run_armed(tmp_path: Path, point: str, n: int, sig: int, group: bool, *args: str) -> Stopped:
    """`bgparse ARGS` with the kill point `point` armed to send `sig` on call n + 1."""
    note = tmp_path / "sent-at"
    where = "group" if group else "self"
    child = _start([sys.executable, "-c", ARMED, point, str(n), str(sig), where, str(note), *args])

    def sent_at() -> float:
        assert note.exists(), "the kill point was never reached"
        return float(note.read_text())

    return _finish(child, sent_at)


def run_watched(ready: Callable[[int], bool], sig: int, group: bool, *args: str) -> Stopped:
    """The installed `bgparse ARGS`, sent `sig` as soon as `ready(pid)` holds."""
    script = Path(sys.executable).parent / "bgparse"
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "bgparse"]
    child = _start([*argv, *args])
    sent = 0.0
    try:
        deadline = time.monotonic() + 120
        while not ready(child.pid):
            assert child.poll() is None, "the command ended before the point was reached"
            assert time.monotonic() < deadline, "the point was never reached"
            time.sleep(0.005)
        if group:
            os.killpg(child.pid, sig)
        else:
            os.kill(child.pid, sig)
        sent = time.monotonic()
    except BaseException:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        raise
    return _finish(child, lambda: sent)


def assert_one_line(stopped: Stopped, code: int, text: str) -> None:
    assert stopped.code == code, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert len(stopped.lines) == 1, stopped.stderr
    assert text in stopped.lines[0]


# --- deterministic points: the sample records, one file per unit, two workers --------------


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[tuple]]]:
    """A dataset holding the SGF samples, and the snapshot after importing every sample into
    it without a signal."""
    base = tmp_path_factory.mktemp("samples")
    before = base / "before"
    run_import([SAMPLES / "sgf"], before, ImportOptions(workers=1))
    ref = base / "ref"
    shutil.copytree(before, ref)
    run_import([SAMPLES], ref, ImportOptions(workers=1))
    return before, snapshot(ref)


INT, TERM = int(signal.SIGINT), int(signal.SIGTERM)


@pytest.mark.parametrize(
    "point,n,sig,group,complete",
    [
        ("staging", 3, INT, True, True),  # Ctrl-C in a terminal, workers busy
        ("staging", 3, INT, False, False),  # SIGINT to the importer alone
        ("staging", 3, TERM, False, False),  # kill PID
        ("staging", 3, TERM, True, False),  # a service manager stopping the whole job
        ("publish", 2, INT, False, True),  # two staged files moved into the tree, not committed
    ],
)
def test_a_signal_before_the_commit_leaves_the_dataset_as_it_was(
    samples: tuple[Path, dict[str, list[tuple]]],
    tmp_path: Path,
    point: str,
    n: int,
    sig: int,
    group: bool,
    complete: bool,
) -> None:
    before, reference = samples
    data = tmp_path / "data"
    shutil.copytree(before, data)
    was = files(data)
    args = ("import", "--data", str(data), "-w", "2", str(SAMPLES))
    stopped = run_armed(tmp_path, point, n, sig, group, *args)
    assert_one_line(stopped, 128 + sig, "interrupted: nothing was committed")
    assert files(data) == was
    if complete:  # (where the work left most behind; the others' files are as they were too)
        run_import([SAMPLES], data, ImportOptions(workers=1))
        assert snapshot(data) == reference


def test_a_signal_at_the_commit_point_waits_for_the_commit(
    samples: tuple[Path, dict[str, list[tuple]]], tmp_path: Path
) -> None:
    before, reference = samples
    data = tmp_path / "data"
    shutil.copytree(before, data)
    stopped = run_armed(
        tmp_path, "manifest", 0, TERM, False, "import", "--data", str(data), str(SAMPLES)
    )
    assert_one_line(stopped, 143, "interrupted after the commit: the import is complete")
    assert snapshot(data) == reference
    s = run_import([SAMPLES], data, ImportOptions(workers=1))
    assert (s.skipped, s.committed) == (s.inputs, False)


def test_an_interrupted_compaction_leaves_the_dataset_as_it_was(
    samples: tuple[Path, dict[str, list[tuple]]], tmp_path: Path
) -> None:
    before, _ = samples
    data = tmp_path / "data"
    shutil.copytree(before, data)
    run_import([SAMPLES / "mat"], data, ImportOptions(workers=1))  # the ledger's second file
    was = files(data)
    stopped = run_armed(tmp_path, "publish", 0, TERM, True, "compact", "--data", str(data))
    assert_one_line(stopped, 143, "interrupted: the dataset is as it was")
    assert files(data) == was


# --- the real command, at startup and in the middle of an import --------------------------


def _loading(pid: int) -> bool:
    """The command is loading its modules: Arrow's library is being mapped."""
    try:
        return "libarrow" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def _working(pid: int) -> bool:
    """The import's two workers are running: the fork server and the two it forked."""
    return sum("forkserver" in cmd for cmd in _group(pid)) >= 3


@pytest.fixture(scope="module")
def gnubg_files() -> list[str]:
    """400 GNU Backgammon exports, 3.3 MB: several seconds of import for two workers."""
    return [str(p) for p in sorted(corpus_dir("gnubg").glob("*.mat"))]


@pytest.mark.parametrize(
    "sig,group",
    [(INT, True), (INT, True), (INT, False), (TERM, False)],
    ids=["ctrl-c", "ctrl-c-again", "sigint", "sigterm"],
)
def test_a_signal_mid_import_stops_it_at_once(
    samples: tuple[Path, dict[str, list[tuple]]],
    gnubg_files: list[str],
    tmp_path: Path,
    sig: int,
    group: bool,
) -> None:
    before, _ = samples
    data = tmp_path / "data"
    shutil.copytree(before, data)
    was = files(data)
    args = ("import", "--data", str(data), "-w", "2", *gnubg_files)
    stopped = run_watched(lambda pid: _working(pid) and _pause(0.3), sig, group, *args)
    assert_one_line(stopped, 128 + sig, "interrupted: nothing was committed")
    assert files(data) == was
    connect(data)


@pytest.mark.parametrize("sig,group", [(INT, True), (TERM, False)], ids=["ctrl-c", "sigterm"])
def test_a_signal_while_the_command_loads_stops_it_quietly(
    samples: tuple[Path, dict[str, list[tuple]]], tmp_path: Path, sig: int, group: bool
) -> None:
    before, _ = samples
    data = tmp_path / "data"
    shutil.copytree(before, data)
    was = files(data)
    stopped = run_watched(_loading, sig, group, "import", "--data", str(data), str(SAMPLES))
    assert_one_line(stopped, 128 + sig, "interrupted")
    assert files(data) == was


def _pause(seconds: float) -> bool:
    time.sleep(seconds)
    return True


@pytest.mark.parametrize("sig,group", [(TERM, True)], ids=["sigterm"])
def test_a_signal_stops_a_long_query(
    samples: tuple[Path, dict[str, list[tuple]]], sig: int, group: bool
) -> None:
    """DuckDB notices the signal inside a query and says only "Query interrupted", or now and
    then swallows it and runs on: the watchdog (`bgparse.helpers.interrupts.GRACE`) ends it then."""
    before, _ = samples
    endless = "SELECT count(*) FROM range(1000000000000)"
    stopped = run_watched(
        lambda pid: _loading(pid) and _pause(2.5), sig, group, "query", endless, "-d", str(before)
    )
    assert_one_line(stopped, 128 + sig, "bgparse: interrupted")


def test_a_stop_signal_whose_exception_was_swallowed_still_stops_the_import_before_its_commit(
    samples: tuple[Path, dict[str, list[tuple]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """C code can swallow the exception a stop signal's handler raises (bgparse.helpers.interrupts):
    the import looks for a signal received before it commits, and stops there, the dataset
    as it was."""
    from bgparse.helpers import interrupts
    from bgparse.ingest import verify_file

    before, _ = samples
    data = tmp_path / "data"
    shutil.copytree(before, data)
    was = files(data)
    swallowed: list[str] = []

    def verify(blob: bytes, path: str) -> Any:
        if not swallowed:
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)  # the handler runs here, in this (the main) thread
            except interrupts.Interrupted:
                swallowed.append(path)  # as a library's C code might
        return verify_file(blob, path)

    monkeypatch.setattr(interrupts, "_watchdog", lambda signum: None)  # no exit of pytest
    monkeypatch.setattr(interrupts._State, "first", None)
    monkeypatch.setattr(interrupts._State, "reported", False)
    # install() leaves an ignored SIGINT ignored (a job started in the background of a
    # non-interactive shell): this process must hear it as a terminal's Ctrl-C.
    was_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupts.install()
    try:
        with pytest.raises(interrupts.Interrupted):
            run_import([SAMPLES], data, ImportOptions(workers=1), verify=verify)
    finally:
        interrupts.uninstall()
        signal.signal(signal.SIGINT, was_handler)
    assert swallowed  # the signal's own exception was swallowed
    assert files(data) == was
