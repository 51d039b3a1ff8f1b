"""Rule profiles (`--rules NAME`): the seeds' rule books as named sets of rule options, each
with a record one profile accepts and another rejects, their precedence under the individual
options, and their name stored with an import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.questions.query import connect, run
from bgparse.rules.profiles import PROFILES, profile_overrides
from bgparse.rules.ruleset import RuleSet

runner = CliRunner()

# Bob plays only one die of his 2-1 where both can be played.
ILLEGAL = """\
 3 point match

 Game 1
 Alice : 0                          Bob : 0
  1) 31: 8/5 6/5                    21: 13/11
  2) 64: 24/18 13/9
      Wins 1 point
"""

# The first roll of the game is a double.
OPENING_DOUBLE = """\
 3 point match

 Game 1
 Alice : 0                          Bob : 0
  1) 33: 8/5(2) 6/3(2)              64: 24/18 13/9
      Wins 1 point
"""

# At 3-away 3-away: 2, 4 (dead, noted), then a redouble of the 4 that decides the match.
REDOUBLED = """\
 3 point match

 Game 1
 Alice : 0                          Bob : 0
  1)  Doubles => 2                  Takes
  2)  31: 8/5 6/5                   Doubles => 4
  3)  Takes                         64: 24/18 13/9
  4)  Doubles => 8                  Takes
  5)  52: 13/8 13/11
      Wins 8 points and the match
"""

# Alice reaches 2 of 3; Bob doubles in the Crawford game after it, and Alice drops.
CRAWFORD_DOUBLE = """\
 3 point match

 Game 1
 Alice : 0                          Bob : 0
  1) 31: 8/5 6/5                    64: 24/18 13/9
      Wins 2 points

 Game 2
 Alice : 2                          Bob : 0
  1) 31: 8/5 6/5                    Doubles => 2
  2)  Drops
                                    Wins 1 point
"""

_PLAY = (
    "{path}:5:37: {sev}: P001 illegal play 21: 13/11 [fewer-dice-than-possible]: the play "
    "uses 1 of the dice 2-1; legal plays use 2 (e.g. 24/23 24/22){stands}\n"
    "      1) 31: 8/5 6/5                    21: 13/11\n"
    "                                        ^\n"
)
_LEGAL = (
    "legal plays: 24/23 24/22, 24/22 8/7, 24/22 6/5, 24/21, 24/23 13/11, 13/11 8/7, "
    "13/11 6/5, 13/10 (+7 more)"
)


def _play_finding(out: str) -> str:
    """The P001 finding's three lines and the summary, the board drawn between them left out
    (tests/rules hold the diagram); the legal plays line checked in passing."""
    lines = out.splitlines()
    assert lines[-2] == _LEGAL
    return "\n".join(lines[:3]) + "\n" + lines[-1] + "\n"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _validate(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["validate", "--quiet", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("name", ["swedish", "finnish", "dutch"])
def test_an_illegal_play_stands_under_the_swedish_finnish_and_dutch_rules(
    tmp_path: Path, name: str
) -> None:
    path = _write(tmp_path, "illegal.mat", ILLEGAL)
    code, out = _validate("--rules", name, str(path))
    stands = f" (it stands under the {name} rules: not corrected in time)"
    assert (code, _play_finding(out)) == (
        0,
        _PLAY.format(path=path, sev="warning", stands=stands)
        + "1 file, 1 match: 0 errors, 1 warning; 0 matches with errors, 1 with warnings only\n",
    )


@pytest.mark.parametrize("name", [None, "standard", "danish"])
def test_an_illegal_play_is_an_error_under_the_standard_and_danish_rules(
    tmp_path: Path, name: str | None
) -> None:
    path = _write(tmp_path, "illegal.mat", ILLEGAL)
    code, out = _validate(*(["--rules", name] if name else []), str(path))
    assert (code, _play_finding(out)) == (
        1,
        _PLAY.format(path=path, sev="error", stands="")
        + "1 file, 1 match: 1 error, 0 warnings; 1 match with errors, 0 with warnings only\n",
    )


def test_an_opening_double_is_legal_only_under_the_danish_rules(tmp_path: Path) -> None:
    path = _write(tmp_path, "opening.mat", OPENING_DOUBLE)
    assert _validate("--rules", "danish", str(path)) == (
        0,
        "1 file, 1 match: 0 errors, 0 warnings; 0 matches with errors, 0 with warnings only\n",
    )
    for name in ("standard", "swedish", "finnish", "dutch"):
        assert _validate("--rules", name, str(path)) == (
            1,
            f"{path}:5:6: error: P008 the opening roll 3-3 is a double: the first player plays "
            "the two different opening dice\n"
            "      1) 33: 8/5(2) 6/3(2)              64: 24/18 13/9\n"
            "         ^\n"
            "1 file, 1 match: 1 error, 0 warnings; 1 match with errors, 0 with warnings only\n",
        ), name


def test_the_danish_rules_refuse_a_redouble_of_a_cube_that_decides_the_match(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, "redoubled.mat", REDOUBLED)
    assert _validate("--rules", "standard", str(path)) == (
        0,
        "1 file, 1 match: 0 errors, 0 warnings; 0 matches with errors, 0 with warnings only\n",
    )
    assert _validate("--rules", "danish", str(path)) == (
        1,
        f"{path}:8:7: error: C001 a double to 8, but a cube of 4 already decides the "
        "3-point match at 0-0 with any win [dead-cube]\n"
        "      4)  Doubles => 8                  Takes\n"
        "          ^\n"
        "1 file, 1 match: 1 error, 0 warnings; 1 match with errors, 0 with warnings only\n",
    )


def test_a_profile_that_states_the_crawford_rule_does_not_call_it_assumed(tmp_path: Path) -> None:
    path = _write(tmp_path, "crawford.mat", CRAWFORD_DOUBLE)
    head = f"{path}:10:37: error: C007 no one may double in the Crawford game"
    _, standard = _validate(str(path))
    assert standard.startswith(f"{head} (the Crawford rule is assumed: the record does not say")
    _, swedish = _validate("--rules", "swedish", str(path))
    assert swedish.startswith(f"{head} [crawford-game]\n")
    # An option given as well wins over the profile's.
    assert _validate("--rules", "swedish", "--no-crawford", str(path)) == (
        0,
        "1 file, 1 match: 0 errors, 0 warnings; 0 matches with errors, 0 with warnings only\n",
    )


def test_the_rules_a_profile_gives_are_printed_and_an_option_wins_over_them(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, "illegal.mat", ILLEGAL)
    result = runner.invoke(
        app,
        ["validate", "--format", "json", "--rules", "Danish", "--backgammon-value", "2", str(path)],
    )
    rules = json.loads(result.stdout)["rules"]
    assert rules == {
        **RuleSet().as_dict(),
        "opening_double": True,
        "dead_cube": "forbid",
        "backgammon_value": 2,
        "profile": "danish",
    }
    # Without --rules the record's rules print as before: no profile, no new option.
    plain = json.loads(runner.invoke(app, ["validate", "--format", "json", str(path)]).stdout)
    assert plain["rules"] == RuleSet().as_dict()
    assert "profile" not in plain["rules"] and "illegal_play" not in plain["rules"]


def test_a_profile_s_money_options_are_left_out_of_a_match(tmp_path: Path) -> None:
    # Backgammon Circle allows one automatic double in money play: not in a match, and not
    # noted as a tag the match ignores.
    path = _write(tmp_path, "illegal.mat", ILLEGAL)
    result = runner.invoke(app, ["validate", "--format", "json", "--rules", "finnish", str(path)])
    record = json.loads(result.stdout)
    assert record["rules"]["automatic_doubles"] == 0
    assert [f["code"] for f in record["findings"]] == ["R004", "P001"]
    money = path.with_name("money.mat")
    money.write_text(ILLEGAL.replace(" 3 point match", " 0 point match"))
    result = runner.invoke(app, ["validate", "--format", "json", "--rules", "finnish", str(money)])
    assert json.loads(result.stdout)["rules"]["automatic_doubles"] == 1


@pytest.mark.parametrize("command", ["validate", "import", "convert"])
def test_an_unknown_profile_is_a_usage_error(tmp_path: Path, command: str) -> None:
    path = _write(tmp_path, "illegal.mat", ILLEGAL)
    extra = {"validate": [], "import": ["--data", str(tmp_path / "d")], "convert": ["--to", "sgf"]}
    result = runner.invoke(app, [command, str(path), "--rules", "norse", *extra[command]])
    assert (result.exit_code, result.output) == (
        2,
        "bgparse: --rules: unknown rule profile 'norse': choose one of standard, swedish, "
        "danish, finnish, dutch\n",
    )


def test_import_stores_the_profile_and_the_findings_it_gives(tmp_path: Path) -> None:
    path = _write(tmp_path, "illegal.mat", ILLEGAL)
    data = tmp_path / "data"
    result = runner.invoke(
        app, ["import", str(path), "--data", str(data), "--workers", "1", "--rules", "swedish"]
    )
    assert result.exit_code == 0, result.output
    con = connect(data)
    [row] = run(con, "select rules_json from matches").to_pylist()
    rules = json.loads(row["rules_json"])
    assert (rules["profile"], rules["illegal_play"], rules["crawford"]) == (
        "swedish",
        "stands",
        True,
    )
    found = run(con, "select code, severity, line from findings order by line").to_pylist()
    assert found == [
        {"code": "R004", "severity": "info", "line": 3},
        {"code": "P001", "severity": "warning", "line": 5},
    ]


def test_convert_replays_under_the_profile(tmp_path: Path) -> None:
    path = _write(tmp_path, "opening.mat", OPENING_DOUBLE)
    out = tmp_path / "out"
    out.mkdir()
    result = runner.invoke(
        app, ["convert", str(path), "--to", "sgf", "-o", str(out), "--rules", "danish"]
    )
    assert result.exit_code == 0, result.output
    assert (out / "opening.sgf").is_file()


def test_every_profile_names_only_rule_options_and_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "RULES.md").read_text()
    for name, profile in PROFILES.items():
        rules = RuleSet().replace(**profile_overrides(name))
        assert rules.profile == name
        assert all(getattr(rules, k) == v for k, v in profile.options.items()), name
        assert f"`{name}`" in doc, name
    assert PROFILES["finnish"].options == PROFILES["dutch"].options  # one text, two languages
