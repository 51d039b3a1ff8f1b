"""One vocabulary for a validation run's counts (docs/FINDINGS.md): "N errors" and "N warnings"
count findings, an unreadable input being one error finding (its S0xx code); "matches with
errors" and "with warnings only" count matches. The text summary, the summary line of --out
and of the HTML report, the report's cards and severity filter, and each JSON line say the
same numbers in the same words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from tests.records import SHORT_MATCH, SHORT_MATCH_ILLEGAL

runner = CliRunner()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Four inputs: a clean match, one with an illegal play (one error), one decoded as
    Windows-1252 (one warning) and a binary file (unreadable: one S002 error)."""
    d = tmp_path / "in"
    d.mkdir()
    (d / "a_clean.mat").write_text(SHORT_MATCH, encoding="utf-8")
    # Other players: the same dice and names would be one match to `import`.
    illegal = SHORT_MATCH_ILLEGAL.replace("Bob", "Carl")
    (d / "b_illegal.mat").write_text(illegal, encoding="utf-8")
    cp1252 = SHORT_MATCH.replace("Alice", "Zoé").replace("Bob", "Dan").encode("cp1252")
    (d / "c_cp1252.mat").write_bytes(cp1252)
    (d / "d_junk.mat").write_bytes(b"\x00\x01binary\x00" * 20)
    return d


LINE = (
    "4 files, 3 matches: 2 errors (1 of them an unreadable input), 1 warning; "
    "1 match with errors, 1 with warnings only"
)


def test_text_summary(folder: Path) -> None:
    result = runner.invoke(app, ["validate", str(folder)])
    assert result.exit_code == 2  # an unreadable input
    assert result.stdout.splitlines()[-1] == LINE


def test_strict_counts_the_warning_as_an_error(folder: Path) -> None:
    result = runner.invoke(app, ["validate", "--strict", str(folder)])
    assert result.stdout.splitlines()[-1] == (
        "4 files, 3 matches: 3 errors (1 of them an unreadable input), 0 warnings; "
        "2 matches with errors, 0 with warnings only"
    )


def test_several_unreadable_inputs_are_said_in_the_plural(folder: Path) -> None:
    (folder / "e_empty.mat").write_bytes(b"")
    (folder / "b_illegal.mat").unlink()
    result = runner.invoke(app, ["validate", str(folder)])
    assert result.stdout.splitlines()[-1] == (
        "4 files, 2 matches: 2 errors (2 of them unreadable inputs), 1 warning; "
        "0 matches with errors, 1 with warnings only"
    )


def test_json_lines_count_what_the_summary_counts(folder: Path) -> None:
    result = runner.invoke(app, ["validate", "--format", "json", str(folder)])

    def counts(text: str) -> list[tuple[bool, int, int]]:
        lines = [json.loads(line) for line in text.splitlines()]
        severities = [[f["severity"] for f in d["findings"]] for d in lines]
        return [
            (d["ok"], s.count("error"), s.count("warning"))
            for d, s in zip(lines, severities, strict=True)
        ]

    # Each line's findings carry their severity: the summary's counts are their sums, the
    # unreadable input's line holding its one S002 error.
    assert counts(result.stdout) == [(True, 0, 0), (False, 1, 0), (True, 0, 1), (False, 1, 0)]
    assert json.loads(result.stdout.splitlines()[3])["findings"][0]["code"] == "S002"
    strict = runner.invoke(app, ["validate", "--format", "json", "--strict", str(folder)])
    assert [c[1] for c in counts(strict.stdout)] == [0, 1, 1, 1]


def test_report_cards_filter_and_line_say_the_same(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["validate", str(folder), "--out", str(out)])
    assert result.exit_code == 2
    assert result.stdout == f"{LINE}; report written to {out}\n"
    page = out.read_text(encoding="utf-8")
    cards = re.findall(r'<div class="card[^"]*"><b>([\d,]+)</b> ([^<]+)</div>', page)
    assert cards == [
        ("4", "files"),
        ("3", "matches"),
        ("2", "errors"),
        ("1", "warning"),
        ("1", "match with errors"),
        ("1", "with warnings only"),
        ("1", "clean"),
        ("1", "unreadable input"),
    ]
    # The severity filter counts the same findings as the "errors" and "warnings" cards.
    assert '<span class="sev sev-error">error</span> (2)</label>' in page
    assert '<span class="sev sev-warning">warning</span> (1)</label>' in page
    # A match's and a file's verdict read "with errors", never a bare "errors".
    assert '<span class="verdict-errors">with errors</span> ·' in page
    assert '<td class="verdict-errors">with errors</td>' in page
    assert '<td class="verdict-warnings">with warnings only</td>' in page
    assert '<td class="verdict-unreadable">unreadable</td>' in page
    assert ">errors<" not in page


def test_import_says_matches_stored_with_errors_as_validate_does(
    folder: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.jsonl"
    result = runner.invoke(
        app,
        ["import", str(folder), "-d", str(tmp_path / "d"), "-w", "1", "--report", str(report)],
    )
    assert result.exit_code == 1  # the binary file is quarantined
    assert "1 match stored with errors, 1 with warnings only; most errors:" in result.stdout
    assert f"  {folder}/b_illegal.mat: 1 error, 0 warnings in 1 match" in result.stdout
    rows = {Path(r["path"]).name: r for r in map(json.loads, report.read_text().splitlines())}
    # A quarantined input's one finding is its error, as validate counts it.
    assert (rows["d_junk.mat"]["status"], rows["d_junk.mat"]["errors"]) == ("quarantined", 1)
    assert sum(r["errors"] for r in rows.values()) == 2
    assert sum(r["warnings"] for r in rows.values()) == 1
