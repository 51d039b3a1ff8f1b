"""Parts that import workers write straight into an import's staging folder.

On a cluster the importing process (the client) must not become the bottleneck by receiving
and writing every row, so each worker writes its unit's rows itself, one file per table and
partition, under `_staging/<import_id>/` of the dataset: a folder no reader opens and the next
import deletes. The client receives only the parts' names and row counts. Once every unit is
in, the workers merge each partition's parts into Parquet files (`merge_parts`, which hashes
each file it writes), and a commit (`Transaction.adopt`, then `Transaction.commit`) moves
those into the tree and lists them, with the workers' digests, in the manifest like the files
it wrote itself. A part or merged file that no commit adopts (its
unit was a duplicate, its task was rerun elsewhere, the import was aborted or killed) is
deleted with the staging folder.

Parts are Arrow IPC files (LZ4-compressed), not Parquet: they are written once and read once,
by the merge, and Parquet's encoding is paid there, once per partition. A unit writes one
file per table, a record batch per partition in it. Written as Parquet, a file per
partition, a unit of 128 GNU matches (96 parts) took 230 ms to write and 245 ms to read back;
as IPC with LZ4, 87 and 47 ms, at 1.6 times the bytes (see docs/SCALE.md).

The dataset folder must be visible to every worker at the same path (a shared filesystem).
The client puts a marker holding a random token into the staging folder (`open_staging`);
a worker refuses to write anywhere whose marker it cannot read back (`check_staging`), so a
worker on a machine that does not share the folder fails with a clear message instead of
writing parts nobody will see.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from bgparse.helpers.errors import ClusterError
from bgparse.store.dataset import STAGING_NAME, WriteOptions, partition_dir
from bgparse.store.integrity import file_digest
from bgparse.store.schema import TABLES, dictionary_columns, file_schema

__all__ = [
    "MARKER_NAME",
    "MERGE_ROWS",
    "PART_SUFFIX",
    "Part",
    "PartTarget",
    "SharedStorageError",
    "check_staging",
    "merge_parts",
    "open_staging",
    "read_part",
    "write_parts",
]

MARKER_NAME = "_bgparse_staging"

#: A part's suffix: an Arrow IPC file, never adopted into the dataset as it is.
PART_SUFFIX = ".arrow"
#: LZ4, compressed and read in the calling thread: a unit's parts hold about a hundred record
#: batches of thirty-odd columns, several thousand small buffers, and Arrow's thread pool
#: (its default) spent more handing each buffer to a thread than compressing it. A unit of
#: 200 files: 65 ms to write and 45-110 ms to read its parts with the pool, 28 and 12 ms
#: without (bench/README.md, session 18); the bytes are the same.
_PART_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4", use_threads=False)
_READ_OPTIONS = pa.ipc.IpcReadOptions(use_threads=False)

#: A partition's parts are merged while the import runs once they hold this many rows (a
#: quarter of a file's most, `WriteOptions.max_file_rows`): about 20 MB of Parquet for turns.
MERGE_ROWS = 1024 * 1024


class SharedStorageError(ClusterError):
    """A worker cannot see the dataset folder the client writes to."""


@dataclass(frozen=True, slots=True)
class PartTarget:
    """Where the workers of one import write: the dataset's absolute path (the same on every
    machine), the import, and the token of the staging marker the client wrote."""

    root: str
    import_id: str
    bgparse_version: str
    token: str

    @property
    def staging(self) -> Path:
        return Path(self.root) / STAGING_NAME / self.import_id

    @property
    def marker(self) -> Path:
        return self.staging / MARKER_NAME


@dataclass(frozen=True, slots=True)
class Part:
    """One partition's rows of a unit: its table and partition, the path of the file holding
    them relative to the staging folder (and to the root, for a merged file once committed),
    their number of rows, and for a unit's part the record batch of its file that holds them
    (a unit writes a file per table, a batch per partition); for a merged file, its size and
    SHA-256 (`digest`), for the manifest: the worker has the file at hand, the client would
    have to read it back over the network."""

    table: str
    source: str | None
    year: int | None
    rel: str
    rows: int
    index: int = 0
    digest: tuple[int, str] | None = None


def open_staging(root: str | os.PathLike[str], import_id: str, version: str) -> PartTarget:
    """Create the import's staging folder and its marker (client side, under the lock)."""
    target = PartTarget(os.path.abspath(root), import_id, version, secrets.token_hex(16))
    target.staging.mkdir(parents=True, exist_ok=True)
    tmp = target.marker.with_name(MARKER_NAME + ".tmp")
    with open(tmp, "w", encoding="ascii") as fh:
        fh.write(target.token)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, target.marker)
    return target


def check_staging(target: PartTarget, where: str = "this worker") -> None:
    """Refuse to write unless the client's marker is here with its token: the dataset folder
    is not shared with this machine (or the import has ended)."""
    try:
        token = target.marker.read_text(encoding="ascii").strip()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise SharedStorageError(
            f"{where} cannot see the dataset folder {target.root} ({target.marker}: {reason}); "
            f"with --executor dask the dataset folder must be on a filesystem every worker "
            f"mounts at the same path (NFS, Lustre, a shared volume)"
        ) from None
    if token != target.token:
        raise SharedStorageError(
            f"{where} sees another folder at {target.root} than the importing process does "
            f"(its staging marker differs); the dataset folder must be on a filesystem every "
            f"worker mounts at the same path"
        )


def write_parts(
    target: PartTarget,
    unit: int,
    batches: dict[tuple[str, str | None, int | None], pa.RecordBatch],
) -> tuple[Part, ...]:
    """Write one unit's rows, one Arrow IPC file per table holding a record batch per
    partition, and make them durable. A unit touches about a hundred partitions (five tables,
    a partition per source and year), so a file per partition meant a hundred files to create,
    fsync and open again in the merge. Names carry a fresh random suffix: a task rerun after
    its worker died never meets the half-written file of the earlier attempt, which no merge
    will read."""
    check_staging(target)
    attempt = secrets.token_hex(4)
    by_table: dict[str, list[tuple[str | None, int | None, pa.RecordBatch]]] = {}
    for (table, source, year), batch in batches.items():
        if batch.num_rows:
            by_table.setdefault(table, []).append((source, year, batch))
    out = []
    for table, held in by_table.items():
        rel = f"{table}/part-{target.import_id}-u{unit:06d}-{attempt}{PART_SUFFIX}"
        path = target.staging / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with (
            pa.OSFile(str(path), "wb") as sink,
            pa.ipc.new_file(sink, TABLES[table], options=_PART_OPTIONS) as writer,
        ):
            for index, (source, year, batch) in enumerate(held):
                writer.write_batch(batch)
                out.append(Part(table, source, year, rel, batch.num_rows, index))
        # Durable before the client is told: the merge and the commit may follow at once.
        _fsync(path)
    return tuple(out)


def merge_parts(
    target: PartTarget,
    table: str,
    source: str | None,
    year: int | None,
    parts: Sequence[tuple[str, int]],
    seq: int,
    options: WriteOptions | None = None,
) -> tuple[Part, ...]:
    """One partition's parts (of many units; each a file and the index of its record batch)
    written as the dataset's Parquet files, in their order: a new file every `max_file_rows`
    rows, row groups of `row_group_rows`. Run by a worker once every unit is in, so that an
    import leaves a file per partition, as the process pool's does, not one per unit and
    partition (thousands of small files that every query would open). The parts read stay (a
    rerun of this task needs them); the commit removes them with the staging folder."""
    opts = options or WriteOptions()
    check_staging(target)
    where = partition_dir(table, source, year) if source is not None else table
    schema = file_schema(table, target.bgparse_version)
    attempt = secrets.token_hex(4)
    out: list[Part] = []
    writer: pq.ParquetWriter | None = None
    rel = ""
    rows = 0
    pending: list[pa.Table] = []
    pending_rows = 0

    def finish() -> None:
        nonlocal writer, rows
        if writer is None:
            return
        writer.close()
        _fsync(target.staging / rel)
        digest = file_digest(target.staging / rel)
        out.append(Part(table, source, year, rel, rows, digest=digest))
        writer, rows = None, 0

    def flush() -> None:
        nonlocal writer, rel, rows, pending, pending_rows
        if not pending_rows:
            return
        if writer is None:
            rel = f"{where}/part-{target.import_id}-m{seq:05d}-{attempt}-{len(out):04d}.parquet"
            (target.staging / where).mkdir(parents=True, exist_ok=True)
            writer = pq.ParquetWriter(
                target.staging / rel,
                schema,
                compression=opts.compression,
                use_dictionary=dictionary_columns(table),
                write_statistics=True,
                write_page_checksum=True,
            )
        data = pa.concat_tables(pending).replace_schema_metadata(schema.metadata)
        writer.write_table(data, row_group_size=opts.row_group_rows)
        rows += data.num_rows
        pending, pending_rows = [], 0
        if rows >= opts.max_file_rows:
            finish()

    for part_rel, index in parts:
        part = pa.Table.from_batches([_read_batch(target.staging / part_rel, index)])
        pending.append(part)
        pending_rows += part.num_rows
        if pending_rows >= opts.row_group_rows:
            flush()
    flush()
    finish()
    return tuple(out)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_batch(path: Path, index: int) -> pa.RecordBatch:
    with pa.OSFile(str(path), "rb") as source:
        return pa.ipc.open_file(source, options=_READ_OPTIONS).get_batch(index)


def read_part(target: PartTarget, part: Part) -> pa.Table:
    """A unit's part's rows, or a merged file's, with the table's schema."""
    path = target.staging / part.rel
    if part.rel.endswith(".parquet"):
        data = pq.read_table(path, page_checksum_verification=True)
    else:
        data = pa.Table.from_batches([_read_batch(path, part.index)])
    return data.replace_schema_metadata(None).cast(TABLES[part.table])
