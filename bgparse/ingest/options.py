"""What an import is asked to do: its options (workers, executor, unit sizes, limits)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bgparse.store.inputs import Limits
from bgparse.store.parts import (
    MERGE_ROWS,
)
from bgparse.store.seen import SEEN_LIMIT

__all__ = ["ImportOptions"]


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
