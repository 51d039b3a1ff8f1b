"""Parts written by workers into an import's staging folder: committed only when adopted, gone
otherwise, refused where the dataset folder is not the client's."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bgparse.ingest import FileTask, ImportContext, unit_batches
from bgparse.questions.query import connect, run
from bgparse.store.dataset import Dataset, WriteOptions
from bgparse.store.parts import (
    PART_SUFFIX,
    SharedStorageError,
    check_staging,
    merge_parts,
    open_staging,
    read_part,
    write_parts,
)

from .conftest import hand_matches
from .factories import encode, fake_verify

TESTS = Path(__file__).resolve().parents[1]
CTX = ImportContext("imp-1", datetime(2026, 1, 1), "9.9")


def batches() -> dict:
    tasks = [
        FileTask(name, encode(spec), f"{i:064x}")
        for i, (name, spec) in enumerate(hand_matches().items())
    ]
    _, out = unit_batches(tasks, CTX, fake_verify)
    return out


def test_adopted_parts_are_committed_and_the_rest_removed(tmp_path: Path) -> None:
    ds = Dataset(tmp_path / "data")
    with ds.lock():
        tx = ds.begin("imp-1", "9.9")
        target = open_staging(ds.root, "imp-1", "9.9")
        written = write_parts(target, 0, batches())
        dropped = write_parts(target, 1, batches())  # a rerun task's, say: never merged
        tables = {p.table for p in written}
        assert tables == {"matches", "games", "turns", "cube_actions", "findings"}
        assert all(p.rel.endswith(PART_SUFFIX) and "-u000000-" in p.rel for p in written)
        with pytest.raises(ValueError, match="not a staged Parquet file"):
            tx.adopt(written[0].rel)  # a unit's part is never committed as it is
        kept = [
            m
            for seq, p in enumerate(written)
            for m in merge_parts(target, p.table, p.source, p.year, [(p.rel, p.index)], seq)
        ]
        assert [m.rows for m in kept] == [p.rows for p in written]
        for part in kept:
            tx.adopt(part.rel)
        with pytest.raises(ValueError, match="not a staged Parquet file"):
            tx.adopt("turns/part-nothing.parquet")
        tx.commit()
    listed = [rel for files in ds.manifest().files.values() for rel in files]
    assert sorted(listed) == sorted(p.rel for p in kept)
    assert not (ds.root / "_staging" / "imp-1").exists()
    assert not any((ds.root / p.rel).exists() for p in [*written, *dropped])
    turns = next(p for p in kept if p.table == "turns")
    meta = pq.read_schema(ds.root / turns.rel).metadata
    assert meta[b"bgparse_table"] == b"turns" and meta[b"bgparse_version"] == b"9.9"
    got = run(connect(ds.root), "SELECT count(*) AS n FROM turns").to_pylist()
    assert got == [{"n": sum(p.rows for p in kept if p.table == "turns")}]


def test_a_unit_writes_a_file_per_table_and_each_partition_reads_back(tmp_path: Path) -> None:
    ds = Dataset(tmp_path / "data")
    with ds.lock():
        target = open_staging(ds.root, "imp-1", "9.9")
        made = batches()
        parts = write_parts(target, 3, made)
        files = {p.rel for p in parts}
        assert len(files) == len({p.table for p in parts}) == 5
        assert {(p.table, p.source, p.year) for p in parts} == {k for k, b in made.items() if b}
        # Several partitions share a table's file, each its own record batch.
        assert any(p.index > 0 for p in parts)
        for part in parts:
            expected = made[(part.table, part.source, part.year)]
            assert read_part(target, part).to_pylist() == expected.to_pylist()
            assert part.rows == expected.num_rows


def test_a_worker_without_the_clients_folder_writes_nothing(tmp_path: Path) -> None:
    target = open_staging(tmp_path / "data", "imp-1", "9.9")
    check_staging(target)
    target.marker.unlink()  # as a machine that does not mount the dataset folder sees it
    with pytest.raises(SharedStorageError, match="same path"):
        write_parts(target, 0, batches())
    assert not list(target.staging.rglob(f"*{PART_SUFFIX}"))


def test_an_import_without_dask_never_imports_it(tmp_path: Path) -> None:
    """The dask extra stays optional: only --executor dask imports it."""
    (tmp_path / "in").mkdir()
    for name, spec in hand_matches().items():
        (tmp_path / "in" / name).write_bytes(encode(spec))
    code = (
        "import sys\n"
        "from bgparse.ingest import ImportOptions, run_import\n"
        "from store.factories import fake_verify\n"
        f"s = run_import([{str(tmp_path / 'in')!r}], {str(tmp_path / 'data')!r}, "
        "ImportOptions(workers=2), verify=fake_verify)\n"
        "print(s.matches, sorted(m for m in sys.modules if m.split('.')[0] in "
        "('dask', 'distributed')))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout == "3 []\n"


def test_merged_parts_keep_every_row_in_order_in_files_of_bounded_size(tmp_path: Path) -> None:
    ds = Dataset(tmp_path / "data")
    with ds.lock():
        target = open_staging(ds.root, "imp-1", "9.9")
        units = [write_parts(target, u, batches()) for u in range(5)]
        turns = [next(p for p in parts if p.table == "turns") for parts in units]
        small = WriteOptions(row_group_rows=7, max_file_rows=20)
        rels = [(p.rel, p.index) for p in turns]
        merged = merge_parts(target, "turns", turns[0].source, turns[0].year, rels, 0, small)
        expected = [r for p in turns for r in read_part(target, p).to_pylist()]
        got = [r for p in merged for r in read_part(target, p).to_pylist()]
        assert got == expected
        assert len(merged) > 1 and sum(p.rows for p in merged) == len(expected)
        for part in merged:
            meta = pq.ParquetFile(target.staging / part.rel).metadata
            assert meta.num_rows < 20 + 7 * 2
            assert all(meta.row_group(i).num_rows <= 14 for i in range(meta.num_row_groups))
        assert all((target.staging / rel).exists() for rel, _ in rels)  # a rerun needs them
