"""The stored facts of issue 12, each on a small hand-made record whose right answer is worked
out by hand in the test: beaver chains at their own cube levels, `jacoby_applied` under a
backgammon worth 2, post-Crawford games of a record that starts mid-way, and a duplicate
input that keeps its own findings. (The assumed-Crawford double is in test_replay_rules.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bgparse.ingest import ImportOptions, run_import
from bgparse.questions.query import connect, run
from bgparse.readers import iter_records
from bgparse.replay import replay
from bgparse.replay.generate import generate_match
from bgparse.rules import RuleSet
from bgparse.writers.mat import write_mat

#: A money game: Alice doubles to 2, Bob beavers to 4, Alice raccoons to 8, Bob redoubles
#: again to 16 (GNU writes every one of them `Beavers => N`), Alice rolls (the take), then
#: resigns a single game: Bob wins 16.
BEAVER_CHAIN = """\
 0 point match

 Game 1
 Alice : 0                       Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Beavers => 4
  3)  Beavers => 8                Beavers => 16
  4) 61: 13/7 8/7                52: 13/8 13/11
  5)                              Wins 16 points
"""

#: A 5-point match whose record starts at 4-1 (a resumed match): its Crawford game is taken
#: as played, so both games are post-Crawford. Bob, the trailer, doubles in each.
MIDWAY = """\
 5 point match

 Game 1
 Alice : 4                      Bob : 1
  1) 31: 8/5 6/5                 Doubles => 2
  2)  Drops                      Wins 1 point

 Game 2
 Alice : 4                      Bob : 2
  1) 42: 8/4 6/4                 Doubles => 2
  2)  Takes                      61: 13/7 8/7
  3)  Wins 2 points
"""

#: The same plays with two lines written wrong: game 1's `Wins` line (a drop at cube 1 is
#: worth 1, R001) and game 2's score line (4-2 after game 1, R002). The match identity leaves
#: both out, so this is a second copy of MIDWAY's match.
MIDWAY_BAD = MIDWAY.replace(
    "Drops                      Wins 1 point", "Drops                      Wins 2 points"
).replace("Alice : 4                      Bob : 2", "Alice : 4                      Bob : 3")


def imported(tmp_path: Path, files: dict[str, str], *, name: str = "data") -> Path:
    folder = tmp_path / f"in-{name}"
    folder.mkdir()
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    data = tmp_path / name
    run_import([folder], data, ImportOptions(workers=1))
    return data


def query(data: Path, sql: str) -> list[dict[str, Any]]:
    return run(connect(data), sql).to_pylist()


def test_a_beaver_chain_is_filed_at_its_own_cube_levels(tmp_path: Path) -> None:
    data = imported(tmp_path, {"beaver.mat": BEAVER_CHAIN})
    rows = query(
        data,
        "SELECT doubler, taker, offer, cube_before, cube_offered, cube_after, response, "
        "is_redouble, taker_recubed, doubler_result FROM cube_actions ORDER BY ply",
    )
    got = [tuple(r.values()) for r in rows]
    # One row per offer: who offered, at which cube, and the answer to it.
    assert got == [
        (0, 1, "double", 1, 2, 2, "beaver", False, False, -16),
        (1, 0, "beaver", 2, 4, 4, "raccoon", False, False, 16),
        (0, 1, "raccoon", 4, 8, 8, "raccoon", False, False, -16),
        (1, 0, "raccoon", 8, 16, 16, "take", False, False, 16),
    ]
    [game] = query(data, "SELECT n_doubles, n_beavers, n_takes, n_drops, final_cube FROM games")
    assert tuple(game.values()) == (1, 3, 1, 0, 16)


def test_jacoby_applied_follows_the_backgammon_value() -> None:
    """A backgammon counted as a gammon (--backgammon-value 2) with the Jacoby rule off is
    worth 2 × cube and stays a backgammon, no Jacoby single; with the rule on and the cube
    never turned it is a single worth 1 × cube. Checked in the generator's games and in the
    replay of the records it writes."""
    for jacoby in (False, True):
        rules = RuleSet(jacoby=jacoby, beavers=3, backgammon_value=2)
        found = 0
        for seed in range(300):
            m = generate_match(f"bg2:{seed}", 0, rules=rules)
            [rec] = iter_records(write_mat(m).encode(), "bg2.mat")
            again = replay(rec, {"backgammon_value": 2, "jacoby": jacoby})
            for made, read in zip(m.games, again.games, strict=True):
                if made.end != "normal" or made.result_type != "backgammon":
                    continue
                found += 1
                # A game played out with a cube action had its double taken: cube turned.
                applies = jacoby and not made.cube_actions
                for g in (made, read):
                    assert g.jacoby_applied is applies, (seed, g.number, jacoby)
                    assert g.points == (1 if applies else 2) * g.cube
                assert read.result_type == ("single" if applies else "backgammon")
            if found >= 3:
                break
        assert found >= 3, jacoby


def test_post_crawford_is_the_replays_for_a_record_that_starts_midway(tmp_path: Path) -> None:
    data = imported(tmp_path, {"midway.mat": MIDWAY})
    games = query(data, "SELECT game_no, is_crawford, is_post_crawford FROM games ORDER BY 1")
    assert [tuple(g.values()) for g in games] == [(1, False, True), (2, False, True)]
    cubes = query(data, "SELECT game_no, is_post_crawford FROM cube_actions ORDER BY 1")
    assert [tuple(c.values()) for c in cubes] == [(1, True), (2, True)]


def _ledger(data: Path) -> dict[str, tuple[Any, ...]]:
    rows = query(
        data,
        "SELECT path, status, n_matches, n_duplicate_matches, n_findings, n_errors FROM imports",
    )
    return {Path(r["path"]).name: tuple(r.values())[1:] for r in rows}


def _findings(data: Path) -> list[tuple[Any, ...]]:
    rows = query(
        data,
        "SELECT source_path, code, severity, line, in_duplicate FROM findings ORDER BY 1, 4",
    )
    return [(Path(r["source_path"]).name, *list(r.values())[1:]) for r in rows]


def test_a_duplicate_keeps_its_own_findings_in_one_import(tmp_path: Path) -> None:
    data = imported(tmp_path, {"a.mat": MIDWAY, "b.mat": MIDWAY_BAD})
    # a.mat: R007 (starts at 4-1, info). b.mat: the same R007, R001 at line 6, R002 at line 8.
    assert _ledger(data) == {
        "a.mat": ("imported", 1, 0, 1, 0),
        "b.mat": ("duplicate", 0, 1, 3, 2),
    }
    assert _findings(data) == [
        ("a.mat", "R007", "info", 3, False),
        ("b.mat", "R007", "info", 3, True),
        ("b.mat", "R001", "error", 6, True),
        ("b.mat", "R002", "error", 8, True),
    ]
    # The match is stored once, from a.mat; its error count is a.mat's.
    [m] = query(data, "SELECT source_path, n_errors FROM matches")
    assert (Path(m["source_path"]).name, m["n_errors"]) == ("a.mat", 0)


def test_a_duplicate_of_an_earlier_import_keeps_its_own_findings(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "bad.mat").write_text(MIDWAY_BAD, encoding="utf-8")
    data = tmp_path / "data"
    run_import([folder / "bad.mat"], data, ImportOptions(workers=1))
    (folder / "good.mat").write_text(MIDWAY, encoding="utf-8")
    run_import([folder / "good.mat"], data, ImportOptions(workers=1))
    assert _ledger(data) == {
        "bad.mat": ("imported", 1, 0, 3, 2),
        "good.mat": ("duplicate", 0, 1, 1, 0),
    }
    assert _findings(data) == [
        ("bad.mat", "R007", "info", 3, False),
        ("bad.mat", "R001", "error", 6, False),
        ("bad.mat", "R002", "error", 8, False),
        ("good.mat", "R007", "info", 3, True),
    ]
    # The findings statistic counts the stored copy's findings once, a duplicate's apart.
    summary = query(data, "SELECT code, findings, duplicate_findings, files, matches "
                          "FROM bg_findings_summary() ORDER BY code")  # fmt: skip
    assert [tuple(r.values()) for r in summary] == [
        ("R001", 1, 0, 1, 1),
        ("R002", 1, 0, 1, 1),
        ("R007", 1, 1, 2, 1),
    ]


#: A 1-point match: Alice wins game 1 (Bob resigns), and with it the match.
ONE_POINT = """\
 1 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Wins 1 point
"""


def stat(data: Path, name: str, **values: Any) -> list[dict[str, Any]]:
    from bgparse.questions.stats import get

    return get(name).run(connect(data), values).to_pylist()


def test_beavers_are_counted_as_beavers_not_doubles(tmp_path: Path) -> None:
    data = imported(tmp_path, {"beaver.mat": BEAVER_CHAIN, "midway.mat": MIDWAY})
    # Money rows of BEAVER_CHAIN: Alice's double (answered by a beaver), Bob's beaver offer
    # (answered by a raccoon), two raccoon offers (one answered by a raccoon, one taken).
    money = [
        (r["kind"], r["offers"], r["takes"], r["drops"], r["beavers"], r["doubler_wins"])
        for r in stat(data, "cube-rates", length=0)
    ]
    assert money == [
        ("initial", 1, 0, 0, 1, 0),
        ("beaver", 1, 0, 0, 1, 1),
        ("raccoon", 2, 1, 0, 1, 1),
        ("all", 4, 1, 0, 3, 2),
    ]
    # Each accepted offer at its own level; Bob (the offering side at 4 and 16) won 16.
    levels = [
        (r["cube_offered"], r["accepted"], r["beavered"], r["doubler_wins"], r["recubes"])
        for r in stat(data, "take-outcomes")
    ]
    assert levels == [(2, 2, 1, 0, 0), (4, 1, 1, 1, 0), (8, 1, 1, 0, 0), (16, 1, 0, 1, 0)]
    # 2: Alice's money double (beavered, she lost) and Bob's double in MIDWAY game 2 (taken,
    # Bob lost). Neither taker doubled later: a beaver is no recube.
    players = {
        r["player"]: (r["doubles"], r["doubled"], r["takes"], r["beavers"], r["drops"])
        for r in stat(data, "player")
    }
    # Alice: her money double, and MIDWAY's two doubles to her (one dropped, one taken).
    # Bob: MIDWAY's two doubles; Alice's money double to him, beavered.
    assert players == {"Alice": (1, 2, 1, 0, 1), "Bob": (2, 1, 0, 1, 0)}
    [alice] = [r for r in stat(data, "player") if r["player"] == "Alice"]
    assert alice["doubles_per_game"] == 1 / 3


def test_first_mover_and_cube_timing_leave_out_what_cannot_count(tmp_path: Path) -> None:
    data = imported(
        tmp_path, {"one.mat": ONE_POINT, "midway.mat": MIDWAY, "beaver.mat": BEAVER_CHAIN}
    )
    first = [(r["length"], r["matches"], r["game1_winner_won"], r["note"])
             for r in stat(data, "first-mover")]  # fmt: skip
    # Game 1 of MIDWAY was Bob's, the match Alice's; ONE_POINT's game 1 is its match.
    assert first == [
        ("money", 0, 0, None),
        ("1", 1, 1, "game 1 is the match"),
        ("5", 1, 0, None),
        ("all", 1, 0, "match columns without 1-point matches (game 1 decides them)"),
    ]
    # Four games; the 1-point match's allows no double: three games, and a first double in
    # each (Bob's at his first turn in MIDWAY's games, Alice's at her second in the money).
    timing = [(r["move_no"], r["first_doubles"], r["games"]) for r in stat(data, "cube-timing")]
    assert timing == [(1, 2, 3), (2, 1, 3)]


def test_each_finding_keeps_the_line_it_points_at(tmp_path: Path) -> None:
    """`findings.excerpt` is the record's line as `validate` shows it: the whole line, or on a
    long line (an SGF file is often one line) a 200-character window with the finding's
    column inside it. Replay findings carry no line of their own: the import reads it."""
    rolls = 400
    hostile = "(;FF[4]GM[6]" + "(;B[31]" * rolls + ")" * rolls + ")"
    data = imported(tmp_path, {"bad.mat": MIDWAY_BAD, "long.sgf": hostile})
    rows = query(data, 'SELECT source_path, code, line, "column", excerpt FROM findings')
    lines = MIDWAY_BAD.split("\n")
    mat = [r for r in rows if r["source_path"].endswith("bad.mat")]
    assert {r["code"] for r in mat} == {"R007", "R001", "R002"}
    assert all(r["excerpt"] == lines[r["line"] - 1] for r in mat)
    sgf = [r for r in rows if r["source_path"].endswith("long.sgf") and r["code"] == "P001"]
    assert len(sgf) >= rolls - 1 and all(r["line"] == 1 for r in sgf)
    for r in sgf:
        excerpt, column = r["excerpt"], r["column"]
        assert len(excerpt) == 200
        start = hostile.index(excerpt, max(0, column - 200))
        assert start < column <= start + 200 and hostile[column - 1] == "B"


def test_a_file_of_many_matches_is_decoded_once_for_its_excerpts(monkeypatch: Any) -> None:
    """The lines findings point at come from the file's text decoded once, however many of
    its matches have findings (decoding it again per match cost the square of the file)."""
    import bgparse.readers as readers
    from bgparse.ingest import verify_file

    calls = []
    real = readers.decode_bytes

    def counted(data: bytes) -> Any:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(readers, "decode_bytes", counted)
    data = "\n".join([MIDWAY_BAD] * 30).encode()
    matches = list(verify_file(data, "many.mat"))
    assert len(matches) == 30
    assert all(f.source_line is not None for m in matches for f in m.findings if f.line > 0)
    assert len(calls) == 2  # once to read the records, once for the findings' lines
