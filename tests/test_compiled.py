"""The compiled build (setup.py, Cython) and the pure-Python one must read, verify and store
exactly alike. Each runs in its own process: BGPARSE_PURE_PYTHON=1 makes bgparse load its .py
sources even where compiled modules sit beside them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bgparse.helpers.compiled import child_environ, compiled_modules

from .conftest import CORPUS, ROOT, SAMPLES
from .store.conftest import snapshot

needs_compiled = pytest.mark.skipif(
    not compiled_modules(), reason="pure-Python install: no compiled build to compare"
)


def _python(code: str, *, pure: bool) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=child_environ(pure),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _bgparse(*args: str, pure: bool) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from bgparse.cli import main; main()", *args],
        env=child_environ(pure),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


_LOADED = (
    "import json, sys, bgparse.ingest, bgparse.cli, bgparse.writers.sgf, bgparse.readers.sgf\n"
    "print(json.dumps({n: getattr(m, '__file__', None) for n, m in sys.modules.items() "
    "if n == 'bgparse' or n.startswith('bgparse.')}))"
)


def test_the_switch_loads_every_module_from_its_source() -> None:
    loaded = json.loads(_python(_LOADED, pure=True))
    assert len(loaded) > 20
    not_source = {n: f for n, f in loaded.items() if not str(f).endswith(".py")}
    assert not_source == {}


@needs_compiled
def test_without_the_switch_the_compiled_modules_are_used() -> None:
    loaded = json.loads(_python(_LOADED, pure=False))
    compiled = set(compiled_modules())
    not_compiled = {n for n in compiled if n in loaded and str(loaded[n]).endswith(".py")}
    assert not_compiled == set()
    assert {"bgparse.replay.match", "bgparse.rules.plays", "bgparse.rules.verification"} <= compiled


def test_version_names_the_build() -> None:
    for pure in (False, True):
        out = _bgparse("--version", pure=pure)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("bgparse ")
        if pure or not compiled_modules():
            assert "pure Python" in out.stdout
        else:
            assert "compiled with Cython" in out.stdout


def _compared_inputs() -> list[str]:
    """The samples, and where ../shared is beside the project a slice of each corpus folder."""
    inputs = [str(SAMPLES)]
    if CORPUS.is_dir():
        for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
            files = sorted(f for f in folder.rglob("*") if f.suffix in (".mat", ".sgf", ".txt"))
            inputs += [str(f) for f in files[:: max(1, len(files) // 40)]]
    return inputs


@needs_compiled
def test_compiled_and_pure_validate_alike() -> None:
    args = ("validate", "--format", "json", *_compared_inputs())
    compiled = _bgparse(*args, pure=False)
    pure = _bgparse(*args, pure=True)
    assert compiled.returncode == pure.returncode
    assert compiled.stderr == pure.stderr
    a = compiled.stdout.splitlines()
    b = pure.stdout.splitlines()
    assert len(a) == len(b)
    differ = [(x[:200], y[:200]) for x, y in zip(a, b, strict=True) if x != y]
    assert differ == []


@needs_compiled
def test_compiled_and_pure_import_alike(tmp_path: Path) -> None:
    inputs = _compared_inputs()
    for build, pure in (("compiled", False), ("pure", True)):
        done = _bgparse(
            "import", "--data", str(tmp_path / build), "--workers", "2", *inputs, pure=pure
        )
        assert done.returncode in (0, 1), done.stderr
    a = snapshot(tmp_path / "compiled")
    b = snapshot(tmp_path / "pure")
    assert a.keys() == b.keys()
    assert sum(len(rows) for rows in a.values()) > 1000
    for table in a:
        assert a[table] == b[table], table


@pytest.mark.parametrize("source", [".py", ".pyx", ".pxd"])
def test_a_build_older_than_its_source_or_declarations_is_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    """The suite refuses to run on a stale build: an edited module, or its .pxd (the C
    declarations the build gave its types), newer than the compiled file."""
    import os

    import bgparse.helpers.compiled as compiled

    built = tmp_path / "game.cpython-311-x86_64-linux-gnu.so"
    built.write_bytes(b"")
    monkeypatch.setattr(compiled, "_compiled_files", lambda: {"bgparse.rules.game": built})
    edited = tmp_path / f"game{source}"
    edited.write_text("")
    os.utime(built, (1_000_000, 1_000_000))
    os.utime(edited, (1_000_000, 1_000_000))
    assert compiled.stale_modules() == []
    os.utime(edited, (1_000_100, 1_000_100))
    assert compiled.stale_modules() == ["bgparse.rules.game"]


def test_a_build_with_no_source_beside_it_is_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout's build of a module since moved (bgparse/ingest.py, now a package) is left
    behind by a rebuild: the suite refuses it too, rather than count it as compiled."""
    import bgparse.helpers.compiled as compiled

    built = tmp_path / "ingest.cpython-311-x86_64-linux-gnu.so"
    built.write_bytes(b"")
    (tmp_path / "ingest").mkdir()
    (tmp_path / "ingest" / "__init__.py").write_text("")
    monkeypatch.setattr(compiled, "_compiled_files", lambda: {"bgparse.ingest": built})
    assert compiled.stale_modules() == ["bgparse.ingest"]
    # A wheel's typed module has its stub beside it, not its .pyx: that is not left behind.
    (tmp_path / "ingest.pyi").write_text("")
    assert compiled.stale_modules() == []
