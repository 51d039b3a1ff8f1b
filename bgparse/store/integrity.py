"""The dataset's integrity: what the manifest records of each part, and checking it.

The manifest records each file's size, SHA-256 and modification time (`Digest`), and every
Parquet page carries its CRC. `Dataset.check` verifies all of it and names the files the
manifest does not list; before an import or a compaction writes anything, `refuse_damaged`
checks every part's size, hashes the `matches` and `imports` parts and any part whose time
moved, and refuses (`DatasetDamaged`) a dataset that does not read back; `query` checks sizes
and moved times the same way, since DuckDB verifies no page checksum (docs/FAULTS.md).

The checks are functions of the dataset's root and its manifest's files and digests;
`bgparse.store.dataset` calls them (`Dataset.refuse_damaged`, `Dataset.check`) and records
each committed part's `Digest` (`file_digest`, or its writer's).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from bgparse.helpers.errors import DatasetError
from bgparse.helpers.paths import display_path
from bgparse.store.diskio import DatasetIOError, cause_of, io_errors
from bgparse.store.schema import TABLES, file_schema

__all__ = [
    "CHECKSUMMED_AT_IMPORT",
    "CheckResult",
    "Damage",
    "DatasetDamaged",
    "Digest",
    "check_parts",
    "file_digest",
    "listed_parts",
    "part_damage",
    "read_back",
    "refuse_damaged_parts",
]


#: Tables whose parts an import checksums before it starts (beyond every part's size): it reads
#: them anyway (the stored match ids, the ledger), and they are a few per cent of a dataset's
#: bytes; `turns` is nine tenths of them (see docs/FAULTS.md, "A damaged dataset").
CHECKSUMMED_AT_IMPORT = frozenset({"matches", "imports"})


def file_digest(path: Path) -> tuple[int, str]:
    """A file's size and SHA-256, as the manifest records them for each part."""
    h = hashlib.sha256()
    size = 0
    with io_errors("read", path), open(path, "rb") as fh:
        while True:
            chunk = fh.read(_HASH_CHUNK)
            if not chunk:
                break
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


_HASH_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Digest:
    """What the manifest records of a part: its size, SHA-256, and modification time when it
    was last hashed (a part whose time is still that one was not written to since, and
    `refuse_damaged` and `query` need not hash it again)."""

    size: int
    sha256: str
    mtime_ns: int = 0


@dataclass(frozen=True, slots=True)
class Damage:
    """One thing wrong with a dataset's files: the path (relative to the root) and what."""

    rel: str
    problem: str


class DatasetDamaged(DatasetError):
    """A committed part is missing, or its size or checksum is not the manifest's: a command
    that writes refuses to commit onto a dataset that does not read back."""

    failure = True

    def __init__(self, root: Path, damage: Damage) -> None:
        super().__init__(
            f"cannot read {display_path(root / damage.rel)}: {damage.problem}; the dataset is "
            f"damaged ('bgparse check --data {display_path(root)}' lists every damaged part)"
        )
        self.damage = damage


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What `Dataset.check` found: the parts the manifest lists and their bytes, how many have
    no checksum recorded (written before bgparse recorded them: they are read back whole all
    the same), every damaged part, and every file in the folder the manifest does not list
    (relative to the root)."""

    parts: int = 0
    bytes: int = 0
    unrecorded: int = 0
    damage: tuple[Damage, ...] = ()
    unlisted: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        return not self.damage and not self.unlisted


def listed_parts(files: Mapping[str, tuple[str, ...]]) -> Iterator[tuple[str, str]]:
    """Every part a manifest's `files` list, as (table, path relative to the root)."""
    for table in TABLES:
        for rel in files.get(table, ()):
            yield table, rel


def part_damage(
    root: Path,
    digests: Mapping[str, Digest],
    rel: str,
    *,
    checksum: bool,
    rehashed: dict[str, int],
) -> Damage | None:
    """What is wrong with one listed part, from its size and SHA-256 (where recorded);
    None when nothing is. The SHA-256 is computed with `checksum`, or when the file was
    modified since it was hashed (its time is not the recorded one): a file written to
    in place is hashed, one left alone costs a `stat`. A part whose hash is confirmed so
    has its new time kept in `rehashed` for the next commit to record."""
    path = root / rel
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return Damage(rel, "missing (the manifest lists it)")
    except OSError as exc:
        return Damage(rel, f"cannot read: {cause_of(exc)}")
    recorded = digests.get(rel)
    if recorded is None:
        return None
    if st.st_size != recorded.size:
        return Damage(
            rel,
            f"{st.st_size:,} bytes, the manifest records {recorded.size:,} (truncated or changed)",
        )
    touched = st.st_mtime_ns != recorded.mtime_ns
    if checksum or touched:
        try:
            sha = file_digest(path)[1]
        except DatasetIOError as exc:
            return Damage(rel, f"cannot read: {exc.cause}")
        if sha != recorded.sha256:
            return Damage(rel, "its bytes changed (its SHA-256 is not the manifest's)")
        if touched:
            rehashed[rel] = st.st_mtime_ns
    return None


def refuse_damaged_parts(
    root: Path,
    files: Mapping[str, tuple[str, ...]],
    digests: Mapping[str, Digest],
    checksum: frozenset[str],
    rehashed: dict[str, int],
) -> None:
    """Raise DatasetDamaged at the first listed part that `part_damage` finds damaged, its
    SHA-256 computed for the parts of the `checksum` tables (`Dataset.refuse_damaged`)."""
    for table, rel in listed_parts(files):
        damage = part_damage(root, digests, rel, checksum=table in checksum, rehashed=rehashed)
        if damage is not None:
            raise DatasetDamaged(root, damage)


def check_parts(
    root: Path,
    files: Mapping[str, tuple[str, ...]],
    digests: Mapping[str, Digest],
    rehashed: dict[str, int],
    on_disk: Iterable[str],
) -> CheckResult:
    """Every listed part verified (`Dataset.check`): there, its recorded size and SHA-256,
    and read back whole (`read_back`); then the files of `on_disk` (relative to the root)
    that `files` does not list."""
    damage: list[Damage] = []
    parts = size = unrecorded = 0
    for table, rel in listed_parts(files):
        parts += 1
        found = part_damage(root, digests, rel, checksum=True, rehashed=rehashed)
        if found is None:
            found = read_back(root, table, rel)
        if found is not None:
            damage.append(found)
            continue
        size += (root / rel).stat().st_size
        unrecorded += rel not in digests
    listed = {rel for _, rel in listed_parts(files)}
    unlisted = tuple(rel for rel in on_disk if rel not in listed)
    return CheckResult(parts, size, unrecorded, tuple(damage), unlisted)


def read_back(root: Path, table: str, rel: str) -> Damage | None:
    """What is wrong with reading a part back whole with its table's schema (Parquet's page
    checksums verified); None when it reads back."""
    expected = file_schema(table, "").remove_metadata()
    try:
        pf = pq.ParquetFile(root / rel, page_checksum_verification=True)
        if not pf.schema_arrow.remove_metadata().equals(expected):
            return Damage(rel, f"its schema is not the {table} table's")
        rows = 0
        for batch in pf.iter_batches(batch_size=64 * 1024):
            rows += batch.num_rows
    except (OSError, pa.ArrowException) as exc:
        return Damage(rel, f"does not read back: {cause_of(exc)}")
    if rows != pf.metadata.num_rows:
        return Damage(rel, f"reads back {rows:,} rows of the {pf.metadata.num_rows:,} it holds")
    return None
