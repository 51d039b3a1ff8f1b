"""Import: the one place that strings read → replay → store together, and runs it over inputs.

Two halves. `process_file` is pure: one input's bytes in, Arrow rows of every table (built by
`bgparse.store.rows`) and the input's status out; it never touches the dataset, so it runs
anywhere (in this process, a process pool, a Dask cluster). `run_import` is the executor: it
enumerates inputs (`bgparse.store.inputs`), skips what the ledger already holds, sends the rest
in bounded chunks to workers, and hands results to a dataset transaction *in input order*, so
which of two copies of a match is stored and which is a duplicate never depends on scheduling.

Stopping: workers ignore SIGINT (a terminal's Ctrl-C reaches the whole process group; the
importer decides). When an import fails or is interrupted, the importer aborts its transaction
and kills its workers, waiting a bounded time for them (`_stop_pool`): they hold nothing of the
dataset, and a graceful shutdown would wait for the units they are working on.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import heapq
import multiprocessing
import multiprocessing.connection
import os
import secrets
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata
from types import TracebackType
from typing import Any, Literal, TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc

from bgparse.environment import defaults_set
from bgparse.errors import NoSuchPath
from bgparse.findings import Finding, Severity, SyntaxRecordError
from bgparse.interrupts import Interrupted, deferred, received
from bgparse.paths import display_path
from bgparse.store.dataset import Dataset, KnownInputs, Transaction
from bgparse.store.inputs import Archive, InputFile, InputRef, Limits, Rejected, iter_inputs
from bgparse.store.parts import (
    MERGE_ROWS,
    Part,
    PartTarget,
    merge_parts,
    open_staging,
    read_part,
    write_parts,
)
from bgparse.store.rows import (
    START_POSITION_ID,
    ImportContext,
    LedgerRows,
    MatchCounts,
    PartKey,
    Rows,
    Unstorable,
    canonical_match,
    match_uid,
)
from bgparse.store.schema import TABLES
from bgparse.store.seen import SEEN_LIMIT, Seen
from bgparse.verified import VerifiedMatch

__all__ = [
    "START_POSITION_ID",
    "FileResult",
    "FileTask",
    "ImportContext",
    "ImportOptions",
    "ImportProgress",
    "ImportSummary",
    "InputOutcome",
    "UnitParts",
    "UnitResult",
    "Verify",
    "bgparse_version",
    "canonical_match",
    "match_uid",
    "process_file",
    "process_unit",
    "read_task",
    "run_import",
    "unit_batches",
    "verify_file",
    "write_unit",
]

_QUARANTINE_EXAMPLES = 200

#: bytes and path in, verified matches out; raises SyntaxRecordError for an unreadable file.
Verify = Callable[[bytes, str], Iterable[VerifiedMatch]]


def bgparse_version() -> str:
    try:
        return metadata.version("bgparse")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def verify_file(
    data: bytes, path: str, rules: Mapping[str, Any] | None = None
) -> Iterator[VerifiedMatch]:
    """Read and replay every match of one file, one at a time (a file of thousands of matches
    never holds them all). The readers' own findings (syntax, layout) are merged into each
    match's findings so the dataset keeps them all. `rules`: replay overrides (`import
    --rules`; bind them with `functools.partial`, which pickles for the workers)."""
    # Imported here so that the store and the CLI's --help never pay for the grammars.
    from bgparse.readers import SourceLines, iter_records
    from bgparse.replay import replay

    source = SourceLines(data)
    for record in iter_records(data, path):
        vm = replay(record, rules)
        findings = vm.findings
        if record.errors:
            seen = {_finding_key(f) for f in findings}
            findings = tuple(f for f in record.errors if _finding_key(f) not in seen) + findings
        # The dataset keeps each finding's line (its excerpt), as `validate` shows it.
        findings = source.fill(findings, vm.format)
        if findings is not vm.findings:
            vm = replace(vm, findings=findings)
        yield vm


def _finding_key(f: Finding) -> tuple[str, int, int, str]:
    return (f.code, f.line, f.column, f.message)


#: The ledger's reason for an input refused unread and met again in the same import.
GIVEN_TWICE = "the same input was given twice"


def same_content(first: str, sha256: str) -> str:
    """The ledger's reason for a copy of an earlier input of the same import."""
    return f"same content as {first} (sha256 {sha256[:12]}…)"


def quarantined_copy(same: str, reason: str) -> str:
    """The ledger's reason for a copy (`same_content`) of an input the import quarantined."""
    return f"{same}, which is quarantined: {reason}"


# --- the per-file work ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileTask:
    """One input for a worker: its bytes and their SHA-256, or (`data` None) where the worker
    reads them itself: the absolute `source` path, with the size and modification time the
    walk saw (a file changed since is refused, not imported with facts that are not its own).
    `settled`: the SHA-256 an earlier import settled at this path; a worker that reads that
    content again goes no further (a re-run's unchanged inputs are hashed, not verified)."""

    path: str
    data: bytes | None
    sha256: str | None
    source: str | None = None
    size: int = 0
    mtime_ns: int = 0
    settled: str | None = None

    def __reduce__(self) -> tuple[type[FileTask], tuple[Any, ...]]:
        # Pickled once per file by the client: a slots dataclass's own pickling looks its
        # fields up each time (a tenth of the client's cost per file on Dask).
        return FileTask, (
            self.path,
            self.data,
            self.sha256,
            self.source,
            self.size,
            self.mtime_ns,
            self.settled,
        )


@dataclass(slots=True)
class FileResult:
    """What one input became: its status, and its rows by table and partition (every row
    carries `match_uid`, NULL for findings about the file as a whole). `repeat`: the unit
    already held a file of the same content (not read again; the importer decides which copy
    is the first); `settled`: the content an earlier import settled at this path (not read
    further: the importer skips it). `sha256`: of the content read (None where it was not
    read: `changed` tells a file that changed after the walk from one that could not be
    opened)."""

    path: str
    status: Literal["ok", "quarantined", "repeat", "settled"]
    reason: str | None = None
    matches: list[MatchCounts] = field(default_factory=list)
    tables: dict[PartKey, pa.RecordBatch] = field(default_factory=dict)
    findings: int = 0  # about the file as a whole (an unreadable file's)
    errors: int = 0
    sha256: str | None = None
    changed: bool = False

    def __reduce__(self) -> tuple[type[FileResult], tuple[Any, ...]]:
        # One per file, pickled by its worker and unpickled by the client (see FileTask).
        return FileResult, (
            self.path,
            self.status,
            self.reason,
            self.matches,
            self.tables,
            self.findings,
            self.errors,
            self.sha256,
            self.changed,
        )


@dataclass(slots=True)
class UnitResult:
    """A unit's files (their `tables` emptied) and all their rows, one batch per table and
    partition, as Arrow IPC bytes: far cheaper to send between processes than pickled
    batches, and one batch per unit rather than per file keeps the importer's work small."""

    files: list[FileResult]
    ipc: dict[PartKey, bytes]

    def batches(self) -> dict[PartKey, pa.RecordBatch]:
        return {
            key: pa.ipc.read_record_batch(pa.py_buffer(data), TABLES[key[0]])
            for key, data in self.ipc.items()
        }


@dataclass(frozen=True, slots=True)
class UnitParts:
    """A unit whose worker wrote its rows itself (`write_unit`): its files' results (no
    tables) and the parts it wrote into the import's staging folder. A few hundred bytes per
    file, whatever the size of the rows."""

    files: list[FileResult]
    parts: tuple[Part, ...]


def process_file(task: FileTask, ctx: ImportContext, verify: Verify = verify_file) -> FileResult:
    """One input's bytes to rows. Never raises: a file that cannot be read, holds no match, or
    trips an internal error comes back quarantined with the reason."""
    read = read_task(task)
    if isinstance(read, FileResult):
        return read
    rows = Rows(ctx)
    res = _process(read, ctx, verify, set(), rows)
    try:
        res.tables = rows.batches()
    except Unstorable as exc:
        return FileResult(task.path, "quarantined", str(exc)[:500], sha256=read.sha256)
    return res


def read_task(task: FileTask) -> FileTask | FileResult:
    """The task with its bytes and SHA-256: read here where the walk left the file to its
    worker, or the file quarantined as unreadable (`sha256` None). A file whose size or
    modification time is not the walk's is refused as changed: its ledger facts and its
    rows would not be of one content."""
    if task.data is not None:
        return task
    assert task.source is not None
    try:
        with open(task.source, "rb") as fh:
            st = os.fstat(fh.fileno())
            data = b""
            if st.st_size == task.size and st.st_mtime_ns == task.mtime_ns:
                data = fh.read(task.size + 1)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        where = f"{os.uname().nodename} (pid {os.getpid()})"
        return FileResult(task.path, "quarantined", f"cannot read on {where}: {why}")
    if len(data) != task.size or st.st_size != task.size or st.st_mtime_ns != task.mtime_ns:
        reason = (
            f"changed while the import ran ({task.size:,} bytes when listed, {st.st_size:,} "
            "when read): not imported; import it again"
        )
        return FileResult(task.path, "quarantined", reason, changed=True)
    sha = hashlib.sha256(data).hexdigest()
    if sha == task.settled:
        return FileResult(task.path, "settled", sha256=sha)
    return FileTask(task.path, data, sha)


def _process(
    task: FileTask, ctx: ImportContext, verify: Verify, seen: set[bytes], rows: Rows
) -> FileResult:
    """Add one file's rows to `rows`; the result has no tables (the caller makes them), and
    the content's SHA-256."""
    res = _process_read(task, ctx, verify, seen, rows)
    res.sha256 = task.sha256
    return res


def _process_read(
    task: FileTask, ctx: ImportContext, verify: Verify, seen: set[bytes], rows: Rows
) -> FileResult:
    """`_process` itself. `seen`: matches of the unit so far; a match met again gets no rows
    (input order decides which copy is kept, not the schedule)."""
    assert task.data is not None and task.sha256 is not None
    rows.start_file(task.path, task.sha256)
    mark = rows.mark()
    added: set[bytes] = set()
    try:
        counts: list[MatchCounts] = []
        for vm in verify(task.data, task.path):
            uid, content_sha = match_uid(vm)
            if uid in seen:
                counts.append(rows.add_duplicate(vm, uid))
            else:
                seen.add(uid)
                added.add(uid)
                counts.append(rows.add_match(vm, uid, content_sha))
                rows.flush_full()
        if not counts:
            return FileResult(task.path, "quarantined", "no match found in the file")
        return FileResult(task.path, "ok", None, counts)
    except SyntaxRecordError as exc:
        f = exc.finding
        rows.rollback(mark)
        rows.add_file_finding(f)
        errors = int(f.severity is Severity.ERROR)
        reason = f"{f.code} {f.message}"
        return FileResult(task.path, "quarantined", reason, [], {}, 1, errors)
    except Exception as exc:
        # One broken file must not stop an import of thousands; the ledger keeps the reason.
        rows.rollback(mark)
        seen -= added  # the file keeps no rows: a later copy of its matches is the first
        reason = f"internal error: {type(exc).__name__}: {exc}"
        return FileResult(task.path, "quarantined", reason[:500])


def process_unit(
    tasks: Sequence[FileTask], ctx: ImportContext, verify: Verify = verify_file
) -> UnitResult:
    """The work sent to one worker: a few files at a time, so the pool's overhead is paid per
    chunk, not per small file."""
    if not tasks:
        return UnitResult([], {})
    with _unit_garbage():
        return _process_unit(tasks, ctx, verify)


@contextlib.contextmanager
def _unit_garbage() -> Iterator[None]:
    """Where an import has asked for it (its workers, or this process while it imports): no
    automatic garbage collection during a unit, then one collection of what the unit left and
    a freeze of what survives, so the next collection looks only at newer objects. A unit
    makes little cyclic garbage (lark's parser states) and keeps none; the caches it fills
    are frozen with the rest. Several percent faster than threshold tuning alone, and
    leaner."""
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


def _process_unit(tasks: Sequence[FileTask], ctx: ImportContext, verify: Verify) -> UnitResult:
    files, batches = unit_batches(tasks, ctx, verify)
    ipc = {key: batch.serialize().to_pybytes() for key, batch in batches.items()}
    return UnitResult(files, ipc)


def write_unit(
    tasks: Sequence[FileTask],
    ctx: ImportContext,
    verify: Verify,
    target: PartTarget,
    unit: int,
) -> UnitParts:
    """The work sent to one worker where workers write their own rows: the same per-unit work
    as `process_unit`, its rows written as parts (Arrow IPC files) into the import's staging
    folder (`bgparse.store.parts`); `unit` numbers the parts' names."""
    if not tasks:
        return UnitParts([], ())
    with _unit_garbage():
        files, batches = unit_batches(tasks, ctx, verify)
        return UnitParts(files, write_parts(target, unit, batches))


def unit_batches(
    tasks: Sequence[FileTask], ctx: ImportContext, verify: Verify = verify_file
) -> tuple[list[FileResult], dict[PartKey, pa.RecordBatch]]:
    """The per-unit work itself, whoever ships its rows: the files' results (no tables) and
    their rows, one batch per table and partition."""
    read = _read_unit(tasks)
    seen: set[bytes] = set()
    rows = Rows(ctx)
    files = [r if isinstance(r, FileResult) else _process(r, ctx, verify, seen, rows) for r in read]
    try:
        return files, rows.batches()
    except Unstorable:
        # A value no column holds (a hostile record): file by file, so that only the files
        # holding one are quarantined.
        return _process_unit_by_file(read, ctx, verify)


def _read_unit(tasks: Sequence[FileTask]) -> list[FileTask | FileResult]:
    """The unit's files read (`read_task`); a second file of the same content is not
    processed again (its result says `repeat`)."""
    contents: set[str] = set()
    out: list[FileTask | FileResult] = []
    for task in tasks:
        read = read_task(task)
        sha = read.sha256
        if isinstance(read, FileTask) and sha is not None:
            if sha in contents:
                read = FileResult(read.path, "repeat", sha256=sha)
            else:
                contents.add(sha)
        out.append(read)
    return out


def _process_unit_by_file(
    tasks: Sequence[FileTask | FileResult], ctx: ImportContext, verify: Verify
) -> tuple[list[FileResult], dict[PartKey, pa.RecordBatch]]:
    seen: set[bytes] = set()
    files = []
    parts: dict[PartKey, list[pa.RecordBatch]] = {}
    for task in tasks:
        if isinstance(task, FileResult):
            files.append(task)
            continue
        rows = Rows(ctx)
        res = _process(task, ctx, verify, seen, rows)
        try:
            tables = rows.batches()
        except Unstorable as exc:
            seen -= {m.uid for m in res.matches if not m.repeat}
            res = FileResult(task.path, "quarantined", str(exc)[:500], sha256=task.sha256)
            tables = {}
        for key, batch in tables.items():
            parts.setdefault(key, []).append(batch)
        files.append(res)
    return files, {key: pa.concat_batches(bs) for key, bs in parts.items()}


# --- the executor --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportOptions:
    workers: int | None = None  # None: one per core
    source: str | None = None
    limits: Limits = field(default_factory=Limits)
    executor: Literal["local", "dask"] = "local"
    scheduler: str | None = None  # Dask scheduler address; None starts a local cluster
    #: Workers write their units' parts themselves and send back only their names
    #: (`write_unit`), or send their rows to this process, which writes them (`process_unit`).
    #: None: workers write with Dask, this process with the local pool (see bench/README.md).
    worker_parts: bool | None = None
    #: A unit's most files and bytes; None: the executor's default (`unit_limits`).
    chunk_files: int | None = None
    chunk_bytes: int | None = None
    #: Keys the duplicate checks hold in memory (match ids; content hashes with their first
    #: path) before the older ones move to a file in the system's temporary folder (`Seen`).
    seen_limit: int = SEEN_LIMIT
    #: Where workers write parts: a partition's parts are merged into Parquet as soon as they
    #: hold this many rows, the rest once every unit is in.
    merge_rows: int = MERGE_ROWS

    def unit_limits(self) -> tuple[int, int]:
        """(files, bytes) of a unit at most. Where workers write their own parts (a cluster),
        units are large: the client's cost is mostly per unit (Dask's task, its result, its
        parts: about 11 ms of its CPU), and with units of 512 files one client feeds about
        170 workers where units of 128 fed under 100 (docs/SCALE.md). The last units of an
        import are made smaller (`_guided`), so that no worker is left with a large unit
        while the others wait. Rows sent to this process are merged by it whatever the
        unit's size, and small units keep the pool's memory low."""
        files, size = (512, 4 * 1024 * 1024) if self.parts else (64, 1024 * 1024)
        return self.chunk_files or files, self.chunk_bytes or size

    @property
    def parts(self) -> bool:
        """Whether workers write their units' parts themselves."""
        return self.executor == "dask" if self.worker_parts is None else self.worker_parts


@dataclass(frozen=True, slots=True)
class ImportProgress:
    bytes_done: int  # on-disk bytes of the inputs consumed so far
    inputs: int
    matches: int


@dataclass(frozen=True, slots=True)
class InputOutcome:
    """What became of one input (file, archive member or archive), for `--report`: `status` is
    imported, duplicate, quarantined or skipped (already in the dataset); counts are of the
    matches it stored and their error and warning findings (for a quarantined file, its own
    finding's)."""

    path: str
    kind: str
    status: str
    matches: int = 0
    duplicate_matches: int = 0
    errors: int = 0
    warnings: int = 0
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "status": self.status,
            "matches": self.matches,
            "duplicate_matches": self.duplicate_matches,
            "errors": self.errors,
            "warnings": self.warnings,
            "reason": self.reason,
        }


#: Files with stored matches with the most errors, kept for the summary.
_WORST_FILES = 5


@dataclass(slots=True)
class ImportSummary:
    import_id: str
    committed: bool = False
    inputs: int = 0  # every input met, including those skipped
    imported: int = 0
    duplicate: int = 0
    quarantined: int = 0
    skipped: int = 0  # already in the dataset
    matches: int = 0
    duplicate_matches: int = 0
    games: int = 0
    turns: int = 0
    cube_actions: int = 0
    findings: int = 0
    bytes_done: int = 0
    seconds: float = 0.0
    quarantine: list[tuple[str, str]] = field(default_factory=list)  # first few (path, reason)
    matches_with_errors: int = 0  # stored matches with an error-level finding
    matches_with_warnings: int = 0  # stored matches with warnings and no error
    files_with_errors: int = 0  # inputs that stored a match with errors
    #: The inputs whose stored matches have the most errors, most first (at most a few).
    worst: list[InputOutcome] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Meta:
    """The ledger facts of one input, kept in the parent (the bytes go to a worker)."""

    path: str
    kind: str
    sha256: str | None
    size: int | None
    archive_path: str | None = None
    archive_sha256: str | None = None

    @classmethod
    def of(cls, item: InputFile | InputRef | Rejected | Archive) -> _Meta:
        if isinstance(item, Archive):
            return cls(item.path, "archive", item.sha256, item.size)
        if isinstance(item, InputRef):
            return cls(item.path, item.kind, None, item.size)  # hashed by its worker
        size = len(item.data) if isinstance(item, InputFile) else item.size
        return cls(item.path, item.kind, item.sha256, size, item.archive_path, item.archive_sha256)


_T = TypeVar("_T")


class _Inline(Executor):
    """Runs submissions at once in this process: `--workers 1`, and deterministic tests."""

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        fut: Future[_T] = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            fut.set_exception(exc)
        return fut


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

#: Closes an executor: True after a clean run (its work is done), False when the import failed
#: or was interrupted (stop now, whatever is running).
_Close = Callable[[bool], None]


def _make_executor(options: ImportOptions, workers: int) -> tuple[Executor, _Close]:
    if options.executor == "dask":
        from bgparse.executors import open_dask

        dask = open_dask(options.scheduler, workers)
        return dask, lambda ok: dask.shutdown(cancel_futures=True)
    if workers <= 1:
        return _Inline(), lambda ok: None
    # forkserver: workers must not inherit the dataset lock's descriptor (a forked child would
    # keep the flock alive after the importer dies).
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    if method == "forkserver":
        _start_forkserver()
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


def _start_forkserver() -> None:
    """Start this process's fork server (if it is not running yet) with SIGINT blocked: the
    server and every worker it forks inherit the blocked signal, so a Ctrl-C that reaches them
    before a worker's initializer has run (`_init_worker`) cannot kill them with a traceback.
    The importer's own SIGINT waits the few milliseconds of the start and then acts."""
    from multiprocessing import forkserver, resource_tracker

    # The fork server starts the resource tracker, which blocks and then *unblocks* SIGINT and
    # SIGTERM around its own start: it goes first, so that SIGINT stays blocked here.
    resource_tracker.ensure_running()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    # The server loads what a worker runs once, before it forks them (besides the main module,
    # which it loads by default): each worker starts with it loaded rather than loading it.
    preload = ["__main__", __name__]
    try:
        with defaults_set():  # the workers' environment (bgparse.environment)
            multiprocessing.set_forkserver_preload(preload)
            forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


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


def _new_import_id() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(4)


@dataclass(slots=True)
class _Archive:
    """An archive of this import whose own ledger row waits for its members' outcomes (they
    may be with workers when the walk reaches the archive's end): how many members the walk
    gave, how many have an outcome, by status, and once the walk has reached its end, its
    ledger facts and why it could not be read to its end (None: it was)."""

    met: int = 0
    settled: dict[str, int] = field(default_factory=dict)
    meta: _Meta | None = None
    reason: str | None = None

    def outcome(self) -> tuple[str, str | None]:
        """The archive's status and reason: imported where a member was; else quarantined
        where a member was (or it could not be read, or holds no file), duplicate where every
        member was already stored; the reason says what became of its members."""
        if self.reason is not None:
            return "quarantined", self.reason
        if self.settled.get("imported"):
            return "imported", None
        if not self.met:
            return "quarantined", "the archive holds no file"
        counts = [(self.settled.get(s, 0), s) for s in ("quarantined", "duplicate", "skipped")]
        parts = ", ".join(
            f"{n} {'already in the dataset' if status == 'skipped' else status}"
            for n, status in counts
            if n
        )
        word = "member" if self.met == 1 else "members"
        why = f"none of its {self.met} {word} imported ({parts})"
        return ("quarantined" if self.settled.get("quarantined") else "duplicate"), why


class _Importer:
    """The parent's side of one import: ledger decisions, dedup, writes, in input order."""

    def __init__(
        self,
        tx: Transaction,
        ctx: ImportContext,
        known_uids: Seen[bytes],
        summary: ImportSummary,
        on_progress: Callable[[ImportProgress], None] | None,
        on_input: Callable[[InputOutcome], None] | None = None,
        known: KnownInputs | None = None,
        defer: bool = False,
    ) -> None:
        self.tx = tx
        self.known = known or KnownInputs()
        #: Whether workers hash inputs: then which copy of a content is the first, and which
        #: content an earlier import settled, is decided as units come back (in input order).
        self.defer = defer
        #: Inputs and archives of this import, by SHA-256: the first input of each content,
        #: which a later copy's ledger row names (the first may have been quarantined: its
        #: copy is as damaged, and the archivist must be able to find why).
        self.seen_content: Seen[str] = Seen(known_uids.limit)
        #: Inputs of this import refused without their content being read, by path (by
        #: content where the walk read it): a second mention is a duplicate, not a refusal.
        self.refused: set[str] = set()
        #: Of those refused by content, the first input's name and why.
        self.first_refused: dict[str, tuple[str, str]] = {}
        self.ctx = ctx
        #: Every match stored: by an earlier import, then by this one as its units come in.
        self.uids = known_uids
        self.summary = summary
        self.on_progress = on_progress
        self.on_input = on_input
        self.ledger = LedgerRows(ctx)
        # (errors, -input number, outcome): a min-heap of the worst inputs so far.
        self.worst: list[tuple[int, int, InputOutcome]] = []
        #: Workers' parts accepted and not yet given to a merge, by table and partition, in
        #: input order, and their rows.
        self.parts: dict[PartKey, list[tuple[str, int]]] = {}
        self.part_rows: dict[PartKey, int] = {}
        #: Merges started while units still run (`merge_full`), by partition, in order.
        self.merges: dict[PartKey, list[Future[tuple[Part, ...]]]] = {}
        self.merge_seq = 0
        self.recorded = 0
        #: Contents this import quarantined, with why: a later copy is as unreadable, so it is
        #: quarantined too, naming the first (a "duplicate" would hide it from a query of the
        #: quarantined inputs). Bounded in memory as `seen_content` is.
        self.quarantined_content: Seen[str] = Seen(known_uids.limit)
        #: Contents whose first input is still with a worker, and the copies met meanwhile
        #: (the walk runs ahead of the units): recorded once the first's outcome is known.
        self.in_flight: set[str] = set()
        self.waiting: dict[str, list[tuple[_Meta, str]]] = {}
        #: Archives whose members are not all settled yet, by (path, SHA-256).
        self.archives: dict[tuple[str, str | None], _Archive] = {}

    def progress(self, consumed: int) -> None:
        s = self.summary
        s.bytes_done += consumed
        if self.on_progress is not None:
            self.on_progress(ImportProgress(s.bytes_done, s.inputs, s.matches))

    def skip(self, meta: _Meta) -> None:
        """An input the dataset already holds: no ledger row, but the report lists it, with
        the content's hash to find its ledger row by (`imports.sha256`)."""
        self.summary.skipped += 1
        self._member_settled(meta, "skipped")
        if self.on_input is not None:
            why = (
                f"its content is already in the dataset (sha256 {meta.sha256[:12]}…)"
                if meta.sha256
                else "already in the dataset"
            )
            self.on_input(InputOutcome(meta.path, meta.kind, "skipped", reason=why))

    def record(
        self,
        meta: _Meta,
        status: str,
        reason: str | None,
        counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0),
        findings: tuple[int, int] = (0, 0),
        warnings: int = 0,
    ) -> None:
        """One ledger row: `counts` are (matches, duplicate matches, games, turns, doubles),
        `findings` (findings, errors)."""
        s = self.summary
        errors = findings[1]
        # Built only where it is wanted (the report, the worst files): on a cluster this runs
        # once per file in the one client.
        outcome = None
        if self.on_input is not None or (status == "imported" and errors):
            outcome = InputOutcome(
                meta.path, meta.kind, status, counts[0], counts[1], errors, warnings, reason
            )
            if self.on_input is not None:
                self.on_input(outcome)
        if status == "imported" and errors:
            assert outcome is not None
            s.files_with_errors += 1
            self.recorded += 1
            heapq.heappush(self.worst, (errors, -self.recorded, outcome))
            if len(self.worst) > _WORST_FILES:
                heapq.heappop(self.worst)
        if status == "imported":
            s.imported += 1
        elif status == "duplicate":
            s.duplicate += 1
        else:
            s.quarantined += 1
            if len(s.quarantine) < _QUARANTINE_EXAMPLES:
                s.quarantine.append((meta.path, reason or ""))
        self.ledger.add(
            meta.path,
            meta.kind,
            meta.archive_path,
            meta.archive_sha256,
            meta.size,
            meta.sha256,
            status,
            reason,
            counts,
            findings,
        )
        if len(self.ledger) >= 4096:
            self.flush_ledger()
        self._member_settled(meta, status)

    def member(self, meta: _Meta) -> None:
        """The walk gave a member of an archive (its outcome may come later, from a worker)."""
        if meta.archive_path is not None:
            key = (meta.archive_path, meta.archive_sha256)
            self.archives.setdefault(key, _Archive()).met += 1

    def archive(self, meta: _Meta, reason: str | None) -> None:
        """The walk reached the end of an archive it read: its row once its members have
        theirs (it follows them in the ledger), its status from theirs (`_Archive.outcome`)."""
        tally = self.archives.setdefault((meta.path, meta.sha256), _Archive())
        tally.meta, tally.reason = meta, reason
        self._archive_done((meta.path, meta.sha256), tally)

    def _member_settled(self, meta: _Meta, status: str) -> None:
        if meta.archive_path is None or meta.kind != "member":
            return
        key = (meta.archive_path, meta.archive_sha256)
        tally = self.archives.get(key)
        if tally is None:
            return
        tally.settled[status] = tally.settled.get(status, 0) + 1
        self._archive_done(key, tally)

    def _archive_done(self, key: tuple[str, str | None], tally: _Archive) -> None:
        if tally.meta is not None and sum(tally.settled.values()) >= tally.met:
            del self.archives[key]
            self.record(tally.meta, *tally.outcome())

    def copy(self, meta: _Meta, why: str) -> None:
        """A copy of an earlier input's content (`why` names the first): a duplicate where the
        first was read, quarantined with the first's reason where it was not."""
        sha = meta.sha256
        if sha is not None and sha in self.in_flight:
            self.waiting.setdefault(sha, []).append((meta, why))
            return
        reason = self.quarantined_content.get(sha) if sha is not None else None
        if reason is None:
            self.record(meta, "duplicate", why)
        else:
            self.record(meta, "quarantined", quarantined_copy(why, reason))

    def _first_settled(self, sha: str | None) -> None:
        """The first input of a content has its outcome: the copies that waited for it."""
        if sha is None:
            return
        self.in_flight.discard(sha)
        for meta, why in self.waiting.pop(sha, ()):
            self.copy(meta, why)

    def flush_ledger(self) -> None:
        if len(self.ledger):
            self.tx.add("imports", self.ledger.batch())
            self.ledger = LedgerRows(self.ctx)

    def finish(self) -> None:
        for sha in list(self.waiting):
            self._first_settled(sha)
        for key, tally in list(self.archives.items()):
            if tally.meta is not None:  # every member has its row by now
                del self.archives[key]
                self.record(tally.meta, *tally.outcome())
        self.flush_ledger()
        self.summary.worst = [o for _, _, o in sorted(self.worst, reverse=True)]

    def close(self) -> None:
        """Forget this import's contents (and remove their files); `uids` is the caller's."""
        self.seen_content.close()
        self.quarantined_content.close()

    def unit_parts(self, metas: list[_Meta], res: UnitParts, target: PartTarget) -> None:
        """A unit whose worker wrote its rows as parts: kept for the merge as they are, unless
        the unit holds a match already stored (by an earlier unit or import; rare): then its
        parts are read back, those matches' rows dropped (their findings kept, marked
        `in_duplicate`: `_Drop`, as `unit` does), the rest written here, and the parts left out
        of the merge (they go with the staging folder)."""
        known = self.uids.known(m.uid for f in res.files for m in f.matches if not m.repeat)
        metas, settled, dropped = self.contents(metas, res.files)
        drop = _Drop.of(known, dropped)
        for part in res.parts:
            if drop is None:
                key = (part.table, part.source, part.year)
                self.merges.setdefault(key, [])  # the partitions' order, for the commit
                self.parts.setdefault(key, []).append((part.rel, part.index))
                self.part_rows[key] = self.part_rows.get(key, 0) + part.rows
                continue
            for batch in read_part(target, part).to_batches():
                self.tx.add(part.table, drop.apply(part.table, batch), part.source, part.year)
            # The part's file stays (it holds the unit's other partitions too): it is never
            # merged, and goes with the staging folder.
        for meta, f, first in zip(metas, res.files, settled, strict=True):
            self.settle(meta, f, first, known)

    def _merge(self, executor: Executor, target: PartTarget, key: PartKey) -> None:
        """A merge task for the partition's parts so far (`bgparse.store.parts.merge_parts`)."""
        table, source, year = key
        parts = self.parts.pop(key)
        self.part_rows.pop(key)
        fut = executor.submit(merge_parts, target, table, source, year, parts, self.merge_seq)
        self.merge_seq += 1
        self.merges.setdefault(key, []).append(fut)

    def merge_full(self, executor: Executor, target: PartTarget, rows: int) -> None:
        """While units still run: each partition whose parts hold `rows` rows or more is
        merged now, by a task queued beside the units. A large import's big partitions are
        then written as it goes, as the pool's are, not all at its end (where one worker
        would write the largest while the others wait)."""
        for key in [k for k, n in self.part_rows.items() if n >= rows]:
            self._merge(executor, target, key)

    def merge_parts(self, executor: Executor, target: PartTarget) -> None:
        """Once every unit is in: each partition's parts not yet merged written as its
        Parquet files by the workers (`bgparse.store.parts.merge_parts`); the commit takes
        them, with those of the merges started earlier, instead of the parts (Arrow IPC files:
        a partition of one part is written out too)."""
        # The largest partitions first (a turns partition takes many times a findings one),
        # so that the phase does not end on one worker with a large one while the others
        # wait; the files are committed in the partitions' own order whatever the schedule.
        for key in sorted(self.part_rows, key=lambda k: -self.part_rows[k]):
            self._merge(executor, target, key)
        for futures in self.merges.values():
            for fut in futures:
                for part in fut.result():
                    self.tx.adopt(part.rel, digest=part.digest)
        self.merges = {}

    def unit(self, metas: list[_Meta], res: UnitResult) -> None:
        """A unit's results, in input order. Its matches already stored (by an earlier unit or
        import) lose their rows here; repeats within the unit were dropped by the worker."""
        known = self.uids.known(m.uid for f in res.files for m in f.matches if not m.repeat)
        metas, settled, dropped = self.contents(metas, res.files)
        drop = _Drop.of(known, dropped)
        for (table, source, year), batch in res.batches().items():
            self.tx.add(table, batch if drop is None else drop.apply(table, batch), source, year)
        for meta, f, first in zip(metas, res.files, settled, strict=True):
            self.settle(meta, f, first, known)

    def contents(
        self, metas: list[_Meta], files: list[FileResult]
    ) -> tuple[list[_Meta], list[str | None], tuple[set[bytes], set[str]]]:
        """Where workers hashed the inputs: each file's ledger facts completed with its
        SHA-256, and the files settled by their content alone (already in the dataset:
        skipped; a copy of an earlier input of this import: a duplicate naming it), as the
        walk settles them where this process reads the inputs. Returns the metas, which files
        are settled (None: not; "": skipped; else the reason they are a duplicate), and the
        match ids and contents whose rows must go (a settled file's). A file no worker could
        read, met again at the same path, is a duplicate, as the walk records it."""
        if not self.defer:
            return metas, [None] * len(metas), (set(), set())
        out: list[_Meta] = []
        settled: list[str | None] = []
        uids: set[bytes] = set()
        shas: set[str] = set()
        for meta, f in zip(metas, files, strict=True):
            sha = f.sha256
            if sha != meta.sha256:
                meta = _Meta(
                    meta.path, meta.kind, sha, meta.size, meta.archive_path, meta.archive_sha256
                )
            out.append(meta)
            first = self.seen_content.get(sha) if sha is not None else None
            if sha is None:
                if f.changed:
                    pass  # tried again by the next import: a result of its own
                elif meta.path in self.known.paths:
                    # Unreadable here as at an earlier import: skipped, as the walk skips it.
                    first = ""
                elif meta.path in self.refused:
                    first = GIVEN_TWICE
                else:
                    self.refused.add(meta.path)
            elif sha in self.known.contents or f.status == "settled":
                first = ""
            elif first is None:
                self.seen_content.add(sha, meta.path)
            else:
                first = same_content(first, sha)
            settled.append(first)
            if first is not None and sha is not None and f.status != "repeat":
                # Only the first file of a content in its unit has rows (the others are
                # repeats): dropping the rows of this content drops none of another file's.
                shas.add(sha)
                uids.update(m.uid for m in f.matches if not m.repeat)
        return out, settled, (uids, shas)

    def settle(self, meta: _Meta, res: FileResult, why: str | None, known: set[bytes]) -> None:
        """One file's outcome: settled by its content (`contents`: skipped where `why` is
        empty, else a duplicate for that reason), or by its results."""
        if why is None:
            self.result(meta, res, known)
        elif not why:
            self.skip(meta)
        elif why == GIVEN_TWICE:
            self.record(meta, "duplicate", why)
        else:
            self.copy(meta, why)

    def result(self, meta: _Meta, res: FileResult, known: set[bytes]) -> None:
        s = self.summary
        if res.status == "quarantined":
            s.findings += res.findings
            warnings = res.findings - res.errors
            self.record(
                meta,
                "quarantined",
                res.reason,
                findings=(res.findings, res.errors),
                warnings=warnings,
            )
            if meta.sha256 is not None and res.reason:
                self.quarantined_content.add(meta.sha256, res.reason)
            self._first_settled(meta.sha256)
            return
        # One pass over the matches (on a cluster this runs once per file in the one client).
        # Every match's findings count, a duplicate's too: they are this input's own. The
        # counts of matches with errors or warnings are of the matches stored.
        uids = self.uids
        fresh = dupes = games = turns = cubes = with_errors = with_warnings = 0
        findings = errors = warnings = 0
        copies: list[tuple[int, str | None]] = []  # the first few duplicates: where stored
        for m in res.matches:
            findings += m.findings
            errors += m.errors
            warnings += m.warnings
            if m.repeat or m.uid in known:
                dupes += 1
                if len(copies) < _NAMED_COPIES:
                    copies.append((m.index, uids.get(m.uid)))
                continue
            uids.add(m.uid, _place(meta.path, m.index))
            fresh += 1
            games += m.games
            turns += m.turns
            cubes += m.cube_actions
            if m.errors:
                with_errors += 1
            elif m.warnings:
                with_warnings += 1
        s.matches_with_errors += with_errors
        s.matches_with_warnings += with_warnings
        s.matches += fresh
        s.duplicate_matches += dupes
        s.games += games
        s.turns += turns
        s.cube_actions += cubes
        s.findings += findings
        reason = _stored_copies(dupes, len(res.matches), copies) if dupes else None
        self.record(
            meta,
            "imported" if fresh else "duplicate",
            reason,
            (fresh, dupes, games, turns, cubes),
            (findings, errors),
            warnings,
        )
        self._first_settled(meta.sha256)


@dataclass(frozen=True, slots=True)
class _Drop:
    """What a unit's rows lose here, whoever wrote them (`_Importer.unit`, `unit_parts`): the
    rows of its matches already stored (`known`: by an earlier unit or import), whose findings
    stay, marked `in_duplicate` (the input keeps them, as a repeat within the unit keeps its
    own); and every row of a file settled by its content alone (`settled`: its matches,
    `shas`: its contents), its findings included, as if it had not been read."""

    known: pa.Array
    gone: pa.Array
    shas: pa.Array | None

    @classmethod
    def of(cls, known: set[bytes], settled: tuple[set[bytes], set[str]]) -> _Drop | None:
        uids, shas = settled
        if not known and not uids and not shas:
            return None
        return cls(
            pa.array(list(known), type=pa.binary(16)),
            pa.array(list(known | uids), type=pa.binary(16)),
            pa.array(list(shas), type=pa.string()) if shas else None,
        )

    def apply(self, table: str, batch: pa.RecordBatch) -> pa.RecordBatch:
        if self.shas is not None and "file_sha256" in batch.schema.names:
            batch = batch.filter(_not_from(batch, self.shas))
        if table == "findings":
            return _mark_duplicates(batch, self.known) if len(self.known) else batch
        if not len(self.gone):
            return batch
        return batch.filter(pc.invert(pc.is_in(batch.column("match_uid").storage, self.gone)))


#: Duplicate matches of an input whose stored copies its ledger reason names.
_NAMED_COPIES = 3


def _place(path: str, index: int) -> str:
    """Where a stored match is, as `uids` holds it: its match number (from 0), its path."""
    return f"{index}\t{path}"


def _stored_copies(dupes: int, total: int, copies: list[tuple[int, str | None]]) -> str:
    """A ledger reason for an input with matches already stored, naming where the first few
    are stored (`_place`s; None where unknown): "1 of 1 matches already stored: match 1 as
    match 2 of /in/a.mat"; matches are numbered from 1 in the file, as a reader counts them."""
    named = []
    for index, place in copies:
        if place:
            stored_index, _, path = place.partition("\t")
            named.append(f"match {index + 1} as match {int(stored_index) + 1} of {path}")
    reason = f"{dupes} of {total} matches already stored"
    if not named:
        return reason
    more = f"; and {dupes - len(named)} more" if dupes > len(named) else ""
    return f"{reason}: {'; '.join(named)}{more}"


def _not_from(batch: pa.RecordBatch, shas: pa.Array) -> pa.Array:
    """Rows of `batch` that come from no file of these contents."""
    return pc.invert(pc.is_in(batch.column("file_sha256"), value_set=shas))


def _mark_duplicates(batch: pa.RecordBatch, uids: pa.Array) -> pa.RecordBatch:
    """Findings of matches already stored stay, marked `in_duplicate`: the input keeps them."""
    column = batch.schema.get_field_index("in_duplicate")
    marked = pc.or_(
        batch.column(column), pc.is_in(batch.column("match_uid").storage, value_set=uids)
    )
    # A finding about the whole file has no match: is_in gives False there, never NULL.
    return batch.set_column(column, batch.schema.field(column), pc.fill_null(marked, False))


def run_import(
    paths: Iterable[str | os.PathLike[str]],
    root: str | os.PathLike[str],
    options: ImportOptions | None = None,
    *,
    verify: Verify = verify_file,
    on_progress: Callable[[ImportProgress], None] | None = None,
    executor: Executor | None = None,
    on_input: Callable[[InputOutcome], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> ImportSummary:
    """Import every input under `paths` into the dataset at `root` as one atomic commit.

    Raises DatasetLocked when another import holds the dataset, DatasetError for a folder
    that is not a dataset. `verify` must be picklable (a module-level function) for a process
    pool; `executor` replaces the pool (any concurrent.futures Executor); `on_input` hears
    what became of each input as it is settled (a duplicate or a refusal at once, a file
    read by a worker when its results come back); `on_notice` gets one-line notes for the
    user (the Dask dashboard's address)."""
    opts = options or ImportOptions()
    tops = [os.fspath(p) for p in paths]
    for p in tops:
        if not os.path.lexists(p):
            raise NoSuchPath(display_path(p))
    workers = opts.workers or len(os.sched_getaffinity(0))
    version = bgparse_version()
    ds = Dataset(root)
    started = time.perf_counter()
    tx: Transaction | None = None
    try:
        with contextlib.ExitStack() as stack:
            # Batch-friendly garbage collection for the work done in this process, restored.
            stack.callback(gc.set_threshold, *gc.get_threshold())
            gc.set_threshold(*_GC_THRESHOLD)
            stack.enter_context(_batch_gc_here())
            close: _Close | None = None  # the executor this import started, if any
            if executor is None and opts.executor == "dask":
                # A cluster that cannot be reached fails before the dataset is touched.
                executor, close = _make_executor(opts, workers)
                close = _once(close)
                stack.push(_closing(close))
            stack.enter_context(ds.lock())
            # On a cluster the workers hash the inputs: they are told what an earlier import
            # settled at each path, so that a re-run does not verify those files again.
            known = ds.known_inputs(version, by_path=executor is not None and _on_cluster(executor))
            ctx = ImportContext(
                _new_import_id(), datetime.now(UTC).replace(microsecond=0), version, opts.source
            )
            summary = ImportSummary(ctx.import_id)
            tx = ds.begin(ctx.import_id, version)
            target: PartTarget | None = None
            try:
                if executor is None:
                    executor, close = _make_executor(opts, workers)
                    close = _once(close)
                    stack.push(_closing(close))
                stored: Seen[bytes] = Seen(opts.seen_limit)
                stack.callback(stored.close)  # its file too, if reading the ids fails
                for uid, source_path, index in ds.match_places():
                    stored.add(uid, _place(source_path, index))
                importer = _Importer(
                    tx,
                    ctx,
                    stored,
                    summary,
                    on_progress,
                    on_input,
                    known,
                    defer=_on_cluster(executor),
                )
                stack.callback(importer.close)
                if opts.parts:
                    target = open_staging(root, ctx.import_id, version)
                workers = _cluster_setup(executor, target, on_notice, tops) or workers
                _pump(tops, root, opts, known, importer, executor, verify, max(workers, 1), target)
                if target is not None:
                    importer.merge_parts(executor, target)
                importer.finish()
                if (signum := received()) is not None:
                    # A stop signal came, and its exception was swallowed on the way (C code
                    # can: see bgparse.interrupts): it still stops the import before its commit.
                    raise Interrupted(signum)
                summary.committed = tx.commit() is not None
            except BaseException:
                if target is not None and close is not None:
                    # Workers stopped first: none may write into the staging folder the
                    # abort removes.
                    close(False)
                tx.abort()
                raise
    except Interrupted as exc:
        # A signal that came after the commit (while the pool shut down, say) leaves the
        # import complete: the caller must not say otherwise.
        if tx is not None and tx.committed and not exc.committed:
            raise Interrupted(exc.signum, committed=True) from None
        raise
    summary.seconds = time.perf_counter() - started
    return summary


def _closing(close: _Close) -> Callable[..., None]:
    """An ExitStack exit callback that closes an executor as its block ended: cleanly, or at
    once after an exception."""

    def exit_(
        kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        close(kind is None)

    return exit_


def _once(close: _Close) -> _Close:
    """`close`, run once however often it is called (on an error, and as the block ends)."""
    done = False

    def call(ok: bool) -> None:
        nonlocal done
        if not done:
            done = True
            close(ok)

    return call


def _on_cluster(executor: Executor) -> bool:
    """Is the import running on a Dask cluster (whose workers read the inputs themselves)?"""
    if "bgparse.executors" not in sys.modules:
        return False  # never imported: Dask is not in use
    from bgparse.executors import DaskExecutor

    return isinstance(executor, DaskExecutor)


def _cluster_setup(
    executor: Executor,
    target: PartTarget | None,
    on_notice: Callable[[str], None] | None,
    inputs: Sequence[str] = (),
) -> int | None:
    """On a Dask cluster: check every worker sees the dataset folder and the inputs named
    (before any work is sent), say where its dashboard is; returns its number of worker
    threads."""
    if not _on_cluster(executor):
        return None
    from bgparse.executors import DaskExecutor

    assert isinstance(executor, DaskExecutor)
    if target is not None:
        executor.check_shared(target)
    executor.check_inputs(inputs)
    link = executor.dashboard()
    if link and on_notice is not None:
        on_notice(f"Dask dashboard: {link}")
    return executor.threads()


#: The smallest unit the last ones of an import are cut to (`_guided`).
_MIN_GUIDED = 16
#: Inputs the walk may run ahead of the units (their names and sizes; an archive member's
#: bytes too, bounded by `_LOOKAHEAD_BYTES`).
_LOOKAHEAD_ITEMS = 65_536
_LOOKAHEAD_BYTES = 64 * 1024 * 1024


def _guided(
    items: Iterable[Any], ahead: int, held_bytes: int = _LOOKAHEAD_BYTES
) -> Iterator[tuple[Any, int | None]]:
    """`items`, each with how many files (plain or archive members) come after it once the
    walk has ended, None before: the walk is read up to `ahead` items (and `held_bytes` of
    the files' bytes read with them) ahead, so that the end is seen that far before it
    comes. `ahead` 0: no look-ahead, always None."""
    if not ahead:
        for item in items:
            yield item, None
        return
    it = iter(items)
    buf: deque[Any] = deque()
    files = held = 0
    ended = False
    while True:
        while not ended and len(buf) < ahead and held < held_bytes:
            nxt = next(it, _END)
            if nxt is _END:
                ended = True
                break
            buf.append(nxt)
            if isinstance(nxt, InputRef | InputFile):
                files += 1
                held += len(nxt.data) if isinstance(nxt, InputFile) else 0
        if not buf:
            return
        item = buf.popleft()
        if isinstance(item, InputRef | InputFile):
            files -= 1
            held -= len(item.data) if isinstance(item, InputFile) else 0
        yield item, files if ended else None


_END = object()


def _pump(
    paths: list[str],
    root: str | os.PathLike[str],
    opts: ImportOptions,
    known: KnownInputs,
    importer: _Importer,
    executor: Executor,
    verify: Verify,
    workers: int,
    target: PartTarget | None = None,
) -> None:
    summary = importer.summary
    ctx = importer.ctx
    seen_content = importer.seen_content
    # On a cluster the workers read and hash the plain files (the client's reading and
    # hashing was a third of its work per file); which copy of a content comes first is then
    # decided as units come back, in input order (`_Importer.contents`), for every file,
    # archive members included (read here: an archive is a stream).
    defer = importer.defer
    pending: deque[tuple[Future[UnitResult | UnitParts], list[_Meta], int]] = deque()
    chunk: list[FileTask] = []
    metas: list[_Meta] = []
    chunk_bytes = 0
    max_files, max_bytes = opts.unit_limits()
    chunk_consumed = 0
    # Two chunks per worker in flight: enough to keep workers busy, and a fixed bound on the
    # bytes held in memory however many inputs there are.
    max_inflight = 2 * workers

    def drain(limit: int) -> None:
        while len(pending) > limit:
            fut, ms, consumed = pending.popleft()
            res = fut.result()
            if isinstance(res, UnitParts):
                assert target is not None
                importer.unit_parts(ms, res, target)
                importer.merge_full(executor, target, opts.merge_rows)
            else:
                importer.unit(ms, res)
            importer.progress(consumed)

    # A pool's submit starts worker processes and books them; a signal that cut it half way
    # could leave a started worker the pool does not know, which nobody would stop. (Inline,
    # submit does the unit's work: a signal must stop that at once.)
    booking = deferred if isinstance(executor, ProcessPoolExecutor) else contextlib.nullcontext
    units = 0

    def submit() -> None:
        nonlocal chunk, metas, chunk_bytes, chunk_consumed, units
        if chunk:
            with booking():
                fut: Future[UnitResult | UnitParts]
                if target is None:
                    fut = executor.submit(process_unit, chunk, ctx, verify)
                else:
                    fut = executor.submit(write_unit, chunk, ctx, verify, target, units)
                    units += 1
                pending.append((fut, metas, chunk_consumed))
            chunk, metas, chunk_bytes, chunk_consumed = [], [], 0, 0
            drain(max_inflight)

    walked: set[str] = set()

    def skip_archive(sha: str) -> bool:
        # Decided as the walk meets each archive (it may run ahead of the units): a second
        # copy is skipped even where the first is not yet recorded.
        if sha in known.archives or sha in seen_content or sha in walked:
            return True
        walked.add(sha)
        return False

    items = iter_inputs(paths, opts.limits, skip_archive=skip_archive, exclude=[root], defer=defer)
    # With more than one worker, the walk looks ahead so that the last units can be made small
    # (`_guided`) and the workers finish together: on a pool of two, a last unit of 64 files
    # left one worker idle for up to a third of a second while the other finished. The files'
    # bytes it holds are bounded by what the units in flight may hold, where this process
    # reads them (the local pool).
    guided = workers > 1 and max_files > _MIN_GUIDED
    ahead = max(1, min(_LOOKAHEAD_ITEMS, 4 * workers * max_files)) if guided else 0
    held = _LOOKAHEAD_BYTES if target is not None else max_inflight * max_bytes
    for item, left in _guided(items, ahead, held):
        summary.inputs += 1
        meta = _Meta.of(item)
        if meta.kind == "member":
            importer.member(meta)
        if isinstance(item, InputRef | InputFile):
            if isinstance(item, InputRef):
                task = FileTask(
                    item.path,
                    None,
                    None,
                    item.source,
                    item.size,
                    item.mtime_ns,
                    known.at_path.get(hash(item.path)),
                )
            elif item.sha256 in known.contents:
                importer.skip(meta)
                importer.progress(item.consumed)
                continue
            elif not defer and (first := seen_content.get(item.sha256)) is not None:
                importer.copy(meta, same_content(first, item.sha256))
                importer.progress(item.consumed)
                continue
            else:
                if not defer:
                    seen_content.add(item.sha256, item.path)
                    importer.in_flight.add(item.sha256)
                task = FileTask(item.path, item.data, item.sha256)
            chunk.append(task)
            metas.append(meta)
            chunk_bytes += task.size if task.data is None else len(task.data)
            chunk_consumed += item.consumed
            limit = max_files
            if left is not None:
                # The walk has ended: what is left is shared out in units of a share of it,
                # smaller and smaller, so that the workers finish together.
                share = -(-(left + len(chunk)) // (2 * workers))
                limit = max(_MIN_GUIDED, min(max_files, share))
            if len(chunk) >= limit or chunk_bytes >= max_bytes:
                submit()
            continue  # progress is credited when the chunk's results come back
        elif isinstance(item, Rejected):
            key = item.sha256 or item.path
            if item.sha256 in known.contents if item.sha256 else item.path in known.paths:
                importer.skip(meta)
            elif key in importer.refused:
                earlier = importer.first_refused.get(key)
                if earlier is not None and earlier[0] != item.path and item.sha256:
                    # The same content under another name (an archive inside two archives).
                    why = quarantined_copy(same_content(earlier[0], item.sha256), earlier[1])
                    importer.record(meta, "quarantined", why)
                else:
                    importer.record(meta, "duplicate", GIVEN_TWICE)
            else:
                importer.refused.add(key)
                if item.sha256:
                    importer.first_refused[key] = (item.path, item.reason)
                importer.record(meta, "quarantined", item.reason)
        elif item.skipped and item.sha256 in known.archives:
            importer.skip(meta)
        elif item.skipped:
            importer.record(meta, "duplicate", "the same archive was given twice")
        else:
            # An archive's own row follows its members' rows, once they all have theirs.
            seen_content.add(item.sha256, item.path)
            importer.archive(meta, item.reason)
        importer.progress(item.consumed)
    submit()
    drain(0)
