"""`run_import`: an import's units built from its inputs and driven through the pipeline runner.

It enumerates inputs (`bgparse.store.inputs`), skips what the ledger already holds, sends the
rest in bounded units to the executor (`bgparse.pipeline`), and hands the results to the
importer *in input order*, so which of two copies of a match is stored and which is a
duplicate never depends on scheduling.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from datetime import UTC, datetime
from typing import Any

from bgparse.helpers.errors import NoSuchPath
from bgparse.helpers.interrupts import Interrupted, received
from bgparse.helpers.paths import display_path
from bgparse.ingest import worker
from bgparse.ingest.duplicates import GIVEN_TWICE, _place, quarantined_copy, same_content
from bgparse.ingest.importer import _Importer, _Meta, _new_import_id
from bgparse.ingest.options import ImportOptions
from bgparse.ingest.summary import ImportProgress, ImportSummary, InputOutcome
from bgparse.ingest.worker import (
    FileTask,
    UnitParts,
    UnitResult,
    Verify,
    bgparse_version,
    verify_file,
)
from bgparse.pipeline import (
    Close,
    Runner,
    closing,
    cluster_setup,
    on_cluster,
    once,
    open_executor,
    pool,
)
from bgparse.store.dataset import Dataset, KnownInputs, Transaction
from bgparse.store.inputs import InputFile, InputRef, Rejected, iter_inputs
from bgparse.store.parts import (
    PartTarget,
    open_staging,
)
from bgparse.store.rows import (
    ImportContext,
)
from bgparse.store.seen import Seen

__all__ = ["run_import"]


def run_import(
    paths: Iterable[str | os.PathLike[str]],
    root: str | os.PathLike[str],
    options: ImportOptions | None = None,
    *,
    verify: Verify = verify_file,
    on_progress: Callable[[ImportProgress], None] | None = None,
    executor: Executor | None = None,
    on_input: Callable[[InputOutcome], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> ImportSummary:
    """Import every input under `paths` into the dataset at `root` as one atomic commit.

    Raises DatasetLocked when another import holds the dataset, DatasetError for a folder
    that is not a dataset. `verify` must be picklable (a module-level function) for a process
    pool; `executor` replaces the pool (any concurrent.futures Executor); `on_input` hears
    what became of each input as it is settled (a duplicate or a refusal at once, a file
    read by a worker when its results come back); `on_notice` gets one-line notes for the
    user (the Dask dashboard's address)."""
    opts = options or ImportOptions()
    tops = [os.fspath(p) for p in paths]
    for p in tops:
        if not os.path.lexists(p):
            raise NoSuchPath(display_path(p))
    workers = opts.workers or len(os.sched_getaffinity(0))
    version = bgparse_version()
    ds = Dataset(root)
    started = time.perf_counter()
    tx: Transaction | None = None
    try:
        with contextlib.ExitStack() as stack:
            # Batch-friendly garbage collection for the work done in this process, restored.
            stack.callback(gc.set_threshold, *gc.get_threshold())
            gc.set_threshold(*pool._GC_THRESHOLD)
            stack.enter_context(pool._batch_gc_here())
            close: Close | None = None  # the executor this import started, if any
            if executor is None and opts.executor == "dask":
                # A cluster that cannot be reached fails before the dataset is touched.
                executor, close = _make_executor(opts, workers)
                close = once(close)
                stack.push(closing(close))
            stack.enter_context(ds.lock())
            # On a cluster the workers hash the inputs: they are told what an earlier import
            # settled at each path, so that a re-run does not verify those files again.
            known = ds.known_inputs(version, by_path=executor is not None and on_cluster(executor))
            ctx = ImportContext(
                _new_import_id(), datetime.now(UTC).replace(microsecond=0), version, opts.source
            )
            summary = ImportSummary(ctx.import_id)
            tx = ds.begin(ctx.import_id, version)
            target: PartTarget | None = None
            try:
                if executor is None:
                    executor, close = _make_executor(opts, workers)
                    close = once(close)
                    stack.push(closing(close))
                stored: Seen[bytes] = Seen(opts.seen_limit)
                stack.callback(stored.close)  # its file too, if reading the ids fails
                for uid, source_path, index in ds.match_places():
                    stored.add(uid, _place(source_path, index))
                importer = _Importer(
                    tx,
                    ctx,
                    stored,
                    summary,
                    on_progress,
                    on_input,
                    known,
                    defer=on_cluster(executor),
                )
                stack.callback(importer.close)
                if opts.parts:
                    target = open_staging(root, ctx.import_id, version)
                workers = cluster_setup(executor, target, on_notice, tops) or workers
                _pump(tops, root, opts, known, importer, executor, verify, max(workers, 1), target)
                if target is not None:
                    importer.merge_parts(executor, target)
                importer.finish()
                if (signum := received()) is not None:
                    # A stop signal came, and its exception was swallowed on the way (C code
                    # can: see bgparse.helpers.interrupts): it still stops the import before
                    # its commit.
                    raise Interrupted(signum)
                summary.committed = tx.commit() is not None
            except BaseException:
                if target is not None and close is not None:
                    # Workers stopped first: none may write into the staging folder the
                    # abort removes.
                    close(False)
                tx.abort()
                raise
    except Interrupted as exc:
        # A signal that came after the commit (while the pool shut down, say) leaves the
        # import complete: the caller must not say otherwise.
        if tx is not None and tx.committed and not exc.committed:
            raise Interrupted(exc.signum, committed=True) from None
        raise
    summary.seconds = time.perf_counter() - started
    return summary


def _make_executor(options: ImportOptions, workers: int) -> tuple[Executor, Close]:
    """The executor the options ask for; a pool's fork server loads the worker side first."""
    return open_executor(options.executor, workers, options.scheduler, [worker.__name__])


#: The smallest unit the last ones of an import are cut to (`_guided`).
_MIN_GUIDED = 16
#: Inputs the walk may run ahead of the units (their names and sizes; an archive member's
#: bytes too, bounded by `_LOOKAHEAD_BYTES`).
_LOOKAHEAD_ITEMS = 65_536
_LOOKAHEAD_BYTES = 64 * 1024 * 1024


def _guided(
    items: Iterable[Any], ahead: int, held_bytes: int = _LOOKAHEAD_BYTES
) -> Iterator[tuple[Any, int | None]]:
    """`items`, each with how many files (plain or archive members) come after it once the
    walk has ended, None before: the walk is read up to `ahead` items (and `held_bytes` of
    the files' bytes read with them) ahead, so that the end is seen that far before it
    comes. `ahead` 0: no look-ahead, always None."""
    if not ahead:
        for item in items:
            yield item, None
        return
    it = iter(items)
    buf: deque[Any] = deque()
    files = held = 0
    ended = False
    while True:
        while not ended and len(buf) < ahead and held < held_bytes:
            nxt = next(it, _END)
            if nxt is _END:
                ended = True
                break
            buf.append(nxt)
            if isinstance(nxt, InputRef | InputFile):
                files += 1
                held += len(nxt.data) if isinstance(nxt, InputFile) else 0
        if not buf:
            return
        item = buf.popleft()
        if isinstance(item, InputRef | InputFile):
            files -= 1
            held -= len(item.data) if isinstance(item, InputFile) else 0
        yield item, files if ended else None


_END = object()


def _pump(
    paths: list[str],
    root: str | os.PathLike[str],
    opts: ImportOptions,
    known: KnownInputs,
    importer: _Importer,
    executor: Executor,
    verify: Verify,
    workers: int,
    target: PartTarget | None = None,
) -> None:
    summary = importer.summary
    ctx = importer.ctx
    seen_content = importer.seen_content
    # On a cluster the workers read and hash the plain files (the client's reading and
    # hashing was a third of its work per file); which copy of a content comes first is then
    # decided as units come back, in input order (`_Importer.contents`), for every file,
    # archive members included (read here: an archive is a stream).
    defer = importer.defer
    chunk: list[FileTask] = []
    metas: list[_Meta] = []
    chunk_bytes = 0
    max_files, max_bytes = opts.unit_limits()
    chunk_consumed = 0
    # Two chunks per worker in flight: enough to keep workers busy, and a fixed bound on the
    # bytes held in memory however many inputs there are.
    max_inflight = 2 * workers

    def done(res: UnitResult | UnitParts, unit: tuple[list[_Meta], int]) -> None:
        ms, consumed = unit
        if isinstance(res, UnitParts):
            assert target is not None
            importer.unit_parts(ms, res, target)
            importer.merge_full(executor, target, opts.merge_rows)
        else:
            importer.unit(ms, res)
        importer.progress(consumed)

    runner: Runner[UnitResult | UnitParts, tuple[list[_Meta], int]]
    runner = Runner(executor, max_inflight, done)
    units = 0

    def submit() -> None:
        nonlocal chunk, metas, chunk_bytes, chunk_consumed, units
        if chunk:
            unit, meta = chunk, (metas, chunk_consumed)
            chunk, metas, chunk_bytes, chunk_consumed = [], [], 0, 0
            if target is None:
                runner.submit(meta, worker.process_unit, unit, ctx, verify)
            else:
                units += 1
                runner.submit(meta, worker.write_unit, unit, ctx, verify, target, units - 1)

    walked: set[str] = set()

    def skip_archive(sha: str) -> bool:
        # Decided as the walk meets each archive (it may run ahead of the units): a second
        # copy is skipped even where the first is not yet recorded.
        if sha in known.archives or sha in seen_content or sha in walked:
            return True
        walked.add(sha)
        return False

    items = iter_inputs(paths, opts.limits, skip_archive=skip_archive, exclude=[root], defer=defer)
    # With more than one worker, the walk looks ahead so that the last units can be made small
    # (`_guided`) and the workers finish together: on a pool of two, a last unit of 64 files
    # left one worker idle for up to a third of a second while the other finished. The files'
    # bytes it holds are bounded by what the units in flight may hold, where this process
    # reads them (the local pool).
    guided = workers > 1 and max_files > _MIN_GUIDED
    ahead = max(1, min(_LOOKAHEAD_ITEMS, 4 * workers * max_files)) if guided else 0
    held = _LOOKAHEAD_BYTES if target is not None else max_inflight * max_bytes
    for item, left in _guided(items, ahead, held):
        summary.inputs += 1
        meta = _Meta.of(item)
        if meta.kind == "member":
            importer.member(meta)
        if isinstance(item, InputRef | InputFile):
            if isinstance(item, InputRef):
                task = FileTask(
                    item.path,
                    None,
                    None,
                    item.source,
                    item.size,
                    item.mtime_ns,
                    known.at_path.get(hash(item.path)),
                )
            elif item.sha256 in known.contents:
                importer.skip(meta)
                importer.progress(item.consumed)
                continue
            elif not defer and (first := seen_content.get(item.sha256)) is not None:
                importer.copy(meta, same_content(first, item.sha256))
                importer.progress(item.consumed)
                continue
            else:
                if not defer:
                    seen_content.add(item.sha256, item.path)
                    importer.in_flight.add(item.sha256)
                task = FileTask(item.path, item.data, item.sha256)
            chunk.append(task)
            metas.append(meta)
            chunk_bytes += task.size if task.data is None else len(task.data)
            chunk_consumed += item.consumed
            limit = max_files
            if left is not None:
                # The walk has ended: what is left is shared out in units of a share of it,
                # smaller and smaller, so that the workers finish together.
                share = -(-(left + len(chunk)) // (2 * workers))
                limit = max(_MIN_GUIDED, min(max_files, share))
            if len(chunk) >= limit or chunk_bytes >= max_bytes:
                submit()
            continue  # progress is credited when the chunk's results come back
        elif isinstance(item, Rejected):
            key = item.sha256 or item.path
            if item.sha256 in known.contents if item.sha256 else item.path in known.paths:
                importer.skip(meta)
            elif key in importer.refused:
                earlier = importer.first_refused.get(key)
                if earlier is not None and earlier[0] != item.path and item.sha256:
                    # The same content under another name (an archive inside two archives).
                    why = quarantined_copy(same_content(earlier[0], item.sha256), earlier[1])
                    importer.record(meta, "quarantined", why)
                else:
                    importer.record(meta, "duplicate", GIVEN_TWICE)
            else:
                importer.refused.add(key)
                if item.sha256:
                    importer.first_refused[key] = (item.path, item.reason)
                importer.record(meta, "quarantined", item.reason)
        elif item.skipped and item.sha256 in known.archives:
            importer.skip(meta)
        elif item.skipped:
            importer.record(meta, "duplicate", "the same archive was given twice")
        else:
            # An archive's own row follows its members' rows, once they all have theirs.
            seen_content.add(item.sha256, item.path)
            importer.archive(meta, item.reason)
        importer.progress(item.consumed)
    submit()
    runner.drain(0)
