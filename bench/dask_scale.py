"""A large import on Dask, checked row by row: time, MB/s, peak memory of client and workers.

Issue 15's scale run. The input is the GNU Backgammon corpus (400 `.mat` matches) copied with
the first player renamed in each copy (`bench/import.py`'s inputs: every copy a new match to
verify and store), --matches of them; they are imported with `--executor dask --workers N`
(a LocalCluster of N single-thread worker processes, its scheduler in the importing process),
and then the dataset is checked against the corpus itself, imported once by the process pool:

- the ledger has one row per input, every one `imported`, with its size and SHA-256;
- every copy of a match holds exactly the original's games, turns, cube actions and findings
  (by table, not by the counts the import reported), every match is stored once;
- the tables' totals are the copies' totals.

    python bench/dask_scale.py [--matches 100000] [--workers 2] [--keep DIR]

Run it alone on an idle machine for figures; it is a benchmark, not a test (the tests import
2,000 matches this way: tests/store/test_dask_scale.py).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import MB, machine

from bgparse.helpers.compiled import child_environ

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("bench_import", HERE / "import.py")
assert _spec is not None and _spec.loader is not None
bench_import = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_import)

PER_MATCH = (
    "n_games",
    "final_score0",
    "final_score1",
    "winner",
    "n_errors",
    "n_warnings",
    "n_infos",
)


def per_original(data: Path) -> dict[str, tuple[Any, ...]]:
    """For each corpus file name: the sorted set of (games, turns, cube actions, findings...)
    tuples of its stored copies and how many copies there are, counted from the tables."""
    from bgparse.questions.query import connect, run

    con = connect(data)
    sql = f"""
        WITH m AS (
            SELECT regexp_extract(source_path, '[^/]+$') AS name, match_uid,
                   (SELECT count(*) FROM games g WHERE g.match_uid = matches.match_uid) AS games,
                   (SELECT count(*) FROM turns t WHERE t.match_uid = matches.match_uid) AS turns,
                   (SELECT count(*) FROM cube_actions c
                     WHERE c.match_uid = matches.match_uid) AS cubes,
                   (SELECT count(*) FROM findings f
                     WHERE f.match_uid = matches.match_uid AND NOT f.in_duplicate) AS findings,
                   {", ".join(PER_MATCH)}
            FROM matches
        )
        SELECT name, count(*) AS copies, count(DISTINCT match_uid) AS uids,
               list(DISTINCT [games, turns, cubes, findings, {", ".join(PER_MATCH)}]) AS facts
        FROM m GROUP BY name ORDER BY name
    """
    out: dict[str, tuple[Any, ...]] = {}
    for r in run(con, sql).to_pylist():
        out[r["name"]] = (r["copies"], r["uids"], sorted(tuple(f) for f in r["facts"]))
    return out


def check(data: Path, reference: Path, inputs: Path, files: int) -> list[str]:
    """What is wrong with the big dataset (empty: it is exact)."""
    from bgparse.questions.query import connect, run

    problems: list[str] = []
    ref = per_original(reference)
    big = per_original(data)
    copies = {name: 0 for name in ref}
    for path in inputs.rglob("*.mat"):
        copies[path.name] = copies.get(path.name, 0) + 1
    for name, (n, uids, facts) in sorted(big.items()):
        if name not in ref:
            problems.append(f"{name}: stored, but not a corpus file")
            continue
        if n != copies[name] or uids != n:
            problems.append(f"{name}: {n} stored ({uids} distinct) for {copies[name]} copies")
        if facts != ref[name][2]:
            problems.append(f"{name}: copies hold {facts}, the original {ref[name][2]}")
    for name in sorted(set(ref) - set(big)):
        if copies.get(name):
            problems.append(f"{name}: {copies[name]} copies, none stored")
    con = connect(data)
    ledger = run(con, "SELECT path, status, size_bytes, sha256 FROM imports").to_pylist()
    if len(ledger) != files:
        problems.append(f"ledger: {len(ledger)} rows for {files} inputs")
    bad = [r for r in ledger if r["status"] != "imported"]
    problems += [f"ledger: {r['path']}: {r['status']}" for r in bad[:10]]
    for r in ledger[:: max(len(ledger) // 200, 1)]:  # a sample: reading 0.8 GB again is slow
        body = Path(r["path"]).read_bytes()
        if r["size_bytes"] != len(body) or r["sha256"] != hashlib.sha256(body).hexdigest():
            problems.append(f"ledger: {r['path']}: size or SHA-256 is not the file's")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--corpus", type=Path, default=bench_import.DEFAULT_CORPUS)
    parser.add_argument("--keep", type=Path, help="build the input and dataset here, kept")
    args = parser.parse_args()
    if not (args.corpus / "manifest.jsonl").is_file():
        print(f"skipped: no GNU Backgammon corpus at {args.corpus}")
        return
    print(machine())
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="bgparse-scale-"))
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        inputs = scratch / "in"
        started = time.perf_counter()
        if (scratch / "in.json").is_file():
            files, size = json.loads((scratch / "in.json").read_text())
        else:
            files, size = bench_import.make_corpus(args.corpus, inputs, args.matches)
            (scratch / "in.json").write_text(json.dumps([files, size]))
        print(
            f"input: {files:,} matches in {files:,} files, {size / MB:.1f} MB "
            f"({args.corpus} repeated, players renamed; {time.perf_counter() - started:.0f} s)"
        )
        reference = scratch / "reference"
        shutil.rmtree(reference, ignore_errors=True)
        from bgparse.ingest import ImportOptions, run_import

        run_import([args.corpus], reference, ImportOptions(workers=args.workers))
        data, rss = scratch / "data", scratch / "rss"
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(rss, ignore_errors=True)
        rss.mkdir()
        # In a fresh process, so that its peak memory is the import's own.
        run = [sys.executable, str(HERE / "import.py"), "--run", str(inputs), str(data),
               str(args.workers), str(rss), "dask"]  # fmt: skip
        done = subprocess.run(run, check=True, capture_output=True, text=True,
                              env=child_environ(False))  # fmt: skip
        r = json.loads(done.stdout.strip().splitlines()[-1])
        mb = r["bytes"] / MB
        print(
            f"import --executor dask --workers {args.workers}: {r['seconds']:.0f} s, "
            f"{mb / r['seconds']:.2f} MB/s, {r['matches'] / r['seconds']:.0f} matches/s; "
            f"{int(r['imported']):,} imported, {int(r['quarantined'])} quarantined; "
            f"CPU: client {r['client_cpu']:.0f} s ({1000 * r['client_cpu'] / files:.3f} ms/file, "
            f"its scheduler included), workers {r['workers_cpu']:.0f} s "
            f"({mb / max(r['workers_cpu'], 1e-9):.2f} MB per worker CPU-second); "
            f"peak memory: client {r['parent_peak_mb']:.0f} MB, "
            f"largest worker {r['worker_peak_mb']:.0f} MB"
        )
        started = time.perf_counter()
        problems = check(data, reference, inputs, files)
        took = time.perf_counter() - started
        if problems:
            print(f"NOT EXACT ({len(problems)} problems, checked in {took:.0f} s):")
            for p in problems[:40]:
                print("  " + p)
            raise SystemExit(1)
        print(
            f"exact: {files:,} ledger rows, all imported; every copy holds its original's "
            f"games, turns, cube actions and findings (checked in {took:.0f} s)"
        )
        size_on_disk = sum(p.stat().st_size for p in data.rglob("*") if p.is_file())
        print(f"dataset: {size_on_disk / MB:.0f} MB on disk")
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
