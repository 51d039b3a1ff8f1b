"""What a conversion carries across formats that the other format has no place for: bgparse's own
SGF properties for `.mat` header tags and plays written as hidden, and the `.mat` tags for SGF
root properties.

GNU Backgammon's SGF reader reads property names of one or two capital letters only (a longer
name is a syntax error to it) and ignores a property it does not know, so bgparse's own are two
letters that neither GNU nor the SGF specification uses:

* `XT` (root of the first game): the `.mat` header tags exactly as written, in order, one value
  each, `Key:Value` (a `:` or `\\` in the key escaped with `\\`). The SGF reader gives them back
  as tags named `XT:Key`; the `.mat` writer writes them again as they were.
* `XW` (a move node): the play exactly as the record wrote it where the move property cannot
  say it: `;PL[W]DI[33]XW[???]` is a roll whose play is not shown (`33: ???`), which GNU reads
  as the dice set and nothing played.
* `XR` (a game's root): the points the record gave a resignation that won the match, where
  they are fewer than it was worth (`Wins 5` for a gammon at 4): RE says the worth
  (`RE[B+8R]`), from which GNU and bgparse take the resignation's level.

The other way, an SGF root property that no `.mat` tag of GNU's stands for (`WR`, `BR`, and
properties bgparse does not know) goes into the `.mat` file as the tag `SGF XX`, and back.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace

from bgparse.model.events import Comment, MatchRecord, Win
from bgparse.model.verified import VerifiedMatch
from bgparse.rules.wording import plural

__all__ = [
    "DERIVED_ROOT_PROPS",
    "MAT_TAGS",
    "MAT_TAG_FORMATS",
    "MAT_TAG_PREFIX",
    "RESULT",
    "SGF_TAG_PREFIX",
    "WRITTEN",
    "game_comments",
    "mat_tag_value",
    "recorded_results",
    "split_mat_tag_value",
]

#: The SGF root property holding `.mat` header tags.
MAT_TAGS = "XT"
#: Record formats whose tags are `.mat` header tags (the `.xg` reader reads XG's match header
#: into the same tags, the GNU text export reader its Match Information lines).
MAT_TAG_FORMATS = frozenset({"mat", "xg", "gnutext"})
#: Its tags, as the SGF reader names them: `XT:Site`.
MAT_TAG_PREFIX = MAT_TAGS + ":"
#: The SGF move-node property holding a play as written (`???`).
WRITTEN = "XW"
#: The SGF root property holding a resignation's points as written, where RE says its worth.
RESULT = "XR"
#: The `.mat` tag name prefix of an SGF root property: `; [SGF WR "1612"]`.
SGF_TAG_PREFIX = "SGF "

#: SGF root properties a `.mat` file says in its own way (the score line, `Wins` lines, GNU's
#: tags and comment lines) or that belong to the writing program, not to the match: these
#: need no `SGF XX` tag. `C` is a node comment, a game's event, not the match's.
DERIVED_ROOT_PROPS = frozenset(
    {
        "FF",
        "GM",
        "CA",
        "AP",
        "MI",
        "PW",
        "PB",
        "RE",
        "RU",
        "PC",
        "EV",
        "RO",
        "DT",
        "AN",
        "GC",
        "C",
        MAT_TAGS,
        RESULT,
        "analysis_props",
    }
)


def _sgf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def mat_tag_value(key: str, value: str) -> str:
    """One `XT` value, SGF-escaped, ready to go between brackets."""
    return _sgf_escape(key).replace(":", "\\:") + ":" + _sgf_escape(value)


def split_mat_tag_value(raw: str) -> tuple[str, str] | None:
    """A raw `XT` value (between the brackets, escapes not yet resolved) as (key, value), or
    None where it has no unescaped `:`."""
    key: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            key.append(raw[i + 1])
            i += 2
            continue
        if c == ":":
            return "".join(key), _sgf_unescape(raw[i + 1 :])
        key.append(c)
        i += 1
    return None


def _sgf_unescape(raw: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            if raw[i + 1] != "\n":  # backslash-newline is a soft line break
                out.append(raw[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def game_comments(record: MatchRecord, match: VerifiedMatch) -> dict[int, list[tuple[int, str]]]:
    """The comments inside each game (SGF `C`, `;` lines between `.mat` rows), for the writers:
    by the game's index, each as (how many of the game's turns come before it, text). A comment
    stands after the action it follows in the record, found by that action's place in the file
    (a turn keeps the line and column of its action)."""
    out: dict[int, list[tuple[int, str]]] = {}
    for index, (game, verified) in enumerate(zip(record.games, match.games, strict=False)):
        if game.number != verified.number:
            continue
        places = [(t.line, t.column) for t in verified.turns]
        after: tuple[int, int] | None = None  # the place of the last action before, if any
        for action in game.actions:
            if not isinstance(action, Comment):
                after = (action.span.line, action.span.column)
                continue
            n = 0 if after is None else bisect_right(places, after)
            out.setdefault(index, []).append((n, action.text))
    return out


def recorded_results(record: MatchRecord, match: VerifiedMatch) -> tuple[VerifiedMatch, list[str]]:
    """`match` with each game's result as the record writes it, where the replay scored it
    otherwise: the points of the game's `Wins N` line (for the side the replay says won) and
    the game's score line as written (where it reads as one). What `convert` writes unless
    asked to repair. Also one line per game that differs, saying what the record says and
    what the replay verified (the same list describes a repair)."""
    games = list(match.games)
    said: list[str] = []
    for index, (game, verified) in enumerate(zip(record.games, match.games, strict=False)):
        if game.number != verified.number:
            continue
        wins = [a for a in game.actions if type(a) is Win and a.side == verified.winner]
        points = wins[-1].points if wins else verified.points
        score = verified.score_written if min(verified.score_written) >= 0 else None
        if score is None or score == verified.score_before:
            score = verified.score_before
        if points == verified.points and score == verified.score_before:
            continue
        games[index] = replace(verified, points=points, score_before=score)
        if points != verified.points:
            said.append(
                f"game {game.number}: the record's Wins {plural(points, 'point')}, "
                f"the replay's {verified.points}"
            )
        if score != verified.score_before:
            said.append(
                f"game {game.number}: the record's score {score[0]}-{score[1]}, the replay's "
                f"{verified.score_before[0]}-{verified.score_before[1]}"
            )
    if not said:
        return match, said
    return replace(match, games=tuple(games)), said
