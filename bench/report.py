"""Time the two HTML reports: the analysis report of a large dataset against the import that
built it, and the validation report of 1,000 files against a plain validation of them.

The inputs are bench/import.py's: the GNU Backgammon corpus (../shared/corpus/gnubg) copied
until it holds --matches matches, each copy's first player renamed so every match is new.

    python bench/report.py [--matches 10000] [--validate-files 1000] [--workers 1] [--keep DIR]
                           [--repeat 3] [--no-import]

The two validations run in turns, --repeat times each, and the best of each is compared (the
machine is shared: single runs vary by a fifth). --no-import reuses the inputs and dataset
that an earlier run left in --keep DIR and times the reports only.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import shutil
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout, suppress
from pathlib import Path

from _common import MB, ROOT, machine, peak_rss_mb, table

DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "gnubg"


def _seconds(work: object) -> float:
    start = time.perf_counter()
    work()  # type: ignore[operator]
    return time.perf_counter() - start


def _validate(paths: list[str], *extra: str) -> None:
    """`bgparse validate` as the command runs it, its output thrown away."""
    from bgparse.cli import app

    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()), suppress(SystemExit):
        app(["validate", *paths, *extra], standalone_mode=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--validate-files", type=int, default=1_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--keep", type=Path, help="build the inputs and dataset here, kept")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-import", action="store_true", help="reuse --keep DIR's dataset")
    args = parser.parse_args()
    if args.no_import and not (args.keep and (args.keep / "data").is_dir()):
        parser.error("--no-import needs --keep DIR holding an earlier run's inputs and data")
    if not (args.corpus / "manifest.jsonl").is_file():
        print(f"skipped: no GNU Backgammon corpus at {args.corpus}")
        return
    make_corpus = importlib.import_module("import").make_corpus
    print(machine())
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="bgparse-bench-report-"))
    try:
        inputs = scratch / "inputs"
        if args.no_import:
            found = sorted(inputs.rglob("*.mat"))
            files, size = len(found), sum(p.stat().st_size for p in found)
        else:
            files, size = make_corpus(args.corpus, inputs, args.matches)
        print(f"{files:,} matches, {size / MB:.1f} MB in {inputs}\n")

        from bgparse.ingest import ImportOptions, run_import
        from bgparse.questions.filters import Filters
        from bgparse.questions.query import connect
        from bgparse.render.analysis import analysis_report

        data = scratch / "data"
        imported = None
        if not args.no_import:
            shutil.rmtree(data, ignore_errors=True)
            imported = _seconds(
                lambda: run_import([inputs], data, ImportOptions(workers=args.workers))
            )
        page: list[str] = []

        def analysis() -> None:
            page.append(analysis_report(connect(data, Filters())))

        first = _seconds(analysis)  # includes importing matplotlib and Jinja2
        again = _seconds(analysis)
        out = scratch / "analysis.html"
        out.write_text(page[-1], encoding="utf-8")

        one = sorted(inputs.rglob("*.mat"))[: args.validate_files]
        listed = [str(p) for p in one]
        html = scratch / "validation.html"
        _validate(listed[:5], "--format", "html", "--out", str(html))  # warm the readers
        plains, reports = [], []
        for _ in range(max(args.repeat, 1)):
            plains.append(_seconds(lambda: _validate(listed)))
            reports.append(
                _seconds(lambda: _validate(listed, "--format", "html", "--out", str(html)))
            )
        plain, report = min(plains), min(reports)

        def share(seconds: float) -> str:
            return f"{seconds / imported:.1%}" if imported else ""

        print(
            table(
                ["what", "seconds", "vs", "share", "page MB"],
                [
                    [
                        f"import {files:,} matches ({args.workers} worker)",
                        imported if imported is not None else "(not run)",
                        "",
                        "",
                        "",
                    ],
                    [
                        "analysis report, first in the process",
                        first,
                        "import",
                        share(first),
                        out.stat().st_size / MB,
                    ],
                    ["analysis report, again", again, "import", share(again), ""],
                    [f"validate {len(one):,} files (text), best", plain, "", "", ""],
                    [
                        f"validate {len(one):,} files --format html, best",
                        report,
                        "text",
                        f"+{(report - plain) / plain:.1%}",
                        html.stat().st_size / MB,
                    ],
                ],
            )
        )
        print(f"\npeak memory of this process: {peak_rss_mb():.0f} MB")
        print(f"pages: {out}, {html}" if args.keep else "")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    sys.stdout.flush()
    os._exit(0)  # the import's worker pool is gone; skip slow interpreter teardown


if __name__ == "__main__":
    main()
