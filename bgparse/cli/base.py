"""The command line's error boundary and the pieces every command shares: one place maps every
error to its one line and exit code, the output formats' choices, and the inputs as blobs.

Exit codes (the README's table): 0 all good; 1 some record has errors (`import`: some input was
quarantined); 2 a usage error, an unreadable input, a dataset or file-system error; 3 an import
that failed (a worker died); 130 on Ctrl-C, 143 on SIGTERM. Every message is one line on
stderr starting `bgparse: `; a command that writes adds what became of its work.
"""

from __future__ import annotations

import contextlib
import enum
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import BrokenExecutor
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from bgparse.helpers import interrupts
from bgparse.helpers.errors import BgparseError, UsageError
from bgparse.helpers.paths import display_path
from bgparse.model.findings import Finding, RecordError, SyntaxRecordError

__all__ = [
    "BoardFormat",
    "Boundary",
    "OutputFormat",
    "RecordFormat",
    "ReportFormat",
    "RulesOption",
    "WriteFormat",
    "echo_error",
    "input_blobs",
    "iter_blobs",
    "rule_profile",
    "validation_summary",
]


# --- the formats each command writes: typer checks the choice, the boundary words a bad one --


class RecordFormat(enum.StrEnum):
    """`parse`: a summary, or the event records as JSON Lines."""

    text = "text"
    json = "json"


class ReportFormat(enum.StrEnum):
    """`validate`: compiler-style lines, JSON Lines, or the HTML validation report."""

    text = "text"
    json = "json"
    html = "html"


class OutputFormat(enum.StrEnum):
    """`query` and `stats`: a table, CSV or JSON."""

    table = "table"
    csv = "csv"
    json = "json"


class BoardFormat(enum.StrEnum):
    """`show`: a text diagram or SVG."""

    text = "text"
    svg = "svg"


class WriteFormat(enum.StrEnum):
    """`convert --to` and `generate --format`: GNU Backgammon's `.mat` or SGF."""

    mat = "mat"
    sgf = "sgf"


# --- the boundary ---------------------------------------------------------------------------

#: What a command that writes says became of its work when an error or a signal stops it:
#: (when nothing was committed, when the signal came after the commit).
_STAKES: dict[str, tuple[str, str]] = {
    "import": ("nothing was committed, the dataset is as it was", "the import is complete"),
    "compact": ("the dataset is as it was", "the dataset is compacted"),
    "analyze": ("nothing was committed, the dataset is as it was", "the analysis is committed"),
}


def echo_error(message: str) -> None:
    """One line on stderr about one input or output that failed while the command goes on."""
    typer.echo(f"bgparse: {message}", err=True)


def _usage_line(exc: typer.TyperException) -> str:
    """A usage error typer found (an option's value, a missing argument, an unknown option) in
    the same one-line style as bgparse's own, instead of click's usage block or typer's
    panel: the option, then what is wrong with its value."""
    param = getattr(exc, "param", None)
    if isinstance(exc, typer.BadParameter) and exc.message and param is not None and param.opts:
        name = max(param.opts, key=len)  # the long form: --workers, not -w
        name = name if name.startswith("-") else name.upper()  # an argument: FILES
        return f"{name}: {_one_line(exc.message)}"
    text = _one_line(exc.format_message())
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        text += f" (see '{ctx.command_path} --help')"
    return text


def _one_line(text: str) -> str:
    # Typer's value checks start "Value error, " and end with a period; a choice list spans
    # lines. One line, lower case first, as bgparse's own messages read.
    text = " ".join(text.split()).removeprefix("Value error, ").rstrip(".")
    return text[:1].lower() + text[1:]


def _message(exc: BaseException, command: str | None) -> tuple[str, int] | None:
    """The one line (without `bgparse: `) and exit code of an error that ended a command, or
    None for one that is not the user's to see (a bug: its traceback is the report)."""
    undone = _STAKES[command][0] if command in _STAKES else None
    if isinstance(exc, BgparseError):
        text = str(exc)
        if exc.failure and undone is not None:
            text += f"; {undone}"
        return text, exc.exit_code
    if isinstance(exc, MemoryError):
        # Reading a file has its own (S015, that file's); this is the command's work as a whole.
        # An import or a compaction stopped by it failed (3); another command could not do
        # what was asked (2).
        text = "out of memory"
        return (f"{text}; {undone}", 3) if undone else (text, 2)
    if isinstance(exc, BrokenExecutor):
        # A pool's own (a worker process killed); the cluster's is WorkerLost, a BgparseError.
        text = "a worker process died (out of memory?)"
        return text + (f"; {undone}" if undone else ""), 3
    if isinstance(exc, OSError):
        # Every file bgparse opens itself has its own message. An error with no file named is
        # the output's (stdout redirected to a full disk), unless the command works on a
        # dataset, whose workers' pipes are nameless too.
        if exc.filename:
            where = f"{display_path(exc.filename)}: "
        else:
            where = "" if undone else "cannot write the output: "
        text = f"{where}{exc.strerror or exc}"
        return text + (f"; {undone}" if undone else ""), 2
    return None


class Boundary(TyperGroup):
    """The root command: runs a command and turns whatever ended it into one line and an exit
    code. It is the only place that does: commands raise, the boundary words."""

    running: str | None = None

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        # The command's name: what an import or a compaction stopped by an error says of its
        # work depends on it (_STAKES).
        resolved = super().resolve_command(ctx, args)
        self.running = resolved[0]
        return resolved

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        self.running = None
        from bgparse.cli.help import tidy

        tidy(self)
        code = self._run(args, prog_name, complete_var, extra)
        if not standalone_mode:
            return code
        sys.exit(code)

    def _run(
        self,
        args: Sequence[str] | None,
        prog_name: str | None,
        complete_var: str | None,
        extra: dict[str, Any],
    ) -> int:
        try:
            try:
                result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            finally:
                _flush_output()
        except typer.TyperException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":
                # `bgparse` alone, or a group without its command: the help is the answer.
                typer.echo(exc.format_message(), err=True)
            else:
                echo_error(_usage_line(exc))
            return exc.exit_code
        except typer.Abort:
            echo_error("aborted")
            return 1
        except interrupts.Interrupted as exc:
            interrupts.report(f"bgparse: {self._stopped(exc.committed)}")
            return exc.exit_code
        except KeyboardInterrupt:
            echo_error(self._stopped(False))
            return 130
        except BrokenPipeError:
            # Output piped into `head` and the like: stop quietly.
            _silence_stdout()
            return 1
        except BaseException as exc:
            stop = interrupts.among_causes(exc)
            if stop is not None:
                interrupts.report(f"bgparse: {self._stopped(stop.committed)}")
                return stop.exit_code
            found = _message(exc, self.running)
            if found is None:
                raise
            text, code = found
            if text.startswith("cannot write the output"):
                # What is still buffered could not be written either: never again at exit.
                _silence_stdout()
            echo_error(text)
            return code
        return result if isinstance(result, int) else 0

    def _stopped(self, committed: bool) -> str:
        stakes = _STAKES.get(self.running or "")
        if stakes is None:
            return "interrupted"
        undone, done = stakes
        return f"interrupted after the commit: {done}" if committed else f"interrupted: {undone}"


class _OutputLost(BgparseError):
    """The command's output could not be written (stdout redirected to a full disk, a failing
    device)."""


def _flush_output() -> None:
    """Output to a file or pipe is written in blocks: the last one goes out here, where a full
    disk is still ours to report (at exit, Python would print a traceback)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _OutputLost(f"cannot write the output: {exc.strerror or exc}") from exc


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


# --- inputs ---------------------------------------------------------------------------------


def iter_blobs(paths: Sequence[str]) -> Iterator[tuple[str, bytes, RecordError | None]]:
    """Every input under `paths`, found by the walker `import` uses (`bgparse.store.inputs`):
    (label, bytes, None) per file or archive member read, (label, b"", error) per input that
    cannot be read (refused unread, or an archive that could not be read to its end: S016 at
    1:1 with the reason `import` quarantines it with). A missing path or an empty folder is a
    usage error raised here, before anything is read or written."""
    from bgparse.store.inputs import check_paths

    check_paths(paths)
    return _blobs(paths)


def _blobs(paths: Sequence[str]) -> Iterator[tuple[str, bytes, RecordError | None]]:
    for label, _archive, data, error in input_blobs(paths):
        yield label, data, error


def input_blobs(
    paths: Sequence[str],
) -> Iterator[tuple[str, str | None, bytes, RecordError | None]]:
    """`iter_blobs`' inputs, each with the archive it is a member of (its display name; None for
    a file), the paths not checked first."""
    from bgparse.readers import MAX_FILE_BYTES
    from bgparse.store.inputs import InputFile, InputRef, Limits, iter_inputs

    # Files as large as the readers take (import's default is smaller: --max-file-mb).
    limits = Limits(max_file_bytes=MAX_FILE_BYTES)
    for item in iter_inputs(paths, limits):
        if isinstance(item, InputFile):
            yield item.path, item.archive_path, item.data, None
        elif not isinstance(item, InputRef) and (reason := item.reason) is not None:
            # Refused, or an archive that could not be read to its end.
            error = SyntaxRecordError(Finding.make("S016", reason, 1, 1), item.path)
            yield item.path, None, b"", error


#: `--rules NAME` (validate, import, convert): a rule profile, `bgparse.rules.profiles`.
RulesOption = Annotated[
    str | None,
    typer.Option(
        "--rules",
        metavar="NAME",
        help="Rule profile: standard, swedish, danish, finnish or dutch (docs/RULES.md); "
        "a rule option given as well wins over it.",
        show_default=False,
    ),
]


def rule_profile(name: str | None, overrides: dict[str, Any]) -> dict[str, Any]:
    """The replay overrides of `--rules NAME` and the rule options given with it (which win)."""
    if name is None:
        return overrides
    from bgparse.rules.profiles import profile_overrides

    try:
        return profile_overrides(name, overrides)
    except ValueError as exc:
        raise UsageError(f"--rules: {exc}") from None


# --- the words of a validation run's counts -------------------------------------------------


def validation_summary(
    files: int,
    matches: int,
    errors: int,
    warnings: int,
    unreadable: int,
    error_matches: int,
    warning_matches: int,
) -> str:
    """`validate`'s closing line, the same for text, --out and the HTML report. `errors` and
    `warnings` count findings (with --strict, warnings are errors); an unreadable input is one
    error finding (its S0xx code, as JSON and the report list it), so it is among `errors` and
    said so; matches are counted as "with errors" (one error finding or more) and "with
    warnings only". docs/FINDINGS.md defines these words once."""
    from bgparse.rules.wording import plural

    them = "an unreadable input" if unreadable == 1 else "unreadable inputs"
    among = f" ({unreadable:,} of them {them})" if unreadable else ""
    return (
        f"{plural(files, 'file')}, {plural(matches, 'match')}: "
        f"{plural(errors, 'error')}{among}, {plural(warnings, 'warning')}; "
        f"{plural(error_matches, 'match')} with errors, {warning_matches:,} with warnings only"
    )
