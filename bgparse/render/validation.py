"""The validation report: one self-contained HTML page of what `bgparse validate` found in a
batch of records, for tournament directors. Boards are drawn only at findings, so that a
thousand clean matches cost a few lines each."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from markupsafe import Markup

from bgparse.helpers.printable import printable
from bgparse.model.findings import CODES, Finding, RecordError, Severity, source_window
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import SourceLines
from bgparse.render.html import environment
from bgparse.render.show import ShowError, turn_shown
from bgparse.version import __version__

__all__ = ["FileView", "FindingView", "MatchView", "ValidationReport"]

#: Finding codes drawn with a board: checker play, cube, results and scores.
_BOARD_GROUPS = ("P", "C", "R")
#: Boards drawn for one match at most (as many as the replay details illegal plays): a record
#: of thousands of illegal plays stays a page a browser opens, each finding still listed.
BOARDS_PER_MATCH = 200


@dataclass(frozen=True, slots=True)
class FindingView:
    code: str
    severity: str
    message: str
    line: int
    column: int
    #: What is shown of the source line: its window around the column, as the text report
    #: shows it (`bgparse.model.findings.source_window`), with its control characters shown.
    source_line: str | None
    game: int | None
    board: Markup | None = None
    recorded: str | None = None
    legal: tuple[str, ...] | None = None
    show: str | None = None  # the `bgparse show` argument for this turn
    mark: int = 0  # the finding's column in `source_line` (1-based; a tab is one column)

    @property
    def before(self) -> str:
        """The shown source line up to the marked column."""
        return (self.source_line or "")[: max(self.mark - 1, 0)]

    @property
    def marked(self) -> str:
        return (self.source_line or "")[max(self.mark - 1, 0) : self.mark] or " "

    @property
    def after(self) -> str:
        return (self.source_line or "")[self.mark :]


@dataclass(frozen=True, slots=True)
class MatchView:
    path: str
    index: int
    players: tuple[str, str]
    event: str | None
    length: int
    final_score: tuple[int, int]
    winner: int | None
    games: tuple[tuple[int, tuple[int, int]], ...]  # (game number, score after it)
    findings: tuple[FindingView, ...]
    verdict: str  # clean | warnings | errors
    #: Findings past `BOARDS_PER_MATCH` that are shown without their board.
    boards_left_out: int = 0

    @property
    def codes(self) -> str:
        return " ".join(sorted({f.code for f in self.findings}))


@dataclass(frozen=True, slots=True)
class FileView:
    path: str
    verdict: str  # clean | warnings | errors | unreadable
    matches: tuple[MatchView, ...] = ()
    reason: str | None = None


#: How a match's or a file's verdict reads on the page: "errors" is a count of findings
#: everywhere, so a match is "with errors".
VERDICT_WORDS = {
    "errors": "with errors",
    "warnings": "with warnings only",
    "clean": "clean",
    "unreadable": "unreadable",
}


def _verdict(severities: list[str]) -> str:
    if "error" in severities:
        return "errors"
    return "warnings" if "warning" in severities else "clean"


@dataclass
class ValidationReport:
    """Collects what a validation run found, file by file, then renders the page.

    `strict` reports warnings as errors, as `validate --strict` does."""

    strict: bool = False
    files: list[FileView] = field(default_factory=list)
    codes: Counter[tuple[str, str]] = field(default_factory=Counter)
    _pending: list[MatchView] = field(default_factory=list)
    _pending_path: str | None = None
    _source: SourceLines | None = None

    def _severity(self, f: Finding) -> str:
        if self.strict and f.severity is Severity.WARNING:
            return "error"
        return str(f.severity)

    def add_match(
        self, match: VerifiedMatch, data: bytes, with_turns: Callable[[], VerifiedMatch]
    ) -> None:
        """One replayed match of the current file. `with_turns` replays it again keeping
        its turns; it is called only when a finding needs a board."""
        if self._pending_path not in (None, match.path):
            self.end_file()
        self._pending_path = match.path
        if self._source is None or self._source.data is not data:
            self._source = SourceLines(data)  # one a file: its matches share its bytes
        needs_board = any(self._wants_board(f) for f in match.findings)
        full = with_turns() if needs_board else None
        views = []
        boards = 0
        left_out = 0
        for f in self._source.fill(match.findings, match.format):
            severity = self._severity(f)
            self.codes[(f.code, severity)] += 1
            shown, mark = None, 0
            if f.source_line is not None:
                # The window first (a line may be megabytes), then its controls shown, one
                # for one, so the marked column stays where it was.
                window, mark = source_window(f.source_line, f.column)
                shown = printable(window)
            view = FindingView(
                f.code, severity, printable(f.message), f.line, f.column, shown, f.game, mark=mark
            )
            if full is not None and self._wants_board(f):
                if boards < BOARDS_PER_MATCH:
                    view = self._with_board(view, f, full)
                    boards += view.board is not None
                else:
                    left_out += 1
            views.append(view)
        games = []
        for g in match.games:
            after = list(g.score_before)
            if g.winner is not None:
                after[g.winner] += g.points
            games.append((g.number, (after[0], after[1])))
        self._pending.append(
            MatchView(
                path=match.path,
                index=match.index,
                players=(printable(match.players[0]), printable(match.players[1])),
                event=printable(match.info.event) if match.info.event else None,
                length=match.length,
                final_score=match.final_score,
                winner=match.winner,
                games=tuple(games),
                findings=tuple(views),
                verdict=_verdict([v.severity for v in views]),
                boards_left_out=left_out,
            )
        )

    @staticmethod
    def _wants_board(f: Finding) -> bool:
        return (
            f.code.startswith(_BOARD_GROUPS)
            and f.severity is not Severity.INFO
            and f.game is not None
            and f.turn is not None
        )

    def _with_board(self, view: FindingView, f: Finding, match: VerifiedMatch) -> FindingView:
        game = next((g for g in match.games if g.number == f.game), None)
        if game is None or f.turn is None or not game.turns:
            return view
        # The turn the finding is about is the one at its place in the file; a score finding
        # comes after the game's last turn and shows the board the game ended on. A finding
        # with no such turn (a producer's board dump) gets no board rather than a wrong one.
        # On the finding's line, the last turn that starts at or before its column (a
        # finding may point inside a play, at one move of it).
        on_line = [
            (t.column, i)
            for i, t in enumerate(game.turns)
            if t.line == f.line and t.column <= f.column
        ]
        index = max(on_line)[1] if on_line else None
        if index is None and f.code.startswith("R") and f.turn >= len(game.turns):
            index = len(game.turns) - 1
        if index is None:
            return view
        turn = game.turns[index]
        try:
            shown = turn_shown(match.path, match.players, (), turn, index + 1)
        except ShowError:
            return view
        from dataclasses import replace

        return replace(
            view,
            board=Markup(shown.svg()),
            recorded=shown.recorded,
            legal=shown.legal,
            show=f"{match.path}:{game.number}:{index + 1}",
        )

    def end_file(self) -> None:
        if self._pending_path is None:
            return
        severities = [f.severity for m in self._pending for f in m.findings]
        verdict = _verdict(severities)
        self.files.append(FileView(self._pending_path, verdict, tuple(self._pending)))
        self._pending = []
        self._pending_path = None
        self._source = None

    def add_unreadable(self, exc: RecordError) -> None:
        """An input that could not be read at all: its one finding says why."""
        self.end_file()
        self.codes[(exc.finding.code, "error")] += 1
        self.files.append(
            FileView(exc.path, "unreadable", reason=f"{exc.finding.code} {exc.finding.message}")
        )

    def summary(self) -> dict[str, int]:
        """The counts of the command's closing line and of the page's summary, in the words
        docs/FINDINGS.md defines: files, matches, error and warning findings (an unreadable
        input's one finding among the errors), unreadable inputs, matches with errors and
        matches with warnings only."""
        self.end_file()
        severities = Counter[str]()
        for (_, severity), n in self.codes.items():
            severities[severity] += n
        verdicts = Counter(m.verdict for f in self.files for m in f.matches)
        return {
            "files": len(self.files),
            "matches": sum(len(f.matches) for f in self.files),
            "errors": severities["error"],
            "warnings": severities["warning"],
            "unreadable": sum(1 for f in self.files if f.verdict == "unreadable"),
            "error_matches": verdicts["errors"],
            "warning_matches": verdicts["warnings"],
        }

    def render(self, title: str = "bgparse validation report") -> str:
        totals = self.summary()
        matches = totals["matches"]
        by_code = [
            {
                "code": code,
                "severity": severity,
                "description": CODES.get(code, (None, ""))[1],
                "count": n,
            }
            for (code, severity), n in sorted(
                self.codes.items(), key=lambda kv: (-_RANK[kv[0][1]], kv[0][0])
            )
        ]
        severity_counts = Counter[str]()
        for (_, severity), n in self.codes.items():
            severity_counts[severity] += n
        # Matches with errors first, then warnings: what a director reads first.
        rank = {"errors": 0, "warnings": 1, "clean": 2}
        ordered = sorted((m for f in self.files for m in f.matches), key=lambda m: rank[m.verdict])
        return (
            environment()
            .get_template("validation.html.j2")
            .render(
                title=title,
                files=self.files,
                matches=ordered,
                n_matches=matches,
                totals=totals,
                clean_matches=matches - totals["error_matches"] - totals["warning_matches"],
                verdict_words=VERDICT_WORDS,
                by_code=by_code,
                severity_counts=severity_counts,
                unreadable=[f for f in self.files if f.verdict == "unreadable"],
                # Matches open by default only while the page stays short.
                open_matches=matches <= 20,
                boards_per_match=BOARDS_PER_MATCH,
                version=__version__,
                generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            )
        )


_RANK = {"error": 2, "warning": 1, "info": 0}
