"""Option values checked before they reach DuckDB or C code: integers within the range of the
type that takes them, text that is valid UTF-8.

A command line's arguments are bytes; Python hands those that are not UTF-8 over as surrogate
escapes, which DuckDB (and any UTF-8 encoder) refuses with an exception of its own. A file
name may be such bytes (it is read by name, see `bgparse.helpers.paths`); a player's name, a source
label or SQL text cannot be, since the dataset holds only UTF-8 text.
"""

from __future__ import annotations

from bgparse.helpers.errors import UsageError

__all__ = ["INT_MAX", "OptionError", "checked_int", "utf8_text"]

#: DuckDB's INTEGER (a 32-bit signed integer), the type of the macros' numeric arguments.
INT_MAX = 2**31 - 1


class OptionError(UsageError, ValueError):
    """An option out of its range or shape, refused before any SQL runs."""


def checked_int(option: str, value: int, low: int = 0, high: int = INT_MAX) -> int:
    """`value` if `low <= value <= high`, else OptionError naming `option`."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        if high != INT_MAX:
            want = f"{low:,} to {high:,}"
        elif isinstance(value, int) and value > high:
            want = f"at most {high:,}"
        else:
            want = f"{low:,} or more"
        raise OptionError(f"{option} must be {want}, not {value!r}")
    return value


def utf8_text(option: str, value: str) -> str:
    """`value` if it is valid UTF-8 text (no surrogate escape of a byte that is not UTF-8),
    else OptionError naming `option` and the first such byte."""
    for i, ch in enumerate(value):
        if "\udc80" <= ch <= "\udcff":
            byte = ord(ch) - 0xDC00
            raise OptionError(
                f"{option} must be UTF-8 text: the byte \\x{byte:02x} at character {i + 1} is not"
            )
        if "\ud800" <= ch <= "\udfff":
            raise OptionError(f"{option} must be UTF-8 text: character {i + 1} is a surrogate")
    return value
