"""The worker side of an import: one unit of files read, verified and turned into rows.

`process_file` is pure: one input's bytes in, Arrow rows of every table (built by
`bgparse.store.rows`) and the input's status out; it never touches the dataset, so it runs
anywhere (in this process, a process pool, a Dask cluster). `process_unit` does it for a unit
of files and returns their rows; `write_unit` writes them as the unit's own parts instead and
returns their names. Either runs on any executor of `bgparse.pipeline`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any, Literal

import pyarrow as pa
import pyarrow.ipc

from bgparse.model.findings import Finding, Severity, SyntaxRecordError
from bgparse.model.verified import VerifiedMatch
from bgparse.pipeline import pool
from bgparse.store.parts import (
    Part,
    PartTarget,
    write_parts,
)
from bgparse.store.rows import (
    ImportContext,
    MatchCounts,
    PartKey,
    Rows,
    Unstorable,
    match_uid,
)
from bgparse.store.schema import TABLES

__all__ = [
    "FileResult",
    "FileTask",
    "UnitParts",
    "UnitResult",
    "Verify",
    "bgparse_version",
    "process_file",
    "process_unit",
    "read_task",
    "unit_batches",
    "verify_file",
    "write_unit",
]

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
    with pool.unit_garbage():
        return _process_unit(tasks, ctx, verify)


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
    with pool.unit_garbage():
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
