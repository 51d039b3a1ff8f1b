"""Build bgparse: the pure-Python package, with its hot modules also compiled by Cython.

The compiled modules are the same source files (no Cython syntax, annotations ignored), so the
package behaves the same either way; compiled, a worker imports about a fifth faster. Where
Cython, a C compiler or Python's headers are missing, or BGPARSE_PURE_PYTHON=1 is set, the
build goes on without them and bgparse runs as pure Python (`bgparse --version` says which).
Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: The modules a replay and an import spend their time in (see bench/README.md).
COMPILED = [
    "bgparse/model/events.py",
    "bgparse/model/findings.py",
    # An import's per-unit work: the worker's (read, verify, rows or parts), and the
    # importer's on the client, per unit's result (the runner and run_import are not hot).
    "bgparse/ingest/duplicates.py",
    "bgparse/ingest/importer.py",
    "bgparse/ingest/worker.py",
    "bgparse/replay/repair.py",
    "bgparse/replay/cube.py",
    "bgparse/replay/match.py",
    "bgparse/replay/plays.py",
    "bgparse/replay/results.py",
    "bgparse/replay/state.py",
    "bgparse/replay/turns.py",
    "bgparse/model/verified.py",
    "bgparse/readers/decode.py",
    "bgparse/readers/mat.py",
    "bgparse/readers/numbers.py",
    "bgparse/rules/cube.py",
    "bgparse/rules/game.py",
    "bgparse/rules/ids.py",
    "bgparse/rules/match.py",
    "bgparse/rules/notation.py",
    "bgparse/rules/plays.py",
    "bgparse/rules/position.py",
    "bgparse/rules/scoring.py",
    "bgparse/rules/steps.py",
    "bgparse/rules/verification.py",
    "bgparse/store/dataset.py",
    "bgparse/store/diskio.py",
    "bgparse/store/integrity.py",
    "bgparse/store/rows.py",
    # A .pxd beside a module gives it C declarations for the build alone: game.pxd, turns.pxd
    # and state.pxd make `Game`, `GameRows` and `GameState` extension types (fields in C);
    # _speedups.pxd lets other typed modules call its functions in C. The .py stays the
    # source, the same in plain Python.
    # Typed C versions of a few small computations, used where built (the .py originals stay).
    "bgparse/rules/_speedups.pyx",
    "bgparse/readers/_cells.pyx",
    "bgparse/store/_arrays.pyx",
    "bgparse/replay/_plain.pyx",
    "bgparse/store/_rows.pyx",
]


def _say(message: str) -> None:
    print(f"bgparse build: {message}", file=sys.stderr)


def _extensions() -> list[object]:
    # Read as bgparse.helpers.compiled.pure_requested reads it (the package is not importable here).
    if os.environ.get("BGPARSE_PURE_PYTHON", "") not in ("", "0"):
        _say("BGPARSE_PURE_PYTHON is set: pure Python")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _say("Cython is not installed: pure Python")
        return []
    try:
        exts = list(
            cythonize(
                COMPILED,
                compiler_directives={
                    "language_level": 3,
                    # Plain Python semantics: annotations are for mypy, not C types (a
                    # `tuple` annotation would refuse a NamedTuple).
                    "annotation_typing": False,
                    "binding": True,
                },
                nthreads=os.cpu_count() or 1,
                quiet=True,
            )
        )
        if sys.platform != "win32":
            for ext in exts:
                ext.extra_compile_args = ["-g0"]  # no debug symbols: a fifth of the size
        return exts
    except Exception as exc:  # a Cython failure must not stop the pure-Python build
        _say(f"Cython could not translate the modules ({exc}): pure Python")
        return []


class OptionalBuildExt(build_ext):
    """Compiles what it can; a module that does not compile stays pure Python."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            _say(f"no C compiler or Python headers ({exc}): pure Python")

    def build_extension(self, ext: object) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            _say(f"{getattr(ext, 'name', ext)} stays pure Python: {exc}")


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
