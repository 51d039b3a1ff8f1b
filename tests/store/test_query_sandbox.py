"""`bgparse query` reads the dataset and local files, but writes nothing, attaches no
database, installs or loads no extension and lets no SET undo that; `--allow-writes` lets
COPY write. Named statistics run on the same locked connection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app

runner = CliRunner()

REFUSED_WRITE = "writes files or databases: refused unless --allow-writes is given"


def _query(data: Path, sql: str, *extra: str) -> tuple[int, str, str]:
    res = runner.invoke(app, ["query", sql, "-d", str(data), *extra])
    return res.exit_code, res.stdout, res.stderr


def _manifest(data: Path) -> bytes:
    return (data / "_dataset.json").read_bytes()


@pytest.mark.parametrize(
    "sql,message",
    [
        ("COPY (SELECT 1 AS x) TO '{target}'", f"COPY {REFUSED_WRITE}"),
        ("COPY matches TO '{manifest}' (FORMAT csv)", f"COPY {REFUSED_WRITE}"),
        ("EXPORT DATABASE '{target}'", f"EXPORT {REFUSED_WRITE}"),
        ("ATTACH '{target}' AS other", f"ATTACH {REFUSED_WRITE}"),
        ("INSTALL httpfs", "extensions are not installed or loaded by a query"),
        ("LOAD httpfs", "extensions are not installed or loaded by a query"),
    ],
)
def test_a_statement_that_writes_or_installs_is_refused(
    sql: str, message: str, hand_dataset: Path, tmp_path: Path
) -> None:
    target = tmp_path / "out"
    manifest = hand_dataset / "_dataset.json"
    before = _manifest(hand_dataset)
    got = _query(hand_dataset, sql.format(target=target, manifest=manifest))
    assert got == (2, "", f"bgparse: {message}\n")
    assert not target.exists()
    assert _manifest(hand_dataset) == before


@pytest.mark.parametrize(
    "setting",
    [
        "SET enable_external_access = true",
        "SET autoinstall_known_extensions = true",
        "SET autoload_known_extensions = true",
        "SET lock_configuration = false",
        "RESET lock_configuration",
        "SET profiling_output = '/tmp/bgparse-profile.txt'",
    ],
)
def test_no_set_turns_the_sandbox_off(setting: str, hand_dataset: Path) -> None:
    code, out, err = _query(hand_dataset, setting)
    name = setting.split()[1]
    assert (code, out) == (2, "")
    assert err == (
        f'bgparse: Invalid Input Error: Cannot change configuration option "{name}" - the '
        "configuration has been locked\n"
    )


def test_a_remote_file_is_not_fetched(hand_dataset: Path) -> None:
    code, out, err = _query(hand_dataset, "SELECT * FROM read_csv('https://example.com/x.csv')")
    assert (code, out) == (2, "")
    # One line: DuckDB's advice to install the extension is not passed on.
    assert err == (
        "bgparse: File https://example.com/x.csv requires the extension httpfs to be loaded\n"
    )


def test_a_local_file_is_read(hand_dataset: Path, tmp_path: Path) -> None:
    csv = tmp_path / "ratings.csv"
    csv.write_text("player,rating\nAnn,1650\n", encoding="utf-8")
    got = _query(hand_dataset, f"SELECT player, rating FROM read_csv('{csv}')", "--format", "json")
    assert got[0] == 0 and json.loads(got[1]) == [{"player": "Ann", "rating": 1650}]


def test_allow_writes_lets_copy_write(hand_dataset: Path, tmp_path: Path) -> None:
    target = tmp_path / "matches.csv"
    code, _, err = _query(
        hand_dataset, f"COPY (SELECT count(*) AS n FROM matches) TO '{target}'", "--allow-writes"
    )
    assert (code, err) == (0, "")
    n = json.loads(_query(hand_dataset, "SELECT count(*) AS n FROM matches", "--format", "json")[1])
    assert target.read_text(encoding="utf-8") == f"n\n{n[0]['n']}\n"
    # Still no extension, and the configuration still locked.
    assert _query(hand_dataset, "INSTALL httpfs", "--allow-writes")[0] == 2
    assert _query(hand_dataset, "SET lock_configuration = false", "--allow-writes")[0] == 2


def test_ordinary_queries_and_statistics_still_work(hand_dataset: Path) -> None:
    code, out, _ = _query(hand_dataset, "SELECT count(*) AS n FROM turns", "--format", "csv")
    assert code == 0 and out.startswith("n\n") and int(out.split()[1]) > 0
    # A table of the session is the query's own, in memory.
    assert _query(hand_dataset, "CREATE TABLE t AS SELECT 1 AS x")[0] == 0
    res = runner.invoke(app, ["stats", "opening-rolls", "-d", str(hand_dataset), "--format", "csv"])
    assert res.exit_code == 0 and res.stdout.startswith("roll,")


def test_a_duckdb_error_is_one_line(hand_dataset: Path) -> None:
    assert _query(hand_dataset, "SELEC 1") == (
        2,
        "",
        'bgparse: Parser Error: syntax error at or near "SELEC"\n',
    )
    code, _, err = _query(hand_dataset, "SELECT * FROM matchez")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("bgparse: Catalog Error: Table with name matchez does not exist!")
    assert '(Did you mean "matches"?)' in err
