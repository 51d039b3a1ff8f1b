"""bgparse: read, verify and analyse backgammon match records.

The replay is `bgparse.replay.replay` (not re-exported here: the name would hide the module)."""

from bgparse import compiled as _compiled

if _compiled.pure_requested():  # before any module that may have a compiled build is loaded
    _compiled.use_sources()


from bgparse.events import MatchRecord
from bgparse.findings import Finding, RecordError, Severity
from bgparse.readers import iter_records, read_path
from bgparse.rules import Position, RuleSet, legal_plays, verify_play
from bgparse.verified import VerifiedMatch

__version__ = "0.1.0"

__all__ = [
    "Finding",
    "MatchRecord",
    "Position",
    "RecordError",
    "RuleSet",
    "Severity",
    "VerifiedMatch",
    "__version__",
    "iter_records",
    "legal_plays",
    "read_path",
    "verify_play",
]
