"""Counted nouns in messages: "1 match", "2 matches", never "1 matches" or "match(es)".

Here, at the bottom of the package, so that the rules engine (which imports nothing from the
rest of bgparse) and everything above it share one spelling.
"""

from __future__ import annotations

__all__ = ["plural"]

#: Plurals that adding "s" gets wrong, for the nouns bgparse counts.
_IRREGULAR = {"match": "matches"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`count` and `noun`, the noun in the plural unless the count is exactly one; thousands
    separated by commas. `many` is the plural where it is not `noun` + "s" and not known."""
    if count == 1 or count == -1:
        return f"{count:,} {noun}"
    return f"{count:,} {many or _IRREGULAR.get(noun) or noun + 's'}"
