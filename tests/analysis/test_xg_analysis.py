"""XG's stored analysis (`readers/xg.py`) on the real files of `../shared/corpus/xg`: the errors
and luck of the decisions the replay attaches equal, per player, the sums an independent
minimal reader of XG's records takes from the same bytes; every move record is one checker
decision and its played candidate is the play made; damaged analysis gives findings, never a
traceback. Where GNU Backgammon analysed an SGF twin, its totals are printed beside XG's."""

from __future__ import annotations

import math
import random
import re
import struct
import zlib
from collections import Counter
from pathlib import Path

import pytest

from bgparse.analysis.model import CheckerNote, CubeNote
from bgparse.model.findings import SyntaxRecordError
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import iter_records, read_path
from bgparse.replay import replay
from tests.conftest import corpus_dir, corpus_files

pytestmark = pytest.mark.corpus

SYNTHETIC = {"demo.xg", "example.xg"}
REAL = [p for p in corpus_files("xg", "*.xg") if p.name not in SYNTHETIC]
BROKEN = [p for p in corpus_files("xg", "*.xg") if p.name in SYNTHETIC]
TWINS = [p for p in REAL if p.with_suffix(".sgf").is_file()]
SIZE = 2560


# --- an independent reader: the archive unpacked, the fixed-size records walked ---------------


def _temp_xg(data: bytes) -> bytes:
    """`temp.xg` out of XG's container: header (8,232 bytes and a thumbnail), the zlib files,
    their index (532-byte entries, itself compressed where the trailer says) and a 36-byte
    trailer."""
    thumb_offset, thumb_size = struct.unpack_from("<qI", data, 12)
    start = 8232 + thumb_offset + thumb_size
    _, count, _, index_size, _, packed = struct.unpack_from("<IiiiiI", data, len(data) - 36)
    index = data[len(data) - 36 - index_size : len(data) - 36]
    if packed:
        index = zlib.decompress(index)
    for i in range(count):
        entry = index[532 * i : 532 * (i + 1)]
        name = entry[1 : 1 + entry[0]].decode("latin-1").lower()
        size, packed_size, at = struct.unpack_from("<iii", entry, 512)
        if name == "temp.xg":
            raw = data[start + at : start + at + packed_size]
            body = raw if entry[528] else zlib.decompress(raw)
            assert len(body) == size
            return body
    raise AssertionError("no temp.xg")


def _xg_sums(data: bytes) -> tuple[dict[tuple[int, str], float], Counter[str]]:
    """Per (side, what): the magnitudes of ErrMove (checker), ErrCube and ErrTake (cube), and
    ErrLuck (luck) wherever XG stored one (-1000: none); and counts of the records."""
    body = _temp_xg(data)
    sums: dict[tuple[int, str], float] = {}
    counts: Counter[str] = Counter()

    def add(side: int, what: str, value: float) -> None:
        sums[side, what] = sums.get((side, what), 0.0) + value

    for at in range(SIZE, len(body) - SIZE + 1, SIZE):
        rec = body[at : at + SIZE]
        if rec[8] == 3:  # a move: ActifP at 64, Played at 2308, ErrMove, ErrLuck at 2312
            side = 0 if struct.unpack_from("<i", rec, 64)[0] == 1 else 1
            err_move, luck = struct.unpack_from("<dd", rec, 2312)
            counts["move"] += 1
            if err_move != -1000 and rec[2308]:
                add(side, "checker", abs(err_move))
            if luck != -1000:
                add(side, "luck", luck)
        elif rec[8] == 2:  # a cube: Actif 12, Double 16, Take 20, ErrCube 200, ErrTake 216
            active, double, take = struct.unpack_from("<3i", rec, 12)
            side = 0 if active == 1 else 1
            err_cube, err_take = (
                struct.unpack_from("<d", rec, 200)[0],
                struct.unpack_from("<d", rec, 216)[0],
            )
            if err_cube != -1000 and double in (0, 1):
                counts["cube"] += 1
                add(side, "cube", abs(err_cube))
            if double == 1 and take in (0, 1):
                counts["answer"] += 1
                if err_take != -1000:
                    add(1 - side, "cube", abs(err_take))
    return sums, counts


def _our_sums(m: VerifiedMatch) -> dict[tuple[int, str], float]:
    sums: dict[tuple[int, str], float] = {}
    for d in m.decisions:
        what = "checker" if d.kind == "checker" else "cube"
        sums[d.side, what] = sums.get((d.side, what), 0.0) + d.error
        if d.luck is not None:
            sums[d.side, "luck"] = sums.get((d.side, "luck"), 0.0) + d.luck
    return sums


def _verified(path: Path) -> VerifiedMatch:
    [record] = read_path(path)
    assert record.analysis_source == "xg"
    assert not [f for f in record.errors if f.code.startswith("S")], record.errors
    return replay(record)


# --- the real files --------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_xg_error_and_luck_sums_equal_an_independent_reading(path: Path) -> None:
    m = _verified(path)
    ours = _our_sums(m)
    theirs, _ = _xg_sums(path.read_bytes())
    keys = sorted(set(ours) | set(theirs))
    print(f"\n{path.name}: side, what: ours / independent")
    for k in keys:
        print(f"  {m.players[k[0]]!r} {k[1]}: {ours.get(k, 0.0):.4f} / {theirs.get(k, 0.0):.4f}")
    for k in keys:
        assert ours.get(k, 0.0) == pytest.approx(theirs.get(k, 0.0), abs=1e-9), k
    assert {what for _, what in theirs} == {"checker", "cube", "luck"}


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_xg_decisions_are_one_a_move_record_and_fit_the_play_made(path: Path) -> None:
    m = _verified(path)
    _, counts = _xg_sums(path.read_bytes())
    assert [f for f in m.findings if f.code.startswith("A")] == []
    kinds = Counter(d.kind for d in m.decisions)
    assert kinds["checker"] == counts["move"]
    assert kinds["cube"] == counts["cube"]
    assert kinds["take"] == counts["answer"]
    turns = {(g.number, t.ply): t for g in m.games for t in g.turns}
    for d in m.decisions:
        if d.kind != "checker":
            continue
        turn = turns[d.game_no, d.ply]
        assert d.counted == (turn.kind == "play" and (d.n_legal or 0) > 1), d
        if turn.kind == "play":
            # XG's played candidate is the play made, and its ErrMove is the candidates' gap.
            assert d.played_rank is not None, d
            assert d.equity_best is not None and d.equity_played is not None
            assert d.error == pytest.approx(d.equity_best - d.equity_played, abs=5e-4)
    counted = sum(d.counted for d in m.decisions if d.kind == "checker")
    assert 0.7 * kinds["checker"] < counted <= kinds["checker"]


def test_xg_notes_say_what_the_records_say() -> None:
    path = corpus_dir("xg") / "test.xg"
    [record] = read_path(path)
    notes = record.analysis
    first = next(n for n in notes if isinstance(n, CheckerNote))
    # The opening 51 of game 1 (record 4), analysed at XGRoller++: 13/8 24/23 best, played.
    assert (first.game, first.line, first.column, first.side) == (1, 4, 69, 0)
    assert first.level == "XGRoller++" and first.played == 0 and first.error == 0.0
    assert first.candidates[0].play == "24/23 13/8"
    assert first.candidates[0].equity == pytest.approx(0.0066, abs=1e-4)
    assert first.luck == pytest.approx(0.0066, abs=1e-4)
    win = first.candidates[0].probs
    assert win is not None and win[0] == pytest.approx(0.4999, abs=1e-4)
    # The second player's decision not to double (record 5), placed at the roll after it.
    cube = next(n for n in notes if isinstance(n, CubeNote))
    assert (cube.line, cube.column, cube.side) == (6, 69, 1)
    assert (cube.no_double, cube.double_pass) == (pytest.approx(-0.0046, abs=1e-4), 1.0)
    assert cube.cube_error == 0.0 and cube.take_error is None and cube.available
    # A wrong pass (record 237): ErrTake is stored negative, taken as its magnitude.
    wrong = next(n for n in notes if isinstance(n, CubeNote) and n.line == 237)
    assert wrong.column == 17 and wrong.take_error == pytest.approx(0.0061, abs=1e-4)


def _gnu_stats(sgf: str) -> dict[tuple[str, str], float]:
    """GNU Backgammon's per-game statistics (`GS`) summed: checker errors (`M`'s last four),
    cube errors (`C`'s last 24: six kinds a player), luck (`D`'s last four); EMG normalised,
    player 0 the SGF's W. A value GNU did not compute (its luck's -inf) leaves the total out."""
    names = {0: re.search(r"PW\[([^]]*)\]", sgf), 1: re.search(r"PB\[([^]]*)\]", sgf)}
    who = {i: m.group(1) if m else str(i) for i, m in names.items()}
    sums: dict[tuple[str, str], float] = {}
    for kind, body in re.findall(r"\[([MCD]):([^]]*)\]", sgf):
        values = [float(v) for v in body.split()]
        for p in (0, 1):
            if kind == "M":
                value = values[-4 + 2 * p]
            elif kind == "C":
                value = sum(values[-24 + 12 * p + 2 * i] for i in range(6))
            else:
                value = values[-4 + 2 * p]
            key = (who[p], {"M": "checker", "C": "cube", "D": "luck"}[kind])
            sums[key] = sums.get(key, 0.0) + value if math.isfinite(value) else math.nan
    return sums


@pytest.mark.parametrize("path", TWINS, ids=[p.name for p in TWINS])
def test_xg_errors_beside_gnu_backgammons_of_the_sgf_twin(path: Path) -> None:
    """Reported, not asserted: two engines at their own levels disagree (and a twin GNU only
    imported holds zeros and -inf, not an analysis)."""
    m = _verified(path)
    ours = _our_sums(m)
    gnu = _gnu_stats(path.with_suffix(".sgf").read_text(encoding="utf-8"))
    print(f"\n{path.name}: player, what: XG / GNU (EMG, normalised)")
    for side, name in enumerate(m.players):
        for what in ("checker", "cube", "luck"):
            mine = ours.get((side, what), 0.0)
            print(f"  {name!r} {what}: {mine:.4f} / {gnu.get((name, what), math.nan):.4f}")
    assert gnu


# --- damaged files ----------------------------------------------------------------------------


def _read_or_refuse(data: bytes) -> str:
    try:
        records = list(iter_records(data, "damaged.xg"))
    except SyntaxRecordError as exc:
        assert exc.finding.code.startswith("S"), exc.finding
        return f"refused {exc.finding.code}"
    for r in records:
        replay(r)
    return "read"


@pytest.mark.parametrize("path", BROKEN, ids=[p.name for p in BROKEN])
def test_synthetic_xg_files_are_refused_not_a_traceback(path: Path) -> None:
    assert _read_or_refuse(path.read_bytes()).startswith("refused S")


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_truncated_xg_files_are_refused(path: Path) -> None:
    data = path.read_bytes()
    rng = random.Random(f"cut {path.name}")
    assert {_read_or_refuse(data[: rng.randrange(1, len(data))]) for _ in range(20)} == {
        "refused S020"
    }


def _repacked(path: Path, edit: object) -> tuple[bytes, list[bytearray]]:
    from bgparse.readers.xg import unpack_archive
    from tests.test_xg_reader import _pack

    data = path.read_bytes()
    files = unpack_archive(data)
    body = files["temp.xg"]
    recs = [bytearray(body[i : i + SIZE]) for i in range(0, len(body), SIZE)]
    assert callable(edit)
    body = edit(recs)
    return _pack(data, {**files, "temp.xg": body}, thumbnail=False), recs


def _first(recs: list[bytearray], kind: int) -> bytearray:
    """The first analysed record of a kind (2 cube, 3 move)."""
    at = 2312 if kind == 3 else 200
    return next(r for r in recs if r[8] == kind and struct.unpack_from("<d", r, at)[0] != -1000)


@pytest.mark.parametrize(
    ("what", "kind", "offset", "fmt", "value"),
    [
        ("candidate count", 3, 188, "<i", 1_000_000),
        ("ErrMove NaN", 3, 2312, "<d", math.nan),
        ("ErrLuck infinite", 3, 2320, "<d", math.inf),
        ("candidate equity", 3, 1408 + 24, "<f", 1e30),
        ("candidate step", 3, 1024, "<b", 60),
        ("no-double equity", 2, 152, "<f", math.nan),
        ("ErrCube", 2, 200, "<d", 1e300),
    ],
)
def test_bad_analysis_values_are_a_warning_and_the_match_still_replays(
    what: str, kind: int, offset: int, fmt: str, value: float
) -> None:
    path = corpus_dir("xg") / "test.xg"

    def edit(recs: list[bytearray]) -> bytes:
        struct.pack_into(fmt, _first(recs, kind), offset, value)
        return b"".join(recs)

    damaged, _ = _repacked(path, edit)
    [record] = iter_records(damaged, "damaged.xg")
    [warning] = [f for f in record.errors if f.code == "S021"]
    assert "analysis is ignored" in warning.message and warning.severity.name == "WARNING"
    m = replay(record)
    assert [f for f in m.findings if f.code.startswith("A")] == []
    assert m.decisions


def test_xg_analysis_fields_flipped_or_records_cut_never_raise() -> None:
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    rng = random.Random(300)
    outcomes: Counter[str] = Counter()
    for i in range(300):

        def edit(recs: list[bytearray], i: int = i) -> bytes:
            n = rng.randrange(1, len(recs))
            rec = recs[n]
            if rec[8] == 3:
                at = rng.choice([rng.randrange(124, 2308), rng.randrange(2312, 2336)])
            else:
                at = rng.randrange(64, 232)
            rec[at] = rng.randrange(256)
            body = b"".join(recs)
            # Every third copy is also cut inside a record.
            return body[: rng.randrange(SIZE, len(body))] if i % 3 == 0 else body

        damaged, _ = _repacked(path, edit)
        outcomes[_read_or_refuse(damaged)] += 1
    assert outcomes["read"] > 0
