"""Import: the pure per-file function, match identity, and the executor (ledger, dedup,
re-import, determinism across workers, archives, hostile inputs, bounded memory)."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import io
import os
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from bgparse import ingest
from bgparse.helpers.errors import NoSuchPath
from bgparse.ingest import (
    FileTask,
    ImportContext,
    ImportOptions,
    canonical_match,
    match_uid,
    process_file,
    run_import,
)
from bgparse.questions.query import connect, run
from bgparse.rules import Position
from bgparse.store.dataset import Dataset, DatasetLocked
from bgparse.store.schema import SCHEMA_VERSION, TABLES
from bgparse.store.seen import Seen

from .conftest import hand_matches, snapshot, write_inputs
from .factories import RACE, Spec, build, encode, fake_verify, game, match, position_id, roll

ROOT = Path(__file__).resolve().parents[2]
CTX = ImportContext("imp-test", datetime(2026, 1, 1, tzinfo=UTC), "9.9", None)


def ledger(root: Path) -> list[tuple[str, str, str | None]]:
    con = connect(root)
    rows = run(con, "SELECT path, status, reason FROM imports ORDER BY ALL").to_pylist()
    # Not os.path.relpath: it would resolve the '..' of hostile member names.
    prefix = f"{root.parent}/"
    return [(r["path"].removeprefix(prefix), r["status"], r["reason"]) for r in rows]


def count(root: Path, table: str) -> int:
    return int(run(connect(root), f"SELECT count(*) AS n FROM {table}").to_pylist()[0]["n"])


# --- identity and pure per-file work ---------------------------------------------------------


def test_race_flag_agrees_with_the_position() -> None:
    """The replay's race flag (kept per turn and cube action) is Position.is_race of the
    position it stored, on every action of the bundled samples; both values occur."""
    from bgparse.ingest import verify_file

    seen = set()
    for path in sorted((ROOT / "sample_logs").rglob("*.*")):
        for vm in verify_file(path.read_bytes(), str(path)):
            for g in vm.games:
                for t in g.turns:
                    assert t.race == Position.from_position_id(t.position_id).is_race(), (
                        path.name,
                        t.line,
                    )
                    seen.add(t.race)
                for ca in g.cube_actions:
                    assert ca.race == Position.from_position_id(ca.position_id).is_race()
    assert seen == {True, False}
    assert Position.from_position_id(RACE).is_race()


def with_opening(spec: Spec, action: Spec) -> Spec:
    """The spec with the first action of its first game replaced."""
    first, *rest = spec["games"]
    first = {**first, "actions": [action, *first["actions"][1:]]}
    return {**spec, "games": [first, *rest]}


def test_match_uid_ignores_where_and_how_a_match_was_written() -> None:
    spec = hand_matches()["m1.json"]
    base = build(spec, "a.mat")
    other = dataclasses.replace(
        build(spec, "elsewhere/b.sgf", index=3),
        format="sgf",
        dialect="gnubg",
        players=("  Alice ", "Bob"),
    )
    assert match_uid(base) == match_uid(other)
    # Dice order and the way a play is written do not matter; the board it leaves (the next
    # turn's Position ID) does.
    assert match_uid(build(with_opening(spec, roll(0, "13", "8/5 6/5")))) == match_uid(base)
    assert match_uid(build(with_opening(spec, roll(0, "31", "8/7 7/5 6/5")))) == match_uid(base)
    changed = with_opening(spec, roll(0, "31", "24/21 6/5"))
    reply = changed["games"][0]["actions"]
    after = position_id({24: 2, 13: 5, 8: 3, 6: 5}, {24: 1, 21: 1, 13: 5, 8: 3, 6: 4, 5: 1})
    reply[1] = {**reply[1], "pos": after}
    assert match_uid(build(changed)) != match_uid(base)
    uid, sha = match_uid(base)
    assert len(uid) == 16 and sha.startswith(uid.hex())
    assert canonical_match(base).startswith("bgparse-match/2\nplayers\tAlice\tBob\nlength\t5\n")


def test_match_uid_of_one_match_written_in_other_layouts_and_notations() -> None:
    """Samples of one match in other layouts: plays written by other paths to the same board
    (merged steps, repeat counts) and a result written where the replay sees the board, after
    a roll not played, from the other side. One match, one identity."""
    from bgparse.ingest import verify_file

    def uid(name: str) -> bytes:
        path = ROOT / "sample_logs" / "mat" / name
        [vm] = verify_file(path.read_bytes(), str(path))
        return match_uid(vm)[0]

    assert uid("hidden_plays.txt") == uid("long_arrow.mat") == uid("star_before_count.txt")
    assert uid("results_in_rows.txt") == uid("losses_lines.txt")
    assert uid("results_in_rows.txt") != uid("long_arrow.mat")


def task(data: bytes, path: str = "x.json") -> FileTask:
    return FileTask(path, data, hashlib.sha256(data).hexdigest())


def test_process_file_returns_rows_of_every_table() -> None:
    res = process_file(task(encode(hand_matches()["m2.json"])), CTX, fake_verify)
    assert res.status == "ok" and res.reason is None
    assert [(m.games, m.turns, m.cube_actions) for m in res.matches] == [(3, 14, 3)]
    # Rows by table and partition: the producer ("test") and the year of the match date.
    assert {k: b.num_rows for k, b in res.tables.items()} == {
        ("matches", "test", 2020): 1,
        ("games", "test", 2020): 3,
        ("turns", "test", 2020): 14,
        ("cube_actions", "test", 2020): 3,
    }
    for (table, *_), batch in res.tables.items():
        assert batch.schema == TABLES[table]
    g3 = res.tables["cube_actions", "test", 2020].to_pylist()[1:]
    assert [(c["doubler"], c["cube_offered"], c["response"], c["is_redouble"],
             c["taker_recubed"], c["is_race"], c["pip_diff"], c["rolls_after"]) for c in g3] == [
        (0, 2, "take", False, True, True, 6, 2),
        (1, 4, "take", True, False, True, -1, 1),
    ]  # fmt: skip
    turns = res.tables["turns", "test", 2020].to_pylist()
    assert [(t["kind"], t["move_no"], t["rolls_before"], t["roll"]) for t in turns[-8:]] == [
        ("play", 1, 0, "42"),
        ("play", 1, 1, "55"),
        ("double", 2, 2, None),
        ("take", 2, 2, None),
        ("play", 2, 2, "65"),
        ("double", 2, 3, None),
        ("take", 3, 3, None),
        ("play", 2, 3, "11"),  # the same turn as his double
    ]
    assert turns[0]["steps"] == [
        {"src": 8, "dst": 5, "hit": False},
        {"src": 6, "dst": 5, "hit": False},
    ]


@pytest.mark.parametrize(
    "data,reason,findings",
    [
        (b"", "S001 file is empty", 1),
        (b"\x00\x01\x02", "S002 file holds binary data", 1),
        (b"crash", "internal error: RuntimeError: boom", 0),
        (b"[]", "no match found in the file", 0),
    ],
)
def test_process_file_quarantines_instead_of_raising(
    data: bytes, reason: str, findings: int
) -> None:
    res = process_file(task(data), CTX, fake_verify)
    assert (res.status, res.reason, res.matches) == ("quarantined", reason, [])
    got = res.tables.get(("findings", "unknown", None))
    assert (got.num_rows if got is not None else 0) == findings == res.findings
    assert list(res.tables) == ([("findings", "unknown", None)] if findings else [])
    if got is not None:
        assert got.to_pylist()[0]["match_uid"] is None


def test_a_value_no_column_holds_quarantines_the_file_with_its_reason() -> None:
    """A hostile record can drive a value past any column (a cube doubled 40 times): the file
    is quarantined saying which column, never an internal error, and keeps no rows."""
    [vm] = fake_verify(encode(hand_matches()["m1.json"]), "m1.json")
    huge = dataclasses.replace(vm.games[0], cube=2**40)
    vm = dataclasses.replace(vm, games=(huge, *vm.games[1:]))
    res = process_file(task(b"x"), CTX, lambda data, path: [vm])
    assert res.status == "quarantined" and res.tables == {}
    assert res.reason is not None
    assert res.reason.startswith("a value of games.final_cube does not fit its column")


def test_a_unit_with_an_unstorable_match_keeps_the_other_files_rows() -> None:
    """Rows are made into Arrow batches once per unit; a value no column holds then sends the
    unit through file by file, so only its own file is quarantined."""
    from bgparse.ingest import process_unit

    specs = hand_matches()
    [bad] = fake_verify(encode(specs["m1.json"]), "m1.json")
    bad = dataclasses.replace(bad, games=(dataclasses.replace(bad.games[0], cube=2**40),))

    def verify(data: bytes, path: str) -> list[Any]:
        return [bad] if path == "bad" else fake_verify(data, path)

    tasks = [
        FileTask("m2", encode(specs["m2.json"]), "a" * 64),
        FileTask("bad", b"x", "b" * 64),
        FileTask("m3", encode(specs["m3.json"]), "c" * 64),
    ]
    unit = process_unit(tasks, CTX, verify)
    assert [(f.path, f.status) for f in unit.files] == [
        ("m2", "ok"), ("bad", "quarantined"), ("m3", "ok")
    ]  # fmt: skip
    assert unit.files[1].reason is not None and "games.final_cube" in unit.files[1].reason
    matches = [b for (table, *_), b in unit.batches().items() if table == "matches"]
    assert sorted(p for b in matches for p in b.column("source_path").to_pylist()) == ["m2", "m3"]


# --- the executor ------------------------------------------------------------------------------


def test_an_in_process_import_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    """With one worker the units run in the importing process, collecting garbage once per
    unit and freezing what survives; afterwards the thresholds and frozen objects are back."""
    from bgparse.pipeline import pool

    inputs = write_inputs(tmp_path / "in", hand_matches())
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen_batch_gc = []
    real = pool.unit_garbage

    def spy() -> Any:
        seen_batch_gc.append(pool._BATCH_GC)
        return real()

    pool.unit_garbage = spy  # type: ignore[assignment]
    try:
        run_import([inputs], tmp_path / "data", ImportOptions(workers=1), verify=fake_verify)
    finally:
        pool.unit_garbage = real  # type: ignore[assignment]
    assert seen_batch_gc and all(seen_batch_gc)
    assert (gc.get_threshold(), gc.get_freeze_count(), pool._BATCH_GC) == (
        threshold,
        frozen,
        False,
    )
    assert gc.isenabled()


SAMPLE_LEDGER = [
    ("in/binary.bin", "quarantined", "S002 file holds binary data"),
    ("in/crash.mat", "quarantined", "internal error: RuntimeError: boom"),
    ("in/empty.mat", "quarantined", "S001 file is empty"),
    ("in/m1.json", "imported", None),
    ("in/m2.json", "imported", None),
    ("in/m3.json", "imported", None),
    # The copy names the input it repeats (issue 11: a copy of a quarantined input said only
    # "an earlier input", and the archivist could not find why it was left out).
    ("in/sub/copy-of-m3.json", "duplicate", "same content as {inputs}/m3.json (sha256 {m3}…)"),
    # The duplicate names its stored copy (issue 31).
    ("in/sub/two.json", "imported",
     "1 of 2 matches already stored: match 1 as match 1 of {inputs}/m1.json"),
]  # fmt: skip


def expected_ledger(inputs: Path) -> list[tuple[str, str, str | None]]:
    m3 = hashlib.sha256((inputs / "m3.json").read_bytes()).hexdigest()[:12]
    return [(p, s, r.format(m3=m3, inputs=inputs) if r else r) for p, s, r in SAMPLE_LEDGER]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_copy_of_an_unreadable_input_is_quarantined_with_it(tmp_path: Path, workers: int) -> None:
    """A copy of an input the import quarantined is as unreadable: quarantined too, naming
    the first and its reason (a "duplicate" left it out of every query of the quarantined
    inputs), whether the copy comes while the first is still with a worker or after; a copy
    of an imported input stays a duplicate."""
    inputs = write_inputs(tmp_path / "in", hand_matches())
    bad = bytes(range(256))
    for name in ("a.bin", "b.bin", "sub/c.bin"):
        (inputs / name).parent.mkdir(exist_ok=True)
        (inputs / name).write_bytes(bad)
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("x.bin", b"x")
    for name, members in (
        ("y.zip", {"n1.zip": inner.getvalue()}),
        ("z.zip", {"d.bin": bad, "m1.json": (inputs / "m1.json").read_bytes(),
                   "n2.zip": inner.getvalue()}),
    ):  # fmt: skip
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as zf:
            for member, content in members.items():
                zf.writestr(member, content)
        (inputs / name).write_bytes(archive.getvalue())
    data = tmp_path / "data"
    s = run_import(
        [inputs], data, ImportOptions(workers=workers, chunk_files=1), verify=fake_verify
    )
    rows = {path: (status, reason) for path, status, reason in ledger(data)}
    sha = hashlib.sha256(bad).hexdigest()[:12]
    first_reason = rows["in/a.bin"][1]
    assert rows["in/a.bin"][0] == "quarantined" and first_reason.startswith("S002 ")
    for copy in ("in/b.bin", "in/sub/c.bin", "in/z.zip!d.bin"):
        assert rows[copy] == (
            "quarantined",
            f"same content as {inputs}/a.bin (sha256 {sha}…), which is quarantined: "
            + first_reason,
        )
    assert rows["in/z.zip!m1.json"][0] == "duplicate"
    # An archive inside two archives: refused unread, by content; the second names the first.
    nested = rows["in/y.zip!n1.zip"]
    assert nested[0] == "quarantined" and nested[1].startswith("an archive inside an archive")
    inner_sha = hashlib.sha256(inner.getvalue()).hexdigest()[:12]
    assert rows["in/z.zip!n2.zip"] == (
        "quarantined",
        f"same content as {inputs}/y.zip!n1.zip (sha256 {inner_sha}…), which is quarantined: "
        + nested[1],
    )
    # Neither archive imported a member: quarantined too, saying what became of them.
    assert rows["in/y.zip"] == ("quarantined", "none of its 1 member imported (1 quarantined)")
    assert rows["in/z.zip"] == (
        "quarantined",
        "none of its 3 members imported (2 quarantined, 1 duplicate)",
    )
    assert (s.quarantined, s.duplicate) == (8, 1)
    quarantined = run(
        connect(data), "SELECT count(*) AS n FROM imports WHERE status = 'quarantined'"
    )
    assert quarantined.to_pylist() == [{"n": 8}]


def test_import_accounts_for_every_input_and_goes_on(sample_inputs: Path) -> None:
    data = sample_inputs.parent / "data"
    s = run_import([sample_inputs], data, ImportOptions(workers=1), verify=fake_verify)
    assert ledger(data) == expected_ledger(sample_inputs)
    assert (s.inputs, s.imported, s.duplicate, s.quarantined, s.skipped) == (8, 4, 1, 3, 0)
    assert (s.matches, s.duplicate_matches, s.games, s.turns, s.cube_actions) == (4, 1, 7, 24, 4)
    assert s.committed
    for table, n in (("matches", 4), ("games", 7), ("turns", 24), ("cube_actions", 4)):
        assert count(data, table) == n
    # Findings: m1's two, the same two again for sub/two.json's copy of m1 (an input keeps
    # its own findings, marked in_duplicate), and one each for the empty and the binary file.
    assert s.findings == count(data, "findings") == 6
    con = connect(data)
    copies = run(con, "SELECT source_path, in_duplicate FROM findings WHERE code = 'P001'")
    assert sorted((Path(r["source_path"]).name, r["in_duplicate"]) for r in copies.to_pylist()) == [
        ("m1.json", False),
        ("two.json", True),
    ]
    row = run(con, "SELECT * FROM imports WHERE path LIKE '%two.json'").to_pylist()[0]
    assert (row["n_matches"], row["n_duplicate_matches"], row["n_findings"], row["n_errors"]) == (
        1, 1, 2, 1
    )  # fmt: skip
    con = connect(data)
    row = run(con, "SELECT * FROM imports WHERE path LIKE '%m1.json'").to_pylist()[0]
    content = (sample_inputs / "m1.json").read_bytes()
    assert row["sha256"] == hashlib.sha256(content).hexdigest()
    assert row["size_bytes"] == len(content)
    assert (row["kind"], row["schema_version"], row["n_matches"], row["n_games"]) == (
        "file", SCHEMA_VERSION, 1, 2
    )  # fmt: skip
    assert (row["n_findings"], row["n_errors"]) == (2, 1)
    assert [path for path, _ in s.quarantine] == [
        str(sample_inputs / n) for n in ("binary.bin", "crash.mat", "empty.mat")
    ]


def test_reimport_adds_nothing(sample_inputs: Path) -> None:
    data = sample_inputs.parent / "data"
    run_import([sample_inputs], data, ImportOptions(workers=1), verify=fake_verify)
    before = snapshot(data)
    generation = Dataset(data).manifest().generation
    s = run_import([sample_inputs], data, ImportOptions(workers=1), verify=fake_verify)
    assert (s.inputs, s.skipped, s.imported, s.quarantined, s.committed) == (8, 8, 0, 0, False)
    assert snapshot(data) == before
    assert Dataset(data).manifest().generation == generation


def test_pool_workers_give_the_same_dataset(sample_inputs: Path, tmp_path: Path) -> None:
    one = tmp_path / "one"
    two = tmp_path / "two"
    run_import([sample_inputs], one, ImportOptions(workers=1), verify=fake_verify)
    opts = ImportOptions(workers=2, chunk_files=1)
    s = run_import([sample_inputs], two, opts, verify=fake_verify)
    assert s.matches == 4
    assert snapshot(one) == snapshot(two)


def test_any_executor_can_run_the_work(sample_inputs: Path, tmp_path: Path) -> None:
    run_import([sample_inputs], tmp_path / "one", ImportOptions(workers=1), verify=fake_verify)
    with ThreadPoolExecutor(3) as pool:
        run_import(
            [sample_inputs],
            tmp_path / "threads",
            ImportOptions(workers=3, chunk_files=2),
            verify=fake_verify,
            executor=pool,
        )
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "threads")


def test_the_first_copy_of_a_match_wins_whatever_the_schedule(tmp_path: Path) -> None:
    spec = hand_matches()["m1.json"]
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.json").write_bytes(encode(spec))
    # The same match in another file (another date: other bytes, same match).
    (inputs / "b.json").write_bytes(encode({**spec, "date": "2019-06-02"}))
    for workers in (1, 2):
        data = tmp_path / f"data{workers}"
        run_import(
            [inputs], data, ImportOptions(workers=workers, chunk_files=1), verify=fake_verify
        )
        assert ledger(data) == [
            ("in/a.json", "imported", None),
            (
                "in/b.json",
                "duplicate",
                f"1 of 1 matches already stored: match 1 as match 1 of {inputs}/a.json",
            ),
        ]
        assert count(data, "matches") == 1


def test_duplicate_checks_past_their_memory_limit_decide_as_in_memory(
    sample_inputs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a limit of one key, every match id and content hash but the last is looked up on
    disk (`Seen`): the same ledger and rows as with all of them in memory, a stored match met
    again in a later import is a duplicate, and nothing is left in the temporary folder."""
    spill_dir = tmp_path / "tmp"
    spill_dir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill_dir))
    opened: list[Seen[Any]] = []
    real_open = Seen._open

    def counted(self: Seen[Any]) -> Any:
        opened.append(self)
        return real_open(self)

    monkeypatch.setattr(Seen, "_open", counted)
    # A file given twice and a copy of m1's content under another name: content duplicates.
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "again.json").write_bytes((sample_inputs / "m1.json").read_bytes())
    inputs = [sample_inputs, copy, sample_inputs / "m2.json"]
    for workers in (1, 2):
        ref, data = tmp_path / f"ref{workers}", tmp_path / f"data{workers}"
        opts = ImportOptions(workers=workers, chunk_files=1)
        want = run_import(inputs, ref, opts, verify=fake_verify)
        opened.clear()
        got = run_import(inputs, data, dataclasses.replace(opts, seen_limit=1), verify=fake_verify)
        # Every check went to disk: match ids, contents, and the contents quarantined.
        assert len(opened) == 3
        assert ledger(data) == ledger(ref)
        assert snapshot(data) == snapshot(ref)
        assert (got.imported, got.duplicate, got.matches) == (want.imported, want.duplicate, 4)
        assert want.duplicate >= 3
    # The stored matches' ids on disk from the start: a new file holding m1 is a duplicate.
    later = tmp_path / "later"
    later.mkdir()
    m1 = hand_matches()["m1.json"]
    (later / "m1-again.json").write_bytes(encode({**m1, "date": "2020-01-01"}))
    opts = ImportOptions(workers=1, seen_limit=1)
    s = run_import([later], tmp_path / "data1", opts, verify=fake_verify)
    assert (s.duplicate, s.duplicate_matches, s.matches, s.committed) == (1, 1, 0, True)
    assert not [n for n in os.listdir(spill_dir) if n.startswith("bgparse-seen-")]


def test_a_file_holding_a_match_twice_stores_it_once(tmp_path: Path) -> None:
    spec = hand_matches()["m2.json"]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "twice.json").write_bytes(encode(spec, spec))
    data = tmp_path / "data"
    s = run_import([tmp_path / "in"], data, ImportOptions(workers=1), verify=fake_verify)
    assert ledger(data) == [
        (
            "in/twice.json",
            "imported",
            f"1 of 2 matches already stored: match 2 as match 1 of {tmp_path}/in/twice.json",
        )
    ]
    assert (s.matches, s.duplicate_matches, s.games, s.turns) == (1, 1, 3, 14)
    assert (count(data, "matches"), count(data, "games"), count(data, "turns")) == (1, 3, 14)


def test_partitions_from_source_label_and_date(tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path / "in", hand_matches())
    data = tmp_path / "data"
    run_import([inputs], data, ImportOptions(workers=1, source="My Club!"), verify=fake_verify)
    con = connect(data)
    got = run(con, "SELECT DISTINCT source, year FROM turns ORDER BY year NULLS LAST").to_pylist()
    assert got == [
        {"source": "my_club", "year": 2019},
        {"source": "my_club", "year": 2020},
        {"source": "my_club", "year": None},
    ]
    run_import([inputs], tmp_path / "d2", ImportOptions(workers=1), verify=fake_verify)
    sources = run(connect(tmp_path / "d2"), "SELECT DISTINCT source FROM matches").to_pylist()
    assert sources == [{"source": "test"}]  # the producer (dialect) by default


def make_hostile_batch(folder: Path) -> None:
    folder.mkdir()
    good = encode(hand_matches()["m1.json"])
    with zipfile.ZipFile(folder / "evil.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("../../escaped.json", good)
        zf.writestr("/tmp/absolute.json", good)
        zf.writestr("fine.json", good)
    with zipfile.ZipFile(folder / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros.mat", bytes(12 * 1024 * 1024))  # under the size limit, ratio ~1000
    with tarfile.open(folder / "links.tar", "w") as tf:
        link = tarfile.TarInfo("shadow.json")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/shadow"
        tf.addfile(link)
        info = tarfile.TarInfo("m2.json")
        m2 = encode(hand_matches()["m2.json"])
        info.size = len(m2)
        tf.addfile(info, io.BytesIO(m2))
    (folder / "zero.mat").write_bytes(b"")
    (folder / "binary.mat").write_bytes(os.urandom(512))


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_hostile_inputs_are_reported_and_nothing_escapes(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    make_hostile_batch(inputs)
    before = tree(tmp_path)
    data = tmp_path / "data"
    s = run_import([inputs], data, ImportOptions(workers=1), verify=fake_verify)
    # Only the dataset folder appeared.
    assert {p for p in tree(tmp_path) - before if not p.startswith("data")} == set()
    assert not (tmp_path / "escaped.json").exists() and not Path("/tmp/absolute.json").exists()
    assert ledger(data) == [
        ("in/binary.mat", "quarantined", "S002 file holds binary data"),
        ("in/bomb.zip", "quarantined", "none of its 1 member imported (1 quarantined)"),
        ("in/bomb.zip!zeros.mat", "quarantined",
         "member expands more than 200 times its compressed size (decompression bomb?)"),
        ("in/evil.zip", "imported", None),
        ("in/evil.zip!../../escaped.json", "quarantined", "member path leaves the archive ('..')"),
        ("in/evil.zip!/tmp/absolute.json", "quarantined", "absolute member path"),
        ("in/evil.zip!fine.json", "imported", None),
        ("in/links.tar", "imported", None),
        ("in/links.tar!m2.json", "imported", None),
        ("in/links.tar!shadow.json", "quarantined",
         "symbolic link in archive (to '/etc/shadow'), not followed"),
        ("in/zero.mat", "quarantined", "S001 file is empty"),
    ]  # fmt: skip
    assert (s.quarantined, s.matches) == (7, 2)


def test_reimporting_an_archive_skips_it_whole(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    make_hostile_batch(inputs)
    data = tmp_path / "data"
    run_import([inputs / "evil.zip"], data, ImportOptions(workers=1), verify=fake_verify)
    s = run_import([inputs / "evil.zip"], data, ImportOptions(workers=1), verify=fake_verify)
    assert (s.inputs, s.skipped, s.committed) == (1, 1, False)
    # The same content as a loose file is known by its SHA-256 too.
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "fine.json").write_bytes(encode(hand_matches()["m1.json"]))
    s = run_import([loose], data, ImportOptions(workers=1), verify=fake_verify)
    assert (s.inputs, s.skipped) == (1, 1)


def test_same_input_twice_in_one_import(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    make_hostile_batch(inputs)
    data = tmp_path / "data"
    archive = inputs / "links.tar"
    run_import([archive, archive], data, ImportOptions(workers=1), verify=fake_verify)
    assert ledger(data) == [
        ("in/links.tar", "duplicate", "the same archive was given twice"),
        ("in/links.tar", "imported", None),
        ("in/links.tar!m2.json", "imported", None),
        ("in/links.tar!shadow.json", "quarantined",
         "symbolic link in archive (to '/etc/shadow'), not followed"),
    ]  # fmt: skip


def test_dataset_inside_an_input_folder_is_not_read_as_input(tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path / "in", hand_matches())
    data = inputs / "data"
    run_import([inputs], data, ImportOptions(workers=1), verify=fake_verify)
    again = run_import([inputs], data, ImportOptions(workers=1), verify=fake_verify)
    assert (again.inputs, again.skipped) == (3, 3)
    assert [p for p, *_ in ledger(data)] == ["m1.json", "m2.json", "m3.json"]


def test_missing_input_is_an_error_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(NoSuchPath, match=r"nope: no such file or folder$"):
        run_import([tmp_path / "nope"], tmp_path / "data", verify=fake_verify)
    assert not (tmp_path / "data").exists()


def test_locked_dataset_is_refused(sample_inputs: Path) -> None:
    data = sample_inputs.parent / "data"
    with Dataset(data).lock(), pytest.raises(DatasetLocked):
        run_import([sample_inputs], data, ImportOptions(workers=1), verify=fake_verify)


class _Counted(Future[Any]):
    def __init__(self, owner: CountingExecutor) -> None:
        super().__init__()
        self.owner = owner
        self.seen = False

    def result(self, timeout: float | None = None) -> Any:
        value = super().result(timeout)
        if not self.seen:
            self.seen = True
            self.owner.outstanding -= 1
        return value


class CountingExecutor(Executor):
    """Threads, counting submissions whose results the importer has not taken yet."""

    def __init__(self) -> None:
        self.inner = ThreadPoolExecutor(2)
        self.outstanding = 0
        self.peak = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.outstanding += 1
        self.peak = max(self.peak, self.outstanding)
        outer = _Counted(self)
        self.inner.submit(fn, *args, **kwargs).add_done_callback(
            lambda f: outer.set_result(f.result())
        )
        return outer


def test_work_in_flight_is_bounded(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    for i in range(40):
        spec = match(game(roll(0, "31", "8/5 6/5"), winner=0), players=(f"P{i}", "Q"))
        (inputs / f"{i:02d}.json").write_bytes(encode(spec))
    ex = CountingExecutor()
    s = run_import(
        [inputs], tmp_path / "data", ImportOptions(workers=2, chunk_files=1), verify=fake_verify,
        executor=ex,
    )  # fmt: skip
    ex.inner.shutdown()
    assert s.matches == 40
    assert ex.peak <= 2 * 2 + 1  # two chunks per worker, plus the one being handed over


def test_gc_thresholds_are_restored(sample_inputs: Path) -> None:
    before = gc.get_threshold()
    data = sample_inputs.parent / "data"
    run_import([sample_inputs], data, ImportOptions(workers=1), verify=fake_verify)
    assert gc.get_threshold() == before
    with Dataset(data).lock(), pytest.raises(DatasetLocked):
        run_import([sample_inputs], data, ImportOptions(workers=1), verify=fake_verify)
    assert gc.get_threshold() == before


def test_a_dying_worker_aborts_the_import_and_commits_nothing(sample_inputs: Path) -> None:
    data = sample_inputs.parent / "data"
    run_import([sample_inputs / "m1.json"], data, ImportOptions(workers=1), verify=fake_verify)
    before = snapshot(data)
    (sample_inputs / "die.mat").write_bytes(b"die")
    with pytest.raises(BrokenExecutor):
        run_import(
            [sample_inputs], data, ImportOptions(workers=2, chunk_files=1), verify=fake_verify
        )
    assert snapshot(data) == before
    assert not list((data / "_staging").glob("*"))


class _RecordingPool(ThreadPoolExecutor):
    """A thread pool that notes the number of files of each unit it is given, and the order
    of the tasks: 'unit' or the merged partition's table."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.units: list[int] = []
        self.tasks: list[str] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if fn.__name__ in ("write_unit", "process_unit"):
            self.units.append(len(args[0]))
            self.tasks.append("unit")
        elif fn.__name__ == "merge_parts":
            self.tasks.append(args[1])
        return super().submit(fn, *args, **kwargs)


def test_workers_writing_parts_get_large_units_then_smaller_ones_at_the_end(
    tmp_path: Path,
) -> None:
    """Where workers write their parts (a cluster), units are large (the client's cost is
    per unit) and the last ones shrink as the walk's end comes in sight, so that no worker
    is left with a large unit while the others wait; the dataset is the pool's."""
    spec = hand_matches()["m1.json"]
    inputs = tmp_path / "in"
    inputs.mkdir()
    n = 300
    for i in range(n):
        players = (f"Alice{i:03d}", "Bob")  # a match of its own per file
        (inputs / f"m{i:03d}.json").write_bytes(encode({**spec, "players": players}))
    with _RecordingPool(2) as pool:
        opts = ImportOptions(workers=2, worker_parts=True, chunk_files=64)
        s = run_import([inputs], tmp_path / "parts", opts, verify=fake_verify, executor=pool)
    assert s.matches == n
    units = pool.units
    assert sum(units) == n
    assert units[0] == 64 and units == sorted(units, reverse=True), units
    # Each of the last units is about a quarter of what was left (2 workers), down to 16.
    assert units[-1] <= 16 and len(units) >= 8, units
    run_import([inputs], tmp_path / "pool", ImportOptions(workers=2), verify=fake_verify)
    assert snapshot(tmp_path / "parts") == snapshot(tmp_path / "pool")


def test_a_pool_gets_smaller_units_at_the_end_and_one_worker_none(tmp_path: Path) -> None:
    """Rows sent to this process (the local pool): units of 64 files, the last ones smaller
    so that the workers finish together; inline (one worker) nothing looks ahead, every unit
    is whole. The dataset is the same either way."""
    spec = hand_matches()["m1.json"]
    inputs = tmp_path / "in"
    inputs.mkdir()
    n = 300
    for i in range(n):
        players = (f"Alice{i:03d}", "Bob")
        (inputs / f"m{i:03d}.json").write_bytes(encode({**spec, "players": players}))
    with _RecordingPool(2) as pool:
        opts = ImportOptions(workers=2, chunk_files=64)
        s = run_import([inputs], tmp_path / "pool", opts, verify=fake_verify, executor=pool)
    assert s.matches == n
    units = pool.units
    assert sum(units) == n
    # Each unit about a quarter of what is left (2 workers), at most 64, down to 16.
    assert units[0] == 64 and units == sorted(units, reverse=True), units
    assert units[-1] <= 16 < units[5] < units[1] < 64 and len(units) >= 8, units
    calls: list[int] = []
    original = ingest.worker.process_unit

    def counted(tasks: list[FileTask], *args: Any) -> Any:
        calls.append(len(tasks))
        return original(tasks, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ingest.worker, "process_unit", counted)
        opts = ImportOptions(workers=1, chunk_files=64)
        run_import([inputs], tmp_path / "inline", opts, verify=fake_verify)
    assert calls == [64, 64, 64, 64, 44]
    assert snapshot(tmp_path / "pool") == snapshot(tmp_path / "inline")


def test_partitions_that_fill_up_are_merged_while_units_still_run(tmp_path: Path) -> None:
    """Where workers write parts, a partition whose parts reach `merge_rows` rows is merged
    at once, by a task queued beside the units, not all at the end (where one worker would
    write the largest partition while the others wait). The dataset is the pool's, and each
    table's rows are committed in input order, early merges first."""
    spec = hand_matches()["m1.json"]
    inputs = tmp_path / "in"
    inputs.mkdir()
    n = 200
    for i in range(n):
        (inputs / f"m{i:03d}.json").write_bytes(encode({**spec, "players": (f"A{i:03d}", "B")}))
    with _RecordingPool(2) as pool:
        opts = ImportOptions(workers=2, worker_parts=True, chunk_files=16, merge_rows=100)
        s = run_import([inputs], tmp_path / "parts", opts, verify=fake_verify, executor=pool)
    assert s.matches == n
    tasks = pool.tasks
    last_unit = len(tasks) - 1 - tasks[::-1].index("unit")
    early = [t for t in tasks[:last_unit] if t != "unit"]
    assert "turns" in early, tasks
    # Every partition reaching 100 rows was merged then: no turns left for the end but the
    # rows of the units that came after the last early merge.
    turns_files = Dataset(tmp_path / "parts").files("turns")
    assert len(turns_files) == tasks.count("turns") > 1
    run_import([inputs], tmp_path / "pool", ImportOptions(workers=2), verify=fake_verify)
    assert snapshot(tmp_path / "parts") == snapshot(tmp_path / "pool")

    def in_order(root: Path) -> list[tuple[Any, ...]]:
        ds = Dataset(root)
        rows = []
        for path in ds.files("turns"):
            t = pq.read_table(path, columns=["match_uid", "game_no", "ply"])
            rows += list(zip(*(c.to_pylist() for c in t.columns), strict=True))
        return rows

    assert in_order(tmp_path / "parts") == in_order(tmp_path / "pool")


_WORKER_ENV_SCRIPT = """
import multiprocessing, os
from bgparse.pipeline import pool as workers

def blas():
    return os.environ.get("OPENBLAS_NUM_THREADS")

def arrow_pool():
    import pyarrow
    return pyarrow.default_memory_pool().backend_name

if __name__ == "__main__":
    workers.start_forkserver()
    with multiprocessing.get_context("forkserver").Pool(1) as pool:
        print(pool.apply(blas), blas())
        print(pool.apply(arrow_pool), os.environ.get("ARROW_DEFAULT_MEMORY_POOL"))
"""


@pytest.mark.parametrize(
    ("given", "printed"), [(None, "1 None\nsystem None"), ("3", "3 3\nsystem None")]
)
def test_pool_workers_start_with_bgparse_environment_unless_set(
    tmp_path: Path, given: str | None, printed: str
) -> None:
    """The fork server, and so each worker, starts with `bgparse.helpers.environment`'s variables
    (OPENBLAS_NUM_THREADS=1, Arrow's system allocator) where the user set nothing; the
    importing process's own environment is left as it was."""
    import multiprocessing
    import subprocess
    import sys

    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork server on this platform")
    script = tmp_path / "env.py"
    script.write_text(_WORKER_ENV_SCRIPT)
    unset = ("OPENBLAS_NUM_THREADS", "ARROW_DEFAULT_MEMORY_POOL")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == printed
