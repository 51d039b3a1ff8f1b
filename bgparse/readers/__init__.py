"""Readers: bytes of a match file in, event records out (format sniffed from the content:
`.mat`, SGF, eXtreme Gammon `.xg`, GNU Backgammon's text export)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import replace

from bgparse.model.events import MatchRecord
from bgparse.model.findings import Finding, SyntaxRecordError
from bgparse.readers.decode import (
    MAX_LINE,
    DecodedText,
    decode_bytes,
    looks_binary,
    wide_encoding,
)
from bgparse.readers.xg import is_xg, iter_xg_matches

__all__ = ["MAX_FILE_BYTES", "SourceLines", "iter_records", "read_path", "sniff_format"]

#: Larger files are refused: the biggest real match files are a few MB.
MAX_FILE_BYTES = 64 * 1024 * 1024

_MAGIC = (
    (b"PK\x03\x04", "a zip archive (use 'bgparse import', which reads archives)"),
    (b"\x1f\x8b", "a gzip-compressed file (use 'bgparse import', which reads archives)"),
    (b"%PDF", "a PDF document"),
    (b"%!PS", "a PostScript document"),
    (b"\x89PNG", "a PNG image"),
    (b"PAR1", "a Parquet file"),
)

_OTHER_TEXT = (
    # Web pages and LaTeX first: GNU's HTML and LaTeX exports hold Position and Match IDs too.
    (
        re.compile(r"\A\s*<(?:!doctype\s+html|html|\?xml[^>]*>\s*<!doctype\s+html)", re.I),
        "an HTML page (such as GNU Backgammon's 'export match html'), not a match record",
    ),
    (
        re.compile(r"\A\s*(?:%[^\n]*\n\s*)*\\document(?:class|style)\b"),
        "a LaTeX document (such as GNU Backgammon's 'export match latex'), not a match record",
    ),
    (re.compile(r"\AGMD-\d"), "a Gibbon match file (GMD), which bgparse does not read"),
    (
        re.compile(r"\AJavaFIBS internal match"),
        "a JavaFIBS match file, which bgparse does not read",
    ),
    (re.compile(r"^;\[Game Modus '", re.M), "a GammonX game log, which bgparse does not read"),
    (re.compile(r"^;\[Match '", re.M), "a GammonX match log, which bgparse does not read"),
    (re.compile(r"\A\s*bgammon-replay "), "a bgammon.org replay, which bgparse does not read"),
    (re.compile(r"\A\s*[{\[]"), "JSON, not a match record"),
)

_SGF_START = re.compile(r"\A\s*\(\s*;")
_SGF_LATER = re.compile(r"\(\s*;\s*(?:[A-Za-z]+\s*\[[^\]]*\]\s*)*(?:FF|GM)\s*\[")


def sniff_format(text: str) -> str | None:
    """The format of a text: "sgf", "mat" or None, from the content (never the file name)."""
    if _SGF_START.match(text):
        return "sgf"
    from bgparse.readers.mat import has_match_line

    if has_match_line(text):
        return "mat"
    # An SGF collection after some junk (a mail header, a note): a game tree opening with
    # FF or GM properties somewhere near the start.
    return "sgf" if _SGF_LATER.search(text[:65536]) else None


def _fail(
    path: str, code: str, message: str, line: int = 1, column: int = 1, source: str | None = None
) -> SyntaxRecordError:
    return SyntaxRecordError(Finding.make(code, message, line, column, source_line=source), path)


#: A line longer than the reader accepts, tried only at line starts: linear in the text.
_LONG_LINE = re.compile(rf"^[^\n]{{{MAX_LINE + 1}}}", re.M)


def _long_lines(text: str) -> Iterator[tuple[int, int, int]]:
    """(1-based line number, offset, length) of every over-long line, in file order, without
    cutting the whole text into lines."""
    line, pos = 1, 0
    for m in _LONG_LINE.finditer(text):
        line += text.count("\n", pos, m.start())
        end = text.find("\n", m.start())
        end = len(text) if end < 0 else end
        yield line, m.start(), end - m.start()
        pos = m.start()


def _long_line(decoded: DecodedText, path: str) -> SyntaxRecordError | None:
    for i, _, length in _long_lines(decoded.text):
        return _fail(
            path,
            "S007",
            f"line {i} is {length:,} characters long (at most {MAX_LINE:,} are accepted)",
            i,
            MAX_LINE + 1,
        )
    return None


def iter_records(data: bytes, path: str) -> Iterator[MatchRecord]:
    """Every match record in one file's bytes. Raises `SyntaxRecordError` when the file as a whole
    cannot be read (empty, binary, another format, or more than the memory there is: S015); a
    readable file with broken parts yields its records with those parts reported in `errors`."""
    try:
        yield from _records(data, path)
    except MemoryError:
        failed = True
    else:
        failed = False
    if failed:
        # Raised here, outside the handler, so that what the reading held is freed first.
        raise _fail(
            path, "S015", f"not enough memory to read this file ({len(data):,} bytes)", 1, 1
        )


def _records(data: bytes, path: str) -> Iterator[MatchRecord]:
    if len(data) > MAX_FILE_BYTES:
        raise _fail(
            path, "S015", f"file is {len(data):,} bytes; at most {MAX_FILE_BYTES:,} are read", 1, 1
        )
    if not data.strip():
        raise _fail(path, "S001", "file is empty", 1, 1)
    if is_xg(data):
        yield from iter_xg_matches(data, path)
        return
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise _fail(path, "S003", f"this is {what}", 1, 1)
    warn: list[Finding] = []
    if data.endswith(b"\x00") and not wide_encoding(data):
        # NUL padding after the text (a copy cut short and filled, a preallocated download):
        # damage to the file, not to the record it holds.
        body = data.rstrip(b"\x00")
        if body.strip():
            padding = len(data) - len(body)
            data = body
            message = (
                f"the file ends with {padding:,} NUL bytes (a padded or damaged copy): ignored"
            )
            warn.append(Finding.make("S023", message, body.count(b"\n") + 1, 1))
    if looks_binary(data):
        raise _fail(path, "S002", "file holds binary data, not a text match record", 1, 1)
    decoded = decode_bytes(data)
    text = decoded.text
    if decoded.fallback:
        warn.append(Finding.make("S009", "not valid UTF-8: read as Windows-1252", 1, 1))
    fmt = sniff_format(text)
    if fmt == "sgf":
        from bgparse.readers.sgf import iter_sgf_matches

        yield from _with_warnings(iter_sgf_matches(text, path), warn)
        return
    long_line = _long_line(decoded, path)
    if fmt is None:
        if long_line is not None:
            raise long_line
        from bgparse.readers.mat import GAM_START, iter_gam_matches

        if GAM_START.match(text):
            # The players' names and then one game's rows (a '.gam' file): money play.
            yield from _with_warnings(iter_gam_matches(text, path), warn)
            return
        for pattern, what in _OTHER_TEXT:
            if pattern.search(text[:20000]):
                raise _fail(path, "S003", f"this is {what}", 1, 1)
        from bgparse.readers.gnutext import is_gnu_text, iter_gnutext_matches

        if is_gnu_text(text):
            # GNU's 'export match text' (HTML and LaTeX exports, which hold IDs too, are above).
            yield from _with_warnings(iter_gnutext_matches(text, path), warn)
            return
        first = next((i for i, ln in enumerate(text.split("\n"), 1) if ln.strip()), 1)
        raise _fail(
            path,
            "S004",
            "no 'N point match' line: not a Jellyfish match file",
            first,
            1,
            text.split("\n")[first - 1][:200],
        )
    from bgparse.readers.mat import iter_mat_matches

    if long_line is not None:
        # Blank out the over-long lines so the rest of the file is still read, and say where.
        pieces: list[str] = []
        kept = 0
        for i, start, length in _long_lines(text):
            warn.append(
                Finding.make(
                    "S007",
                    f"line is {length:,} characters long (at most {MAX_LINE:,}); skipped",
                    i,
                    MAX_LINE + 1,
                )
            )
            pieces.append(text[kept:start])
            kept = start + length
        pieces.append(text[kept:])
        text = "".join(pieces)
    count = 0
    for rec in _with_warnings(iter_mat_matches(text, path), warn):
        count += 1
        yield rec
    if count == 0:  # pragma: no cover - has_match_line guarantees one match
        raise _fail(path, "S004", "no 'N point match' line: not a Jellyfish match file")


def _with_warnings(records: Iterator[MatchRecord], warn: list[Finding]) -> Iterator[MatchRecord]:
    first = True
    for rec in records:
        if first and warn:
            rec = replace(rec, errors=tuple(warn) + rec.errors)
        first = False
        yield rec


class SourceLines:
    """One file's lines, to give findings the source line the reader or the replay left out:
    the text is decoded the first time a finding needs a line, once for the file however many
    matches it holds (per match, a file of thousands of matches cost its square). A binary
    `.xg` file has no lines: its findings name a record and a field."""

    __slots__ = ("_lines", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._lines: list[str] | None = None

    def fill(self, findings: tuple[Finding, ...], fmt: str) -> tuple[Finding, ...]:
        """`findings`, each with the line it points at where it had none."""
        if fmt == "xg" or not any(f.source_line is None and f.line > 0 for f in findings):
            return findings
        if self._lines is None:
            self._lines = decode_bytes(self.data).text.split("\n")
        lines = self._lines
        return tuple(
            replace(f, source_line=lines[f.line - 1])
            if f.source_line is None and 0 < f.line <= len(lines)
            else f
            for f in findings
        )


def read_path(path: str | os.PathLike[str]) -> list[MatchRecord]:
    """Every match record under `path`, found as every command finds its inputs
    (`bgparse.store.inputs.iter_inputs`): a file, a compressed file (`.gz`, `.bz2`, `.xz`), a
    folder (searched recursively in sorted order, every file in it whatever its name) or a
    `.zip`/`.tar`/`.tar.gz` archive (every member, never unpacked). Each record is labelled as
    `validate` names its file: the display form of its name (`bgparse.helpers.paths`), a member as
    `archive!member`.

    Raises `bgparse.helpers.errors.NoSuchPath` (a UsageError) for a path that does not exist and
    UsageError for a folder with no file in it; `InputError` naming the input and why for one
    that is not read (a PDF, a FIFO, a symbolic link to a folder, a damaged archive); the
    `RecordError` of a file that holds no readable match record."""
    from bgparse.helpers.errors import InputError
    from bgparse.store.inputs import Archive, InputFile, Limits, Rejected, check_paths, iter_inputs

    check_paths([path])
    records: list[MatchRecord] = []
    for item in iter_inputs([path], Limits(max_file_bytes=MAX_FILE_BYTES)):
        if isinstance(item, InputFile):
            records.extend(iter_records(item.data, item.path))
        elif isinstance(item, Rejected) or (isinstance(item, Archive) and item.reason):
            raise InputError(f"{item.path}: {item.reason}")
    return records
