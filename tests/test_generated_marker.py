"""Matches `bgparse generate` writes are told apart when read back: the generator names itself
(`.mat` Transcriber tag, SGF `AN`), the readers record the dialect `bgparse-generated`, and an
import partitions them under that `source`, not as the `jellyfish` archives they look like."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.readers import read_path
from tests.conftest import SAMPLES

runner = CliRunner()


def test_generated_files_import_as_generated_and_others_as_before(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    for seed, fmt in (("1", "mat"), ("2", "sgf")):
        done = runner.invoke(
            app, ["generate", "-n", "1", "-l", "3", "-s", seed, "-f", fmt, "-o", str(inputs)]
        )
        assert done.exit_code == 0, done.output
    shutil.copy(SAMPLES / "mat" / "gnu_export.mat", inputs / "gnu_export.mat")
    assert [(r.format, r.dialect) for r in read_path(inputs)] == [
        ("mat", "bgparse-generated"),
        ("sgf", "bgparse-generated"),
        ("mat", "jellyfish"),
    ]
    data = tmp_path / "data"
    done = runner.invoke(app, ["import", str(inputs), "--data", str(data), "--workers", "1"])
    assert done.exit_code in (0, 1), done.output
    sql = (
        "SELECT source, dialect, format, count(*) AS n FROM matches"
        " GROUP BY ALL ORDER BY source, format"
    )
    query = runner.invoke(app, ["query", sql, "--data", str(data), "--format", "csv"])
    assert query.exit_code == 0, query.output
    assert query.output == (
        "source,dialect,format,n\n"
        "bgparse-generated,bgparse-generated,mat,1\n"
        "bgparse-generated,bgparse-generated,sgf,1\n"
        "jellyfish,jellyfish,mat,1\n"
    )


def test_generated_files_validate_clean_under_their_own_rules(tmp_path: Path) -> None:
    # The generated SGF's rules are read as GNU's (no RU word means no rule), as before.
    out = tmp_path / "g"
    for fmt in ("mat", "sgf"):
        runner.invoke(app, ["generate", "-n", "3", "-l", "5", "-f", fmt, "-o", str(out)])
    done = runner.invoke(app, ["validate", str(out)])
    assert done.exit_code == 0, done.output
