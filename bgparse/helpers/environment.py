"""The environment bgparse's own processes run with: the `bgparse` command (set before numpy
and Arrow load, `bgparse.__main__`) and an import's pool workers (set for the fork server they
are forked from, `bgparse.pipeline.pool`). A variable the user has set is left as it is. A program
that imports bgparse as a library keeps its own environment, and may set these itself before
it loads Arrow (Arrow reads its variable once; `pyarrow.set_memory_pool` does not reach the
allocations Arrow's C++ makes on its own: the Parquet writers, the IPC reader).

- `OPENBLAS_NUM_THREADS=1`: bgparse does no linear algebra, but numpy (which Arrow loads)
  starts OpenBLAS's threads, one a core, which spin for about 0.1 s of CPU in every process;
  on a pool's start, that CPU is taken from the workers.
- `ARROW_DEFAULT_MEMORY_POOL=system`: Arrow's buffers from the C library's allocator instead
  of Arrow's default (mimalloc), which keeps more of what an import frees. Importing 2,000
  matches with 2 workers, the importing process's peak went from 235-242 to 191-193 MB, and
  with one worker from 260-277 to 226 MB, in no more time (0.7% more instructions in all, by
  callgrind)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

__all__ = ["PROCESS_ENVIRONMENT", "defaults_set", "set_defaults"]

PROCESS_ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1", "ARROW_DEFAULT_MEMORY_POOL": "system"}


def set_defaults() -> None:
    """`PROCESS_ENVIRONMENT` in this process's environment, where unset: for the command,
    before anything loads numpy or Arrow."""
    for name, value in PROCESS_ENVIRONMENT.items():
        os.environ.setdefault(name, value)


@contextlib.contextmanager
def defaults_set() -> Iterator[None]:
    """`PROCESS_ENVIRONMENT` in this process's environment for the block only (while a fork
    server starts, whose children inherit it)."""
    added = [name for name in PROCESS_ENVIRONMENT if name not in os.environ]
    for name in added:
        os.environ[name] = PROCESS_ENVIRONMENT[name]
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)
