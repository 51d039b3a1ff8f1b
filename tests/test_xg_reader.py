"""The eXtreme Gammon `.xg` reader on the real files of `../shared/corpus/xg`: what it reads
equals the independent reading in truth.jsonl, the twins verify to the same match as their
`.mat` and SGF, and damaged or hostile files give one S error or a read that replays."""

from __future__ import annotations

import json
import random
import struct
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.model.findings import Severity, SyntaxRecordError
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import iter_records, read_path
from bgparse.readers.xg import RECORD_SIZE, unpack_archive
from bgparse.replay import replay
from tests.conftest import CORPUS, corpus_dir, corpus_files
from tests.test_sgf_mat_twins import summary

pytestmark = pytest.mark.corpus

XG = CORPUS / "xg"
XG_FILES = corpus_files("xg", "*.xg")


def _truth() -> dict[str, dict[str, Any]]:
    path = XG / "truth.jsonl"
    if not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {row["file"]: row for row in rows}


TRUTH = _truth()
REAL = [p for p in XG_FILES if p.name in TRUTH and "error" not in TRUTH[p.name]]
SYNTHETIC = [p for p in XG_FILES if p.name in TRUTH and "error" in TRUTH[p.name]]
TWINS = [p for p in REAL if p.with_suffix(".mat").is_file() and p.with_suffix(".sgf").is_file()]

#: XG's termination codes as the replay names the game's end.
_END = {0: ("drop", None), 1: ("normal", "single"), 2: ("normal", "gammon")}
_END |= {3: ("normal", "backgammon")}


def _verified(path: Path) -> VerifiedMatch:
    [record] = read_path(path)
    assert not [f for f in record.errors if f.code.startswith("S")], record.errors
    return replay(record)


def _errors(m: VerifiedMatch) -> list[str]:
    return [
        f"{f.line}:{f.column} {f.code} {f.message}"
        for f in m.findings
        if f.severity is Severity.ERROR
    ]


# --- the real files -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_xg_file_reads_and_replays_as_truth_says(path: Path) -> None:
    truth = TRUTH[path.name]
    m = _verified(path)
    assert _errors(m) == []
    assert list(m.players) == truth["players"]
    assert m.length == truth["length"]
    assert len(m.games) == len(truth["games"])
    for g, t in zip(m.games, truth["games"], strict=True):
        assert g.number == t["number"]
        assert list(g.score_before) == t["score_before"]
        assert g.crawford == t["crawford"]
        assert (g.winner, g.points) == (t["winner"], t["points"])
        # Truth counts XG's move records: plays, dances and a roll not played (hidden).
        assert g.plays == t["rolls"], g.number
        assert (g.doubles, g.takes, g.drops, g.beavers) == (
            t["doubles"],
            t["takes"],
            t["drops"],
            t["beavers"],
        )
        termination = t["termination"]
        if termination >= 100:
            assert g.end == "resign"
        else:
            assert (g.end, g.result_type) == _END[termination]


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_xg_file_carries_the_match_header(path: Path) -> None:
    truth = TRUTH[path.name]
    [record] = read_path(path)
    assert record.format == "xg"
    assert record.tag("Crawford") == ("On" if truth["crawford"] else "Off")
    assert (record.info.event or "") == truth["event"]
    assert record.info.player1 == truth["players"][0]
    assert record.info.player2 == truth["players"][1]
    assert record.info.event_date is not None and record.info.event_date[:2] == "20"
    assert record.info.cube_limit == 1024
    assert record.info.elo1 == 1600.0


def test_xg_comments_come_in_as_plain_text() -> None:
    path = corpus_dir("xg") / "match_with_comment.xg"
    [record] = read_path(path)
    notes = [a.text for _, a in record.iter_actions() if type(a).__name__ == "Comment"]
    assert notes == ["coup assez difficile", "les double 66 sont toujpurs difficiles à trouver"]


def test_xg_header_tags_of_the_hsbt_file() -> None:
    [record] = read_path(corpus_dir("xg") / "test.xg")
    tags = dict(record.tags)
    assert tags["Site"] == "Paris, Fédération Française de Bridge"
    assert tags["Round"] == "Tableau Or 2"
    assert tags["EventDate"] == "2023.11.26" and tags["EventTime"] == "09.30"
    assert tags["Transcriber"] == "Kévin Unger"
    assert tags["Match ID"] == "755933700"  # XG's .mat export of it negates it (sides swapped)


# --- the twins ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", TWINS, ids=[p.name for p in TWINS])
def test_xg_twin_verifies_to_the_same_match_as_its_mat(path: Path) -> None:
    from_xg, from_mat = _verified(path), _verified(path.with_suffix(".mat"))
    assert _errors(from_xg) == _errors(from_mat) == []
    assert summary(from_xg) == summary(from_mat)


def _turns(m: VerifiedMatch, *, final: bool = True) -> list[object]:
    out: list[object] = [m.players, m.length, m.final_score, m.winner]
    for g in m.games:
        out.append((g.number, g.score_before, g.winner, g.points, g.end, g.result_type))
        hidden_last = bool(g.turns) and g.turns[-1].kind == "hidden"
        last = g.final_position_id if final or not hidden_last else ""
        out.append((g.cube, g.cube_owner, g.doubles, g.takes, g.drops, last))
        for t in g.turns:
            dice = tuple(sorted(t.dice)) if t.dice else None
            out.append((t.kind, t.side, dice, t.position_id, t.match_id, t.cube_value))
    return out


@pytest.mark.parametrize("path", TWINS, ids=[p.name for p in TWINS])
def test_xg_twin_replays_turn_by_turn_as_its_gnu_sgf(path: Path) -> None:
    """Every Position ID and Match ID before every turn, every cube action and result agree.
    What may differ is how a play is written: GNU's SGF keeps some plays by another path to the
    same board (`7/3 3/2` for XG's `7/6 6/2`) and in another step order (DIALECTS.md)."""
    from_xg, from_sgf = _verified(path), _verified(path.with_suffix(".sgf"))
    assert _turns(from_xg) == _turns(from_sgf)
    paths = 0
    for gx, gs in zip(from_xg.games, from_sgf.games, strict=True):
        for tx, ts in zip(gx.turns, gs.turns, strict=True):
            if tx.play != ts.play:
                paths += 1
            elif tx.kind == "play":
                assert sorted(tx.steps) == sorted(ts.steps)
    assert paths <= 3


# --- damaged and hostile files ------------------------------------------------------------------


def _read_or_refuse(data: bytes, path: str = "x.xg") -> str:
    """'refused CODE' or 'read': a read must replay without an exception."""
    try:
        records = list(iter_records(data, path))
    except SyntaxRecordError as exc:
        assert exc.finding.code.startswith("S"), exc.finding
        assert "\n" not in str(exc)
        return f"refused {exc.finding.code}"
    for r in records:
        replay(r, keep_turns=False)
    return "read"


@pytest.mark.parametrize("path", SYNTHETIC, ids=[p.name for p in SYNTHETIC])
def test_synthetic_xg_file_is_refused_with_one_s_error(path: Path) -> None:
    expected = {"demo.xg": "S020", "example.xg": "S021"}[path.name]
    assert _read_or_refuse(path.read_bytes()) == f"refused {expected}"
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    [line] = [ln for ln in result.output.splitlines() if expected in ln]
    assert line.startswith(f"{path}:") and f"error: {expected} " in line
    assert "Traceback" not in result.output


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_xg_file_cut_at_50_points_is_refused_or_replays(path: Path) -> None:
    data = path.read_bytes()
    rng = random.Random(f"cut {path.name}")
    outcomes = {_read_or_refuse(data[: rng.randrange(1, len(data))]) for _ in range(50)}
    # The archive sits at the end of the file: any cut loses its trailer.
    assert outcomes == {"refused S020"}


def _pack(original: bytes, files: dict[str, bytes], *, thumbnail: bool = True) -> bytes:
    """An XG file around `files`: the original's header (and thumbnail), a fresh archive."""
    head_size = 8232 + (struct.unpack_from("<I", original, 20)[0] if thumbnail else 0)
    head = bytearray(original[:head_size])
    if not thumbnail:
        struct.pack_into("<I", head, 20, 0)
    body, index = b"", b""
    for name, content in files.items():
        packed = zlib.compress(content, 1)
        raw_name = name.encode()
        entry = bytes([len(raw_name)]) + raw_name.ljust(255, b"\0") + bytes(256)
        entry += struct.pack(
            "<iiiIBB2x", len(content), len(packed), len(body), zlib.crc32(content), 0, 1
        )
        body += packed
        index += entry
    packed_index = zlib.compress(index)
    crc = zlib.crc32(body + packed_index)
    trailer = struct.pack("<IiiiiI12x", crc, len(files), 1, len(packed_index), len(body), 1)
    return bytes(head) + body + packed_index + trailer


def _records(path: Path) -> tuple[bytes, dict[str, bytes], list[bytearray]]:
    data = path.read_bytes()
    files = unpack_archive(data)
    body = files["temp.xg"]
    recs = [bytearray(body[i : i + RECORD_SIZE]) for i in range(0, len(body), RECORD_SIZE)]
    return data, files, recs


def test_pack_helper_rebuilds_a_file_that_reads_the_same() -> None:
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, _ = _records(path)
    assert summary(replay(next(iter_records(_pack(data, files), "x.xg")))) == summary(
        _verified(path)
    )


def test_2000_byte_flips_in_header_archive_and_records_are_refused_or_replay() -> None:
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, recs = _records(path)
    rng = random.Random(2000)
    outcomes: dict[str, int] = {}
    start = 8232 + struct.unpack_from("<I", data, 20)[0]
    kinds_seen: set[int] = set()
    for i in range(2000):
        region = i % 3
        if region == 2:
            # Inside temp.xg, repacked with good CRCs: the record reader itself is tested.
            n = rng.randrange(len(recs))
            rec = bytearray(recs[n])
            kinds_seen.add(rec[8])
            rec[rng.randrange(RECORD_SIZE)] ^= 1 << rng.randrange(8)
            body = b"".join(bytes(r) if k != n else bytes(rec) for k, r in enumerate(recs))
            damaged = _pack(data, {**files, "temp.xg": body}, thumbnail=False)
        else:
            # The header (and thumbnail), or the archive: compressed data, index, trailer.
            at = rng.randrange(0, start) if region == 0 else rng.randrange(start, len(data))
            flipped = bytearray(data)
            flipped[at] ^= 1 << rng.randrange(8)
            damaged = bytes(flipped)
        outcome = _read_or_refuse(damaged)
        outcomes[f"{region} {outcome}"] = outcomes.get(f"{region} {outcome}", 0) + 1
    # Every flip in the archive is caught (CRC or zlib); the header's text fields are not
    # checked by XG either; the records' flips mostly land in analysis fields nobody reads.
    assert outcomes.get("1 read", 0) == 0
    assert outcomes.get("0 read", 0) > 0 and outcomes.get("2 read", 0) > 0
    assert {0, 1, 2, 3, 4} <= kinds_seen


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("trailer count", 2**31 - 1),
        ("trailer index size", 2**31 - 1),
        ("trailer data size", 2**31 - 1),
        ("entry size", 2**31 - 1),
        ("entry packed size", 2**31 - 1),
        ("thumbnail size", 2**31 - 1),
    ],
)
def test_huge_counts_and_sizes_cost_nothing(where: str, value: int) -> None:
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, _ = _records(path)
    if where.startswith("entry"):
        # Sizes inside the index, repacked so that the CRCs still hold.
        clean = _pack(data, files, thumbnail=False)
        trailer = struct.unpack_from("<IiiiiI", clean, len(clean) - 36)
        index_at = len(clean) - 36 - trailer[3]
        index = bytearray(zlib.decompress(clean[index_at : len(clean) - 36]))
        struct.pack_into("<i", index, 512 if where == "entry size" else 516, value)
        packed = zlib.compress(bytes(index))
        body = clean[8232:index_at]
        trail = struct.pack(
            "<IiiiiI12x", zlib.crc32(body + packed), 2, 1, len(packed), len(body), 1
        )
        damaged = clean[:8232] + body + packed + trail
    else:
        damaged_b = bytearray(data)
        at = {
            "trailer count": len(data) - 32,
            "trailer index size": len(data) - 24,
            "trailer data size": len(data) - 20,
            "thumbnail size": 20,
        }[where]
        struct.pack_into("<i", damaged_b, at, value)
        damaged = bytes(damaged_b)
    tracemalloc.start()
    began = time.perf_counter()
    try:
        outcome = _read_or_refuse(damaged)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome in ("refused S020", "refused S021")
    assert time.perf_counter() - began < 5
    assert peak < 20 * len(data) + 8 * 1024 * 1024


def test_record_values_out_of_range_are_reported_and_the_rest_is_read() -> None:
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, recs = _records(path)
    moves = [i for i, r in enumerate(recs) if r[8] == 3]
    struct.pack_into("<i", recs[moves[5]], 100, 9)  # a die of 9
    recs[moves[6]][8] = 77  # a record type XG does not write
    damaged = _pack(data, {**files, "temp.xg": b"".join(map(bytes, recs))})
    [record] = iter_records(damaged, "x.xg")
    found = [(f.code, f.line, f.column) for f in record.errors]
    assert ("S021", moves[5] + 1, 101) in found
    assert ("S021", moves[6] + 1, 9) in found
    m = replay(record)
    assert len(m.games) == 4  # the rest of the match is there


def test_xg_board_after_a_play_that_its_steps_do_not_make_is_reported() -> None:
    """S022 exists for a file whose steps and board after disagree: XG's own are consistent."""
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, recs = _records(path)
    [clean] = iter_records(_pack(data, files), "x.xg")
    assert not [f for f in clean.errors if f.code == "S022"]
    n = next(i for i, r in enumerate(recs) if r[8] == 3)
    recs[n][35 + 6] += 1  # one more checker on the 6-point after the first play
    [record] = iter_records(_pack(data, {**files, "temp.xg": b"".join(map(bytes, recs))}), "x")
    assert [(f.code, f.line, f.severity) for f in record.errors] == [
        ("S022", n + 1, Severity.WARNING)
    ]


def test_xgp_position_file_is_refused_naming_the_format() -> None:
    """A position file is XG's container around one game set up by hand and one decision."""
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, recs = _records(path)
    game = next(r for r in recs if r[8] == 1)
    move = next(r for r in recs if r[8] == 3)
    struct.pack_into(
        "<26b",
        game,
        21,
        0,
        -2,
        0,
        0,
        0,
        0,
        5,
        0,
        3,
        0,
        0,
        0,
        -5,
        5,
        0,
        0,
        0,
        -3,
        0,
        -5,
        0,
        0,
        0,
        0,
        1,
        1,
    )
    body = b"".join(map(bytes, (recs[0], game, move)))
    damaged = _pack(data, {"temp.xg": body, "temp.xgi": files["temp.xgi"]})
    with pytest.raises(SyntaxRecordError) as exc:
        list(iter_records(damaged, "pos.xgp"))
    assert exc.value.finding.code == "S003"
    assert "position file (.xgp)" in exc.value.finding.message
    # A match just begun (its first game's start left empty, as XG does; or the start
    # position) is a match.
    for start in (
        bytes(26),
        bytes(
            b % 256
            for b in (
                0,
                -2,
                0,
                0,
                0,
                0,
                5,
                0,
                3,
                0,
                0,
                0,
                -5,
                5,
                0,
                0,
                0,
                -3,
                0,
                -5,
                0,
                0,
                0,
                0,
                2,
                0,
            )
        ),
    ):
        game[21:47] = start
        body = b"".join(map(bytes, (recs[0], game, move)))
        [record] = iter_records(_pack(data, {"temp.xg": body}), "begun.xg")
        assert [len(g.actions) for g in record.games] == [1]


# --- the command line: import, convert ----------------------------------------------------------


def test_import_of_xg_mat_and_sgf_copies_stores_the_match_once(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for ext in ("xg", "mat", "sgf"):
        (folder / f"hsbt.{ext}").write_bytes((corpus_dir("xg") / f"test.{ext}").read_bytes())
    data = tmp_path / "data"
    result = CliRunner().invoke(app, ["import", str(folder), "-d", str(data), "-w", "1"])
    assert result.exit_code == 0, result.output
    assert "3 inputs: 1 imported, 2 duplicate, 0 quarantined" in result.output
    from bgparse.questions.query import connect, run

    con = connect(data)
    rows = run(con, "SELECT status, count(*) AS n FROM imports GROUP BY status").to_pylist()
    assert {r["status"]: r["n"] for r in rows} == {"imported": 1, "duplicate": 2}
    dup = run(con, "SELECT reason FROM imports WHERE status = 'duplicate'").to_pylist()
    assert all("already stored" in r["reason"] for r in dup)
    [n] = run(con, "SELECT count(*) AS n FROM matches").to_pylist()
    assert n["n"] == 1


@pytest.mark.parametrize("to", ["mat", "sgf"])
@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_convert_xg_writes_a_record_that_reads_back_the_same(
    path: Path, to: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(app, ["convert", str(path), "--to", to, "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    back = _verified(tmp_path / f"{path.stem}.{to}")
    assert _errors(back) == []
    # A game resigned after a roll not played ends on a board the writers do not keep (the
    # same for a .mat written from a .mat): every turn before it agrees.
    assert _turns(back, final=False) == _turns(_verified(path), final=False)


def test_an_illegal_play_in_an_xg_file_is_reported_at_its_record() -> None:
    """XG lets a transcriber enter an illegal play (and marks it, `InvalidM`); its steps are
    replayed like any record's, so the replay reports it as it reports any illegal play."""
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, recs = _records(path)
    n = next(i for i, r in enumerate(recs) if r[8] == 3)
    rec = recs[n]
    assert struct.unpack_from("<4i", rec, 68) == (12, 8, 23, 22)  # 41: 13/9 24/23
    struct.pack_into("<i", rec, 80, 21)  # 24/22: a 2, which was not rolled
    struct.pack_into("<i", rec, 2480, 2)  # XG's mark: an invalid decision
    after = list(struct.unpack_from("<26b", rec, 35))
    after[23], after[22] = 0, 1
    struct.pack_into("<26b", rec, 35, *after)
    [record] = iter_records(_pack(data, {**files, "temp.xg": b"".join(map(bytes, recs))}), "x")
    assert not record.errors
    first = next(f for f in replay(record).findings if f.severity is Severity.ERROR)
    assert (first.code, first.line, first.column) == ("P001", n + 1, 69)


def test_xg_rtf_comments_decode_escapes_and_survive_junk() -> None:
    """temp.xgc: one RTF comment a CRLF line (XG's own line breaks inside stored as 0x01 0x02),
    pointed at by a record's comment index."""
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, recs = _records(path)
    comments = [
        rb"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\pard caf\'e9 \u8364? 5\par" + b"\x01\x02" + rb"x}",
        b"{\\rtf1 \\u" + b"9" * 5000 + b" junk \\" + b"{ \\}",
        b"plain text, not RTF ",
    ]
    moves = [i for i, r in enumerate(recs) if r[8] == 3]
    for k in range(3):
        struct.pack_into("<i", recs[moves[k]], 2524, k)
    xgc = b"\r\n".join(comments) + b"\r\n"
    body = b"".join(map(bytes, recs))
    [record] = iter_records(_pack(data, {**files, "temp.xg": body, "temp.xgc": xgc}), "x")
    notes = [a.text for _, a in record.iter_actions() if type(a).__name__ == "Comment"]
    assert notes[0] == "café € 5\nx"
    assert "9" * 4000 in notes[1] and notes[1].endswith("junk { }")
    assert notes[2] == "plain text, not RTF"
    replay(record)


def test_xg_automatic_doubles_start_the_game_with_the_cube_they_make() -> None:
    """XG counts automatic doubles in the game header and leaves the cube at 1 elsewhere."""
    path = corpus_dir("xg") / "charlot1-charlot2_7p_2025-11-08-2305.xg"
    data, files, recs = _records(path)
    last_game = max(i for i, r in enumerate(recs) if r[8] == 1)
    footer = max(i for i, r in enumerate(recs) if r[8] == 4)
    struct.pack_into("<i", recs[last_game], 64, 1)
    struct.pack_into("<i", recs[footer], 28, 6)  # a backgammon resigned at cube 2
    [record] = iter_records(_pack(data, {**files, "temp.xg": b"".join(map(bytes, recs))}), "x")
    m = replay(record)
    assert _errors(m) == []
    g = m.games[-1]
    assert (g.cube, g.points, g.end, g.result_type) == (2, 6, "resign", "backgammon")
