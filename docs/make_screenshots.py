"""Write the README's report screenshots (docs/*.png) from records this project writes: the
samples, 200 generated matches (imported and analysed by the engine), and one generated match
with a play edited to be illegal.

    .venv/bin/python docs/make_screenshots.py      # needs Chromium (apt-get install chromium)
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright
from typer.testing import CliRunner

from bgparse.cli import app

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent


def _run(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code in (0, 1), result.output


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bgparse-shots-"))
    try:
        os.chdir(work)  # relative paths in the pages
        shutil.copytree(ROOT / "sample_logs", "sample_logs")
        _run("generate", "--matches", "200", "--length", "7", "--seed", "13", "--out", "played")
        first = sorted(Path("played").glob("*.mat"))[0]
        text = first.read_text(encoding="utf-8")
        # Make the first recorded play of the match read one pip too far: an illegal play.
        edited = re.sub(
            r"(\d)(\d): (\d+)/(\d+)",
            lambda m: f"{m[1]}{m[2]}: {m[3]}/{int(m[4]) - 1}",
            text,
            count=1,
        )
        Path("edited").mkdir()
        Path("edited", "club-final.mat").write_text(edited, encoding="utf-8")
        _run("validate", "edited", "sample_logs", "--format", "html", "--out", "validation.html")
        _run("import", "sample_logs", "played", "--data", "data", "--no-progress")
        _run("analyze", "--data", "data", "--no-progress")
        _run("report", "--data", "data", "--out", "analysis.html")
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                args=["--no-sandbox"],
            )
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.goto((work / "analysis.html").as_uri())
            page.screenshot(path=str(DOCS / "analysis-report.png"))
            players = page.query_selector("section#match-performance")
            assert players is not None, "the report has its Players part"
            players.screenshot(path=str(DOCS / "analysis-report-players.png"))
            worst = page.query_selector("section#blunders div.boards")
            assert worst is not None, "the worst decisions are drawn"
            worst.screenshot(path=str(DOCS / "analysis-report-blunders.png"))
            page.goto((work / "validation.html").as_uri())
            page.screenshot(path=str(DOCS / "validation-report.png"))
            page.evaluate("document.querySelectorAll('details.match').forEach(d => d.open = true)")
            finding = page.query_selector("li.finding:has(svg.bg-board)")
            assert finding is not None, "the edited play has a board"
            finding.screenshot(path=str(DOCS / "validation-report-finding.png"))
            browser.close()
    finally:
        os.chdir(ROOT)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
