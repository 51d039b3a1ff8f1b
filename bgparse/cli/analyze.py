"""`bgparse analyze`: the engine's analysis of the stored matches (added to the app by
`register`). A thin layer over `bgparse.analyze`: errors go to the boundary
(`bgparse.cli.base`).

Exit codes: 0 every match analysed (or analysed before); 1 some match could not be analysed
(named, with its reason; the others are committed); 2 usage error, no dataset, dataset locked;
3 the run failed (a worker died, the cluster gave a unit up): nothing committed.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from bgparse.cli.data import _DEFAULT_DATA, DataOption
from bgparse.cli.workers import ExecutorName, SchedulerOption, WorkersOption, usable_executor
from bgparse.helpers.paths import display_path
from bgparse.helpers.printable import printable
from bgparse.rules.wording import plural

__all__ = ["register"]

#: Failed matches named on stderr; the rest are counted.
_FAILED_SHOWN = 10


def analyze_command(
    data: DataOption = _DEFAULT_DATA,
    level: Annotated[
        str,
        typer.Option(
            help="engine level, in GNU Backgammon's numbering: 0ply (the network alone, "
            "GNU's default analysis; fastest), 1ply, 2ply, 3ply (each over ten times the one "
            "before; docs/ANALYSIS.md)",
        ),
    ] = "0ply",
    workers: WorkersOption = None,
    executor: Annotated[
        ExecutorName, typer.Option(help="run the evaluations locally or on Dask")
    ] = ExecutorName.local,
    scheduler: SchedulerOption = None,
    limit: Annotated[
        int | None,
        typer.Option(min=1, help="analyse at most this many matches this run", show_default=False),
    ] = None,
    progress: Annotated[bool, typer.Option(help="show a progress bar on a terminal")] = True,
) -> None:
    """Analyse every stored match the engine (bgsage) has not analysed at this level: each
    play's equity lost against the best, each roll's luck, each cube decision and answer
    judged as GNU Backgammon judges them, stored in `decisions` (source 'engine') with the
    `analyses` ledger, in one commit. A second run analyses only what is new."""
    from bgparse.analyze import AnalyzeOptions, AnalyzeProgress, run_analyze

    workers, scheduler = usable_executor(workers, executor, scheduler, "analyse")
    options = AnalyzeOptions(
        level=level, workers=workers, executor=executor.value, scheduler=scheduler, limit=limit
    )
    err = Console(stderr=True)
    bar = None
    on_progress = None
    if progress and err.is_terminal:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
        )
        task = bar.add_task("analysing", total=None)

        def on_progress(p: AnalyzeProgress) -> None:
            bar.update(
                task,
                total=p.matches_total or None,
                completed=p.matches_done,
                description=f"analysing: {plural(p.decisions, 'decision')}",
            )

        bar.start()
    try:
        summary = run_analyze(data, options, on_progress=on_progress)
    finally:
        if bar is not None:
            bar.stop()
    rate = summary.decisions / summary.seconds if summary.seconds > 0 else 0.0
    typer.echo(
        f"{summary.engine} {summary.engine_version} at {summary.level}: analysed "
        f"{plural(summary.matches, 'match')} ({plural(summary.decisions, 'decision')}), "
        f"{summary.already:,} analysed before, {len(summary.failed):,} failed, in "
        f"{display_path(data)}; {summary.seconds:.1f} s ({rate:,.0f} decisions/s)"
    )
    for name, reason in summary.failed[:_FAILED_SHOWN]:
        typer.echo(printable(f"not analysed: {name}: {reason}"), err=True)
    hidden = len(summary.failed) - _FAILED_SHOWN
    if hidden > 0:
        typer.echo(
            f'... and {hidden:,} more: bgparse query "SELECT * FROM analyses '
            "WHERE status = 'failed'\"",
            err=True,
        )
    if summary.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze_command)
