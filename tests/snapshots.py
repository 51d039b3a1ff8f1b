"""Behaviour snapshots of the whole corpus: what `validate --format json` says of every file and
what an import stores, taken from the code before a redesign so the redesigned code can be held to
it (tests/test_snapshot.py). Run as a script to write them anew, which is only right when a change
of behaviour is meant: `python -m tests.snapshots` (from the project root, corpus present)."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import sys
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
STORED = Path(__file__).resolve().parent / "expected" / "snapshot"
VALIDATE_FILE = STORED / "validate.jsonl.gz"
DATASET_FILE = STORED / "dataset.json.gz"

# Columns that differ between two imports of the same files by design: who imported, when,
# with which build. Paths are kept, relative to the corpus.
VOLATILE = frozenset({"import_id", "imported_at", "analysis_id", "analysed_at", "bgparse_version"})
PATH_COLUMNS = frozenset({"path", "source_path", "archive_path"})
TABLES = ("matches", "games", "turns", "cube_actions", "findings", "decisions", "imports")


def _relative(text: str | None, root: Path) -> str | None:
    if text is None:
        return None
    prefix = str(root) + "/"
    return text[len(prefix) :] if text.startswith(prefix) else text


def validate_lines(root: Path = CORPUS) -> tuple[int, list[dict[str, Any]]]:
    """Exit code and records of `bgparse validate --format json` over `root`, paths relative."""
    from bgparse.cli import app

    result = CliRunner().invoke(app, ["validate", "--format", "json", str(root)])
    records = []
    for line in result.stdout.splitlines():
        record = json.loads(line)
        record["path"] = _relative(record["path"], root)
        records.append(record)
    records.sort(key=lambda r: (r["path"], r.get("index") or 0))
    return result.exit_code, records


def _plain(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return value.hex
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def dataset_digest(data: Path, root: Path = CORPUS) -> dict[str, dict[str, list[Any]]]:
    """For each table, the rows grouped by match (or by path where no match is named), each
    group as [row count, hash of its sorted canonical rows]."""
    from bgparse.questions.query import connect, run

    con = connect(data)
    digest: dict[str, dict[str, list[Any]]] = {}
    for table in TABLES:
        groups: dict[str, list[str]] = defaultdict(list)
        for row in run(con, f"SELECT * FROM {table}").to_pylist():
            clean = {}
            for name, value in row.items():
                if name in VOLATILE:
                    continue
                if name in PATH_COLUMNS:
                    value = _relative(value, root)
                elif isinstance(value, str):
                    # A message may name another input ("same content as <path>"): where the
                    # corpus sits is not behaviour.
                    value = value.replace(str(root) + "/", "")
                clean[name] = _plain(value)
            key = clean.get("match_uid") or clean.get("source_path") or clean.get("path")
            groups[str(key)].append(json.dumps(clean, sort_keys=True, ensure_ascii=False))
        digest[table] = {
            key: [len(rows), hashlib.sha256("\n".join(sorted(rows)).encode()).hexdigest()[:16]]
            for key, rows in sorted(groups.items())
        }
    return digest


def import_corpus(data: Path, root: Path = CORPUS) -> None:
    from bgparse.ingest import ImportOptions, run_import

    run_import([root], data, ImportOptions(workers=2))


def write() -> None:
    import tempfile

    STORED.mkdir(parents=True, exist_ok=True)
    code, records = validate_lines()
    with gzip.open(VALIDATE_FILE, "wt", encoding="utf-8") as out:
        out.write(json.dumps({"exit_code": code}) + "\n")
        for record in records:
            out.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        import_corpus(data)
        digest = dataset_digest(data)
    with gzip.open(DATASET_FILE, "wt", encoding="utf-8") as out:
        json.dump(digest, out, sort_keys=True, separators=(",", ":"))
    print(f"wrote {VALIDATE_FILE} ({len(records)} records) and {DATASET_FILE}", file=sys.stderr)


def read_validate() -> tuple[int, list[dict[str, Any]]]:
    with gzip.open(VALIDATE_FILE, "rt", encoding="utf-8") as stored:
        head, *lines = stored.read().splitlines()
    return json.loads(head)["exit_code"], [json.loads(line) for line in lines]


def read_dataset() -> dict[str, dict[str, list[Any]]]:
    with gzip.open(DATASET_FILE, "rt", encoding="utf-8") as stored:
        result: dict[str, dict[str, list[Any]]] = json.load(stored)
    return result


if __name__ == "__main__":
    write()
