"""The replay's typed plain roll (bgparse/replay/_plain.pyx, built by setup.py where it can)
must leave every replay exactly as its reference, `plays.roll`, leaves it: the same verified
match, turns, counts and findings, with and without the turns' rows. Held on every corpus
folder, the samples, generated matches written as `.mat`, and fuzz mutants. Skipped on a
pure-Python install, which has no lane."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bgparse.model.findings import RecordError
from bgparse.model.verified import Turn
from bgparse.readers import iter_records
from bgparse.replay import match as replay_match
from bgparse.replay.generate import generate_matches
from bgparse.replay.match import replay
from bgparse.writers.mat import write_mat
from tests import fuzzing

from .conftest import CORPUS, SAMPLES

lane = replay_match._plain_play
needs_lane = pytest.mark.skipif(lane is None, reason="the typed plain roll is not built")

_SUFFIXES = (".mat", ".txt", ".sgf", ".xg")


def _records(paths: list[Path]) -> Iterator[tuple[str, Any]]:
    for path in paths:
        try:
            for record in iter_records(path.read_bytes(), str(path)):
                yield f"{path.name}#{record.index}", record
        except RecordError:
            continue


def _differences(records: list[tuple[str, Any]], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The records whose replay differs with the lane from without it (both with and
    without the turns' rows); asserts the lane took rolls."""
    taken: Counter[bool] = Counter()
    assert lane is not None

    def counted(g: Any, a: Any) -> bool:
        done = lane(g, a)
        taken[done] += 1
        return done

    wrong = []
    for name, record in records:
        for keep in (True, False):
            monkeypatch.setattr(replay_match, "_plain_play", counted)
            with_lane = replay(record, keep_turns=keep)
            monkeypatch.setattr(replay_match, "_plain_play", None)
            reference = replay(record, keep_turns=keep)
            if with_lane != reference:
                wrong.append(f"{name} (keep_turns={keep})")
            # Equal tuples say nothing of their type: the lane's rows must be Turns too.
            types = {type(t) for g in with_lane.games for t in g.turns}
            if types - {Turn}:
                wrong.append(f"{name}: turns of type {sorted(t.__name__ for t in types)}")
    assert taken[True] > 0
    return wrong


@needs_lane
@pytest.mark.parametrize(
    "folder", sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []
)
def test_the_lane_replays_each_corpus_folder_as_its_reference(
    folder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = sorted(p for p in (CORPUS / folder).rglob("*") if p.suffix.lower() in _SUFFIXES)
    records = list(_records(paths))
    if not records:
        pytest.skip(f"no readable records in corpus folder {folder}")
    assert _differences(records, monkeypatch) == []


@needs_lane
def test_the_lane_replays_samples_and_generated_matches_as_its_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    paths = sorted(p for p in SAMPLES.rglob("*") if p.suffix.lower() in _SUFFIXES)
    records = list(_records(paths))
    for length, money in ((5, False), (11, False), (0, True)):
        for vm in generate_matches(6, length, seed=16, money=money):
            text = write_mat(vm).encode("utf-8")
            records += [
                (f"generated {length} #{vm.index}", r) for r in iter_records(text, "gen.mat")
            ]
    assert len(records) > 18
    assert _differences(records, monkeypatch) == []


@needs_lane
def test_the_lane_replays_fuzz_mutants_as_its_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = fuzzing.load_seeds(fuzzing.seed_files())
    records = []
    for i in range(300):
        mutant = fuzzing.make_mutant(seeds, 1616, i)
        try:
            records += [(f"mutant {i}", r) for r in iter_records(mutant.data, mutant.name)]
        except RecordError:
            continue
    assert len(records) > 100
    assert _differences(records, monkeypatch) == []
