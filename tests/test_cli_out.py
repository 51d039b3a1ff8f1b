"""--out and --format, one rule for validate, show and report: the format is --out's suffix's
when --format is not given, a contradiction is refused before anything is read or written, and
what is written to --out is what stdout would have shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from tests.records import SHORT_MATCH, SHORT_MATCH_ILLEGAL

runner = CliRunner()

POSITION = "4HPwATDgc/ABMA:cAkAAAAAAAAA"


@pytest.fixture
def records(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.mat").write_text(SHORT_MATCH, encoding="utf-8")
    (d / "b.mat").write_text(SHORT_MATCH_ILLEGAL, encoding="utf-8")
    return d


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


SUMMARY = "2 files, 2 matches: 1 error, 0 warnings; 1 match with errors, 0 with warnings only"


def test_validate_out_html_without_format_writes_the_report(records: Path, tmp_path: Path) -> None:
    out = tmp_path / "y.html"
    code, stdout, stderr = _invoke("validate", str(records), "--out", str(out))
    assert (code, stdout, stderr) == (1, f"{SUMMARY}; report written to {out}\n", "")
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "P001" in page


@pytest.mark.parametrize("name", ["y.txt", "y.log", "y"])
def test_validate_out_text_gets_what_stdout_would_show(
    records: Path, tmp_path: Path, name: str
) -> None:
    out = tmp_path / name
    _, shown, _ = _invoke("validate", str(records))
    code, stdout, stderr = _invoke("validate", str(records), "--out", str(out))
    assert (code, stdout, stderr) == (1, f"{SUMMARY}; written to {out}\n", "")
    assert out.read_text(encoding="utf-8") == shown
    assert shown.endswith(SUMMARY + "\n") and ": error: P001 " in shown


@pytest.mark.parametrize(
    "args", [["--out", "y.json"], ["--out", "y.jsonl"], ["-f", "json", "-o", "y.out"]]
)
def test_validate_out_json(records: Path, tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / args[-1]
    _, shown, _ = _invoke("validate", str(records), "--format", "json")
    args[-1] = str(out)
    code, stdout, _ = _invoke("validate", str(records), *args)
    assert (code, stdout) == (1, f"{SUMMARY}; written to {out}\n")
    assert out.read_text(encoding="utf-8") == shown
    assert [json.loads(line)["ok"] for line in shown.splitlines()] == [True, False]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["validate", "{in}", "--format", "text", "--out", "y.html"],
            "--out y.html: a .html file is html, not --format text "
            "(leave --format out, or name a .txt file)",
        ),
        (
            ["validate", "{in}", "-f", "html", "-o", "y.json"],
            "--out y.json: a .json file is json, not --format html "
            "(leave --format out, or name a .html file)",
        ),
        (
            ["validate", "{in}", "--out", "y.svg"],
            "--out y.svg: a .svg file is svg; validate writes text or json or html",
        ),
        (
            ["show", POSITION, "--out", "b.html"],
            "--out b.html: a .html file is html; show writes text or svg",
        ),
        (
            ["show", POSITION, "-f", "text", "-o", "b.SVG"],
            "--out b.SVG: a .SVG file is svg, not --format text "
            "(leave --format out, or name a .txt file)",
        ),
        (
            ["report", "--out", "r.json"],
            "--out r.json: a .json file is json; report writes html",
        ),
    ],
)
def test_a_contradiction_is_refused_before_anything_is_written(
    records: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = _invoke(*(str(records) if a == "{in}" else a for a in args))
    assert (code, stdout, stderr) == (2, "", f"bgparse: {message}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def test_show_out_svg_without_format_draws_svg(tmp_path: Path) -> None:
    out = tmp_path / "board.svg"
    code, stdout, _ = _invoke("show", POSITION, "--out", str(out))
    assert (code, stdout) == (0, "")
    assert out.read_text(encoding="utf-8").startswith("<svg ")
    text = tmp_path / "board.txt"
    _, shown, _ = _invoke("show", POSITION)
    assert _invoke("show", POSITION, "--out", str(text))[0] == 0
    assert text.read_text(encoding="utf-8") == shown and not shown.startswith("<svg")


def test_validate_out_in_a_missing_folder_is_one_line(records: Path, tmp_path: Path) -> None:
    out = tmp_path / "no" / "y.txt"
    code, stdout, stderr = _invoke("validate", str(records), "--out", str(out))
    assert (code, stdout) == (2, "")
    assert stderr == f"bgparse: {out}: cannot write: No such file or directory\n"


def test_a_failed_validate_leaves_no_file(tmp_path: Path) -> None:
    out = tmp_path / "y.txt"
    code, _, stderr = _invoke("validate", str(tmp_path / "missing.mat"), "--out", str(out))
    assert code == 2 and stderr == f"bgparse: {tmp_path}/missing.mat: no such file or folder\n"
    assert not out.exists() and list(tmp_path.iterdir()) == []
