"""`bgparse validate --format html`: the validation report's content, offline and escaped."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.rules import Position, legal_plays

runner = CliRunner()

RECORD = """\
 3 point match

 Game 1
 {a} : 0                      {b} : 0
  1) 42: 24/18 13/11             41: 6/5* 24/20
  2) 61: 25/24 22/16             33: 13/10 8/5 6/3 6/3
                                  Wins 1 point
"""


class Tags(HTMLParser):
    """Every start tag with its attributes, and whether the document nests properly."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(page)
    return parser.tags


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    (d / "illegal.mat").write_text(RECORD.format(a="Alice", b="Bob"), encoding="utf-8")
    clean = RECORD.format(a="Carol", b="<script>alert(1)</script>").replace(
        "42: 24/18 13/11", "42: 24/20 24/22"
    )
    (d / "clean.mat").write_text(clean, encoding="utf-8")
    return d


def test_report_of_an_illegal_play(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = runner.invoke(
        app, ["validate", str(folder / "illegal.mat"), "--format", "html", "--out", str(out)]
    )
    assert result.exit_code == 1
    # Counted nouns as in validate's text summary (issue 11: "1 file(s)" was left here).
    assert result.output == (
        "1 file, 1 match: 1 error, 0 warnings; 1 match with errors, 0 with warnings only; "
        f"report written to {out}\n"
    )
    page = out.read_text(encoding="utf-8")
    path = str(folder / "illegal.mat")
    assert f"{path}:5:6</span>:" in page
    assert "P001</b> illegal play 42: 24/18 13/11 [wrong-dice]" in page
    # The record's line with the column marked.
    assert '<pre class="src">  1) <mark>4</mark>2: 24/18 13/11' in page
    # One board, at the finding, and the legal plays of 42 from the start.
    all_tags = tags(page)
    boards = [a for t, a in all_tags if t == "svg" and a.get("class") == "bg-board"]
    assert len(boards) == 1
    # It is the board of the finding's turn: Alice's 42 from the start, her play drawn.
    dice = [a.get("data-value") for t, a in all_tags if a.get("class") == "die"]
    assert dice == ["4", "2"]
    arrows = [
        (a.get("data-from"), a.get("data-to")) for t, a in all_tags if a.get("class") == "arrow"
    ]
    assert sorted(arrows) == [("13", "11"), ("24", "18")]
    n = len(legal_plays(Position.initial(), (4, 2)))
    assert f"{n} legal plays</summary>" in page
    assert "Score after each game: 1: 0-1." in page


def test_clean_matches_have_no_boards_and_names_are_escaped(folder: Path) -> None:
    result = runner.invoke(app, ["validate", str(folder / "clean.mat"), "--format", "html"])
    assert result.exit_code == 0
    page = result.stdout
    assert "bg-board" not in page
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert result.stderr == (
        "1 file, 1 match: 0 errors, 0 warnings; 0 matches with errors, 0 with warnings only\n"
    )


def test_report_is_self_contained(folder: Path) -> None:
    result = runner.invoke(app, ["validate", str(folder), "--format", "html"])
    page = result.stdout
    for tag, attrs in tags(page):
        assert "src" not in attrs, (tag, attrs)
        if tag == "link":
            assert attrs.get("href", "").startswith("data:")
        if tag == "a":
            assert not (attrs.get("href") or "").startswith(("http:", "https:", "//"))
    # The only URL is the SVG namespace, which is a name, not a request.
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert "@import" not in page and "url(" not in page


def test_summary_lists_verdicts_and_unreadable_inputs(folder: Path, tmp_path: Path) -> None:
    (folder / "junk.mat").write_bytes(b"\x00\x01binary\x00" * 20)
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["validate", str(folder), "--format", "html", "-o", str(out)])
    assert result.exit_code == 2
    page = out.read_text(encoding="utf-8")
    assert "<b>3</b> files" in page and "<b>2</b> matches" in page
    # Counts of matches say "matches with errors"; "errors" counts findings (docs/FINDINGS.md).
    for verdict, text in (
        ("clean", "<b>1</b> clean"),
        ("errors", "<b>1</b> match with errors"),
        ("errors", "<b>2</b> errors"),  # the illegal play and the binary file's S002
        ("unreadable", "<b>1</b> unreadable input"),
    ):
        assert f'<div class="card verdict-{verdict}">{text}</div>' in page
    assert "<h3>Unreadable inputs</h3>" in page
    assert "S002" in page


def test_bad_format_is_a_usage_error(folder: Path) -> None:
    result = runner.invoke(app, ["validate", str(folder), "--format", "pdf"])
    assert result.exit_code == 2
    assert result.stderr == "bgparse: --format: 'pdf' is not one of 'text', 'json', 'html'\n"


def test_a_finding_without_its_turn_gets_no_board() -> None:
    # A producer's 'Illegal play' dump has no turn of its own: a board there would be the
    # next turn's, so the report draws none (the finding and its line still show).
    from tests.conftest import SAMPLES

    dump = SAMPLES / "mat" / "illegal_play_dump.txt"
    result = runner.invoke(app, ["validate", str(dump), "--format", "html"])
    page = result.stdout
    assert "P009</b>" in page
    assert "bg-board" not in page


def test_odd_names_in_the_report_and_its_summary_line(folder: Path, tmp_path: Path) -> None:
    # Issue 11: a name that is not UTF-8 or holds a newline, in the page and in the line
    # naming the page written, appears in its display form (bgparse.helpers.paths).
    raw = os.path.join(os.fsencode(tmp_path), b"r\xff\nd.mat")
    with open(raw, "wb") as f:
        f.write((folder / "illegal.mat").read_bytes())
    out = os.path.join(os.fsencode(tmp_path), b"o\xff\nut.html")
    result = runner.invoke(
        app, ["validate", os.fsdecode(raw), "-f", "html", "--out", os.fsdecode(out)]
    )
    assert result.exit_code == 1
    line = result.stdout_bytes.decode("utf-8")
    assert line.endswith(f"; report written to {tmp_path}/o\\xff\\nut.html\n")
    assert line.count("\n") == 1
    with open(out, "rb") as f:
        page = f.read().decode("utf-8")
    assert f"{tmp_path}/r\\xff\\nd.mat:5:6</span>:" in page


def test_a_finding_in_a_match_too_long_for_a_match_id_has_its_board(
    folder: Path, tmp_path: Path
) -> None:
    # The replay writes no Match ID past the length's range (S014); the report drew no board
    # at the illegal play of such a match.
    record = tmp_path / "long.mat"
    text = (folder / "illegal.mat").read_text(encoding="utf-8")
    record.write_text(text.replace(" 3 point match", " 99999 point match"), encoding="utf-8")
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["validate", str(record), "-f", "html", "--out", str(out)])
    assert result.exit_code == 1
    page = out.read_text(encoding="utf-8")
    assert "S014</b>" in page and "P001</b>" in page
    boards = [a for t, a in tags(page) if t == "svg" and a.get("class") == "bg-board"]
    assert len(boards) == 1


def test_a_record_of_thousands_of_illegal_plays_makes_a_page_a_browser_opens(
    tmp_path: Path,
) -> None:
    """One SGF line of 1,500 rolls with no play written (hostile, or a broken producer): every
    finding is listed, each with a window of its line around the column (not the whole line
    again: 6,000 copies of a 33 kB line made a 212 MB page) and boards at the first
    BOARDS_PER_MATCH findings only, the rest said in a note."""
    from bgparse.model.findings import SOURCE_WINDOW
    from bgparse.render.validation import BOARDS_PER_MATCH

    rolls = 1500
    path = tmp_path / "many.sgf"
    path.write_text("(;FF[4]GM[6]" + "(;B[31]" * rolls + ")" * rolls + ")", encoding="utf-8")
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["validate", str(path), "--format", "html", "--out", str(out)])
    assert result.exit_code == 1
    page = out.read_text(encoding="utf-8")
    found = re.findall(r'<li class="finding"[^>]*data-code="(\w+)"', page)
    assert found.count("P001") >= rolls - 1
    shown = re.findall(r'<pre class="src">(.*?)<mark>(.*?)</mark>(.*?)</pre>', page, re.S)
    assert len(shown) == len(found)
    assert all(len(b) + len(m) + len(a) <= SOURCE_WINDOW for b, m, a in shown)
    # The mark stands on the finding's column: a P001 marks the B of its roll.
    assert {m for (b, m, a), code in zip(shown, found, strict=True) if code == "P001"} == {"B"}
    # Counts grouped as the command line groups them.
    assert f'<td class="num">{found.count("P001"):,}</td>' in page
    boards = [a for t, a in tags(page) if t == "svg" and a.get("class") == "bg-board"]
    assert len(boards) == BOARDS_PER_MATCH
    # Every play, cube and result finding that is not a note would have its board.
    drawable = re.findall(
        r'<li class="finding" data-severity="(?:error|warning)" data-code="[PCR]\d+"', page
    )
    left_out = len(drawable) - BOARDS_PER_MATCH
    assert left_out > 2 * rolls - BOARDS_PER_MATCH - 10
    assert f"Boards are drawn at the first {BOARDS_PER_MATCH} findings of a match: " in page
    assert f"{left_out:,} later findings are listed without one" in page
    assert len(page) < 20_000_000
