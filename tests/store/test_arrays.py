"""The typed column converter (bgparse/store/_arrays.pyx, built by setup.py where it can)
must give exactly `pa.array(values, type=kind)`, or None where it leaves a list to pa.array:
never another array, and never an array where pa.array refuses the values (those make a file
Unstorable). Skipped on a pure-Python install."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgparse.readers import iter_records
from bgparse.replay import replay
from bgparse.rules.steps import Step
from bgparse.store import rows as rows_module
from bgparse.store.rows import ImportContext, Rows, match_uid
from bgparse.store.schema import TABLES

from ..conftest import corpus_dir

arrays = pytest.importorskip(
    "bgparse.store._arrays", reason="the typed column converter is not built (pure Python)"
)
typed_array = arrays.typed_array

STEPS_TYPE = TABLES["turns"].field("steps").type
UID_TYPE = TABLES["turns"].field("match_uid").type
INT_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32()]


def reference(values: list[Any], kind: pa.DataType) -> pa.Array | None:
    """pa.array's answer; None where it refuses the values."""
    try:
        return pa.array(values, type=kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
        return None


def check(values: list[Any], kind: pa.DataType) -> pa.Array | None:
    """The typed answer is pa.array's or None; returns it."""
    got = typed_array(values, kind)
    want = reference(values, kind)
    if got is not None:
        got.validate(full=True)
        assert want is not None, f"typed converted what pa.array refuses: {values!r}"
        assert got.type == want.type
        assert got.equals(want), (values, got, want)
        assert got.null_count == want.null_count
    return got


# --- every value pa.array takes, some it does not --------------------------------------------

odd_values = st.sampled_from([1.0, "1", b"1", True, False, [1], (1, 2)])


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(INT_TYPES),
    values=st.lists(
        st.one_of(st.none(), st.integers(-(2**70), 2**70), st.integers(-300, 300), odd_values),
        max_size=40,
    ),
)
def test_integers_as_pa_array_makes_them(kind: pa.DataType, values: list[Any]) -> None:
    got = check(values, kind)
    # Exact ints within the column's range, or None, are the typed loop's own.
    info = (kind.bit_width, pa.types.is_signed_integer(kind))
    low = -(2 ** (info[0] - 1)) if info[1] else 0
    high = 2 ** (info[0] - 1) - 1 if info[1] else 2 ** info[0] - 1
    if all(v is None or (type(v) is int and low <= v <= high) for v in values):
        assert got is not None


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.text(max_size=20), odd_values), max_size=40))
def test_strings_as_pa_array_makes_them(values: list[Any]) -> None:
    got = check(values, pa.string())
    if all(v is None or type(v) is str for v in values):
        assert got is not None


def test_a_lone_surrogate_is_left_to_pa_array() -> None:
    assert typed_array(["ok", "\ud800"], pa.string()) is None
    assert check(["a", None, "é€😀", ""], pa.string()) is not None


def test_a_long_string_column_grows_its_buffer() -> None:
    values = ["x" * (i % 97) for i in range(5000)] + ["ünïcode" * 50, None]
    assert check(values, pa.string()) is not None


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.booleans(), st.integers(0, 1), odd_values)))
def test_booleans_as_pa_array_makes_them(values: list[Any]) -> None:
    got = check(values, pa.bool_())
    if all(v is None or type(v) is bool for v in values):
        assert got is not None


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.none(), st.binary(min_size=15, max_size=17), st.binary(min_size=16, max_size=16)
        ),
        max_size=30,
    )
)
def test_match_uids_as_pa_array_makes_them(values: list[Any]) -> None:
    got = check(values, UID_TYPE)
    if all(v is None or len(v) == 16 for v in values):
        assert got is not None


steps_of = st.lists(
    st.tuples(st.integers(-2, 300), st.integers(-2, 300), st.one_of(st.booleans(), st.just(1))),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.none(), steps_of, steps_of.map(tuple), st.just([(1, 2)]), st.just("1/2")),
        max_size=20,
    )
)
def test_steps_as_pa_array_makes_them(values: list[Any]) -> None:
    got = check(values, STEPS_TYPE)
    fine = all(
        v is None
        or (
            type(v) in (list, tuple)
            and all(
                len(step) == 3
                and 0 <= step[0] <= 255
                and 0 <= step[1] <= 255
                and type(step[2]) is bool
                for step in v
            )
        )
        for v in values
    )
    if fine:
        assert got is not None


def test_steps_take_the_engines_named_steps() -> None:
    values = [[Step(24, 18, False), Step(13, 7, True)], None, (Step(25, 22, False),), []]
    assert check(values, STEPS_TYPE) is not None


def test_other_types_and_other_sequences_are_left_to_pa_array() -> None:
    assert typed_array([1, 2], pa.float64()) is None
    assert typed_array((1, 2), pa.int32()) is None  # a tuple, not a list
    assert typed_array([b"x"], pa.binary()) is None


# --- the store uses it ------------------------------------------------------------------------


def test_the_store_converts_with_it_and_a_value_past_its_column_is_still_refused() -> None:
    assert rows_module._typed_array is typed_array
    # A cube value past 2^31 is not the typed loop's: pa.array refuses it, the file is
    # quarantined with the column named.
    lists: list[list[Any]] = [[] for _ in TABLES["turns"].names]
    with pytest.raises(rows_module.Unstorable, match="cube_value"):
        names = list(TABLES["turns"].names)
        values = {
            "match_uid": b"u" * 16,
            "game_no": 1,
            "ply": 0,
            "side": 0,
            "kind": "double",
            "move_no": 1,
            "rolls_before": 0,
            "cube_value": 2**40,
            "cube_owner": -1,
            "hits": 0,
            "pips_mover": 167,
            "pips_opponent": 167,
            "score_mover": 0,
            "score_opponent": 0,
            "is_crawford": False,
            "line": 3,
            "column": 5,
        }
        for name, column in zip(names, lists, strict=True):
            column.append(values.get(name))
        rows_module._batch("turns", lists)


@pytest.mark.parametrize("folder", ["gnubg", "gnubg-illegal", "real", "xg"])
def test_every_turns_column_of_the_corpus_is_converted_as_pa_array_converts_it(
    folder: str,
) -> None:
    """The typed loop takes every column of the turns table of real matches (none left to
    pa.array), and gives pa.array's arrays, for other tables too where it takes them."""
    paths = sorted(corpus_dir(folder).rglob("*.mat"))[:80]
    rows = Rows(ImportContext("i", datetime.now(UTC), "0"))
    rows.start_file("f", "0" * 64)
    matches = [replay(rec) for p in paths for rec in iter_records(p.read_bytes(), str(p))]
    assert matches
    for vm in matches:
        rows.add_match(vm, match_uid(vm)[0], "0" * 64)
    for table in ("turns", "games", "cube_actions"):
        held = [cols for key, cols in rows.columns.items() if key[0] == table]
        assert held or table != "turns"
        if not held:
            continue
        columns = [
            list(itertools.chain.from_iterable(c))
            for c in zip(*(h.lists for h in held), strict=True)
        ]
        for values, field in zip(columns, TABLES[table], strict=True):
            got = typed_array(values, field.type)
            if table == "turns":
                assert got is not None, f"turns.{field.name} left to pa.array"
            if got is not None:
                got.validate(full=True)
                assert got.equals(pa.array(values, type=field.type)), f"{table}.{field.name}"
