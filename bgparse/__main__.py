"""The `bgparse` command and `python -m bgparse`: stop signals are caught before the CLI loads."""

from __future__ import annotations

import sys

from bgparse import environment, interrupts


def main() -> None:
    """Console entry point. The command line's modules (typer, rich, DuckDB, Arrow) take most of
    a second to load: a Ctrl-C or SIGTERM meanwhile ends the command with one line, as it does
    later (`bgparse.cli.main`), never with a traceback."""
    interrupts.install()
    environment.set_defaults()  # before numpy and Arrow load
    try:
        from bgparse.cli import main as run
    except interrupts.Interrupted as exc:
        interrupts.report("bgparse: interrupted")
        sys.exit(exc.exit_code)
    run()


if __name__ == "__main__":
    main()
