"""Findings (what a reader or the replay has to say about a record) and the error types.

A finding has a stable code, a severity, a message that names the rule, and a place in the
file. Codes are grouped by their first letter: S syntax and layout, P checker play, C cube,
R results and scores, M match consistency, N notation, I information.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from bgparse.helpers.errors import InputError
from bgparse.helpers.printable import printable

__all__ = [
    "CODES",
    "Finding",
    "IllegalPlayError",
    "RecordError",
    "Severity",
    "SyntaxRecordError",
    "format_finding",
]


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


#: Every finding code bgparse emits, with its default severity and a one-line description.
#: Kept in one table so the CLI can list them and tests can check nothing is undocumented.
CODES: dict[str, tuple[Severity, str]] = {
    # syntax and layout (readers)
    "S001": (Severity.ERROR, "file is empty"),
    "S002": (Severity.ERROR, "file is binary, not a text match record"),
    "S003": (Severity.ERROR, "file is another format bgparse does not read as a match record"),
    "S004": (Severity.ERROR, "no 'N point match' line: not a Jellyfish match file"),
    "S005": (Severity.ERROR, "a line the reader cannot parse"),
    "S006": (Severity.ERROR, "a cell the reader cannot parse"),
    "S007": (Severity.ERROR, "a line longer than the reader accepts"),
    "S008": (Severity.ERROR, "game header without a score line"),
    "S009": (Severity.WARNING, "text could not be decoded as UTF-8; read as Windows-1252"),
    "S010": (Severity.ERROR, "SGF syntax error"),
    "S011": (Severity.ERROR, "SGF property with a value bgparse cannot read"),
    "S012": (Severity.WARNING, "game has no actions"),
    "S013": (Severity.WARNING, "text outside any game was ignored"),
    "S014": (Severity.ERROR, "match length out of range"),
    "S015": (Severity.ERROR, "file is larger than the reader accepts"),
    "S016": (Severity.ERROR, "input cannot be read (I/O, archive or compression error, refused)"),
    "S017": (Severity.ERROR, "number too large to read"),
    "S020": (
        Severity.ERROR,
        "eXtreme Gammon file damaged: header, archive, compressed data or CRC",
    ),
    "S021": (
        Severity.ERROR,
        "eXtreme Gammon record that cannot be read (cut, out of place, bad value)",
    ),
    "S022": (Severity.WARNING, "eXtreme Gammon's own board after a play differs from its steps"),
    "S023": (Severity.WARNING, "the file ends with NUL bytes (a padded or damaged copy): ignored"),
    "S024": (Severity.WARNING, "a single game without a match line ('.gam'): read as money play"),
    # checker play (replay)
    "P001": (Severity.ERROR, "illegal checker play"),
    "P002": (Severity.ERROR, "impossible dice"),
    "P003": (Severity.ERROR, "play recorded after the game was over"),
    "P004": (Severity.ERROR, "missing play: a legal play exists but none is recorded"),
    "P005": (Severity.WARNING, "ambiguous notation: several plays fit the record"),
    "P006": (Severity.ERROR, "roll out of turn"),
    "P007": (Severity.INFO, "hidden play"),
    "P008": (Severity.ERROR, "opening roll is a double"),
    "P009": (Severity.ERROR, "the producer marks the play as illegal (a board dump)"),
    # cube
    "C001": (Severity.ERROR, "double not allowed"),
    "C002": (Severity.ERROR, "take or drop without a pending double"),
    "C003": (Severity.ERROR, "double not answered"),
    "C004": (Severity.ERROR, "beaver not allowed"),
    "C005": (Severity.ERROR, "cube value does not follow the cube"),
    "C006": (Severity.INFO, "dead cube: beyond what either side needs"),
    "C007": (Severity.ERROR, "double in the Crawford game"),
    # results and scores
    "R001": (Severity.ERROR, "'Wins' points differ from what the game's end and cube give"),
    "R002": (Severity.ERROR, "game score line differs from the running score"),
    "R003": (Severity.ERROR, "game recorded after the match was won"),
    "R004": (Severity.INFO, "match ends short of its length"),
    "R005": (Severity.ERROR, "winner differs from the game's end"),
    "R006": (Severity.WARNING, "game ends without a result"),
    "R007": (Severity.INFO, "first game starts from a non-zero score"),
    "R008": (Severity.INFO, "result capped to the points the winner needed"),
    "R009": (Severity.WARNING, "resignation value is a known producer defect"),
    "R010": (Severity.INFO, "Jacoby rule inferred from the results"),
    "R011": (Severity.INFO, "game won without the record showing why (resignation or forfeit)"),
    "R012": (Severity.WARNING, "'Losses' line differs from the result"),
    # stored analysis (an analysed record's notes against its verified turns)
    "A001": (Severity.WARNING, "analysis of an action the record has no turn for"),
    "A002": (Severity.WARNING, "the analysis marks another play than the record's as played"),
    "A003": (Severity.WARNING, "stored analysis the reader cannot read"),
    # notation
    "N001": (Severity.WARNING, "hit star on a step that hits nothing"),
    "N002": (Severity.WARNING, "hit without a star"),
    "N003": (Severity.WARNING, "a '0/0' placeholder for an unplayed die was ignored"),
    "N004": (Severity.INFO, "too many illegal plays to search each for the board after it"),
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing to say about a record, at a place in the file (1-based line and column;
    0 where the finding concerns the whole file)."""

    code: str
    severity: Severity
    message: str
    line: int = 0
    column: int = 0
    game: int | None = None
    turn: int | None = None
    source_line: str | None = None
    detail: str | None = None
    #: The rule engine's stable reason code where there is one (`blocked-point`,
    #: `crawford-game`, ...): finer than the finding code.
    reason: str | None = None

    @classmethod
    def make(
        cls,
        code: str,
        message: str,
        line: int = 0,
        column: int = 0,
        *,
        severity: Severity | None = None,
        game: int | None = None,
        turn: int | None = None,
        source_line: str | None = None,
        detail: str | None = None,
        reason: str | None = None,
    ) -> Finding:
        sev = severity if severity is not None else CODES[code][0]
        return cls(code, sev, message, line, column, game, turn, source_line, detail, reason)

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": str(self.severity),
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "game": self.game,
            "turn": self.turn,
            "reason": self.reason,
        }


#: The most of a source line shown with a finding: a window around its column.
SOURCE_WINDOW = 200


def source_window(line: str, column: int) -> tuple[str, int]:
    """The part of a source line shown with a finding at `column` (1-based), and the column
    within it: the whole line when it is short, else a window of `SOURCE_WINDOW` characters
    around the column (cut first: an SGF file is often one line of megabytes, with a finding
    every few characters). Line ends are dropped and a tab is one column, as the readers
    count."""
    if len(line) > SOURCE_WINDOW:
        start = max(0, column - SOURCE_WINDOW // 2)
        line = line[start : start + SOURCE_WINDOW]
        column -= start
    return line.rstrip("\r\n").expandtabs(1), column


def format_finding(path: str, f: Finding, *, context: bool = True) -> str:
    """`path:line:col: CODE message`, then the source line and a caret under the column; the
    record's own text with its control characters shown (`bgparse.helpers.printable`)."""
    head = f"{path}:{f.line}:{f.column}: {f.code} {f.message}"
    if not context or f.source_line is None:
        return printable(head + (f"\n{f.detail}" if f.detail and context else ""))
    src, caret_col = source_window(f.source_line, f.column)
    out = f"{head}\n    {src}\n    {' ' * max(caret_col - 1, 0)}^"
    if f.detail:
        out += "\n" + f.detail
    return printable(out)


class RecordError(InputError, ValueError):
    """Base of every error bgparse raises about a record; carries a finding and a path. A
    ValueError too, as it has always been: callers that catch that still do."""

    def __init__(self, finding: Finding, path: str = "<input>") -> None:
        super().__init__(
            f"{path}:{finding.line}:{finding.column}: {finding.code} {finding.message}"
        )
        self.finding = finding
        self.path = path

    def format(self, *, context: bool = True) -> str:
        return format_finding(self.path, self.finding, context=context)


class SyntaxRecordError(RecordError):
    """The record cannot be read (syntax, layout, encoding, wrong format)."""


class IllegalPlayError(RecordError):
    """A checker play that the rules do not allow."""
