"""Files written for the user (converted records, generated matches, import reports): whole or
not at all, with the permissions the user's umask gives a new file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_output", "new_file_mode"]


def new_file_mode() -> int:
    """The mode `open(path, "w")` would give a new file: 0o666 less the umask."""
    # The umask can only be read by setting it; bgparse sets it back at once, in the one thread
    # that writes output.
    mask = os.umask(0o077)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_output(target: Path) -> Iterator[IO[bytes]]:
    """A binary file that becomes `target` when the block ends without an exception (a new
    file renamed over it, so a symbolic link there is replaced, not followed) and vanishes
    otherwise. mkstemp makes its files private (0600); the finished file gets the mode a plain
    `open` would have given it, since it is the user's file, not a secret."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            os.fchmod(f.fileno(), new_file_mode())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
