"""Input enumeration: folders in order, zip and tar streams, and every hostile case refused
with a reason (nothing is ever written: member names are only labels)."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import lzma
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from bgparse.store.inputs import (
    Archive,
    InputFile,
    Item,
    Limits,
    Rejected,
    iter_inputs,
    scan_inputs,
    unsafe_member_name,
)

MiB = 1024 * 1024


def items(*paths: Path, limits: Limits | None = None) -> list[Item]:
    return list(iter_inputs(paths, limits))


def summary(found: list[Item]) -> list[tuple[str, str, str]]:
    """(class, path relative to its folder or archive, reason or data) per item."""
    out = []
    for it in found:
        name = os.path.basename(it.path.split("!")[0]) + (
            "!" + it.path.split("!", 1)[1] if "!" in it.path else ""
        )
        if isinstance(it, InputFile):
            out.append(("file", name, it.data.decode()))
        elif isinstance(it, Rejected):
            out.append(("rejected", name, it.reason))
        else:
            out.append(("archive", name, it.reason or ""))
    return out


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def add_tar_member(tf: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tf.addfile(info, io.BytesIO(data))


def test_folders_are_walked_in_sorted_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "2.mat").write_bytes(b"two")
    (tmp_path / "a" / "9.mat").write_bytes(b"nine")
    (tmp_path / "1.mat").write_bytes(b"one")
    found = items(tmp_path)
    # A folder's own files first, then its subfolders, each level sorted.
    assert [os.path.relpath(i.path, tmp_path) for i in found] == ["1.mat", "a/9.mat", "b/2.mat"]
    first = found[1]
    assert isinstance(first, InputFile)
    assert first.sha256 == hashlib.sha256(b"nine").hexdigest()
    assert first.consumed == 4
    assert scan_inputs([tmp_path]) == (3, 10)


def test_links_and_special_files_in_folders(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "x.mat").write_bytes(b"x")
    walk = tmp_path / "walk"
    walk.mkdir()
    (walk / "loop").symlink_to(walk)  # a folder link is reported, never followed
    (walk / "link.mat").symlink_to(real / "x.mat")  # a file link is read like a file
    os.mkfifo(walk / "pipe")  # reading a fifo would block: refused
    assert summary(items(walk)) == [
        ("rejected", "loop", "symlinked folder not followed"),
        ("file", "link.mat", "x"),
        ("rejected", "pipe", "a FIFO (named pipe), not a regular file: not read"),
    ]


def test_oversized_file_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "big.mat").write_bytes(b"x" * 2048)
    (tmp_path / "ok.mat").write_bytes(b"y" * 1024)
    found = items(tmp_path, limits=Limits(max_file_bytes=1024))
    assert summary(found) == [
        ("rejected", "big.mat", "file is 2,048 bytes, over the 1,024 limit"),
        ("file", "ok.mat", "y" * 1024),
    ]
    assert isinstance(found[0], Rejected) and found[0].sha256 is None


def test_zip_members_stream_with_archive_row_last(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "m.zip", {"d/": b"", "d/a.mat": b"A", "b.mat": b"B"})
    found = items(z)
    assert summary(found) == [
        ("file", "m.zip!d/a.mat", "A"),
        ("file", "m.zip!b.mat", "B"),
        ("archive", "m.zip", ""),
    ]
    member, archive = found[0], found[-1]
    assert isinstance(member, InputFile) and isinstance(archive, Archive)
    assert member.kind == "member"
    assert member.archive_sha256 == archive.sha256 == hashlib.sha256(z.read_bytes()).hexdigest()
    assert archive.members == 2
    # Every byte of the archive is credited to progress exactly once.
    assert sum(i.consumed for i in found) == z.stat().st_size


@pytest.mark.parametrize("mode,suffix", [("w", ".tar"), ("w:gz", ".tgz"), ("w:bz2", ".tar.bz2")])
def test_tar_streams(tmp_path: Path, mode: str, suffix: str) -> None:
    path = tmp_path / f"m{suffix}"
    with tarfile.open(path, mode) as tf:
        add_tar_member(tf, "x/a.mat", b"A")
        add_tar_member(tf, "b.mat", b"B")
    found = items(path)
    assert summary(found) == [
        ("file", f"m{suffix}!x/a.mat", "A"),
        ("file", f"m{suffix}!b.mat", "B"),
        ("archive", f"m{suffix}", ""),
    ]
    assert sum(i.consumed for i in found) == path.stat().st_size


def test_hostile_zip_member_names(tmp_path: Path) -> None:
    z = make_zip(
        tmp_path / "evil.zip",
        {"../escape.mat": b"1", "/etc/abs.mat": b"2", "C:\\win.mat": b"3", "ok.mat": b"4"},
    )
    assert summary(items(z)) == [
        ("rejected", "evil.zip!../escape.mat", "member path leaves the archive ('..')"),
        ("rejected", "evil.zip!/etc/abs.mat", "absolute member path"),
        ("rejected", "evil.zip!C:\\win.mat", "absolute member path"),
        ("file", "evil.zip!ok.mat", "4"),
        ("archive", "evil.zip", ""),
    ]
    assert not (tmp_path.parent / "escape.mat").exists()


def test_unsafe_member_names() -> None:
    assert unsafe_member_name("a/b/c.mat") is None
    assert unsafe_member_name("a/../../x") == "member path leaves the archive ('..')"
    assert unsafe_member_name("..\\x") == "member path leaves the archive ('..')"
    assert unsafe_member_name("/x") == "absolute member path"
    assert unsafe_member_name("d:x") == "absolute member path"
    assert unsafe_member_name("a\x00b") == "member name is empty or contains NUL"


def test_zip_bomb_member_is_stopped(tmp_path: Path) -> None:
    # 20 MiB of zeros deflate to about 20 KiB: a ratio near 1000.
    z = make_zip(tmp_path / "bomb.zip", {"zeros.mat": bytes(20 * MiB), "ok.mat": b"fine"})
    found = items(z, limits=Limits(max_file_bytes=64 * MiB))
    assert summary(found) == [
        (
            "rejected",
            "bomb.zip!zeros.mat",
            "member expands more than 200 times its compressed size (decompression bomb?)",
        ),
        ("file", "bomb.zip!ok.mat", "fine"),
        ("archive", "bomb.zip", ""),
    ]


def test_zip_whose_members_together_expand_too_far(tmp_path: Path) -> None:
    # Each member is under the floor where a ratio is judged, but together they are a bomb.
    members = {f"m{i}.mat": bytes(900 * 1024) for i in range(6)}
    z = make_zip(tmp_path / "many.zip", members)
    found = items(z)
    assert isinstance(found[-1], Archive)
    assert found[-1].reason == (
        "archive expands more than 200 times its size (decompression bomb?)"
    )
    assert sum(isinstance(i, InputFile) for i in found) < 6


def test_zip_header_lying_about_size_is_still_bounded(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "m.zip", {"big.mat": b"a" * 5000})
    found = items(z, limits=Limits(max_file_bytes=4096))
    assert summary(found)[0] == (
        "rejected",
        "m.zip!big.mat",
        "member is 5,000 bytes, over the 4,096 limit",
    )


def test_zip_with_too_many_members(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "m.zip", {f"{i}.mat": b"x" for i in range(5)})
    found = items(z, limits=Limits(max_members=3))
    assert summary(found) == [("archive", "m.zip", "archive has 5 members, over the 3 limit")]


def test_tar_links_and_special_members(tmp_path: Path) -> None:
    path = tmp_path / "links.tar"
    with tarfile.open(path, "w") as tf:
        link = tarfile.TarInfo("passwd.mat")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tf.addfile(link)
        hard = tarfile.TarInfo("hard.mat")
        hard.type = tarfile.LNKTYPE
        hard.linkname = "other.mat"
        tf.addfile(hard)
        fifo = tarfile.TarInfo("fifo")
        fifo.type = tarfile.FIFOTYPE
        tf.addfile(fifo)
        folder = tarfile.TarInfo("dir")
        folder.type = tarfile.DIRTYPE
        tf.addfile(folder)
        add_tar_member(tf, "../up.mat", b"u")
        add_tar_member(tf, "ok.mat", b"ok")
    assert summary(items(path)) == [
        ("rejected", "links.tar!passwd.mat",
         "symbolic link in archive (to '/etc/passwd'), not followed"),
        ("rejected", "links.tar!hard.mat", "hard link in archive (to 'other.mat'), not followed"),
        ("rejected", "links.tar!fifo", "special file in archive (device, fifo), not read"),
        ("rejected", "links.tar!../up.mat", "member path leaves the archive ('..')"),
        ("file", "links.tar!ok.mat", "ok"),
        ("archive", "links.tar", ""),
    ]  # fmt: skip


def test_tgz_bomb_is_stopped_before_it_expands(tmp_path: Path) -> None:
    path = tmp_path / "bomb.tgz"
    with tarfile.open(path, "w:gz") as tf:
        add_tar_member(tf, "ok.mat", b"ok")
        add_tar_member(tf, "zeros.mat", bytes(30 * MiB))
    assert path.stat().st_size < 100_000
    found = items(path, limits=Limits(max_file_bytes=64 * MiB))
    assert summary(found) == [
        ("file", "bomb.tgz!ok.mat", "ok"),
        ("archive", "bomb.tgz", "archive expands more than 200 times its size "
         "(decompression bomb?)"),
    ]  # fmt: skip


def test_tar_with_a_huge_pax_header_is_refused(tmp_path: Path) -> None:
    # tarfile would read a pax header of any declared size into memory.
    path = tmp_path / "pax.tgz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        info = tarfile.TarInfo("a.mat")
        # Random text, so the archive is not also caught by its compression ratio.
        info.pax_headers = {"comment": os.urandom(3 * MiB // 2).hex()}
        info.size = 1
        tf.addfile(info, io.BytesIO(b"a"))
    found = items(path)
    assert summary(found) == [
        ("archive", "pax.tgz", "tar header larger than any real archive has (hostile archive)")
    ]


def test_truncated_and_fake_archives(tmp_path: Path) -> None:
    good = tmp_path / "good.tgz"
    with tarfile.open(good, "w:gz") as tf:
        add_tar_member(tf, "a.mat", b"a" * 100_000)
        add_tar_member(tf, "b.mat", os.urandom(100_000))
    cut = tmp_path / "cut.tgz"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    plain_gz = tmp_path / "single.mat.gz"
    plain_gz.write_bytes(gzip.compress(b"just text, not a tar archive\n" * 30))
    broken_zip = tmp_path / "broken.zip"
    broken_zip.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    found = summary(items(cut, plain_gz, broken_zip))
    assert found[0] == ("file", "cut.tgz!a.mat", "a" * 100_000)
    assert found[1][0] == "archive" and found[1][2].startswith("cannot read archive:")
    # A compressed file that holds no tar archive is one compressed match file.
    assert found[2:4] == [
        ("file", "single.mat.gz!single.mat", "just text, not a tar archive\n" * 30),
        ("archive", "single.mat.gz", ""),
    ]
    assert found[4][0] == "archive" and found[4][2].startswith("not a readable zip archive:")
    assert len(found) == 5


@pytest.mark.parametrize("kind", ["gz", "bz2", "xz"])
def test_compressed_single_files(tmp_path: Path, kind: str) -> None:
    """`match.mat.gz` (or .bz2, .xz) is read as an archive of one member; a cut stream, a
    bomb and a file over the size limit are each refused with their reason."""
    compress = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[kind]
    text = b'; [Player 1 "A"]\n 1 point match\n' * 50
    good = tmp_path / f"m.MAT.{kind}"
    good.write_bytes(compress(text))
    cut = tmp_path / f"cut.mat.{kind}"
    cut.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    bomb = tmp_path / f"bomb.{kind}"
    bomb.write_bytes(compress(b"\0" * (8 * 1024 * 1024)))
    big = tmp_path / f"big.mat.{kind}"
    big.write_bytes(compress(os.urandom(3000)))
    found = summary(items(good, cut, bomb, big, limits=Limits(max_file_bytes=2000)))
    assert found[0:2] == [
        ("file", f"m.MAT.{kind}!m.MAT", text.decode()),
        ("archive", good.name, ""),
    ]
    assert found[2][0:2] == ("archive", cut.name) and found[2][2].startswith("cannot decompress")
    assert found[3:5] == [
        ("rejected", f"bomb.{kind}!bomb", "expands past the 2,000-byte file limit"),
        ("archive", bomb.name, ""),
    ]
    assert found[5:] == [
        ("rejected", f"big.mat.{kind}!big.mat", "expands past the 2,000-byte file limit"),
        ("archive", big.name, ""),
    ]
    ratio = summary(items(bomb, limits=Limits(ratio_floor=1000)))
    assert ratio[0] == ("rejected", f"bomb.{kind}!bomb",
                        "expands more than 200 times its size (decompression bomb?)")  # fmt: skip


def test_skip_archive_callback(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "m.zip", {"a.mat": b"A"})
    sha = hashlib.sha256(z.read_bytes()).hexdigest()
    found = list(iter_inputs([z], skip_archive=lambda s: s == sha))
    assert found == [
        Archive(str(z), sha, z.stat().st_size, 0, skipped=True, consumed=z.stat().st_size)
    ]


def test_archives_inside_archives_are_reported_not_opened(tmp_path: Path) -> None:
    inner = make_zip(tmp_path / "inner.zip", {"a.mat": b"A"})
    outer = make_zip(
        tmp_path / "outer.zip",
        {"inner.zip": inner.read_bytes(), "b.mat": b"B", "c.mat.gz": gzip.compress(b"C")},
    )
    tgz = tmp_path / "t.tgz"
    with tarfile.open(tgz, "w:gz") as tf:
        add_tar_member(tf, "d.tar", (tmp_path / "inner.zip").read_bytes())
    why = "an archive inside an archive is not opened: unpack the outer one and import that"
    assert summary(items(outer, tgz)) == [
        ("rejected", "outer.zip!inner.zip", why),
        ("file", "outer.zip!b.mat", "B"),
        ("rejected", "outer.zip!c.mat.gz", why),
        ("archive", "outer.zip", ""),
        ("rejected", "t.tgz!d.tar", why),
        ("archive", "t.tgz", ""),
    ]


@pytest.mark.parametrize("name", ["empty.tgz", "empty.tar.gz", "noname.gz"])
def test_an_empty_compressed_tar_is_an_empty_archive(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with tarfile.open(path, "w:gz"):
        pass
    assert summary(items(path)) == [("archive", name, "")]
