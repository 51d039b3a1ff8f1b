"""RuleSet: defaults, header tags, SGF RU words, match normalisation, storage."""

from __future__ import annotations

import pytest

from bgparse.rules.ruleset import RuleNote, RuleSet


def codes(rules: RuleSet) -> list[str]:
    return [n.code for n in rules.notes]


def test_defaults_are_those_of_rules_md() -> None:
    r = RuleSet()
    assert r.as_dict() == {
        "crawford": True,
        "jacoby": False,
        "beavers": 0,
        "raccoons": True,
        "cube_limit": None,
        "cube": True,
        "automatic_doubles": 0,
        "holland": False,
        "backgammon_value": 3,
        "variant": "standard",
        "crawford_double": "report",
        "dead_cube": "allow",
    }
    assert r.cube_enabled
    assert r.checkers == 15


def test_xg_match_header() -> None:
    tags = [
        ("Site", "Copenhagen"),
        ("Player 1", "A"),
        ("Crawford", "On"),
        ("Jacoby", "Off"),
        ("Beaver", "Off"),
        ("CubeLimit", "1024"),
        ("Variation", "Backgammon"),
        ("Unrated", "Off"),
    ]
    r = RuleSet.from_tags(tags, 7)
    assert r == RuleSet(crawford=True, jacoby=False, beavers=0, cube_limit=1024)
    assert r.notes == ()


def test_xg_money_header_with_jacoby_and_beavers_on() -> None:
    r = RuleSet.from_tags({"Jacoby": "On", "Beaver": "On", "Cubelimit": "64"}, 0)
    assert (r.jacoby, r.beavers, r.raccoons, r.cube_limit) == (True, 3, True, 64)
    assert r.notes == ()


def test_match_ignores_money_options_and_notes_each() -> None:
    r = RuleSet.from_tags({"Jacoby": "On", "Beaver": "On"}, 5)
    assert (r.jacoby, r.beavers) == (False, 0)
    assert codes(r) == ["jacoby-in-match", "beavers-in-match"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("On", True),
        ("on  ", True),
        ("Yes", True),
        ("TRUE", True),
        ("1", True),
        ("Off", False),
        ("No", False),
        ("false", False),
        ("0", False),
    ],
)
def test_boolean_tag_values(value: str, expected: bool) -> None:
    assert RuleSet.from_tags({"Crawford": value}, 7).crawford is expected
    assert RuleSet.from_tags({"Jacoby": value}, 0).jacoby is expected


@pytest.mark.parametrize(
    ("value", "beavers"),
    [("On", 3), ("Yes", 3), ("Off", 0), ("No", 0), ("0", 0), ("1", 1), ("2", 2), (" 5 ", 5)],
)
def test_beaver_tag(value: str, beavers: int) -> None:
    assert RuleSet.from_tags({"Beaver": value}, 0).beavers == beavers


def test_unreadable_tag_values_keep_defaults_and_are_noted() -> None:
    r = RuleSet.from_tags({"Crawford": "maybe", "Beaver": "lots", "CubeLimit": "none"}, 7)
    assert r == RuleSet()
    assert codes(r) == ["bad-tag-value", "bad-tag-value", "bad-tag-value"]


def test_cube_limit_one_is_cubeless() -> None:
    r = RuleSet.from_tags({"CubeLimit": "1"}, 7)
    assert r.cube_limit == 1
    assert not r.cube_enabled


@pytest.mark.parametrize("key", ["CubeLimit", "Cubelimit", "cubelimit", " CUBELIMIT "])
def test_cube_limit_key_spellings(key: str) -> None:
    assert RuleSet.from_tags({key: "64 "}, 0).cube_limit == 64


def test_cube_limit_zero_is_not_a_limit() -> None:
    r = RuleSet.from_tags({"CubeLimit": "0"}, 0)
    assert r.cube_limit is None
    assert codes(r) == ["bad-tag-value"]


@pytest.mark.parametrize(
    ("value", "variant", "checkers"),
    [
        ("Backgammon", "standard", 15),
        ("NackGammon", "nackgammon", 15),
        ("HyperGammon (1)", "hypergammon1", 1),
        ("HyperGammon (2)", "hypergammon2", 2),
        ("Hypergammon 3 ", "hypergammon3", 3),
    ],
)
def test_variation_tag(value: str, variant: str, checkers: int) -> None:
    r = RuleSet.from_tags({"Variation": value}, 5)
    assert (r.variant, r.checkers) == (variant, checkers)
    assert r.notes == ()


def test_unknown_variation_is_standard_with_a_note() -> None:
    r = RuleSet.from_tags({"Variation": "Tavla"}, 5)
    assert r.variant == "standard"
    assert codes(r) == ["unknown-variation"]


def test_duplicate_rule_tag_first_counts() -> None:
    r = RuleSet.from_tags(
        [("Crawford", "Off"), ("crawford", "On"), ("Site", "x"), ("Site", "y")], 7
    )
    assert r.crawford is False
    assert codes(r) == ["duplicate-tag"]


@pytest.mark.parametrize(
    ("words", "length", "expected"),
    [
        ("Crawford", 7, RuleSet(crawford=True)),
        ("Crawford:CrawfordGame", 7, RuleSet(crawford=True)),
        ("CrawfordGame", 7, RuleSet(crawford=True)),
        ("", 7, RuleSet(crawford=False)),
        ("Jacoby", 0, RuleSet(crawford=False, jacoby=True)),
        (["Jacoby", "NoCube"], 0, RuleSet(crawford=False, jacoby=True, cube=False)),
        ("Crawford:Nackgammon", 5, RuleSet(variant="nackgammon")),
        ("Hypergammon1", 0, RuleSet(crawford=False, variant="hypergammon1")),
        ("Crawford:Hypergammon2", 3, RuleSet(variant="hypergammon2")),
        ("Hypergammon3", 0, RuleSet(crawford=False, variant="hypergammon3")),
        (None, 7, RuleSet()),
    ],
)
def test_from_sgf_rules(words: str | list[str] | None, length: int, expected: RuleSet) -> None:
    assert RuleSet.from_sgf_rules(words, length) == expected


def test_sgf_nocube_disables_the_cube() -> None:
    assert not RuleSet.from_sgf_rules("NoCube", 0).cube_enabled


def test_sgf_jacoby_in_a_match_is_ignored_and_noted() -> None:
    r = RuleSet.from_sgf_rules("Crawford:Jacoby", 7)
    assert r.jacoby is False
    assert codes(r) == ["jacoby-in-match"]


def test_sgf_unknown_word_is_noted() -> None:
    r = RuleSet.from_sgf_rules("Crawford:Tavli", 7)
    assert r == RuleSet()
    assert r.notes == (RuleNote("unknown-rule", "SGF rule 'Tavli' is not known"),)


def test_for_length_clears_automatic_doubles_in_a_match() -> None:
    money = RuleSet(automatic_doubles=1, beavers=3, jacoby=True)
    assert money.for_length(0) is money
    match = money.for_length(9)
    assert (match.automatic_doubles, match.beavers, match.jacoby) == (0, 0, False)
    assert codes(match) == ["jacoby-in-match", "beavers-in-match", "automatic-doubles-in-match"]


def test_replace_checks_values() -> None:
    r = RuleSet().replace(holland=True, backgammon_value=2)
    assert (r.holland, r.backgammon_value) == (True, 2)
    with pytest.raises(ValueError, match="backgammon_value"):
        RuleSet().replace(backgammon_value=4)
    with pytest.raises(ValueError, match="variant"):
        RuleSet().replace(variant="tavla")
    with pytest.raises(ValueError, match="crawford_double"):
        RuleSet().replace(crawford_double="ignore")
    with pytest.raises(ValueError, match="dead_cube"):
        RuleSet().replace(dead_cube="warn")
    with pytest.raises(ValueError, match="beavers"):
        RuleSet().replace(beavers=-1)
    with pytest.raises(ValueError, match="cube_limit"):
        RuleSet().replace(cube_limit=0)
    with pytest.raises(TypeError, match="crawford"):
        RuleSet().replace(crawford="on")
    with pytest.raises(TypeError, match="beavers"):
        RuleSet().replace(beavers=True)


def test_notes_do_not_take_part_in_equality() -> None:
    assert RuleSet(notes=(RuleNote("x", "y"),)) == RuleSet()


def test_as_dict_round_trip() -> None:
    r = RuleSet(jacoby=True, beavers=3, cube_limit=64, variant="nackgammon", holland=True)
    assert RuleSet.from_dict(r.as_dict()) == r
    with pytest.raises(ValueError, match="unknown rule option"):
        RuleSet.from_dict({"length": 7})
