"""bgparse: read, verify and analyse backgammon match records.

The replay is `bgparse.replay.replay` (not re-exported here: the name would hide the module).
The names below load on first use, so that `import bgparse` (which the `bgparse` command does
before anything else) is quick: the command catches Ctrl-C from its first milliseconds."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bgparse.helpers import compiled as _compiled

if _compiled.pure_requested():  # before any module that may have a compiled build is loaded
    _compiled.use_sources()

if TYPE_CHECKING:
    from bgparse.helpers.errors import BgparseError
    from bgparse.model.events import MatchRecord
    from bgparse.model.findings import Finding, RecordError, Severity
    from bgparse.model.verified import VerifiedMatch
    from bgparse.readers import iter_records, read_path
    from bgparse.rules import Position, RuleSet, legal_plays, verify_play

from bgparse.version import __version__

__all__ = [
    "BgparseError",
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

#: Where each public name lives.
_HOMES = {
    "BgparseError": "bgparse.helpers.errors",
    "MatchRecord": "bgparse.model.events",
    "Finding": "bgparse.model.findings",
    "RecordError": "bgparse.model.findings",
    "Severity": "bgparse.model.findings",
    "iter_records": "bgparse.readers",
    "read_path": "bgparse.readers",
    "Position": "bgparse.rules",
    "RuleSet": "bgparse.rules",
    "legal_plays": "bgparse.rules",
    "verify_play": "bgparse.rules",
    "VerifiedMatch": "bgparse.model.verified",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'bgparse' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
