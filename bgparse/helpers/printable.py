"""Record text made safe to show: a record's own characters (a player's name, a line quoted
with a finding) reach terminals, SVG files and web pages, where a control character would
move the cursor, recolour or retitle the terminal (`ESC [31m`, `ESC ]0;...BEL`), or make an SVG
file ill-formed XML (XML allows no C0 control but tab and line ends).

Each control character becomes one visible character, so that a caret under a quoted line
still points at its column: C0 controls and DEL as their Unicode control pictures (`␛` for
ESC, U+2400 + the code), C1 controls (U+0080 to U+009F) as U+FFFD. Tab and newline are kept;
what is stored (the dataset, JSON, CSV) keeps the text exactly as the record has it."""

from __future__ import annotations

__all__ = ["printable"]

_TABLE = {c: 0x2400 + c for c in range(32) if c not in (9, 10)}
_TABLE[0x7F] = 0x2421
_TABLE.update({c: 0xFFFD for c in range(0x80, 0xA0)})


def printable(text: str) -> str:
    """`text` with every control character but tab and newline shown as one visible
    character."""
    if text.isprintable():
        return text
    return text.translate(_TABLE)
