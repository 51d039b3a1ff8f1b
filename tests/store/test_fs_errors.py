"""File-system failures under `import`, `compact`, `query` and `stats`: a read-only dataset, a
read-only parent folder, a full disk (in the Parquet write, in the transaction's close, in the
manifest's atomic write), a missing or damaged dataset file. Each is one line naming the path
and the cause, exit 2, no traceback; the dataset is as it was, no partial file of the failed
import is left, and the same import completes once the cause is gone.

A root process writes through any file mode, so read-only and full file systems are real ones:
small tmpfs mounts (skipped where this process may not mount). The close and the manifest's
write fail on a monkeypatched call, since no real disk fills at exactly those points.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner, Result

from bgparse.cli import app as bgparse_app
from bgparse.ingest import ImportOptions, run_import

from ..conftest import SAMPLES
from .conftest import files, snapshot

NO_SPACE = os.strerror(errno.ENOSPC)
READ_ONLY = os.strerror(errno.EROFS)


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    # The command line itself: its errors are worded by the one boundary at its root.
    return bgparse_app


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple]]:
    """The dataset of the SGF samples and then all samples, imported without a fault."""
    data = tmp_path_factory.mktemp("reference") / "data"
    run_import([SAMPLES / "sgf"], data, ImportOptions(workers=1))
    run_import([SAMPLES], data, ImportOptions(workers=1))
    return snapshot(data)


class Mount:
    """A tmpfs of its own at `path`, which a test may make read-only or fill."""

    def __init__(self, path: Path, size: str) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'not root'})")

    def remount(self, mode: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{mode}", str(self.path)], check=True)

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], check=False)


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Mount]:
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    m = Mount(tmp_path / "mnt", "4m")
    try:
        yield m
    finally:
        m.unmount()


def invoke(app: typer.Typer, *args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def assert_one_line(result: Result, *parts: str) -> None:
    """Exit 2, and one line on stderr that holds every part (a path, a cause)."""
    assert result.exit_code == 2, (result.stderr, result.exception)
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    for part in parts:
        assert part in result.stderr, result.stderr


def with_sgf_samples(data: Path) -> dict[str, str]:
    run_import([SAMPLES / "sgf"], data, ImportOptions(workers=1))
    return files(data)


def test_a_read_only_dataset_refuses_import_and_compact_in_one_line(
    app: typer.Typer, mount: Mount, reference: dict[str, list[tuple]]
) -> None:
    data = mount.path / "data"
    was = with_sgf_samples(data)
    mount.remount("ro")
    result = invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1")
    assert_one_line(result, f"{data / '_lock'}: {READ_ONLY}", "nothing was committed")
    result = invoke(app, "compact", "-d", str(data))
    assert_one_line(result, f"{data / '_lock'}: {READ_ONLY}")
    # Reading needs no write.
    assert invoke(app, "query", "SELECT count(*) FROM matches", "-d", str(data)).exit_code == 0
    assert files(data) == was
    mount.remount("rw")
    assert invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1").exit_code == 0
    assert snapshot(data) == reference


def test_a_read_only_parent_folder_refuses_a_new_dataset_in_one_line(
    app: typer.Typer, mount: Mount
) -> None:
    mount.remount("ro")
    data = mount.path / "new"
    result = invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1")
    assert_one_line(result, f"cannot create {data}: {READ_ONLY}")
    assert not data.exists()


def _fill(folder: Path, leave: int) -> Path:
    """Fill the file system of `folder` but for about `leave` bytes."""
    st = os.statvfs(folder)
    filler = folder / "filler"
    filler.write_bytes(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))
    return filler


def test_a_full_disk_in_the_parquet_write_leaves_nothing_behind(
    app: typer.Typer, mount: Mount, reference: dict[str, list[tuple]]
) -> None:
    data = mount.path / "data"
    was = with_sgf_samples(data)
    filler = _fill(mount.path, 48 * 1024)
    result = invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1")
    assert_one_line(result, f"cannot write {data}", f".parquet: {NO_SPACE}")
    assert files(data) == was
    filler.unlink()
    assert invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1").exit_code == 0
    assert snapshot(data) == reference


def test_a_full_disk_in_the_transaction_close(
    app: typer.Typer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reference: dict[str, list[tuple]],
) -> None:
    data = tmp_path / "data"
    was = with_sgf_samples(data)
    real_close = pq.ParquetWriter.close
    calls = 0

    def close(self: pq.ParquetWriter) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:  # two files finished, the third one's footer finds the disk full
            real_close(self)
            raise OSError(
                errno.ENOSPC, f"Error writing bytes to file. Detail: [errno 28] {NO_SPACE}"
            )
        real_close(self)

    monkeypatch.setattr(pq.ParquetWriter, "close", close)
    result = invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1")
    assert_one_line(result, f"cannot write {data}", f".parquet: {NO_SPACE}")
    assert files(data) == was
    monkeypatch.undo()
    assert invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1").exit_code == 0
    assert snapshot(data) == reference


def test_a_full_disk_in_the_manifest_write(
    app: typer.Typer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reference: dict[str, list[tuple]],
) -> None:
    data = tmp_path / "data"
    was = with_sgf_samples(data)
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        # The manifest's temporary copy is written; making it durable finds the disk full.
        if "_dataset.json.tmp-" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, NO_SPACE)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1")
    assert_one_line(result, f"cannot write {data / '_dataset.json'}: {NO_SPACE}")
    assert files(data) == was  # the temporary copy and the files moved into the tree: gone
    monkeypatch.undo()
    assert invoke(app, "import", str(SAMPLES), "-d", str(data), "-w", "1").exit_code == 0
    assert snapshot(data) == reference


@pytest.mark.parametrize("damage", ["missing", "damaged"])
def test_a_missing_or_damaged_dataset_file_is_one_line(
    app: typer.Typer, tmp_path: Path, damage: str
) -> None:
    data = tmp_path / "data"
    with_sgf_samples(data)
    victim = sorted((data / "matches").rglob("*.parquet"))[0]
    if damage == "missing":
        victim.unlink()
    else:
        victim.write_bytes(b"not parquet at all")
    for args in (
        ("query", "SELECT count(*) FROM matches"),
        ("stats", "opening-rolls"),
        ("import", str(SAMPLES / "mat"), "-w", "1"),
    ):
        result = invoke(app, *args, "-d", str(data))
        assert_one_line(result, f"cannot read {data}")
    assert_one_line(invoke(app, "query", "SELECT 1", "-d", str(tmp_path / "none")), "no dataset")


def test_a_page_or_board_written_to_a_full_disk_leaves_no_file(
    mount: Mount, tmp_path: Path
) -> None:
    # validate --format html, show and report wrote their --out in place: a full disk left an
    # empty or cut file behind the one-line error. Now the file is whole or not there.
    from bgparse.cli import app as cli

    record = next(iter(sorted((SAMPLES / "mat").glob("*.mat"))))
    with open(mount.path / "filler", "wb") as f, pytest.raises(OSError):
        while True:
            f.write(b"\0" * 65536)
            f.flush()
    page, board = mount.path / "report.html", mount.path / "board.svg"
    lines, jsonl = mount.path / "findings.txt", mount.path / "findings.json"
    for args, out in (
        (["validate", str(record), "-f", "html", "-o", str(page)], page),
        (["validate", str(record), "-o", str(lines)], lines),
        (["validate", str(record), "-o", str(jsonl)], jsonl),
        (["show", f"{record}:1:1", "-f", "svg", "-o", str(board)], board),
    ):
        result = CliRunner().invoke(cli, args)
        assert_one_line(result, f"{out}: cannot write: {NO_SPACE}")
        assert sorted(os.listdir(mount.path)) == ["filler"]
