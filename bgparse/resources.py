"""Where the shipped grammars and SQL pipelines live, in a wheel and in a source checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["grammar_path", "pipelines_dir", "read_grammar"]

_PKG = Path(__file__).resolve().parent


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


def pipelines_dir() -> Path:
    return _find("pipelines")
