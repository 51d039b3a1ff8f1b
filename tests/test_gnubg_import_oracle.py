"""GNU Backgammon as an outside oracle of the writers: it imports the `.mat` and SGF files bgparse
writes of its own matches and reads the same games, results, cube and final positions from them
as from its originals. Runs `/usr/games/gnubg` through the shared tools `oracle.py` and
`compare_truth.py` as scripts (GNU code is GPL: used as an outside program only); skipped where
gnubg or the shared folder is absent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bgparse.readers import read_path
from bgparse.replay import replay
from bgparse.writers import write_mat, write_sgf
from tests.conftest import SHARED, corpus_dir
from tests.test_writers import GNU_LAYOUTS, RESIGNED_AFTER_ROLLING

pytestmark = [pytest.mark.oracle, pytest.mark.corpus]

GNUBG = Path("/usr/games/gnubg")
TOOLS = SHARED / "tools" / "gnubg"


def _tools() -> tuple[Path, Path]:
    if not GNUBG.exists():
        pytest.skip("GNU Backgammon is not installed (apt-get install gnubg)")
    oracle, compare = TOOLS / "oracle.py", TOOLS / "compare_truth.py"
    if not (oracle.is_file() and compare.is_file()):
        pytest.skip(f"{TOOLS} does not hold oracle.py and compare_truth.py")
    return oracle, compare


def _jacoby(folder: Path) -> dict[str, bool]:
    """Whether GNU played each money session with the Jacoby rule, which a `.mat` file cannot
    say: gnubg must import a file and bgparse's copy of it with the same setting."""
    out: dict[str, bool] = {}
    for line in (folder / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out[row["stem"]] = bool(row.get("jacoby")) and row.get("kind") == "money"
    return out


def _originals() -> list[Path]:
    """Every GNU export of both corpora (about 500 files: gnubg reads them all in ~25 s)."""
    files: list[Path] = []
    for name in ("gnubg", "gnubg-sample"):
        folder = corpus_dir(name)
        files += sorted(folder.glob("*.mat")) + sorted(folder.glob("*.sgf"))
    return files


def _oracle(oracle: Path, files: list[Path], jacoby: bool, out: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            str(oracle),
            *map(str, files),
            "--actions",
            *("--jacoby", "on" if jacoby else "off"),
            *("--out", str(out)),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return out


def test_gnubg_reads_bgparse_files_as_it_reads_its_own(tmp_path: Path) -> None:
    oracle, compare = _tools()
    originals = _originals()
    jacoby = {**_jacoby(corpus_dir("gnubg")), **_jacoby(corpus_dir("gnubg-sample"))}
    # Groups of files gnubg reads with the same settings: the original's format, the Jacoby rule.
    groups: dict[tuple[str, bool], list[Path]] = {}
    for path in originals:
        groups.setdefault((path.suffix[1:], jacoby.get(path.stem, False)), []).append(path)
    failures: list[str] = []
    compared = 0
    for (fmt, rule), files in sorted(groups.items()):
        folder = tmp_path / f"{fmt}-jacoby-{rule}"
        written: dict[str, list[Path]] = {"mat": [], "sgf": []}
        for path in files:
            [record] = read_path(path)
            m = replay(record)
            for via, text in (
                ("mat", write_mat(m, comments=record.comments)),
                ("sgf", write_sgf(m, comments=record.comments)),
            ):
                target = folder / via / f"{path.stem}.{via}"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
                written[via].append(target)
        theirs = _oracle(oracle, files, rule, folder / "original.jsonl")
        for via, mine in written.items():
            ours = _oracle(oracle, mine, rule, folder / f"bgparse-{via}.jsonl")
            result = subprocess.run(
                [sys.executable, str(compare), str(theirs), str(ours)],
                capture_output=True,
                text=True,
                timeout=120,
            )
            compared += len(mine)
            if result.returncode != 0 or f"compared {len(mine)}, 0 differ" not in result.stdout:
                failures.append(
                    f"{fmt} originals, jacoby {rule}, written as {via}:\n{result.stdout}"
                )
    assert failures == [], "\n".join(failures)
    assert compared == 2 * len(originals)


@pytest.mark.parametrize("name", sorted(GNU_LAYOUTS))
def test_gnubg_exports_the_result_layouts_as_bgparse_writes_them(name: str, tmp_path: Path) -> None:
    """The layouts of results after a drop or a roll not played, which the GNU corpus does not
    hold, are what GNU Backgammon's own export writes of the same match."""
    _tools()
    text = GNU_LAYOUTS[name]
    source, exported = tmp_path / "in.mat", tmp_path / "out.mat"
    source.write_text(text, encoding="utf-8")
    commands = [
        "set sound enable off",
        "set display off",
        "set confirm default yes",
        "set confirm save off",
        f'import mat "{source}"',
        f'export match mat "{exported}"',
    ]
    subprocess.run(
        [str(GNUBG), "-t", "-q", "-r"],
        input="\n".join(commands) + "\n",
        text=True,
        capture_output=True,
        env={"HOME": str(tmp_path), "LANG": "C", "LC_ALL": "C", "PATH": "/usr/bin:/bin"},
        check=True,
        timeout=120,
    )
    # gnubg dates an undated match today: compare from the match line on.
    theirs = exported.read_text(encoding="utf-8")
    ours = text
    assert theirs[theirs.index(" point match") :] == ours[ours.index(" point match") :]
    [record] = read_path(source)
    assert write_mat(replay(record)) == text


def test_gnubg_reads_a_resignation_after_rolling_as_bgparse_writes_it(tmp_path: Path) -> None:
    """Where bgparse leaves GNU's layout (a result on the line of a roll not played, which GNU
    cannot import again), GNU reads bgparse's layout cleanly and as bgparse does."""
    oracle, _ = _tools()
    source = tmp_path / "resigned.mat"
    source.write_text(RESIGNED_AFTER_ROLLING, encoding="utf-8")
    [truth] = [
        json.loads(line)
        for line in _oracle(oracle, [source], False, tmp_path / "o.jsonl").read_text().splitlines()
    ]
    [record] = read_path(source)
    m = replay(record)
    assert truth["ok"] and truth["gnubg_messages"] == []
    theirs = [(g["winner"], g["points_won"], g["end"], g["n_moves"]) for g in truth["games"]]
    # gnubg keeps the roll not played as dice set, not as a move.
    ours = [(g.winner, g.points, g.end, sum(t.kind == "play" for t in g.turns)) for g in m.games]
    assert theirs == ours == [(1, 1, "resign", 2), (0, 1, "resign", 2)]


def test_gnubg_reads_xg_files_converted_by_bgparse_as_xg_recorded_them(tmp_path: Path) -> None:
    """`bgparse convert FILE.xg --to mat|sgf`: GNU Backgammon imports both with the results the
    independent reading of the `.xg` files gives (truth.jsonl), and where XG's own `.mat`
    export of the match sits beside it, reads ours as it reads XG's."""
    oracle, compare = _tools()
    folder = corpus_dir("xg")
    lines = (folder / "truth.jsonl").read_text(encoding="utf-8").splitlines()
    truth = {row["file"]: row for row in map(json.loads, lines) if "error" not in row}
    sources = [folder / name for name in sorted(truth)]
    assert sources
    written: dict[str, list[Path]] = {"mat": [], "sgf": []}
    for path in sources:
        [record] = read_path(path)
        m = replay(record)
        for via, text in (("mat", write_mat(m)), ("sgf", write_sgf(m))):
            target = tmp_path / via / f"{path.stem}.{via}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            written[via].append(target)
    for via, files in written.items():
        out = _oracle(oracle, files, False, tmp_path / f"{via}.jsonl")
        rows = {Path(r["file"]).stem: r for r in map(json.loads, out.read_text().splitlines())}
        for path in sources:
            gnu, want = rows[path.stem], truth[path.name]
            assert gnu["ok"] and gnu["gnubg_messages"] == [], (via, path.name)
            theirs = [
                (g["score_before"], g["winner"], g["points_won"], g["n_doubles"], g["n_takes"])
                for g in gnu["games"]
            ]
            ours = [
                (t["score_before"], t["winner"], t["points"], t["doubles"], t["takes"])
                for t in want["games"]
            ]
            assert theirs == ours, (via, path.name)
    twins = [p.with_suffix(".mat") for p in sources if p.with_suffix(".mat").is_file()]
    assert twins
    theirs_file = _oracle(oracle, twins, False, tmp_path / "xg-export.jsonl")
    ours_file = _oracle(
        oracle, [tmp_path / "mat" / p.name for p in twins], False, tmp_path / "ours.jsonl"
    )
    result = subprocess.run(
        [sys.executable, str(compare), str(theirs_file), str(ours_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert f"compared {len(twins)}, 0 differ" in result.stdout, result.stdout
