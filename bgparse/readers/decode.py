"""Bytes to text: BOM and encoding sniffing, line splitting, binary detection.

Line and column numbers of every later message refer to the original file: lines are split on
CRLF, CR or LF exactly as the file has them, and columns count decoded characters (1-based) of
the line before tabs are expanded.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

__all__ = ["MAX_LINE", "DecodedText", "decode_bytes", "looks_binary", "wide_encoding"]

#: Lines longer than this are refused (no real record has one; a 1 MB line is an attack or junk).
MAX_LINE = 64 * 1024


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str  # with line endings normalised to "\n"
    encoding: str  # "utf-8", "utf-8-sig", "utf-16-le", "utf-16-be", "utf-32-le"/"-be", "cp1252"
    newline: str  # "\n", "\r\n", "\r" or "mixed"/"" (most common one seen)
    fallback: bool  # True when UTF-8 failed and cp1252 was used


#: Control bytes no text record holds (tab, newlines, form feed and DOS end-of-file excepted).
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 26))


def looks_binary(data: bytes) -> bool:
    """True for data that is no text encoding a record is written in: more control characters
    (NUL among them) than a damaged text has, unless its NULs are the other half of UTF-16 (or
    UTF-32 with its byte order mark). A stray NUL or two in a text (a bad copy, an editor) does
    not cost the file: the line that holds one is reported where it stands."""
    head = data[:8192]
    if not head or wide_encoding(head):
        return False
    ctrl = len(head) - len(head.translate(None, _CONTROL))
    return ctrl > max(4, len(head) // 100)


def wide_encoding(data: bytes) -> bool:
    """Whether the text is UTF-16 or UTF-32 (by its byte order mark, or UTF-16's pattern of
    NULs), where a NUL byte is half of a character, not damage."""
    # (UTF-32 LE's byte order mark starts with UTF-16 LE's.)
    boms = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)
    return data.startswith(boms) or _utf16_encoding(data) is not None


def _utf16_encoding(data: bytes) -> str | None:
    """UTF-16 without a BOM shows as every other byte NUL in ASCII-heavy text: which one."""
    head = data[:4096]
    if len(head) < 4:
        return None
    even = head[0::2].count(0)
    odd = head[1::2].count(0)
    half = len(head) // 2
    if odd > half * 0.4 and even == 0:
        return "utf-16-le"
    if even > half * 0.4 and odd == 0:
        return "utf-16-be"
    return None


def decode_bytes(data: bytes) -> DecodedText:
    """Decode a record's bytes. Never raises for text; the caller checks `looks_binary` first."""
    fallback = False
    if data.startswith(codecs.BOM_UTF8):
        text, enc = data[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    elif data.startswith(codecs.BOM_UTF32_LE):  # before UTF-16's, which it starts with
        text, enc = data[4:].decode("utf-32-le", errors="replace"), "utf-32-le"
    elif data.startswith(codecs.BOM_UTF32_BE):
        text, enc = data[4:].decode("utf-32-be", errors="replace"), "utf-32-be"
    elif data.startswith(codecs.BOM_UTF16_LE):
        text, enc = data[2:].decode("utf-16-le", errors="replace"), "utf-16-le"
    elif data.startswith(codecs.BOM_UTF16_BE):
        text, enc = data[2:].decode("utf-16-be", errors="replace"), "utf-16-be"
    elif b"\x00" in data[:4096] and (u16 := _utf16_encoding(data)) is not None:
        # NUL bytes are valid UTF-8: UTF-16 is told by where they stand, before UTF-8 is tried.
        text, enc = data.decode(u16, errors="replace"), u16
    else:
        try:
            text, enc = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            # cp1252 leaves five bytes undefined; map those through latin-1 so nothing fails.
            text = data.decode("cp1252", errors="replace")
            if "\ufffd" in text:
                text = (
                    "".join(
                        ch if ch != "\ufffd" else data[i : i + 1].decode("latin-1")
                        for i, ch in enumerate(text)
                    )
                    if len(text) == len(data)
                    else data.decode("latin-1")
                )
            enc, fallback = "cp1252", True
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    if crlf == 0 and cr == 0:
        newline = "\n" if lf else ""
    else:
        newline = max((crlf, "\r\n"), (cr, "\r"), (lf, "\n"))[1]
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    return DecodedText(text, enc, newline, fallback)
