"""Which of bgparse's modules run compiled, and the switch that ignores them.

setup.py compiles the modules a replay and an import spend their time in with Cython, from the
same .py files, where it can; a compiled module sits beside its source and Python loads it
first. With BGPARSE_PURE_PYTHON=1 in the environment (of the build, or of a run) bgparse loads
every module from its source instead: for tracebacks with source lines, for cProfile (which
cannot see inside compiled functions), or to compare the two builds.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = [
    "PURE_ENV",
    "build_info",
    "child_environ",
    "compiled_modules",
    "pure_requested",
    "stale_modules",
    "use_sources",
]

PURE_ENV = "BGPARSE_PURE_PYTHON"
_PACKAGE = Path(__file__).resolve().parent.parent  # bgparse/, above helpers/


def pure_requested() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def child_environ(pure: bool) -> dict[str, str]:
    """This process's environment for a child that runs the pure-Python build (`pure`) or
    the default one, whichever this process runs."""
    env = dict(os.environ)
    env.pop(PURE_ENV, None)
    if pure:
        env[PURE_ENV] = "1"
    return env


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Finds bgparse's submodules as .py files, passing over compiled ones beside them."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("bgparse.") or path is None:
            return None
        leaf = fullname.rpartition(".")[2]
        for entry in path:
            folder = os.path.join(entry, leaf)
            init = os.path.join(folder, "__init__.py")
            if os.path.isfile(init):
                return importlib.util.spec_from_file_location(
                    fullname, init, submodule_search_locations=[folder]
                )
            source = os.path.join(entry, leaf + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        # A module with no source (the typed C speed-ups) is not there in pure Python: its
        # users fall back to their Python originals.
        raise ModuleNotFoundError(f"{fullname} has no Python source ({PURE_ENV})", name=fullname)


def use_sources() -> None:
    """Load bgparse's modules from their .py files from now on (idempotent)."""
    if not any(isinstance(f, _SourcesFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourcesFirst())


def _compiled_files() -> dict[str, Path]:
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found = {}
    for path in sorted(_PACKAGE.rglob("*")):
        if path.name.endswith(suffixes):
            relative = path.relative_to(_PACKAGE.parent)
            stem = path.name.split(".", 1)[0]
            found[".".join((*relative.parts[:-1], stem))] = path
    return found


def compiled_modules() -> list[str]:
    """The bgparse modules that have a compiled build installed beside their source."""
    return list(_compiled_files())


def stale_modules() -> list[str]:
    """Compiled modules older than their source: in a checkout built in place (`pip install
    -e .`), an edited .py whose old compiled build Python would still load, or an edited .pxd
    (the C declarations of its types). (A wheel's files all get the time of installing, so
    this is for checkouts, as the tests use it.) A compiled module with no source beside it
    at all (nor the .pyi stub a wheel ships for a .pyx) is stale too: a checkout's build of a
    module since moved (`bgparse/ingest.py` became the `bgparse/ingest/` package), which a
    rebuild does not remove."""
    stale = []
    for name, path in _compiled_files().items():
        stem = path.name.split(".", 1)[0]
        sources = [path.with_name(stem + ext) for ext in (".py", ".pyx", ".pxd")]
        present = [source for source in sources if source.is_file()]
        gone = not present and not path.with_name(stem + ".pyi").is_file()
        if gone or any(source.stat().st_mtime > path.stat().st_mtime for source in present):
            stale.append(name)
    return stale


def build_info() -> str:
    """One line for `bgparse --version` and the benches: how bgparse runs here."""
    compiled = compiled_modules()
    if not compiled:
        return "pure Python"
    if pure_requested():
        return f"pure Python: {PURE_ENV} is set, {len(compiled)} compiled modules ignored"
    return f"{len(compiled)} modules compiled with Cython"
