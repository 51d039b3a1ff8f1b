"""The dataset on disk: staging and commit, the manifest, the lock, recovery, Parquet layout."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bgparse.store.dataset import (
    MANIFEST_NAME,
    Dataset,
    DatasetError,
    DatasetLocked,
    WriteOptions,
)
from bgparse.store.schema import FINDINGS, IMPORTS, SCHEMA_VERSION, TABLES, row_schema


def ledger_batch(paths: list[str], import_id: str = "imp1") -> pa.RecordBatch:
    n = len(paths)
    when = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    cols: dict[str, list[object]] = {
        "import_id": [import_id] * n,
        "imported_at": [when] * n,
        "path": paths,
        "kind": ["file"] * n,
        "archive_path": [None] * n,
        "archive_sha256": [None] * n,
        "size_bytes": [1] * n,
        "sha256": [f"{i:064x}" for i in range(n)],
        "status": ["imported"] * n,
        "reason": [None] * n,
        "bgparse_version": ["test"] * n,
        "schema_version": [SCHEMA_VERSION] * n,
    }
    for f in IMPORTS:
        cols.setdefault(f.name, [0] * n)
    return pa.RecordBatch.from_pydict(cols, schema=IMPORTS)


def findings_batch(n: int) -> pa.RecordBatch:
    """n findings rows about a file as a whole."""
    cols: dict[str, list[object]] = {
        "file_sha256": ["f" * 64] * n,
        "source_path": ["x.mat"] * n,
        "match_uid": [None] * n,
        "match_index": [None] * n,
        "game_no": [None] * n,
        "turn": [None] * n,
        "code": ["S001"] * n,
        "severity": ["error"] * n,
        "message": [f"m{i}" for i in range(n)],
        "line": [1] * n,
        "column": [1] * n,
        "excerpt": [None] * n,
        "import_id": ["imp1"] * n,
        "in_duplicate": [False] * n,
    }
    return pa.RecordBatch.from_pydict(cols, schema=FINDINGS)


def test_commit_publishes_files_listed_in_the_manifest(tmp_path: Path) -> None:
    ds = Dataset(tmp_path / "data")
    with ds.lock():
        tx = ds.begin("imp1", "test")
        tx.add("imports", ledger_batch(["a", "b"]))
        for source, year in (("gnubg", 2005), ("gnubg", None), ("fibs", 2005)):
            tx.add("findings", findings_batch(1), source, year)
        manifest = tx.commit()
    assert manifest is not None and manifest.generation == 1
    assert manifest.imports == ("imp1",)
    assert manifest.files["imports"] == ("imports/part-imp1-0000.parquet",)
    assert sorted(manifest.files["findings"]) == [
        "findings/source=fibs/year=2005/part-imp1-0000.parquet",
        "findings/source=gnubg/year=2005/part-imp1-0000.parquet",
        "findings/source=gnubg/year=__HIVE_DEFAULT_PARTITION__/part-imp1-0000.parquet",
    ]
    doc = json.loads((tmp_path / "data" / MANIFEST_NAME).read_text())
    assert doc["schema_version"] == SCHEMA_VERSION and doc["generation"] == 1
    assert not (tmp_path / "data" / "_staging" / "imp1").exists()
    for rel in manifest.files["findings"]:
        meta = pq.ParquetFile(tmp_path / "data" / rel).metadata
        kv = meta.metadata
        assert kv[b"schema_version"] == str(SCHEMA_VERSION).encode()
        assert kv[b"bgparse_table"] == b"findings"
        assert meta.row_group(0).column(0).compression == "ZSTD"
        # Partition keys live in the folder names, not in the files.
        assert "source" not in meta.schema.names and "year" not in meta.schema.names


def test_nothing_to_commit_leaves_the_manifest_alone(tmp_path: Path) -> None:
    ds = Dataset(tmp_path)
    with ds.lock():
        before = (tmp_path / MANIFEST_NAME).read_text()
        assert ds.begin("imp1", "test").commit() is None
    assert (tmp_path / MANIFEST_NAME).read_text() == before
    assert ds.manifest().generation == 0


def test_row_groups_and_file_rolls(tmp_path: Path) -> None:
    ds = Dataset(tmp_path)
    opts = WriteOptions(row_group_rows=10, max_file_rows=25)
    with ds.lock():
        tx = ds.begin("imp1", "test", opts)
        for i in range(7):
            tx.add("imports", ledger_batch([f"p{i}-{j}" for j in range(9)]))
        manifest = tx.commit()
    assert manifest is not None
    files = [tmp_path / f for f in manifest.files["imports"]]
    sizes = [[rg.num_rows for rg in _row_groups(f)] for f in files]
    # Full row groups of 10 as the rows come in, the remainder (63 = 6·10 + 3) at the end;
    # a new file once one has 25 rows or more.
    assert sizes == [[10, 10, 10], [10, 10, 10], [3]]


def _row_groups(path: Path) -> list[pq.RowGroupMetaData]:
    meta = pq.ParquetFile(path).metadata
    return [meta.row_group(i) for i in range(meta.num_row_groups)]


@pytest.mark.parametrize("max_open", [64, 2])
def test_files_closed_by_threads_are_the_files_closed_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, max_open: int
) -> None:
    """The commit writes the partitions' last rows with a few threads: the same files, in the
    same order, with the same row groups and rows as one partition after another."""
    from bgparse.store import dataset

    def run(threads: int) -> list[tuple[str, list[int], list[dict[str, object]]]]:
        monkeypatch.setattr(dataset, "_CLOSE_THREADS", threads)
        monkeypatch.setattr(os, "cpu_count", lambda: 4)
        root = tmp_path / f"t{threads}"
        ds = Dataset(root)
        opts = WriteOptions(row_group_rows=7, max_file_rows=20, max_open_files=max_open)
        with ds.lock():
            tx = ds.begin("imp1", "test", opts)
            for i in range(5):
                for year in (2001, 2002, 2003, None):
                    tx.add("findings", findings_batch(3 + i + (year or 0) % 5), "s", year)
                tx.add("imports", ledger_batch([f"p{i}-{j}" for j in range(4)]))
            manifest = tx.commit()
        assert manifest is not None
        out = []
        for table in ("findings", "imports"):
            for rel in manifest.files[table]:
                f = pq.ParquetFile(root / rel)
                groups = [g.num_rows for g in _row_groups(root / rel)]
                out.append((rel, groups, f.read().to_pylist()))
        return out

    serial, threaded = run(1), run(4)
    assert threaded == serial
    assert len(serial) > 8


def test_many_partitions_keep_few_files_open(tmp_path: Path) -> None:
    ds = Dataset(tmp_path)
    opts = WriteOptions(max_open_files=2, row_group_rows=1)
    with ds.lock():
        tx = ds.begin("imp1", "test", opts)
        for _ in range(2):
            for year in (2001, 2002, 2003):
                tx.add("findings", findings_batch(1), "s", year)
        assert len(tx._open) <= 2
        manifest = tx.commit()
    assert manifest is not None
    total = sum(pq.ParquetFile(tmp_path / f).metadata.num_rows for f in manifest.files["findings"])
    assert total == 6


def test_second_lock_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    ds = Dataset(tmp_path / "data")
    with ds.lock():
        with pytest.raises(DatasetLocked) as err, Dataset(tmp_path / "data").lock():
            pass
        assert err.value.pid == os.getpid()
        assert str(err.value) == (
            f"dataset {tmp_path / 'data'} is being imported by pid {os.getpid()}; "
            "try again when it ends"
        )
    with ds.lock():  # released
        pass


def test_refuses_to_adopt_a_folder_of_other_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    refused = pytest.raises(DatasetError, match="is not empty and not a bgparse dataset")
    with refused, Dataset(tmp_path).lock():
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_recover_removes_what_an_interrupted_import_left(tmp_path: Path) -> None:
    ds = Dataset(tmp_path)
    with ds.lock():
        tx = ds.begin("imp1", "test")
        tx.add("imports", ledger_batch(["a"]))
        tx.commit()
    orphan = tmp_path / "turns" / "source=x" / "year=2001" / "part-dead-0000.parquet"
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(b"PAR1")
    staged = tmp_path / "_staging" / "dead" / "imports" / "part-dead-0000.parquet"
    staged.parent.mkdir(parents=True)
    staged.write_bytes(b"PAR1")
    (tmp_path / f"{MANIFEST_NAME}.tmp-123").write_text("{")
    with ds.lock():
        pass
    assert not orphan.exists() and not staged.exists()
    assert not (tmp_path / f"{MANIFEST_NAME}.tmp-123").exists()
    assert (tmp_path / "imports" / "part-imp1-0000.parquet").exists()


def test_manifest_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    (tmp_path / MANIFEST_NAME).write_text(json.dumps({"schema_version": 99, "tables": {}}))
    with pytest.raises(DatasetError, match="holds schema version 99; this bgparse reads"):
        Dataset(tmp_path).manifest()
    (tmp_path / MANIFEST_NAME).write_text("{not json")
    with pytest.raises(DatasetError, match="is not a bgparse dataset manifest"):
        Dataset(tmp_path).manifest()


def test_partition_must_fit_the_table(tmp_path: Path) -> None:
    ds = Dataset(tmp_path)
    with ds.lock():
        tx = ds.begin("imp1", "test")
        with pytest.raises(ValueError, match="findings: partition None does not fit"):
            tx.add("findings", findings_batch(1))
        with pytest.raises(ValueError, match="imports: partition 'x' does not fit"):
            tx.add("imports", ledger_batch(["a"]), "x", 2001)
        tx.abort()


def test_many_small_batches_are_merged_as_they_come(tmp_path: Path) -> None:
    ds = Dataset(tmp_path)
    with ds.lock():
        tx = ds.begin("imp1", "test")
        for i in range(100):
            tx.add("imports", ledger_batch([f"p{i}"]))
        assert len(tx._buffers[("imports", "imports")].batches) <= 3 + 32
        manifest = tx.commit()
    assert manifest is not None
    paths = pq.read_table(tmp_path / manifest.files["imports"][0]).column("path").to_pylist()
    assert paths == [f"p{i}" for i in range(100)]  # in the order added


def test_abort_discards_staged_files(tmp_path: Path) -> None:
    ds = Dataset(tmp_path)
    with ds.lock():
        tx = ds.begin("imp1", "test", WriteOptions(row_group_rows=1))
        tx.add("imports", ledger_batch(["a", "b"]))
        assert (tmp_path / "_staging" / "imp1").exists()
        tx.abort()
    assert not (tmp_path / "_staging" / "imp1").exists()
    assert ds.manifest().files["imports"] == ()


def test_every_table_schema_is_explicit() -> None:
    for name, schema in TABLES.items():
        assert schema.names, name
        assert len(set(schema.names)) == len(schema.names)
    assert row_schema("turns").names[-2:] == ["source", "year"]
    assert row_schema("imports").names == IMPORTS.names


@pytest.mark.parametrize("worker_parts", [False, True])
def test_nearly_distinct_strings_are_written_plainly_and_the_rest_with_dictionaries(
    tmp_path: Path, worker_parts: bool
) -> None:
    """Boards, Match IDs and plays differ nearly every row: a dictionary of them is only
    cost. Every other column keeps its dictionary, whoever writes the file (the importing
    process, or a worker merging its parts)."""
    from bgparse.ingest import ImportOptions, run_import

    sample = Path(__file__).resolve().parents[2] / "sample_logs"
    data = tmp_path / "data"
    run_import([sample], data, ImportOptions(workers=1, worker_parts=worker_parts))
    files = sorted((data / "turns").rglob("*.parquet")) + sorted(
        (data / "games").rglob("*.parquet")
    )
    assert files
    plain = {"position_id", "match_id", "play", "written", "final_position_id"}
    for path in files:
        group = pq.ParquetFile(path).metadata.row_group(0)
        for i in range(group.num_columns):
            column = group.column(i)
            name = column.path_in_schema
            dictionary = "RLE_DICTIONARY" in column.encodings
            if name in plain:
                assert not dictionary, f"{path.name}: {name} has a dictionary"
            elif name in ("kind", "roll", "match_uid", "game_no", "end", "opening_roll"):
                assert dictionary, f"{path.name}: {name} has no dictionary"
