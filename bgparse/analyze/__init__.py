"""`bgparse analyze`: the engine's analysis of the stored matches, on the pipeline runner
(`run.py` the client: what is left to analyse, units, the ledger and the commit; `worker.py`
a unit's evaluation)."""

from bgparse.analyze.run import AnalyzeOptions, AnalyzeProgress, AnalyzeSummary, run_analyze

__all__ = ["AnalyzeOptions", "AnalyzeProgress", "AnalyzeSummary", "run_analyze"]
