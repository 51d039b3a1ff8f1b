"""The core's figures in one run: parse, validate and import, beside GNU Backgammon's import,
and optionally beside another revision of bgparse, taken in turns in the same minutes.

    .venv/bin/python bench/core.py [--against REV] [--rounds 2] [--matches 10000] [--repeat 3]

Runs `bench/parse.py`, `bench/validate.py` (which times GNU Backgammon's `.mat` import of the
same files where it is installed) and `bench/import.py --workers 1 2`, each in its own process,
and prints what each prints. With `--against REV` (a commit, tag or branch of this repository)
that revision is checked out into a temporary folder with its own compiled build, and each
bench runs with it and with this tree alternately, `--rounds` times: on a machine whose speed
drifts (other work, thermal limits), compare the figures of one round, not of two runs hours
apart. Each revision runs its own bench scripts, so a figure means what that revision's
scripts measure. Without another revision the benches still run `--rounds` times: a figure
met in one round and missed in the next says how much the machine moved.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, machine


def _run(python: str, tree: Path, script: str, *args: str) -> str:
    started = time.perf_counter()
    done = subprocess.run(
        [python, str(tree / "bench" / script), *args],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - started
    out = done.stdout.strip()
    if done.returncode != 0:
        out += f"\n(exit {done.returncode}) {done.stderr.strip()[-2000:]}"
    return f"{out}\n({script} took {took:.0f} s)"


def _build(rev: str, folder: Path) -> tuple[str, Path]:
    """A worktree of `rev` with its own venv and compiled build: (its python, its tree)."""
    tree = folder / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True)
    python = str(folder / "venv" / "bin" / "python")
    print(f"building {rev} (compiled) in {folder} ...", flush=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "-e", str(tree)], check=True)
    return python, tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="another revision to measure in turns")
    parser.add_argument(
        "--against-tree",
        type=Path,
        help="or a checkout of it already built, with its venv in .venv (not removed)",
    )
    parser.add_argument("--rounds", type=int, default=2)
    # As bench/import.py: an import's fixed part (the pool's start, the commit) is about 1 s,
    # a fifth of 2,000 small files on 2 workers; an archive is thousands to millions of files.
    parser.add_argument("--matches", type=int, default=10_000, help="for the import")
    parser.add_argument("--repeat", type=int, default=3, help="passes for parse and validate")
    args = parser.parse_args()
    builds = [("this tree", sys.executable, ROOT)]
    scratch = Path(tempfile.mkdtemp(prefix="bgparse-core-"))
    try:
        if args.against_tree:
            tree = args.against_tree.resolve()
            builds.insert(0, (str(tree), str(tree / ".venv" / "bin" / "python"), tree))
        elif args.against:
            python, tree = _build(args.against, scratch)
            builds.insert(0, (args.against, python, tree))
        print(machine())
        # The corpus named for every tree: one checked out elsewhere (`--against`) has no
        # `../shared` beside it, and its benches would say "skipped".
        corpus = ROOT.parent / "shared" / "corpus" / "gnubg"
        files = ["--files", str(corpus / "*.mat")]
        imports = ["--corpus", str(corpus)]
        benches = [
            ("parse.py", ["--repeat", str(args.repeat), *files]),
            ("validate.py", ["--repeat", str(args.repeat), *files]),
            ("import.py", ["--matches", str(args.matches), "--workers", "1", "2", *imports]),
        ]
        for n in range(args.rounds):
            for script, extra in benches:
                for name, python, tree in builds:
                    print(f"\n=== round {n + 1}: {script} with {name} ===", flush=True)
                    print(_run(python, tree, script, *extra), flush=True)
    finally:
        if args.against:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(scratch / "tree")], capture_output=True)  # fmt: skip
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
