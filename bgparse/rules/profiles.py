"""Named rule profiles: the rule books of `../shared/seeds/` as sets of rule options.

A profile gives only the options its rule book settles; every other option keeps what the
record's header (or the default) says. `bgparse validate|import|convert --rules NAME` applies
one: the profile's options win over the record's tags, and an option given on the command line
(`--crawford`, `--beavers N`, ...) wins over the profile. docs/RULES.md lists each profile
rule by rule with the paragraph of its rule book, and what a record cannot show.

The rule books (their files in `seeds/`):

- `swedish`: the Swedish Backgammon Federation's (SBGF) tournament rules of 2010, with its
  introduction to the game (seed 000; the Swedish beginners' guide, seed 002, agrees).
- `danish`: the Danish rules of an online site (seed 001).
- `finnish`, `dutch`: Backgammon Circle's rules in Finnish (seed 003) and Dutch (seed 004), the
  same text: they give the same options.
- `standard`: no options: RULES.md's defaults and the record's own tags, as without `--rules`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["PROFILES", "Profile", "for_length", "profile_overrides"]


@dataclass(frozen=True, slots=True)
class Profile:
    """A rule book: its name, where it comes from, and the rule options it settles."""

    name: str
    source: str
    options: Mapping[str, Any]


_CIRCLE = MappingProxyType(
    {
        # "Crawford rule: ... the cube is taken out of play for the next game."
        "crawford": True,
        # "By convention only one automatic double per game is allowed" (money play).
        "automatic_doubles": 1,
        # "An illegal move ... must be pointed out before the next roll. Errors not pointed
        # out in time stand as played" (conventions, 5).
        "illegal_play": "stands",
    }
)

PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        "standard": Profile("standard", "RULES.md's defaults", MappingProxyType({})),
        "swedish": Profile(
            "swedish",
            "Svenska Backgammonförbundet's tournament rules (seed 000)",
            MappingProxyType(
                {
                    # Play §13: the Crawford rule in every match; a wrong double is put
                    # right when noticed but stands once the winner is recorded.
                    "crawford": True,
                    "crawford_double": "report",
                    "holland": False,  # play §12 (Jacoby and automatic doubles: matches only)
                    "backgammon_value": 3,  # play §11: gammons and backgammons count
                    "illegal_play": "stands",  # dice and moves §21
                }
            ),
        ),
        "danish": Profile(
            "danish",
            "the Danish rules (seed 001)",
            MappingProxyType(
                {
                    # "Startspilleren kaster to terninger": the first roll is a roll of two.
                    "opening_double": True,
                    # "Den maksimale indsats afhænger af antallet af point, der kræves".
                    "dead_cube": "forbid",
                    "backgammon_value": 3,
                }
            ),
        ),
        "finnish": Profile("finnish", "Backgammon Circle's rules in Finnish (seed 003)", _CIRCLE),
        "dutch": Profile("dutch", "Backgammon Circle's rules in Dutch (seed 004)", _CIRCLE),
    }
)


def profile_overrides(name: str, explicit: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The rule options of profile `name` as replay overrides, with `explicit` options (the
    command line's) winning over the profile's, and the profile's name (stored with each
    match). Raises ValueError naming the profiles for a name that is none."""
    profile = PROFILES.get(name.strip().lower())
    if profile is None:
        raise ValueError(f"unknown rule profile {name!r}: choose one of {', '.join(PROFILES)}")
    return {**profile.options, **(explicit or {}), "profile": profile.name}


#: Options for money play only (RULES.md §5): a profile's are not applied to a match.
_MONEY_ONLY = frozenset({"jacoby", "beavers", "automatic_doubles"})


def for_length(overrides: Mapping[str, Any], length: int) -> Mapping[str, Any]:
    """`overrides` as they apply to a match of `length` points: in a match, the money-only
    options a profile gave are left out (its rule book gives them for money play; an option
    given on the command line stays, and is noted as ignored as without a profile)."""
    profile = PROFILES.get(str(overrides.get("profile")))
    if length == 0 or profile is None:
        return overrides
    return {
        k: v
        for k, v in overrides.items()
        if not (k in _MONEY_ONLY and k in profile.options and profile.options[k] == v)
    }
