"""`--out` and `--format` together, the one rule of every command that writes a file of its
output (`validate`, `show`, `report`): without `--format`, the format is the one `--out`'s
suffix names (`.html` html, `.json`/`.jsonl` json, `.svg` svg, `.txt` text; another suffix or
none: the command's default); a `--format` that the suffix contradicts, or a suffix naming a
format the command does not write, is a usage error before anything is read or written. What
is written to `--out` is what stdout would have shown, written whole or not at all."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from bgparse.helpers.errors import OutputError, UsageError
from bgparse.helpers.paths import display_path

__all__ = ["SUFFIX_FORMATS", "output_format", "redirect_stdout_to"]

#: The format a file's suffix names (compared in lower case).
SUFFIX_FORMATS = {
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".jsonl": "json",
    ".svg": "svg",
    ".txt": "text",
    ".csv": "csv",
}


def output_format(
    command: str, out: Path | None, given: str | None, choices: Sequence[str], default: str
) -> str:
    """The format `command` writes: `given` (its --format, None when not given) checked
    against `out`'s suffix, or the suffix's format, or `default`. Raises UsageError for a
    contradiction."""
    named = SUFFIX_FORMATS.get(out.suffix.lower()) if out is not None else None
    if out is None or named is None:
        return given or default
    where = f"--out {display_path(out)}"
    if named not in choices:
        wanted = " or ".join(choices)
        raise UsageError(f"{where}: a {out.suffix} file is {named}; {command} writes {wanted}")
    if given is not None and given != named:
        suffix = next((s for s, f in SUFFIX_FORMATS.items() if f == given), None)
        other = f"a {suffix} file" if suffix is not None else "another file name"
        raise UsageError(
            f"{where}: a {out.suffix} file is {named}, not --format {given} "
            f"(leave --format out, or name {other})"
        )
    return named


class _Named(io.RawIOBase):
    """A binary file whose write errors name the file the user asked for (not the temporary
    one it becomes); once `discard`ed (the command failed), writes go nowhere."""

    def __init__(self, raw: IO[bytes], target: Path) -> None:
        self.raw, self.target, self.discard = raw, target, False

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if not self.discard:
            try:
                self.raw.write(data)
            except OSError as exc:
                raise _cannot_write(self.target, exc) from None
        return len(data)


def _cannot_write(target: Path, exc: OSError) -> OutputError:
    return OutputError(f"{display_path(target)}: cannot write: {exc.strerror or exc}")


@contextlib.contextmanager
def _binary(target: Path) -> Iterator[IO[bytes]]:
    from bgparse.helpers.outfiles import atomic_output

    if target.is_symlink() or (target.exists() and not target.is_file()):
        # A device, a FIFO, /dev/stdout: written through, never renamed over.
        with open(target, "wb") as f:
            yield f
    else:
        with atomic_output(target) as f:
            yield f


@contextlib.contextmanager
def redirect_stdout_to(target: Path | None) -> Iterator[None]:
    """Within the block, stdout is `target` (UTF-8), which appears whole when the block ends
    without an exception and not at all otherwise; with None, stdout stays stdout."""
    if target is None:
        yield
        return
    failed: BaseException | None = None
    try:
        with _binary(target) as raw:
            named = _Named(raw, target)
            text = io.TextIOWrapper(named, encoding="utf-8", newline="\n")  # type: ignore[type-var]
            try:
                with contextlib.redirect_stdout(text):
                    yield
                text.flush()
            except BaseException as exc:
                failed = exc
                named.discard = True
                raise
            finally:
                text.detach()
    except OSError as exc:
        if exc is failed:
            raise  # the command's own error, not the file's
        raise _cannot_write(target, exc) from None
