"""The SGF reader: GNU Backgammon SGF collections (`GM[6]`) into the format-neutral event record.

Three layers, lowest first, as in sgfmill:

* syntax (`grammars/sgf.lark`, `_parse_collection`): text to raw game trees, each property a
  name token and one token holding all its raw values, with their positions. Nothing there
  knows backgammon.
* meaning (`_GameReader`): one game tree's main line to a `Game` of events. Nothing checks
  legality: a play is kept as written and the replay judges it.
* grouping (`iter_sgf_matches`): consecutive game trees to `MatchRecord`s.

How the record is filled:

* players = (PW, PB): side 0 is White, GNU's player 0, the left column of its `.mat` export.
* length from `MI[length:N]` (0 = money); game number from `MI[game:N]`, which GNU writes
  0-based although the SGF spec says 1-based: when a match's first tree says `game:0`, every
  number of that match is shifted by one. Score = (`ws`, `bs`); where a tree has none, the
  running score of the earlier results.
* `W[...]`/`B[...]`: `double` (a double while one is pending is a beaver, as GNU exports it to
  `.mat`: `Beavers => N`), `take`, `drop`, or dice then letter pairs: a `Roll` whose moves are
  one (from, to) step each, in the mover's own numbering (`y` bar = 25, `z` off = 0). SGF
  marks no hits; the replay finds them.
* Setup nodes (AE/AB/AW, PL, DI, CV, CP or CO) become one `SetPosition` each. `C[...]` becomes a
  `Comment` after the node's action. Analysis properties (A, DA, MR, LU, GB/GW, BM, DO, ...)
  are counted: tag `analysis_props` lists the count per game, in game order. GNU's A
  (candidates), DA (cube analysis) and LU (luck) are read into the record's `analysis` notes,
  at the span of the action each annotates (docs/ANALYSIS.md, "GNU Backgammon's SGF").
* GNU writes no node for a resignation, only `RE[W+4R]`. Like GNU's own reader, the reader then
  adds `Resign(loser, points / cube clamped to 1..3)` after the game's last node. Every readable
  `RE` also ends the game with `Win(winner, points, and_match=False)`, the result line a `.mat`
  file has (the replay decides whether it won the match).
* tags: every root property of the match's first tree except analysis and `GS`, in file
  order, values unescaped and several joined with `][` (`MI` gives `length:7][game:0][ws:0]`).
  bgparse's own `XT` (a `.mat` file's header tags, `bgparse.model.carry`) gives one tag `XT:Key` per
  value, and the match information is read from those tags as the `.mat` reader reads them.
* bgparse's own `XW` on a `PL`/`DI` node is a `HiddenPlay` with that text (`???`); its `XR`
  beside `RE` gives the `Win` the points the record wrote (RE then says what the resignation
  was worth, from which its level is taken).
* A file holds one match normally. A new `MatchRecord` starts when the players or the match
  length change, or when the game number does not increase (a second match in the same file).

Leniencies (each has a test of the same name in `tests/test_sgf_reader.py`):

* junk_between_trees: text before, between or after game trees is skipped (S013 warning).
* lowercase_in_ident: lower-case letters in property names are dropped (`CoPyright` is `CP`);
  a name without capitals is ignored.
* game_zero_based: `MI[game:0]` as above; MI tags in any order and any case.
* co_for_cp: the spec's `CO[b|w|c|n]` is read like GNU's `CP[b|w|c]`.
* missing_close_paren: a file that ends with trees open is closed (S010), and a GNU root node
  (`FF`/`GM`) found inside an unclosed tree starts the next game (S010), not a variation.
* unterminated_value: a file cut off inside a value keeps every node before (S010).
* property_without_value: skipped (S010); the following nodes are read normally.
* full_clear_setup: GNU writes a board edit as `AE[a:y]` (every point and both bars, ranges
  being inclusive), then one `AW`/`AB` value per checker. Gibbon writes `AE[a:x]`, which by
  the letter leaves the bars alone: any `AE` that clears all 24 points is taken as a full
  clear, bars included. An edit without such a clear depends on the position before it,
  which the reader does not know: reported (S011) and ignored.
* duplicate_move: a second move property in one node is ignored, as GNU does (S011 warning).
* odd_dice: dice outside 1-6 are kept as written for the replay to report (GNU drops the move).
* other_games: trees without `GM[6]` (Go, chess, ...) are skipped (S013 warning).
* declared_charset: bytes that are not UTF-8 are decoded with the charset `CA[...]` declares
  (else as Windows-1252, S009 warning); a file that is valid UTF-8 is read as UTF-8.
* gibbon_resignations: Gibbon's `B[resign:4]` offers 4 points (the cube counted); `W[accept]`
  makes it `Resign(level = points over the cube, clamped to 1..3)` and `Win(4)`, as GNU reads
  `RE[W+4R]`; `W[reject]` drops the offer. An answer without an offer, or an RE that
  disagrees with the accepted resignation, is a warning (S011).

Variations are ignored: only the main line (the first variation at each branch) is read.
"""

from __future__ import annotations

import bisect
import codecs
import contextlib
import math
import re
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedInput, UnexpectedToken
from lark.parsers.lalr_interactive_parser import InteractiveParser

from bgparse.analysis.met import match_equity, mwc_to_emg
from bgparse.analysis.model import Candidate, CheckerNote, CubeNote, Note
from bgparse.helpers.resources import cached_lark
from bgparse.model.carry import MAT_TAG_PREFIX, MAT_TAGS, RESULT, WRITTEN, split_mat_tag_value
from bgparse.model.events import (
    GENERATED,
    GENERATOR,
    Action,
    Beaver,
    Comment,
    Double,
    Drop,
    Game,
    HiddenPlay,
    MatchInfo,
    MatchRecord,
    Move,
    Resign,
    Roll,
    SetPosition,
    Span,
    Take,
    Win,
)
from bgparse.model.findings import Finding, Severity, SyntaxRecordError
from bgparse.readers.decode import decode_bytes, looks_binary
from bgparse.readers.mat import info_from_tags
from bgparse.readers.numbers import (
    MAX_NUMBER,
    find_too_large,
    read_bounded,
    read_int,
    too_large_message,
)

__all__ = ["MAX_SGF_BYTES", "iter_sgf_matches", "looks_like_sgf"]

#: Larger inputs are refused (S015). GNU's analysed files run to about 1.7 KB per move, so
#: even a long money session stays far below this.
MAX_SGF_BYTES = 64 * 1024 * 1024

#: After this many syntax errors the file is given up as garbage (the recovery works token by
#: token, so an adversarial file could otherwise keep it busy for minutes).
_MAX_SYNTAX_ERRORS = 2000

#: Properties GNU writes for its analysis and marks: skipped unread, only counted. GS (game
#: statistics, root only) is skipped too but not counted: GNU writes it for every game.
_ANALYSIS = frozenset(
    {"A", "DA", "MR", "CR", "LU", "GB", "GW", "BM", "DO", "IT", "TE", "BC", "DC", "IC", "TC"}
)
#: The analysis properties read into notes (`bgparse.analysis.model`): the candidates, the cube
#: analysis and the roll's luck.
_READ = frozenset({"A", "DA", "LU"})
#: The source name of the analysis an SGF file stores (the format is GNU Backgammon's).
SGF_ANALYSIS = "gnubg-sgf"
_SETUP = frozenset({"AE", "AB", "AW", "PL", "DI", "CV", "CP", "CO"})
_VARIANTS = ("Nackgammon", "Hypergammon1", "Hypergammon2", "Hypergammon3")
_ROLL = re.compile(r"([0-9])([0-9])(.*)", re.S)
_PAIRS = re.compile(r"(?:[a-z][a-z])*")
_RESULT = re.compile(r"\s*([WBwb])\s*\+\s*([0-9]*)\s*(.*)", re.S)
_DATE = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")
_CHARSET = re.compile(rb"CA\s*\[([^\]\\]{1,40})\]")
_SNIFF = re.compile(
    r"\A\s*\(\s*;\s*(?:[A-Za-z]+\s*(?:\[[^\\\]]*+(?:\\[\s\S][^\\\]]*+)*+\]\s*)+)*?(?:FF|GM)\s*\["
)
_COLOURS = ("W", "B")
#: Dialects whose RU names every rule in force (GNU's writer and bgparse's): none is none.
_RU_COMPLETE = frozenset({"gnubg-sgf", "bgparse-sgf", GENERATED})
_NO_RESULT = frozenset({"", "?", "0", "draw", "void", "d", "jigo"})


def looks_like_sgf(text: str) -> bool:
    """True when `text` opens like an SGF collection: `(;` then, in the first node, an `FF` or
    `GM` property (other properties may come first; whitespace anywhere between)."""
    return _SNIFF.match(text.lstrip("\ufeff")[:65536]) is not None


# --- syntax layer ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Node:
    semi: Token
    props: list[list[Token]]  # each: [name token, values token]


@dataclass(slots=True)
class _Tree:
    open: Token
    nodes: list[_Node]
    children: list[_Tree]


@dataclass(slots=True)
class _Junk:
    token: Token


class _Builder(Transformer[Token, object]):
    """Runs inside the LALR parser (no parse tree is built): one line per rule."""

    def prop(self, children: list[Token]) -> list[Token]:
        return children

    def node(self, children: list[object]) -> _Node:
        return _Node(children[0], children[1:])  # type: ignore[arg-type]

    def tree(self, children: list[object]) -> _Tree:
        nodes = [c for c in children if isinstance(c, _Node)]
        kids = [c for c in children if isinstance(c, _Tree)]
        return _Tree(children[0], nodes, kids)  # type: ignore[arg-type]

    def junk(self, children: list[Token]) -> _Junk:
        return _Junk(children[0])

    def start(self, children: list[object]) -> list[object]:
        return children


@cache
def _parser() -> Lark:
    return cached_lark(
        "sgf.lark",
        parser="lalr",
        lexer="contextual",
        transformer=_Builder(),
    )


class _Source:
    """The decoded text, with the lines cut only when a finding needs to quote one."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None

    def line(self, n: int) -> str | None:
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines[n - 1] if 0 < n <= len(self._lines) else None

    def end(self) -> tuple[int, int]:
        """Line and column just past the last character."""
        last_nl = self.text.rfind("\n")
        return self.text.count("\n") + 1, len(self.text) - last_nl

    def finding(
        self,
        code: str,
        message: str,
        line: int,
        column: int,
        *,
        severity: Severity | None = None,
        game: int | None = None,
    ) -> Finding:
        return Finding.make(
            code,
            message,
            line,
            column,
            severity=severity,
            game=game,
            source_line=self.line(line),
        )


def _describe(tok: Token) -> str:
    text = str(tok)
    return repr(text if len(text) <= 20 else text[:17] + "...")


def _parse_collection(src: _Source) -> tuple[list[object], list[Finding]]:
    """Parse the whole collection, recovering from syntax errors token by token. Returns the
    top-level items (trees and junk) and the syntax findings (S010)."""
    findings: list[Finding] = []
    text = src.text

    def report(message: str, line: int, column: int) -> None:
        findings.append(src.finding("S010", message, line, column))

    def on_error(e: UnexpectedInput) -> bool:
        if len(findings) >= _MAX_SYNTAX_ERRORS:
            return False
        if not isinstance(e, UnexpectedToken):
            # Every character starts some token (the grammar's BAD), so lark raises only
            # UnexpectedToken; anything else: report it and let lark skip one character.
            report("unexpected character", e.line, e.column)
            return True
        ip = e.interactive_parser
        tok = e.token
        if tok.type == "$END":
            line, column = src.end()
            # `$END` borrows the last token's place: a value running to the end of the file
            # was never closed.
            start = tok.start_pos
            if start is not None and tok.end_pos == len(text) and text[start : start + 1] == "[":
                last = _split_values(text[start:])[-1]
                if not _closed(last):
                    report(
                        "value not closed: '[' without ']' before the end of the file",
                        tok.line or line,
                        tok.column or column,
                    )
            report("missing ')' at the end of the file", line, column)
            # Mend the node in hand, then close every tree still open: the OPEN tokens on the
            # parser's value stack (a finished tree is reduced to a _Tree). Counted rather than
            # tried with `accepts`, which copies the parser once per tree: quadratic on a
            # hostile nesting depth.
            expected = _choices(ip)
            mends = [("VALUES", "")] if expected == {"VALUES"} else []
            if expected == {"SEMI"}:
                mends = [("SEMI", ";")]
            stack = ip.parser_state.value_stack
            depth = sum(1 for v in stack if isinstance(v, Token) and v.type == "OPEN")
            try:
                for kind, value in mends + [("CLOSE", ")")] * depth:
                    ip.feed_token(Token.new_borrow_pos(kind, value, tok))
            except UnexpectedInput:
                return False
            return True

        expected = _choices(ip)
        line, column = tok.line or 0, tok.column or 0
        if expected == {"VALUES"}:
            # The property's name is the last token the parser took.
            name = ip.parser_state.value_stack[-1]
            if isinstance(name, Token):
                line, column = name.line or line, name.column or column
            report(f"property {_describe(name)} has no value", line, column)
            # An empty token marks the value as missing; the reader drops the property.
            return _refeed(ip, Token.new_borrow_pos("VALUES", "", tok), tok)
        if expected == {"SEMI"}:
            report(f"'(' must be followed by ';' (found {_describe(tok)})", line, column)
            return _refeed(ip, Token.new_borrow_pos("SEMI", ";", tok), tok)
        if tok.type == "VALUES":
            report("value without a property name", line, column)
        elif tok.type == "BAD":
            report(f"unexpected text {_describe(tok)}", line, column)
        else:
            report(f"unexpected {_describe(tok)}", line, column)
        return True  # lark drops the token and carries on

    try:
        result = _parser().parse(text, on_error=on_error)
    except LarkError as e:  # recovery gave up: too many errors, or a state it cannot mend
        line, column = getattr(e, "line", 0), getattr(e, "column", 0)
        if not isinstance(line, int) or line < 1:
            line, column = src.end()
        message = (
            "too many syntax errors; the rest of the file is not read"
            if len(findings) >= _MAX_SYNTAX_ERRORS
            else "SGF syntax error the reader cannot recover from"
        )
        findings.append(src.finding("S010", message, line, column))
        return [], findings
    assert isinstance(result, list)
    return result, findings


def _refeed(ip: InteractiveParser, synthetic: Token, tok: Token) -> bool:
    """Feed a synthetic token that mends the parse, then the token that failed, if it fits
    (if it still does not, it is dropped, as lark does by default)."""
    ip.feed_token(synthetic)
    with contextlib.suppress(UnexpectedInput):
        ip.feed_token(tok)
    return True


def _choices(ip: InteractiveParser) -> set[str]:
    """The terminals the parser can take next (lark leaves `choices` untyped)."""
    return {t for t in ip.choices() if t.isupper()}  # type: ignore[no-untyped-call]


def _closed(raw: str) -> bool:
    """Whether a raw value token ends with its own `]` (not an escaped one, not end of file)."""
    if len(raw) < 2 or raw[-1] != "]":
        return False
    if raw[-2] != "\\":
        return True
    body = raw[1:-1]  # the backslashes before the `]`, counted with string methods
    return (len(body) - len(body.rstrip("\\"))) % 2 == 0


#: One raw value, as the grammar's VALUES reads it (possessive repeats: see grammars/sgf.lark).
_ONE_VALUE = re.compile(r"\[[^\\\]]*+(?:\\[\s\S][^\\\]]*+)*+(?:\]|\\?\Z)")


def _split_values(raw: str) -> list[str]:
    """The raw values `[...]` of one property's values token (white space between dropped)."""
    end = raw.find("]")
    if end == len(raw) - 1 or end < 0:
        return [raw] if raw else []  # one value (the common case) or one cut off by the EOF
    return _ONE_VALUE.findall(raw)


def _values(prop: list[Token]) -> list[str]:
    """A property's raw values, without one cut off by the end of the file (already reported:
    half a move must not pass for a whole one)."""
    values = _split_values(str(prop[1]))
    if values and not _closed(values[-1]):
        values.pop()
    return values


#: Characters of a value unescaped at a time (a list of pieces per chunk is all it holds).
_UNESCAPE_CHUNK = 1 << 16


def _unescaped(body: str) -> str:
    """`body` with its escapes resolved (a backslash and the character after it give that
    character; backslash-newline, a soft line break, gives nothing), with string methods and
    a chunk at a time: never a Python call, or a piece held, per escape. A chunk never ends
    inside an escape: one ending in an odd run of backslashes takes the next character too."""
    out = []
    i, n = 0, len(body)
    while i < n:
        j = min(i + _UNESCAPE_CHUNK, n)
        chunk = body[i:j]
        if (len(chunk) - len(chunk.rstrip("\\"))) % 2 and j < n:
            j += 1
            chunk = body[i:j]
        out.append(_unescaped_chunk(chunk))
        i = j
    return "".join(out)


def _unescaped_chunk(chunk: str) -> str:
    # An odd run of backslashes ending the chunk ends the value: its last one escapes nothing
    # and stays.
    lone = (len(chunk) - len(chunk.rstrip("\\"))) % 2 == 1
    if lone:
        chunk = chunk[:-1]
    # Escaped backslashes first (split takes them in pairs from the left, as escapes are read);
    # in what is left, every backslash escapes the character after it.
    pieces = [p.replace("\\\n", "").replace("\\", "") for p in chunk.split("\\\\")]
    return "\\".join(pieces) + ("\\" if lone else "")


def _value(raw: str, *, text: bool = False) -> str:
    """A property value as the spec reads it: escapes resolved, soft breaks removed, other white
    space a space (newlines kept for `text`, i.e. comments)."""
    body = raw[1:-1] if _closed(raw) else raw[1:]
    if "\\" in body:
        body = _unescaped(body)
    if text:
        return body.replace("\t", " ").replace("\v", " ").replace("\f", " ")
    if body.isprintable():
        return body
    return " ".join(body.split("\n")).replace("\t", " ").replace("\v", " ").replace("\f", " ")


def _name(tok: Token) -> str:
    name = str(tok)
    return name if name.isupper() and name.isalpha() else "".join(c for c in name if c.isupper())


def _span(prop: list[Token]) -> Span:
    first, last = prop[0], prop[1]
    length = (last.end_pos or 0) - (first.start_pos or 0)
    return Span(first.line or 0, first.column or 0, length)


def _raw_text(prop: list[Token]) -> str:
    return str(prop[0]) + str(prop[1])


# --- meaning layer -----------------------------------------------------------------------------


@dataclass(slots=True)
class _Header:
    """What the root node of one game tree says."""

    tree: _Tree
    nodes: list[_Node]
    root: dict[str, list[str]]  # raw values of the first property of each name
    root_spans: dict[str, list[Token]]  # that property's tokens
    root_order: list[tuple[str, list[str]]]
    players: tuple[str, str]
    length: int
    game: int | None
    score: tuple[int | None, int | None]
    rules: tuple[str, ...]


def _first(root: dict[str, list[str]], name: str) -> str | None:
    values = root.get(name)
    return _value(values[0]) if values else None


def _int(text: str) -> int | None:
    """`text` as a whole number; None for what is none, or too large to read (S017 where a
    record's own number is that large: see the callers)."""
    text = text.strip()
    return read_int(text) if _is_number(text) else None


def _is_number(text: str) -> bool:
    """Is `text` an optionally signed run of ASCII digits (what `read_bounded` reads)?"""
    digits = text[1:] if text[:1] in ("+", "-") else text
    return digits.isdigit() and digits.isascii()


def _value_at(prop: list[Token], index: int, part: str) -> tuple[int, int]:
    """Line and column of `part` inside the `index`-th raw value of a property."""
    tok = prop[1]
    raw = str(tok)
    pos = 0
    for i, v in enumerate(_split_values(raw)):
        at = raw.find(v, pos)
        if i == index:
            pos = max(at, 0) + max(v.find(part), 0)
            break
        pos = at + len(v)
    newlines = raw.count("\n", 0, pos)
    if newlines == 0:
        return tok.line or 0, (tok.column or 0) + pos
    return (tok.line or 0) + newlines, pos - raw.rfind("\n", 0, pos)


def _header(tree: _Tree, nodes: list[_Node], src: _Source, findings: list[Finding]) -> _Header:
    root: dict[str, list[str]] = {}
    spans: dict[str, list[Token]] = {}
    order: list[tuple[str, list[str]]] = []
    for prop in nodes[0].props:
        name = _name(prop[0])
        if not name or name in _ANALYSIS or name == "GS":
            continue
        values = _values(prop)
        if values:
            order.append((name, values))
            root.setdefault(name, values)
            spans.setdefault(name, prop)
    length = 0
    game: int | None = None
    ws: int | None = None
    bs: int | None = None
    for i, v in enumerate(root.get("MI", [])):
        key, _, val = _value(v).partition(":")
        val = val.strip()
        if not _is_number(val):
            continue
        n, too_large = read_bounded(val, f"MI {key.strip()}")
        if too_large is not None:
            line, column = _value_at(spans["MI"], i, val)
            findings.append(src.finding("S017", too_large, line, column))
        key = key.strip().lower()
        if key == "length":
            length = max(n, 0)
        elif key == "game":
            game = max(n, 0)
        elif key == "ws":
            ws = max(n, 0)
        elif key == "bs":
            bs = max(n, 0)
    rules: list[str] = []
    for v in root.get("RU", []):
        rules.extend(w.strip() for w in _value(v).split(":") if w.strip())
    players = (_first(root, "PW") or "", _first(root, "PB") or "")
    return _Header(tree, nodes, root, spans, order, players, length, game, (ws, bs), tuple(rules))


class _GameReader:
    """Builds one game's events from its main line; keeps the cube to value doubles."""

    def __init__(self, src: _Source, number: int) -> None:
        self.src = src
        self.number = number
        self.actions: list[Action] = []
        self.findings: list[Finding] = []
        self.analysis = 0
        #: The analysis read, each with what turning MWC into equity needs later, once the
        #: game's score is known: the cube and the side deciding.
        self.notes: list[_Analysed] = []
        self.cube = 1
        self.offered = 0  # value of the pending double or beaver, 0 when none is pending
        #: Gibbon's `resign:N` waiting for its answer: (side, points, text, span).
        self.offer: tuple[int, int, str, Span] | None = None
        #: (winner, points) of a resignation accepted in a move node (Gibbon's `accept`).
        self.accepted: tuple[int, int] | None = None

    def problem(self, message: str, span: Span, severity: Severity | None = None) -> None:
        self.findings.append(
            self.src.finding(
                "S011", message, span.line, span.column, severity=severity, game=self.number
            )
        )

    def read(self, header: _Header) -> Game:
        for node in header.nodes:
            self.node(node)
        self.result(header.root_spans.get("RE"), header.root_spans.get(RESULT))
        rules = header.rules
        if not self.actions:
            tok = header.tree.open
            self.findings.append(
                self.src.finding(
                    "S012", "game has no actions", tok.line or 0, tok.column or 0, game=self.number
                )
            )
        tok = header.tree.open
        return Game(
            number=self.number,
            score=(0, 0),  # filled in by the caller, which knows the running score
            actions=tuple(self.actions),
            span=Span(tok.line or 0, tok.column or 0),
            names=header.players,
            rules=rules,
        )

    def node(self, node: _Node) -> None:
        move: tuple[str, list[Token], list[str]] | None = None
        setup: list[tuple[str, list[Token], list[str]]] = []
        comments: list[tuple[list[Token], list[str]]] = []
        written: str | None = None
        marks: list[tuple[str, list[Token]]] | None = None
        for prop in node.props:
            name = str(prop[0])
            if name not in _ANALYSIS and not (name.isupper() and name.isalpha()):
                name = _name(prop[0])
            if name in _ANALYSIS:
                self.analysis += 1
                if name in _READ:
                    if marks is None:
                        marks = []
                    marks.append((name, prop))
                continue
            values = _values(prop)
            if not values:
                continue  # its value is missing or cut off (already reported)
            if name == "W" or name == "B":
                if move is None:
                    move = (name, prop, values)
                else:
                    self.problem(
                        f"second move {_raw_text(prop)!r} in one node ignored",
                        _span(prop),
                        Severity.WARNING,
                    )
            elif name in _SETUP:
                setup.append((name, prop, values))
            elif name == "C":
                comments.append((prop, values))
            elif name == WRITTEN:
                written = _value(values[0]).strip()
        if setup and not (written and move is None and self.hidden(setup, written)):
            self.setup(setup)
        side: int | None = None
        if move is not None:
            before, cube, offered = len(self.actions), self.cube, self.offered
            side = self.move(*move)
            if marks is not None and len(self.actions) > before:
                self.annotate(marks, self.actions[before], cube, offered)
        for prop, values in comments:
            text = "\n\n".join(_value(v, text=True) for v in values)
            self.actions.append(Comment(side, text, _span(prop)))

    def hidden(self, setup: list[tuple[str, list[Token], list[str]]], written: str) -> bool:
        """`;PL[W]DI[33]XW[???]` (bgparse's own `XW`): a roll whose play the record does not
        show, as written (`33: ???`). Anything else in the node: False, read as a set-up."""
        props = {name: values for name, _prop, values in setup}
        if set(props) != {"PL", "DI"} or len(setup) != 2:
            return False
        colour = _value(props["PL"][0]).strip()[:1].upper()
        dice = _value(props["DI"][0]).strip()
        if colour not in ("W", "B") or not (len(dice) == 2 and dice.isdigit() and dice.isascii()):
            return False
        span = _span(setup[0][1])
        side = 0 if colour == "W" else 1
        self.actions.append(HiddenPlay(side, (int(dice[0]), int(dice[1])), written, span))
        return True

    def move(self, name: str, prop: list[Token], values: list[str]) -> int:
        side = 0 if name == "W" else 1
        span = _span(prop)
        raw = _value(values[0]).strip()
        word = raw.lower()
        if word == "double":
            if self.offered:
                # A double while one is pending: the doubled side beavers (GNU allows several
                # in a row and exports each as `Beavers => N`).
                self.offered *= 2
                self.actions.append(Beaver(side, self.offered, span))
            else:
                self.offered = self.cube * 2
                self.actions.append(Double(side, self.offered, span))
        elif word == "take":
            if self.offered:
                self.cube, self.offered = self.offered, 0
            self.actions.append(Take(side, span))
        elif word == "drop":
            self.offered = 0
            self.actions.append(Drop(side, span))
        elif word.startswith("resign:") or word in ("accept", "reject"):
            digits = word[7:].strip()
            if word.startswith("resign:") and _is_number(digits) and _int(digits) is None:
                line, column = _value_at(prop, 0, digits)
                message = too_large_message("points", digits)
                self.findings.append(
                    self.src.finding("S017", message, line, column, game=self.number)
                )
                return side
            self.resignation(side, word, raw, span)
        else:
            m = _ROLL.fullmatch(raw)
            if m is None:
                self.problem(f"move {_raw_text(prop)!r} is neither dice nor a cube action", span)
                return side
            dice = (int(m.group(1)), int(m.group(2)))
            letters = m.group(3)
            if not _PAIRS.fullmatch(letters):
                self.problem(
                    f"move {_raw_text(prop)!r}: the points must be pairs of letters a-z", span
                )
                self.actions.append(HiddenPlay(side, dice, raw, span))
                return side
            moves = tuple(
                Move(
                    (_point(letters[i], side), _point(letters[i + 1], side)),
                    (False, False),
                )
                for i in range(0, len(letters), 2)
            )
            self.actions.append(Roll(side, dice, moves, span))
        return side

    def annotate(
        self, marks: list[tuple[str, list[Token]]], action: Action, cube: int, offered: int
    ) -> None:
        """The analysis of the node whose action is `action` (`cube` and `offered` as they
        were before it): `A` and `LU` on a roll, `DA` before a roll or on a double and its
        answer. A value that cannot be read is a warning (S011) and is left out; the move
        stands."""
        if isinstance(action, Roll):
            cands: tuple[Candidate, ...] = ()
            played: int | None = None
            level: str | None = None
            luck: float | None = None
            for name, prop in marks:
                try:
                    if name == "A":
                        played, cands, level = _candidates(_values(prop), action.side)
                    elif name == "LU":
                        luck = _luck(_values(prop))
                    else:
                        self.cube_note(prop, action, action.side, cube)
                except ValueError as e:
                    self.unread(prop, str(e))
            if cands or luck is not None:
                note = CheckerNote(
                    self.number,
                    action.span.line,
                    action.span.column,
                    action.side,
                    cands,
                    played,
                    level or "0-ply",
                    luck=luck,
                )
                self.notes.append(_Analysed(note, cube, action.side))
            return
        # A beaver, and the answer to one, GNU never analyses (analysis.c: only a normal
        # double's cube decision counts).
        normal = offered == 0 or offered == cube * 2
        if isinstance(action, Double) or (isinstance(action, Take | Drop) and normal):
            decider = action.side if isinstance(action, Double) else 1 - action.side
            for name, prop in marks:
                if name == "DA":
                    try:
                        self.cube_note(prop, action, decider, cube)
                    except ValueError as e:
                        self.unread(prop, str(e))

    def cube_note(
        self, prop: list[Token], action: Roll | Double | Take | Drop, side: int, cube: int
    ) -> None:
        values = _values(prop)
        if not values:
            raise ValueError("no value")
        nd, dt, level, probs = _cube_analysis(_value(values[0]))
        span = action.span
        note = CubeNote(self.number, span.line, span.column, side, nd, dt, 1.0, level, probs=probs)
        self.notes.append(_Analysed(note, cube, side))

    def unread(self, prop: list[Token], why: str) -> None:
        text = _raw_text(prop)
        shown = text if len(text) <= 60 else text[:57] + "..."
        self.problem(
            f"analysis {shown!r} not read ({why}); the move stands", _span(prop), Severity.WARNING
        )

    def resignation(self, side: int, word: str, raw: str, span: Span) -> None:
        """Gibbon's resignation moves (libgsgf): `resign:N` offers N points (the cube already
        counted), `accept` or `reject` answers it. An accepted offer is read as GNU reads a
        resignation: `Resign` at the level of the points over the cube (clamped to 1..3), then
        the win of those points."""
        if word.startswith("resign:"):
            n = _int(word[7:])
            if n is None or n < 0:
                self.problem(f"resignation {raw!r}: the points must be a number", span)
                return
            self.offer = (side, max(n, 1), raw, span)  # libgsgf reads 0 as 1
            return
        offer, self.offer = self.offer, None
        if offer is None or offer[0] == side:
            what = "no resignation offered" if offer is None else "the offer is its own"
            self.problem(f"{raw!r} ignored: {what}", span, Severity.WARNING)
            return
        if word == "reject":
            return
        offerer, points, text, offer_span = offer
        level = min(max(points // self.cube, 1), 3)
        self.actions.append(Resign(offerer, level, text, offer_span))
        self.actions.append(Win(side, points, False, span))
        self.accepted = (side, points)

    def setup(self, items: list[tuple[str, list[Token], list[str]]]) -> None:
        span = _span(items[0][1])
        cleared: set[int] | None = None
        added: tuple[list[int], list[int]] = ([], [])
        edits = False
        side_on_roll: int | None = None
        cube_value: int | None = None
        cube_owner: int | None = None
        dice: tuple[int, int] | None = None
        for name, prop, raw_values in items:
            values = [_value(v).strip() for v in raw_values]
            first = values[0]
            pspan = _span(prop)
            if name in ("AE", "AB", "AW"):
                edits = True
                points = self.point_list(values, prop)
                if name == "AE":
                    cleared = (cleared or set()) | set(points)
                else:
                    added[0 if name == "AW" else 1].extend(points)
            elif name == "PL":
                colour = first[:1].upper()
                if colour in ("W", "B"):
                    side_on_roll = 0 if colour == "W" else 1
                else:
                    self.problem(f"{_raw_text(prop)!r}: the player must be W or B", pspan)
            elif name == "DI":
                if len(first) == 2 and first.isdigit() and first.isascii():
                    dice = (int(first[0]), int(first[1]))
                else:
                    self.problem(f"{_raw_text(prop)!r}: dice must be two digits", pspan)
            elif name == "CV":
                n, too_large = read_bounded(first, "cube value") if _is_number(first) else (0, None)
                if too_large is not None:
                    # A cube is no use as 999,999,999: the doubles after it would pass int32.
                    line, column = _value_at(prop, 0, first)
                    message = too_large_message("cube value", first)
                    self.findings.append(
                        self.src.finding("S017", message, line, column, game=self.number)
                    )
                elif n > 0:
                    cube_value = n
                    self.cube, self.offered = n, 0
                else:
                    self.problem(f"{_raw_text(prop)!r}: the cube value must be a number", pspan)
            else:  # CP (GNU) or CO (the spec): the cube's owner
                owner = {"c": -1, "w": 0, "b": 1}.get(first[:1].lower())
                if owner is not None:
                    cube_owner = owner
                elif first[:1].lower() != "n":  # `n`: no cube; nothing to place
                    self.problem(f"{_raw_text(prop)!r}: the cube owner must be c, w or b", pspan)
        boards: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        if edits:
            if cleared is not None and cleared.issuperset(range(24)):
                boards = _boards(added)
            else:
                self.problem(
                    "board edit without AE clearing every point depends on the position "
                    "before it; ignored",
                    span,
                )
        text = "".join(_raw_text(prop) for _, prop, _ in items)
        self.actions.append(
            SetPosition(boards, side_on_roll, cube_value, cube_owner, dice, text, span)
        )

    def point_list(self, values: list[str], prop: list[Token]) -> list[int]:
        """Letter indexes (a = 0 ... y = 24) of a point list; `a:y` ranges are inclusive, `z`
        (borne off) places nothing."""
        out: list[int] = []
        for v in values:
            lo, sep, hi = v.partition(":")
            if not sep:
                hi = lo
            if (
                len(lo) != 1
                or len(hi) != 1
                or not ("a" <= lo <= "z")
                or not ("a" <= hi <= "z")
                or lo > hi
            ):
                self.problem(f"{_raw_text(prop)!r}: bad point {v!r}", _span(prop))
                continue
            out.extend(i for i in range(ord(lo) - 97, ord(hi) - 96) if i < 25)
        return out

    def result(self, prop: list[Token] | None, written: list[Token] | None = None) -> None:
        """RE: the winner and points (`R`: resigned). `written` is bgparse's own `XR`, the
        points the record wrote where RE gives what a resignation was worth (more than the
        winner needed to win the match): the `Win` keeps the record's points."""
        values = _values(prop) if prop is not None else []
        if prop is None or not values:
            return
        raw = _value(values[0]).strip()
        span = _span(prop)
        m = _RESULT.fullmatch(raw)
        if m is None:
            if raw.lower() not in _NO_RESULT:
                self.problem(f"{_raw_text(prop)!r}: result must read W+N or B+N", span)
            return
        winner = 0 if m.group(1).upper() == "W" else 1
        points: int | None = None
        if m.group(2):
            points, too_large = read_bounded(m.group(2), "points")
            if too_large is not None:
                line, column = _value_at(prop, 0, m.group(2))
                self.findings.append(
                    self.src.finding("S017", too_large, line, column, game=self.number)
                )
        if self.accepted is not None:
            # The game already ended with a resignation accepted in a move node: RE only
            # repeats it.
            if (winner, points) != self.accepted:
                w, p = self.accepted
                self.problem(
                    f"{_raw_text(prop)!r} disagrees with the resignation accepted in the game "
                    f"({_COLOURS[w]}+{p}); the accepted resignation stands",
                    span,
                    Severity.WARNING,
                )
            return
        resigned = m.group(3).strip()[:1].upper() == "R"
        if resigned:
            level = None
            if points is not None:
                # As GNU reads it: the resigned level is points over the cube, clamped to 1..3.
                level = min(max(points // self.cube, 1), 3)
            self.actions.append(Resign(1 - winner, level, raw, span))
        if points is not None:
            as_written = _int(_value(_values(written)[0])) if written and _values(written) else None
            if as_written is not None and as_written > 0:
                points = as_written
            self.actions.append(Win(winner, points, False, span))


def _point(letter: str, side: int) -> int:
    """A letter of White's absolute frame to the mover's own point number."""
    i = ord(letter) - 97
    if i == 24:
        return 25  # y: the bar
    if i >= 25:
        return 0  # z: off
    return i + 1 if side == 0 else 24 - i


def _boards(added: tuple[list[int], list[int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    white = [0] * 26
    black = [0] * 26
    for i in added[0]:
        white[25 if i == 24 else i + 1] += 1
    for i in added[1]:
        black[25 if i == 24 else 24 - i] += 1
    return tuple(white), tuple(black)


# --- analysis properties -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Analysed:
    """A note as the node gives it (a cube note's equities still MWC in match play), with the
    cube and the side deciding, which turning MWC into equity needs."""

    note: Note
    cube: int
    side: int


_PLIES = re.compile(r"([0-9]+)C?")


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text[:20]!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]!r} is not a finite number")
    return value


def _luck(values: list[str]) -> float | None:
    """`LU[x]`: the roll's luck, EMG, the roller's. GNU 1.08 writes `LU[-inf]` for a roll whose
    luck it did not analyse: no figure, and nothing wrong."""
    text = _value(values[0]).strip() if values else ""
    if text.lstrip("+-").lower() in ("inf", "infinity", "nan"):
        return None
    return _number(text)


def _numbers(tokens: Sequence[str]) -> list[float]:
    return [_number(t) for t in tokens]


def _letters_play(letters: str, side: int) -> str:
    """SGF letter pairs (GNU's: the mover's own frame, `y` bar, `z` off) as move text."""
    steps = []
    for i in range(0, len(letters), 2):
        a, b = _point(letters[i], side), _point(letters[i + 1], side)
        steps.append(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}")
    return " ".join(steps)


def _after(tokens: list[str], word: str, n: int) -> list[str]:
    """The `n` tokens after `word`."""
    if word not in tokens:
        raise ValueError(f"no {word!r}")
    i = tokens.index(word) + 1
    if len(tokens) < i + n:
        raise ValueError(f"cut off after {word!r}")
    return tokens[i : i + n]


def _candidates(values: list[str], side: int) -> tuple[int, tuple[Candidate, ...], str | None]:
    """`A[i][move E ver 3 w wg wbg lg lbg eq plies ...]...`: the index of the play made and the
    candidates, best first, each with its cubeful equity (EMG, the mover's) after the play."""
    if not values:
        raise ValueError("no value")
    index = _value(values[0]).strip()
    if not _is_number(index) or _int(index) is None or index.startswith("-"):
        raise ValueError("the index of the play made must be a number")
    played = int(index)
    cands: list[Candidate] = []
    level: str | None = None
    for raw in values[1:]:
        tokens = _value(raw).split()
        letters = ""
        if tokens and _PAIRS.fullmatch(tokens[0]) and tokens[0].islower():
            letters = tokens.pop(0)
        if not tokens:
            raise ValueError("a candidate without its evaluation")
        kind = tokens[0]
        if kind == "E":
            rest = tokens[3:] if tokens[1:2] == ["ver"] else tokens[1:]
            if len(rest) < 6:
                raise ValueError("a candidate's evaluation is cut off")
            nums = _numbers(rest[:6])
            probs = (nums[0], nums[1], nums[2], nums[3], nums[4])
            equity = nums[5]
            plies = _PLIES.fullmatch(rest[6]) if len(rest) > 6 else None
            here = f"{plies.group(1)}-ply" if plies else "eval"
        elif kind == "X":
            equity = _numbers(_after(tokens, "Score", 1))[0]
            out = _numbers(_after(tokens, "Output", 5))
            probs = (out[0], out[1], out[2], out[3], out[4])
            here = "rollout"
        else:
            raise ValueError(f"evaluation {kind[:10]!r} is not one bgparse reads")
        level = level or here
        cands.append(Candidate(_letters_play(letters, side), equity, probs))
    if played >= len(cands):
        raise ValueError(f"the play made is candidate {played}, of {len(cands)}")
    return played, tuple(cands), level


def _cube_analysis(text: str) -> tuple[float, float, str, tuple[float, float, float, float, float]]:
    """`DA[E ver 3 plies det noise prune` and 2 x 7 outputs`]` (or a rollout's `X ...`): the
    cubeful equities of no double and double/take (MWC in match play, EMG in money), the
    level, and the cubeless probabilities (the decider's)."""
    tokens = text.split()
    if not tokens:
        raise ValueError("no value")
    if tokens[0] == "E":
        if len(tokens) < 15:
            raise ValueError("the cube analysis is cut off")
        out = _numbers(tokens[-14:])
        nd, dt = out[6], out[13]
        start = 3 if tokens[1:2] == ["ver"] else 1
        plies = next((m for t in tokens[start:-14] if (m := _PLIES.fullmatch(t))), None)
        level = f"{plies.group(1)}-ply" if plies else "eval"
    elif tokens[0] == "X":
        out = _numbers(_after(tokens, "Output", 7))
        nd = out[6]
        rest = tokens[tokens.index("DoubleTake") :] if "DoubleTake" in tokens else []
        dt = _numbers(_after(rest, "Output", 7))[6] if rest else math.nan
        if not rest:
            raise ValueError("no 'DoubleTake' outputs")
        level = "rollout"
    else:
        raise ValueError(f"evaluation {tokens[0][:10]!r} is not one bgparse reads")
    return nd, dt, level, (out[0], out[1], out[2], out[3], out[4])


def _finish(analysed: _Analysed, length: int, score: tuple[int, int]) -> Note:
    """The note in the model's units: in match play GNU stores the cube analysis as MWC, which
    becomes equity normalised to the cube (GNU's `mwc2eq`, at the game's score and the cube of
    the decision); each roll's luck and the play's error are also given in MWC. Raises
    ValueError where the score is beyond the match equity table."""
    note = analysed.note
    if length <= 0:
        return note
    cube, side = analysed.cube, analysed.side
    if isinstance(note, CubeNote):
        return replace(
            note,
            no_double=mwc_to_emg(note.no_double, length, score, cube, side),
            double_take=mwc_to_emg(note.double_take, length, score, cube, side),
        )
    # eq2mwc(x) - eq2mwc(0): half the spread of winning and losing the cube's points. Beyond
    # the table the roll's note stands, in equity only.
    try:
        half = 0.5 * (
            match_equity(length, score, side, cube, side)
            - match_equity(length, score, side, cube, 1 - side)
        )
    except ValueError:
        return note
    luck_mwc = note.luck * half if note.luck is not None else None
    error_mwc = None
    cands = note.candidates
    if note.played is not None and cands:
        error_mwc = max(0.0, cands[0].equity - cands[note.played].equity) * half
    return replace(note, luck_mwc=luck_mwc, error_mwc=error_mwc)


# --- grouping and the public entry point -------------------------------------------------------


def _decode(data: bytes, path: str) -> tuple[str, list[Finding]]:
    if not data.strip():
        raise SyntaxRecordError(Finding.make("S001", "file is empty"), path)
    if len(data) > MAX_SGF_BYTES:
        raise SyntaxRecordError(
            Finding.make("S015", f"file is larger than {MAX_SGF_BYTES} bytes"), path
        )
    if looks_binary(data):
        raise SyntaxRecordError(
            Finding.make("S002", "file is binary, not a text match record"), path
        )
    decoded = decode_bytes(data)
    if not decoded.fallback:
        return decoded.text, []
    # Not UTF-8 (a mislabelled UTF-8 file is read as UTF-8 whatever CA says): the charset the
    # file declares, if Python knows it as a text encoding, else decode's Windows-1252.
    m = _CHARSET.search(data[:8192])
    if m is not None:
        charset = m.group(1).decode("ascii", "replace").strip()
        try:
            # Only a charset that reads the SGF syntax itself as ASCII can be the right one.
            usable = (
                codecs.lookup(charset).name != "utf-8"  # it is not: decode's cp1252 fallback
                and b"(;FF[4])".decode(charset) == "(;FF[4])"
            )
        except (LookupError, UnicodeError):  # unknown, or not a text encoding (`hex`)
            usable = False
        if usable:
            text = data.decode(charset, errors="replace")
            return text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff"), []
    return decoded.text, [
        Finding.make("S009", "text could not be decoded as UTF-8; read as Windows-1252")
    ]


def _main_lines(items: Sequence[object], src: _Source) -> tuple[list[_Header], list[Finding]]:
    """Every game tree of the collection with its main line, in file order."""
    findings: list[Finding] = []
    headers: list[_Header] = []
    junk_open = False
    pending: deque[_Tree] = deque()
    for item in items:
        if isinstance(item, _Junk):
            if not junk_open:
                tok = item.token
                findings.append(
                    src.finding(
                        "S013",
                        f"text outside any game tree ignored ({_describe(tok)})",
                        tok.line or 0,
                        tok.column or 0,
                    )
                )
            junk_open = True
            continue
        junk_open = False
        if isinstance(item, _Tree):
            pending.append(item)
    # Worklist instead of recursion: a hostile file can nest variations thousands deep.
    while pending:
        tree = pending.popleft()
        nodes = list(tree.nodes)
        cur = tree
        while True:
            main: _Tree | None = None
            for kid in cur.children:
                if _is_root(kid):
                    tok = kid.open
                    findings.append(
                        src.finding(
                            "S010",
                            "a game tree starts inside another: ')' missing before it",
                            tok.line or 0,
                            tok.column or 0,
                        )
                    )
                    pending.append(kid)
                elif main is None:
                    main = kid
            if main is None:
                break
            nodes.extend(main.nodes)
            cur = main
        headers.append(_header(tree, nodes, src, findings))
    headers.sort(key=lambda h: h.tree.open.start_pos or 0)
    return headers, findings


def _is_root(tree: _Tree) -> bool:
    return any(_name(p[0]) in ("FF", "GM") for p in tree.nodes[0].props)


def _dialect(app: str | None, annotator: str | None) -> str:
    if app is None:
        return "sgf"
    low = app.lower()
    if low.startswith("gnu backgammon"):
        return "gnubg-sgf"
    if low.startswith("bgparse:"):
        # bgparse's writer: RU as GNU writes it; `bgparse generate` names itself in AN.
        generated = (annotator or "").strip().lower() == GENERATOR
        return GENERATED if generated else "bgparse-sgf"
    if "backgammonhub" in low:
        return "backgammonhub-sgf"
    if "gibbon" in low:
        return "gibbon-sgf"
    return "sgf"


def _iso_date(text: str | None) -> str | None:
    if text is None:
        return None
    m = _DATE.match(text.strip())
    if m is None:
        return text
    y, mo, d = (int(g) for g in m.groups())
    return f"{y:04d}-{mo:02d}-{d:02d}" if 1 <= mo <= 12 and 1 <= d <= 31 else text


def _rating(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    # `inf`, `nan` and numbers too large to store (reported, S017) are no rating.
    return value if math.isfinite(value) and abs(value) <= MAX_NUMBER else None


def _group(headers: list[_Header]) -> list[list[_Header]]:
    groups: list[list[_Header]] = []
    for h in headers:
        if groups:
            prev = groups[-1][-1]
            first = groups[-1][0]
            same = (
                h.players == first.players
                and h.length == first.length
                and not (h.game is not None and prev.game is not None and h.game <= prev.game)
            )
            if same:
                groups[-1].append(h)
                continue
        groups.append([h])
    return groups


def _match(
    group: list[_Header], src: _Source, path: str, index: int
) -> tuple[MatchRecord, list[Finding]]:
    first = group[0]
    offset = 1 if first.game == 0 else 0
    games: list[Game] = []
    findings: list[Finding] = []
    analysis: list[str] = []
    notes: list[Note] = []
    running = [first.score[0] or 0, first.score[1] or 0]
    number = 0
    for h in group:
        number = h.game + offset if h.game is not None else number + 1
        reader = _GameReader(src, number)
        game = reader.read(h)
        ws, bs = h.score
        score = (ws if ws is not None else running[0], bs if bs is not None else running[1])
        games.append(replace(game, score=score))
        findings.extend(reader.findings)
        analysis.append(str(reader.analysis))
        for analysed in reader.notes:
            try:
                notes.append(_finish(analysed, first.length, score))
            except ValueError as e:
                noted = analysed.note
                findings.append(
                    src.finding(
                        "S011",
                        f"analysis not read: {e}",
                        noted.line,
                        noted.column,
                        severity=Severity.WARNING,
                        game=number,
                    )
                )
        running = list(score)
        for a in game.actions:
            if isinstance(a, Win):
                running[a.side] += a.points
    root = first.root
    tags: list[tuple[str, str]] = []
    mat_tags: list[tuple[str, str]] = []
    for name, values in first.root_order:
        if name != MAT_TAGS:
            tags.append((name, "][".join(_value(v) for v in values)))
            continue
        for v in values:
            tag = split_mat_tag_value(v[1:-1] if _closed(v) else v[1:])
            if tag is None:
                where = _span(first.root_spans[name])
                findings.append(
                    src.finding(
                        "S011",
                        f"{name}[{_value(v)}] ignored: a .mat tag must read Key:Value",
                        where.line,
                        where.column,
                        severity=Severity.WARNING,
                    )
                )
                continue
            mat_tags.append(tag)
            tags.append((MAT_TAG_PREFIX + tag[0], tag[1]))
    tags.append(("analysis_props", " ".join(analysis)))
    words = {w for h in group for w in h.rules}
    dialect = _dialect(_first(root, "AP"), _first(root, "AN"))
    gnu = dialect in _RU_COMPLETE
    variation = next((w for w in _VARIANTS if w in words), "Standard" if gnu else None)
    ratings = (_rating(_first(root, "WR")), _rating(_first(root, "BR")))
    if mat_tags:
        # bgparse wrote this from a `.mat` file: its tags say what the match information was.
        info = info_from_tags(mat_tags, ratings)
    else:
        info = MatchInfo(
            site=_first(root, "PC"),
            event=_first(root, "EV"),
            round=_first(root, "RO"),
            event_date=_iso_date(_first(root, "DT")),
            player1=first.players[0],
            player2=first.players[1],
            variation=variation,
            crawford=True if "Crawford" in words else (False if gnu else None),
            jacoby=True if "Jacoby" in words else (False if gnu else None),
            cube_limit=1 if "NoCube" in words else None,
            transcriber=_first(root, "AN"),
            ratings=ratings,
        )
    gc = root.get("GC")
    comment = _value(gc[0], text=True) if gc else None  # its lines are the `.mat` comment lines
    for name in ("WR", "BR"):
        prop = first.root_spans.get(name)
        whole = (_first(root, name) or "").split(".", 1)[0]  # the decimals may run long
        big = find_too_large(whole) if prop is not None else None
        if prop is not None and big is not None:
            line, column = _value_at(prop, 0, big.group())
            message = too_large_message("rating", big.group())
            findings.append(src.finding("S017", message, line, column))
    tok = first.tree.open
    record = MatchRecord(
        path=path,
        format="sgf",
        players=first.players,
        length=first.length,
        games=tuple(games),
        tags=tuple(tags),
        info=info,
        dialect=dialect,
        comments=(comment,) if comment else (),
        span=Span(tok.line or 0, tok.column or 0),
        index=index,
        hit_marks=False,  # SGF moves never mark hits
        analysis=tuple(notes),
        analysis_source=SGF_ANALYSIS if notes else None,
    )
    return record, findings


def iter_sgf_matches(text_or_bytes: str | bytes, path: str = "<input>") -> Iterator[MatchRecord]:
    """Read an SGF collection: one `MatchRecord` per match it holds (normally one per file).

    Syntax errors and unreadable values become findings in the record's `errors` and reading
    goes on. Raises `SyntaxRecordError` (a `RecordError`) when nothing can be read: an empty,
    binary or oversized input, no game tree at all, or no backgammon (`GM[6]`) game tree.
    """
    file_findings: list[Finding] = []
    if isinstance(text_or_bytes, bytes):
        text, file_findings = _decode(text_or_bytes, path)
    else:
        text = text_or_bytes.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
        if not text.strip():
            raise SyntaxRecordError(Finding.make("S001", "file is empty"), path)
        if len(text) > MAX_SGF_BYTES:
            raise SyntaxRecordError(
                Finding.make("S015", f"file is larger than {MAX_SGF_BYTES} characters"), path
            )
    src = _Source(text)
    items, syntax = _parse_collection(src)
    headers, structure = _main_lines(items, src)
    findings = file_findings + syntax + structure
    games: list[_Header] = []
    for h in headers:
        gm = _first(h.root, "GM")
        if gm is not None and gm.strip() == "6":
            games.append(h)
            continue
        tok = h.tree.open
        what = f"GM[{gm}]" if gm is not None else "no GM property"
        findings.append(
            src.finding(
                "S013",
                f"game tree that is not backgammon ({what}) ignored",
                tok.line or 0,
                tok.column or 0,
            )
        )
    if not games:
        errors = [f for f in findings if f.severity is Severity.ERROR]
        if errors:
            raise SyntaxRecordError(errors[0], path)
        message = (
            "no backgammon game tree (GM[6]) in the SGF file"
            if headers
            else "no SGF game tree in the file"
        )
        raise SyntaxRecordError(Finding.make("S003", message, 1, 1), path)
    groups = _group(games)
    records: list[tuple[MatchRecord, list[Finding]]] = [
        _match(g, src, path, i) for i, g in enumerate(groups)
    ]
    # Syntax findings go to the match whose trees they fall in (those before any tree go to the
    # first match).
    starts = [(g[0].tree.open.line or 0, g[0].tree.open.column or 0) for g in groups]
    for f in findings:
        # The last match starting at or before the finding (bisect: a collection of thousands
        # of matches with thousands of findings made the plain loop quadratic).
        k = max(bisect.bisect_right(starts, (f.line, f.column)) - 1, 0)
        records[k][1].append(f)
    for record, errs in records:
        errs.sort(key=lambda f: (f.line, f.column))
        yield replace(record, errors=tuple(errs))
