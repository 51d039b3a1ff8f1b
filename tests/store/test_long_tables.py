"""A table of a hundred thousand rows prints in seconds and bounded memory: piped, it is
written row by row (every row, one line each); on a screen it shows its first rows and says how
many more there are and how to see them all."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.cli import data as cli_data
from bgparse.ingest import ImportOptions, run_import
from bgparse.questions import query
from bgparse.questions.query import _print_table, connect, run, stream_table
from bgparse.replay.generate import generate_matches
from bgparse.writers.mat import write_mat

runner = CliRunner()


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("long-tables")
    (base / "in").mkdir()
    for vm in generate_matches(8, 5, seed=3):
        (base / "in" / f"m{vm.index}.mat").write_text(write_mat(vm), encoding="utf-8")
    run_import([base / "in"], base / "data", ImportOptions(workers=1))
    return base / "data"


def _turns(data: Path) -> int:
    return int(run(connect(data), "SELECT count(*) FROM turns").column(0)[0].as_py())


def test_a_piped_table_of_100k_rows_has_every_row(generated: Path) -> None:
    copies = -(-100_000 // _turns(generated))
    sql = f"SELECT t.* FROM turns t, range({copies}) ORDER BY ALL"
    res = runner.invoke(app, ["query", sql, "-d", str(generated)])
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    rows = copies * _turns(generated)
    assert rows >= 100_000
    # The top rule, the header, its rule, a line per row, the bottom rule.
    assert len(lines) == rows + 4
    assert lines[0].startswith("┏━") and lines[2].startswith("┡━") and lines[-1].startswith("└─")
    assert lines[1].split("┃")[1].strip() == "match_uid"
    assert len({cell_len(line) for line in lines}) == 1  # every line as wide as the table
    assert all(line.startswith("│ ") for line in lines[3:-1])


def test_a_streamed_table_holds_a_batch_not_the_result(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(query, "_STREAM_BATCH", 500)
    con = connect(generated)
    peaks = []
    for copies in (1, 6):
        result = run(con, f"SELECT t.* FROM turns t, range({copies})")
        tracemalloc.start()
        stream_table(result, _Sink())
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    # Six times the rows, about the same peak: what is held is one batch of rows as text.
    assert peaks[1] < 1.5 * peaks[0], peaks


class _Sink:
    """Output that keeps nothing (a pipe)."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


def test_streamed_is_what_rich_draws(generated: Path) -> None:
    """Off a screen, the streamed table is rich's table line for line (as it was drawn before
    it streamed), for a table that fits 1,000 columns."""
    con = connect(generated)
    for sql in (
        "SELECT * FROM turns ORDER BY ALL LIMIT 40",
        "SELECT 'é漢字' AS x, 1.5 AS y, NULL AS z, true AS b, 3 AS n",
        "SELECT 1 AS a WHERE false",
    ):
        result = run(con, sql)
        drawn = io.StringIO()
        _print_table(result, Console(file=drawn, width=1000, soft_wrap=True), title="T", fold=False)
        streamed = io.StringIO()
        stream_table(result, streamed, title="T")
        assert streamed.getvalue() == drawn.getvalue()


def test_a_screen_shows_its_first_rows_and_says_how_many_more(
    generated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_data, "_is_terminal", lambda: True)
    total = cli_data.SCREEN_ROWS + 734
    res = runner.invoke(
        app, ["query", f"SELECT range AS n FROM range({total})", "-d", str(generated)]
    )
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    shown = [line.strip() for line in lines if line.strip().isdigit()]
    assert shown == [str(n) for n in range(cli_data.SCREEN_ROWS)]
    assert lines[-1] == "(734 more rows not shown; --format csv shows every row)"
    # The same query as CSV has every row.
    res = runner.invoke(
        app, ["query", f"SELECT range AS n FROM range({total})", "-d", str(generated), "-f", "csv"]
    )
    assert res.stdout.splitlines() == ["n", *map(str, range(total))]
