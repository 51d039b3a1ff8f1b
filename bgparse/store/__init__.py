"""The Parquet dataset: Arrow schemas (schema), the tables' rows from a verified match (rows),
files and archives as input (inputs), and the dataset on disk with its manifest, lock and
ledger (dataset). It knows verified matches and Arrow tables, not readers: `bgparse.ingest`
runs the reading and replay and hands the results over."""

from bgparse.store.dataset import Dataset, DatasetError, DatasetLocked, Manifest
from bgparse.store.inputs import Limits, iter_inputs
from bgparse.store.schema import SCHEMA_VERSION, TABLES

__all__ = [
    "SCHEMA_VERSION",
    "TABLES",
    "Dataset",
    "DatasetError",
    "DatasetLocked",
    "Limits",
    "Manifest",
    "iter_inputs",
]
