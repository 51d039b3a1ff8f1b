"""The dataset's file-system boundary: a file-system failure becomes a `DatasetIOError`.

`io_errors("read", path)` around a block turns an OSError (a read-only folder, no permission, a
full disk) into a DatasetIOError naming `path` and the cause in the system's words; reading
also turns Arrow's complaints about a damaged file into one. `bgparse.store.dataset` (writing
and reading the dataset) and `bgparse.store.integrity` (hashing its parts) both raise it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from bgparse.helpers.errors import DatasetError
from bgparse.helpers.paths import display_path

__all__ = ["DatasetIOError", "cause_of", "io_errors"]


class DatasetIOError(DatasetError):
    """The file system refused to read or write a file of the dataset (a read-only folder, no
    permission, a full disk, a damaged file): the message names the path and the cause."""

    failure = True  # the work had begun: a command that writes says what became of it

    def __init__(self, doing: str, path: Path, exc: OSError | pa.ArrowException) -> None:
        self.cause = cause_of(exc)
        super().__init__(f"cannot {doing} {display_path(path)}: {self.cause}")
        self.path = path
        self.errno: int | None = getattr(exc, "errno", None)


def cause_of(exc: BaseException) -> str:
    code = getattr(exc, "errno", None)
    if isinstance(code, int) and code > 0:
        # Arrow wraps the system's words ("Error writing bytes to file. Detail: [errno 28] No
        # space left on device"): the system's own are shorter, and the same for every step.
        return os.strerror(code)
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


@contextlib.contextmanager
def io_errors(doing: str, path: Path) -> Iterator[None]:
    """Turn a file-system error of the block into a DatasetIOError about `path`; reading also
    turns Arrow's complaints about a damaged file into one."""
    try:
        yield
    except OSError as exc:
        raise DatasetIOError(doing, path, exc) from exc
    except pa.ArrowException as exc:
        if doing != "read":
            raise
        raise DatasetIOError(doing, path, exc) from exc
