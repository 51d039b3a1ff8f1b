"""bgparse: read, verify and analyse backgammon match records."""

from bgparse.events import MatchRecord
from bgparse.findings import Finding, RecordError, Severity

__version__ = "0.1.0"

__all__ = ["Finding", "MatchRecord", "RecordError", "Severity", "__version__"]
