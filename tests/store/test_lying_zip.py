"""A zip whose end records, zip64 end record or central directory lie about its members: every
member is stored or reported whatever they claim, and the archive gets a reason (issue 31: a
zip of 200,010 members claiming 1 imported 200,000 and never mentioned the rest). The zips
are built here, small, and then made to lie byte by byte."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from bgparse.cli import app
from bgparse.store.inputs import Archive, InputFile, Limits, Rejected, iter_inputs

N = 30
END = b"PK\x05\x06"
CENTRAL = b"PK\x01\x02"


def member(i: int) -> bytes:
    return f"member {i:03d}\n".encode()


def honest_zip(n: int = N, *, stream: bool = False) -> bytearray:
    """`n` deflated members m000.txt...; with `stream`, written as to a pipe (each member's
    sizes deferred to a data descriptor after its data)."""
    buf = io.BytesIO()
    target = _Unseekable(buf) if stream else buf
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:  # type: ignore[arg-type]
        for i in range(n):
            zf.writestr(f"m{i:03d}.txt", member(i))
    return bytearray(buf.getvalue())


class _Unseekable(io.RawIOBase):
    def __init__(self, inner: io.BytesIO) -> None:
        self.inner = inner

    def writable(self) -> bool:
        return True

    def write(self, b: object) -> int:
        return self.inner.write(b)  # type: ignore[arg-type]

    def flush(self) -> None:
        pass


def end_at(raw: bytearray) -> int:
    return raw.rfind(END)


def claim(raw: bytearray, count: int) -> bytearray:
    """The end record made to claim `count` entries (on this disk and in all)."""
    struct.pack_into("<HH", raw, end_at(raw) + 8, count, count)
    return raw


def zip64_claim(raw: bytearray, count: int) -> bytearray:
    """A zip64 end record and locator put before the end record, claiming `count` entries;
    the end record says 0xFFFF, as a zip64 archive's does."""
    at = end_at(raw)
    cd_size, cd_offset = struct.unpack_from("<II", raw, at + 12)
    record = struct.pack(
        "<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, cd_size, cd_offset
    )
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, at, 1)
    end = bytearray(raw[at:])
    struct.pack_into("<HH", end, 8, 0xFFFF, 0xFFFF)
    return bytearray(raw[:at]) + record + locator + end


def central_entries(raw: bytearray) -> list[tuple[int, int]]:
    """(offset, length) of each central directory entry."""
    at = end_at(raw)
    cd_size, cd_offset = struct.unpack_from("<II", raw, at + 12)
    out, pos = [], cd_offset
    while pos < cd_offset + cd_size:
        assert raw[pos : pos + 4] == CENTRAL
        n, m, k = struct.unpack_from("<HHH", raw, pos + 28)
        out.append((pos, 46 + n + m + k))
        pos += 46 + n + m + k
    return out


def drop_from_directory(raw: bytearray, keep: int) -> bytearray:
    """Only the first `keep` members left in the central directory (their local headers and
    data stay), and the end record made to agree with it."""
    entries = central_entries(raw)
    cut_at = entries[keep][0]
    cd_end = entries[-1][0] + entries[-1][1]
    out = bytearray(raw[:cut_at]) + raw[cd_end:]
    at = end_at(out)
    struct.pack_into("<I", out, at + 12, cut_at - entries[0][0])
    return claim(out, keep)


def write(tmp_path: Path, raw: bytearray, name: str = "lying.zip") -> Path:
    path = tmp_path / name
    path.write_bytes(bytes(raw))
    return path


def read(path: Path, limits: Limits | None = None) -> tuple[list[bytes], list[str], Archive]:
    found = list(iter_inputs([path], limits))
    archive = found[-1]
    assert isinstance(archive, Archive)
    data = [i.data for i in found if isinstance(i, InputFile)]
    rejected = [f"{i.path.split('!', 1)[1]}: {i.reason}" for i in found if isinstance(i, Rejected)]
    return data, rejected, archive


EVERY = [member(i) for i in range(N)]
NOTE = "(every entry found was read or reported)"


def test_an_honest_zip_has_no_reason(tmp_path: Path) -> None:
    for raw in (honest_zip(), honest_zip(stream=True), zip64_claim(honest_zip(), N)):
        data, rejected, archive = read(write(tmp_path, raw))
        assert (data, rejected, archive.reason, archive.members) == (EVERY, [], None, N)


@pytest.mark.parametrize("count", [0, 1, 2, N - 1, N + 1, 0xFFFF - 1])
def test_an_end_record_claiming_any_other_count_still_yields_every_member(
    tmp_path: Path, count: int
) -> None:
    data, rejected, archive = read(write(tmp_path, claim(honest_zip(), count)))
    assert data == EVERY and rejected == []
    assert archive.members == N
    assert (
        archive.reason
        == f"zip archive holds {N} entries but its end record claims {count:,} {NOTE}"
    )


@pytest.mark.parametrize("count", [0, 1, 2**16 + N, 2**32 + N])
def test_a_lying_zip64_end_record(tmp_path: Path, count: int) -> None:
    data, _, archive = read(write(tmp_path, zip64_claim(honest_zip(), count)))
    assert data == EVERY
    assert archive.reason == (
        f"zip archive holds {N} entries but its zip64 end record claims {count:,} {NOTE}"
    )


def test_members_beyond_the_limit_are_never_dropped_silently(tmp_path: Path) -> None:
    # The report's case, small: more members than the limit, the end record claiming 1. The
    # archive was read to the limit and marked whole; now it is refused, as an honest one is.
    raw = claim(honest_zip(), 1)
    data, rejected, archive = read(write(tmp_path, raw), Limits(max_members=N - 10))
    assert (data, rejected) == ([], [])
    assert archive.reason == (
        f"archive has more than {N - 10} members, over the {N - 10} limit (its end record claims 1)"
    )
    data, _, archive = read(write(tmp_path, honest_zip()), Limits(max_members=N - 10))
    assert archive.reason == f"archive has {N} members, over the {N - 10} limit"


def test_a_zip64_record_claiming_too_many_does_not_refuse_a_small_archive(tmp_path: Path) -> None:
    data, _, archive = read(
        write(tmp_path, zip64_claim(honest_zip(), 2**32 + N)), Limits(max_members=N)
    )
    assert data == EVERY
    assert archive.reason == (
        f"zip archive holds {N} entries but its zip64 end record claims {2**32 + N:,} {NOTE}"
    )


def test_members_left_out_of_the_central_directory_are_read_from_their_local_headers(
    tmp_path: Path,
) -> None:
    data, rejected, archive = read(write(tmp_path, drop_from_directory(honest_zip(), 20)))
    assert data == EVERY and rejected == []
    assert archive.members == N
    assert archive.reason == (
        f"zip archive holds {N} entries but its end record claims 20 and its central directory "
        f"lists 20 {NOTE}"
    )


def test_a_directory_size_that_hides_entries(tmp_path: Path) -> None:
    # zipfile reads the directory as the end record's size of bytes before it: here its last
    # 20 entries, the offset made to agree; the first 10 members only their local headers show.
    raw = honest_zip()
    listed = central_entries(raw)
    cd_end = listed[-1][0] + listed[-1][1]
    at = end_at(raw)
    struct.pack_into("<II", raw, at + 12, cd_end - listed[10][0], listed[10][0])
    data, rejected, archive = read(write(tmp_path, claim(raw, 20)))
    assert data == EVERY[10:] + EVERY[:10] and rejected == []
    assert archive.reason == (
        f"zip archive holds {N} entries but its end record claims 20 and its central directory "
        f"lists 20 {NOTE}"
    )


def test_a_hidden_member_of_unknown_size_is_reported_and_the_next_one_found(tmp_path: Path) -> None:
    raw = drop_from_directory(honest_zip(stream=True), 20)
    data, rejected, archive = read(write(tmp_path, raw))
    # Streamed, each hidden member's size is only in the descriptor after its data: each is
    # reported, and the next local header is searched for.
    assert data == EVERY[:20]
    why = "member not in the central directory and its size deferred to a data descriptor: not read"
    assert rejected == [f"m{i:03d}.txt: {why}" for i in range(20, N)]
    found = iter_inputs([tmp_path / "lying.zip"])
    assert [i.size for i in found if isinstance(i, Rejected)] == [None] * (N - 20)
    assert archive.reason == (
        f"zip archive holds {N} entries but its end record claims 20 and its central directory "
        f"lists 20 {NOTE}"
    )


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def test_import_stores_every_member_and_quarantines_the_lying_archive(tmp_path: Path) -> None:
    folder = tmp_path / "gen"
    assert invoke("generate", "-n", "12", "-l", "1", "-o", str(folder)).exit_code == 0
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(folder.iterdir()):
            zf.write(f, f.name)
    path = write(tmp_path, claim(bytearray(buf.getvalue()), 1), "matches.zip")
    reason = f"zip archive holds 12 entries but its end record claims 1 {NOTE}"

    result = invoke("validate", str(path))
    assert result.exit_code == 2, result.output  # an unreadable input
    lines = result.stdout.splitlines()
    assert f"{path}:1:1: error: S016 {reason}" in lines
    assert (
        lines[-1]
        == "13 files, 12 matches: 1 error (1 of them an unreadable input), 0 warnings; 0 matches with errors, 0 with warnings only"
    )

    data = tmp_path / "data"
    result = invoke("import", str(path), "-d", str(data), "-w", "1", "--no-progress")
    assert result.exit_code == 1
    assert result.stdout.startswith(
        "13 inputs: 12 imported, 0 duplicate, 1 quarantined, 0 already in the dataset; "
        "stored 12 matches"
    )
    assert result.stderr == f"quarantined: {path}: {reason}\n"
