"""Where the shipped grammars and SQL pipelines live, in a wheel and in a source checkout."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lark import Lark

__all__ = ["cached_lark", "grammar_cache", "grammar_path", "pipelines_dir", "read_grammar"]

_PKG = Path(__file__).resolve().parent.parent  # bgparse/, above helpers/


def _find(name: str) -> Path:
    # An installed wheel carries them inside the package; a source checkout (editable install,
    # tests) has them at the project's top level.
    for candidate in (_PKG / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bgparse is installed without its {name}/ folder")


def grammar_path(name: str) -> Path:
    return _find("grammars") / name


@cache
def read_grammar(name: str) -> str:
    return grammar_path(name).read_text(encoding="utf-8")


#: Where analysed grammars are kept between processes: this variable's folder, none where it
#: is set empty; unset, the user's cache folder (`$XDG_CACHE_HOME` or `~/.cache`) + bgparse.
CACHE_ENV = "BGPARSE_CACHE_DIR"


def grammar_cache(name: str) -> str | None:
    """The file where lark keeps its analysis of grammar `name` (its `cache` option), or None
    where there is no safe place for it. Building the parser tables costs each process about
    0.2 s (every CLI call, every import worker); loading them, about 2 ms.

    Lark's own `cache=True` file sits at a predictable name in the shared temporary folder,
    and lark unpickles what it finds there: anyone able to write that file first could run
    code as the user. So the file lives in a folder only the user can write to, or nowhere.
    Its name carries a digest of the grammar and of lark's version (lark also checks the
    digest it writes inside); an unreadable or torn file only makes lark build the tables
    again and write them anew."""
    folder = _cache_folder()
    if folder is None:
        return None
    import lark

    key = f"{read_grammar(name)}\0{lark.__version__}\0{sys.version_info[:2]}"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]
    return str(folder / f"{Path(name).stem}-{digest}.lark-cache")


def cached_lark(name: str, **options: Any) -> Lark:
    """A lark parser of grammar `name` with `options`, its tables loaded from the cache file
    (`grammar_cache`) where there is one, else built and written there. Lark writes the file
    in place (and the digest it checks covers the file's name, so it cannot be written under
    another and moved): processes starting together on a first run, a pool's workers, take
    their turn by a lock on the folder, held for the 2 ms of a load or the 0.2 s of a build.
    (Where the system has no `flock`, they go without.)"""
    from lark import Lark

    path = grammar_cache(name)
    if path is None:
        return Lark(read_grammar(name), **options)
    with _folder_lock(Path(path).parent):
        return Lark(read_grammar(name), cache=path, **options)


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    try:
        fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):  # a file system without locks: go without
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # the lock goes with it


@cache
def _cache_folder() -> Path | None:
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        if not configured:
            return None
        folder = Path(configured)
    else:
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):  # unset or relative: the XDG default
            base = os.path.join(os.path.expanduser("~"), ".cache")
            if not os.path.isabs(base):
                return None  # no home folder to keep it in
        folder = Path(base) / "bgparse"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.stat()
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    getuid = getattr(os, "getuid", None)
    if getuid is not None and (st.st_uid != getuid() or st.st_mode & 0o022):
        return None  # someone else's folder, or one others may write to
    return folder


def pipelines_dir() -> Path:
    return _find("pipelines")
