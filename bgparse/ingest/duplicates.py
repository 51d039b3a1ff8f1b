"""Duplicates: the ledger's reasons for a copy, and what a unit's rows lose to the copies
already stored (of content, by an earlier input; of matches, by an earlier unit or import)."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["GIVEN_TWICE", "quarantined_copy", "same_content"]

#: The ledger's reason for an input refused unread and met again in the same import.
GIVEN_TWICE = "the same input was given twice"


def same_content(first: str, sha256: str) -> str:
    """The ledger's reason for a copy of an earlier input of the same import."""
    return f"same content as {first} (sha256 {sha256[:12]}…)"


def quarantined_copy(same: str, reason: str) -> str:
    """The ledger's reason for a copy (`same_content`) of an input the import quarantined."""
    return f"{same}, which is quarantined: {reason}"


@dataclass(frozen=True, slots=True)
class _Drop:
    """What a unit's rows lose here, whoever wrote them (`_Importer.unit`, `unit_parts`): the
    rows of its matches already stored (`known`: by an earlier unit or import), whose findings
    stay, marked `in_duplicate` (the input keeps them, as a repeat within the unit keeps its
    own), but for their `decisions` (a copy may bring another analysis); and every row of a
    file settled by its content alone (`settled`: its matches,
    `shas`: its contents), its findings included, as if it had not been read."""

    known: pa.Array
    gone: pa.Array
    shas: pa.Array | None

    @classmethod
    def of(cls, known: set[bytes], settled: tuple[set[bytes], set[str]]) -> _Drop | None:
        uids, shas = settled
        if not known and not uids and not shas:
            return None
        return cls(
            pa.array(list(known), type=pa.binary(16)),
            pa.array(list(known | uids), type=pa.binary(16)),
            pa.array(list(shas), type=pa.string()) if shas else None,
        )

    def apply(self, table: str, batch: pa.RecordBatch) -> pa.RecordBatch:
        if self.shas is not None and "file_sha256" in batch.schema.names:
            batch = batch.filter(_not_from(batch, self.shas))
        if table == "findings":
            return _mark_duplicates(batch, self.known) if len(self.known) else batch
        if table == "decisions":
            # A copy keeps the analysis it brings (its file's own, dropped above where the
            # file is settled by its content): the view shows the first of each source.
            return batch
        if not len(self.gone):
            return batch
        return batch.filter(pc.invert(pc.is_in(batch.column("match_uid").storage, self.gone)))


#: Duplicate matches of an input whose stored copies its ledger reason names.
_NAMED_COPIES = 3


def _place(path: str, index: int) -> str:
    """Where a stored match is, as `uids` holds it: its match number (from 0), its path."""
    return f"{index}\t{path}"


def _stored_copies(dupes: int, total: int, copies: list[tuple[int, str | None]]) -> str:
    """A ledger reason for an input with matches already stored, naming where the first few
    are stored (`_place`s; None where unknown): "1 of 1 matches already stored: match 1 as
    match 2 of /in/a.mat"; matches are numbered from 1 in the file, as a reader counts them."""
    named = []
    for index, place in copies:
        if place:
            stored_index, _, path = place.partition("\t")
            named.append(f"match {index + 1} as match {int(stored_index) + 1} of {path}")
    reason = f"{dupes} of {total} matches already stored"
    if not named:
        return reason
    more = f"; and {dupes - len(named)} more" if dupes > len(named) else ""
    return f"{reason}: {'; '.join(named)}{more}"


def _not_from(batch: pa.RecordBatch, shas: pa.Array) -> pa.Array:
    """Rows of `batch` that come from no file of these contents."""
    return pc.invert(pc.is_in(batch.column("file_sha256"), value_set=shas))


def _mark_duplicates(batch: pa.RecordBatch, uids: pa.Array) -> pa.RecordBatch:
    """Findings of matches already stored stay, marked `in_duplicate`: the input keeps them."""
    column = batch.schema.get_field_index("in_duplicate")
    marked = pc.or_(
        batch.column(column), pc.is_in(batch.column("match_uid").storage, value_set=uids)
    )
    # A finding about the whole file has no match: is_in gives False there, never NULL.
    return batch.set_column(column, batch.schema.field(column), pc.fill_null(marked, False))
