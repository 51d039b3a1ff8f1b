"""One large `.mat` file costs its size, not more (issue 11, defect 5): the work of reading a
file of 8n matches is eight times that of n matches, and its memory is that of one match.

Work is counted, not timed: the characters the reader asks the file's text to look at (every
`count`, `find`, `split` and slice on it) and the characters it hands to the grammar. Counting
newlines from the start of the file once per match made both grow with the square of the
file's size."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from typing import Any, SupportsIndex

import pytest

import bgparse.readers as readers_pkg
import bgparse.readers.mat as mat_reader
from bgparse.readers import iter_records
from bgparse.readers.decode import DecodedText
from tests.conftest import SAMPLES


class CountingText(str):
    """A text that counts the characters its own methods are asked to look at."""

    scanned = 0

    @staticmethod
    def _span(n: int, start: SupportsIndex | None, end: SupportsIndex | None) -> int:
        s, e, _ = slice(start, end).indices(n)
        return max(e - s, 0)

    def count(
        self, x: str, start: SupportsIndex | None = None, end: SupportsIndex | None = None, /
    ) -> int:  # type: ignore[override]
        CountingText.scanned += self._span(len(self), start, end)
        return str.count(self, x, start, end)

    def find(
        self, x: str, start: SupportsIndex | None = None, end: SupportsIndex | None = None, /
    ) -> int:  # type: ignore[override]
        # A search stops where it finds: what it looked at runs from its start to there.
        s, e, _ = slice(start, end).indices(len(self))
        at = str.find(self, x, start, end)
        CountingText.scanned += (at + len(x) if at >= 0 else e) - s
        return at

    def rfind(
        self, x: str, start: SupportsIndex | None = None, end: SupportsIndex | None = None, /
    ) -> int:  # type: ignore[override]
        s, e, _ = slice(start, end).indices(len(self))
        at = str.rfind(self, x, start, end)
        CountingText.scanned += e - (at if at >= 0 else s)
        return at

    def split(self, sep: str | None = None, maxsplit: SupportsIndex = -1) -> list[str]:  # type: ignore[override]
        CountingText.scanned += len(self)
        return str.split(self, sep, maxsplit)

    def splitlines(self, keepends: bool = False) -> list[str]:
        CountingText.scanned += len(self)
        return str.splitlines(self, keepends)

    def __getitem__(self, key: Any) -> str:  # type: ignore[override]
        if isinstance(key, slice):
            CountingText.scanned += self._span(len(self), key.start, key.stop)
        return str.__getitem__(self, key)


def _one_copy() -> str:
    """The project's own single-match `.mat` samples written one after another: every dialect
    quirk, findings included (their source lines are quoted)."""
    parts = []
    for path in sorted((SAMPLES / "mat").glob("*.mat")):
        data = path.read_bytes()
        if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        parts.append(text.replace("\r\n", "\n").rstrip("\n") + "\n\n")
    return "".join(parts)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Counts of the work of the `iter_records` calls made while it is active."""
    work = {"grammar_chars": 0, "grammar_calls": 0}
    real_decode = readers_pkg.decode_bytes
    real_parse = mat_reader._parse

    def decode(data: bytes) -> DecodedText:
        d = real_decode(data)
        return DecodedText(CountingText(d.text), d.encoding, d.newline, d.fallback)

    def parse(text: str, start: str) -> Any:
        work["grammar_chars"] += len(text)
        work["grammar_calls"] += 1
        return real_parse(text, start)

    monkeypatch.setattr(readers_pkg, "decode_bytes", decode)
    monkeypatch.setattr(mat_reader, "_parse", parse)
    yield work


def _work(text: str, work: dict[str, int]) -> dict[str, int]:
    CountingText.scanned = 0
    work["grammar_chars"] = work["grammar_calls"] = 0
    matches = sum(1 for _ in iter_records(text.encode("utf-8"), "big.mat"))
    return {"matches": matches, "scanned": CountingText.scanned, **work}


def test_work_grows_with_the_file_not_its_square(counted: dict[str, int]) -> None:
    one = _one_copy()
    small = _work(one * 4, counted)
    large = _work(one * 32, counted)
    assert large["matches"] == 8 * small["matches"] > 8
    for key in ("scanned", "grammar_chars", "grammar_calls"):
        # Eight times the file, eight times the work (a little slack for the file's ends).
        assert large[key] <= 8.5 * small[key], (key, small, large)
    # And the text is looked at a small number of times in all, not once per match.
    assert large["scanned"] <= 4 * len(one * 32), large


def _peak_reading(text: str) -> int:
    data = text.encode("utf-8")
    gc.collect()
    tracemalloc.start()
    try:
        for _ in iter_records(data, "big.mat"):
            pass  # each record is dropped before the next is read
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_that_of_one_match_beyond_the_text() -> None:
    """Reading holds the decoded text and one match at a time: the peak beyond twice the text
    (bytes decoded, line ends normalised) does not grow with the number of matches."""
    one = _one_copy()
    small = _peak_reading(one * 4) - 2 * len(one * 4)
    large = _peak_reading(one * 32) - 2 * len(one * 32)
    assert large <= max(2 * small, small + 256 * 1024), (small, large)
