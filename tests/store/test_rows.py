"""Rows are built by column name against the schema: a value can only land in the column that
names it, and a row that names other columns than the schema's is refused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bgparse.store.rows import Columns, ImportContext, LedgerRows, Rows
from bgparse.store.schema import TABLES

from .conftest import hand_matches
from .factories import encode, fake_verify

CTX = ImportContext("imp-rows", datetime(2026, 1, 1, tzinfo=UTC), "9.9", None)


def _ledger_row() -> dict[str, object]:
    return {name: None for name in TABLES["imports"].names}


def test_columns_follow_the_schema_whatever_order_a_row_names_them_in() -> None:
    cols = Columns("imports")
    row = _ledger_row() | {"path": "a.mat", "status": "imported", "n_games": 3}
    cols.add(dict(reversed(list(row.items()))))
    assert cols.names == tuple(TABLES["imports"].names)
    got = cols.lists
    assert got[cols.names.index("path")] == ["a.mat"]
    assert got[cols.names.index("n_games")] == [3]


@pytest.mark.parametrize("change", ["missing", "unknown", "renamed"])
def test_a_row_naming_other_columns_than_the_schemas_is_refused_whole(change: str) -> None:
    cols = Columns("imports")
    row = _ledger_row()
    if change in ("missing", "renamed"):
        del row["n_games"]
    if change in ("unknown", "renamed"):
        row["n_gamez"] = 1
    with pytest.raises(ValueError, match="imports: columns missing") as info:
        cols.add(row)
    assert ("'n_games'" in str(info.value)) == (change != "unknown")
    assert ("'n_gamez'" in str(info.value)) == (change != "missing")
    assert len(cols) == 0 and all(not values for values in cols.lists)


def test_columns_of_several_rows_must_name_every_column_once_and_be_as_long() -> None:
    cols = Columns("imports")
    columns: dict[str, list[object]] = {name: [None, None] for name in TABLES["imports"].names}
    cols.extend(columns)
    assert len(cols) == 2
    with pytest.raises(ValueError, match="different lengths"):
        cols.extend(columns | {"path": ["only one"]})
    del columns["path"]
    with pytest.raises(ValueError, match=r"missing \['path'\]"):
        cols.extend(columns)
    assert len(cols) == 2


def test_a_ledger_row_puts_each_count_under_its_own_column() -> None:
    ledger = LedgerRows(CTX)
    ledger.add("a.mat", "file", None, None, 10, "ab", "imported", None, (1, 2, 3, 4, 5), (6, 7))
    row = ledger.batch().to_pylist()[0]
    counts = ("n_matches", "n_duplicate_matches", "n_games", "n_turns", "n_cube_actions")
    assert [row[c] for c in counts] == [1, 2, 3, 4, 5]
    assert (row["n_findings"], row["n_errors"], row["size_bytes"]) == (6, 7, 10)


def test_turn_rows_match_their_turns_field_by_field() -> None:
    """The turns table is built a column at a time from the game's turns: each row must still
    be its own turn's (checked against the turns one by one)."""
    rows = Rows(CTX)
    rows.start_file("f.mat", "0" * 64)
    vms = [vm for name, spec in hand_matches().items() for vm in fake_verify(encode(spec), name)]
    for vm in vms:
        rows.add_match(vm, vm.index.to_bytes(16, "big"), "c")
    got = [r for key, b in rows.batches().items() if key[0] == "turns" for r in b.to_pylist()]
    want = [(g.number, t) for vm in vms for g in vm.games for t in g.turns]
    assert len(got) == len(want) > 0
    for row, (number, t) in zip(got, want, strict=True):
        mover = t.side
        assert (row["game_no"], row["ply"], row["side"], row["kind"]) == (
            number,
            t.ply,
            t.side,
            t.kind,
        )
        assert (row["pips_mover"], row["pips_opponent"]) == t.pips
        assert (row["score_mover"], row["score_opponent"]) == (t.score[mover], t.score[1 - mover])
        assert (row["line"], row["column"], row["hits"]) == (t.line, t.column, t.hits)
        assert row["position_id"] == (t.position_id or None)
        assert row["play"] == (t.play or None)
        assert row["die1"] == (t.dice[0] if t.dice else None)
