"""The writers: GNU Backgammon's own exports written again byte for byte, every readable corpus
record through `.mat` and SGF and back to the same verified match, GNU's layout of results after
a roll not played, every `MatStyle` knob, and `bgparse convert` through the CLI."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.model.findings import RecordError, Severity
from bgparse.model.verified import VerifiedGame, VerifiedMatch
from bgparse.readers import iter_records, read_path
from bgparse.replay import replay
from bgparse.replay.generate import generate_match
from bgparse.rules import Position
from bgparse.writers import MatStyle, write_mat, write_sgf
from bgparse.writers.sgf import sgf_point
from tests.conftest import CORPUS, corpus_files

# --- comparing verified matches ----------------------------------------------------------------


def _final_board(g: VerifiedGame) -> str:
    """The final Position ID; after a roll not played, without the side on roll: the replay
    leaves that board from the roller's view when an SGF `PL/DI` node or a `????` cell holds the
    roll and from the other side's when a `.mat` cell has dice and no play (reported)."""
    if g.turns and g.turns[-1].kind == "hidden" and g.final_position_id:
        swapped = Position.from_position_id(g.final_position_id).swap().position_id()
        return min(g.final_position_id, swapped)
    return g.final_position_id


def _play_key(steps: tuple[tuple[int, int, bool], ...], how: str) -> object:
    if how == "exact":
        return tuple(tuple(s) for s in steps)
    # What the play does to the board: checkers leaving, checkers arriving, blots hit. Merged
    # moves (`24/13`) may resolve through the other die first, to the same board.
    leave, land = Counter(s[0] for s in steps), Counter(s[1] for s in steps)
    return (
        sorted((leave - land).elements()),
        sorted((land - leave).elements()),
        sorted(s[1] for s in steps if s[2]),
    )


def summary(m: VerifiedMatch, steps: str = "exact") -> dict[str, Any]:
    """What a written file must keep of a verified match: players, length, scores, and per game
    its result, cube and final board, and its actions as (kind, side, dice as a sorted pair,
    resolved steps)."""
    games = []
    for g in m.games:
        turns = []
        previous = ""
        for t in g.turns:
            if t.kind == "take" and previous in ("beaver", "raccoon"):
                # A `.mat` record implies the take of a beaver; SGF writes it.
                previous = t.kind
                continue
            previous = t.kind
            dice = tuple(sorted(t.dice)) if t.dice else None
            turns.append((t.kind, t.side, dice, _play_key(t.steps, steps)))
        games.append(
            {
                "score": g.score_before,
                "winner": g.winner,
                "points": g.points,
                "end": g.end,
                "result_type": g.result_type,
                "cube": (g.cube, g.cube_owner),
                "crawford": g.crawford,
                "final": _final_board(g),
                "turns": turns,
            }
        )
    return {
        "players": m.players,
        "length": m.length,
        "final_score": m.final_score,
        "winner": m.winner,
        "games": games,
    }


def _level_written(g: VerifiedGame, via: str) -> bool:
    """Whether a file in `via` format says what kind of game a resignation gave up."""
    if g.end != "resign":
        return True
    # SGF has only `RE[W+4R]`, whose readers take the points over the cube as the level: the
    # writer gives what the resignation was worth there, not the points capped to what the
    # winner needed, so both formats say the level wherever the record did.
    return g.result_type is not None  # None: the record did not say (a forfeit, cube x 1004)


def assert_same(
    original: VerifiedMatch, again: VerifiedMatch, via: str, steps: str = "exact"
) -> None:
    errors = [f for f in again.findings if f.severity is Severity.ERROR]
    assert errors == [], [f"{f.code} {f.line}:{f.column} {f.message}" for f in errors]
    a, b = summary(original, steps), summary(again, steps)
    assert len(b["games"]) == len(a["games"])
    for ga, gb, g in zip(a["games"], b["games"], original.games, strict=True):
        if not _level_written(g, via):
            ga["result_type"] = gb["result_type"] = "not written"
    assert b == a


def read_back(text: str, via: str) -> VerifiedMatch:
    [record] = iter_records(text.encode("utf-8"), f"written.{via}")
    return replay(record)


# --- every corpus record, through both formats --------------------------------------------------

_ANALYSIS = re.compile(r"(?:A|DA|MR|GS|LU|GB|GW|BM|BC|DC|DO|CR)(?:\[(?:[^\]\\]|\\.)*\])+", re.S)


def _gnu_sgf_without_analysis(text: str) -> str:
    """A GNU SGF as `save match` writes it without analysis, and with bgparse's `AP`."""
    text = re.sub(r"(?<=[\];\n])" + _ANALYSIS.pattern, "", text, flags=re.S)
    return re.sub(r"AP\[GNU Backgammon:[^\]]*\]", "AP[bgparse:0.1.0]", text)


def _real_files() -> list[Path]:
    real = CORPUS / "real"
    if not real.is_dir():
        return []
    return sorted(p for p in real.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv")


GNU_FILES = [
    p
    for folder in ("gnubg", "gnubg-sample")
    for pattern in ("*.mat", "*.sgf")
    for p in corpus_files(folder, pattern)
]
CORPUS_FILES = GNU_FILES + _real_files()


@pytest.mark.corpus
@pytest.mark.parametrize(
    "path", CORPUS_FILES, ids=[p.relative_to(CORPUS).as_posix() for p in CORPUS_FILES]
)
def test_corpus_record_round_trips_through_mat_and_sgf(path: Path) -> None:
    try:
        records = read_path(path)
    except RecordError:
        pytest.skip("not a readable match record")
    checked = 0
    for record in records:
        m = replay(record)
        if not m.ok:
            continue  # a record with errors is not what a writer is judged on
        checked += 1
        mat = write_mat(m, comments=record.comments)
        sgf = write_sgf(m, comments=record.comments)
        if path in GNU_FILES:
            # GNU's own export, written again: the same bytes (SGF without its analysis).
            original = path.read_text(encoding="utf-8")
            if path.suffix == ".mat":
                assert mat == original
            else:
                assert sgf == _gnu_sgf_without_analysis(original)
        assert_same(m, read_back(mat, "mat"), "mat")
        assert_same(m, read_back(sgf, "sgf"), "sgf")
    if not checked:
        pytest.skip("no record of this file validates without errors")


# --- layouts GNU Backgammon writes (checked against its own export of the same matches) ---------

#: A left drop, a right opener, hits, a dance, and a resignation after a roll not played (one
#: string per line: GNU's trailing blanks are part of the layout).
GNU_DROP_AND_ROLL_NOT_PLAYED = "".join(
    line + "\n"
    for line in (
        '; [Site "Nowhere"]',
        '; [EventDate "2024.01.02"]',
        "",
        " 3 point match",
        "",
        " Game 1",
        " Alice : 0                      Bob : 0",
        "  1)                             31: 8/5 6/5 ",
        "  2) 64: 24/18 13/9              62: 13/11 13/7* ",
        "  3) 52: 25/23 23/18*            43: 25/22 11/7* ",
        "  4) 65:                         33: 24/21 24/21 7/4 4/1*",
        "  5) 21: 25/24* 25/23             Doubles => 2",
        "  6)  Drops                       Wins 1 point ",
        "",
        " Game 2",
        " Alice : 0                      Bob : 1",
        "  1) 42: 8/4 6/4                 21: 13/11 6/5 ",
        "  2) 53:                         Wins 2 points",
        "",
    )
)

#: Every way a result follows the last row: after a left play (the right player won), a right
#: roll not played (the left player won), a right play, a take.
GNU_RESULT_LINES = "".join(
    line + "\n"
    for line in (
        " 5 point match",
        "",
        " Game 1",
        " Alice : 0                      Bob : 0",
        "  1) 42: 8/4 6/4                 21: 13/11 6/5 ",
        "  2) 53: 13/10 13/8               Wins 1 point",
        "",
        " Game 2",
        " Alice : 0                      Bob : 1",
        "  1) 42: 8/4 6/4                 21: 13/11 6/5 ",
        "  2) 53: 13/10 13/8              61: ",
        "      Wins 1 point",
        "",
        " Game 3",
        " Alice : 1                      Bob : 1",
        "  1) 42: 8/4 6/4                 21: 13/11 6/5 ",
        "  2) 53: 13/10 13/8              61: 13/7 8/7 ",
        "                                  Wins 1 point",
        "",
        " Game 4",
        " Alice : 1                      Bob : 2",
        "  1) 42: 8/4 6/4                 21: 13/11 6/5 ",
        "  2)  Doubles => 2                Takes",
        "  3) 53: 13/10 13/8               Wins 2 points",
        "",
    )
)

#: A roll not played, then its roller's win: GNU writes the result on the roll's line there and
#: cannot import that line again; bgparse writes the result on its own line.
RESIGNED_AFTER_ROLLING = "".join(
    line + "\n"
    for line in (
        " 3 point match",
        "",
        " Game 1",
        " Alice : 0                      Bob : 0",
        "  1)                             21: 13/11 6/5 ",
        "  2) 42: 8/4 6/4                 61: ",
        "                                  Wins 1 point",
        "",
        " Game 2",
        " Alice : 0                      Bob : 1",
        "  1) 42: 8/4 6/4                 21: 13/11 6/5 ",
        "  2) 53:                         ",
        "      Wins 1 point",
        "",
    )
)

GNU_LAYOUTS = {
    "drop-and-roll-not-played": GNU_DROP_AND_ROLL_NOT_PLAYED,
    "results": GNU_RESULT_LINES,
}


@pytest.mark.parametrize("name", sorted(GNU_LAYOUTS))
def test_gnu_layout_is_written_again_unchanged(name: str) -> None:
    text = GNU_LAYOUTS[name]
    [record] = iter_records(text.encode(), f"{name}.mat")
    m = replay(record)
    assert m.ok
    assert write_mat(m) == text


def test_gnu_sgf_of_drop_and_roll_not_played() -> None:
    [record] = iter_records(GNU_DROP_AND_ROLL_NOT_PLAYED.encode(), "a.mat")
    assert write_sgf(replay(record)) == (
        "(;FF[4]GM[6]CA[UTF-8]AP[bgparse:0.1.0]MI[length:3][game:0][ws:0][bs:0]PW[Alice]PB[Bob]"
        "DT[2024-01-02]PC[Nowhere]RU[Crawford]RE[B+1]\n"
        ";B[31qtst]\n;W[64xrmi]\n;B[62lnlr]\n;W[52ywwr]\n;B[43ycnr]\n;W[65]\n"
        ";B[33adadruux]\n;W[21yxyw]\n;B[double]\n;W[drop])\n"
        "(;FF[4]GM[6]CA[UTF-8]AP[bgparse:0.1.0]MI[length:3][game:1][ws:0][bs:1]PW[Alice]PB[Bob]"
        "RU[Crawford]RE[B+2R]\n"
        ";W[42hdfd]\n;B[21lnst]\n;PL[W]DI[53])\n"
    )


def test_sgf_points_are_white_letters() -> None:
    assert [sgf_point(p, 0) for p in (1, 24, 25, 0)] == ["a", "x", "y", "z"]
    assert [sgf_point(p, 1) for p in (1, 24, 25, 0)] == ["x", "a", "y", "z"]


def test_beaver_take_is_explicit_in_sgf_and_implied_in_mat() -> None:
    m = generate_match(73, 0)
    sgf, mat = write_sgf(m), write_mat(m)
    beavers = sum(g.beavers for g in m.games)
    assert beavers and "Beavers =>" in mat and "Takes" not in _rows_after_beavers(mat)
    # In SGF every beaver is the doubled side's `double`, and a roll after one is a take.
    assert sgf.count("[double]") == sum(g.doubles + g.beavers for g in m.games)
    assert_same(m, read_back(sgf, "sgf"), "sgf")
    assert_same(m, read_back(mat, "mat"), "mat")


def _rows_after_beavers(mat: str) -> str:
    lines = mat.split("\n")
    return "\n".join(lines[i + 1] for i, line in enumerate(lines[:-1]) if "Beavers" in line)


SET_UP_SGF = (
    "(;FF[4]GM[6]CA[UTF-8]MI[length:5][game:0][ws:0][bs:0]PW[Alice]PB[Bob]RU[Crawford]\n"
    ";W[31hefe]\n;B[42lpln]\n"
    ";PL[W]AE[a:y]AW[a][a][b][b][c][c][d][d][e][e][f][f][g][l][m]"
    "AB[s][s][t][t][u][u][v][v][w][w][x][x][o][p][q]CV[2]CP[b]\n"
    ";W[52mhge]\n;B[61oupq])\n"
)


@pytest.mark.parametrize("via", ["mat", "sgf"])
def test_set_up_position_is_written_where_play_does_not_lead(via: str) -> None:
    [record] = iter_records(SET_UP_SGF.encode(), "setup.sgf")
    m = replay(record)
    assert m.ok
    text = write_mat(m) if via == "mat" else write_sgf(m)
    if via == "mat":
        assert "; Set Pos=" in text and text.count("; Set Pos=") == 1
    else:
        assert "AE[a:y]" in text and "CV[2]CP[b]" in text
    assert_same(m, read_back(text, via), via)


# --- every MatStyle knob --------------------------------------------------------------------------

#: A 5-point match and a money session that between them hold every action a style changes:
#: hits, entries, bear-offs, dances and rolls not played on both sides, four-step doubles,
#: repeated and chained moves, doubles, takes, drops, beavers, raccoons, gammons, the Crawford
#: game, resignations.
STYLE_SAMPLES = ((127, 5), (73, 0))


@pytest.fixture(scope="module")
def samples() -> list[VerifiedMatch]:
    return [generate_match(seed, length) for seed, length in STYLE_SAMPLES]


def test_style_samples_hold_every_action_a_style_changes(samples: list[VerifiedMatch]) -> None:
    seen: set[str] = set()
    for m in samples:
        for g in m.games:
            seen |= {"crawford"} if g.crawford else set()
            seen |= {f"end:{g.end}", str(g.result_type)}
            for t in g.turns:
                seen.add(f"{t.kind}{t.side}")
                seen |= {"bar" for s in t.steps if s[0] == 25}
                seen |= {"off" for s in t.steps if s[1] == 0}
                seen |= {"hit" for s in t.steps if s[2]}
                seen |= {"low-high"} if t.dice and t.dice[0] < t.dice[1] else set()
                seen |= {"repeat"} if len({s[:2] for s in t.steps}) < len(t.steps) else set()
                seen |= {"chain" for a in t.steps for b in t.steps if a[1] == b[0]}
    wanted = {"crawford", "end:normal", "end:drop", "end:resign", "gammon", "backgammon"}
    wanted |= {f"{k}{s}" for k in ("dance", "hidden", "double", "take", "drop") for s in (0, 1)}
    wanted |= {f"{k}{s}" for k in ("beaver", "raccoon") for s in (0, 1)}
    wanted |= {"bar", "off", "hit", "low-high", "repeat", "chain"}
    assert wanted <= seen, wanted - seen


def _right_cells_at(text: str, column: int) -> bool:
    rows = [ln for ln in text.splitlines() if re.match(r"\s*\d+\) \d\d: ", ln)]
    two = [ln for ln in rows if re.search(r"\d\d: .*\d\d: ", ln)]
    return bool(two) and all(re.match(r"\d\d:", ln[column:]) for ln in two if len(ln) > column)


#: Each knob value that differs from GNU's, with what must show in the file it writes.
STYLE_CASES: dict[str, tuple[dict[str, Any], Any]] = {
    "no-stars": ({"stars": False}, lambda t: "*" not in t),
    "bar-word": ({"bar": "bar"}, lambda t: "bar/" in t and " 25/" not in t),
    "Bar-word": ({"bar": "Bar"}, lambda t: "Bar/" in t),
    "off-word": ({"off": "off"}, lambda t: "/off" in t and not re.search(r"/0\b", t)),
    "Off-word": ({"off": "Off"}, lambda t: "/Off" in t),
    "counts": ({"counts": True}, lambda t: re.search(r"\d\*?\(\d\)", t)),
    "merge": (
        {"merge": True},
        lambda t: any(int(a) - int(b) > 6 for a, b in re.findall(r"\b(\d+)/(\d+)\b", t)),
    ),
    "merge-counts": ({"merge": True, "counts": True}, lambda t: re.search(r"\(\d\)", t)),
    "as-rolled": (
        {"dice_order": "as-rolled"},
        lambda t: any(a < b for a, b in re.findall(r"\b([1-6])([1-6]):", t)),
    ),
    "dance-empty": ({"dance": "empty"}, lambda t: re.search(r"\d\d:\n", t)),
    "dance-cannot-move": ({"dance": "cannot-move"}, lambda t: "Cannot Move" in t),
    "right-column-40": ({"right_column": 40}, lambda t: _right_cells_at(t, 40)),
    "right-column-44": ({"right_column": 44}, lambda t: _right_cells_at(t, 44)),
    "growing-row-numbers": (
        {"row_number_width": "growing"},
        lambda t: re.search(r"^  10\) ", t, re.M) and not re.search(r"^ 10\) ", t, re.M),
    ),
    "result-in-row": ({"result": "in-row"}, lambda t: re.search(r"^\s*\d+\)\s+Wins ", t, re.M)),
    "always-singular": (
        {"plural": "always-singular"},
        lambda t: re.search(r"Wins [2-9]\d* point\n", t),
    ),
    "always-plural": ({"plural": "always-plural"}, lambda t: "Wins 1 points" in t),
    "score-colon": ({"score_colon": ": "}, lambda t: re.search(r"\w: 0 +\w+: 0", t)),
    "no-leading-space": (
        {"leading_space": False},
        lambda t: re.search(r"^\d+ point match$", t, re.M) and "\nGame 1\n" in t,
    ),
    "no-cube-leading-space": (
        {"cube_leading_space": False},
        lambda t: re.search(r"\d\) Doubles", t) and "\n     Wins" in t,
    ),
    "long-arrow": ({"arrow": "==>"}, lambda t: "Doubles ==> " in t and "Beavers ==> " in t),
    "crlf": ({"newline": "\r\n"}, lambda t: t.count("\n") == t.count("\r\n") > 0),
    "and-the-match": ({"and_match": True}, lambda t: t.count("and the match") == 1),
    "losses-line": ({"losses_line": True}, lambda t: "Losses 1 point" in t),
    # Whole dialects, as their producers combine the knobs (formats.md §1.4).
    "studio": (
        {
            "bar": "bar",
            "off": "off",
            "counts": True,
            "merge": True,
            "dance": "cannot-move",
            "right_column": 40,
            "row_number_width": "growing",
            "result": "in-row",
            "plural": "always-singular",
            "leading_space": False,
        },
        lambda t: "bar/" in t and "Cannot Move" in t,
    ),
    "xg-mobile": (
        {"stars": False, "dice_order": "as-rolled", "dance": "empty", "right_column": 37},
        lambda t: "*" not in t,
    ),
    "galaxy-a": (
        {
            "stars": False,
            "plural": "always-singular",
            "leading_space": False,
            "losses_line": True,
            "and_match": True,
        },
        lambda t: "Losses" in t,
    ),
    "opengammon": (
        {
            "score_colon": ": ",
            "right_column": 44,
            "cube_leading_space": False,
            "plural": "always-plural",
            "dice_order": "as-rolled",
        },
        lambda t: "points" in t,
    ),
    "choue-net": (
        {
            "bar": "bar",
            "off": "off",
            "counts": True,
            "arrow": "==>",
            "dance": "cannot-move",
            "leading_space": False,
            "score_colon": ": ",
            "cube_leading_space": False,
        },
        lambda t: "==>" in t,
    ),
    "xg-text": (
        {
            "bar": "Bar",
            "off": "Off",
            "counts": True,
            "merge": True,
            "dance": "cannot-move",
            "right_column": 39,
            "newline": "\r\n",
            "and_match": True,
        },
        lambda t: "Bar/" in t and "\r\n" in t,
    ),
}


#: Whole dialects: they show what their knobs show, GNU's file may show some of it too.
DIALECTS = frozenset({"studio", "xg-mobile", "galaxy-a", "opengammon", "choue-net", "xg-text"})


@pytest.mark.parametrize("case", sorted(STYLE_CASES))
def test_every_style_reads_back_to_the_same_match(case: str, samples: list[VerifiedMatch]) -> None:
    knobs, shows = STYLE_CASES[case]
    style = MatStyle(**knobs)
    gnu = "".join(write_mat(m) for m in samples)
    text = "".join(write_mat(m, style) for m in samples)
    assert shows(text), f"the {case} style does not show in the file"
    assert case in DIALECTS or not shows(gnu), f"GNU's layout already shows {case}"
    steps = "exact" if not (style.merge or style.counts) else "board"
    for m in samples:
        assert_same(m, read_back(write_mat(m, style), "mat"), "mat", steps)


def test_default_style_is_gnu() -> None:
    assert MatStyle() == MatStyle(
        stars=True,
        bar="25",
        off="0",
        counts=False,
        merge=False,
        dice_order="high-low",
        dance="trailing",
        right_column=33,
        row_number_width="gnu",
        result="own-line",
        plural="correct",
        score_colon=" : ",
        leading_space=True,
        cube_leading_space=True,
        arrow="=>",
        newline="\n",
        and_match=False,
        losses_line=False,
    )


@pytest.mark.parametrize(
    "knobs",
    [{"bar": "BAR"}, {"off": "o"}, {"dance": "none"}, {"right_column": 12}, {"newline": "\r"}],
)
def test_style_refuses_values_no_producer_writes(knobs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="MatStyle"):
        MatStyle(**knobs)


# --- bgparse convert ------------------------------------------------------------------------------


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for seed in (1, 2):
        (folder / f"m{seed}.mat").write_text(write_mat(generate_match(seed, 3)), encoding="utf-8")
    return folder


def test_convert_writes_into_out_with_the_stem(inputs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    source = inputs / "m1.mat"
    result = CliRunner().invoke(app, ["convert", str(source), "--to", "sgf", "--out", str(out)])
    assert (result.exit_code, result.stderr) == (0, "")
    target = out / "m1.sgf"
    assert result.stdout == f"{source} -> {target}\n1 converted, 0 failed, 0 unreadable\n"
    [record] = read_path(source)
    assert target.read_text(encoding="utf-8") == write_sgf(replay(record))
    assert sorted(p.name for p in out.iterdir()) == ["m1.sgf"]


def test_convert_refuses_to_overwrite_without_force(inputs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "m1.mat").write_text("mine\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(app, ["convert", str(inputs), "--to", "mat", "--out", str(out)])
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"bgparse: {out / 'm1.mat'}: exists; not overwritten (use --force to replace it)\n"
    )
    assert (
        result.stdout
        == f"{inputs / 'm2.mat'} -> {out / 'm2.mat'}\n1 converted, 1 failed, 0 unreadable\n"
    )
    assert (out / "m1.mat").read_text(encoding="utf-8") == "mine\n"
    forced = runner.invoke(
        app, ["convert", str(inputs), "--to", "mat", "--out", str(out), "--force"]
    )
    assert (forced.exit_code, forced.stderr) == (0, "")
    # A GNU-layout file converted to .mat is the same file.
    assert (out / "m1.mat").read_bytes() == (inputs / "m1.mat").read_bytes()


def test_convert_replaces_a_link_in_out_instead_of_writing_through_it(
    inputs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n", encoding="utf-8")
    (out / "m1.sgf").symlink_to(outside)
    result = CliRunner().invoke(
        app, ["convert", str(inputs / "m1.mat"), "--to", "sgf", "--out", str(out), "--force"]
    )
    assert result.exit_code == 0
    assert outside.read_text(encoding="utf-8") == "keep\n"
    assert not (out / "m1.sgf").is_symlink()
    assert (out / "m1.sgf").read_text(encoding="utf-8").startswith("(;FF[4]GM[6]")


def test_convert_same_stem_twice_writes_once(inputs: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "m1.mat").write_bytes((inputs / "m2.mat").read_bytes())
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "convert",
            str(inputs / "m1.mat"),
            str(other / "m1.mat"),
            "--to",
            "sgf",
            "--out",
            str(out),
            "--force",
        ],
    )
    assert result.exit_code == 1
    assert "another input of this run was written there" in result.stderr
    [record] = read_path(inputs / "m1.mat")
    assert (out / "m1.sgf").read_text(encoding="utf-8") == write_sgf(replay(record))


def test_convert_goes_on_after_an_unreadable_file_and_exits_2(inputs: Path, tmp_path: Path) -> None:
    (inputs / "empty.mat").write_bytes(b"")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["convert", str(inputs), "--to", "sgf", "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr == f"{inputs / 'empty.mat'}:1:1: S001 file is empty\n"
    assert result.stdout.endswith("2 converted, 0 failed, 1 unreadable\n")
    assert sorted(p.name for p in out.iterdir()) == ["m1.sgf", "m2.sgf"]


def test_convert_reads_archives_and_names_outputs_by_member(inputs: Path, tmp_path: Path) -> None:
    import gzip
    import zipfile

    archive = tmp_path / "club.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(inputs / "m1.mat", "round1/m1.mat")
    packed = tmp_path / "m2.mat.gz"
    packed.write_bytes(gzip.compress((inputs / "m2.mat").read_bytes()))
    out = tmp_path / "out"
    args = ["convert", str(archive), str(packed), "--to", "sgf", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        f"{archive}!round1/m1.mat -> {out / 'round1' / 'm1.sgf'}\n"
        f"{packed}!m2.mat -> {out / 'm2.sgf'}\n2 converted, 0 failed, 0 unreadable\n"
    )
    for stem, where in (("m1", "round1/m1"), ("m2", "m2")):  # a member below the archive
        [record] = read_path(inputs / f"{stem}.mat")
        assert (out / f"{where}.sgf").read_text(encoding="utf-8") == write_sgf(replay(record))


def test_convert_usage_errors_exit_2(inputs: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = str(tmp_path / "o")
    bad_format = runner.invoke(app, ["convert", str(inputs), "--to", "txt", "--out", out])
    assert (bad_format.exit_code, bad_format.stderr) == (
        2,
        "bgparse: --to: 'txt' is not one of 'mat', 'sgf'\n",
    )
    missing = tmp_path / "missing"
    no_file = runner.invoke(app, ["convert", str(missing), "--to", "sgf", "--out", out])
    assert (no_file.exit_code, no_file.stderr) == (
        2,
        f"bgparse: {missing}: no such file or folder\n",
    )
    no_to = runner.invoke(app, ["convert", str(inputs), "--out", out])
    assert no_to.exit_code == 2
    assert not (tmp_path / "o").exists()


def test_convert_out_must_be_a_folder(inputs: Path, tmp_path: Path) -> None:
    not_folder = tmp_path / "file"
    not_folder.write_text("x", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["convert", str(inputs), "--to", "mat", "--out", str(not_folder)]
    )
    assert (result.exit_code, result.stderr) == (2, f"bgparse: --out {not_folder}: not a folder\n")


def test_convert_writes_a_record_with_errors_as_the_replay_reads_it(tmp_path: Path) -> None:
    source = tmp_path / "slip.mat"
    source.write_text(
        GNU_DROP_AND_ROLL_NOT_PLAYED.replace("64: 24/18 13/9 ", "64: 24/18 13/8 "),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["convert", str(source), "--to", "mat", "--out", str(out)])
    assert result.exit_code == 0
    assert result.stdout == (
        f"{source} -> {out / 'slip.mat'} (1 error: written as the replay reads them)\n"
        "1 converted, 0 failed, 0 unreadable\n"
    )
    [record] = read_path(source)
    assert (out / "slip.mat").read_text(encoding="utf-8") == write_mat(replay(record))


@pytest.mark.parametrize("to", ["mat", "sgf"])
def test_convert_keeps_every_match_of_a_file(tmp_path: Path, to: str) -> None:
    matches = [generate_match(seed, 3) for seed in (21, 22)]
    source = tmp_path / "two.mat"
    source.write_text("\n".join(write_mat(m) for m in matches), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["convert", str(source), "--to", to, "--out", str(out)])
    assert result.exit_code == 0
    written = read_path(out / f"two.{to}")
    assert len(written) == 2
    for m, record in zip(matches, written, strict=True):
        assert_same(m, replay(record), to)
