"""Import: the one place that strings read → replay → store together, and runs it over inputs.

The parts, each run on `bgparse.pipeline` (which knows nothing of import):

- `worker`: the per-unit work (`FileTask`, `FileResult`, `process_unit`, `write_unit`), pure
  of the dataset, so it runs on any executor (this process, a process pool, a Dask cluster);
- `importer`: the client's side (`_Importer`): ledger, duplicates, quarantine, the commit;
  `duplicates` the copies' ledger reasons and the rows a unit loses to stored copies;
- `run`: `run_import`, building units from the inputs and driving the runner;
- `options`, `summary`: what an import is asked (`ImportOptions`) and what it tells
  (`ImportProgress`, `InputOutcome`, `ImportSummary`).
"""

from __future__ import annotations

from bgparse.ingest.options import ImportOptions
from bgparse.ingest.run import run_import
from bgparse.ingest.summary import ImportProgress, ImportSummary, InputOutcome
from bgparse.ingest.worker import (
    FileResult,
    FileTask,
    UnitParts,
    UnitResult,
    Verify,
    bgparse_version,
    process_file,
    process_unit,
    read_task,
    unit_batches,
    verify_file,
    write_unit,
)
from bgparse.store.rows import START_POSITION_ID, ImportContext, canonical_match, match_uid

__all__ = [
    "START_POSITION_ID",
    "FileResult",
    "FileTask",
    "ImportContext",
    "ImportOptions",
    "ImportProgress",
    "ImportSummary",
    "InputOutcome",
    "UnitParts",
    "UnitResult",
    "Verify",
    "bgparse_version",
    "canonical_match",
    "match_uid",
    "process_file",
    "process_unit",
    "read_task",
    "run_import",
    "unit_batches",
    "verify_file",
    "write_unit",
]
