"""One folder walker for every command (issue 16): `validate`, `parse`, `convert` and `import`
see the same inputs in the same order, whatever their names, and each command accounts for
every one (read, or reported unreadable with the reason `import` quarantines it with)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from typer.testing import CliRunner

from bgparse.cli import app
from tests.records import SHORT_MATCH

runner = CliRunner()


def _folder(tmp_path: Path) -> Path:
    """a.mat, b.gam (a match under a name no reader claims), sub/c.txt, a FIFO, and a link to
    a folder outside (not followed: it may loop)."""
    top = tmp_path / "in"
    (top / "sub").mkdir(parents=True)
    (top / "a.mat").write_text(SHORT_MATCH, encoding="utf-8")
    (top / "b.gam").write_text(SHORT_MATCH.replace("Alice", "Gina"), encoding="utf-8")
    (top / "sub" / "c.txt").write_text(SHORT_MATCH.replace("Bob", "Carl"), encoding="utf-8")
    os.mkfifo(top / "pipe")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "d.mat").write_text(SHORT_MATCH.replace("Bob", "Dora"), encoding="utf-8")
    (top / "linked").symlink_to(elsewhere, target_is_directory=True)
    return top


def _paths(jsonl: str) -> list[str]:
    return list(dict.fromkeys(json.loads(line)["path"] for line in jsonl.splitlines()))


def test_every_command_sees_the_inputs_import_records(tmp_path: Path) -> None:
    top = _folder(tmp_path)
    report = tmp_path / "report.jsonl"
    imported = runner.invoke(
        app, ["import", str(top), "-d", str(tmp_path / "data"), "--report", str(report)]
    )
    assert imported.exit_code == 1, imported.output  # the FIFO and the link are quarantined
    ledger = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    inputs = [row["path"] for row in ledger]
    assert sorted(inputs) == sorted(
        str(top / name) for name in ("a.mat", "b.gam", "sub/c.txt", "pipe", "linked")
    )
    quarantined = {row["path"] for row in ledger if row["status"] == "quarantined"}
    assert quarantined == {str(top / "pipe"), str(top / "linked")}

    validated = runner.invoke(app, ["validate", "--format", "json", str(top)])
    parsed = runner.invoke(app, ["parse", "--format", "json", str(top)])
    # The walk's order (the report lists refusals at once, files as their results come back).
    assert sorted(_paths(validated.stdout)) == sorted(inputs)
    assert _paths(parsed.stdout) == _paths(validated.stdout)
    # Unreadable in both, with the reason import gave, and the README's exit code 2.
    assert (validated.exit_code, parsed.exit_code) == (2, 2)
    reasons = {row["path"]: row["reason"] for row in ledger if row["reason"]}
    for line in validated.stdout.splitlines():
        record = json.loads(line)
        if record["path"] in quarantined:
            assert record["findings"][0]["message"] == reasons[record["path"]]

    converted = runner.invoke(app, ["convert", str(top), "--to", "sgf", "-o", str(tmp_path / "o")])
    assert converted.exit_code == 2
    done = [line.split(" -> ")[0] for line in converted.stdout.splitlines() if " -> " in line]
    failed = re.findall(r"^(.*?):1:1: S016 ", converted.stderr, re.MULTILINE)
    assert sorted(done + failed) == sorted(inputs)

    text = runner.invoke(app, ["validate", str(top)])
    assert text.stdout.endswith(
        "5 files, 3 matches: 2 errors (2 of them unreadable inputs), 0 warnings; "
        "0 matches with errors, 0 with warnings only\n"
    )
