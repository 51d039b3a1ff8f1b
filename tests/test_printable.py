"""A record's own text shown safely (`bgparse.helpers.printable`): a name or a line holding terminal
control sequences reaches the terminal, the tables, the SVG board and the HTML report with
every control character shown as one visible character, while the dataset, JSON and CSV keep
the text exactly as the record has it."""

from __future__ import annotations

import json
import xml.dom.minidom
from pathlib import Path

from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.helpers.printable import printable

runner = CliRunner()

ESC_NAME = "Al\x1b[31mice"
#: A 7-point match whose left player's name recolours a terminal, and whose row 2 retitles
#: the window (an OSC sequence). Three control bytes: more would make the file read as binary.
RECORD = f"""\
 7 point match

 Game 1
 {ESC_NAME} : 0                      Bob : 0
  1)                             31: 8/5 6/5
  2) \x1b]0;pwned\x0752: 13/8 13/11              42: 24/20 13/11
  3) 64: 24/18* 13/9              Doubles => 2
  4)  Takes                      21: 25/23 6/5
  5) 66: 24/18 24/18 13/7 13/7    Drops
      Wins 2 points
"""


def test_controls_become_one_visible_character_each() -> None:
    assert printable("a\x1b[0mb\x07\x00\x7f\x85") == "a\u241b[0mb\u2407\u2400\u2421\ufffd"
    # Tab and newline stay; printable text is returned as it is.
    assert printable("x\ty\nz") == "x\ty\nz"
    text = "Jérôme Ærø 中文"
    assert printable(text) is text
    # One for one: a caret under a column still points at it.
    assert len(printable(ESC_NAME)) == len(ESC_NAME)


def _no_controls(text: str) -> bool:
    return not any((ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) < 0xA0 for c in text)


def test_validate_text_shows_the_controls_and_json_keeps_them(tmp_path: Path) -> None:
    path = tmp_path / "esc.mat"
    path.write_text(RECORD, encoding="utf-8")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert _no_controls(result.stdout)
    assert f"{printable(ESC_NAME)} vs Bob" in result.stdout
    # The S005 line: its source shown with the caret still under the finding's column.
    lines = result.stdout.splitlines()
    [at] = [i for i, line in enumerate(lines) if ":6:6: error: S005" in line]
    shown, caret = lines[at + 1], lines[at + 2]
    assert shown == "    " + printable(RECORD.splitlines()[5])
    assert caret.index("^") == 4 + 5
    js = runner.invoke(app, ["validate", str(path), "--format", "json"])
    assert json.loads(js.stdout.splitlines()[0])["players"][0] == ESC_NAME


def test_stored_names_are_exact_and_shown_safely(tmp_path: Path) -> None:
    path = tmp_path / "esc.mat"
    path.write_text(RECORD, encoding="utf-8")
    data = tmp_path / "data"
    assert runner.invoke(app, ["import", str(path), "--data", str(data)]).exit_code in (0, 1)
    table = runner.invoke(app, ["stats", "player", "--data", str(data)])
    assert table.exit_code == 0 and _no_controls(table.stdout)
    assert printable(ESC_NAME) in table.stdout
    js = runner.invoke(app, ["query", "SELECT player0 FROM matches", "-f", "json", "--data",
                             str(data)])  # fmt: skip
    assert json.loads(js.stdout) == [{"player0": ESC_NAME}]
    csv = runner.invoke(app, ["query", "SELECT player0 FROM matches", "-f", "csv", "--data",
                              str(data)])  # fmt: skip
    assert csv.stdout.splitlines()[1] == ESC_NAME


def test_show_draws_a_well_formed_svg_and_a_safe_text_board(tmp_path: Path) -> None:
    path = tmp_path / "esc.mat"
    path.write_text(RECORD, encoding="utf-8")
    svg = tmp_path / "board.svg"
    result = runner.invoke(app, ["show", f"{path}:1:t2", "--format", "svg", "--out", str(svg)])
    assert result.exit_code == 0, result.output
    doc = xml.dom.minidom.parse(str(svg))  # XML forbids control characters: this would raise
    texts = "".join(n.data for n in doc.getElementsByTagName("text")[0].parentNode.childNodes
                    if n.nodeType == n.TEXT_NODE)  # fmt: skip
    assert "\x1b" not in texts
    text = runner.invoke(app, ["show", f"{path}:1:t2"])
    assert text.exit_code == 0 and _no_controls(text.stdout)
    assert printable(ESC_NAME) in text.stdout


def test_the_validation_report_shows_the_controls(tmp_path: Path) -> None:
    path = tmp_path / "esc.mat"
    path.write_text(RECORD, encoding="utf-8")
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["validate", str(path), "--format", "html", "--out", str(out)])
    assert result.exit_code == 1
    page = out.read_text(encoding="utf-8")
    assert _no_controls(page)
    assert "\u241b]0;pwned\u2407" in page
