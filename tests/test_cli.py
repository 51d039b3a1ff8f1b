"""The command line through typer's test runner: exact output shapes and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from tests.records import SHORT_MATCH

runner = CliRunner()

LEGAL = SHORT_MATCH

ILLEGAL = LEGAL.replace("42: 24/20 24/22", "42: 24/18 13/11")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in (("legal.mat", LEGAL), ("illegal.mat", ILLEGAL)):
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        out[name] = p
    junk = tmp_path / "junk.mat"
    junk.write_bytes(b"\x00\x01\x02binary\x00" * 20)
    out["junk.mat"] = junk
    return out


def test_every_command_is_documented() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("parse", "validate"):
        assert command in result.output
        sub = runner.invoke(app, [command, "--help"])
        assert sub.exit_code == 0 and "Usage" in sub.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("bgparse ")


def test_parse_json_lines_have_the_documented_keys(files: dict[str, Path]) -> None:
    result = runner.invoke(app, ["parse", str(files["legal.mat"]), "--format", "json"])
    assert result.exit_code == 0
    [line] = result.output.splitlines()
    d = json.loads(line)
    assert {"path", "players", "length", "tags", "dialect", "games", "errors"} <= set(d)
    assert d["players"] == ["Alice", "Bob"] and d["length"] == 3
    first = d["games"][0]["actions"][0]
    assert first == {
        "line": 5,
        "column": 6,
        "type": "roll",
        "side": 0,
        "dice": [4, 2],
        "play": "24/20 24/22",
        "moves": [
            {"points": [24, 20], "hits": [False, False], "count": 1},
            {"points": [24, 22], "hits": [False, False], "count": 1},
        ],
    }


def test_parse_exit_codes(files: dict[str, Path], tmp_path: Path) -> None:
    assert runner.invoke(app, ["parse", str(files["legal.mat"])]).exit_code == 0
    # A file no record could be read from is unreadable input: 2 for parse as for validate
    # (the README's table; parse used to say 1), and the good file after it is still read.
    for command in ("parse", "validate"):
        bad = runner.invoke(app, [command, str(files["junk.mat"]), str(files["legal.mat"])])
        assert bad.exit_code == 2, command
        assert "S002" in bad.output
        assert f"{files['legal.mat']}: Alice vs Bob" in bad.stdout
    assert runner.invoke(app, ["parse", str(tmp_path / "missing.mat")]).exit_code == 2
    assert runner.invoke(app, ["parse"]).exit_code == 2
    assert runner.invoke(app, ["parse", str(files["legal.mat"]), "-f", "xml"]).exit_code == 2


def test_validate_reports_like_a_compiler(files: dict[str, Path]) -> None:
    result = runner.invoke(app, ["validate", str(files["illegal.mat"])])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    head = f"{files['illegal.mat']}:5:6: error: P001 illegal play 42: 24/18 13/11 [wrong-dice]"
    assert any(line.startswith(head) for line in lines)
    i = next(i for i, line in enumerate(lines) if line.startswith(head))
    assert lines[i + 1] == "      1) 42: 24/18 13/11             41: 6/5* 24/20"
    assert lines[i + 2] == "         ^"
    assert any(line.startswith("legal plays: ") for line in lines)
    assert (
        lines[-1]
        == "1 file, 1 match: 1 error, 0 warnings; 1 match with errors, 0 with warnings only"
    )


def test_validate_json_and_exit_codes(files: dict[str, Path]) -> None:
    ok = runner.invoke(app, ["validate", str(files["legal.mat"]), "--format", "json"])
    assert ok.exit_code == 0
    d = json.loads(ok.output)
    assert d["ok"] is True and d["winner"] is None and d["final_score"] == [0, 1]
    [game] = d["games"]
    assert {k: game[k] for k in ("number", "winner", "points", "end", "result_type")} == {
        "number": 1,
        "winner": 1,
        "points": 1,
        "end": "resign",
        "result_type": "single",
    }
    assert {"cube", "cube_owner", "crawford", "plays", "final_position_id"} <= set(game)
    bad = runner.invoke(app, ["validate", str(files["illegal.mat"]), "-f", "json"])
    assert bad.exit_code == 1
    [finding] = [f for f in json.loads(bad.output)["findings"] if f["severity"] == "error"]
    assert (finding["code"], finding["line"], finding["column"]) == ("P001", 5, 6)
    assert finding["reason"] == "wrong-dice" and finding["game"] == 1
    junk = runner.invoke(app, ["validate", str(files["junk.mat"]), "-f", "json"])
    assert junk.exit_code == 2
    assert json.loads(junk.output)["findings"][0]["code"] == "S002"


def test_validate_folder_strict_and_rule_options(files: dict[str, Path], tmp_path: Path) -> None:
    folder = runner.invoke(app, ["validate", str(tmp_path), "-q"])
    assert folder.exit_code == 2  # the binary file is unreadable
    assert "3 files, 2 matches" in folder.output
    warn = tmp_path / "warn.mat"
    warn.write_text(LEGAL.replace("6/5* 24/20", "6/5 24/20"), encoding="utf-8")
    assert runner.invoke(app, ["validate", str(warn)]).exit_code == 0
    strict = runner.invoke(app, ["validate", str(warn), "--strict"])
    assert strict.exit_code == 1 and "error: N002" in strict.output
    assert runner.invoke(app, ["validate", str(warn), "--backgammon-value", "5"]).exit_code == 2
    d = json.loads(
        runner.invoke(app, ["validate", str(warn), "-f", "json", "--no-crawford"]).output
    )
    assert d["rules"]["crawford"] is False


def test_validate_reads_archives_and_compressed_files(tmp_path: Path) -> None:
    """Archives and compressed files are opened as `import` opens them: each member is
    validated under `archive!member`, with its own source lines under a finding."""
    import gzip
    import zipfile

    folder = tmp_path / "in"
    folder.mkdir()
    with zipfile.ZipFile(folder / "club.zip", "w") as zf:
        zf.writestr("round1/legal.mat", LEGAL)
        zf.writestr("round1/illegal.mat", ILLEGAL)
    (folder / "one.mat.gz").write_bytes(gzip.compress(LEGAL.encode()))
    (folder / "cut.mat.gz").write_bytes(gzip.compress(LEGAL.encode())[:40])
    res = runner.invoke(app, ["validate", str(folder)])
    assert res.exit_code == 2  # the cut file cannot be read
    lines = res.output.splitlines()
    head = f"{folder}/club.zip!round1/illegal.mat:5:6: error: P001 illegal play 42: 24/18 13/11"
    i = next(i for i, line in enumerate(lines) if line.startswith(head))
    assert lines[i + 1] == "      1) 42: 24/18 13/11             41: 6/5* 24/20"
    assert f"{folder}/club.zip!round1/legal.mat: Alice vs Bob, 3-point match" in res.output
    assert f"{folder}/one.mat.gz!one.mat: Alice vs Bob, 3-point match" in res.output
    assert any(
        line.startswith(f"{folder}/cut.mat.gz:1:1: error: S016 cannot decompress (gz)")
        for line in lines
    )
    assert lines[-1] == (
        "4 files, 3 matches: 2 errors (1 of them an unreadable input), 0 warnings; "
        "1 match with errors, 0 with warnings only"
    )
    parsed = runner.invoke(app, ["parse", str(folder / "club.zip")])
    assert parsed.exit_code == 0
    assert [line.split(":")[0] for line in parsed.stdout.splitlines()] == [
        f"{folder}/club.zip!round1/legal.mat",
        f"{folder}/club.zip!round1/illegal.mat",
    ]
    js = runner.invoke(app, ["validate", str(folder / "cut.mat.gz"), "-f", "json"])
    assert js.exit_code == 2
    d = json.loads(js.output)
    [finding] = d["findings"]
    assert d["ok"] is False and (finding["code"], finding["line"], finding["column"]) == (
        "S016",
        1,
        1,
    )
    assert finding["message"].startswith("cannot decompress (gz)")


def test_zero_zero_placeholder_is_a_notation_warning(tmp_path: Path) -> None:
    # `0/0` for a die that could not be played (an archive habit): ignored with N003.
    text = LEGAL.replace("61: 25/24 22/16", "61: 25/24 22/16 0/0")
    p = tmp_path / "placeholder.mat"
    p.write_text(text, encoding="utf-8")
    d = json.loads(runner.invoke(app, ["validate", str(p), "-f", "json"]).output)
    assert d["ok"] is True
    assert [(f["code"], f["line"]) for f in d["findings"] if f["severity"] != "info"] == [
        ("N003", 6)
    ]
