"""The documents promise what the code does: CI runs the README's test command, every
finding code is documented, and docs/SCHEMA.md describes every column and shows its example
queries' real output."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pyarrow as pa
import pytest

from bgparse.model.findings import CODES
from bgparse.store.schema import TABLES, row_schema
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
    documented = set(re.findall(r"`([SPCRNIA]\d{3})`", doc))
    assert documented == set(CODES)


# --- docs/SCHEMA.md -----------------------------------------------------------------------

#: How DuckDB names the Arrow types of bgparse/store/schema.py (as `DESCRIBE` prints them).
_DUCKDB_TYPES = {
    "string": "VARCHAR",
    "int8": "TINYINT",
    "int16": "SMALLINT",
    "int32": "INTEGER",
    "int64": "BIGINT",
    "uint8": "UTINYINT",
    "double": "DOUBLE",
    "bool": "BOOLEAN",
    "date32[day]": "DATE",
    "timestamp[us, tz=UTC]": "TIMESTAMP WITH TIME ZONE",
    "extension<arrow.uuid>": "UUID",
}


def _duckdb_type(t: pa.DataType) -> str:
    if pa.types.is_list(t):
        return _duckdb_type(t.value_type) + "[]"
    if pa.types.is_struct(t):
        fields = ", ".join(f"{f.name} {_duckdb_type(f.type)}" for f in t)
        return f"STRUCT({fields})"
    return _DUCKDB_TYPES[str(t)]


def _schema_doc() -> str:
    return (ROOT / "docs" / "SCHEMA.md").read_text(encoding="utf-8")


def _documented_columns() -> dict[str, list[tuple[str, str, str]]]:
    """Per `## \\`table\\`` section of docs/SCHEMA.md: (column, type, NULL) of its table rows."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    table = None
    for line in _schema_doc().splitlines():
        if m := re.fullmatch(r"## `(\w+)`", line):
            table = m[1]
            out[table] = []
        elif line.startswith("## "):
            table = None
        elif table and (m := re.match(r"\| `(\w+)` \| ([^|]+) \| (yes|no) \|", line)):
            out[table].append((m[1], m[2].strip(), m[3]))
    return out


def test_every_column_of_the_schema_is_documented() -> None:
    documented = _documented_columns()
    assert set(documented) == set(TABLES)
    for table in TABLES:
        expected = [
            (f.name, _duckdb_type(f.type), "yes" if f.nullable else "no") for f in row_schema(table)
        ]
        assert documented[table] == expected, table


@pytest.fixture(scope="module")
def sample_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The samples imported as the README's quick start imports them (paths as given)."""
    from bgparse.ingest import ImportOptions, run_import

    data = tmp_path_factory.mktemp("samples") / "bgdata"
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        run_import(["sample_logs"], data, ImportOptions(workers=1))
    finally:
        os.chdir(here)
    return data


_EXAMPLE = re.compile(r"```sql\n(.*?)```\n\n```\n(.*?)```", re.S)


def test_schema_examples_print_what_the_page_shows(sample_dataset: Path) -> None:
    """Each example's output as bgparse prints it today (BGPARSE_UPDATE=1 rewrites the
    outputs, for samples added or a replay changed on purpose: review the diff)."""
    from typer.testing import CliRunner

    from bgparse.cli import app

    def run(sql: str) -> str:
        res = CliRunner().invoke(app, ["query", "-d", str(sample_dataset), "-f", "csv", sql])
        assert res.exit_code == 0, (sql, res.output)
        return res.stdout

    doc = _schema_doc()
    if os.environ.get("BGPARSE_UPDATE"):
        doc = _EXAMPLE.sub(lambda m: f"```sql\n{m[1]}```\n\n```\n{run(m[1])}```", doc)
        (ROOT / "docs" / "SCHEMA.md").write_text(doc, encoding="utf-8")
    examples = _EXAMPLE.findall(doc)
    assert len(examples) >= 5
    for sql, shown in examples:
        assert run(sql) == shown, sql
