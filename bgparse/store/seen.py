"""What an import has met so far (match ids, content hashes), kept in bounded memory.

The duplicate checks must remember every match id and every input's content of an import (and
the match ids the dataset already holds): that state grows with the inputs, about 0.5 KB per
file as Python objects, 5 GB at ten million files. `Seen` keeps the most recent keys in a dict
and, past `limit` of them, moves them to a SQLite file on the local disk (the system's
temporary folder, `TMPDIR`; not the dataset's, which may be a network filesystem), so the
importing process (the one client of a cluster) stays at a fixed size however many files it
commits. Below the limit it is a dict and costs nothing more; beyond it a lookup the dict
cannot answer is a query on an indexed file (a few microseconds; `known` asks for a unit's
keys in a few queries). Memory is then bounded: `limit` keys per check and an 8 MB page cache.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Generic, TypeVar

#: Keys held in memory before they move to disk: about 40 MB of a client's memory for content
#: hashes with their first path, 13 MB for match ids.
SEEN_LIMIT = 131072

#: Keys per query (SQLite's own limit on a statement's parameters is far above).
_CHUNK = 500

Key = TypeVar("Key", bytes, str)


class Seen(Generic[Key]):
    """Keys, each with a value (a text; "" where only membership matters), in memory up to
    `limit` keys, the older ones in a SQLite file of a temporary folder made when first
    needed (in `folder`, or the system's), removed by `close`."""

    def __init__(self, limit: int = SEEN_LIMIT, folder: str | Path | None = None) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        self.folder = folder
        self.limit = limit
        self._recent: dict[Key, str] = {}
        self._db: sqlite3.Connection | None = None
        self._dir: str | None = None
        self._on_disk = 0

    def __len__(self) -> int:
        return len(self._recent) + self._on_disk

    @property
    def spilled(self) -> bool:
        """Whether keys have moved to disk."""
        return self._db is not None

    def get(self, key: Key) -> str | None:
        value = self._recent.get(key)
        if value is not None or self._db is None:
            return value
        row = self._db.execute("SELECT v FROM seen WHERE k = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def __contains__(self, key: object) -> bool:
        return isinstance(key, bytes | str) and self.get(key) is not None  # type: ignore[arg-type]

    def known(self, keys: Iterable[Key]) -> set[Key]:
        """Those of `keys` met before."""
        recent = self._recent
        found: set[Key] = set()
        ask: list[Key] = []
        for key in keys:
            if key in recent:
                found.add(key)
            elif self._db is not None:
                ask.append(key)
        db = self._db
        for start in range(0, len(ask), _CHUNK):
            chunk = ask[start : start + _CHUNK]
            query = f"SELECT k FROM seen WHERE k IN ({','.join('?' * len(chunk))})"
            assert db is not None
            found.update(k for (k,) in db.execute(query, chunk))
        return found

    def add(self, key: Key, value: str = "") -> None:
        """Add a key not met before (the caller asks `get` or `known` first: a key already on
        disk is not looked for again); a key still in memory keeps its first value."""
        recent = self._recent
        if key in recent:
            return
        recent[key] = value
        if len(recent) > self.limit:
            self._spill()

    def update(self, keys: Iterable[Key]) -> None:
        """Add keys not met before, with no value (past the limit they move to disk as
        `add` moves them)."""
        for key in keys:
            self.add(key)

    def _spill(self) -> None:
        db = self._db or self._open()
        with db:
            insert = "INSERT OR IGNORE INTO seen (k, v) VALUES (?, ?)"
            cur = db.executemany(insert, self._recent.items())
            self._on_disk += max(cur.rowcount, 0)
        self._recent = {}

    def _open(self) -> sqlite3.Connection:
        self._dir = tempfile.mkdtemp(prefix="bgparse-seen-", dir=self.folder)
        db = sqlite3.connect(Path(self._dir, "seen.sqlite"))
        # A scratch file read and written by this process alone: no journal, no syncs, and a
        # small page cache (8 MB: the file's pages stay in the system's cache besides).
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA cache_size = -8192")
        db.execute("CREATE TABLE seen (k PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID")
        self._db = db
        return db

    def close(self) -> None:
        """Forget everything, removing the file."""
        self._recent = {}
        self._on_disk = 0
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
