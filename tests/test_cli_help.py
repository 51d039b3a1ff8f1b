"""Every command's --help reads cleanly: values named as a person writes them (PATH..., N,
DATE, FOLDER), no typer artefacts (`<bool>`, `<list[str]>`, `{files}...`), and the top-level
help names every format bgparse reads."""

from __future__ import annotations

import re

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from bgparse.cli import app

runner = CliRunner()


def _command_paths() -> list[list[str]]:
    """Every command and subcommand of the app, as the words that name it."""
    paths: list[list[str]] = [[]]

    def walk(command: object, prefix: list[str]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(get_command(app), [])
    return paths


COMMANDS = _command_paths()


def test_every_command_and_statistic_is_walked() -> None:
    names = {" ".join(p) for p in COMMANDS}
    assert {"parse", "validate", "import", "query", "report", "show", "compact"} <= names
    assert {"convert", "generate", "stats", "stats cube-rates", "stats player"} <= names


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(p) or "bgparse" for p in COMMANDS])
def test_help_has_no_typer_artefacts(words: list[str]) -> None:
    result = runner.invoke(app, [*words, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Usage: bgparse" in text
    for artefact in ("<bool>", "<list", "<str>", "<int", "<path>", "<float", "{"):
        assert artefact not in text, (artefact, text)


def test_values_are_named_for_what_they_are() -> None:
    validate = runner.invoke(app, ["validate", "--help"], env={"COLUMNS": "200"}).output
    assert "Usage: bgparse validate [OPTIONS] PATH..." in validate
    assert re.search(r"--out\s+-o\s+FILE ", validate)
    assert re.search(r"--beavers\s+N ", validate)
    assert re.search(r"--strict\s+Treat warnings", validate)  # a flag: nothing after it
    imp = runner.invoke(app, ["import", "--help"], env={"COLUMNS": "200"}).output
    assert re.search(r"--data\s+-d\s+FOLDER ", imp)
    assert re.search(r"--workers\s+-w\s+N \[x>=1\]", imp)
    assert re.search(r"--report\s+FILE ", imp)
    stats = runner.invoke(app, ["stats", "reply-plays", "--help"], env={"COLUMNS": "200"}).output
    assert re.search(r"--since\s+DATE ", stats) and re.search(r"--roll\s+ROLL ", stats)
    assert re.search(r"--format\s+-f\s+table\|csv\|json ", stats)
    query = runner.invoke(app, ["query", "--help"], env={"COLUMNS": "200"}).output
    assert "Usage: bgparse query [OPTIONS] SQL" in query
    assert re.search(r"--param\s+-p\s+VALUE ", query)


def test_a_docstring_reads_as_one_paragraph() -> None:
    # validate's docstring spans lines; its help is one paragraph the panel wraps itself.
    text = runner.invoke(app, ["validate", "--help"], env={"COLUMNS": "200"}).output
    assert "2: usage error or unreadable input." in text


def test_top_level_help_names_every_format_read() -> None:
    text = " ".join(runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).output.split())
    assert ".mat" in text and "SGF" in text and ".xg" in text


def test_a_missing_argument_is_named_as_the_help_names_it() -> None:
    result = runner.invoke(app, ["validate"])
    assert result.exit_code == 2
    assert result.output == "bgparse: missing argument 'PATH...' (see 'bgparse validate --help')\n"
