"""Both reports in a real browser: headless Chromium (Debian's `chromium`) driven by
Playwright, never Playwright's own browser download. No console error, no request beyond
the file itself, every chart and board drawn with a size, the severity filter hiding and
showing findings, and a screenshot of each report kept as a test artifact.

Skipped only where no Chromium is installed and CI is not set; in CI a missing browser is a
failure (.ci/run installs it)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import CORPUS, ROOT, SAMPLES

#: Where the screenshots go: $BGPARSE_ARTIFACTS, else test-artifacts/ in the checkout.
ARTIFACTS = Path(os.environ.get("BGPARSE_ARTIFACTS", ROOT / "test-artifacts"))


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = _chromium()
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but no Chromium is installed (.ci/run installs it)")
        pytest.skip("no Chromium here (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        # --no-sandbox: containers and CI runners often run as root, where the sandbox
        # cannot start.
        b = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield b
        b.close()


def _edited_match(folder: Path) -> Path:
    """A generated match whose first play is edited to move one pip too far: an illegal play
    with a board in the report, whether or not the corpus is beside the project."""
    from typer.testing import CliRunner

    from bgparse.cli import app

    played = folder / "played"
    result = CliRunner().invoke(
        app, ["generate", "--matches", "1", "--length", "3", "--seed", "13", "--out", str(played)]
    )
    assert result.exit_code == 0, result.output
    (first,) = sorted(played.glob("*.mat"))
    text, n = re.subn(
        r"(\d)(\d): (\d+)/(\d+)",
        lambda m: f"{m[1]}{m[2]}: {m[3]}/{int(m[4]) - 1}",
        first.read_text(encoding="utf-8"),
        count=1,
    )
    assert n == 1
    edited = folder / "edited.mat"
    edited.write_text(text, encoding="utf-8")
    return edited


def _inputs(folder: Path) -> list[Path]:
    """sample_logs, a generated match with an illegal play, and the corpus's edited illegal
    plays where ../shared is present (the records only: the folder's truth files would be
    inputs too, reported unreadable)."""
    paths = [SAMPLES, _edited_match(folder)]
    illegal = CORPUS / "gnubg-illegal"
    if illegal.is_dir():
        paths += sorted(p for p in illegal.iterdir() if p.suffix in (".mat", ".sgf"))
    return paths


@pytest.fixture(scope="module")
def validation_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from typer.testing import CliRunner

    from bgparse.cli import app

    folder = tmp_path_factory.mktemp("browser")
    out = folder / "validation.html"
    result = CliRunner().invoke(
        app, ["validate", *map(str, _inputs(folder)), "--format", "html", "--out", str(out)]
    )
    assert result.exit_code in (0, 1) and out.is_file(), result.output
    return out


@pytest.fixture(scope="module")
def analysis_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from typer.testing import CliRunner

    from bgparse.cli import app
    from bgparse.ingest import ImportOptions, run_import

    base = tmp_path_factory.mktemp("browser-data")
    inputs = [SAMPLES]
    sample = CORPUS / "gnubg-sample"
    if sample.is_dir():
        inputs.append(sample)
    run_import(inputs, base / "data", ImportOptions(workers=1))
    out = base / "analysis.html"
    result = CliRunner().invoke(app, ["report", "--data", str(base / "data"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


class Visit:
    """A page opened in the browser, with what it logged and requested."""

    def __init__(self, browser: Any, path: Path, *, javascript: bool = True) -> None:
        self.context = browser.new_context(
            java_script_enabled=javascript, viewport={"width": 1100, "height": 1400}
        )
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url, wait_until="load")

    def offline(self) -> bool:
        return all(u == self.url or u.startswith("data:") for u in self.requests)

    def open_all(self) -> None:
        self.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")

    def sizes(self, selector: str) -> list[tuple[float, float]]:
        out = []
        for el in self.page.query_selector_all(selector):
            el.scroll_into_view_if_needed()
            box = el.bounding_box()
            out.append((box["width"], box["height"]) if box else (0.0, 0.0))
        return out

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        target = ARTIFACTS / name
        self.page.evaluate("window.scrollTo(0, 0)")
        self.page.screenshot(path=str(target), full_page=False)
        return target

    def close(self) -> None:
        self.context.close()


def test_validation_report_in_chromium(browser: Any, validation_page: Path) -> None:
    visit = Visit(browser, validation_page)
    try:
        shot = visit.screenshot("validation-report.png")
        assert shot.stat().st_size > 10_000
        assert visit.errors == []
        assert visit.offline(), visit.requests
        visit.open_all()
        boards = visit.sizes("svg.bg-board")
        assert boards, "the illegal plays have boards"
        assert all(w > 100 and h > 100 for w, h in boards)
        first = visit.page.query_selector("li.finding:has(svg.bg-board)")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        first.screenshot(path=str(ARTIFACTS / "validation-report-finding.png"))

        page = visit.page
        assert page.is_visible("#filters")
        errors = page.query_selector_all('li.finding[data-severity="error"]')
        warnings = page.query_selector_all('li.finding[data-severity="warning"]')
        assert errors and warnings
        page.uncheck('#filters input[value="error"]')
        assert not any(e.is_visible() for e in errors)
        assert all(w.is_visible() for w in warnings)
        page.check('#filters input[value="error"]')
        assert all(e.is_visible() for e in errors)

        # Search by code: only matches with a P001 stay.
        page.fill("#search", "p001")
        for match in page.query_selector_all("details.match"):
            has = "p001" in (match.get_attribute("data-codes") or "")
            assert match.is_visible() == has
        page.fill("#search", "")
        # The count of what is shown, worded and grouped as the command line words counts.
        matches = len(page.query_selector_all("details.match"))
        findings = len(page.query_selector_all("li.finding"))
        assert page.inner_text("#shown") == (
            f"{matches:,} {'match' if matches == 1 else 'matches'}, "
            f"{findings:,} {'finding' if findings == 1 else 'findings'} shown"
        )
        assert visit.errors == []
    finally:
        visit.close()


def test_validation_report_without_javascript_shows_everything(
    browser: Any, validation_page: Path
) -> None:
    visit = Visit(browser, validation_page, javascript=False)
    try:
        assert not visit.page.is_visible("#filters")  # controls that would do nothing
        n = len(visit.page.query_selector_all("li.finding"))
        assert n > 0
        hidden = visit.page.query_selector_all(".hidden-by-filter")
        assert hidden == []
        assert visit.offline()
    finally:
        visit.close()


def test_analysis_report_in_chromium(browser: Any, analysis_page: Path) -> None:
    visit = Visit(browser, analysis_page)
    try:
        shot = visit.screenshot("analysis-report.png")
        assert shot.stat().st_size > 10_000
        charts = visit.sizes("svg.chart-svg")
        assert len(charts) >= 5
        assert all(w > 200 and h > 100 for w, h in charts)
        assert visit.errors == []
        assert visit.offline(), visit.requests
    finally:
        visit.close()
