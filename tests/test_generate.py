"""The generator: the same bytes for the same seed, every generated match legal (the replay finds
no error in its written files) and scored right, the actions records hold, and `bgparse
generate` through the CLI."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.model.findings import Severity
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import iter_records
from bgparse.replay import replay
from bgparse.replay.generate import generate_match, generate_matches
from bgparse.rules import RuleSet
from bgparse.writers import write_mat, write_sgf
from tests.test_writers import assert_same, read_back


def _written(matches: list[VerifiedMatch]) -> tuple[str, str]:
    return "".join(write_mat(m) for m in matches), "".join(write_sgf(m) for m in matches)


def test_same_seed_same_bytes_other_seed_other_bytes() -> None:
    first = _written(list(generate_matches(3, 5, seed=11)))
    again = _written(list(generate_matches(3, 5, seed=11)))
    other = _written(list(generate_matches(3, 5, seed=12)))
    assert first == again
    assert first[0] != other[0] and first[1] != other[1]


def test_match_i_depends_only_on_the_seed_and_i() -> None:
    batch = list(generate_matches(4, 3, seed=5, money=True))
    assert write_mat(batch[3]) == write_mat(generate_match("5:3", 0, index=3))


@pytest.fixture(scope="module")
def batch() -> list[VerifiedMatch]:
    """Matches of every length class and money sessions, from fixed seeds."""
    matches = [generate_match(seed, length) for seed in range(6) for length in (1, 3, 7, 11)]
    return matches + [generate_match(seed, 0) for seed in range(12)]


def test_every_generated_match_is_legal_and_reads_back_the_same(batch: list[VerifiedMatch]) -> None:
    for m in batch:
        for via, text in (("mat", write_mat(m)), ("sgf", write_sgf(m))):
            again = read_back(text, via)
            bad = [f for f in again.findings if f.severity is not Severity.INFO]
            assert bad == [], (m.path, via, [f"{f.code} {f.message}" for f in bad])
            assert_same(m, again, via)


def test_matches_are_played_to_their_length_and_scored(batch: list[VerifiedMatch]) -> None:
    for m in batch:
        score = [0, 0]
        crawford_games = 0
        for g in m.games:
            assert g.score_before == tuple(score)
            assert g.winner is not None and g.points > 0
            score[g.winner] += g.points
            # The first roll of a game is two different dice.
            first = next(t for t in g.turns if t.dice)
            assert first.dice is not None and first.dice[0] != first.dice[1]
            if g.crawford:
                crawford_games += 1
                assert g.doubles == 0 and g.cube == 1
        assert m.final_score == tuple(score)
        if m.length:
            assert m.winner is not None and max(score) >= m.length
            assert all(max(g.score_before) < m.length for g in m.games)
            assert crawford_games <= 1
        else:
            assert m.winner is None and 2 <= len(m.games) <= 6
            assert all(not g.crawford for g in m.games)


def test_generated_games_hold_what_records_hold(batch: list[VerifiedMatch]) -> None:
    seen: Counter[str] = Counter()
    for m in batch:
        for g in m.games:
            seen[f"end:{g.end}"] += 1
            seen[str(g.result_type)] += 1
            seen["crawford"] += g.crawford
            for t in g.turns:
                seen[t.kind] += 1
                seen["hit"] += t.hits
                seen["enter"] += sum(1 for s in t.steps if s[0] == 25)
                seen["bear-off"] += sum(1 for s in t.steps if s[1] == 0)
    wanted = ["end:normal", "end:drop", "end:resign", "single", "gammon", "backgammon"]
    wanted += ["crawford", "play", "dance", "hidden", "double", "take", "drop", "beaver"]
    wanted += ["raccoon", "hit", "enter", "bear-off"]
    assert [w for w in wanted if not seen[w]] == []


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), length=st.sampled_from([0, 1, 2, 5, 9]))
def test_any_seed_gives_a_legal_match_both_formats_keep(seed: int, length: int) -> None:
    m = generate_match(seed, length)
    assert write_mat(generate_match(seed, length)) == write_mat(m)
    for via, text in (("mat", write_mat(m)), ("sgf", write_sgf(m))):
        assert_same(m, read_back(text, via), via)


@pytest.mark.parametrize(
    "rules",
    [RuleSet(beavers=3, cube_limit=8), RuleSet(beavers=3, raccoons=False)],
    ids=["cube-limit-8", "no-raccoons"],
)
def test_money_sessions_keep_the_beaver_rules_they_are_played_under(rules: RuleSet) -> None:
    # The generator once beavered past the cube limit and raccooned where the rules allow no
    # raccoon (and failed): it asks the game whether a beaver is allowed.
    matches = [generate_match(f"beavers:{i}", 0, games=4, rules=rules) for i in range(30)]
    cubes = [g.cube for m in matches for g in m.games]
    offers = Counter(c.offer for m in matches for g in m.games for c in g.cube_actions)
    assert offers["beaver"] > 0
    if rules.cube_limit is not None:
        assert max(cubes) <= rules.cube_limit
    if not rules.raccoons:
        assert offers["raccoon"] == 0
    for m in matches:
        [rec] = iter_records(write_mat(m).encode(), "beavers.mat")
        checked = replay(
            rec,
            {"beavers": rules.beavers, "raccoons": rules.raccoons, "cube_limit": rules.cube_limit},
        )
        assert [f.code for f in checked.findings if f.severity is Severity.ERROR] == []


def test_generate_refuses_a_negative_length() -> None:
    with pytest.raises(ValueError, match="match length"):
        generate_match(1, -1)


# --- bgparse generate -----------------------------------------------------------------------------


def test_generate_writes_numbered_files_for_the_seed(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["generate", "--matches", "3", "--length", "3", "--seed", "9", "--out", str(tmp_path)]
    result = runner.invoke(app, args)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == f"3 3-point match files written to {tmp_path}, 0 refused\n"
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["gen-9-00001.mat", "gen-9-00002.mat", "gen-9-00003.mat"]
    for i, name in enumerate(names):
        text = (tmp_path / name).read_text(encoding="utf-8")
        expected = write_mat(
            generate_match(f"9:{i}", 3, index=i),
            comments=(f"bgparse generate --seed 9: match {i + 1}",),
        )
        assert text == expected
        [record] = iter_records(text.encode(), name)
        assert replay(record).ok


def test_generate_sgf_money_sessions(tmp_path: Path) -> None:
    args = ["generate", "-n", "2", "--money", "--format", "sgf", "-s", "4", "-o", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0
    assert result.stdout == f"2 money session files written to {tmp_path}, 0 refused\n"
    for path in sorted(tmp_path.iterdir()):
        assert path.suffix == ".sgf"
        [record] = iter_records(path.read_bytes(), path.name)
        m = replay(record)
        assert m.ok and m.length == 0


def test_generate_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["generate", "-n", "2", "-l", "1", "-s", "3", "-o", str(tmp_path)]
    assert runner.invoke(app, args).exit_code == 0
    (tmp_path / "gen-3-00001.mat").write_text("mine\n", encoding="utf-8")
    again = runner.invoke(app, args)
    assert again.exit_code == 1
    target = tmp_path / "gen-3-00001.mat"
    assert again.stderr == (
        f"bgparse: {target}: exists; not overwritten (use --force to replace it)\n"
        f"bgparse: {tmp_path / 'gen-3-00002.mat'}: exists; not overwritten (use --force to replace it)\n"
    )
    assert again.stdout == f"0 1-point match files written to {tmp_path}, 2 refused\n"
    assert target.read_text(encoding="utf-8") == "mine\n"
    forced = runner.invoke(app, [*args, "--force"])
    assert forced.exit_code == 0
    assert target.read_text(encoding="utf-8").startswith('; [Transcriber "bgparse generate"]')


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "txt"], "bgparse: --format: 'txt' is not one of 'mat', 'sgf'\n"),
        (["--matches", "0"], "bgparse: --matches must be 1 or more, not 0\n"),
        (["--length", "0"], "bgparse: --length must be 1 to 64, not 0\n"),
        (["--length", "65"], "bgparse: --length must be 1 to 64, not 65\n"),
    ],
)
def test_generate_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["generate", *args, "--out", str(tmp_path / "o")])
    assert (result.exit_code, result.stderr) == (2, message)
    assert not (tmp_path / "o").exists()
