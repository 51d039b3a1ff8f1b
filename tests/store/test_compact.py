"""`Dataset.compact` and `bgparse compact`: a dataset fed by many small imports has its
partitions merged into one file each, with the same rows in the same order, the ledger still
knows every input, and a compaction killed at any point leaves the dataset whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from bgparse.cli import app as bgparse_app
from bgparse.ingest import ImportOptions, run_import
from bgparse.store.dataset import Dataset, DatasetLocked
from bgparse.store.schema import TABLES

from .conftest import hand_matches, snapshot, write_inputs
from .factories import fake_verify, game, match, roll

TESTS = Path(__file__).resolve().parents[1]


def import_one_by_one(base: Path) -> Path:
    """Nine imports of one file each into one dataset: three hand-made matches, then six
    more in two years and without a date, so several partitions get several files."""
    data = base / "data"
    specs = hand_matches() | {
        f"more{i}.json": match(
            game(roll(0, "31", "8/5 6/5"), roll(1, "42", "8/4 6/4"), winner=i % 2),
            players=(f"P{i}", "Q"),
            date=None if i % 3 == 0 else f"20{10 + i % 2}-01-01",
        )
        for i in range(6)
    }
    for name, spec in specs.items():
        folder = write_inputs(base / name.removesuffix(".json"), {name: spec})
        run_import([folder], data, ImportOptions(workers=1), verify=fake_verify)
    return data


def partitions(ds: Dataset) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for table, files in ds.manifest().files.items():
        for rel in files:
            out.setdefault((table, rel.rsplit("/", 1)[0]), []).append(rel)
    return out


def tree(ds: Dataset) -> set[str]:
    return {p.relative_to(ds.root).as_posix() for p in ds.root.rglob("*.parquet")}


def listed(ds: Dataset) -> set[str]:
    return {rel for files in ds.manifest().files.values() for rel in files}


def test_compact_merges_each_partition_into_one_file(tmp_path: Path) -> None:
    data = import_one_by_one(tmp_path)
    ds = Dataset(data)
    before = snapshot(data)
    groups = partitions(ds)
    several = {k: v for k, v in groups.items() if len(v) > 1}
    assert len(several) >= 5 and any(k[0] == "turns" for k in several)
    # The ledger in its committed order, to check compaction keeps row order.
    ledger = pa.concat_tables([pq.read_table(data / rel) for rel in groups["imports", "imports"]])
    rows = sum(pq.ParquetFile(data / rel).metadata.num_rows for v in several.values() for rel in v)
    generation = ds.manifest().generation
    imports = ds.manifest().imports

    done = ds.compact("9.9")

    assert (done.partitions, done.files_before, done.files_after, done.rows) == (
        len(several),
        sum(len(v) for v in several.values()),
        len(several),
        rows,
    )
    assert done.bytes_after < done.bytes_before
    after = partitions(ds)
    assert set(after) == set(groups) and all(len(v) == 1 for v in after.values())
    assert tree(ds) == listed(ds)  # the old files are gone
    assert snapshot(data) == before
    merged = pq.read_table(data / after["imports", "imports"][0])
    assert merged.to_pylist() == ledger.to_pylist()
    assert merged.schema.metadata[b"bgparse_version"] == b"9.9"
    m = ds.manifest()
    assert m.generation == generation + 1 and m.imports == imports
    # Nothing left to do; and the compacted ledger still knows every input.
    assert ds.compact("9.9").partitions == 0
    again = run_import(
        sorted(p for p in tmp_path.iterdir() if p.name != "data"),
        data,
        ImportOptions(workers=1),
        verify=fake_verify,
    )
    assert (again.imported, again.skipped) == (0, 9)
    assert snapshot(data) == before


def test_compact_splits_at_the_file_size(tmp_path: Path) -> None:
    from bgparse.store.dataset import WriteOptions

    data = import_one_by_one(tmp_path)
    ds = Dataset(data)
    before = snapshot(data)
    merged = [rels for (t, _), rels in partitions(ds).items() if t == "turns" and len(rels) > 1]
    rows = [sum(pq.ParquetFile(data / rel).metadata.num_rows for rel in rels) for rels in merged]
    assert max(rows) > 3
    ds.compact("9.9", WriteOptions(row_group_rows=2, max_file_rows=3))
    split = 0
    for rels, n in zip(merged, rows, strict=True):
        where = rels[0].rsplit("/", 1)[0]
        files = sorted((data / where).iterdir())
        sizes = [pq.ParquetFile(f).metadata.num_rows for f in files]
        # A new file once one holds 3 rows or more (written a row group of 2 at a time).
        assert sum(sizes) == n
        assert all(3 <= k <= 4 for k in sizes[:-1]) and 1 <= sizes[-1] <= 4
        assert all(rg.num_rows <= 2 for f in files for rg in _row_groups(f))
        split += len(files) > 1
    assert split
    assert snapshot(data) == before


def _row_groups(path: Path) -> list[pq.RowGroupMetaData]:
    meta = pq.ParquetFile(path).metadata
    return [meta.row_group(i) for i in range(meta.num_row_groups)]


def test_compact_is_refused_while_an_import_holds_the_dataset(tmp_path: Path) -> None:
    data = import_one_by_one(tmp_path)
    ds = Dataset(data)
    files = listed(ds)
    with Dataset(data).lock(), pytest.raises(DatasetLocked, match="being imported"):
        ds.compact("9.9")
    assert listed(ds) == files == tree(ds)


CHILD = r"""
import sys
import bgparse.store.dataset as dataset
from store.killpoints import arm

point, n, data = sys.argv[1], int(sys.argv[2]), sys.argv[3]
arm(point, n)
dataset.Dataset(data).compact("9.9")
print("finished")
"""


@pytest.mark.parametrize(
    "point,n",
    [
        ("publish", 0),  # before the first merged file is moved into the tree
        ("publish", 3),  # some merged files in the tree, not committed
        ("manifest", 0),  # all in the tree, the manifest not yet replaced
        ("after-manifest", 0),  # committed, the old files not yet deleted
    ],
)
def test_compact_killed_leaves_the_dataset_whole(tmp_path: Path, point: str, n: int) -> None:
    data = import_one_by_one(tmp_path)
    ds = Dataset(data)
    before = snapshot(data)
    files = listed(ds)
    child = subprocess.run(
        [sys.executable, "-c", CHILD, point, str(n), str(data)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])},
        capture_output=True,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    # Readers see the old files or the merged ones, all there, with the same rows.
    assert listed(ds) <= tree(ds)
    assert snapshot(data) == before
    compacted = point == "after-manifest"
    assert (listed(ds) == files) is not compacted
    # The next writer clears what the killed one left, and a re-run finishes the work.
    ds.compact("9.9")
    assert tree(ds) == listed(ds)
    assert all(len(v) == 1 for v in partitions(ds).values())
    assert snapshot(data) == before


def test_compact_command(tmp_path: Path) -> None:
    app = bgparse_app
    runner = CliRunner()
    data = import_one_by_one(tmp_path)
    several = [v for v in partitions(Dataset(data)).values() if len(v) > 1]
    res = runner.invoke(app, ["compact", "--data", str(data)])
    assert res.exit_code == 0, res.output
    n = sum(map(len, several))
    assert res.stdout.startswith(
        f"{data}: {len(several)} partitions compacted, {n} files -> {len(several)} ("
    )
    res = runner.invoke(app, ["compact", "--data", str(data)])
    assert res.exit_code == 0 and "nothing to compact" in res.stdout
    res = runner.invoke(app, ["compact", "--data", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "no dataset at" in res.stderr
    assert not (tmp_path / "nowhere").exists()
    assert set(TABLES) >= {k[0] for k in partitions(Dataset(data))}
