"""The on-disk dataset: Parquet writing, the manifest that commits it, the import lock, the ledger.

Layout under the dataset root::

    _dataset.json                    the manifest: the committed files of every table
    _lock                            flock'ed by the one import running (holds its pid)
    _staging/<import_id>/...         files of an import not yet committed
    <table>/source=S/year=Y/part-<import_id>-NNNN.parquet
    imports/part-<import_id>-NNNN.parquet
    (part-compact-<id>-NNNN.parquet: a partition's files merged by `Dataset.compact`)

The manifest is the single commit point. An import writes its files under `_staging/`,
renames them into the tree, then replaces `_dataset.json` atomically (temp file, fsync,
`os.replace`, fsync of the folder). Readers only ever open the files the manifest lists, so a
reader sees an import entirely or not at all; a file in the tree that the manifest does not
list is the leftover of an import killed before its commit, and the next import deletes it.

Every import adds a file per partition it touches, so a dataset fed by many small imports
gathers many small files; `Dataset.compact` rewrites each partition that has several into as
few as the file size allows, committed the same way (the old files leave the manifest in the
same replace that brings the new ones in).

The manifest records each file's size, SHA-256 and modification time (`Digest`), and every
Parquet page carries its CRC. `Dataset.check` verifies all of it and names the files the
manifest does not list; before an import or a compaction writes anything, `refuse_damaged`
checks every part's size, hashes the `matches` and `imports` parts and any part whose time
moved, and refuses (`DatasetDamaged`) a dataset that does not read back; `query` checks sizes
and moved times the same way, since DuckDB verifies no page checksum (docs/FAULTS.md).
The digests and the checks are `bgparse.store.integrity`'s.

A file-system failure (a read-only folder, no permission, a full disk, a damaged file) becomes a
`DatasetIOError` (`bgparse.store.diskio`) naming the path and the cause; a failed or
interrupted import removes what it wrote (`Transaction.abort`), so the dataset is as it was.
Stop signals are held while the manifest is replaced (`bgparse.helpers.interrupts.deferred`):
a commit is never cut half way.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import shutil
import time
from collections import OrderedDict, deque
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from bgparse.helpers.errors import DatasetError
from bgparse.helpers.interrupts import Interrupted, deferred
from bgparse.helpers.paths import display_path
from bgparse.store.diskio import DatasetIOError, io_errors
from bgparse.store.integrity import (
    CHECKSUMMED_AT_IMPORT,
    CheckResult,
    Digest,
    check_parts,
    file_digest,
    refuse_damaged_parts,
)
from bgparse.store.schema import (
    PARTITION_FIELDS,
    PARTITIONED,
    SCHEMA_VERSION,
    TABLES,
    dictionary_columns,
    file_schema,
)

__all__ = [
    "MANIFEST_NAME",
    "CompactSummary",
    "Dataset",
    "DatasetError",
    "DatasetLocked",
    "KnownInputs",
    "Manifest",
    "Transaction",
    "WriteOptions",
    "partition_dir",
]

MANIFEST_NAME = "_dataset.json"
LOCK_NAME = "_lock"
STAGING_NAME = "_staging"
_OWN_NAMES = frozenset({MANIFEST_NAME, LOCK_NAME, STAGING_NAME})
_NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
_MERGE_AT = 32  # batches in one partition's buffer before they are made one


def _batches(
    path: Path, batch_size: int, columns: list[str] | None = None
) -> Iterator[pa.RecordBatch]:
    """A committed file's batches; a missing or damaged file is a DatasetIOError."""
    with io_errors("read", path):
        batches = pq.ParquetFile(path, page_checksum_verification=True).iter_batches(
            batch_size=batch_size, columns=columns
        )
    while True:
        with io_errors("read", path):
            batch = next(batches, None)
        if batch is None:
            return
        yield batch


class DatasetLocked(DatasetError):
    """Another import holds the dataset."""

    def __init__(self, root: Path, pid: int | None) -> None:
        who = f"pid {pid}" if pid is not None else "another process"
        super().__init__(
            f"dataset {display_path(root)} is being imported by {who}; try again when it ends"
        )
        self.pid = pid


@dataclass(frozen=True, slots=True)
class Manifest:
    """What is committed: per table, the files (relative to the root, '/'-separated), and
    each file's size and SHA-256 (`digests`; a manifest written before bgparse recorded them
    has none, or none for the files of its older imports)."""

    generation: int = 0
    files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    imports: tuple[str, ...] = ()
    bgparse_version: str = ""
    digests: dict[str, Digest] = field(default_factory=dict)

    def to_json(self) -> str:
        doc = {
            "format": "bgparse-dataset",
            "schema_version": SCHEMA_VERSION,
            "generation": self.generation,
            "bgparse_version": self.bgparse_version,
            "partitioning": [f.name for f in PARTITION_FIELDS],
            "tables": {t: list(self.files.get(t, ())) for t in TABLES},
            "imports": list(self.imports),
            "digests": {
                rel: {"size": d.size, "sha256": d.sha256, "mtime_ns": d.mtime_ns}
                for t in TABLES
                for rel in self.files.get(t, ())
                if (d := self.digests.get(rel)) is not None
            },
        }
        return json.dumps(doc, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, where: Path) -> Manifest:
        try:
            doc = json.loads(text)
            version = doc["schema_version"]
            tables = doc["tables"]
            digests = {
                str(rel): Digest(int(d["size"]), str(d["sha256"]), int(d.get("mtime_ns", 0)))
                for rel, d in doc.get("digests", {}).items()
            }
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            shown = display_path(where)
            raise DatasetError(f"{shown} is not a bgparse dataset manifest ({exc})") from exc
        if version != SCHEMA_VERSION:
            raise DatasetError(
                f"{display_path(where)} holds schema version {version}; this bgparse reads and "
                f"writes version {SCHEMA_VERSION}"
            )
        files = {t: tuple(str(p) for p in tables.get(t, ())) for t in TABLES}
        return cls(
            int(doc.get("generation", 0)),
            files,
            tuple(doc.get("imports", ())),
            str(doc.get("bgparse_version", "")),
            digests,
        )


@dataclass(frozen=True, slots=True)
class KnownInputs:
    """What earlier imports recorded, so that re-importing the same inputs adds nothing.

    `contents`: SHA-256 of inputs that need no new attempt; `paths`: inputs refused without
    their content being read (keyed by path); `archives`: archives read to their end;
    `at_path` (where asked for): the SHA-256 of `contents` settled at each plain file's path,
    keyed by the path's `hash()` (a collision only hands a worker a content that is settled
    anyway)."""

    contents: frozenset[str] = frozenset()
    paths: frozenset[str] = frozenset()
    archives: frozenset[str] = frozenset()
    at_path: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WriteOptions:
    row_group_rows: int = 128 * 1024
    #: Buffered rows of all partitions together are flushed (largest first) past this size.
    max_buffered_bytes: int = 32 * 1024 * 1024
    #: Open Parquet writers; beyond it the least recently used one is finished.
    max_open_files: int = 64
    #: Rows per file before a new part file is started.
    max_file_rows: int = 4 * 1024 * 1024
    compression: str = "zstd"


@dataclass(frozen=True, slots=True)
class CompactSummary:
    """What `Dataset.compact` did: partitions rewritten, their files and bytes before and
    after, and the rows they hold (the same before and after)."""

    partitions: int = 0
    files_before: int = 0
    files_after: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    rows: int = 0


def _fsync_path(path: Path, *, directory: bool = False) -> None:
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        # A full disk fails the write half way: the half-written copy goes, the old stays.
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    _fsync_path(path.parent, directory=True)


class Dataset:
    """A dataset folder. Reading needs no lock; writing happens in a `Transaction` under
    `lock()`."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        #: Parts hashed again because their time changed, the hash the recorded one: their
        #: new time, for the next commit's manifest (so the next import need not hash them).
        self.rehashed: dict[str, int] = {}

    # --- reading ---------------------------------------------------------------------------

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST_NAME

    def exists(self) -> bool:
        return self.manifest_path.is_file()

    def manifest(self) -> Manifest:
        try:
            text = self.manifest_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Manifest()
        except OSError as exc:
            raise DatasetIOError("read", self.manifest_path, exc) from exc
        return Manifest.from_json(text, self.manifest_path)

    def files(self, table: str, manifest: Manifest | None = None) -> list[Path]:
        m = manifest if manifest is not None else self.manifest()
        return [self.root / rel for rel in m.files.get(table, ())]

    def match_places(self) -> Iterator[tuple[bytes, str, int]]:
        """Every stored match's uid with where it was stored from (`source_path`,
        `match_index`), read batch by batch."""
        for f in self.files("matches"):
            for batch in _batches(f, 65536, ["match_uid", "source_path", "match_index"]):
                uids, paths, indexes = batch.columns
                yield from zip(
                    uids.storage.to_pylist(), paths.to_pylist(), indexes.to_pylist(), strict=True
                )

    def known_inputs(self, bgparse_version: str, *, by_path: bool = False) -> KnownInputs:
        """Inputs earlier imports settled. Quarantined ones count only when recorded by this
        same bgparse version: a newer reader deserves a new attempt. `by_path`: also which
        content each plain file's path holds (for workers that hash the inputs themselves)."""
        contents: set[str] = set()
        paths: set[str] = set()
        archives: set[str] = set()
        at_path: dict[int, str] = {}
        columns = ["kind", "path", "sha256", "status", "bgparse_version"]
        for f in self.files("imports"):
            # Batch by batch: a ledger of millions of rows never sits in memory as objects.
            for batch in _batches(f, 65536, columns):
                kind, path, sha, status, version = (c.to_pylist() for c in batch.columns)
                for k, p, h, st, v in zip(kind, path, sha, status, version, strict=True):
                    if st == "quarantined" and v != bgparse_version:
                        continue
                    if k == "archive":
                        archives.add(h)
                    elif h is not None:
                        contents.add(h)
                        if by_path and k == "file":
                            at_path[hash(p)] = h
                    else:
                        paths.add(p)
        return KnownInputs(frozenset(contents), frozenset(paths), frozenset(archives), at_path)

    # --- integrity (bgparse.store.integrity) -----------------------------------------------

    def refuse_damaged(
        self, manifest: Manifest | None = None, checksum: frozenset[str] = CHECKSUMMED_AT_IMPORT
    ) -> None:
        """Raise DatasetDamaged unless every listed part is there with its recorded size and
        SHA-256. The hash is computed for the parts of the `checksum` tables (by default
        those an import reads anyway, `matches` and `imports`: what an import and `compact`
        check before they write; `query` gives none) and for every part modified since it
        was hashed; the others are trusted to their size and time (`check` hashes them all).
        A part with no digest recorded (an older dataset's) is only required to be there."""
        m = manifest if manifest is not None else self.manifest()
        refuse_damaged_parts(self.root, m.files, m.digests, checksum, self.rehashed)

    def check(self) -> CheckResult:
        """Every listed part verified: there, its recorded size and SHA-256, and read back
        whole with its table's schema (Parquet's page checksums verified); then every file
        in the dataset folder that the manifest does not list. Writes nothing. Refused
        (DatasetLocked) while an import holds the dataset: its files are not listed yet."""
        self._refuse_while_imported()
        manifest = self.manifest()
        return check_parts(
            self.root, manifest.files, manifest.digests, self.rehashed, self._files_on_disk()
        )

    def _files_on_disk(self) -> Iterator[str]:
        """Every file under the root (relative, '/'-separated), the dataset's own aside."""
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root)
            if rel.parts[0] in _OWN_NAMES or path.is_dir():
                continue
            yield rel.as_posix()

    def _refuse_while_imported(self) -> None:
        try:
            fd = os.open(self.root / LOCK_NAME, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return  # no import ever took the lock, or it cannot be read: nobody holds it
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise DatasetLocked(self.root, _read_pid(fd)) from None
        finally:
            os.close(fd)

    # --- writing ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the dataset for one import. Refuses at once (DatasetLocked) when another
        process holds it; the lock dies with its process, even under `kill -9`."""
        self._prepare_root()
        path = self.root / LOCK_NAME
        with io_errors("write", path):
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise DatasetIOError("lock", path, exc) from exc
                raise DatasetLocked(self.root, _read_pid(fd)) from None
            with io_errors("write", path):
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            if not self.exists():
                with deferred(), io_errors("write", self.manifest_path):
                    _write_atomic(self.manifest_path, Manifest().to_json())
            self.recover()
            self.refuse_damaged()
            yield
        finally:
            os.close(fd)  # releases the flock

    def check_path(self) -> None:
        """Refuse (DatasetError) a dataset whose absolute path is not valid UTF-8: Arrow and
        DuckDB take file names only as UTF-8 text, so its files could be neither written nor
        read."""
        where = os.path.abspath(self.root)
        try:
            where.encode("utf-8")
        except UnicodeEncodeError:
            raise DatasetError(
                f"{display_path(where)}: a dataset's path must be valid UTF-8 (Parquet and "
                "DuckDB take no other file names); choose another --data folder"
            ) from None

    def _prepare_root(self) -> None:
        self.check_path()
        if self.root.exists():
            if not self.root.is_dir():
                raise DatasetError(f"{display_path(self.root)} is not a folder")
            if not self.exists():
                # Never adopt (and later clean) a folder that holds someone else's files.
                with io_errors("read", self.root):
                    names = [p.name for p in self.root.iterdir()]
                foreign = [name for name in names if name not in _OWN_NAMES]
                if foreign:
                    raise DatasetError(
                        f"{display_path(self.root)} is not empty and not a bgparse dataset (it "
                        f"has '{display_path(foreign[0])}'); choose another --data folder"
                    )
        else:
            with io_errors("create", self.root):
                self.root.mkdir(parents=True)

    def recover(self) -> None:
        """Delete what an interrupted import left: its staging folder and any file in the
        tree the manifest does not list. Only called under the lock."""
        shutil.rmtree(self.root / STAGING_NAME, ignore_errors=True)
        for tmp in self.root.glob(f"{MANIFEST_NAME}.tmp-*"):
            with io_errors("remove", tmp):
                tmp.unlink(missing_ok=True)
        manifest = self.manifest()
        for table in TABLES:
            listed = set(manifest.files.get(table, ()))
            base = self.root / table
            if not base.is_dir():
                continue
            for path in sorted(base.rglob("*.parquet")):
                if path.relative_to(self.root).as_posix() not in listed:
                    with io_errors("remove", path):
                        path.unlink()

    def begin(
        self, import_id: str, bgparse_version: str, options: WriteOptions | None = None
    ) -> Transaction:
        return Transaction(self, import_id, bgparse_version, options or WriteOptions())

    def compact(
        self,
        bgparse_version: str,
        options: WriteOptions | None = None,
    ) -> CompactSummary:
        """Merge the files of every partition (and of the ledger) that has more than one into
        as few as `options.max_file_rows` allows, rows in their committed order. Takes the
        lock (refused while an import runs); memory stays at about one row group per
        partition. An interruption at any point leaves the dataset as it was or compacted,
        never both or neither."""
        with self.lock():
            manifest = self.manifest()
            groups: dict[tuple[str, str], list[str]] = {}
            for table in TABLES:
                for rel in manifest.files.get(table, ()):
                    groups.setdefault((table, rel.rsplit("/", 1)[0]), []).append(rel)
            todo = {key: rels for key, rels in groups.items() if len(rels) > 1}
            if not todo:
                return CompactSummary()
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            txn = self.begin(f"compact-{stamp}-{secrets.token_hex(4)}", bgparse_version, options)
            replaced: list[str] = []
            rows = 0
            try:
                for (table, where), rels in todo.items():
                    for rel in rels:
                        for batch in _batches(self.root / rel, 64 * 1024):
                            txn.add_at(table, where, batch)
                            rows += batch.num_rows
                    txn.finish(table, where)
                    replaced.extend(rels)
                before = sum((self.root / rel).stat().st_size for rel in replaced)
                new = txn.commit(replaces=frozenset(replaced), as_import=False)
                for rel in replaced:
                    # Unlisted now; a crash (or a refusal) here leaves them to `recover`.
                    with contextlib.suppress(OSError):
                        (self.root / rel).unlink(missing_ok=True)
                old = {rel for files in manifest.files.values() for rel in files}
                written = (
                    []
                    if new is None
                    else [rel for files in new.files.values() for rel in files if rel not in old]
                )
                return CompactSummary(
                    partitions=len(todo),
                    files_before=len(replaced),
                    files_after=len(written),
                    bytes_before=before,
                    bytes_after=sum((self.root / rel).stat().st_size for rel in written),
                    rows=rows,
                )
            except Interrupted as exc:
                txn.abort()
                raise Interrupted(exc.signum, committed=txn.committed) from None
            except BaseException:
                txn.abort()
                raise


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None


@dataclass(slots=True)
class _Buffer:
    batches: list[pa.RecordBatch] = field(default_factory=list)
    rows: int = 0
    nbytes: int = 0
    merged: int = 0  # batches[:merged] are merged ones


#: Threads that write the partitions' last rows when a transaction's files are closed.
_CLOSE_THREADS = 4


@dataclass(slots=True)
class _OpenFile:
    writer: pq.ParquetWriter
    path: Path
    rows: int = 0


def _finish(out: _OpenFile) -> None:
    """Close a Parquet file (its footer written)."""
    with io_errors("write", out.path):
        out.writer.close()


def _size(batch: pa.RecordBatch) -> int:
    """The bytes a buffered batch holds, for the buffer's limit. Not `nbytes`: that one looks
    for buffers shared between columns, tens of microseconds a batch, a tenth of the importing
    process's work on a pool's units; the buffers' own sizes are enough to bound memory."""
    return int(batch.get_total_buffer_size())


def partition_dir(table: str, source: str, year: int | None) -> str:
    """A partition's folder, relative to the root (year None: no date)."""
    y = _NULL_PARTITION if year is None else str(year)
    return f"{table}/source={source}/year={y}"


_partition_dir = partition_dir


class Transaction:
    """One import's writes: rows are buffered per table and partition, written as row groups
    into staged files, and made visible all at once by `commit()`. `abort()` removes every file
    and folder it wrote, in staging and in the tree, unless the commit was made."""

    def __init__(
        self, dataset: Dataset, import_id: str, bgparse_version: str, options: WriteOptions
    ) -> None:
        self.dataset = dataset
        self.import_id = import_id
        self.bgparse_version = bgparse_version
        self.options = options
        self.staging = dataset.root / STAGING_NAME / import_id
        self._buffers: dict[tuple[str, str], _Buffer] = {}
        self._buffered_bytes = 0
        self._open: OrderedDict[tuple[str, str], _OpenFile] = OrderedDict()
        self._parts: dict[tuple[str, str], int] = {}
        self._staged: list[str] = []  # relative paths, in the order they were started
        self._published: list[Path] = []  # staged files moved into the tree, not yet committed
        self._made: list[Path] = []  # folders of the tree made for them, parents first
        self._durable: set[str] = set()  # staged files their writer has already fsync'ed
        self._digests: dict[str, tuple[int, str]] = {}  # staged files' size and SHA-256
        self._schemas = {t: file_schema(t, bgparse_version) for t in TABLES}
        self.committed = False

    def add(
        self, table: str, batch: pa.RecordBatch, source: str | None = None, year: int | None = None
    ) -> None:
        """Add rows of `table` (its file columns); `source` and `year` name the partition of a
        partitioned table (year None: no date)."""
        if batch.num_rows == 0:
            return
        if (table in PARTITIONED) != (source is not None):
            raise ValueError(f"{table}: partition {source!r} does not fit the table")
        where = _partition_dir(table, source, year) if source is not None else table
        self._buffer(table, where, batch)

    def add_at(self, table: str, where: str, batch: pa.RecordBatch) -> None:
        """Add rows of `table` to the partition folder `where` (relative to the root), as
        `Dataset.compact` reads them back from a committed file."""
        if where.split("/", 1)[0] != table:
            raise ValueError(f"{where!r} is not a folder of table {table!r}")
        if batch.num_rows:
            self._buffer(table, where, batch)

    def adopt(
        self, rel: str, *, durable: bool = True, digest: tuple[int, str] | None = None
    ) -> None:
        """Commit with this import a file someone else wrote into its staging folder (an
        import worker's part, `bgparse.store.parts`), at `rel` relative to that folder;
        `durable`: its writer fsync'ed it (on a network filesystem, the writer's fsync is the
        one that counts, and a second one per file would cost the commit a round trip);
        `digest`: its size and SHA-256 as its writer computed them (else the commit reads
        the file to compute them)."""
        table = rel.split("/", 1)[0]
        staged = rel.endswith(".parquet") and (self.staging / rel).is_file()
        if table not in TABLES or not staged:
            raise ValueError(f"{rel!r} is not a staged Parquet file of a table")
        self._staged.append(rel)
        if durable:
            self._durable.add(rel)
        if digest is not None:
            self._digests[rel] = digest

    def finish(self, table: str, where: str) -> None:
        """Write out and close the partition's file: nothing more goes there."""
        key = (table, where)
        self._flush(key)
        if key in self._open:
            self._close(key)

    def _buffer(self, table: str, where: str, batch: pa.RecordBatch) -> None:
        key = (table, where)
        buf = self._buffers.setdefault(key, _Buffer())
        buf.batches.append(batch)
        buf.rows += batch.num_rows
        size = _size(batch)
        buf.nbytes += size
        self._buffered_bytes += size
        if len(buf.batches) - buf.merged >= _MERGE_AT:
            # Thousands of small batches cost several times their bytes in per-array overhead;
            # one contiguous batch does not. Only the batches since the last merge are copied.
            tail = buf.batches[buf.merged :]
            merged = pa.concat_batches(tail)
            grown = _size(merged) - sum(_size(b) for b in tail)
            buf.batches[buf.merged :] = [merged]
            buf.merged += 1
            buf.nbytes += grown
            self._buffered_bytes += grown
        if buf.rows >= self.options.row_group_rows:
            self._flush(key, whole_groups=True)
        while self._buffered_bytes > self.options.max_buffered_bytes:
            largest = max(self._buffers, key=lambda k: self._buffers[k].nbytes)
            self._flush(largest)

    def _flush(self, key: tuple[str, str], *, whole_groups: bool = False) -> None:
        """Write a buffer out; with `whole_groups`, only full row groups, the rest stays."""
        buf = self._buffers.pop(key, None)
        if buf is None or not buf.rows:
            return
        self._buffered_bytes -= buf.nbytes
        table = pa.Table.from_batches(buf.batches, schema=self._schemas[key[0]])
        group = self.options.row_group_rows
        n = table.num_rows // group * group if whole_groups else table.num_rows
        out = self._writer(key)
        with io_errors("write", out.path):
            out.writer.write_table(table.slice(0, n), row_group_size=group)
        out.rows += n
        if n < table.num_rows:
            rest = table.slice(n).combine_chunks().to_batches()
            self._buffers[key] = _Buffer(rest, table.num_rows - n, sum(_size(b) for b in rest))
            self._buffered_bytes += self._buffers[key].nbytes
        if out.rows >= self.options.max_file_rows:
            self._close(key)

    def _writer(self, key: tuple[str, str]) -> _OpenFile:
        out = self._open.get(key)
        if out is not None:
            self._open.move_to_end(key)
            return out
        while len(self._open) >= self.options.max_open_files:
            self._close(next(iter(self._open)))
        n = self._parts.get(key, 0)
        self._parts[key] = n + 1
        rel = f"{key[1]}/part-{self.import_id}-{n:04d}.parquet"
        path = self.staging / rel
        with io_errors("write", path):
            path.parent.mkdir(parents=True, exist_ok=True)
            writer = pq.ParquetWriter(
                path,
                self._schemas[key[0]],
                compression=self.options.compression,
                use_dictionary=dictionary_columns(key[0]),
                write_statistics=True,
                write_page_checksum=True,
            )
        self._staged.append(rel)
        out = self._open[key] = _OpenFile(writer, path)
        return out

    def _close(self, key: tuple[str, str]) -> None:
        _finish(self._open.pop(key))

    def close_files(self) -> list[str]:
        """Write every buffer out and finish every file; returns the staged relative paths.

        Each partition's last rows are written, and its file finished, by a few threads at
        once (Arrow encodes and compresses without the GIL): this is the commit's serial
        tail, which the workers of a pool have finished before it starts (0.5-0.8 s of an
        import of 2,000 matches, one thread). What is decided here (which file a
        partition's rows go to, the staged files' order) is decided in this thread, in the
        order of the buffers, whatever the number of threads; about `2 * _CLOSE_THREADS`
        files at most wait for a thread. On an error the files already handed to threads
        are still written, then removed with the rest by the transaction's abort."""
        threads = min(_CLOSE_THREADS, os.cpu_count() or 1)
        pool = ThreadPoolExecutor(threads, "bgparse-close") if threads > 1 else None
        pending: deque[Future[None]] = deque()

        def write_out(out: _OpenFile, table: pa.Table | None) -> None:
            if pool is None:
                self._write_out(out, table)
                return
            pending.append(pool.submit(self._write_out, out, table))
            while len(pending) > 2 * threads:
                pending.popleft().result()

        try:
            for key in list(self._buffers):
                buf = self._buffers.pop(key)
                self._buffered_bytes -= buf.nbytes
                if not buf.rows:
                    continue
                table = pa.Table.from_batches(buf.batches, schema=self._schemas[key[0]])
                out = self._writer(key)
                del self._open[key]  # the file is finished with these rows
                out.rows += table.num_rows
                write_out(out, table)
            while self._open:
                write_out(self._open.popitem(last=False)[1], None)
            while pending:
                pending.popleft().result()
        finally:
            if pool is not None:
                # On an error, the other threads finish first: an abort must not remove the
                # staging folder under a writer still writing into it.
                with deferred():
                    pool.shutdown(wait=True)
        return list(self._staged)

    def _write_out(self, out: _OpenFile, table: pa.Table | None) -> None:
        """Write `table` (all of it) into `out` and finish the file; run by a thread of
        `close_files`. The file is closed whatever happens, so that its handle is let go."""
        try:
            if table is not None:
                with io_errors("write", out.path):
                    out.writer.write_table(table, row_group_size=self.options.row_group_rows)
        except BaseException:
            with contextlib.suppress(Exception):
                out.writer.close()
            raise
        _finish(out)

    def commit(
        self, replaces: frozenset[str] = frozenset(), *, as_import: bool = True
    ) -> Manifest | None:
        """Publish the staged files and commit the manifest; None when nothing was added.
        `replaces`: committed files the new ones stand for (compaction), dropped from the
        manifest in the same commit; `as_import` records the transaction's id among the
        dataset's imports."""
        staged = self.close_files()
        root = self.dataset.root
        if not staged:
            self.abort()
            return None
        for rel in staged:
            if rel not in self._durable:
                with io_errors("write", self.staging / rel):
                    _fsync_path(self.staging / rel)
            if rel not in self._digests:
                # Read back from the page cache: a few ms for an import's tens of MB.
                self._digests[rel] = file_digest(self.staging / rel)
        dirs: set[Path] = set()
        for rel in staged:
            final = root / rel
            with io_errors("write", final):
                self._make_folder(final.parent)
                _publish(self.staging / rel, final)
            self._published.append(final)
            dirs.add(final.parent)
        for d in sorted(dirs):
            with io_errors("write", d):
                _fsync_path(d, directory=True)
        old = self.dataset.manifest()
        files = {t: tuple(f for f in old.files.get(t, ()) if f not in replaces) for t in TABLES}
        for rel in staged:
            table = rel.split("/", 1)[0]
            files[table] = (*files[table], rel)
        imports = (*old.imports, self.import_id) if as_import else old.imports
        digests = {rel: d for rel, d in old.digests.items() if rel not in replaces}
        for rel, mtime in self.dataset.rehashed.items():
            if rel in digests:
                digests[rel] = Digest(digests[rel].size, digests[rel].sha256, mtime)
        for rel in staged:
            size, sha = self._digests[rel]
            with io_errors("read", root / rel):
                mtime = os.stat(root / rel).st_mtime_ns  # kept by the rename
            digests[rel] = Digest(size, sha, mtime)
        new = Manifest(old.generation + 1, files, imports, self.bgparse_version, digests)
        # A signal held here acts once the manifest is replaced or left as it was, never
        # between; the caller learns which from `committed`.
        with deferred():
            with io_errors("write", self.dataset.manifest_path):
                _commit_manifest(self.dataset.manifest_path, new)
            self.committed = True
        self._remove_staging()
        return new

    def _remove_staging(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
        # `_staging` itself too, when no other transaction's folder is in it: a dataset at rest
        # is its manifest, its lock and its tables.
        with contextlib.suppress(OSError):
            self.staging.parent.rmdir()

    def _make_folder(self, folder: Path) -> None:
        """Make `folder` and its missing parents, remembering them for `abort`."""
        missing = []
        p = folder
        while not p.exists() and p != self.dataset.root:
            missing.append(p)
            p = p.parent
        folder.mkdir(parents=True, exist_ok=True)
        self._made.extend(reversed(missing))

    def abort(self) -> None:
        """Remove what this transaction wrote (its staging folder, and the files it moved into
        the tree before a commit that did not happen). Signals wait: an abort cut half way
        would leave files for the next import's `recover` to find."""
        with deferred():
            for key in list(self._open):
                with contextlib.suppress(Exception):
                    self._close(key)
            self._buffers.clear()
            if not self.committed:
                for path in self._published:
                    with contextlib.suppress(OSError):
                        path.unlink(missing_ok=True)
                for folder in reversed(self._made):
                    with contextlib.suppress(OSError):
                        folder.rmdir()  # only when empty
                self._published.clear()
                self._made.clear()
            self._remove_staging()


def _publish(staged: Path, final: Path) -> None:
    """Move one staged file into the tree (not yet visible: the manifest does not list it)."""
    os.rename(staged, final)


def _commit_manifest(path: Path, manifest: Manifest) -> None:
    """The commit point of an import."""
    _write_atomic(path, manifest.to_json())
