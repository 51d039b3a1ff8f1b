"""A damaged dataset is found, never read as if it were whole: the manifest records each part's
size and SHA-256, `bgparse check` verifies every part (and names the files the manifest does not
list), `import` and `compact` refuse to commit onto a part that is missing, cut or changed, and
`query` names a cut or rewritten part instead of answering from it (issue 31)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner, Result

from bgparse.analyze import AnalyzeOptions, run_analyze
from bgparse.cli import app
from bgparse.ingest import ImportOptions, run_import
from bgparse.store.dataset import MANIFEST_NAME, Dataset
from bgparse.store.integrity import file_digest
from bgparse.store.schema import TABLES

from ..conftest import SAMPLES
from .conftest import files, hand_matches, write_inputs
from .factories import fake_verify

NEW_INPUT = SAMPLES / "mat" / "beavers.mat"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-made matches imported and analysed by the engine: every table has parts (m1
    has findings; `decisions` and `analyses` are the engine's)."""
    base = tmp_path_factory.mktemp("integrity")
    inputs = write_inputs(base / "in", hand_matches())
    run_import([inputs], base / "data", ImportOptions(workers=1), verify=fake_verify)
    run_analyze(base / "data", AnalyzeOptions(workers=1))
    return base / "data"


@pytest.fixture
def data(pristine: Path, tmp_path: Path) -> Path:
    """A copy of the dataset this test may damage (times kept, as a backup would)."""
    return Path(shutil.copytree(pristine, tmp_path / "data"))


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def first_part(data: Path, table: str) -> str:
    return Dataset(data).manifest().files[table][0]


def change_bytes(path: Path, *, keep_time: bool) -> None:
    """Twenty bytes changed inside the file, its size the same; with `keep_time` its
    modification time put back (as bit rot on the disk leaves it)."""
    st = path.stat()
    raw = bytearray(path.read_bytes())
    step = max(1, (len(raw) - 16) // 20)
    for i in range(8, len(raw) - 8, step)[:20]:
        raw[i] ^= 0x5A
    path.write_bytes(bytes(raw))
    if keep_time:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def damage(data: Path, rel: str, how: str) -> None:
    path = data / rel
    if how == "changed":
        change_bytes(path, keep_time=True)
    elif how == "truncated":
        with open(path, "r+b") as fh:
            fh.truncate(path.stat().st_size // 2)
    else:
        path.unlink()


def problem(data: Path, rel: str, how: str) -> str:
    recorded = Dataset(data).manifest().digests[rel].size
    return {
        "changed": "its bytes changed (its SHA-256 is not the manifest's)",
        "truncated": f"{recorded // 2:,} bytes, the manifest records {recorded:,} (truncated or "
        "changed)",
        "deleted": "missing (the manifest lists it)",
    }[how]


def part_count(data: Path) -> int:
    return sum(len(f) for f in Dataset(data).manifest().files.values())


def test_every_part_has_its_size_and_checksum_in_the_manifest(pristine: Path) -> None:
    m = Dataset(pristine).manifest()
    assert set(m.digests) == {rel for rels in m.files.values() for rel in rels}
    for table in TABLES:
        assert m.files[table], table
    for rel, d in m.digests.items():
        path = pristine / rel
        assert (d.size, d.sha256) == file_digest(path)
        assert d.mtime_ns == path.stat().st_mtime_ns


def test_parts_carry_page_checksums_that_reading_verifies(data: Path) -> None:
    rel = first_part(data, "turns")
    path = data / rel
    column = pq.ParquetFile(path).metadata.row_group(0).column(0)
    start = column.dictionary_page_offset if column.has_dictionary_page else column.data_page_offset
    at = start + column.total_compressed_size - 2  # inside the last page's data
    raw = bytearray(path.read_bytes())
    raw[at] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(OSError, match="CRC checksum verification failed"):
        pq.ParquetFile(path, page_checksum_verification=True).read()
    result = invoke("check", "-d", str(data))
    assert result.stdout.startswith(f"{data / rel}: its bytes changed")


def test_a_clean_dataset_checks_clean(data: Path) -> None:
    result = invoke("check", "--data", str(data))
    total = sum((data / rel).stat().st_size for rel in Dataset(data).manifest().digests)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"{data}: clean: {part_count(data)} parts, {total:,} bytes, every size and checksum "
        "the manifest's, every part read back\n"
    )
    assert result.stderr == ""


@pytest.mark.parametrize("how", ["changed", "truncated", "deleted"])
@pytest.mark.parametrize("table", list(TABLES))
def test_check_names_a_damaged_part_of_every_table(data: Path, table: str, how: str) -> None:
    rel = first_part(data, table)
    damage(data, rel, how)
    result = invoke("check", "--data", str(data))
    assert result.exit_code == 1, result.output
    assert result.stdout == (
        f"{data / rel}: {problem(data, rel, how)}\n"
        f"{data}: damaged: 1 bad part of {part_count(data)}, 0 files not in the manifest\n"
    )


def test_check_names_every_damaged_part_and_every_stray_file(data: Path) -> None:
    turns, games = first_part(data, "turns"), first_part(data, "games")
    change_bytes(data / turns, keep_time=False)
    (data / games).unlink()
    (data / "notes.txt").write_text("mine\n")
    stray = data / "turns" / "source=x" / "year=2001" / "part-stray-0000.parquet"
    stray.parent.mkdir(parents=True)
    shutil.copy(data / turns, stray)
    result = invoke("check", "-d", str(data))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert sorted(lines[:2]) == sorted(
        [
            f"{data / games}: missing (the manifest lists it)",
            f"{data / turns}: its bytes changed (its SHA-256 is not the manifest's)",
        ]
    )
    why = "not in the manifest (left by a killed import, or not bgparse's)"
    assert lines[2:] == [
        f"{data / 'notes.txt'}: {why}",
        f"{stray}: {why}",
        f"{data}: damaged: 2 bad parts of {part_count(data)}, 2 files not in the manifest",
    ]


def test_a_part_that_does_not_read_back_is_named_even_without_a_checksum(data: Path) -> None:
    # A dataset written before the manifest held digests: check reads every part back whole.
    path = data / MANIFEST_NAME
    doc = json.loads(path.read_text())
    del doc["digests"]
    path.write_text(json.dumps(doc))
    n = part_count(data)
    result = invoke("check", "-d", str(data))
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(
        f"every part read back; {n} parts with no checksum recorded (written by an older "
        "bgparse) read back whole\n"
    )
    rel = first_part(data, "cube_actions")
    change_bytes(data / rel, keep_time=True)
    result = invoke("check", "-d", str(data))
    assert result.exit_code == 1
    head, tail = result.stdout.splitlines()
    assert head.startswith(f"{data / rel}: does not read back: ")
    assert tail == (
        f"{data}: damaged: 1 bad part of {n}, 0 files not in the manifest; {n - 1} parts with "
        "no checksum recorded (written by an older bgparse) read back whole"
    )


def test_an_older_dataset_imports_and_its_new_parts_get_checksums(data: Path) -> None:
    path = data / MANIFEST_NAME
    doc = json.loads(path.read_text())
    del doc["digests"]
    path.write_text(json.dumps(doc))
    old = {rel for rels in Dataset(data).manifest().files.values() for rel in rels}
    result = invoke("import", str(NEW_INPUT), "-d", str(data), "-w", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    m = Dataset(data).manifest()
    new = {rel for rels in m.files.values() for rel in rels} - old
    assert new and set(m.digests) == new


def test_a_schema_that_is_not_the_tables_is_named(data: Path) -> None:
    # Another table's (whole, sound) file listed as a findings part, its digest recorded.
    rel = first_part(data, "findings")
    shutil.copy(data / first_part(data, "games"), data / rel)
    path = data / MANIFEST_NAME
    doc = json.loads(path.read_text())
    size, sha = file_digest(data / rel)
    doc["digests"][rel] = {"size": size, "sha256": sha, "mtime_ns": (data / rel).stat().st_mtime_ns}
    path.write_text(json.dumps(doc))
    result = invoke("check", "-d", str(data))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == f"{data / rel}: its schema is not the findings table's"


def test_check_without_a_dataset_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("check", "-d", str(tmp_path / "none"))
    assert result.exit_code == 2
    assert result.stderr == (
        f"bgparse: no dataset at {tmp_path / 'none'} (bgparse import creates one)\n"
    )


def refusal(data: Path, rel: str, how: str, command: str) -> str:
    undone = {
        "import": "nothing was committed, the dataset is as it was",
        "compact": "the dataset is as it was",
    }[command]
    return (
        f"bgparse: cannot read {data / rel}: {problem(data, rel, how)}; the dataset is damaged "
        f"('bgparse check --data {data}' lists every damaged part); {undone}\n"
    )


@pytest.mark.parametrize("how", ["changed", "truncated", "deleted"])
@pytest.mark.parametrize("table", list(TABLES))
def test_import_refuses_to_commit_onto_a_damaged_part(data: Path, table: str, how: str) -> None:
    rel = first_part(data, table)
    if how == "changed":
        # Written to in place (its time moves): an import hashes it. Bit rot that leaves the
        # time as it was is `check`'s to find, except in the tables an import hashes always.
        change_bytes(data / rel, keep_time=False)
    else:
        damage(data, rel, how)
    was = files(data)
    result = invoke("import", str(NEW_INPUT), "-d", str(data), "-w", "1", "--no-progress")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr == refusal(data, rel, how, "import")
    assert files(data) == was


@pytest.mark.parametrize("table", ["matches", "imports"])
def test_import_hashes_the_tables_it_reads_whatever_their_time(data: Path, table: str) -> None:
    rel = first_part(data, table)
    change_bytes(data / rel, keep_time=True)
    result = invoke("import", str(NEW_INPUT), "-d", str(data), "-w", "1", "--no-progress")
    assert result.exit_code == 2
    assert result.stderr == refusal(data, rel, "changed", "import")


def test_compact_refuses_a_damaged_dataset(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for name, spec in hand_matches().items():
        folder = write_inputs(tmp_path / name, {name: spec})
        run_import([folder], data, ImportOptions(workers=1), verify=fake_verify)
    rel = first_part(data, "games")
    damage(data, rel, "truncated")
    was = files(data)
    result = invoke("compact", "-d", str(data))
    assert result.exit_code == 2
    assert result.stderr == refusal(data, rel, "truncated", "compact")
    assert files(data) == was


@pytest.mark.parametrize("how", ["truncated", "deleted"])
def test_query_names_a_cut_or_missing_part(data: Path, how: str) -> None:
    rel = first_part(data, "turns")
    damage(data, rel, how)
    result = invoke("query", "SELECT sum(pips_mover) FROM turns", "-d", str(data))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"bgparse: cannot read {data / rel}: {problem(data, rel, how)}; the dataset is damaged "
        f"('bgparse check --data {data}' lists every damaged part)\n"
    )


def test_query_does_not_answer_from_a_part_rewritten_in_place(data: Path) -> None:
    # The report's case: bytes changed in a turns part made a wrong sum, exit 0. DuckDB checks
    # no page checksum; a part whose time moved since its commit is hashed first.
    rel = first_part(data, "turns")
    change_bytes(data / rel, keep_time=False)
    result = invoke("query", "SELECT sum(pips_mover) FROM turns", "-d", str(data))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"bgparse: cannot read {data / rel}: its bytes changed")


def test_a_part_touched_but_not_changed_is_hashed_once(data: Path) -> None:
    rel = first_part(data, "turns")
    os.utime(data / rel, ns=(0, 1_000_000_000))
    assert invoke("query", "SELECT count(*) FROM turns", "-d", str(data)).exit_code == 0
    result = invoke("import", str(NEW_INPUT), "-d", str(data), "-w", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    # The import confirmed its hash and recorded its new time: the next reader trusts it.
    assert Dataset(data).manifest().digests[rel].mtime_ns == 1_000_000_000
    assert invoke("check", "-d", str(data)).exit_code == 0


def test_a_workers_merged_parts_are_committed_with_the_digest_it_computed(tmp_path: Path) -> None:
    # On Dask the client never reads the merged files: the worker hashes what it wrote.
    from bgparse.store.parts import merge_parts, open_staging, write_parts

    from .test_parts import batches

    ds = Dataset(tmp_path / "data")
    with ds.lock():
        tx = ds.begin("imp-1", "9.9")
        target = open_staging(ds.root, "imp-1", "9.9")
        written = write_parts(target, 0, batches())
        kept = [
            m
            for seq, p in enumerate(written)
            for m in merge_parts(target, p.table, p.source, p.year, [(p.rel, p.index)], seq)
        ]
        for part in kept:
            assert part.digest == file_digest(target.staging / part.rel)
            tx.adopt(part.rel, digest=part.digest)
        tx.commit()
    m = ds.manifest()
    assert {rel: (d.size, d.sha256) for rel, d in m.digests.items()} == {
        p.rel: p.digest for p in kept
    }
    assert invoke("check", "-d", str(ds.root)).exit_code == 0


def test_check_is_refused_while_an_import_holds_the_dataset(data: Path) -> None:
    # Its files are in the tree before the manifest lists them: not strays to report.
    with Dataset(data).lock():
        result = invoke("check", "-d", str(data))
    assert result.exit_code == 2
    assert result.stderr == (
        f"bgparse: dataset {data} is being imported by pid {os.getpid()}; try again when it ends\n"
    )
    assert invoke("check", "-d", str(data)).exit_code == 0


def test_check_works_on_a_read_only_dataset(pristine: Path, tmp_path: Path) -> None:
    from .test_fs_errors import Mount

    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    mnt = Mount(tmp_path / "mnt", "8m")
    try:
        data = Path(shutil.copytree(pristine, mnt.path / "data"))
        damage(data, first_part(data, "findings"), "truncated")
        mnt.remount("ro")
        result = invoke("check", "-d", str(data))
        assert result.exit_code == 1, result.output
        assert result.stdout.splitlines()[-1] == (
            f"{data}: damaged: 1 bad part of {part_count(data)}, 0 files not in the manifest"
        )
    finally:
        mnt.unmount()
