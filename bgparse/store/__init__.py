"""The Parquet dataset: Arrow schemas (schema), files and archives as input (inputs), and the
dataset on disk with its manifest, lock and ledger (dataset). It knows Arrow tables, not
readers: `bgparse.ingest` turns verified matches into rows and hands them over."""

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
