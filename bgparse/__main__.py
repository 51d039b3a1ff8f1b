"""The `bgparse` command and `python -m bgparse`: stop signals are caught before the CLI loads."""

from __future__ import annotations

import sys

from bgparse.helpers import environment, interrupts


def main() -> None:
    """Console entry point. The command line's modules (typer, rich, DuckDB, Arrow) take most of
    a second to load: a Ctrl-C or SIGTERM meanwhile ends the command with one line, as it does
    later (`bgparse.cli.main`), never with a traceback. The C extensions load with the signal
    held until they are loaded (`interrupts.hold_while_loading`): DuckDB's import cut by a
    handler's exception aborts the process. Whatever the command line does outside the
    boundary that words its errors (typer building the command from its options), a stop
    signal there ends it the same way."""
    interrupts.install()
    environment.set_defaults()  # before numpy and Arrow load
    interrupts.hold_while_loading(_C_EXTENSIONS)
    try:
        from bgparse.cli import main as run

        run()
    except BaseException as exc:
        stop = interrupts.among_causes(exc)  # the signal's Interrupted, wherever it went
        if stop is None:
            raise
        interrupts.report("bgparse: interrupted")
        sys.exit(stop.exit_code)


#: The packages whose loading a stop signal must not cut (see `main`).
_C_EXTENSIONS = ("duckdb", "_duckdb", "pyarrow", "numpy", "matplotlib")


if __name__ == "__main__":
    main()
