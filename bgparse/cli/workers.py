"""The options that say where a run's units go, shared by `import` and `analyze`: `--workers`,
`--executor`, `--scheduler`, and how a run may use them on this machine."""

from __future__ import annotations

import enum
import os
from typing import Annotated

import typer

from bgparse.cli.base import echo_error
from bgparse.helpers.errors import UsageError
from bgparse.rules.wording import plural

__all__ = ["ExecutorName", "SchedulerOption", "WorkersOption", "usable_executor"]


class ExecutorName(enum.StrEnum):
    local = "local"
    dask = "dask"


#: `--workers` and `--scheduler`, as `import` and `analyze` take them.
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        min=1,
        help="worker processes, at most one per core (default: one per core)",
    ),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        envvar="BGPARSE_SCHEDULER",
        metavar="ADDRESS",
        help="Dask scheduler address, tcp://HOST:PORT (default: a local Dask cluster of "
        "--workers processes)",
        show_default=False,
    ),
]


def usable_executor(
    workers: int | None, executor: ExecutorName, scheduler: str | None, work: str = "import"
) -> tuple[int | None, str | None]:
    """`--workers` and `--scheduler` as a run on `executor` uses them: a scheduler only with
    Dask (one from $BGPARSE_SCHEDULER serves `--executor dask` only), workers capped to the
    cores (`_usable_workers`). `work`: the run's verb, as its warnings say it."""
    if scheduler and executor is not ExecutorName.dask:
        if os.environ.get("BGPARSE_SCHEDULER") != scheduler:
            raise UsageError("--scheduler needs --executor dask")
        scheduler = None
    if workers is not None:
        workers = _usable_workers(
            workers, scheduler if executor is ExecutorName.dask else None, work
        )
    return workers, scheduler


def _usable_workers(workers: int, scheduler: str | None, work: str) -> int | None:
    """`--workers` as this machine can run them (a process pool, or a local Dask cluster):
    at most one per core this process may use, a larger number capped with a one-line
    warning (the work is CPU-bound: 57 processes on two cores ran at half the speed of two,
    and 10**20 of them was a traceback). With a scheduler, its own workers run the import."""
    if scheduler:
        echo_error(f"--workers {workers} is not used with --scheduler: its workers {work}")
        return None
    cores = len(os.sched_getaffinity(0))
    if workers > cores:
        echo_error(
            f"--workers {workers} is more than the {plural(cores, 'core')} this machine lets "
            f"bgparse use: {work.removesuffix('e')}ing with {cores}"
        )
        return cores
    return workers
