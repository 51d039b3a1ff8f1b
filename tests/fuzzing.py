"""A seeded mutation fuzzer for the readers, the replay and `bgparse validate --format json`.

Mutant number i of a campaign depends only on (seed, i) and the seed files, so any failure is
made again from its number. Each mutant is a seed file (the project's samples and the public
corpus's `.mat`, `.txt` and `.sgf` files) with one to three of the mutations the issue lists:
byte flips, truncations, huge numbers, NUL bytes, long lines, odd Unicode, swapped lines, other
encodings and line ends, pieces of another file, and SGF and `.mat` syntax damage.

Every mutant must be read and replayed with nothing but `RecordError`s and findings (no other
exception, nothing slow), every finding a one-line message with a line and a column, and
`validate --format json` over a folder of them must print one valid JSON object per line (UTF-8,
no NaN) for every file, with no traceback. `tests/test_fuzz.py` runs a small campaign in CI;

    .venv/bin/python -m tests.fuzzing --count 100000 --workers 2 --out /tmp/fuzz

runs a long one and writes one example of every failure class it finds to `--out`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
SAMPLES = ROOT / "sample_logs"
TEXT_SUFFIXES = (".mat", ".txt", ".sgf")

#: Seed files larger than this are cut to it (at a line end): mutating a megabyte file
#: teaches the fuzzer no more than its first part does, and costs a hundred times more.
MAX_SEED_BYTES = 16 * 1024
#: A mutant that takes longer than this to read and replay is a failure ("slow").
SLOW_SECONDS = 20.0


def seed_files(corpus: bool = True) -> list[Path]:
    """The project's samples, then (where present) the public corpus's text match files."""
    found = sorted(p for p in SAMPLES.rglob("*") if p.suffix in TEXT_SUFFIXES and p.is_file())
    if corpus and CORPUS.is_dir():
        found += sorted(
            p
            for p in CORPUS.rglob("*")
            if p.suffix in TEXT_SUFFIXES and p.is_file() and not p.name.endswith(".json")
        )
    return found


def load_seeds(paths: Sequence[Path], limit: int = MAX_SEED_BYTES) -> list[tuple[str, bytes]]:
    seeds = []
    for p in paths:
        data = p.read_bytes()
        if len(data) > limit:
            cut = data.rfind(b"\n", 0, limit)
            data = data[: cut + 1 if cut > 0 else limit]
        seeds.append((p.name, data))
    return seeds


# --- mutations ---------------------------------------------------------------------------------

_ODD = (
    "\u202e",  # right-to-left override
    "\u200d",  # zero-width joiner
    "\u200b",  # zero-width space
    "\u0301",  # combining acute accent
    "\ufeff",  # a BOM in the middle
    "\u2028",  # line separator
    "\u2029",  # paragraph separator
    "\x85",  # next line (NEL)
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1d",
    "\x1e",  # str.splitlines breaks on these, "\n" splitting does not
    "\r",
    "\ufffd",
    "\U0001f3b2",  # a die, outside the BMP
    "\uff11\uff13",  # fullwidth digits: int() reads them
    "\u0663\u0661",  # Arabic-Indic digits: int() reads them too
    "\u00b2",  # superscript two: isdigit() but not int()
    "\u2168",  # roman numeral nine
    "\ud800",  # a lone surrogate (written with surrogatepass)
    "İ",  # lower() makes it two characters
    "ß",
    "\u0130\u0131",
)
_KEYWORDS = (
    b"Doubles => 2",
    b"Doubles => 0",
    b"Beavers => 4",
    b"Raccoons => 8",
    b"Takes",
    b"Drops",
    b"Wins 1 point",
    b"Wins 3 points and the match",
    b"Losses 2 points",
    b"Resign gammon",
    b"Cannot Move",
    b"???",
    b"Illegal play (1;2;3)",
    b" 7 point match",
    b" 0 point match",
    b" -3 point match",
    b" Game 1",
    b" Game 0",
    b'; [Jacoby "On"]',
    b'; [CubeLimit "1"]',
    b'; [Variation "HyperGammon"]',
    b"; Set Pos=-b----E-C---eE---c-e----B-/3",
    b" 66: bar/19(4)",
    b" 00: ",
    b" 71: 8/1",
    b" 11: 25/24*/23*/22*/21*",
    b" 64: 6/off 4/off",
)
_SGF_BITS = (
    b"(",
    b")",
    b";",
    b"[",
    b"]",
    b"\\",
    b"(;FF[4]GM[6]",
    b"(;GM[1]",
    b";W[double]",
    b";B[take]",
    b";B[drop]",
    b";W[resign:2]",
    b";B[00]",
    b";W[77zz]",
    b";W[52yxxy]",
    b"AE[a:y]AW[a][a][a]AB[y]",
    b"CV[0]",
    b"CV[-4]",
    b"CP[q]",
    b"PL[X]",
    b"DI[9]",
    b"MI[length:-1][game:-5]",
    b"RE[W+]",
    b"RE[B+99R]",
    b"RU[Crawford:Jacoby:NoCube:Hypergammon2]",
    b"CA[utf-16]",
    b"CA[hex]",
    b"C[\\]",
)


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def flip_bytes(rng: random.Random, data: bytes, _: bytes) -> bytes:
    b = bytearray(data or b" ")
    for _i in range(rng.choice((1, 1, 2, 4, 16))):
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def truncate(rng: random.Random, data: bytes, _: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def huge_number(rng: random.Random, data: bytes, _: bytes) -> bytes:
    digits = [i for i, c in enumerate(data) if 48 <= c <= 57]
    at = rng.choice(digits) if digits else rng.randrange(len(data) + 1)
    n = rng.choice((10, 11, 19, 20, 200, 4300, 4301, 5000, 20000))
    number = (b"-" if rng.random() < 0.1 else b"") + bytes(
        rng.choice(b"123456789") for _ in range(n)
    )
    return data[:at] + number + data[at + 1 :]


def nul_bytes(rng: random.Random, data: bytes, _: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\x00" * rng.choice((1, 1, 2, 50, 5000)) + data[at:]


def long_line(rng: random.Random, data: bytes, _: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    n = rng.choice((1000, 65535, 65537, 200_000))
    what = rng.choice((b"x", b" ", b"9", b"13/7 ", b"\t", b"[", b"(;"))
    return data[:at] + (what * (n // len(what) + 1))[:n] + data[at:]


def odd_unicode(rng: random.Random, data: bytes, _: bytes) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    for _i in range(rng.choice((1, 1, 3, 10))):
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(_ODD) + text[at:]
    return text.encode("utf-8", "surrogatepass")


def swap_lines(rng: random.Random, data: bytes, _: bytes) -> bytes:
    lines = _lines(data)
    if len(lines) < 2:
        return data
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    how = rng.randrange(3)
    if how == 0:
        lines[i], lines[j] = lines[j], lines[i]
    elif how == 1:
        lines.insert(i, lines[j])  # a line twice
    else:
        del lines[i]
    return b"\n".join(lines)


def re_encode(rng: random.Random, data: bytes, _: bytes) -> bytes:
    text = data.decode("utf-8", "replace")
    how = rng.randrange(6)
    if how == 0:
        return b"\xff\xfe" + text.encode("utf-16-le")
    if how == 1:
        return text.encode("utf-16-be")  # no BOM
    if how == 2:
        return b"\xef\xbb\xbf" + data
    if how == 3:
        return text.encode("cp1252", "replace")
    if how == 4:
        return data.replace(b"\n", b"\r\n")
    return data.replace(b"\n", b"\r")


def splice(rng: random.Random, data: bytes, other: bytes) -> bytes:
    a, b = sorted((rng.randrange(len(other) + 1), rng.randrange(len(other) + 1)))
    at = rng.randrange(len(data) + 1)
    return data[:at] + other[a:b] + data[at:]


def mat_damage(rng: random.Random, data: bytes, _: bytes) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    how = rng.randrange(4)
    if how == 0:
        lines.insert(i, rng.choice(_KEYWORDS))
    elif how == 1:
        lines[i] = lines[i] + rng.choice(_KEYWORDS)
    elif how == 2:
        lines[i] = lines[i].replace(b" ", b"", rng.randrange(1, 30))  # columns collapse
    else:
        lines[i] = lines[i].replace(b" ", b"\t", rng.randrange(1, 10))
    return b"\n".join(lines)


def sgf_damage(rng: random.Random, data: bytes, _: bytes) -> bytes:
    how = rng.randrange(5)
    at = rng.randrange(len(data) + 1)
    if how == 0:
        return data[:at] + rng.choice(_SGF_BITS) + data[at:]
    if how == 1:  # drop one bracket, parenthesis or semicolon
        spots = [i for i, c in enumerate(data) if c in b"[]();"]
        if spots:
            i = rng.choice(spots)
            return data[:i] + data[i + 1 :]
        return data
    if how == 2:  # deep nesting
        n = rng.choice((100, 1000, 10_000))
        return data[:at] + b"(;" * n + b")" * rng.choice((0, n)) + data[at:]
    if how == 3:  # a property name changed
        return data.replace(
            rng.choice((b"W[", b"B[", b"MI[", b"RE[", b"AE[")),
            rng.choice((b"B[", b"W[", b"Mi[", b"X[", b"[", b"AW[")),
            1,
        )
    return data[:at] + b"\\" * rng.randrange(1, 4) + data[at:]


MUTATIONS: dict[str, Callable[[random.Random, bytes, bytes], bytes]] = {
    "flip": flip_bytes,
    "truncate": truncate,
    "huge-number": huge_number,
    "nul": nul_bytes,
    "long-line": long_line,
    "unicode": odd_unicode,
    "swap-lines": swap_lines,
    "encoding": re_encode,
    "splice": splice,
    "mat": mat_damage,
    "sgf": sgf_damage,
}


@dataclass(frozen=True)
class Mutant:
    index: int
    seed_name: str
    ops: tuple[str, ...]
    data: bytes

    @property
    def name(self) -> str:
        suffix = ".sgf" if self.seed_name.endswith(".sgf") else ".mat"
        return f"m{self.index:07d}-{'+'.join(self.ops)}{suffix}"


def make_mutant(seeds: Sequence[tuple[str, bytes]], seed: int, index: int) -> Mutant:
    """Mutant `index` of the campaign `seed` (depends on nothing else)."""
    rng = random.Random(f"{seed}:{index}")
    name, data = seeds[rng.randrange(len(seeds))]
    other = seeds[rng.randrange(len(seeds))][1]
    kinds = list(MUTATIONS)
    if name.endswith(".sgf"):
        kinds.remove("mat")
    else:
        kinds.remove("sgf")
    ops = tuple(rng.choice(kinds) for _ in range(rng.choice((1, 1, 2, 3))))
    for op in ops:
        data = MUTATIONS[op](rng, data, other)
    return Mutant(index, name, ops, data)


# --- checks ------------------------------------------------------------------------------------


@dataclass
class Report:
    """What a campaign saw: counts, and one example of each failure class."""

    inputs: int = 0
    readable: int = 0
    matches: int = 0
    findings: int = 0
    unreadable: int = 0
    cli_files: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    slowest_index: int = -1
    failures: dict[str, tuple[int, str]] = field(default_factory=dict)  # class -> (index, detail)
    failure_count: dict[str, int] = field(default_factory=dict)

    def fail(self, kind: str, index: int, detail: str) -> None:
        self.failure_count[kind] = self.failure_count.get(kind, 0) + 1
        self.failures.setdefault(kind, (index, detail))

    def merge(self, other: Report) -> None:
        for name in ("inputs", "readable", "matches", "findings", "unreadable", "cli_files"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.seconds += other.seconds
        if other.slowest > self.slowest:
            self.slowest, self.slowest_index = other.slowest, other.slowest_index
        for kind, n in other.failure_count.items():
            self.failure_count[kind] = self.failure_count.get(kind, 0) + n
            self.failures.setdefault(kind, other.failures[kind])


class _Slow(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Slow


def _where(exc: BaseException) -> str:
    """The innermost bgparse frame of a traceback: what names a failure class."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "bgparse" in f.filename and "/tests/" not in f.filename]
    f = (ours or frames or [None])[-1]
    if f is None:
        return "?"
    return f"{Path(f.filename).name}:{f.lineno} {f.name}"


def check_library(m: Mutant, report: Report) -> None:
    """Read and replay one mutant: only RecordErrors and findings; one-line messages."""
    from bgparse.model.findings import RecordError
    from bgparse.readers import iter_records
    from bgparse.replay import replay

    start = time.perf_counter()
    use_alarm = hasattr(signal, "SIGALRM") and SLOW_SECONDS > 0
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, SLOW_SECONDS)
    try:
        readable = False
        for rec in iter_records(m.data, m.name):
            readable = True
            vm = replay(rec)
            report.matches += 1
            for f in (*rec.errors, *vm.findings):
                report.findings += 1
                if "\n" in f.message or "\r" in f.message:
                    report.fail(
                        "finding message spans lines", m.index, f"{f.code} {f.message!r}"[:300]
                    )
                if f.line < 0 or f.column < 0:
                    report.fail("finding without a place", m.index, f"{f.code} {f.line}:{f.column}")
            json.dumps(vm.rules, default=str)
        report.readable += readable
    except RecordError as exc:
        report.unreadable += 1
        msg = exc.finding.message
        if "\n" in msg:
            report.fail("unreadable message spans lines", m.index, msg[:300])
    except _Slow:
        report.fail("slow", m.index, f"more than {SLOW_SECONDS:.0f} s")
    except RecursionError as exc:
        report.fail(f"RecursionError at {_where(exc)}", m.index, "")
    except Exception as exc:
        report.fail(f"{type(exc).__name__} at {_where(exc)}", m.index, f"{exc}"[:300])
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        took = time.perf_counter() - start
        report.seconds += took
        if took > report.slowest:
            report.slowest, report.slowest_index = took, m.index
        report.inputs += 1


def _strict_constant(name: str) -> float:
    raise ValueError(f"not JSON: {name}")


def check_cli(mutants: Sequence[Mutant], report: Report) -> None:
    """`bgparse validate --format json` over a folder of these mutants, in process: valid UTF-8
    JSON on every line, every file there, no traceback, exit 0, 1 or 2."""
    from typer.testing import CliRunner

    from bgparse.cli import app

    if not mutants:
        return
    with tempfile.TemporaryDirectory(prefix="bgparse-fuzz-") as tmp:
        for m in mutants:
            (Path(tmp) / m.name).write_bytes(m.data)
        result = CliRunner().invoke(app, ["validate", "--format", "json", tmp])
        first = mutants[0].index
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            exc = result.exception
            report.fail(f"validate: {type(exc).__name__} at {_where(exc)}", first, str(exc)[:300])
            return
        if result.exit_code not in (0, 1, 2):
            report.fail("validate: exit code", first, str(result.exit_code))
        if "Traceback" in result.stderr or "Traceback" in result.stdout:
            report.fail("validate: traceback", first, result.stderr[-300:])
        try:
            out = result.stdout_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            report.fail("validate: output not UTF-8", first, str(exc))
            return
        seen = set()
        # JSON Lines are split at "\n" only: a string may hold U+2028 and the like as they are.
        for line in out.split("\n"):
            if not line:
                continue
            try:
                d = json.loads(line, parse_constant=_strict_constant)
            except ValueError as exc:
                report.fail("validate: line not JSON", first, f"{exc}: {line[:200]}")
                continue
            seen.add(Path(d["path"]).name)
        missing = {m.name for m in mutants} - seen
        if missing:
            report.fail("validate: file missing from output", first, sorted(missing)[0])
        report.cli_files += len(seen)


def run_range(
    seeds: Sequence[tuple[str, bytes]], seed: int, start: int, stop: int, cli_every: int = 1
) -> Report:
    """Mutants start..stop-1: each through the library; every `cli_every`-th also through
    `validate --format json` (over one folder, so the command's own cost is paid once)."""
    report = Report()
    batch: list[Mutant] = []
    for i in range(start, stop):
        m = make_mutant(seeds, seed, i)
        check_library(m, report)
        if cli_every and i % cli_every == 0:
            batch.append(m)
    check_cli(batch, report)
    return report


# --- the long campaign -------------------------------------------------------------------------


def _chunks(count: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, count, size):
        yield start, min(start + size, count)


_SEEDS: list[tuple[str, bytes]] = []


def _init(corpus: bool, limit: int) -> None:
    os.nice(10)
    _SEEDS.extend(load_seeds(seed_files(corpus), limit))


def _work(args: tuple[int, int, int, int]) -> Report:
    seed, start, stop, cli_every = args
    return run_range(_SEEDS, seed, start, stop, cli_every)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=10_000, help="how many mutants")
    ap.add_argument("--seed", type=int, default=0, help="campaign seed")
    ap.add_argument("--start", type=int, default=0, help="first mutant number")
    ap.add_argument("--workers", type=int, default=2, help="processes (at most 2 here)")
    ap.add_argument("--cli-every", type=int, default=10, help="every N-th mutant also via the CLI")
    ap.add_argument("--no-corpus", action="store_true", help="the project's samples only")
    ap.add_argument(
        "--max-seed-kb", type=int, default=MAX_SEED_BYTES // 1024, help="seed files cut to this"
    )
    ap.add_argument("--out", type=Path, help="folder for one example mutant per failure class")
    ap.add_argument("--show", type=int, metavar="I", help="write mutant I to stdout and stop")
    args = ap.parse_args(argv)
    from bgparse.helpers.compiled import PURE_ENV, pure_requested, stale_modules

    stale = [] if pure_requested() else stale_modules()
    if stale:
        # A campaign on compiled modules older than their sources fuzzes code that is gone.
        print(
            f"compiled modules older than their source: {', '.join(stale)}; rebuild them "
            f"(pip install -e .; one with no source left is to delete) or set {PURE_ENV}=1",
            file=sys.stderr,
        )
        return 2
    if args.show is not None:
        seeds = load_seeds(seed_files(not args.no_corpus), args.max_seed_kb * 1024)
        m = make_mutant(seeds, args.seed, args.show)
        print(f"{m.name} from {m.seed_name}", file=sys.stderr)
        sys.stdout.buffer.write(m.data)
        return 0
    import multiprocessing

    begin = time.time()
    total = Report()
    jobs = [
        (args.seed, args.start + a, args.start + b, args.cli_every)
        for a, b in _chunks(args.count, 500)
    ]
    ctx = multiprocessing.get_context("spawn")
    limit = args.max_seed_kb * 1024

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    # SIGTERM (or Ctrl-C) ends the campaign early with the summary of what was done.
    signal.signal(signal.SIGTERM, stop)
    stopped = False
    pool = ctx.Pool(args.workers, initializer=_init, initargs=(not args.no_corpus, limit))
    try:
        for done, rep in enumerate(pool.imap_unordered(_work, jobs), 1):
            new = sorted(set(rep.failures) - set(total.failures))
            total.merge(rep)
            for kind in new:
                index, detail = total.failures[kind]
                print(f"new failure class: {kind}: mutant {index}: {detail}", file=sys.stderr)
            print(
                f"{total.inputs:,} inputs, {len(total.failure_count)} failure classes, "
                f"{time.time() - begin:,.0f} s ({done}/{len(jobs)} chunks)",
                file=sys.stderr,
                flush=True,
            )
    except KeyboardInterrupt:
        stopped = True
    finally:
        pool.terminate()
        pool.join()
    summary = {
        "seed": args.seed,
        "stopped_early": stopped,
        "max_seed_kb": args.max_seed_kb,
        "inputs": total.inputs,
        "readable": total.readable,
        "unreadable": total.unreadable,
        "matches": total.matches,
        "findings": total.findings,
        "validate_json_files": total.cli_files,
        "wall_seconds": round(time.time() - begin, 1),
        "mean_ms": round(1000 * total.seconds / max(total.inputs, 1), 2),
        "slowest_s": round(total.slowest, 2),
        "slowest_mutant": total.slowest_index,
        "failures": {
            k: {"count": total.failure_count[k], "first": v[0], "detail": v[1]}
            for k, v in sorted(total.failures.items())
        },
    }
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    if args.out is not None and total.failures:
        args.out.mkdir(parents=True, exist_ok=True)
        seeds = load_seeds(seed_files(not args.no_corpus), limit)
        for index, _ in total.failures.values():
            m = make_mutant(seeds, args.seed, index)
            (args.out / m.name).write_bytes(m.data)
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
