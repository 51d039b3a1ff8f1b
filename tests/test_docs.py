"""The documents promise what the code does: CI runs the README's test command, and every
finding code is documented."""

from __future__ import annotations

import re

from bgparse.findings import CODES
from tests.conftest import ROOT


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in quick.splitlines() if line.startswith("    ")]


def test_quick_start_is_exactly_two_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    assert "bgparse import sample_logs" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _readme_commands()[1] in ci.splitlines()


def test_every_finding_code_is_documented() -> None:
    doc = (ROOT / "docs" / "FINDINGS.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([SPCRNI]\d{3})`", doc))
    assert documented == set(CODES)
