"""Input enumeration: files, folders and zip/tar archives as a stream of byte blobs, with limits.

The one walker of bgparse: `import` and every command that reads match files (`parse`,
`validate`, `convert`, `show`) take their inputs from `iter_inputs`, after `check_paths`, so
they agree on what an input is. The policy: a path named is an input whatever it is; a folder
named is walked recursively in sorted order and every file in it is an input, whatever its
name (the format is read from the content); a symbolic link to a folder met in a walk is an
input refused unread (it may loop), a link to a file is read; a FIFO, socket or device is an
input refused unread (reading it could block forever); a file that cannot be opened is refused
with the system's reason. `import` stores or quarantines each with its reason; the other
commands report each refused one as unreadable (S016). A path that does not exist, or a folder
with no file in it, is a usage error before anything is read.

Archives and compressed files are read by `bgparse.store.archives` (never unpacked, every
read bounded: see there); the items yielded, and the limits, are `bgparse.store.items`'.

Enumeration is deterministic (folders walked in sorted order, archive members in stored order),
so an import run twice over the same inputs sees them in the same order.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from bgparse.helpers.errors import NoSuchPath, UsageError
from bgparse.helpers.paths import display_path
from bgparse.store.archives import archive_kind, archive_members, hash_stream, unsafe_member_name
from bgparse.store.items import Archive, InputFile, InputRef, Item, Limits, Rejected

__all__ = [
    "Archive",
    "InputFile",
    "InputRef",
    "Item",
    "Limits",
    "Rejected",
    "check_paths",
    "empty_folder",
    "file_kind",
    "iter_inputs",
    "scan_inputs",
    "unsafe_member_name",
]


def file_kind(mode: int) -> str:
    """What a file of this `st_mode` is, in words, for saying why it is not read."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def empty_folder(
    path: str | os.PathLike[str], exclude: Iterable[str | os.PathLike[str]] = ()
) -> bool:
    """Is `path` a folder in which an import would find nothing (folders in `exclude` left
    out, as `iter_inputs` leaves them)?"""
    top = os.fspath(path)
    if not os.path.isdir(top):
        return False
    skip = frozenset(os.path.realpath(p) for p in exclude)
    return next(iter(_walk(top, skip)), None) is None


def check_paths(
    paths: Iterable[str | os.PathLike[str]], exclude: Iterable[str | os.PathLike[str]] = ()
) -> None:
    """Refuse, before anything is read, a path that does not exist (`NoSuchPath`) or a folder
    in which `iter_inputs` would find nothing (`UsageError`). A dangling symbolic link exists:
    it is an input, refused when read."""
    named = [os.fspath(p) for p in paths]
    for path in named:
        if not os.path.lexists(path):
            raise NoSuchPath(display_path(path))
    for path in named:
        if empty_folder(path, exclude):
            raise UsageError(f"{display_path(path)}: no files in this folder")


def scan_inputs(paths: Iterable[str | os.PathLike[str]]) -> tuple[int, int]:
    """(number of files, total bytes on disk) under the paths, for a progress bar's total.
    Archives count as one file of their compressed size."""
    files = total = 0
    for top in paths:
        for path in _walk(os.fspath(top)):
            try:
                st = os.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                files += 1
                total += st.st_size
    return files, total


def iter_inputs(
    paths: Iterable[str | os.PathLike[str]],
    limits: Limits | None = None,
    *,
    skip_archive: Callable[[str], bool] | None = None,
    exclude: Iterable[str | os.PathLike[str]] = (),
    defer: bool = False,
) -> Iterator[Item]:
    """Every input under `paths` in a stable order. `skip_archive(sha256)` lets the caller skip
    an archive it has already imported without reading its members; folders in `exclude`
    (the dataset being written, when it lies inside an input folder) are not walked. With
    `defer`, a plain file (not an archive, within the size limit) is an `InputRef`, not read
    past its first 512 bytes (which tell an archive): its reader reads and hashes it.

    Items are labelled with their names' display form (`bgparse.helpers.paths`): the file system's
    name is used to read, and only the label travels on to reports and the dataset."""
    lim = limits or Limits()
    skip = frozenset(os.path.realpath(p) for p in exclude)
    # Where an input is left to another process (maybe on another machine), it is named by
    # an absolute path: that process's working folder is not ours.
    cwd = os.getcwd() if defer else None
    for top in paths:
        top_s = os.fspath(top)
        for path in _walk(top_s, skip):
            if isinstance(path, _LinkedDir):
                yield Rejected(display_path(path), "file", "symlinked folder not followed")
            else:
                for item in _read_path(path, lim, skip_archive, cwd):
                    yield _labelled(item)


def _labelled(item: Item) -> Item:
    shown = display_path(item.path)
    if isinstance(item, Archive | InputRef):
        return item if shown == item.path else replace(item, path=shown)
    archive = item.archive_path
    shown_archive = display_path(archive) if archive is not None else None
    if shown == item.path and shown_archive == archive:
        return item
    return replace(item, path=shown, archive_path=shown_archive)


class _LinkedDir(str):
    """A symlink to a folder met during a walk (reported, not followed: it may loop)."""


def _walk(top: str, skip: frozenset[str] = frozenset()) -> Iterator[str]:
    if not os.path.isdir(top):
        yield top
        return
    if os.path.realpath(top) in skip:
        return
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames.sort()
        for d in list(dirnames):
            full = os.path.join(dirpath, d)
            if os.path.realpath(full) in skip:
                dirnames.remove(d)
            elif os.path.islink(full):
                dirnames.remove(d)
                yield _LinkedDir(full)
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def _read_fd(fd: int, size: int) -> bytes:
    """Up to `size` bytes from `fd`, fewer only at the end of the file."""
    chunks = []
    while size > 0:
        chunk = os.read(fd, min(size, 1 << 30))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _read_path(
    path: str, lim: Limits, skip_archive: Callable[[str], bool] | None, cwd: str | None = None
) -> Iterator[Item]:
    try:
        st = os.stat(path)
    except OSError as exc:
        yield Rejected(path, "file", f"cannot read: {exc.strerror or exc}")
        return
    if not stat.S_ISREG(st.st_mode):
        yield Rejected(path, "file", f"{file_kind(st.st_mode)}, not a regular file: not read")
        return
    try:
        # A plain file is read with the system's calls, not a Python file object: on a
        # cluster the client opens every input for its first 512 bytes, and this halves it.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            head = _read_fd(fd, 512)
            kind = archive_kind(head)
            if kind is None:
                if st.st_size > lim.max_file_bytes:
                    yield Rejected(
                        path,
                        "file",
                        f"file is {st.st_size:,} bytes, over the {lim.max_file_bytes:,} limit",
                        size=st.st_size,
                        consumed=st.st_size,
                    )
                    return
                if cwd is not None:
                    source = path if path.startswith("/") else f"{cwd}/{path}"
                    yield InputRef(path, source, st.st_size, st.st_mtime_ns, consumed=st.st_size)
                    return
                # The size check above used stat; a file growing meanwhile is cut at the limit.
                data = head + _read_fd(fd, lim.max_file_bytes + 1 - len(head))
                if len(data) > lim.max_file_bytes:
                    yield Rejected(path, "file", "file grew past the size limit while read")
                    return
                sha = hashlib.sha256(data).hexdigest()
                yield InputFile(path, "file", data, sha, consumed=st.st_size)
                return
        finally:
            os.close(fd)
        with open(path, "rb") as fh:
            sha = hash_stream(fh)
    except OSError as exc:
        yield Rejected(path, "file", f"cannot read: {exc.strerror or exc}")
        return
    if skip_archive is not None and skip_archive(sha):
        yield Archive(path, sha, st.st_size, 0, skipped=True, consumed=st.st_size)
        return
    yield from archive_members(path, sha, st.st_size, kind, lim)
