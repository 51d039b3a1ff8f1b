"""The exception family of bgparse: one root, the kinds of error a user meets, their exit codes.

Every error bgparse raises on purpose is a `BgparseError` whose message is one line a person
can act on (it names the file, option or dataset and says why). A program that calls the
library catches `BgparseError`, or one kind below it; the command line maps every kind to a
message and an exit code in one place (`bgparse.cli.base`), following the README's table:

- `UsageError` (exit 2): what was asked cannot be done as asked: an option out of range, a
  path that does not exist, a folder with nothing to read, a board `show` cannot find.
- `InputError` (exit 2): an input cannot be read as match records at all (`RecordError` and
  the readers' own errors are of this kind); the other inputs go on.
- `DatasetError` (exit 2): the dataset cannot be opened, read or written (missing, locked,
  damaged, a read-only or full disk), or a query over it is refused.
- `OutputError` (exit 2): a file the command writes cannot be written (a read-only or full
  disk); the path and the cause are in the message.
- `ClusterError` (exit 2): the Dask cluster cannot be used (unreachable, no workers, not
  sharing the dataset folder); `WorkerLost` (exit 3): the work failed under it.

- `RulesError` (a ValueError too): a value the rules engine cannot take (dice that are not
  dice, a Position ID that decodes to no position, a play it cannot read); the replay turns
  each into a finding, so only a program calling the rules engine itself meets one.

Ctrl-C and SIGTERM are not in this family on purpose: `bgparse.helpers.interrupts.Interrupted` is a
BaseException, as KeyboardInterrupt is, so that no `except Exception` in the library or in a
caller swallows it (exit 130 or 143).

This module imports nothing of bgparse, so that every other module, the rules engine
included, may raise these kinds without depending on anything above it.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "BgparseError",
    "ClusterError",
    "DatasetError",
    "InputError",
    "NoSuchPath",
    "OutputError",
    "RulesError",
    "UsageError",
]


class BgparseError(Exception):
    """Root of every error bgparse raises on purpose; its message is one line for a user.

    `exit_code` is the command line's exit code for it; `failure` says whether the work had
    begun when it came (a write failed, a worker died), so that a command that writes adds
    what became of its work; otherwise the command refused before it did anything."""

    exit_code: ClassVar[int] = 2
    failure: ClassVar[bool] = False


class UsageError(BgparseError):
    """What was asked cannot be done as asked: an option's value, a path, a name."""


class NoSuchPath(UsageError):
    """A path named on the command line (or given to an import) does not exist."""

    def __init__(self, shown: str) -> None:
        # `shown` is the name's display form (bgparse.helpers.paths): the message prints on one
        # line.
        super().__init__(f"{shown}: no such file or folder")
        self.shown = shown


class InputError(BgparseError):
    """An input cannot be read as match records (the reason names the file and why)."""


class OutputError(BgparseError):
    """A file the command writes cannot be written; the message names it and the cause."""


class RulesError(BgparseError, ValueError):
    """A value the rules engine cannot take: a position, dice, a play's shape, an ID, a cube
    action or a game the match cannot have. A ValueError, as python-chess's are."""


class DatasetError(BgparseError):
    """A dataset cannot be opened, read or written; the message says why and what to do."""


class ClusterError(BgparseError):
    """The Dask cluster cannot be used (unreachable, no workers, not sharing the dataset)."""
