"""What an import tells its caller: progress, each input's outcome, and the summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ImportProgress", "ImportSummary", "InputOutcome"]


@dataclass(frozen=True, slots=True)
class ImportProgress:
    bytes_done: int  # on-disk bytes of the inputs consumed so far
    inputs: int
    matches: int


@dataclass(frozen=True, slots=True)
class InputOutcome:
    """What became of one input (file, archive member or archive), for `--report`: `status` is
    imported, duplicate, quarantined or skipped (already in the dataset); counts are of the
    matches it stored and their error and warning findings (for a quarantined file, its own
    finding's)."""

    path: str
    kind: str
    status: str
    matches: int = 0
    duplicate_matches: int = 0
    errors: int = 0
    warnings: int = 0
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "status": self.status,
            "matches": self.matches,
            "duplicate_matches": self.duplicate_matches,
            "errors": self.errors,
            "warnings": self.warnings,
            "reason": self.reason,
        }


#: Files with stored matches with the most errors, kept for the summary.
_WORST_FILES = 5


@dataclass(slots=True)
class ImportSummary:
    import_id: str
    committed: bool = False
    inputs: int = 0  # every input met, including those skipped
    imported: int = 0
    duplicate: int = 0
    quarantined: int = 0
    skipped: int = 0  # already in the dataset
    matches: int = 0
    duplicate_matches: int = 0
    games: int = 0
    turns: int = 0
    cube_actions: int = 0
    findings: int = 0
    bytes_done: int = 0
    seconds: float = 0.0
    quarantine: list[tuple[str, str]] = field(default_factory=list)  # first few (path, reason)
    matches_with_errors: int = 0  # stored matches with an error-level finding
    matches_with_warnings: int = 0  # stored matches with warnings and no error
    files_with_errors: int = 0  # inputs that stored a match with errors
    #: The inputs whose stored matches have the most errors, most first (at most a few).
    worst: list[InputOutcome] = field(default_factory=list)
