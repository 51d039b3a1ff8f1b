"""The rule-set options of RULES.md (cube, scoring, variant), their defaults, and how a record's
header tags or SGF `RU` words select them.

The match length is not an option: it is match state (`bgparse.rules.match`). The options that
RULES.md §5 forbids in matches (Jacoby, beavers, automatic doubles) are switched off by
`RuleSet.for_length` whatever a tag says, and each time that happens a `RuleNote` is kept so
the replay can report it as information.

Documented choices:

- `Beaver "On"` (and `yes`/`true`) means 3 beavers and raccoons in total per double sequence,
  the common limit RULES.md §3 names and GNU Backgammon's default. A number (`"2"`) is taken
  as that limit, so `Beaver "1"` allows one beaver and no raccoon.
- `CubeLimit "1"` means cubeless: `cube_limit == 1` and `cube_enabled` is False.
- SGF `RU`: when a file has an `RU` property, the Crawford rule is on only if it names
  `Crawford` or `CrawfordGame` (GNU Backgammon writes `Crawford` whenever the rule is on);
  with no `RU` property at all the defaults stand (`from_sgf_rules(None, ...)`). GNU
  Backgammon leaves `RU` out when no rule applies (1-point matches, money play without
  Jacoby), where the two readings agree.
- Tag keys and values are read case-insensitively with surrounding spaces removed; for a tag
  given twice the first one counts, as `MatchRecord.tag` reads it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bgparse.rules.wording import plural

__all__ = [
    "CRAWFORD_DOUBLE_POLICIES",
    "DEAD_CUBE_POLICIES",
    "ILLEGAL_PLAY_POLICIES",
    "VARIANTS",
    "RuleNote",
    "RuleSet",
]

#: Starting positions a record may name (RULES.md §1).
VARIANTS = ("standard", "nackgammon", "hypergammon1", "hypergammon2", "hypergammon3")

#: What to do with a double inside the Crawford game: "report" scores the game as recorded,
#: "void" scores it as if the double never happened (an option RULES.md §5 names; no seed rule
#: sheet asks for it: the Swedish rules let the double stand once the result is recorded).
CRAWFORD_DOUBLE_POLICIES = ("report", "void")

#: "allow": a dead cube is legal and only noted; "forbid": a double of a cube that already
#: decides the match is refused (the cube may reach what the match needs, no more).
DEAD_CUBE_POLICIES = ("allow", "forbid")

#: What an illegal checker play is: "error" (P001), or "stands" where the rule book lets a play
#: nobody corrected before the next roll stand (P001 as a warning).
ILLEGAL_PLAY_POLICIES = ("error", "stands")

# Options added after the dataset's rules_json took its shape: stored (and printed) only where
# they differ from their default, so that every match replayed without them reads as before.
_ONLY_WHEN_SET = {"opening_double": False, "illegal_play": "error", "profile": None}

# The "commonly 3 in total" of RULES.md §3, used when a tag only says beavers are on.
_DEFAULT_BEAVER_LIMIT = 3

_TRUE = frozenset({"on", "yes", "true", "1", "y", "t"})
_FALSE = frozenset({"off", "no", "false", "0", "n", "f"})


@dataclass(frozen=True, slots=True)
class RuleNote:
    """Something about the rule set worth telling the user: a tag that was ignored or could
    not be read. `code` is stable; `message` is for people."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule option of RULES.md with its default.

    `beavers` is the number of beavers and raccoons allowed together in one double sequence
    (money play only; 0 = none); `raccoons` says whether a beaver may itself be redoubled
    within that limit. `cube_limit` is the highest value the cube may reach (None = no limit,
    1 = cubeless). `automatic_doubles` is the most automatic doubles per game (money only).
    `backgammon_value` is 3, or 2 where backgammons count as gammons. `opening_double`: the
    first roll of a game is a roll of two dice by the starting player, so it may be a double
    (the Danish rules). `illegal_play`: see `ILLEGAL_PLAY_POLICIES`. `profile` names the rule
    profile (`bgparse.rules.profiles`) the options came from, if any. `notes` records what
    `from_tags`, `from_sgf_rules` and `for_length` ignored; it takes no part in equality.
    """

    crawford: bool = True
    jacoby: bool = False
    beavers: int = 0
    raccoons: bool = True
    cube_limit: int | None = None
    cube: bool = True
    automatic_doubles: int = 0
    holland: bool = False
    backgammon_value: int = 3
    variant: str = "standard"
    crawford_double: str = "report"
    dead_cube: str = "allow"
    opening_double: bool = False
    illegal_play: str = "error"
    profile: str | None = None
    notes: tuple[RuleNote, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        # Options reach here from tags, CLI flags and stored dicts: check types, not just values.
        for name in ("crawford", "jacoby", "raccoons", "cube", "holland", "opening_double"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, not {getattr(self, name)!r}")
        for name in ("beavers", "automatic_doubles", "backgammon_value"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} must be a whole number, not {value!r}")
        if self.cube_limit is not None and (
            not isinstance(self.cube_limit, int) or isinstance(self.cube_limit, bool)
        ):
            raise TypeError(f"cube_limit must be a whole number or None, not {self.cube_limit!r}")
        if self.beavers < 0:
            raise ValueError(f"beavers must be 0 or more, not {self.beavers}")
        if self.cube_limit is not None and self.cube_limit < 1:
            raise ValueError(f"cube_limit must be 1 or more (or None), not {self.cube_limit}")
        if self.automatic_doubles < 0:
            raise ValueError(f"automatic_doubles must be 0 or more, not {self.automatic_doubles}")
        if self.backgammon_value not in (2, 3):
            raise ValueError(f"backgammon_value must be 2 or 3, not {self.backgammon_value}")
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {self.variant!r}")
        if self.crawford_double not in CRAWFORD_DOUBLE_POLICIES:
            raise ValueError(
                f"crawford_double must be 'report' or 'void', not {self.crawford_double!r}"
            )
        if self.dead_cube not in DEAD_CUBE_POLICIES:
            raise ValueError(f"dead_cube must be 'allow' or 'forbid', not {self.dead_cube!r}")
        if self.illegal_play not in ILLEGAL_PLAY_POLICIES:
            raise ValueError(f"illegal_play must be 'error' or 'stands', not {self.illegal_play!r}")
        if self.profile is not None and not isinstance(self.profile, str):
            raise TypeError(f"profile must be a name or None, not {self.profile!r}")

    # ----------------------------------------------------------------- derived

    @property
    def cube_enabled(self) -> bool:
        """Whether anyone may ever double: the cube is in use and a limit of 1 does not pin it."""
        return self.cube and (self.cube_limit is None or self.cube_limit > 1)

    @property
    def checkers(self) -> int:
        """Checkers per side in this variant."""
        return int(self.variant[-1]) if self.variant.startswith("hypergammon") else 15

    # ------------------------------------------------------------ constructors

    @classmethod
    def from_tags(cls, tags: Mapping[str, str] | Iterable[tuple[str, str]], length: int) -> RuleSet:
        """The rule set a `.mat` header gives (`Crawford`, `Jacoby`, `Beaver`, `CubeLimit`,
        `Variation`), normalised for a match of `length` points (0 = money session). Tags
        bgparse does not know (`Event`, `Player 1`, ...) are not rules and are skipped."""
        pairs = tags.items() if isinstance(tags, Mapping) else tags
        seen: dict[str, str] = {}
        notes: list[RuleNote] = []
        for key, value in pairs:
            k = _norm_key(key)
            if k in seen:
                if k in _TAG_KEYS:
                    notes.append(
                        RuleNote(
                            "duplicate-tag", f"tag {key.strip()!r} given twice; the first counts"
                        )
                    )
                continue
            seen[k] = value
        defaults = cls()
        crawford, jacoby = defaults.crawford, defaults.jacoby
        beavers, cube_limit, variant = defaults.beavers, defaults.cube_limit, defaults.variant
        for k, value in seen.items():
            v = value.strip()
            if k in ("crawford", "jacoby"):
                flag = _parse_bool(v)
                if flag is None:
                    notes.append(_bad_value(k, value))
                elif k == "crawford":
                    crawford = flag
                else:
                    jacoby = flag
            elif k in ("beaver", "beavers"):
                count = _parse_beaver(v)
                if count is None:
                    notes.append(_bad_value(k, value))
                else:
                    beavers = count
            elif k == "cubelimit":
                limit = _parse_count(v)
                if limit is not None and limit >= 1:
                    cube_limit = limit
                else:
                    notes.append(_bad_value(k, value))
            elif k in ("variation", "variant"):
                variant, note = _parse_variation(v)
                if note is not None:
                    notes.append(note)
        return cls(
            crawford=crawford,
            jacoby=jacoby,
            beavers=beavers,
            cube_limit=cube_limit,
            variant=variant,
            notes=tuple(notes),
        ).for_length(length)

    @classmethod
    def from_sgf_rules(cls, words: str | Iterable[str] | None, length: int) -> RuleSet:
        """The rule set an SGF root's `RU` property gives: a colon-joined string or its words
        (`Crawford`, `CrawfordGame`, `Jacoby`, `NoCube`, `Nackgammon`, `Hypergammon1/2/3`).
        Pass None when the file has no `RU` property: the defaults then stand."""
        if words is None:
            return cls().for_length(length)
        items = words.split(":") if isinstance(words, str) else list(words)
        crawford = False
        jacoby = False
        cube = True
        variant = "standard"
        notes: list[RuleNote] = []
        for word in items:
            w = word.strip().lower()
            if not w:
                continue
            if w in ("crawford", "crawfordgame"):
                # "CrawfordGame" marks this game as the Crawford game, so the rule is on too.
                crawford = True
            elif w == "jacoby":
                jacoby = True
            elif w == "nocube":
                cube = False
            elif w == "nackgammon":
                variant = "nackgammon"
            elif w in ("hypergammon1", "hypergammon2", "hypergammon3"):
                variant = w
            else:
                notes.append(RuleNote("unknown-rule", f"SGF rule {word.strip()!r} is not known"))
        return cls(
            crawford=crawford, jacoby=jacoby, cube=cube, variant=variant, notes=tuple(notes)
        ).for_length(length)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """The inverse of `as_dict` (unknown keys are an error, missing keys take defaults)."""
        names = {f.name for f in dataclasses.fields(cls)} - {"notes"}
        unknown = set(data) - names
        if unknown:
            raise ValueError(
                f"{plural(len(unknown), 'unknown rule option')}: {', '.join(sorted(unknown))}"
            )
        return dataclasses.replace(cls(), **data)

    # ------------------------------------------------------------- variations

    def replace(self, **overrides: Any) -> RuleSet:
        """A copy with some options changed (for CLI options); values are checked as in the
        constructor. Notes are kept; call `for_length` again if the match length matters."""
        return dataclasses.replace(self, **overrides)

    def for_length(self, length: int) -> RuleSet:
        """This rule set as it applies to a match of `length` points (0 = money session): in
        matches Jacoby, beavers and automatic doubles are off (RULES.md §5), and each option
        switched off here is noted."""
        if length < 0:
            raise ValueError(f"match length must be 0 or more, not {length}")
        if length == 0:
            return self
        notes = list(self.notes)
        if self.jacoby:
            notes.append(RuleNote("jacoby-in-match", "the Jacoby rule does not apply in a match"))
        if self.beavers:
            notes.append(RuleNote("beavers-in-match", "beavers are not allowed in a match"))
        if self.automatic_doubles:
            notes.append(
                RuleNote("automatic-doubles-in-match", "automatic doubles are not used in a match")
            )
        if len(notes) == len(self.notes):
            return self
        return dataclasses.replace(
            self, jacoby=False, beavers=0, automatic_doubles=0, notes=tuple(notes)
        )

    def as_dict(self) -> dict[str, object]:
        """Every option by name, for storage (notes are not options and are left out; the
        options of `_ONLY_WHEN_SET` only where they differ from their default)."""
        out: dict[str, object] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "notes" or (f.name in _ONLY_WHEN_SET and value == _ONLY_WHEN_SET[f.name]):
                continue
            out[f.name] = value
        return out


# Tag names (normalised) that carry rules; only these are checked for duplicates.
_TAG_KEYS = frozenset(
    {"crawford", "jacoby", "beaver", "beavers", "cubelimit", "variation", "variant"}
)


def _norm_key(key: str) -> str:
    # `CubeLimit`, `Cubelimit` and `Cube Limit` all name the same tag.
    return key.strip().lower().replace(" ", "")


def _parse_bool(value: str) -> bool | None:
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    return None


#: Digits a count in a rule tag may have: Python refuses to read 4,300, and a larger count
#: means no more than "no limit" (the readers report such numbers, S017).
_MAX_COUNT_DIGITS = 9


def _parse_count(value: str) -> int | None:
    """A whole number of at most `_MAX_COUNT_DIGITS` significant ASCII digits, else None."""
    v = value.strip()
    if not (v.isascii() and v.isdigit()) or len(v.lstrip("0")) > _MAX_COUNT_DIGITS:
        return None
    return int(v)


def _parse_beaver(value: str) -> int | None:
    v = value.strip().lower()
    if v.isdigit():
        return _parse_count(v)
    flag = _parse_bool(v)
    if flag is None:
        return None
    return _DEFAULT_BEAVER_LIMIT if flag else 0


_VARIATION_NAMES = {
    "backgammon": "standard",
    "standard": "standard",
    "nackgammon": "nackgammon",
    "hypergammon1": "hypergammon1",
    "hypergammon2": "hypergammon2",
    "hypergammon3": "hypergammon3",
}


def _parse_variation(value: str) -> tuple[str, RuleNote | None]:
    # "HyperGammon (2)", "Hypergammon 2", "hypergammon-2" all mean the same variant.
    key = re.sub(r"[\s()\-_]", "", value.lower())
    if key in _VARIATION_NAMES:
        return _VARIATION_NAMES[key], None
    if key == "hypergammon":
        return "hypergammon3", RuleNote(
            "variation-assumed", "Variation 'HyperGammon' without a number: 3 checkers assumed"
        )
    return "standard", RuleNote(
        "unknown-variation", f"Variation {value!r} is not known; standard backgammon assumed"
    )


def _bad_value(key: str, value: str) -> RuleNote:
    return RuleNote("bad-tag-value", f"tag {key!r} has a value bgparse cannot read: {value!r}")
