"""The SGF writer: a verified match as GNU Backgammon saves it (`save match`), without analysis.

One game tree per game (formats.md §4): a root node with `FF[4]GM[6]CA[UTF-8]AP[...]`,
`MI[length:L][game:G][ws:W][bs:B]` (G 0-based, as GNU writes it), `PW`/`PB`, on the first
game only the match information (`WR`/`BR`, `DT`, `EV`, `RO`, `PC`, `AN`, `GC`), then `RU`
(`Crawford`, `CrawfordGame`, `Jacoby`, `NoCube`, the variant) and `RE[W+2]` (`R` appended for a
resignation); then one node per line: `;W[52hcfd]` (dice high-low, then a letter pair per step
in White's frame: `a` White's 1-point, `y` the bar, `z` off), `;B[63]` for a dance,
`;W[double]`, `;B[take]`, `;B[drop]`, a beaver as the doubled side's `double`, and
`;PL[W]DI[52]` for dice rolled and not played before a resignation. SGF marks no hits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bgparse.model.carry import (
    DERIVED_ROOT_PROPS,
    MAT_TAG_FORMATS,
    MAT_TAG_PREFIX,
    MAT_TAGS,
    RESULT,
    SGF_TAG_PREFIX,
    WRITTEN,
    mat_tag_value,
)
from bgparse.model.verified import Turn, VerifiedGame, VerifiedMatch
from bgparse.version import __version__
from bgparse.writers.mat import Setup, derived_mat_tags, game_setups, turn_steps

__all__ = ["sgf_point", "write_sgf"]

_COLOUR = ("W", "B")
_VARIANT_RULE = {
    "nackgammon": "Nackgammon",
    "hypergammon1": "Hypergammon1",
    "hypergammon2": "Hypergammon2",
    "hypergammon3": "Hypergammon3",
}


def sgf_point(point: int, side: int) -> str:
    """The letter of `point` in `side`'s own numbering (25 bar, 0 off) in White's frame."""
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(96 + point) if side == 0 else chr(121 - point)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(
    match: VerifiedMatch,
    *,
    comments: Sequence[str] = (),
    game_comments: Mapping[int, Sequence[tuple[int, str]]] | None = None,
) -> str:
    """The match as a GNU Backgammon SGF collection. `comments` are the record's header
    comments (`MatchRecord.comments`), written as the first game's `GC`; `game_comments` the
    comments inside its games (`bgparse.model.carry.game_comments`), each a `C` on the node of the
    turn it follows (the root node's before the first turn)."""
    notes = game_comments or {}
    trees = [
        _tree(match, i, game, comments if i == 0 else (), notes.get(i, ()))
        for i, game in enumerate(match.games)
    ]
    return "".join(t + "\n" for t in trees)


def _tree(
    match: VerifiedMatch,
    index: int,
    game: VerifiedGame,
    comments: Sequence[str],
    notes: Sequence[tuple[int, str]] = (),
) -> str:
    ws, bs = game.score_before
    root = [
        "(;FF[4]GM[6]CA[UTF-8]",
        f"AP[bgparse:{__version__}]",
        f"MI[length:{match.length}][game:{index}][ws:{ws}][bs:{bs}]",
        f"PW[{_escape(match.players[0])}]PB[{_escape(match.players[1])}]",
    ]
    if index == 0:
        root.extend(_match_info(match, comments))
    rules = _rule_words(match, game)
    if rules:
        root.append(f"RU[{':'.join(rules)}]")
    if game.winner is not None:
        resigned = "R" if game.end == "resign" else ""
        points = game.points
        if resigned and game.resign_level in (1, 2, 3):
            # GNU (and bgparse) read a resignation's level as RE's points over the cube: write
            # what the resignation was worth, not the points capped to what won the match
            # (`Wins 3` for a gammon at 2 in a 3-point match would read as a single game).
            points = max(points, game.resign_level * game.cube)
        root.append(f"RE[{_COLOUR[game.winner]}+{points}{resigned}]")
        if points != game.points:
            root.append(f"{RESULT}[{game.points}]")  # the points as the record wrote them
    variant = str(match.rules.get("variant", "standard"))
    nodes, ends = _nodes(game, variant)
    said: dict[int, list[str]] = {}  # node index (-1 the root) -> its comments
    for n, text in notes:
        said.setdefault(ends[min(n, len(ends)) - 1] - 1 if n > 0 and ends else -1, []).append(text)
    for at, texts in said.items():
        comment = f"C[{_escape(chr(10).join(texts))}]"
        if at < 0:
            root.append(comment)
        else:
            nodes[at] += comment
    return "".join(root) + "".join("\n;" + node for node in nodes) + ")"


#: Root properties of the match information, GNU's order; GNU writes them on the first game.
_INFO_PROPS = ("WR", "BR", "DT", "EV", "RO", "PC", "AN", "GC")


def _match_info(match: VerifiedMatch, comments: Sequence[str]) -> list[str]:
    values: dict[str, str] = {}
    others: dict[str, str] = {}  # root properties GNU does not write, in the record's order
    if match.format == "sgf":
        # A record read from SGF keeps its root properties as tags: write them back as they
        # were (the typed MatchInfo does not hold all of them, e.g. AN), and the `.mat` tags
        # it carries (`XT`).
        for name, value in match.tags:
            if name in _INFO_PROPS:
                values.setdefault(name, value)
            elif name not in DERIVED_ROOT_PROPS and not name.startswith(MAT_TAG_PREFIX):
                others.setdefault(name, value)
    else:
        info = match.info
        for prop, rating in zip(("WR", "BR"), info.ratings, strict=True):
            if rating is not None:
                values[prop] = str(int(rating)) if float(rating).is_integer() else str(rating)
        for prop, text in (
            ("DT", info.event_date),
            ("EV", info.event),
            ("RO", info.round),
            ("PC", info.site),
            ("AN", info.transcriber),
        ):
            if text is not None:
                values[prop] = text
        # A `.mat` file written from SGF holds the root properties no `.mat` tag says as
        # `SGF XX` tags: they go back as they were.
        for name, value in match.tags:
            prop = name[len(SGF_TAG_PREFIX) :]
            if name.startswith(SGF_TAG_PREFIX) and _is_prop(prop) and prop != "GC":
                (values if prop in _INFO_PROPS else others)[prop] = value
    if comments:
        values["GC"] = "\n".join(comments)
    out = [f"{prop}[{_escape(values[prop])}]" for prop in _INFO_PROPS if prop in values]
    out.extend(
        prop + "".join(f"[{_escape(v)}]" for v in value.split("]["))
        for prop, value in others.items()
    )
    tags = _carried_mat_tags(match)
    if tags:
        out.append(MAT_TAGS + "".join(f"[{mat_tag_value(k, v)}]" for k, v in tags))
    return out


def _is_prop(name: str) -> bool:
    return 1 <= len(name) <= 2 and name.isascii() and name.isalpha() and name.isupper()


def _carried_mat_tags(match: VerifiedMatch) -> list[tuple[str, str]]:
    """The `.mat` tags the SGF must carry in `XT` to give them back as written: a `.mat`
    record's, unless they are what a `.mat` file written from this SGF would say anyway (GNU's
    tags of its information, then `SGF XX` tags); an SGF record's own `XT` tags."""
    if match.format == "sgf":
        return [
            (name[len(MAT_TAG_PREFIX) :], value)
            for name, value in match.tags
            if name.startswith(MAT_TAG_PREFIX)
        ]
    if match.format not in MAT_TAG_FORMATS or not match.tags:
        return []
    tags = list(match.tags)
    plain = [t for t in tags if not t[0].startswith(SGF_TAG_PREFIX)]
    carried = [t for t in tags if t[0].startswith(SGF_TAG_PREFIX)]
    if tags == plain + carried and plain == derived_mat_tags(match):
        return []
    return tags


def _rule_words(match: VerifiedMatch, game: VerifiedGame) -> list[str]:
    # GNU writes `Crawford` in matches longer than one point (a 1-point match has no Crawford
    # game) and `Jacoby` only in money play, where it applies.
    rules = match.rules
    words: list[str] = []
    if match.length > 1 and rules.get("crawford", True):
        words.append("Crawford")
        if game.crawford:
            words.append("CrawfordGame")
    if match.length == 0 and rules.get("jacoby") is True:
        words.append("Jacoby")
    if rules.get("cube") is False or rules.get("cube_limit") == 1:
        words.append("NoCube")
    variant = _VARIANT_RULE.get(str(rules.get("variant", "standard")))
    if variant:
        words.append(variant)
    return words


def _nodes(game: VerifiedGame, variant: str) -> tuple[list[str], list[int]]:
    """The game's nodes after the root, and for each turn how many nodes stand up to its own."""
    setups, end = game_setups(game, variant)
    nodes: list[str] = []
    ends: list[int] = []
    turns = game.turns
    for i, turn in enumerate(turns):
        if i:
            ends.append(len(nodes))
        if i in setups:
            nodes.append(_setup(setups[i]))
        colour = _COLOUR[turn.side]
        kind = turn.kind
        if kind in ("double", "beaver", "raccoon"):
            nodes.append(f"{colour}[double]")
            nxt = turns[i + 1] if i + 1 < len(turns) else None
            if kind != "double" and nxt is not None and nxt.kind in ("play", "dance", "hidden"):
                # A `.mat` record leaves the take of a beaver to the next roll; GNU's SGF has
                # the original doubler take it.
                nodes.append(f"{_COLOUR[1 - turn.side]}[take]")
        elif kind in ("take", "drop"):
            nodes.append(f"{colour}[{kind}]")
        elif kind in ("play", "dance", "hidden"):
            nodes.append(_roll(turn, colour))
        else:
            raise ValueError(f"a turn of kind {kind!r} cannot be written to SGF")
    if turns:
        ends.append(len(nodes))
    if end is not None:
        nodes.append(_setup(end))
    return nodes, ends


def _setup(setup: Setup) -> str:
    """A board edit as GNU writes one (`PL`, then `AE[a:y]` clearing every point and both bars,
    then one `AW`/`AB` value per checker), and the cube (`CV`, `CP`) where it changed."""
    parts = []
    if setup.board_changed and setup.boards is not None:
        white, black = setup.boards
        parts.append(f"PL[{_COLOUR[setup.on_roll]}]AE[a:y]")
        for prop, side, board in (("AW", 0, white), ("AB", 1, black)):
            values = "".join(f"[{sgf_point(p, side)}]" * board[p] for p in range(1, 26) if board[p])
            if values:
                parts.append(prop + values)
    if setup.cube_changed:
        parts.append(f"CV[{setup.cube}]CP[{'cwb'[setup.owner + 1]}]")
    return "".join(parts)


def _roll(turn: Turn, colour: str) -> str:
    d1, d2 = turn.dice or (0, 0)
    dice = f"{max(d1, d2)}{min(d1, d2)}"
    steps = turn_steps(turn)
    if turn.kind == "hidden" and not steps:
        # GNU's form of dice rolled and not played; `XW` keeps how the record wrote it.
        written = f"{WRITTEN}[{_escape(turn.written)}]" if turn.written else ""
        return f"PL[{colour}]DI[{dice}]{written}"
    letters = "".join(
        sgf_point(src, turn.side) + sgf_point(dst, turn.side) for src, dst, _ in steps
    )
    return f"{colour}[{dice}{letters}]"
