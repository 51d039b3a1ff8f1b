"""The duplicate checks' memory (`bgparse.store.seen.Seen`): a dict up to its limit, the rest on
disk, answering the same either way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bgparse.store.seen import Seen


def test_below_the_limit_nothing_goes_to_disk(tmp_path: Path) -> None:
    seen: Seen[bytes] = Seen(limit=4, folder=tmp_path)
    for key in (b"a", b"b", b"c", b"d"):
        seen.add(key)
    assert not seen.spilled and not os.listdir(tmp_path)
    assert len(seen) == 4 and b"a" in seen and b"e" not in seen


def test_keys_past_the_limit_move_to_disk_and_answer_the_same(tmp_path: Path) -> None:
    seen: Seen[str] = Seen(limit=3, folder=tmp_path)
    keys = [f"{i:064x}" for i in range(10)]
    for i, key in enumerate(keys):
        assert seen.get(key) is None
        seen.add(key, f"file-{i}.mat")
    assert seen.spilled and len(seen) == 10
    assert len(seen._recent) <= 3  # memory holds the most recent keys alone
    # Every value, whether in memory or on disk, is the first path given.
    assert [seen.get(k) for k in keys] == [f"file-{i}.mat" for i in range(10)]
    assert seen.get("f" * 64) is None and "f" * 64 not in seen
    asked = [*keys[::3], "e" * 64]
    assert seen.known(asked) == set(keys[::3])
    folders = os.listdir(tmp_path)
    assert len(folders) == 1 and folders[0].startswith("bgparse-seen-")
    seen.close()
    assert not os.listdir(tmp_path) and len(seen) == 0 and keys[0] not in seen


def test_known_asks_the_disk_in_chunks(tmp_path: Path) -> None:
    seen: Seen[bytes] = Seen(limit=100, folder=tmp_path)
    seen.update(i.to_bytes(16, "big") for i in range(2000))
    assert seen.spilled and len(seen) == 2000
    asked = [i.to_bytes(16, "big") for i in range(0, 4000, 3)]
    assert seen.known(asked) == {k for k in asked if int.from_bytes(k, "big") < 2000}
    seen.close()


def test_a_key_in_memory_keeps_its_first_value() -> None:
    seen: Seen[str] = Seen(limit=10)
    seen.add("x", "first")
    seen.add("x", "second")
    assert seen.get("x") == "first" and len(seen) == 1


def test_the_limit_is_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Seen(limit=0)
