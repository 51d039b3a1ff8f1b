"""Numbers as records write them, read with a bound so that no value can crash or slow a later step.

Python refuses to convert runs of more than 4,300 digits to an int (a `ValueError`), and a
number that does convert can still be too large for the dataset's int32 columns or for the
replay's arithmetic (a cube of 2**(10**200)). Every number a reader takes from a record goes
through `read_int` or `read_bounded`: one with more than `MAX_DIGITS` significant digits is
never converted; the reader reports it (S017, "number too large") at its line and column and
reads it as `MAX_NUMBER`, so the rest of the record is still read and checked.
"""

from __future__ import annotations

import re

__all__ = [
    "MAX_DIGITS",
    "MAX_NUMBER",
    "find_too_large",
    "quote",
    "read_bounded",
    "read_int",
    "too_large_message",
]

#: Significant digits a record's number may have. Nine keeps every value, and the sum of any
#: two, inside the int32 columns of the dataset; no real record comes near it.
MAX_DIGITS = 9
#: What a number too large to read is read as (with its S017 finding).
MAX_NUMBER = 10**MAX_DIGITS - 1

_LONG_RUN = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")


def _too_long(digits: str) -> bool:
    return len(digits) > MAX_DIGITS and len(digits.lstrip("0")) > MAX_DIGITS


def read_int(text: str) -> int | None:
    """The value of `text`, an optionally signed run of decimal digits (leading zeros allowed;
    any script's digits, as the readers' `\\d` and `int` take them), or None when it has more
    than `MAX_DIGITS` significant digits. Raises `ValueError` for text that is not such a
    number."""
    digits = text[1:] if text[:1] in ("-", "+") else text
    if not digits.isdecimal():
        raise ValueError(f"not a number: {quote(text)}")
    if _too_long(digits):
        return None
    return int(text)


def read_bounded(text: str, what: str) -> tuple[int, str | None]:
    """`text` (a number as `read_int` takes it) and None, or, when it is too large, the value
    it is read as (`MAX_NUMBER`, with its sign) and the S017 message naming it as `what`."""
    value = read_int(text)
    if value is not None:
        return value, None
    value = -MAX_NUMBER if text.startswith("-") else MAX_NUMBER
    return value, too_large_message(what, text, value)


def find_too_large(text: str, pos: int = 0) -> re.Match[str] | None:
    """The first run of decimal digits in `text` (from `pos`) with more than `MAX_DIGITS`
    significant digits: a cheap test of a whole line or game before looking closer."""
    for m in _LONG_RUN.finditer(text, pos):
        if _too_long(m.group()):
            return m
    return None


def quote(text: str, width: int = 24) -> str:
    """`text` in quotes, cut to `width` characters with an ellipsis: findings quote what a
    record wrote, and a record may write a 60,000-character word."""
    if len(text) <= width:
        return f"'{text}'"
    return f"'{text[: width - 1]}…'"


def too_large_message(what: str, text: str, read_as: int | None = None) -> str:
    """The S017 message for the number `text` standing for `what` ("match length", ...), read as
    `read_as` (None: the number is ignored)."""
    digits = len(text.lstrip("+-").lstrip("0"))
    tail = f"; read as {read_as:,}" if read_as is not None else "; ignored"
    return (
        f"number too large: {what} {quote(text, 16)} has {digits:,} digits "
        f"(at most {MAX_DIGITS}){tail}"
    )
