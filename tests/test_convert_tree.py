"""`bgparse convert` keeps its inputs' tree below --out (two inputs of one name in two folders
no longer collide) and writes the result a record says, reporting where the replay verified
another, unless `--repair` asks for the verified one."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.model.events import Win
from bgparse.readers import read_path
from bgparse.replay.generate import generate_match
from bgparse.writers import write_mat
from tests.conftest import SAMPLES

runner = CliRunner()


def test_inputs_of_one_name_in_two_folders_keep_their_folders(tmp_path: Path) -> None:
    top = tmp_path / "in"
    for sub, sample in (("a", "gnu_export.mat"), ("b/deep", "beavers.mat")):
        (top / sub).mkdir(parents=True)
        (top / sub / "m.mat").write_bytes((SAMPLES / "mat" / sample).read_bytes())
    (top / "a" / "m.txt").write_bytes((SAMPLES / "mat" / "crlf_line_ends.mat").read_bytes())
    with zipfile.ZipFile(top / "a" / "more.zip", "w") as zf:
        zf.write(SAMPLES / "mat" / "tabs.mat", "x/m.mat")
    out = tmp_path / "out"
    done = runner.invoke(app, ["convert", str(top), "--to", "sgf", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert done.output == (
        f"{top}/a/m.mat -> {out}/a/m.sgf\n"
        f"{top}/a/m.txt -> {out}/a/m.txt.sgf\n"  # the stem taken: its whole name
        f"{top}/a/more.zip!x/m.mat -> {out}/a/more.zip/x/m.sgf\n"
        f"{top}/b/deep/m.mat -> {out}/b/deep/m.sgf\n"
        "4 converted, 0 failed, 0 unreadable\n"
    )
    # Each output is its own input's match.
    for rel, sample in (
        ("a/m", "gnu_export"),
        ("a/m.txt", "crlf_line_ends"),
        ("b/deep/m", "beavers"),
        ("a/more.zip/x/m", "tabs"),
    ):
        [back] = read_path(out / f"{rel}.sgf")
        [mine] = read_path(SAMPLES / "mat" / f"{sample}.mat")
        assert back.players == mine.players and len(back.games) == len(mine.games)
    # A file or an archive named alone goes into --out itself, as before.
    alone = tmp_path / "alone"
    done = runner.invoke(
        app, ["convert", str(top / "b/deep/m.mat"), str(top / "a/more.zip"), "--to", "mat",
              "-o", str(alone)],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert sorted(p.relative_to(alone).as_posix() for p in alone.rglob("*.mat")) == [
        "m.mat",
        "x/m.mat",
    ]


def _wrong_result(tmp_path: Path) -> tuple[Path, int]:
    """A generated match whose first `Wins N` line is made to say N + 1; returns N."""
    text = write_mat(generate_match(3, 5))
    m = re.search(r"Wins (\d+) points?", text)
    assert m is not None
    verified = int(m.group(1))
    path = tmp_path / "wrong.mat"
    path.write_text(text[: m.start()] + f"Wins {verified + 1} points" + text[m.end() :])
    return path, verified


def _first_win(path: Path) -> int:
    [record] = read_path(path)
    return next(a.points for a in record.games[0].actions if isinstance(a, Win))


def test_a_wrong_result_is_written_as_recorded_and_with_repair_as_verified(
    tmp_path: Path,
) -> None:
    path, verified = _wrong_result(tmp_path)
    said = f"game 1: the record's Wins {verified + 1} points, the replay's {verified}"
    for repair, out, how, points in (
        (False, "kept", "kept as recorded (--repair: as verified)", verified + 1),
        (True, "fixed", "repaired as verified", verified),
    ):
        args = ["convert", str(path), "--to", "mat", "-o", str(tmp_path / out)]
        done = runner.invoke(app, args + (["--repair"] if repair else []))
        assert done.exit_code == 0, done.output
        assert done.output == (
            f"{path} -> {tmp_path / out}/wrong.mat (1 error: written as the replay reads them)"
            f" (results {how}: {said})\n"
            "1 converted, 0 failed, 0 unreadable\n"
        )
        assert _first_win(tmp_path / out / "wrong.mat") == points
    # Through SGF and back to .mat, the record's result survives too.
    runner.invoke(app, ["convert", str(path), "--to", "sgf", "-o", str(tmp_path / "s")])
    runner.invoke(app, ["convert", str(tmp_path / "s"), "--to", "mat", "-o", str(tmp_path / "b")])
    assert _first_win(tmp_path / "b" / "wrong.mat") == verified + 1
