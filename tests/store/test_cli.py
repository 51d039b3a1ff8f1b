"""The `import`, `query` and `stats` commands through typer's CliRunner: exact output where it
does not depend on timing, and exact exit codes."""

from __future__ import annotations

import json
import re
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from bgparse.cli import app as bgparse_app
from bgparse.questions.stats import STATISTICS
from bgparse.store.dataset import Dataset

TINY_MAT = (
    " 1 point match\n\n Game 1\n Alice : 0                           Bob : 0\n"
    "  1) 31: 8/5 6/5                     42: 8/4 6/4\n      Wins 1 point and the match\n"
)
SUMMARY = re.compile(
    r"^(?P<counts>.*) in (?P<data>\S+); [\d.]+ MB in [\d.]+ s \([\d.]+ MB/s\)\n$", re.S
)


@pytest.fixture
def app() -> typer.Typer:
    # The command line itself: its errors are worded by the one boundary at its root.
    return bgparse_app


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def needs_pipeline() -> None:
    pytest.importorskip("bgparse.replay")
    readers = pytest.importorskip("bgparse.readers")
    if not hasattr(readers, "iter_records"):
        pytest.skip("bgparse.readers.iter_records is not there yet")


def counts(stdout: str) -> str:
    m = SUMMARY.match(stdout)
    assert m, stdout
    return m["counts"]


def test_import_then_reimport(app: typer.Typer, runner: CliRunner, tmp_path: Path) -> None:
    needs_pipeline()
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "tiny.mat").write_text(TINY_MAT)
    data = tmp_path / "data"
    args = ["import", str(tmp_path / "in"), "--data", str(data), "--workers", "1"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert counts(first.stdout) == (
        "1 input: 1 imported, 0 duplicate, 0 quarantined, 0 already in the dataset; "
        "stored 1 match, 1 game, 2 turns, 0 cube offers"
    )
    assert first.stderr == ""
    again = runner.invoke(app, args)
    assert again.exit_code == 0
    assert counts(again.stdout) == (
        "1 input: 0 imported, 0 duplicate, 0 quarantined, 1 already in the dataset; "
        "stored 0 matches, 0 games, 0 turns, 0 cube offers"
    )


def test_import_with_quarantine_exits_1(
    app: typer.Typer, runner: CliRunner, tmp_path: Path
) -> None:
    needs_pipeline()
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.mat").write_text(TINY_MAT)
    (inputs / "b-empty.mat").write_bytes(b"")
    (inputs / "c.json").write_text('{"not": "a match"}')
    result = runner.invoke(app, ["import", str(inputs), "-d", str(tmp_path / "data"), "-w", "1"])
    assert result.exit_code == 1
    assert counts(result.stdout).startswith("3 inputs: 1 imported, 0 duplicate, 2 quarantined")
    assert result.stderr == (
        f"quarantined: {inputs / 'b-empty.mat'}: S001 file is empty\n"
        f"quarantined: {inputs / 'c.json'}: S003 this is JSON, not a match record\n"
    )


def test_import_usage_errors_exit_2(app: typer.Typer, runner: CliRunner, tmp_path: Path) -> None:
    missing = runner.invoke(app, ["import", str(tmp_path / "nope"), "-d", str(tmp_path / "d")])
    assert (missing.exit_code, missing.stderr) == (
        2,
        f"bgparse: {tmp_path / 'nope'}: no such file or folder\n",
    )
    (tmp_path / "in.mat").write_text(TINY_MAT)
    with Dataset(tmp_path / "d").lock():
        locked = runner.invoke(app, ["import", str(tmp_path / "in.mat"), "-d", str(tmp_path / "d")])
    assert locked.exit_code == 2
    assert re.fullmatch(
        r"bgparse: dataset \S+ is being imported by pid \d+; try again when it ends\n",
        locked.stderr,
    )
    bad = runner.invoke(app, ["import", str(tmp_path / "in.mat"), "--workers", "0"])
    assert bad.exit_code == 2


def test_failed_import_exits_3(
    app: typer.Typer, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise BrokenProcessPool("a child process terminated abruptly")

    monkeypatch.setattr("bgparse.ingest.run_import", broken)
    (tmp_path / "in.mat").write_text(TINY_MAT)
    result = runner.invoke(app, ["import", str(tmp_path / "in.mat"), "-d", str(tmp_path / "d")])
    assert (result.exit_code, result.stderr) == (
        3,
        "bgparse: a worker process died (out of memory?); nothing was committed, the dataset "
        "is as it was\n",
    )


def test_data_folder_from_environment_and_default(
    app: typer.Typer, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_pipeline()
    (tmp_path / "tiny.mat").write_text(TINY_MAT)
    env_data = tmp_path / "from-env"
    result = runner.invoke(
        app, ["import", str(tmp_path / "tiny.mat"), "-w", "1"], env={"BGPARSE_DATA": str(env_data)}
    )
    assert result.exit_code == 0 and Dataset(env_data).exists()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BGPARSE_DATA", raising=False)
    result = runner.invoke(app, ["import", "tiny.mat", "-w", "1"])
    assert result.exit_code == 0 and Dataset(tmp_path / "bgdata").exists()
    assert counts(result.stdout).endswith("stored 1 match, 1 game, 2 turns, 0 cube offers")


def test_query_formats(app: typer.Typer, runner: CliRunner, hand_dataset: Path) -> None:
    sql = "SELECT roll, games FROM bg_opening_roll_win_rate() ORDER BY roll"
    base = ["query", sql, "--data", str(hand_dataset)]
    csv = runner.invoke(app, [*base, "--format", "csv"])
    assert (csv.exit_code, csv.stdout) == (0, "roll,games\n31,4\n42,1\n61,1\n")
    js = runner.invoke(app, [*base, "-f", "json"])
    assert json.loads(js.stdout) == [
        {"roll": "31", "games": 4},
        {"roll": "42", "games": 1},
        {"roll": "61", "games": 1},
    ]
    table = runner.invoke(app, base)
    assert table.stdout == (
        "┏━━━━━━┳━━━━━━━┓\n"
        "┃ roll ┃ games ┃\n"
        "┡━━━━━━╇━━━━━━━┩\n"
        "│ 31   │     4 │\n"
        "│ 42   │     1 │\n"
        "│ 61   │     1 │\n"
        "└──────┴───────┘\n"
    )


def test_query_parameters_and_errors(
    app: typer.Typer, runner: CliRunner, hand_dataset: Path
) -> None:
    sql = "SELECT count(*) AS n FROM matches WHERE match_length = ? AND player0 = ?"
    ok = runner.invoke(app, ["query", sql, "-d", str(hand_dataset), "-p", "5", "-p", "Alice",
                             "-f", "csv"])  # fmt: skip
    assert ok.stdout == "n\n1\n"
    bad = runner.invoke(app, ["query", "SELECT nope FROM matches", "-d", str(hand_dataset)])
    assert bad.exit_code == 2
    assert bad.stderr.startswith('bgparse: Binder Error: Referenced column "nope" not found')
    none = runner.invoke(app, ["query", "SELECT 1", "-d", str(hand_dataset / "missing")])
    assert (none.exit_code, none.stderr) == (
        2,
        f"bgparse: no dataset at {hand_dataset / 'missing'} (run 'bgparse import' first, "
        "or give --data)\n",
    )


def test_stats_list(app: typer.Typer, runner: CliRunner) -> None:
    listed = runner.invoke(app, ["stats", "--list"])
    assert listed.exit_code == 0
    assert listed.stdout.startswith("Statistics (bgparse stats NAME [options])\n")
    for name, stat in STATISTICS.items():
        line = next(ln for ln in listed.stdout.splitlines() if ln.startswith(f"{name}  "))
        assert f"(needs: {stat.needs}" in line
    assert runner.invoke(app, ["stats"]).stdout == listed.stdout


def test_stats_outputs(app: typer.Typer, runner: CliRunner, hand_dataset: Path) -> None:
    data = ["--data", str(hand_dataset)]
    csv = runner.invoke(app, ["stats", "cube-timing", *data, "-f", "csv"])
    assert csv.exit_code == 0
    header, row, end = csv.stdout.split("\n")
    assert (
        header == "move_no,first_doubles,games,share,share_lo,share_hi,cumulative,cumulative_share"
    )
    # Of six games, five allowed a double (M1G2 is the Crawford game); three saw one.
    assert [round(float(v), 5) for v in row.split(",")] == [2, 3, 5, 0.6, 0.23072, 0.88238, 3, 0.6]
    assert end == ""
    table = runner.invoke(app, ["stats", "first-mover", *data])
    assert table.stdout.splitlines()[0] == "First-mover edge"
    assert "│ all    │     6 │" in table.stdout
    player = runner.invoke(app, ["stats", "player", *data, "--name", "carol", "-f", "json"])
    assert [r["player"] for r in json.loads(player.stdout)] == ["Carol"]
    dice = runner.invoke(app, ["stats", "dice", *data, "--include-opening", "-f", "csv"])
    assert dice.stdout.splitlines()[-1].startswith("total,14,")
    missing = runner.invoke(app, ["stats", "dice", "-d", str(hand_dataset / "nope")])
    assert missing.exit_code == 2


def test_every_statistic_is_a_documented_command(app: typer.Typer, runner: CliRunner) -> None:
    for name, stat in STATISTICS.items():
        result = runner.invoke(app, ["stats", name, "--help"], terminal_width=200)
        assert result.exit_code == 0
        flat = " ".join(result.stdout.split())
        assert " ".join(stat.description.split())[:60] in flat
        for p in stat.params:
            assert p.option in result.stdout
    unknown = runner.invoke(app, ["stats", "nope"])
    assert unknown.exit_code == 2


def test_dask_executor(app: typer.Typer, runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "tiny.mat").write_text(TINY_MAT)
    args = ["import", str(tmp_path / "tiny.mat"), "-d", str(tmp_path / "d"), "--executor", "dask"]
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        result = runner.invoke(app, args)
        assert (result.exit_code, result.stderr) == (
            2,
            "bgparse: --executor dask needs the dask extra: pip install 'bgparse[dask]'\n",
        )
        return
    needs_pipeline()
    result = runner.invoke(app, [*args, "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert counts(result.stdout).startswith("1 input: 1 imported")
