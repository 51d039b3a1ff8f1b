"""How bgparse shows and stores a file's name: one escaped, printable, valid UTF-8 form that
maps back to the file system's exact name.

A POSIX file name is bytes. Python hands over the bytes that are not UTF-8 as lone surrogates
(`os.fsdecode`), which no UTF-8 writer (Parquet, JSON, a terminal) accepts, and a name may hold
a newline, which would split a report line in two. So every name bgparse prints or stores is
its display form:

- a byte that is not valid UTF-8 becomes `\\xNN` (NN from 80 to ff);
- a newline, carriage return and tab become `\\n`, `\\r`, `\\t`; any other control character
  below U+0080 becomes `\\xNN` (NN below 80, so it never reads as an undecodable byte);
- C1 controls, the line and paragraph separators, the bidirectional overrides and isolates
  (which reorder what a terminal shows) and a lone surrogate that is not an undecodable byte
  become `\\uXXXX`;
- a backslash followed by another backslash, by `x`, `u`, `n`, `r` or `t`, or by a character
  escaped above, becomes `\\\\`, so that the form reads back to exactly one name; any other
  backslash (`C:\\data`, `round1\\game.mat`) is kept as it is.

Every other character, non-ASCII letters included, is kept as it is: a name that needs none of
this (almost every name) is shown unchanged. `path_from_display` inverts the form.
"""

from __future__ import annotations

import os
import re
from typing import Final

__all__ = ["display_path", "path_from_display"]

_NAMED: Final = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNNAMED: Final = {v: k for k, v in _NAMED.items()}

#: Characters the display form escapes; anything else passes through.
_CONTROL = r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
#: ...and a backslash where it would read as the start of an escape.
_UNSAFE = re.compile(rf"\\(?=[\\xunrt]|{_CONTROL})|{_CONTROL}")
_ESCAPE = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|[\\nrt])")


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    named = _NAMED.get(c)
    if named is not None:
        return named
    code = ord(c)
    if code < 0x80:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for an undecodable byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def display_path(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """The display form of a file name (or `archive!member` label): printable on one line,
    valid UTF-8, and unchanged unless it holds something above that needs escaping."""
    text = os.fsdecode(path)
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


def _unescape(m: re.Match[str]) -> str:
    e = m.group()
    named = _UNNAMED.get(e)
    if named is not None:
        return named
    code = int(e[2:], 16)
    if e[1] == "x" and code >= 0x80:
        return chr(0xDC00 + code)
    return chr(code)


def path_from_display(text: str) -> str:
    """The name a display form stands for, as `os.fsdecode` gives it (`os.fsencode` of it is
    the file system's bytes). A backslash that starts no escape is kept as it is."""
    if "\\" not in text:
        return text
    return _ESCAPE.sub(_unescape, text)
