"""The `bgparse` command and `python -m bgparse`: stop signals are caught before the CLI loads."""

from __future__ import annotations

import os
import sys

from bgparse import interrupts


def main() -> None:
    """Console entry point. The command line's modules (typer, rich, DuckDB, Arrow) take most of
    a second to load: a Ctrl-C or SIGTERM meanwhile ends the command with one line, as it does
    later (`bgparse.cli.main`), never with a traceback."""
    interrupts.install()
    # The command does no linear algebra: numpy, which Arrow loads, need not start OpenBLAS's
    # threads (one a core, about 0.1 s of CPU spinning). Before numpy loads, where unset.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        from bgparse.cli import main as run
    except interrupts.Interrupted as exc:
        interrupts.report("bgparse: interrupted")
        sys.exit(exc.exit_code)
    run()


if __name__ == "__main__":
    main()
