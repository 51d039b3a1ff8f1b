"""Import of one file of many matches (issue 11, defect 5): matches are verified one at a time
and their rows become Arrow batches as they pile up, with the same rows, the same rollback of
a file that fails half way, and the same quarantine as before."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pytest

import bgparse.ingest as ingest
import bgparse.store.rows as store_rows
from bgparse.ingest import FileTask, ImportContext, process_file, process_unit
from tests.conftest import SAMPLES

from .conftest import hand_matches
from .factories import encode, fake_verify

CTX = ImportContext("imp-test", datetime(2026, 1, 1, tzinfo=UTC), "9.9", None)


def _task(path: str, data: bytes) -> FileTask:
    return FileTask(path, data, hashlib.sha256(data).hexdigest())


def _all_matches() -> list[Any]:
    return [vm for name, spec in hand_matches().items() for vm in fake_verify(encode(spec), name)]


def _rows(tables: dict[Any, pa.RecordBatch]) -> dict[Any, list[dict[str, Any]]]:
    return {key: batch.to_pylist() for key, batch in sorted(tables.items(), key=str)}


def test_matches_are_verified_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """`verify_file` is a stream: a match is replayed when the import asks for it, so a file of
    thousands of matches never holds them all verified, turns and all, at once."""
    import bgparse.replay

    data = (SAMPLES / "mat" / "several_matches_in_one_file.mat").read_bytes()
    replayed = 0
    real_replay = bgparse.replay.replay

    def replay(record: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal replayed
        replayed += 1
        return real_replay(record, *args, **kwargs)

    monkeypatch.setattr(bgparse.replay, "replay", replay)
    stream = iter(ingest.verify_file(data, "several.mat"))
    first = next(stream)
    assert (first.index, replayed) == (0, 1)
    assert [vm.index for vm in stream] == [1] and replayed == 2
    res = process_file(_task("several.mat", data), CTX)
    assert res.status == "ok" and len(res.matches) == 2


def test_a_stream_of_no_matches_is_quarantined() -> None:
    res = process_file(_task("empty", b"x"), CTX, lambda data, path: iter(()))
    assert (res.status, res.reason) == ("quarantined", "no match found in the file")


def test_rows_made_into_batches_early_are_the_same_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    matches = _all_matches()
    whole = process_file(_task("many", b"x"), CTX, lambda d, p: iter(matches))
    monkeypatch.setattr(store_rows, "_FLUSH_ROWS", 3)
    flushed = process_file(_task("many", b"x"), CTX, lambda d, p: iter(matches))
    assert whole.status == flushed.status == "ok"
    assert _rows(flushed.tables) == _rows(whole.tables)


def test_a_file_failing_after_its_rows_became_batches_keeps_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rollback reaches into the batches made early: of a unit's three files, the one that
    fails half way keeps no rows, the others all of theirs."""
    monkeypatch.setattr(store_rows, "_FLUSH_ROWS", 2)
    specs = hand_matches()
    names = list(specs)

    def verify(data: bytes, path: str) -> Iterator[Any]:
        if path == "bad":
            yield from fake_verify(encode(specs[names[1]]), names[1])
            yield from fake_verify(encode(specs[names[2]]), names[2])
            raise RuntimeError("boom")
        yield from fake_verify(data, path)

    tasks = [
        _task(names[0], encode(specs[names[0]])),
        _task("bad", b"bad"),
        _task(names[2], encode(specs[names[2]])),
    ]
    unit = process_unit(tasks, CTX, verify)
    assert [(f.path, f.status) for f in unit.files] == [
        (names[0], "ok"),
        ("bad", "quarantined"),
        (names[2], "ok"),
    ]
    assert unit.files[1].reason == "internal error: RuntimeError: boom"
    alone = process_unit([tasks[0], tasks[2]], CTX, fake_verify)
    got = _rows(unit.batches())
    want = _rows(alone.batches())
    for rows in (*got.values(), *want.values()):
        for row in rows:
            row.pop("file_sha256", None)
    assert got == want
