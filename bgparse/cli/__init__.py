"""The command line: a thin typer layer over the library, one module per group of commands.

`app.py` is the root command with the record commands (`parse`, `validate`, `show`,
`generate`); `data.py` the dataset's (`import`, `query`, `stats`, `compact`, `check`);
`report.py` the HTML reports; `convert.py` `convert`; `base.py` the one error boundary (every
error's line and exit code) and the options several commands share; `filters.py` the statistics'
filters, `out.py` where `--out` writes and in which format, `help.py` the help text's tidying.
"""

from bgparse.cli.app import app, main

__all__ = ["app", "main"]
