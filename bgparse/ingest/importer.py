"""The importer: the client's side of an import, taking units' results back in input order.

It owns the dataset's transaction: the ledger (each input's outcome), duplicates (of content
and of matches, whoever stored them first), quarantine, the parts workers wrote, and the single
commit. When an import fails or is interrupted, the importer aborts its transaction.
"""

from __future__ import annotations

import heapq
import secrets
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field

from bgparse.ingest.duplicates import (
    _NAMED_COPIES,
    GIVEN_TWICE,
    _Drop,
    _place,
    _stored_copies,
    quarantined_copy,
    same_content,
)
from bgparse.ingest.summary import _WORST_FILES, ImportProgress, ImportSummary, InputOutcome
from bgparse.ingest.worker import FileResult, UnitParts, UnitResult
from bgparse.store.dataset import KnownInputs, Transaction
from bgparse.store.inputs import Archive, InputFile, InputRef, Rejected
from bgparse.store.parts import (
    Part,
    PartTarget,
    merge_parts,
    read_part,
)
from bgparse.store.rows import (
    ImportContext,
    LedgerRows,
    PartKey,
)
from bgparse.store.seen import Seen

_QUARANTINE_EXAMPLES = 200


@dataclass(frozen=True, slots=True)
class _Meta:
    """The ledger facts of one input, kept in the parent (the bytes go to a worker)."""

    path: str
    kind: str
    sha256: str | None
    size: int | None
    archive_path: str | None = None
    archive_sha256: str | None = None

    @classmethod
    def of(cls, item: InputFile | InputRef | Rejected | Archive) -> _Meta:
        if isinstance(item, Archive):
            return cls(item.path, "archive", item.sha256, item.size)
        if isinstance(item, InputRef):
            return cls(item.path, item.kind, None, item.size)  # hashed by its worker
        size = len(item.data) if isinstance(item, InputFile) else item.size
        return cls(item.path, item.kind, item.sha256, size, item.archive_path, item.archive_sha256)


def _new_import_id() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(4)


@dataclass(slots=True)
class _Archive:
    """An archive of this import whose own ledger row waits for its members' outcomes (they
    may be with workers when the walk reaches the archive's end): how many members the walk
    gave, how many have an outcome, by status, and once the walk has reached its end, its
    ledger facts and why it could not be read to its end (None: it was)."""

    met: int = 0
    settled: dict[str, int] = field(default_factory=dict)
    meta: _Meta | None = None
    reason: str | None = None

    def outcome(self) -> tuple[str, str | None]:
        """The archive's status and reason: imported where a member was; else quarantined
        where a member was (or it could not be read, or holds no file), duplicate where every
        member was already stored; the reason says what became of its members."""
        if self.reason is not None:
            return "quarantined", self.reason
        if self.settled.get("imported"):
            return "imported", None
        if not self.met:
            return "quarantined", "the archive holds no file"
        counts = [(self.settled.get(s, 0), s) for s in ("quarantined", "duplicate", "skipped")]
        parts = ", ".join(
            f"{n} {'already in the dataset' if status == 'skipped' else status}"
            for n, status in counts
            if n
        )
        word = "member" if self.met == 1 else "members"
        why = f"none of its {self.met} {word} imported ({parts})"
        return ("quarantined" if self.settled.get("quarantined") else "duplicate"), why


class _Importer:
    """The parent's side of one import: ledger decisions, dedup, writes, in input order."""

    def __init__(
        self,
        tx: Transaction,
        ctx: ImportContext,
        known_uids: Seen[bytes],
        summary: ImportSummary,
        on_progress: Callable[[ImportProgress], None] | None,
        on_input: Callable[[InputOutcome], None] | None = None,
        known: KnownInputs | None = None,
        defer: bool = False,
    ) -> None:
        self.tx = tx
        self.known = known or KnownInputs()
        #: Whether workers hash inputs: then which copy of a content is the first, and which
        #: content an earlier import settled, is decided as units come back (in input order).
        self.defer = defer
        #: Inputs and archives of this import, by SHA-256: the first input of each content,
        #: which a later copy's ledger row names (the first may have been quarantined: its
        #: copy is as damaged, and the archivist must be able to find why).
        self.seen_content: Seen[str] = Seen(known_uids.limit)
        #: Inputs of this import refused without their content being read, by path (by
        #: content where the walk read it): a second mention is a duplicate, not a refusal.
        self.refused: set[str] = set()
        #: Of those refused by content, the first input's name and why.
        self.first_refused: dict[str, tuple[str, str]] = {}
        self.ctx = ctx
        #: Every match stored: by an earlier import, then by this one as its units come in.
        self.uids = known_uids
        self.summary = summary
        self.on_progress = on_progress
        self.on_input = on_input
        self.ledger = LedgerRows(ctx)
        # (errors, -input number, outcome): a min-heap of the worst inputs so far.
        self.worst: list[tuple[int, int, InputOutcome]] = []
        #: Workers' parts accepted and not yet given to a merge, by table and partition, in
        #: input order, and their rows.
        self.parts: dict[PartKey, list[tuple[str, int]]] = {}
        self.part_rows: dict[PartKey, int] = {}
        #: Merges started while units still run (`merge_full`), by partition, in order.
        self.merges: dict[PartKey, list[Future[tuple[Part, ...]]]] = {}
        self.merge_seq = 0
        self.recorded = 0
        #: Contents this import quarantined, with why: a later copy is as unreadable, so it is
        #: quarantined too, naming the first (a "duplicate" would hide it from a query of the
        #: quarantined inputs). Bounded in memory as `seen_content` is.
        self.quarantined_content: Seen[str] = Seen(known_uids.limit)
        #: Contents whose first input is still with a worker, and the copies met meanwhile
        #: (the walk runs ahead of the units): recorded once the first's outcome is known.
        self.in_flight: set[str] = set()
        self.waiting: dict[str, list[tuple[_Meta, str]]] = {}
        #: Archives whose members are not all settled yet, by (path, SHA-256).
        self.archives: dict[tuple[str, str | None], _Archive] = {}

    def progress(self, consumed: int) -> None:
        s = self.summary
        s.bytes_done += consumed
        if self.on_progress is not None:
            self.on_progress(ImportProgress(s.bytes_done, s.inputs, s.matches))

    def skip(self, meta: _Meta) -> None:
        """An input the dataset already holds: no ledger row, but the report lists it, with
        the content's hash to find its ledger row by (`imports.sha256`)."""
        self.summary.skipped += 1
        self._member_settled(meta, "skipped")
        if self.on_input is not None:
            why = (
                f"its content is already in the dataset (sha256 {meta.sha256[:12]}…)"
                if meta.sha256
                else "already in the dataset"
            )
            self.on_input(InputOutcome(meta.path, meta.kind, "skipped", reason=why))

    def record(
        self,
        meta: _Meta,
        status: str,
        reason: str | None,
        counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0),
        findings: tuple[int, int] = (0, 0),
        warnings: int = 0,
    ) -> None:
        """One ledger row: `counts` are (matches, duplicate matches, games, turns, doubles),
        `findings` (findings, errors)."""
        s = self.summary
        errors = findings[1]
        # Built only where it is wanted (the report, the worst files): on a cluster this runs
        # once per file in the one client.
        outcome = None
        if self.on_input is not None or (status == "imported" and errors):
            outcome = InputOutcome(
                meta.path, meta.kind, status, counts[0], counts[1], errors, warnings, reason
            )
            if self.on_input is not None:
                self.on_input(outcome)
        if status == "imported" and errors:
            assert outcome is not None
            s.files_with_errors += 1
            self.recorded += 1
            heapq.heappush(self.worst, (errors, -self.recorded, outcome))
            if len(self.worst) > _WORST_FILES:
                heapq.heappop(self.worst)
        if status == "imported":
            s.imported += 1
        elif status == "duplicate":
            s.duplicate += 1
        else:
            s.quarantined += 1
            if len(s.quarantine) < _QUARANTINE_EXAMPLES:
                s.quarantine.append((meta.path, reason or ""))
        self.ledger.add(
            meta.path,
            meta.kind,
            meta.archive_path,
            meta.archive_sha256,
            meta.size,
            meta.sha256,
            status,
            reason,
            counts,
            findings,
        )
        if len(self.ledger) >= 4096:
            self.flush_ledger()
        self._member_settled(meta, status)

    def member(self, meta: _Meta) -> None:
        """The walk gave a member of an archive (its outcome may come later, from a worker)."""
        if meta.archive_path is not None:
            key = (meta.archive_path, meta.archive_sha256)
            self.archives.setdefault(key, _Archive()).met += 1

    def archive(self, meta: _Meta, reason: str | None) -> None:
        """The walk reached the end of an archive it read: its row once its members have
        theirs (it follows them in the ledger), its status from theirs (`_Archive.outcome`)."""
        tally = self.archives.setdefault((meta.path, meta.sha256), _Archive())
        tally.meta, tally.reason = meta, reason
        self._archive_done((meta.path, meta.sha256), tally)

    def _member_settled(self, meta: _Meta, status: str) -> None:
        if meta.archive_path is None or meta.kind != "member":
            return
        key = (meta.archive_path, meta.archive_sha256)
        tally = self.archives.get(key)
        if tally is None:
            return
        tally.settled[status] = tally.settled.get(status, 0) + 1
        self._archive_done(key, tally)

    def _archive_done(self, key: tuple[str, str | None], tally: _Archive) -> None:
        if tally.meta is not None and sum(tally.settled.values()) >= tally.met:
            del self.archives[key]
            self.record(tally.meta, *tally.outcome())

    def copy(self, meta: _Meta, why: str) -> None:
        """A copy of an earlier input's content (`why` names the first): a duplicate where the
        first was read, quarantined with the first's reason where it was not."""
        sha = meta.sha256
        if sha is not None and sha in self.in_flight:
            self.waiting.setdefault(sha, []).append((meta, why))
            return
        reason = self.quarantined_content.get(sha) if sha is not None else None
        if reason is None:
            self.record(meta, "duplicate", why)
        else:
            self.record(meta, "quarantined", quarantined_copy(why, reason))

    def _first_settled(self, sha: str | None) -> None:
        """The first input of a content has its outcome: the copies that waited for it."""
        if sha is None:
            return
        self.in_flight.discard(sha)
        for meta, why in self.waiting.pop(sha, ()):
            self.copy(meta, why)

    def flush_ledger(self) -> None:
        if len(self.ledger):
            self.tx.add("imports", self.ledger.batch())
            self.ledger = LedgerRows(self.ctx)

    def finish(self) -> None:
        for sha in list(self.waiting):
            self._first_settled(sha)
        for key, tally in list(self.archives.items()):
            if tally.meta is not None:  # every member has its row by now
                del self.archives[key]
                self.record(tally.meta, *tally.outcome())
        self.flush_ledger()
        self.summary.worst = [o for _, _, o in sorted(self.worst, reverse=True)]

    def close(self) -> None:
        """Forget this import's contents (and remove their files); `uids` is the caller's."""
        self.seen_content.close()
        self.quarantined_content.close()

    def unit_parts(self, metas: list[_Meta], res: UnitParts, target: PartTarget) -> None:
        """A unit whose worker wrote its rows as parts: kept for the merge as they are, unless
        the unit holds a match already stored (by an earlier unit or import; rare): then its
        parts are read back, those matches' rows dropped (their findings kept, marked
        `in_duplicate`: `_Drop`, as `unit` does), the rest written here, and the parts left out
        of the merge (they go with the staging folder)."""
        known = self.uids.known(m.uid for f in res.files for m in f.matches if not m.repeat)
        metas, settled, dropped = self.contents(metas, res.files)
        drop = _Drop.of(known, dropped)
        for part in res.parts:
            if drop is None:
                key = (part.table, part.source, part.year)
                self.merges.setdefault(key, [])  # the partitions' order, for the commit
                self.parts.setdefault(key, []).append((part.rel, part.index))
                self.part_rows[key] = self.part_rows.get(key, 0) + part.rows
                continue
            for batch in read_part(target, part).to_batches():
                self.tx.add(part.table, drop.apply(part.table, batch), part.source, part.year)
            # The part's file stays (it holds the unit's other partitions too): it is never
            # merged, and goes with the staging folder.
        for meta, f, first in zip(metas, res.files, settled, strict=True):
            self.settle(meta, f, first, known)

    def _merge(self, executor: Executor, target: PartTarget, key: PartKey) -> None:
        """A merge task for the partition's parts so far (`bgparse.store.parts.merge_parts`)."""
        table, source, year = key
        parts = self.parts.pop(key)
        self.part_rows.pop(key)
        fut = executor.submit(merge_parts, target, table, source, year, parts, self.merge_seq)
        self.merge_seq += 1
        self.merges.setdefault(key, []).append(fut)

    def merge_full(self, executor: Executor, target: PartTarget, rows: int) -> None:
        """While units still run: each partition whose parts hold `rows` rows or more is
        merged now, by a task queued beside the units. A large import's big partitions are
        then written as it goes, as the pool's are, not all at its end (where one worker
        would write the largest while the others wait)."""
        for key in [k for k, n in self.part_rows.items() if n >= rows]:
            self._merge(executor, target, key)

    def merge_parts(self, executor: Executor, target: PartTarget) -> None:
        """Once every unit is in: each partition's parts not yet merged written as its
        Parquet files by the workers (`bgparse.store.parts.merge_parts`); the commit takes
        them, with those of the merges started earlier, instead of the parts (Arrow IPC files:
        a partition of one part is written out too)."""
        # The largest partitions first (a turns partition takes many times a findings one),
        # so that the phase does not end on one worker with a large one while the others
        # wait; the files are committed in the partitions' own order whatever the schedule.
        for key in sorted(self.part_rows, key=lambda k: -self.part_rows[k]):
            self._merge(executor, target, key)
        for futures in self.merges.values():
            for fut in futures:
                for part in fut.result():
                    self.tx.adopt(part.rel, digest=part.digest)
        self.merges = {}

    def unit(self, metas: list[_Meta], res: UnitResult) -> None:
        """A unit's results, in input order. Its matches already stored (by an earlier unit or
        import) lose their rows here; repeats within the unit were dropped by the worker."""
        known = self.uids.known(m.uid for f in res.files for m in f.matches if not m.repeat)
        metas, settled, dropped = self.contents(metas, res.files)
        drop = _Drop.of(known, dropped)
        for (table, source, year), batch in res.batches().items():
            self.tx.add(table, batch if drop is None else drop.apply(table, batch), source, year)
        for meta, f, first in zip(metas, res.files, settled, strict=True):
            self.settle(meta, f, first, known)

    def contents(
        self, metas: list[_Meta], files: list[FileResult]
    ) -> tuple[list[_Meta], list[str | None], tuple[set[bytes], set[str]]]:
        """Where workers hashed the inputs: each file's ledger facts completed with its
        SHA-256, and the files settled by their content alone (already in the dataset:
        skipped; a copy of an earlier input of this import: a duplicate naming it), as the
        walk settles them where this process reads the inputs. Returns the metas, which files
        are settled (None: not; "": skipped; else the reason they are a duplicate), and the
        match ids and contents whose rows must go (a settled file's). A file no worker could
        read, met again at the same path, is a duplicate, as the walk records it."""
        if not self.defer:
            return metas, [None] * len(metas), (set(), set())
        out: list[_Meta] = []
        settled: list[str | None] = []
        uids: set[bytes] = set()
        shas: set[str] = set()
        for meta, f in zip(metas, files, strict=True):
            sha = f.sha256
            if sha != meta.sha256:
                meta = _Meta(
                    meta.path, meta.kind, sha, meta.size, meta.archive_path, meta.archive_sha256
                )
            out.append(meta)
            first = self.seen_content.get(sha) if sha is not None else None
            if sha is None:
                if f.changed:
                    pass  # tried again by the next import: a result of its own
                elif meta.path in self.known.paths:
                    # Unreadable here as at an earlier import: skipped, as the walk skips it.
                    first = ""
                elif meta.path in self.refused:
                    first = GIVEN_TWICE
                else:
                    self.refused.add(meta.path)
            elif sha in self.known.contents or f.status == "settled":
                first = ""
            elif first is None:
                self.seen_content.add(sha, meta.path)
            else:
                first = same_content(first, sha)
            settled.append(first)
            if first is not None and sha is not None and f.status != "repeat":
                # Only the first file of a content in its unit has rows (the others are
                # repeats): dropping the rows of this content drops none of another file's.
                shas.add(sha)
                uids.update(m.uid for m in f.matches if not m.repeat)
        return out, settled, (uids, shas)

    def settle(self, meta: _Meta, res: FileResult, why: str | None, known: set[bytes]) -> None:
        """One file's outcome: settled by its content (`contents`: skipped where `why` is
        empty, else a duplicate for that reason), or by its results."""
        if why is None:
            self.result(meta, res, known)
        elif not why:
            self.skip(meta)
        elif why == GIVEN_TWICE:
            self.record(meta, "duplicate", why)
        else:
            self.copy(meta, why)

    def result(self, meta: _Meta, res: FileResult, known: set[bytes]) -> None:
        s = self.summary
        if res.status == "quarantined":
            s.findings += res.findings
            warnings = res.findings - res.errors
            self.record(
                meta,
                "quarantined",
                res.reason,
                findings=(res.findings, res.errors),
                warnings=warnings,
            )
            if meta.sha256 is not None and res.reason:
                self.quarantined_content.add(meta.sha256, res.reason)
            self._first_settled(meta.sha256)
            return
        # One pass over the matches (on a cluster this runs once per file in the one client).
        # Every match's findings count, a duplicate's too: they are this input's own. The
        # counts of matches with errors or warnings are of the matches stored.
        uids = self.uids
        fresh = dupes = games = turns = cubes = with_errors = with_warnings = 0
        findings = errors = warnings = 0
        copies: list[tuple[int, str | None]] = []  # the first few duplicates: where stored
        for m in res.matches:
            findings += m.findings
            errors += m.errors
            warnings += m.warnings
            if m.repeat or m.uid in known:
                dupes += 1
                if len(copies) < _NAMED_COPIES:
                    copies.append((m.index, uids.get(m.uid)))
                continue
            uids.add(m.uid, _place(meta.path, m.index))
            fresh += 1
            games += m.games
            turns += m.turns
            cubes += m.cube_actions
            if m.errors:
                with_errors += 1
            elif m.warnings:
                with_warnings += 1
        s.matches_with_errors += with_errors
        s.matches_with_warnings += with_warnings
        s.matches += fresh
        s.duplicate_matches += dupes
        s.games += games
        s.turns += turns
        s.cube_actions += cubes
        s.findings += findings
        reason = _stored_copies(dupes, len(res.matches), copies) if dupes else None
        self.record(
            meta,
            "imported" if fresh else "duplicate",
            reason,
            (fresh, dupes, games, turns, cubes),
            (findings, errors),
            warnings,
        )
        self._first_settled(meta.sha256)
