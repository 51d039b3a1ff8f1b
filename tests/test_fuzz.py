"""Fuzzing in CI (issue 11): a bounded, seeded campaign of `tests/fuzzing.py` over the samples
and, where it is there, the public corpus, and one test per failure class a campaign found."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bgparse.readers import iter_records
from bgparse.replay import replay
from tests import fuzzing

#: Mutants per CI run, and every how many also go through `validate --format json`: about
#: 20 s on a loaded two-core machine.
CI_COUNT = 600
CI_CLI_EVERY = 4


def test_fuzz_campaign_finds_nothing() -> None:
    seeds = fuzzing.load_seeds(fuzzing.seed_files(), 3 * 1024)
    report = fuzzing.run_range(seeds, seed=11, start=0, stop=CI_COUNT, cli_every=CI_CLI_EVERY)
    assert report.inputs == CI_COUNT
    assert report.cli_files == len(range(0, CI_COUNT, CI_CLI_EVERY))
    # Every mutation was tried, on .mat and SGF seeds alike.
    ops = {op for i in range(CI_COUNT) for op in fuzzing.make_mutant(seeds, 11, i).ops}
    assert ops == set(fuzzing.MUTATIONS)
    assert report.failures == {}, "\n".join(
        f"{kind} (x{report.failure_count[kind]}), first mutant {index} "
        f"(python -m tests.fuzzing --seed 11 --show {index}): {detail}"
        for kind, (index, detail) in report.failures.items()
    )


def test_mutants_depend_only_on_their_number() -> None:
    seeds = fuzzing.load_seeds(fuzzing.seed_files(corpus=False))
    a = fuzzing.make_mutant(seeds, 5, 1234)
    b = fuzzing.make_mutant(list(seeds), 5, 1234)
    assert a == b and a != fuzzing.make_mutant(seeds, 5, 1235)


# --- what campaigns found --------------------------------------------------------------------


class _Hang(Exception):
    pass


@contextmanager
def _at_most(seconds: int) -> Iterator[None]:
    """A guard against a hang (not a timing: each case below took minutes to forever)."""

    def alarm(signum: int, frame: object) -> None:
        raise _Hang(f"still reading after {seconds} s")

    if not hasattr(signal, "SIGALRM"):  # pragma: no cover - Windows
        yield
        return
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _read(text: str) -> list[object]:
    return [replay(rec) for rec in iter_records(text.encode("utf-8"), "fuzz.mat")]


GAME = "\n Game 1\n Alice : 0                 Bob : 0\n  1) 31: 8/5 6/5          42: 8/4 6/4\n"


def test_negative_match_length_is_a_finding_not_a_crash() -> None:
    """' -3 point match' raised ValueError in RuleSet.for_length."""
    [vm] = _read(" -3 point match\n" + GAME)
    [s014] = [f for f in vm.findings if f.code == "S014"]  # type: ignore[attr-defined]
    assert (s014.line, s014.message) == (
        1,
        "match length -3 is out of range 0-999; read as 0 (a money session)",
    )


def test_negative_match_length_too_large_to_read_is_money() -> None:
    """' -999999999999 point match' passed S017's -999,999,999 on to RuleSet.for_length."""
    [vm] = _read(" -" + "9" * 12 + " point match\n" + GAME)
    [s017] = [f for f in vm.findings if f.code == "S017"]  # type: ignore[attr-defined]
    assert s017.message.endswith("; read as 0 (money)")
    assert vm.length == 0  # type: ignore[attr-defined]


def test_digits_of_other_scripts_read_as_numbers() -> None:
    """The readers' patterns take any script's digits (`\\d`), as `int` does: the bounded
    reader refused '٣١0' with a ValueError."""
    [vm] = _read(" 1 point match\n" + GAME.replace("Bob : 0", "Bob : \u0663\u06610"))
    assert vm.games[0].score_before == (0, 310)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "where",
    [
        "row",  # 40 rows of 60,000 blanks: every start re-ate the whole run (2-4 s a row)
        "score",  # a score line with a long blank run and one score: cubic (never ended)
        "tag",  # a header line of '; [' and a long blank run with no quote: cubic (never ended)
    ],
)
def test_long_blank_runs_are_read_at_once(where: str) -> None:
    blanks = " " * 60_000
    text = {
        "row": " 1 point match\n" + GAME + ("  2)" + blanks + "\n") * 40,
        "score": " 1 point match\n\n Game 1\n Alice : 0 " + blanks + "x\n  1) 31: 8/5 6/5\n",
        "tag": "; [" + blanks + "53: 20/15 13/10\n 1 point match\n" + GAME,
    }[where]
    with _at_most(30):
        [vm] = _read(text)
    assert vm.games  # type: ignore[attr-defined]


@pytest.mark.parametrize("points", ["-3", "-" + "9" * 5000])
def test_a_negative_wins_line_is_a_finding_not_a_crash(points: str) -> None:
    # A fuzzed 'Wins -5336...' reached MatchState.finish_game as -999,999,999 points.
    text = (
        " 3 point match\n\n Game 1\n Alice : 0                 Bob : 0\n"
        "  1) 31: 8/5 6/5          42: 8/4 6/4\n"
        f"      Wins {points} points\n"
    )
    [vm] = _read(text)
    codes = {f.code for f in vm.findings}  # type: ignore[attr-defined]
    assert "R001" in codes
