"""What the walker of inputs (`bgparse.store.inputs`) yields, and the limits it reads under.

An input is a file or an archive member read whole (`InputFile`), a plain file left for a
worker to read (`InputRef`), one refused with its reason (`Rejected`), or the account of an
archive after its members (`Archive`). The archive readers (`bgparse.store.archives`) yield
the same items, so both modules take them from here; every name is also importable from
`bgparse.store.inputs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Archive", "GiB", "InputFile", "InputRef", "Item", "Limits", "MiB", "Rejected"]

MiB = 1024 * 1024
GiB = 1024 * MiB


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what one import reads. Sizes are decompressed bytes."""

    max_file_bytes: int = 16 * MiB  # one file or archive member
    max_archive_bytes: int = 4 * GiB  # everything one archive expands to
    max_ratio: float = 200.0  # decompressed / compressed, for a member and for an archive
    ratio_floor: int = MiB  # expansion below this many bytes is never a bomb
    max_members: int = 200_000  # entries in one archive (zip keeps its directory in memory)

    def ratio_cap(self, compressed: int) -> int:
        """The most `compressed` bytes may expand to before it counts as a bomb."""
        return max(self.ratio_floor, int(self.max_ratio * max(compressed, 1)))


@dataclass(frozen=True, slots=True)
class InputFile:
    """One file or archive member read whole. `consumed` is the on-disk bytes it accounts for
    (for progress): its size for a file, its share of the compressed archive for a member."""

    path: str
    kind: Literal["file", "member"]
    data: bytes
    sha256: str
    archive_path: str | None = None
    archive_sha256: str | None = None
    consumed: int = 0


@dataclass(frozen=True, slots=True)
class InputRef:
    """A file left for a worker to read and hash (`iter_inputs(..., defer=True)`): `source` is
    the absolute path to open, `size` and `mtime_ns` what the walk saw, so that the reader can
    tell a file changed since. Only a plain file that is not an archive is left unread."""

    path: str
    source: str
    size: int
    mtime_ns: int
    kind: Literal["file"] = "file"
    consumed: int = 0


@dataclass(frozen=True, slots=True)
class Rejected:
    """An input refused before it was read whole, with the reason. `sha256` is None where the
    content was never read in full (a link, an oversized member, a bomb)."""

    path: str
    kind: Literal["file", "member"]
    reason: str
    size: int | None = None
    sha256: str | None = None
    archive_path: str | None = None
    archive_sha256: str | None = None
    consumed: int = 0


@dataclass(frozen=True, slots=True)
class Archive:
    """Emitted after an archive's members (or alone when `skipped` because the caller already
    has it). `reason` is set when the archive could not be read to its end."""

    path: str
    sha256: str
    size: int
    members: int
    reason: str | None = None
    skipped: bool = False
    consumed: int = 0


Item = InputFile | InputRef | Rejected | Archive
