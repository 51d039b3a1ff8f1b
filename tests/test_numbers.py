"""Numbers too large to read (issue 11, defect 3): a run of digits in any numeric field of either
reader is an S017 finding at its line and column, through validate (text and JSON), parse and
import, never a traceback, an "internal error" or a value the dataset cannot store."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.questions.query import connect, run
from bgparse.readers import iter_records
from bgparse.readers.numbers import MAX_NUMBER, find_too_large, read_bounded, read_int
from bgparse.replay import replay

# Each «name:default» is a numeric field; a test writes a long number into one of them.
MAT_TEMPLATE = """\
; [Site "bgparse tests"]
; [CubeLimit "«cubelimit:64»"]
; [Player 1 Elo "«elo:1500».5"]
; [Beaver "«beavertag:2»"]

 «length:0» point match

 Game «game:1»
 Erin, «rating:1500» : «score_left:0»                 Judy : «score_right:0»
; Set Pos=-b----E-C---eE---c-e----B-/«setpos:0»
  «rowno:1») 31: «point:8»/5 6/5                 64: 24/18 13/9
  2) 11: 6/5(«count:2») 8/7(2)           Doubles => «double:2»
  3)  Beavers => «beaver:4»                Raccoons => «raccoon:8»
  4)  Takes                      51: 13/8 9/8
  5)  Doubles => 16               Drops
      Wins «wins:8» points

 Game 2
 Erin : 8                       Judy : 0
  1) 53: 8/3 6/3                 Losses «losses:1» point
      Wins 1 point
"""

SGF_TEMPLATE = """\
(;FF[4]GM[6]CA[UTF-8]AP[bgparse tests:1]MI[length:«mi_length:0»][game:«mi_game:0»]\
[ws:«mi_ws:0»][bs:«mi_bs:0»]PW[Alice]PB[Bob]WR[«wr:1500»]BR[«br:1600».5]RE[W+«re:4»]
;AE[a:y]AW[a][a]AB[x][x]CV[«cv:2»]CP[c]PL[W]
;W[31hefe]
;B[double]
;W[take]
;B[62agln])
(;FF[4]GM[6]AP[Gibbon:1]MI[length:0][game:1]PW[Alice]PB[Bob]
;W[31hefe]
;B[resign:«resign:2»]
;W[accept])
"""

_MARK = re.compile(r"«(\w+):([^»]*)»")
MAT_FIELDS = _MARK.findall(MAT_TEMPLATE)
SGF_FIELDS = _MARK.findall(SGF_TEMPLATE)


def render(template: str, field: str, number: str) -> tuple[str, int, int]:
    """The template with `number` in `field` (defaults elsewhere), and the 1-based line and
    column where that number starts."""
    out: list[str] = []
    pos = 0
    at = -1
    for m in _MARK.finditer(template):
        out.append(template[pos : m.start()])
        if m.group(1) == field:
            at = sum(len(p) for p in out)
            out.append(number)
        else:
            out.append(m.group(2))
        pos = m.end()
    out.append(template[pos:])
    text = "".join(out)
    assert at >= 0, field
    line = text.count("\n", 0, at) + 1
    return text, line, at - (text.rfind("\n", 0, at) + 1) + 1


def mutants(digits: int) -> list[tuple[str, str, int, int]]:
    """(file name, text, line, column) for every numeric field of both readers."""
    number = "9" * digits
    out = []
    # A player named after the field keeps the mutants apart (the dataset stores a match once).
    for field, _ in MAT_FIELDS:
        template = MAT_TEMPLATE.replace("Judy", f"Judy-{field}")
        text, line, column = render(template, field, number)
        out.append((f"{field}.mat", text, line, column))
    for field, _ in SGF_FIELDS:
        text, line, column = render(SGF_TEMPLATE.replace("Bob", f"Bob-{field}"), field, number)
        out.append((f"{field}.sgf", text, line, column))
    return out


def test_every_field_is_covered() -> None:
    """The templates hold every numeric field the issue names (and the readers read)."""
    assert {f for f, _ in MAT_FIELDS} >= {
        "length",
        "score_left",
        "score_right",
        "double",
        "wins",
        "rowno",
        "game",
        "setpos",
        "cubelimit",
        "beavertag",
    }
    assert {f for f, _ in SGF_FIELDS} == {
        "mi_length",
        "mi_game",
        "mi_ws",
        "mi_bs",
        "re",
        "wr",
        "br",
        "cv",
        "resign",
    }


def test_read_int_bounds() -> None:
    assert read_int("999999999") == MAX_NUMBER
    assert read_int("-000000000000000012") == -12  # leading zeros are not digits that count
    assert read_int("1000000000") is None
    assert read_int("9" * 5000) is None
    assert read_bounded("-" + "9" * 5000, "score") == (
        -MAX_NUMBER,
        "number too large: score '-99999999999999…' has 5,000 digits (at most 9); "
        "read as -999,999,999",
    )
    with pytest.raises(ValueError):
        read_int("1_000")
    m = find_too_large("13/7 0000000000001 8/71234567890")
    assert m is not None and m.group() == "71234567890"


@pytest.mark.parametrize("digits", [10, 200, 5000])
def test_library_reports_each_number_where_it_stands(digits: int) -> None:
    """read + replay: one S017 per mutant, at the number's line and column; the replay runs."""
    for name, text, line, column in mutants(digits):
        found = []
        for rec in iter_records(text.encode(), name):
            match = replay(rec)
            found += [(f.line, f.column) for f in rec.errors + match.findings if f.code == "S017"]
        assert (line, column) in found, (name, found)


def _write(folder: Path, digits: int) -> dict[str, tuple[int, int]]:
    folder.mkdir()
    where = {}
    for name, text, line, column in mutants(digits):
        (folder / name).write_text(text, encoding="utf-8")
        where[str(folder / name)] = (line, column)
    return where


def test_validate_text_and_json(tmp_path: Path) -> None:
    where = _write(tmp_path / "in", 5000)
    runner = CliRunner()
    text = runner.invoke(app, ["validate", str(tmp_path / "in")])
    assert text.exit_code == 1, text.output
    assert text.exception is None or isinstance(text.exception, SystemExit)
    assert "Traceback" not in text.output
    for path, (line, column) in where.items():
        assert re.search(
            rf"^{re.escape(path)}:{line}:{column}: error: S017 number too large: ",
            text.stdout,
            re.M,
        ), path
    assert f"\n{len(where)} files, " in text.stdout and "unreadable" not in text.stdout

    js = runner.invoke(app, ["validate", "--format", "json", str(tmp_path / "in")])
    assert js.exit_code == 1
    seen: dict[str, list[tuple[int, int]]] = {}
    for out_line in js.stdout.splitlines():
        d = json.loads(out_line)
        seen.setdefault(d["path"], []).extend(
            (f["line"], f["column"]) for f in d["findings"] if f["code"] == "S017"
        )
        assert len(out_line) < 100_000  # messages quote a long number cut short
    for path, pos in where.items():
        assert pos in seen[path], path


def test_parse_text_and_json(tmp_path: Path) -> None:
    where = _write(tmp_path / "in", 5000)
    runner = CliRunner()
    text = runner.invoke(app, ["parse", str(tmp_path / "in")])
    assert text.exit_code == 1
    assert "Traceback" not in text.output
    for path, (line, column) in where.items():
        assert re.search(rf"^{re.escape(path)}:{line}:{column}: S017 ", text.stderr, re.M), path
    js = runner.invoke(app, ["parse", "--format", "json", str(tmp_path / "in")])
    assert js.exit_code == 1
    seen: dict[str, list[tuple[int, int]]] = {}
    for out_line in js.stdout.splitlines():
        d = json.loads(out_line)
        seen.setdefault(d["path"], []).extend(
            (e["line"], e["column"]) for e in d["errors"] if e["code"] == "S017"
        )
    for path, pos in where.items():
        assert pos in seen[path], path


@pytest.mark.parametrize("digits", [10, 5000])
def test_import_stores_every_file_with_its_finding(tmp_path: Path, digits: int) -> None:
    """Every mutant is imported (none quarantined as an internal error or an unstorable value)
    and its S017 is in the dataset at its line and column."""
    where = _write(tmp_path / "in", digits)
    data = tmp_path / "data"
    result = CliRunner().invoke(
        app, ["import", str(tmp_path / "in"), "--data", str(data), "--workers", "1"]
    )
    assert "Traceback" not in result.output
    con = connect(data)
    status = run(con, "select path, status, reason from imports").to_pylist()
    assert {r["path"] for r in status} == set(where)
    assert [r for r in status if r["status"] != "imported"] == []
    rows = run(
        con, "select source_path, line, \"column\" from findings where code = 'S017'"
    ).to_pylist()
    stored = {(r["source_path"], r["line"], r["column"]) for r in rows}
    for path, (line, column) in where.items():
        assert (path, line, column) in stored, path


@pytest.mark.parametrize(
    "option,message",
    [
        (["--cube-limit", "0"], "bgparse: --cube-limit must be 1 or more, not 0\n"),
        (["--beavers", "-1"], "bgparse: --beavers must be 0 or more, not -1\n"),
    ],
)
def test_rule_options_out_of_range_are_usage_errors(option: list[str], message: str) -> None:
    """They raised ValueError from RuleSet inside the replay: a traceback, exit 0."""
    sample = Path(__file__).resolve().parents[1] / "sample_logs" / "mat" / "beavers.mat"
    result = CliRunner().invoke(app, ["validate", *option, str(sample)])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)
