"""Archive reading for the walker of inputs: zip and tar archives and compressed streams.

Archives are read as streams and never unpacked: a member's name is only ever a label in the
ledger, so `../` or absolute member paths cannot write anywhere (they are still refused, as a
sign of a hostile archive). Links and special files inside archives are never followed. Every
read is bounded: a file or member larger than `Limits.max_file_bytes`, a member or archive that
expands beyond `max_ratio` times its compressed size, or an archive expanding past
`max_archive_bytes` is stopped with a reason instead of filling memory or disk.

A zip is taken for what it holds, not for what it says: its end records (zip64 too) and its
central directory are checked against the local headers actually present (`_zip_layout`, a
walk of both through a memory map, 0.4 s for 50,000 members, a twelfth of reading them). A
member that only a local header shows is read from that header (reported, where its size is
in a data descriptor alone), the member limit is the count found, not the one claimed, and an
archive whose counts disagree gets a reason, so nothing it holds is silently left out.

`archive_members` is the one entry: `bgparse.store.inputs` calls it for a file whose first
bytes (`archive_kind`) say it is an archive, after hashing it (`hash_stream`).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import mmap
import os
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, cast

from bgparse.store.items import Archive, InputFile, Item, Limits, MiB, Rejected

__all__ = ["archive_kind", "archive_members", "hash_stream", "unsafe_member_name"]

_CHUNK = MiB
#: How far past the end of the last member a tar header (with its pax or long-name records)
#: may reach: real ones take a few hundred bytes, a hostile one could claim gigabytes.
_TAR_HEADER_BUDGET = MiB


class _LimitExceeded(Exception):
    """A read went past a limit; the message says which."""


def unsafe_member_name(name: str) -> str | None:
    """Why an archive member's name is hostile, or None. Names are never used as paths, but an
    archive carrying such names was built to escape an unpacker and is refused."""
    if not name or "\x00" in name:
        return "member name is empty or contains NUL"
    norm = name.replace("\\", "/")
    if norm.startswith("/") or re.match(r"[A-Za-z]:", norm):
        return "absolute member path"
    if ".." in norm.split("/"):
        return "member path leaves the archive ('..')"
    return None


def archive_kind(head: bytes) -> str | None:
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return "zip"
    if head.startswith(b"\x1f\x8b"):
        return "gz"
    if head.startswith(b"BZh"):
        return "bz2"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if head[257:262] == b"ustar":
        return "tar"
    return None


def archive_members(path: str, sha: str, size: int, kind: str, lim: Limits) -> Iterator[Item]:
    """The members of the archive at `path` (its SHA-256 `sha`, `size` bytes on disk, of the
    `kind` that `archive_kind` named), then its `Archive`."""
    if kind == "zip":
        reader = _zip_members
    elif kind == "tar" or _holds_tar(path, kind):
        reader = _tar_members
    else:
        reader = _compressed_file
    yield from reader(path, sha, size, kind, lim)


_READ_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError)


def _holds_tar(path: str, kind: str) -> bool:
    """Does a gzip, bzip2 or xz stream hold a tar archive (rather than one compressed file)?
    Yes when it starts with a tar header, is nothing but a short run of zero blocks (an empty
    tar archive), or its name says so."""
    if re.search(r"\.(?:tar\.[a-z0-9]+|tgz|tbz2?|txz)$", path, re.IGNORECASE):
        return True
    head = b""
    try:
        with open(path, "rb") as raw:
            stream = _decompressed(kind, _Counter(raw))
            while len(head) < 512 and (chunk := stream.read(512 - len(head))):
                head += chunk
            if head[257:262] == b"ustar":
                return True
            if len(head) < 512 or any(head):
                return False
            rest = stream.read(_EMPTY_TAR_MAX)  # an empty archive is 2 to 20 zero blocks
            return len(rest) < _EMPTY_TAR_MAX and not any(rest) and not stream.read(1)
    except _READ_ERRORS:
        return False  # a cut or corrupt stream: its reader says what is wrong


_EMPTY_TAR_MAX = 64 * 1024


#: Suffixes a compressed single file's name loses to name what it holds.
_COMPRESSED_SUFFIX = re.compile(r"\.(?:gz|gzip|z|bz2|bzip2|xz|lzma)$", re.IGNORECASE)


def _compressed_file(path: str, sha: str, size: int, kind: str, lim: Limits) -> Iterator[Item]:
    """A single compressed file (`match.mat.gz`): read as an archive of one member, named by
    the file's name without the compression suffix; bounded like an archive member."""
    ratio_cap = lim.ratio_cap(size)
    hard = min(lim.max_file_bytes, ratio_cap)
    name = _COMPRESSED_SUFFIX.sub("", os.path.basename(path)) or "content"
    try:
        with open(path, "rb") as raw:
            data = _decompressed(kind, _Counter(raw)).read(hard + 1)
    except _READ_ERRORS as exc:
        yield Archive(path, sha, size, 0, f"cannot decompress ({kind}): {exc}", consumed=size)
        return
    if len(data) > hard:
        if hard < lim.max_file_bytes:
            why = f"expands more than {lim.max_ratio:g} times its size (decompression bomb?)"
        else:
            why = f"expands past the {lim.max_file_bytes:,}-byte file limit"
        yield Rejected(f"{path}!{name}", "member", why, None, None, path, sha, size)
        yield Archive(path, sha, size, 1, None)
        return
    yield _member(f"{path}!{name}", data, path, sha, size)
    yield Archive(path, sha, size, 1, None)


def _member(member: str, data: bytes, path: str, sha: str, consumed: int) -> Item:
    """An archive member read whole; one that is itself an archive is reported, not opened
    (each level would multiply what a bomb can expand to)."""
    digest = hashlib.sha256(data).hexdigest()
    if archive_kind(data[:512]) is not None:
        why = "an archive inside an archive is not opened: unpack the outer one and import that"
        return Rejected(member, "member", why, len(data), digest, path, sha, consumed)
    return InputFile(member, "member", data, digest, path, sha, consumed)


def hash_stream(fh: IO[bytes]) -> str:
    h = hashlib.sha256()
    while chunk := fh.read(_CHUNK):
        h.update(chunk)
    return h.hexdigest()


class _Counter:
    """Counts bytes read from the compressed file, to credit progress as an archive streams."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.pos += len(data)
        return data

    def readable(self) -> bool:
        return True


class _Bounded:
    """The decompressed tar stream, refusing to go past `limit` (moved forward member by
    member) or past the archive's overall limits."""

    def __init__(self, inner: IO[bytes], hard_limit: int, message: str) -> None:
        self.inner = inner
        self.pos = 0
        self.limit = hard_limit
        self.hard_limit = hard_limit
        self.message = message

    def read(self, n: int = -1) -> bytes:
        room = min(self.limit, self.hard_limit) - self.pos
        # tarfile reads in fixed-size blocks; an unbounded read(-1) is served a chunk at a time.
        want = min(room + 1, n if n >= 0 else _CHUNK)
        data = self.inner.read(max(want, 0))
        self.pos += len(data)
        if self.pos > min(self.limit, self.hard_limit):
            if self.pos > self.hard_limit:
                raise _LimitExceeded(self.message)
            raise _LimitExceeded("tar header larger than any real archive has (hostile archive)")
        return data

    def readable(self) -> bool:
        return True


def _decompressed(kind: str, counter: _Counter) -> IO[bytes]:
    raw = cast(IO[bytes], counter)  # duck-typed: the decompressors only call read()
    if kind == "gz":
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
    if kind == "bz2":
        return bz2.BZ2File(raw, mode="rb")
    if kind == "xz":
        return lzma.LZMAFile(raw, mode="rb")
    return raw


def _tar_members(path: str, sha: str, size: int, kind: str, lim: Limits) -> Iterator[Item]:
    members = 0
    credited = 0
    reason: str | None = None
    # Whole-archive expansion: the hard limit is the smaller of the absolute cap and the ratio
    # cap, but never below the floor (small archives of text legitimately expand 5-20x).
    ratio_cap = lim.ratio_cap(size)
    hard = min(lim.max_archive_bytes, ratio_cap)
    if hard < lim.max_archive_bytes:
        why = f"archive expands more than {lim.max_ratio:g} times its size (decompression bomb?)"
    else:
        why = f"archive expands past the {lim.max_archive_bytes:,}-byte limit"
    with open(path, "rb") as raw:
        counter = _Counter(raw)
        stream = _Bounded(_decompressed(kind, counter), hard, why)
        stream.limit = _TAR_HEADER_BUDGET

        def credit() -> int:
            nonlocal credited
            delta = counter.pos - credited
            credited = counter.pos
            return delta

        try:
            with tarfile.open(fileobj=stream, mode="r|") as tf:  # type: ignore[call-overload]
                while (ti := tf.next()) is not None:
                    tf.members = []  # stream mode would otherwise keep every header in memory
                    members += 1
                    if members > lim.max_members:
                        reason = f"archive has more than {lim.max_members:,} members"
                        break
                    end = ti.offset_data + ti.size
                    if end > hard:
                        reason = why
                        break
                    # Reading may go on through this member's data and the next header.
                    stream.limit = end + 512 + _TAR_HEADER_BUDGET
                    if ti.isdir():
                        continue
                    member = f"{path}!{ti.name}"
                    bad = _tar_refusal(ti, lim)
                    if bad is not None:
                        yield Rejected(member, "member", bad, ti.size, None, path, sha, credit())
                        continue
                    fobj = tf.extractfile(ti)
                    data = fobj.read() if fobj is not None else b""
                    yield _member(member, data, path, sha, credit())
        except _LimitExceeded as exc:
            reason = str(exc)
        except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
            reason = f"cannot read archive: {exc}" if members else f"not a tar archive: {exc}"
    yield Archive(path, sha, size, members, reason, consumed=max(size - credited, 0))


def _tar_refusal(ti: tarfile.TarInfo, lim: Limits) -> str | None:
    bad = unsafe_member_name(ti.name)
    if bad is not None:
        return bad
    if ti.issym():
        return f"symbolic link in archive (to {ti.linkname!r}), not followed"
    if ti.islnk():
        return f"hard link in archive (to {ti.linkname!r}), not followed"
    if not ti.isreg():
        return "special file in archive (device, fifo), not read"
    if ti.size > lim.max_file_bytes:
        return f"member is {ti.size:,} bytes, over the {lim.max_file_bytes:,} limit"
    return None


_LOCAL = b"PK\x03\x04"
_CENTRAL = b"PK\x01\x02"
_END = b"PK\x05\x06"
_END64 = b"PK\x06\x06"
_LOCATOR64 = b"PK\x06\x07"
_DESCRIPTOR = b"PK\x07\x08"
_FFFF = 0xFFFF
_FFFFFFFF = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class _LocalHeader:
    """A member's local header as found walking the archive: where it starts, and what it
    says (sizes from its data descriptor or the central directory where it defers them; -1
    where neither gives them)."""

    offset: int
    name: bytes
    flags: int
    method: int
    crc: int
    compress_size: int
    file_size: int


@dataclass(slots=True)
class _ZipLayout:
    """What a zip says of itself and what it holds. `claims`: the entry counts its end
    records declare ((which record, count), the zip64 one where there is one); `central`:
    the entries its central directory holds (walked entry by entry, as far as
    `cap`); `listed`: their local headers' offsets; `local`: the members' local headers
    found walking the archive from its start (following each member's size, and searching
    on where a size is unknown or the chain breaks before the central directory)."""

    claims: list[tuple[str, int]]
    central: int = 0
    listed: dict[int, int] = field(default_factory=dict)  # offset -> compressed size
    local: list[_LocalHeader] = field(default_factory=list)
    capped: bool = False

    @property
    def present(self) -> int:
        """The entries the archive holds: those listed, and those only a local header shows."""
        return self.central + sum(1 for h in self.local if h.offset not in self.listed)


def _zip_layout(fh: IO[bytes], size: int, cap: int) -> _ZipLayout | None:
    """The zip's layout, read as zipfile reads its end records (the last end record in the
    file's last 64 KiB, the zip64 one just before its locator), then walked: its central
    directory entry by entry and its local headers member by member, at most `cap` of each
    (through a memory map). None when there is no end record (zipfile then says why the
    file is no zip) or the file cannot be mapped."""
    try:
        buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None  # a file system that maps no file: zipfile's account only
    with buf:
        return _layout_of(buf, size, cap)


def _layout_of(buf: mmap.mmap, size: int, cap: int) -> _ZipLayout | None:
    at = buf.rfind(_END, max(size - 22 - 65535, 0))
    if at < 0 or at + 22 > size:
        return None
    n_disk, n_total, cd_size, cd_offset = struct.unpack_from("<HHII", buf, at + 8)
    dir_at = at - cd_size  # where the directory is, the end record just after it
    claims = [("end record", n) for n in dict.fromkeys((n_total, n_disk))]
    if at >= 76 and buf[at - 20 : at - 16] == _LOCATOR64 and buf[at - 76 : at - 72] == _END64:
        n_disk64, n_total64, cd_size, cd_offset = struct.unpack_from("<QQQQ", buf, at - 76 + 24)
        dir_at = at - 76 - cd_size
        claims = [(f, n) for f, n in claims if n != _FFFF]
        claims += [("zip64 end record", n) for n in dict.fromkeys((n_total64, n_disk64))]
    dir_at = max(dir_at, 0)
    concat = max(dir_at - cd_offset, 0)  # bytes before the archive (a self-extractor's)
    layout = _ZipLayout(claims)
    _walk_central(buf, layout, dir_at, concat, cap)
    _walk_local(buf, layout, concat, dir_at, cap)
    return layout


def _zip64_sizes(extra: bytes, fields: list[int]) -> list[int]:
    """`fields` (in the order the zip64 extra field holds them) with each one that is
    0xFFFFFFFF replaced by its 8-byte value from the extra field."""
    at = 0
    while at + 4 <= len(extra):
        tag, n = struct.unpack_from("<HH", extra, at)
        if tag == 1:
            body, out, pos = extra[at + 4 : at + 4 + n], [], 0
            for value in fields:
                if value == _FFFFFFFF and pos + 8 <= len(body):
                    value = struct.unpack_from("<Q", body, pos)[0]
                    pos += 8
                out.append(value)
            return out
        at += 4 + n
    return fields


def _walk_central(buf: mmap.mmap, layout: _ZipLayout, at: int, concat: int, cap: int) -> None:
    size = len(buf)
    while at + 46 <= size and buf[at : at + 4] == _CENTRAL:
        if layout.central >= cap:
            layout.capped = True
            return
        csize, usize = struct.unpack_from("<II", buf, at + 20)
        n, m, k, _, _, _, offset = struct.unpack_from("<HHHHHII", buf, at + 28)
        if _FFFFFFFF in (csize, usize, offset):
            extra = buf[at + 46 + n : at + 46 + n + m]
            usize, csize, offset = _zip64_sizes(extra, [usize, csize, offset])
        layout.central += 1
        layout.listed[offset + concat] = csize
        at += 46 + n + m + k


def _walk_local(buf: mmap.mmap, layout: _ZipLayout, start: int, stop: int, cap: int) -> None:
    """The local headers from `start` on, each member's data skipped by its size; where a
    size is unknown (a data descriptor the central directory does not make good) or what
    follows a member is no local header, the next local header before `stop` (the central
    directory) is searched for."""
    pos = start
    while pos + 30 <= stop and len(layout.local) < cap:
        if buf[pos : pos + 4] != _LOCAL:
            pos = buf.find(_LOCAL, pos + 1, stop)
            if pos < 0:
                return
            continue
        flags, method, _, _, crc, csize, usize, n, m = struct.unpack_from(
            "<HHHHIIIHH", buf, pos + 6
        )
        name = buf[pos + 30 : pos + 30 + n]
        if _FFFFFFFF in (csize, usize):
            usize, csize = _zip64_sizes(buf[pos + 30 + n : pos + 30 + n + m], [usize, csize])
        data_at = pos + 30 + n + m
        known = layout.listed.get(pos)
        if flags & 0x08 and known is not None:
            csize = known
        if flags & 0x08 and known is None and csize == 0:
            # Its size is only in the descriptor after its data: the next header is searched.
            layout.local.append(_LocalHeader(pos, name, flags, method, crc, -1, -1))
            pos = buf.find(_LOCAL, data_at, stop)
            if pos < 0:
                return
            continue
        end = data_at + csize
        if flags & 0x08:
            if buf[end : end + 4] == _DESCRIPTOR:
                end += 4
            wide = usize >= _FFFFFFFF or csize >= _FFFFFFFF
            desc = buf[end : end + (20 if wide else 12)]
            if len(desc) == (20 if wide else 12):
                crc = crc or struct.unpack_from("<I", desc)[0]
                usize = (
                    usize or struct.unpack_from("<Q" if wide else "<I", desc, 12 if wide else 8)[0]
                )
            end += len(desc)
        layout.local.append(_LocalHeader(pos, name, flags, method, crc, csize, usize))
        pos = end


def _zip_info(header: _LocalHeader) -> zipfile.ZipInfo:
    """A member only its local header shows, as zipfile opens one."""
    utf8 = bool(header.flags & 0x800)
    try:
        name = header.name.decode("utf-8" if utf8 else "cp437")
        flags = header.flags
    except UnicodeDecodeError:
        name, flags = header.name.decode("cp437"), header.flags & ~0x800
    info = zipfile.ZipInfo(name)
    info.flag_bits = flags
    info.compress_type = header.method
    info.compress_size = header.compress_size
    info.file_size = header.file_size
    info.CRC = header.crc
    info.header_offset = header.offset
    return info


def _open_zip(fh: IO[bytes]) -> tuple[zipfile.ZipFile, frozenset[str]]:
    """The zip archive, and the names (as zipfile gives them) that must be read back as bytes:
    none, unless a name marked UTF-8 is not UTF-8, which zipfile refuses for the whole archive
    (one bad name would lose every member). Then the archive is read with its UTF-8 marks
    cleared: zipfile takes every name byte for byte (cp437 maps each byte to one character)."""
    try:
        return zipfile.ZipFile(fh), frozenset()
    except UnicodeDecodeError:
        fh.seek(0)
        unmarked = _Utf8Unmarked(fh)
        zf = zipfile.ZipFile(cast(IO[bytes], unmarked))
        return zf, frozenset(unmarked.flagged)


#: Bit 11 of a zip header's flags (in the flags' second byte): the name is UTF-8.
_UTF8_MARK = 0x08


class _Utf8Unmarked:
    """A zip file as zipfile reads it, with the UTF-8 mark cleared in the central directory
    (read in one piece) and in each member's local header (read as 30 bytes). `flagged` keeps
    the names that carried it. A read is changed only when it is exactly one of these
    structures, so no member's data is ever touched."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.flagged: set[str] = set()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.fh.seek(offset, whence)

    def tell(self) -> int:
        return self.fh.tell()

    def seekable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        if len(data) == 30 and data.startswith(b"PK\x03\x04"):
            patched = bytearray(data)
            patched[7] &= ~_UTF8_MARK & 0xFF
            return bytes(patched)
        if data.startswith(b"PK\x01\x02"):
            return self._central(data)
        return data

    def _central(self, data: bytes) -> bytes:
        patched = bytearray(data)
        names = []
        at = 0
        while at + 46 <= len(data) and data[at : at + 4] == b"PK\x01\x02":
            n, m, k = struct.unpack_from("<HHH", data, at + 28)
            if data[at + 9] & _UTF8_MARK:
                names.append(data[at + 46 : at + 46 + n].decode("cp437"))
                patched[at + 9] &= ~_UTF8_MARK & 0xFF
            at += 46 + n + m + k
        if at != len(data):
            return data  # not the central directory read whole
        self.flagged.update(names)
        return bytes(patched)


def _zip_mismatch(layout: _ZipLayout, present: int) -> str | None:
    """Why an archive's own account of its entries is not what it holds, or None."""
    lies = [f"its {record} claims {n:,}" for record, n in layout.claims if n != present]
    if layout.central != present:
        lies.append(f"its central directory lists {layout.central:,}")
    if not lies:
        return None
    entries = "entry" if present == 1 else "entries"
    return (
        f"zip archive holds {present:,} {entries} but {' and '.join(lies)} "
        "(every entry found was read or reported)"
    )


def _zip_members(path: str, sha: str, size: int, kind: str, lim: Limits) -> Iterator[Item]:
    """An archive's members, whatever its end records and central directory claim: zipfile
    reads the members its central directory lists, and each member only a local header
    shows (left out of the directory, or past the directory's claimed size) is read from
    that header; the archive gets a reason when the counts disagree."""
    members = 0
    credited = 0
    total_out = 0
    reason: str | None = None
    ratio_cap = lim.ratio_cap(size)
    flagged: frozenset[str] = frozenset()
    zf: zipfile.ZipFile | None = None
    with open(path, "rb") as fh:
        try:
            layout = _zip_layout(fh, size, lim.max_members + 1)
            if layout is not None and (layout.capped or layout.present > lim.max_members):
                # The walk stops past the limit: a claim beyond it is as far as it saw.
                claimed = max((n for _, n in layout.claims), default=0)
                if layout.capped:
                    lying = claimed <= lim.max_members
                    count = f"more than {lim.max_members:,}" if lying else f"{claimed:,}"
                else:
                    lying, count = claimed != layout.present, f"{layout.present:,}"
                reason = f"archive has {count} members, over the {lim.max_members:,} limit"
                if lying:
                    reason += f" (its end record claims {claimed:,})"
            else:
                fh.seek(0)
                zf, flagged = _open_zip(fh)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            reason = f"not a readable zip archive: {exc}"
            zf = None
        infos = zf.infolist() if zf is not None else []
        if len(infos) > lim.max_members:  # where the layout could not be read
            reason = f"archive has {len(infos):,} members, over the {lim.max_members:,} limit"
            infos = []
        elif zf is not None and layout is not None:
            seen = {info.header_offset for info in infos}
            hidden = [h for h in layout.local if h.offset not in seen]
            present = len(seen | set(layout.listed) | {h.offset for h in layout.local})
            reason = _zip_mismatch(layout, present)
            infos += [_zip_info(h) for h in hidden]
            unknown = {h.offset for h in hidden if h.compress_size < 0}
        else:
            unknown = set()
        for info in infos:
            if info.is_dir():
                continue
            members += 1
            name = info.filename
            if name in flagged:
                # Marked UTF-8 and read byte for byte: its bytes, named as a file's are.
                name = name.encode("cp437").decode("utf-8", "surrogateescape")
            member = f"{path}!{name}"
            share = min(max(info.compress_size, 0), max(size - credited, 0))
            credited += share
            mode = info.external_attr >> 16
            bad = unsafe_member_name(info.filename)
            if bad is None and info.create_system == 3 and stat.S_ISLNK(mode):
                bad = "symbolic link in archive, not followed"
            elif bad is None and info.flag_bits & 0x1:
                bad = "encrypted member, not read"
            elif bad is None and info.file_size > lim.max_file_bytes:
                bad = f"member is {info.file_size:,} bytes, over the {lim.max_file_bytes:,} limit"
            elif bad is None and info.header_offset in unknown:
                bad = (
                    "member not in the central directory and its size deferred to a data "
                    "descriptor: not read"
                )
            if bad is not None:
                known = info.file_size if info.file_size >= 0 else None  # -1: in no header
                yield Rejected(member, "member", bad, known, None, path, sha, share)
                continue
            # The header's sizes may lie; the read itself is bounded by every limit at once.
            member_cap = lim.ratio_cap(info.compress_size)
            room = min(lim.max_file_bytes, member_cap, lim.max_archive_bytes - total_out)
            try:
                with zf.open(info) as fobj:  # type: ignore[union-attr]
                    data = fobj.read(room + 1)
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as e:
                why_not = f"cannot read member: {e}"
                yield Rejected(member, "member", why_not, info.file_size, None, path, sha, share)
                continue
            if len(data) > room:
                if room == lim.max_archive_bytes - total_out:
                    reason = f"archive expands past the {lim.max_archive_bytes:,}-byte limit"
                    break
                if room == member_cap:
                    msg = (
                        f"member expands more than {lim.max_ratio:g} times its compressed "
                        "size (decompression bomb?)"
                    )
                else:
                    msg = f"member is over the {lim.max_file_bytes:,}-byte limit"
                yield Rejected(member, "member", msg, None, None, path, sha, share)
                continue
            total_out += len(data)
            if total_out > ratio_cap:
                reason = (
                    f"archive expands more than {lim.max_ratio:g} times its size "
                    "(decompression bomb?)"
                )
                break
            yield _member(member, data, path, sha, share)
    yield Archive(path, sha, size, members, reason, consumed=max(size - credited, 0))
