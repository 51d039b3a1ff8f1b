"""The analysed grammars kept between processes (`bgparse.helpers.resources.grammar_cache`): the same
findings with and without the cache file, a torn or foreign file ignored and written anew, no
cache in a folder others may write to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bgparse.helpers import resources

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_logs").rglob("*"))
INPUTS = [str(p) for p in SAMPLES if p.is_file()]


#: `bgparse validate --format json` of every sample (both grammars), in a fresh process.
COMMAND = [sys.executable, "-m", "bgparse", "validate", "--format", "json", *INPUTS]


def _env(cache: str) -> dict[str, str]:
    return dict(os.environ, BGPARSE_CACHE_DIR=cache)


def _records(stdout: str, stderr: str) -> list[object]:
    assert "Traceback" not in stderr
    return [json.loads(line) for line in stdout.splitlines()]


def _validate(cache: str) -> list[object]:
    """COMMAND's records, with BGPARSE_CACHE_DIR set to `cache`."""
    done = subprocess.run(COMMAND, capture_output=True, text=True, env=_env(cache), check=False)
    assert done.returncode in (0, 1), done.stderr
    return _records(done.stdout, done.stderr)


def _cache_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.lark-cache"))


@pytest.fixture(scope="module")
def uncached() -> list[object]:
    records = _validate("")
    assert len(records) >= len(INPUTS)
    return records


def test_samples_cover_both_grammars() -> None:
    assert any(p.endswith(".sgf") for p in INPUTS)
    assert any(p.endswith(".mat") for p in INPUTS)


def test_written_then_loaded_gives_the_same_findings(
    tmp_path: Path, uncached: list[object]
) -> None:
    folder = tmp_path / "cache"
    first = _validate(str(folder))
    files = _cache_files(folder)
    assert [f.name.split("-")[0] for f in files] == ["mat", "sgf"]
    stamps = [f.stat().st_mtime_ns for f in files]
    second = _validate(str(folder))  # loads both files, writes nothing
    assert [f.stat().st_mtime_ns for f in _cache_files(folder)] == stamps
    assert first == uncached
    assert second == uncached
    if hasattr(os, "getuid"):
        assert folder.stat().st_mode & 0o777 == 0o700


def test_processes_starting_together_on_a_first_run(tmp_path: Path, uncached: list[object]) -> None:
    """Four processes with no cache file yet, started at once (a pool's workers on a first
    run): they take turns, the first builds and writes, the others load; one whole file a
    grammar is left, which the next process loads too."""
    folder = tmp_path / "cache"
    runs = [
        subprocess.Popen(
            COMMAND,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(str(folder)),
        )
        for _ in range(4)
    ]
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode in (0, 1), err
        assert _records(out, err) == uncached
    files = _cache_files(folder)
    assert [f.name.split("-")[0] for f in files] == ["mat", "sgf"]
    assert sorted(p.name for p in folder.iterdir()) == [".lock", *(f.name for f in files)]
    stamps = [f.stat().st_mtime_ns for f in files]
    assert _validate(str(folder)) == uncached
    assert [f.stat().st_mtime_ns for f in _cache_files(folder)] == stamps


@pytest.mark.parametrize("damage", ["torn", "foreign", "empty"])
def test_a_damaged_file_is_built_again(tmp_path: Path, uncached: list[object], damage: str) -> None:
    folder = tmp_path / "cache"
    _validate(str(folder))
    good = {f: f.read_bytes() for f in _cache_files(folder)}
    for f, data in good.items():
        if damage == "torn":
            f.write_bytes(data[: len(data) // 2])
        elif damage == "foreign":
            f.write_bytes(b"0" * 64 + b"\n" + data[65:])  # another grammar's digest
        else:
            f.write_bytes(b"")
    assert _validate(str(folder)) == uncached
    # Written anew, whole: the next process loads it and writes nothing.
    stamps = [f.stat().st_mtime_ns for f in good]
    assert all(f.stat().st_size > len(good[f]) // 2 for f in good)
    assert _validate(str(folder)) == uncached
    assert [f.stat().st_mtime_ns for f in good] == stamps


def test_no_cache_where_others_may_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(os, "getuid"):
        pytest.skip("ownership and modes are POSIX")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv(resources.CACHE_ENV, str(shared))
    resources._cache_folder.cache_clear()
    try:
        assert resources.grammar_cache("mat.lark") is None
        shared.chmod(0o700)
        resources._cache_folder.cache_clear()
        path = resources.grammar_cache("mat.lark")
        assert isinstance(path, str) and Path(path).parent == shared
        monkeypatch.setenv(resources.CACHE_ENV, "")
        resources._cache_folder.cache_clear()
        assert resources.grammar_cache("sgf.lark") is None
        not_a_folder = tmp_path / "file"
        not_a_folder.write_text("x")
        monkeypatch.setenv(resources.CACHE_ENV, str(not_a_folder))
        resources._cache_folder.cache_clear()
        assert resources.grammar_cache("sgf.lark") is None
    finally:
        resources._cache_folder.cache_clear()


def test_the_name_follows_the_grammar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(resources.CACHE_ENV, str(tmp_path))
    resources._cache_folder.cache_clear()
    try:
        mat, sgf = resources.grammar_cache("mat.lark"), resources.grammar_cache("sgf.lark")
        assert isinstance(mat, str) and isinstance(sgf, str) and mat != sgf
        text = resources.read_grammar("mat.lark")
        resources.read_grammar.cache_clear()
        monkeypatch.setattr(resources, "grammar_path", lambda name: tmp_path / "g.lark")
        (tmp_path / "g.lark").write_text(text + "\n")
        assert resources.grammar_cache("mat.lark") != mat  # a changed grammar: another file
    finally:
        resources.read_grammar.cache_clear()
        resources._cache_folder.cache_clear()


def test_the_folder_is_the_users_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(resources.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    resources._cache_folder.cache_clear()
    try:
        path = resources.grammar_cache("mat.lark")
        assert isinstance(path, str) and Path(path).parent == tmp_path / "xdg" / "bgparse"
        monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # not a base the spec allows
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        resources._cache_folder.cache_clear()
        path = resources.grammar_cache("mat.lark")
        assert isinstance(path, str)
        assert Path(path).parent == tmp_path / "home" / ".cache" / "bgparse"
    finally:
        resources._cache_folder.cache_clear()
