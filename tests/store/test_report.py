"""`bgparse report`: the analysis report of a hand-made dataset, its charts, tables and
filters, offline."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.questions.stats import STATISTICS
from bgparse.render.analysis import SECTIONS

runner = CliRunner()


class Sections(HTMLParser):
    """The report's statistic sections: id -> whether it has a chart, and its table headers."""

    def __init__(self) -> None:
        super().__init__()
        self.current: str | None = None
        self.charts: dict[str, int] = {}
        self.headers: dict[str, list[str]] = {}
        self.in_th = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "section" and a.get("class") == "statistic":
            self.current = a["id"]
            self.charts[self.current or ""] = 0
            self.headers[self.current or ""] = []
        if tag == "svg" and self.current and "chart-svg" in (a.get("class") or ""):
            self.charts[self.current] += 1
        self.in_th = tag == "th"

    def handle_data(self, data: str) -> None:
        if self.in_th and self.current:
            self.headers[self.current].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "th":
            self.in_th = False


INTERVALS = "Bars are Wilson 95% confidence intervals: where the true rate lies, 19 times in 20."


def report(data: Path, tmp_path: Path, *args: str) -> str:
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["report", "--data", str(data), "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"report written to {out}\n"
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page(hand_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    return report(hand_dataset, tmp_path_factory.mktemp("report"))


def test_every_statistic_has_its_table_with_its_own_columns(hand_dataset: Path, page: str) -> None:
    from bgparse.questions.query import connect

    parser = Sections()
    parser.feed(page)
    con = connect(hand_dataset)
    for section in SECTIONS:
        if section.player_only:
            assert section.statistic not in parser.headers  # a listing of every match
            continue
        table = STATISTICS[section.statistic].run(con)
        if table.num_rows:
            assert parser.headers[section.statistic] == table.column_names, section.statistic
    # Charts where the hand-made matches give data for one.
    for name in ("opening-rolls", "opening-plays", "first-mover", "dice", "findings"):
        assert parser.charts[name] == 1, name


def test_charts_are_valid_svg_with_unique_ids(page: str) -> None:
    svgs = re.findall(r"<svg class=\"chart-svg\".*?</svg>", page, flags=re.S)
    assert svgs
    ids: list[str] = []
    for svg in svgs:
        root = ET.fromstring(svg)
        ids += [el.get("id", "") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids))


def test_captions_state_sample_and_intervals(page: str) -> None:
    # Opening rolls: 6 games opened from the start (test_stats.py).
    assert "Sample: 6 games." in page
    assert "Bars are Wilson 95% confidence intervals" in page
    assert "χ² = " in page and "fair dice" in page


def test_filters_narrow_the_report_and_are_named(hand_dataset: Path, tmp_path: Path) -> None:
    page = report(hand_dataset, tmp_path, "--player", "Carol", "--length", "3")
    assert "filtered: player Carol, 3-point matches" in page
    assert '<div class="card"><b>1</b> matches</div>' in page
    assert '<div class="card"><b>3</b> games</div>' in page
    # The one-sided sections count Carol's side: she opened two of M2's three games, made
    # two of its three offers, and rolled two of its five rolls after an opening.
    assert "by opening roll. " + INTERVALS + " Sample: 2 games." in page
    assert "Sample: 2 offers." in page
    assert "p-value under 0.01 would be suspicious. Sample: 2 n." in page
    empty = report(hand_dataset, tmp_path, "--player", "Nobody")
    assert "No data in this dataset for these filters." in empty


def test_report_is_offline(page: str) -> None:
    assert "<script" not in page  # the analysis report needs no script at all
    assert not re.search(r"\b(src|href)=\"(https?:)?//", page)
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def test_missing_dataset_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["report", "--data", str(tmp_path / "none"), "--out", str(tmp_path / "r.html")]
    )
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "no dataset at" in result.output
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("statistic", [s.statistic for s in SECTIONS])
def test_each_section_names_a_statistic(statistic: str) -> None:
    assert statistic in STATISTICS
