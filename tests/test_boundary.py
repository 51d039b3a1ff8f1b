"""The command line's one error boundary (issue 16): every command words a missing path, an
unreadable file, a wrong --format and a mistyped option value the same way, in one line, with
the README's exit codes; every error class of the library is one family."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bgparse
from bgparse.cli import app
from bgparse.helpers.errors import BgparseError
from tests.records import SHORT_MATCH

runner = CliRunner()

START_ID = "4HPwATDgc/ABMA"


def _one_line(text: str) -> str:
    assert text.endswith("\n") and text.count("\n") == 1, repr(text)
    return text


def _commands_reading(path: str, tmp_path: Path) -> dict[str, list[str]]:
    """Every command that reads match files, each reading `path`."""
    out = str(tmp_path / "out")
    return {
        "parse": ["parse", path],
        "validate": ["validate", path],
        "validate html": ["validate", "-f", "html", "-o", str(tmp_path / "r.html"), path],
        "convert": ["convert", path, "--to", "mat", "-o", out],
        "import": ["import", path, "-d", str(tmp_path / "data")],
    }


def test_a_missing_path_reads_the_same_in_every_command(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.mat")
    for name, args in _commands_reading(missing, tmp_path).items():
        res = runner.invoke(app, args)
        assert (res.exit_code, res.stdout) == (2, ""), name
        assert res.stderr == f"bgparse: {missing}: no such file or folder\n", name
    shown = runner.invoke(app, ["show", f"{missing}:1:1"])
    assert (shown.exit_code, shown.stderr) == (2, f"bgparse: {missing}: no such file or folder\n")
    assert not (tmp_path / "data").exists()


def test_a_missing_path_among_good_ones_stops_before_any_work(tmp_path: Path) -> None:
    good = tmp_path / "good.mat"
    good.write_text(SHORT_MATCH, encoding="utf-8")
    missing = str(tmp_path / "nope.mat")
    for name, args in _commands_reading(str(good), tmp_path).items():
        res = runner.invoke(app, [*args, missing])
        assert (res.exit_code, res.stdout) == (2, ""), name
        assert res.stderr == f"bgparse: {missing}: no such file or folder\n", name


@pytest.mark.parametrize("kind", ["binary", "fifo"])
def test_an_unreadable_file_has_one_exit_code_in_every_command(tmp_path: Path, kind: str) -> None:
    bad = tmp_path / "bad.mat"
    if kind == "fifo":
        os.mkfifo(bad)
    else:
        bad.write_bytes(b"\x00\x01\x02binary\x00" * 20)
    for name, args in _commands_reading(str(bad), tmp_path).items():
        res = runner.invoke(app, args)
        # The README: 2 for an unreadable input; `import` quarantines it and exits 1.
        assert res.exit_code == (1 if name == "import" else 2), (name, res.output)
        assert res.exception is None or isinstance(res.exception, SystemExit), name


FORMATS = [
    (["parse", "-f", "xml", "x.mat"], "--format", "'text', 'json'"),
    (["validate", "-f", "xml", "x.mat"], "--format", "'text', 'json', 'html'"),
    (["query", "-f", "xml", "SELECT 1"], "--format", "'table', 'csv', 'json'"),
    (["stats", "opening-rolls", "-f", "xml"], "--format", "'table', 'csv', 'json'"),
    (["show", START_ID, "-f", "xml"], "--format", "'text', 'svg'"),
    (["generate", "-f", "xml"], "--format", "'mat', 'sgf'"),
    (["convert", "x.mat", "--to", "xml"], "--to", "'mat', 'sgf'"),
]


@pytest.mark.parametrize(("args", "option", "choices"), FORMATS, ids=lambda v: str(v))
def test_a_wrong_format_is_one_usage_line(args: list[str], option: str, choices: str) -> None:
    res = runner.invoke(app, args)
    assert (res.exit_code, res.stdout) == (2, "")
    assert _one_line(res.stderr) == f"bgparse: {option}: 'xml' is not one of {choices}\n"


MISTYPED = [
    (["import", "x.mat", "--workers", "x"], "--workers"),
    (["import", "x.mat", "--workers", "0"], "--workers"),
    (["import", "x.mat", "--max-ratio", "abc"], "--max-ratio"),
    (["stats", "race-takes", "--bucket-pct", "nan"], "--bucket-pct"),
    (["stats", "opening-rolls", "--since", "2020-13-45"], "--since"),
    (["report", "-o", "r.html", "--length", "two"], "--length"),
    (["validate", "x.mat", "--beavers", "x"], "--beavers"),
    (["generate", "--matches", "x"], "--matches"),
]


@pytest.mark.parametrize(("args", "option"), MISTYPED, ids=lambda v: str(v))
def test_a_mistyped_option_value_is_one_usage_line(args: list[str], option: str) -> None:
    # Not typer's boxed panel nor click's usage block: the same style as bgparse's own.
    res = runner.invoke(app, args)
    assert (res.exit_code, res.stdout) == (2, "")
    assert _one_line(res.stderr).startswith(f"bgparse: {option}: "), res.stderr


def test_an_unknown_option_or_command_is_one_usage_line() -> None:
    res = runner.invoke(app, ["import", "x.mat", "--bogus"])
    assert (res.exit_code, res.stderr) == (
        2,
        "bgparse: no such option: --bogus (see 'bgparse import --help')\n",
    )
    res = runner.invoke(app, ["stats", "nope"])
    assert (res.exit_code, res.stderr) == (
        2,
        "bgparse: no such command 'nope' (see 'bgparse stats --help')\n",
    )
    res = runner.invoke(app, ["convert", "x.mat"])
    assert res.exit_code == 2
    assert _one_line(res.stderr).startswith("bgparse: missing option '--to'")


def test_no_command_prints_the_help() -> None:
    res = runner.invoke(app, [])
    assert res.exit_code == 2 and "Usage" in res.output and "validate" in res.output


def _library_modules() -> list[str]:
    names = [bgparse.__name__]
    for info in pkgutil.walk_packages(bgparse.__path__, prefix="bgparse."):
        names.append(info.name)
    return names


def test_every_error_of_the_library_is_a_bgparse_error() -> None:
    found = []
    for name in _library_modules():
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != name or cls.__name__.startswith("_"):
                continue
            if issubclass(cls, Exception):
                found.append(cls)
                assert issubclass(cls, BgparseError), f"{name}.{cls.__name__}"
    # The kinds users meet, and the errors that were separate bases before.
    names = {cls.__name__ for cls in found}
    assert {"RecordError", "DatasetError", "ClusterError", "QueryError", "OptionError"} <= names
    assert {"ShowError", "Unstorable", "XgFileError", "DiceError", "WorkerLost"} <= names
