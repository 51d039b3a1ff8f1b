"""Checker play: every distinct legal play of a roll, and the check of a play as recorded.

`legal_plays` follows the scheme GNU Backgammon's generator uses (depth-first over single-die
steps, both die orders for a mixed roll, non-increasing sources for doubles, keep the leaves with
the most dice and then the most pips, merge leaves by resulting position), with fast paths for
the common cases that reach the same set without the search. `verify_play` resolves a play as
written (merged moves, repeat counts, steps in any order) into single-die steps and decides
whether it is legal, generating the legal set only when the play uses fewer dice than rolled.

Internally a result is one int: the mover's 26 counts as bytes (little-endian, byte p = point
p) plus one bit per hit blot above bit 208. It is cheap to build step by step and identifies
the final position including which blots were hit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Final, NamedTuple, Protocol, runtime_checkable

from bgparse.rules.position import BAR, OFF, Position, PositionError
from bgparse.rules.wording import plural

__all__ = [
    "REASONS",
    "DiceError",
    "LegalPlays",
    "MoveLike",
    "Play",
    "PlayCheck",
    "PlayError",
    "Step",
    "WrittenMove",
    "WrittenPlay",
    "format_play",
    "legal_plays",
    "parse_play",
    "verify_play",
]


class DiceError(ValueError):
    """Dice that are not two ints 1-6."""


class PlayError(ValueError):
    """A play given in a shape verify_play cannot read (not an illegal play: see PlayCheck)."""


class Step(NamedTuple):
    """One die's step in the mover's numbering (25 = bar, 0 = off); `hit` if it hit a blot."""

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        src = "bar" if self.src == BAR else str(self.src)
        dst = "off" if self.dst == OFF else str(self.dst)
        return f"{src}/{dst}{'*' if self.hit else ''}"


# Builds tuples (and NamedTuples) without the Python-level __new__: they are made per play.
_new = tuple.__new__


@runtime_checkable
class MoveLike(Protocol):
    """A written move group as the readers produce it (bgparse.events.Move has this shape):
    `points` such as (13, 7, 4) (25 = bar, 0 = off), one hit star flag per point, and the
    repeat count of `(n)`."""

    @property
    def points(self) -> tuple[int, ...]: ...

    @property
    def hits(self) -> tuple[bool, ...]: ...

    @property
    def count(self) -> int: ...


#: Stable reason codes of an illegal play, with what each means.
REASONS: Final[dict[str, str]] = {
    "dice-invalid": "a die is not 1-6",
    "bad-point": "a point number out of range, or a move that does not go forward",
    "too-many-steps": "more steps written than the dice allow",
    "wrong-dice": "the distances written do not fit the dice rolled",
    "no-checker": "a move starts where the mover has no checker",
    "bar-not-cleared": "a checker moved while the mover still had one on the bar",
    "blocked-point": "a move lands on a point held by two or more opposing checkers",
    "bear-off-not-home": "bearing off while a checker is outside the home board",
    "bear-off-not-highest": "bearing off with a larger die from below the highest point",
    "fewer-dice-than-possible": "a play using fewer dice than a legal play would",
    "higher-die-not-played": "only one die can be played and the smaller one was played",
    "missing-play": "no play written although a legal play exists",
}

# --- result keys ----------------------------------------------------------------------------

_HIT_SHIFT: Final = 208
#: _W[p] adds one checker on point p to a key; off (index 0) is implicit and adds nothing.
_W: Final = (0, *(1 << (8 * p) for p in range(1, 26)))
_H: Final = tuple(1 << (_HIT_SHIFT + p) for p in range(26))

_Raw = tuple[tuple[int, ...], ...]  # steps of one play; each starts (src, dst, ...)


def _base_key(mover: tuple[int, ...]) -> int:
    try:
        return int.from_bytes(bytes(mover), "little")
    except ValueError:
        raise PositionError(f"counts out of range 0-255 in {mover!r}") from None


class _Gen(NamedTuple):
    plays: dict[int, _Raw]  # result key -> one canonical play (raw steps)
    dice: int  # dice each legal play uses
    pips: int  # pips of the dice used


_DANCE: Final = _Gen({}, 0, 0)


def _generate(mover: tuple[int, ...], opponent: tuple[int, ...], d1: int, d2: int) -> _Gen:
    """Distinct legal results of (d1, d2) for `mover` on roll; {} when nothing can move."""
    o = opponent[::-1]  # o[p]: opposing checkers on the mover's point p
    bar = mover[BAR]
    if d1 != d2:
        if bar >= 2:
            return _mixed_two_on_bar(mover, o, d1, d2)
        if not bar and sum(mover[7:]) >= 2:
            return _mixed_fast(mover, o, max(d1, d2), min(d1, d2))
    elif not bar and sum(mover[7:]) >= 4:
        return _doubles_fast(mover, o, d1)
    return _generate_general(mover, opponent, d1, d2)


def _mixed_two_on_bar(mover: tuple[int, ...], o: tuple[int, ...], d1: int, d2: int) -> _Gen:
    # With two or more on the bar each die can only enter a checker.
    hi, lo = max(d1, d2), min(d1, d2)
    base = _base_key(mover) - _W[BAR]
    th, tl = 25 - hi, 25 - lo
    ok_hi, ok_lo = o[th] < 2, o[tl] < 2
    if ok_hi and ok_lo:
        key = base - _W[BAR] + _W[th] + _W[tl]
        key += (_H[th] if o[th] == 1 else 0) + (_H[tl] if o[tl] == 1 else 0)
        return _Gen({key: ((BAR, th), (BAR, tl))}, 2, hi + lo)
    if ok_hi:
        return _Gen({base + _W[th] + (_H[th] if o[th] == 1 else 0): ((BAR, th),)}, 1, hi)
    if ok_lo:
        return _Gen({base + _W[tl] + (_H[tl] if o[tl] == 1 else 0): ((BAR, tl),)}, 1, lo)
    return _DANCE


def _mixed_fast(mover: tuple[int, ...], o: tuple[int, ...], hi: int, lo: int) -> _Gen:
    """Mixed roll, nothing on the bar, at least two checkers outside home (so no bear-off).

    Blocking is then static: every two-dice play is one step with each die by different
    checkers (either order gives the same position) or one checker using both; a checker
    continuing onto a point the mover already holds equals moving the checker already there,
    so only continuations from an empty landing need listing.
    """
    base = _base_key(mover)
    W, H = _W, _H
    steps_hi: list[tuple[int, int, int, int]] = []
    steps_lo: list[tuple[int, int, int, int]] = []
    for s in range(24, 0, -1):
        if mover[s]:
            t = s - hi
            if t > 0 and o[t] < 2:
                steps_hi.append((s, t, W[t] - W[s], H[t] if o[t] else 0))
            t = s - lo
            if t > 0 and o[t] < 2:
                steps_lo.append((s, t, W[t] - W[s], H[t] if o[t] else 0))
    res: dict[int, _Raw] = {}
    for a in steps_hi:
        sa, ta, da, ha = a
        single = mover[sa] == 1
        for b in steps_lo:
            if single and b[0] == sa:
                continue
            key = base + da + b[2] + (ha | b[3])
            if key not in res:
                res[key] = (a, b)
        if not mover[ta]:
            t = ta - lo
            if t > 0 and o[t] < 2:
                key = base + da + W[t] - W[ta] + (ha | (H[t] if o[t] else 0))
                if key not in res:
                    res[key] = (a, (ta, t))
    for b in steps_lo:
        _, tb, db, hb = b
        if not mover[tb]:
            t = tb - hi
            if t > 0 and o[t] < 2:
                key = base + db + W[t] - W[tb] + (hb | (H[t] if o[t] else 0))
                if key not in res:
                    res[key] = (b, (tb, t))
    if res:
        return _Gen(res, 2, hi + lo)
    if steps_hi:
        return _Gen({base + a[2] + a[3]: (a,) for a in steps_hi}, 1, hi)
    if steps_lo:
        return _Gen({base + b[2] + b[3]: (b,) for b in steps_lo}, 1, lo)
    return _DANCE


def _doubles_fast(mover: tuple[int, ...], o: tuple[int, ...], d: int) -> _Gen:
    """Doubles, nothing on the bar, at least four checkers outside home (so no bear-off).

    Blocking is static, so the points a checker can step from never change; search the
    sequences with non-increasing sources, four levels unrolled.
    """
    W, H = _W, _H
    mv = list(mover)
    base = _base_key(mover)
    # (src, dst, key delta, hit bit) for every point a step of d can start from.
    cand = [
        (s, s - d, W[s - d] - W[s], H[s - d] if o[s - d] == 1 else 0)
        for s in range(24, d, -1)
        if o[s - d] < 2
    ]
    n = len(cand)
    res4: dict[int, _Raw] = {}
    res3: dict[int, _Raw] = {}
    res2: dict[int, _Raw] = {}
    res1: dict[int, _Raw] = {}
    for i1 in range(n):
        c1 = cand[i1]
        s1, t1 = c1[0], c1[1]
        if not mv[s1]:
            continue
        mv[s1] -= 1
        mv[t1] += 1
        k1 = base + c1[2]
        h1 = c1[3]
        more1 = False
        for i2 in range(i1, n):
            c2 = cand[i2]
            s2, t2 = c2[0], c2[1]
            if not mv[s2]:
                continue
            more1 = True
            mv[s2] -= 1
            mv[t2] += 1
            k2 = k1 + c2[2]
            h2 = h1 | c2[3]
            more2 = False
            for i3 in range(i2, n):
                c3 = cand[i3]
                s3, t3 = c3[0], c3[1]
                if not mv[s3]:
                    continue
                more2 = True
                mv[s3] -= 1
                mv[t3] += 1
                k3 = k2 + c3[2]
                h3 = h2 | c3[3]
                more3 = False
                for i4 in range(i3, n):
                    c4 = cand[i4]
                    if not mv[c4[0]]:
                        continue
                    more3 = True
                    key = k3 + c4[2] + (h3 | c4[3])
                    if key not in res4:
                        res4[key] = (c1, c2, c3, c4)
                if not more3 and not res4:
                    key = k3 + h3
                    if key not in res3:
                        res3[key] = (c1, c2, c3)
                mv[s3] += 1
                mv[t3] -= 1
            if not more2 and not res4 and not res3:
                key = k2 + h2
                if key not in res2:
                    res2[key] = (c1, c2)
            mv[s2] += 1
            mv[t2] -= 1
        if not more1 and not (res4 or res3 or res2):
            key = k1 + h1
            if key not in res1:
                res1[key] = (c1,)
        mv[s1] += 1
        mv[t1] -= 1
    if res4:
        return _Gen(res4, 4, 4 * d)
    if res3:
        return _Gen(res3, 3, 3 * d)
    if res2:
        return _Gen(res2, 2, 2 * d)
    if res1:
        return _Gen(res1, 1, d)
    return _DANCE


def _generate_general(mover: tuple[int, ...], opponent: tuple[int, ...], d1: int, d2: int) -> _Gen:
    """The plain search every case can use (and the reference the fast paths are tested by)."""
    mv = list(mover)
    o = list(opponent[::-1])
    doubles = d1 == d2
    orders = ((d1,) * 4,) if doubles else ((d1, d2), (d2, d1))
    res: dict[int, _Raw] = {}
    best = [0, 0]  # dice used, pips used by the plays kept in res
    trail: list[tuple[int, int]] = []

    def leaf(key: int, used: int, pips: int) -> None:
        if used < best[0] or (used == best[0] and pips < best[1]):
            return
        if used > best[0] or pips > best[1]:
            res.clear()
            best[0], best[1] = used, pips
        if key not in res:
            res[key] = tuple(trail)

    def search(dice: tuple[int, ...], i: int, top: int, key: int, pips: int) -> None:
        d = dice[i]
        moved = False
        sources: Iterable[int] = (BAR,) if mv[BAR] else range(min(top, 24), 0, -1)
        for s in sources:
            if not mv[s]:
                continue
            t = s - d
            if t > 0:
                if o[t] >= 2:
                    continue
            else:
                if any(mv[7:]):
                    continue
                if t < 0 and any(mv[s + 1 : 7]):
                    continue
                t = OFF
            hit = t > 0 and o[t] == 1
            moved = True
            mv[s] -= 1
            if t:
                mv[t] += 1
            if hit:
                o[t] = 0
            trail.append((s, t))
            nkey = key + _W[t] - _W[s] + (_H[t] if hit else 0)
            if i + 1 < len(dice):
                search(dice, i + 1, s if doubles else BAR, nkey, pips + d)
            else:
                leaf(nkey, i + 1, pips + d)
            trail.pop()
            if hit:
                o[t] = 1
            if t:
                mv[t] -= 1
            mv[s] += 1
        if not moved:
            leaf(key, i, pips)

    base = _base_key(mover)
    for dice in orders:
        search(dice, 0, BAR, base, 0)
    if best[0] == 0:
        return _DANCE
    return _Gen(res, best[0], best[1])


# --- results --------------------------------------------------------------------------------


def _after(position: Position, key: int) -> Position:
    """The position after the play `key`, with the other side on roll."""
    board = tuple(key.to_bytes(34, "little")[:26])
    hits = key >> _HIT_SHIFT
    opponent = position.opponent
    if hits:
        lst = list(opponent)
        while hits:
            low = hits & -hits
            t = low.bit_length() - 1
            lst[25 - t] -= 1
            lst[BAR] += 1
            hits ^= low
        opponent = tuple(lst)
    return Position._make(opponent, board, position.checkers)


def _steps(position: Position, raw: _Raw) -> tuple[Step, ...]:
    # Hit flags are worked out here, in play order, rather than stored by the generator: a
    # blot is hit by the first step landing on it.
    o = position.opponent
    out = []
    taken = 0
    for st in raw:
        s, t = st[0], st[1]
        hit = t > 0 and o[25 - t] == 1 and not (taken >> t) & 1
        if hit:
            taken |= 1 << t
        out.append(_new(Step, (s, t, hit)))
    return tuple(out)


def _key_of(position: Position, after: Position) -> int | None:
    """The result key of `after` as a result of a play from `position`, if it can be one."""
    if after.checkers != position.checkers:
        return None
    key = _base_key(after.opponent)
    before, now = position.opponent, after.mover
    hits = 0
    for p in range(1, 25):
        if before[p] != now[p]:
            if before[p] == 1 and now[p] == 0:
                key |= _H[25 - p]
                hits += 1
            else:
                return None
    if now[BAR] != before[BAR] + hits or now[0] != before[0]:
        return None
    return key


@dataclass(frozen=True, slots=True)
class Play:
    """One legal play: its canonical single-die steps and the position after it.

    `after` has the other side on roll (as GNU's generator returns it); `after.swap()` is the
    board with the same side still on roll."""

    steps: tuple[Step, ...]
    after: Position

    @property
    def notation(self) -> str:
        return format_play(self.steps)

    @property
    def dice_used(self) -> int:
        return len(self.steps)

    def __str__(self) -> str:
        return self.notation


_set = object.__setattr__


def _play(steps: tuple[Step, ...], after: Position) -> Play:
    # The frozen dataclass __init__ costs more than building the play itself.
    play = object.__new__(Play)
    _set(play, "steps", steps)
    _set(play, "after", after)
    return play


class LegalPlays:
    """The distinct legal plays of one roll: sized, iterable, indexable, and `in` works with a
    resulting position (`after`, other side on roll) or a Play. A roll that cannot be played
    holds exactly one play, the empty one. Plays are built lazily from the generator's keys.

    (Not a typing Sequence on purpose: `position in plays` must type-check.)"""

    __slots__ = ("_gen", "_keys", "_plays", "dice", "position")

    def __init__(self, position: Position, dice: tuple[int, int], gen: _Gen) -> None:
        self.position = position
        self.dice = dice
        self._gen = gen
        self._plays: list[Play] | None = None
        self._keys: dict[int, int] | None = None

    def __len__(self) -> int:
        return len(self._gen.plays) or 1

    def _all(self) -> list[Play]:
        if self._plays is None:
            pos = self.position
            if self._gen.plays:
                self._plays = [
                    _play(_steps(pos, raw), _after(pos, key))
                    for key, raw in self._gen.plays.items()
                ]
            else:
                self._plays = [Play((), pos.swap())]
        return self._plays

    def __iter__(self) -> Iterator[Play]:
        return iter(self._all())

    def __getitem__(self, index: int) -> Play:
        plays = self._gen.plays
        if self._plays is None and plays and 0 <= index < len(plays):
            # One play (a message's example) without building all of them.
            key, raw = next(islice(plays.items(), index, None))
            return _play(_steps(self.position, raw), _after(self.position, key))
        return self._all()[index]

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Play):
            item = item.after
        if not isinstance(item, Position):
            return False
        if not self._gen.plays:
            return item == self.position.swap()
        key = _key_of(self.position, item)
        return key is not None and key in self._gen.plays

    def index_of(self, after: Position) -> int | None:
        """Index of the play leading to `after`, or None."""
        if self._keys is None:
            self._keys = {k: i for i, k in enumerate(self._gen.plays)}
        if not self._gen.plays:
            return 0 if after == self.position.swap() else None
        key = _key_of(self.position, after)
        return None if key is None else self._keys.get(key)

    @property
    def dice_used(self) -> int:
        """How many dice every legal play uses (0 when the roll cannot be played)."""
        return self._gen.dice

    @property
    def pips_used(self) -> int:
        """The total of the dice every legal play uses (the higher die when only one can)."""
        return self._gen.pips

    @property
    def forced(self) -> bool:
        """Only one legal result (including 'no move')."""
        return len(self) == 1

    def positions(self) -> frozenset[Position]:
        return frozenset(play.after for play in self._all())

    def __repr__(self) -> str:
        return f"<LegalPlays {self.dice[0]}-{self.dice[1]}: {len(self)} plays>"


def _check_dice(dice: Sequence[int]) -> tuple[int, int]:
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise DiceError(f"dice must be two ints, got {dice!r}") from None
    if not (type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise DiceError(f"dice must be two ints 1-6, got {dice!r}")
    return d1, d2


def legal_plays(position: Position, dice: Sequence[int]) -> LegalPlays:
    """Every distinct legal play of `dice` from `position` (see LegalPlays)."""
    d1, d2 = _check_dice(dice)
    if not position._checked:
        position.ensure_valid()
    return LegalPlays(position, (d1, d2), _generate(position.mover, position.opponent, d1, d2))


# --- notation -------------------------------------------------------------------------------


def format_play(steps: Iterable[tuple[int, int, bool]]) -> str:
    """Standard notation: a checker's steps merged unless it hit on the way (`13/10*/4`),
    bar/off spelled out, repeats as `(n)`, highest source first; '' for no move."""
    chains: list[list[tuple[int, bool]]] = []
    for src, dst, hit in steps:
        for chain in reversed(chains):
            if chain[-1][0] == src and src != OFF:
                chain.append((dst, hit))
                break
        else:
            chains.append([(src, False), (dst, hit)])
    texts: list[tuple[int, int, str]] = []
    for chain in chains:
        parts = ["bar" if chain[0][0] == BAR else str(chain[0][0])]
        last = len(chain) - 1
        for i, (point, hit) in enumerate(chain[1:], start=1):
            if i < last and not hit:
                continue
            parts.append(("off" if point == OFF else str(point)) + ("*" if hit else ""))
        texts.append((chain[0][0], chain[-1][0], "/".join(parts)))
    texts.sort(key=lambda item: (-item[0], -item[1]))
    out: list[str] = []
    i = 0
    while i < len(texts):
        j = i
        while j + 1 < len(texts) and texts[j + 1][2] == texts[i][2]:
            j += 1
        out.append(texts[i][2] + (f"({j - i + 1})" if j > i else ""))
        i = j + 1
    return " ".join(out)


_TOKEN = re.compile(
    r"^(?P<chain>(?:bar|off|\d+)\*?(?:/(?:bar|off|\d+)\*?)+)"
    r"(?P<star>\*)?(?:\((?P<count>\d+)\))?(?P<star2>\*)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class WrittenMove:
    """One move group read by parse_play (the same shape as bgparse.events.Move)."""

    points: tuple[int, ...]
    hits: tuple[bool, ...]
    count: int = 1


def parse_play(text: str) -> tuple[WrittenMove, ...]:
    """Read standard notation (`24/18 13/10*/4`, `bar/22`, `6/off(2)`, `8/4*(2)`, `25/20 6/0`)
    into move groups with `points`, `hits` and `count`; '' is the empty play."""
    groups = []
    for token in text.replace(",", " ").split():
        m = _TOKEN.match(token)
        if not m:
            raise PlayError(f"cannot read move {token!r} in {text!r}")
        points: list[int] = []
        hits: list[bool] = []
        for i, part in enumerate(m.group("chain").split("/")):
            word = part.rstrip("*").lower()
            points.append(BAR if word == "bar" else OFF if word == "off" else int(word))
            hits.append(part.endswith("*") and i > 0)
        if m.group("star") or m.group("star2"):
            hits[-1] = True
        groups.append(WrittenMove(tuple(points), tuple(hits), int(m.group("count") or 1)))
    return tuple(groups)


# --- verifying a recorded play -------------------------------------------------------------


class PlayCheck(NamedTuple):
    """What verify_play found (immutable; a NamedTuple because replay makes one per play and
    a tuple is built ten times faster than a frozen dataclass).

    `after` is the position the record implies, with the other side on roll (like
    Play.after): for a legal play its result; for an illegal one the written moves applied as
    far as they physically can be (or the resolved steps when only the dice rules were broken),
    so a replay can go on from the recorded result. `steps` are the resolved single-die steps
    with the hits they made (for an unresolvable play: the written moves as applied). `reason`
    is a stable code from REASONS, `message` says it in words. `hit_star_mismatch` lists
    notation slips that do not make a play illegal: (src, dst, 'star-without-hit' or
    'hit-without-star') per written move. `alternatives` (the legal plays) is computed on use.
    """

    ok: bool
    after: Position
    steps: tuple[Step, ...]
    reason: str | None
    message: str
    position: Position
    dice: tuple[int, int]
    ambiguous: bool = False
    hit_star_mismatch: tuple[tuple[int, int, str], ...] = ()
    # Holds the legal plays once computed (verify_play may already have needed them).
    cache: list[LegalPlays] | None = None

    @property
    def alternatives(self) -> LegalPlays | None:
        """The legal plays of this roll (None when the dice are not 1-6)."""
        if self.cache:
            return self.cache[0]
        d1, d2 = self.dice
        if not (type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6):
            return None
        legal = legal_plays(self.position, self.dice)
        if self.cache is not None:
            self.cache.append(legal)
        return legal

    def __bool__(self) -> bool:
        return self.ok


# A written chain: its source, then (waypoint, star) for each later written point.
_Chain = tuple[int, tuple[tuple[int, bool], ...]]


def _chains(moves: object) -> list[_Chain]:
    if isinstance(moves, str):
        moves = parse_play(moves)
    if not isinstance(moves, Iterable):
        raise PlayError(f"a play must be a sequence of moves, got {moves!r}")
    chains: list[_Chain] = []
    for m in moves:
        if isinstance(m, tuple | list):
            if len(m) not in (2, 3):
                raise PlayError(f"a step must be (src, dst) or (src, dst, hit), got {m!r}")
            chains.append((m[0], ((m[1], bool(m[2]) if len(m) == 3 else False),)))
            continue
        try:
            points, hits, count = m.points, m.hits, m.count
        except AttributeError:
            raise PlayError(f"not a move: {m!r}") from None
        if len(points) < 2 or len(hits) != len(points):
            raise PlayError(f"a move needs 2+ points and one hit flag per point, got {m!r}")
        chain = (points[0], tuple(zip(points[1:], hits[1:], strict=True)))
        if type(count) is not int or count < 1:
            raise PlayError(f"a repeat count must be a positive int, got {m!r}")
        # No roll allows more than four steps: five copies already decide "too many".
        chains.extend([chain] * min(count, 5))
    return chains


def _bad_points(chains: list[_Chain]) -> str | None:
    for src, rest in chains:
        prev = src
        if not (type(src) is int and 1 <= src <= 25):
            return f"move from {src!r}: a source must be 1-24 or the bar (25)"
        for point, _ in rest:
            if not (type(point) is int and 0 <= point <= 24):
                return f"move {src}/{point}: a destination must be 1-24 or off (0)"
            if point >= prev:
                return f"move {prev}/{point} does not go forward"
            prev = point
    return None


def _segment_text(src: int, dst: int) -> str:
    return f"{'bar' if src == BAR else src}/{'off' if dst == OFF else dst}"


def _step_problem(mv: list[int], o: list[int], s: int, t: int) -> str | None:
    """Why the single step s -> t (t <= 0 bears off) may not be made now, or None."""
    if mv[s] <= 0:
        return "no-checker"
    if s != BAR and mv[BAR]:
        return "bar-not-cleared"
    if t > 0:
        if o[t] >= 2:
            return "blocked-point"
        return None
    if any(mv[7:]):
        return "bear-off-not-home"
    if t < 0 and any(mv[s + 1 : 7]):
        return "bear-off-not-highest"
    return None


def _covers(dists: list[tuple[int, bool]], dice: list[int]) -> bool:
    """Can the dice, ignoring the board, cover each written distance (bear-offs may overshoot
    on their last die)?"""
    if not dists:
        return True
    dist, off = dists[0]
    rest = dists[1:]
    seen = set()
    for i, d in enumerate(dice):
        if d in seen:
            continue
        seen.add(d)
        left = dice[:i] + dice[i + 1 :]
        if d == dist or (off and d > dist):
            if _covers(rest, left):
                return True
        elif d < dist and _covers([(dist - d, off), *rest], left):
            return True
    return False


_Mismatch = tuple[tuple[int, int, str], ...]


class _Candidate(NamedTuple):
    key: int
    steps: tuple[tuple[int, int, bool], ...]
    dice: int
    pips: int
    score: int  # how far the hits made differ from the stars written
    mismatch: _Mismatch


def _resolve(
    mover: tuple[int, ...], o_init: tuple[int, ...], dice: list[int], chains: list[_Chain]
) -> tuple[list[_Candidate], tuple[int, str, int, int] | None]:
    """Every way to play the written chains as legal single-die steps, in any order.

    Returns the complete resolutions and the deepest step that failed (depth, reason, src,
    dst), for the message when there are none."""
    mv = list(mover)
    o = list(o_init)
    n = len(chains)
    cur = [src for src, _ in chains]
    seg_start = list(cur)
    nxt = [0] * n
    seg_hits = [0] * n  # hits made so far on the chain's current written segment
    trail: list[tuple[int, int, bool]] = []
    notes: list[tuple[int, int, str]] = []
    found: list[_Candidate] = []
    deepest: list[tuple[int, str, int, int]] = []
    left = list(dice)

    def search(depth: int, key: int, pips: int, score: int) -> None:
        complete = True
        for c in range(n):
            waypoints = chains[c][1]
            if nxt[c] == len(waypoints):
                continue
            complete = False
            s = cur[c]
            target, star = waypoints[nxt[c]]
            tried: set[int] = set()
            for i, d in enumerate(left):
                if d in tried:
                    continue
                tried.add(d)
                t = s - d
                if t < target and target != OFF:
                    continue
                problem = _step_problem(mv, o, s, t)
                if problem:
                    if not deepest or depth > deepest[0][0]:
                        deepest[:] = [(depth, problem, s, max(t, 0))]
                    continue
                land = max(t, 0)
                hit = land > 0 and o[land] == 1
                reached = land <= target
                mv[s] -= 1
                if land:
                    mv[land] += 1
                if hit:
                    o[land] = 0
                del left[i]
                trail.append((s, land, hit))
                cur[c] = land
                hits_before = seg_hits[c]
                start = seg_start[c]
                add = 0
                noted = False
                if reached:
                    nxt[c] += 1
                    hits = hits_before + hit
                    add = abs(int(star) - hits)
                    if hits > star or star > hits:
                        kind = "hit-without-star" if hits > star else "star-without-hit"
                        notes.append((start, target, kind))
                        noted = True
                    seg_hits[c] = 0
                    seg_start[c] = target
                else:
                    seg_hits[c] = hits_before + hit
                search(
                    depth + 1,
                    key + _W[land] - _W[s] + (_H[land] if hit else 0),
                    pips + d,
                    score + add,
                )
                if noted:
                    notes.pop()
                if reached:
                    nxt[c] -= 1
                seg_start[c] = start
                seg_hits[c] = hits_before
                cur[c] = s
                trail.pop()
                left.insert(i, d)
                if hit:
                    o[land] = 1
                if land:
                    mv[land] -= 1
                mv[s] += 1
        if complete:
            found.append(_Candidate(key, tuple(trail), depth, pips, score, tuple(notes)))

    search(0, _base_key(mover), 0, 0)
    return found, (deepest[0] if deepest else None)


def _lenient(
    mover: tuple[int, ...], o_init: tuple[int, ...], chains: list[_Chain]
) -> tuple[list[int], list[int], list[tuple[int, int, bool]]]:
    # Apply the written moves as far as a checker can physically go: skip a move without a
    # checker on its source or onto two or more opposing checkers, and the rest of its chain.
    mv = list(mover)
    o = list(o_init)
    done: list[tuple[int, int, bool]] = []
    for src, rest in chains:
        s = src
        if not (type(s) is int and 1 <= s <= 25):
            continue
        for t, _ in rest:
            if not (type(t) is int and 0 <= t < s) or mv[s] <= 0:
                break
            hit = False
            if t:
                if o[t] >= 2:
                    break
                if o[t] == 1:
                    o[t] = 0
                    o[0] += 1
                    hit = True
                mv[t] += 1
            mv[s] -= 1
            done.append((s, t, hit))
            s = t
    return mv, o, done


def _check(
    position: Position,
    dice: tuple[int, int],
    after: Position,
    steps: Iterable[tuple[int, int, bool]],
    ok: bool,
    reason: str | None = None,
    message: str = "",
    ambiguous: bool = False,
    mismatch: _Mismatch = (),
    legal: LegalPlays | None = None,
) -> PlayCheck:
    return _new(
        PlayCheck,
        (
            ok,
            after,
            tuple([_new(Step, step) for step in steps]),
            reason,
            message,
            position,
            dice,
            ambiguous,
            mismatch,
            [legal] if legal is not None else [],
        ),
    )


def _board_after(position: Position, mv: Sequence[int], o: Sequence[int]) -> Position:
    return Position._make(tuple(o[::-1]), tuple(mv), position.checkers)


def _can_move(mover: tuple[int, ...], o: tuple[int, ...], d1: int, d2: int) -> bool:
    """Can any single step be made? (If one can, the empty play is not legal.)"""
    if mover[BAR]:
        return o[25 - d1] < 2 or o[25 - d2] < 2
    home = not any(mover[7:])
    highest = max((p for p in range(6, 0, -1) if mover[p]), default=0) if home else 25
    for d in (d1, d2):
        for s in range(24, 0, -1):
            if mover[s]:
                t = s - d
                if t > 0:
                    if o[t] < 2:
                        return True
                elif home and (t == 0 or s == highest):
                    return True
    return False


def _verify_fast_c(position: Position, roll: tuple[int, int], moves: object) -> PlayCheck | None:
    """`_verify_fast_python` with its board work in C (`_speedups.play_steps`)."""
    assert _play_steps is not None
    done = _play_steps(position.mover, position.opponent, roll[0], roll[1], moves, Step)
    if done is None:
        return None
    opponent, mover, steps, notes = done
    after = Position._make(opponent, mover, position.checkers)
    return _new(PlayCheck, (True, after, steps, None, "", position, roll, False, notes, []))


def _verify_fast_python(
    position: Position, roll: tuple[int, int], moves: object
) -> PlayCheck | None:
    """The common case without a search: single-die steps using every die, legal in the
    order written. None means "not this case" (the full check decides)."""
    d1, d2 = roll
    want = [d1, d1, d1, d1] if d1 == d2 else [d1, d2]
    mv = list(position.mover)
    opp = position.opponent
    lst: list[int] | None = None  # the opponent's counts, copied on the first hit
    steps: list[Step] = []
    notes: list[tuple[int, int, str]] | None = None
    try:
        items = iter(moves)  # type: ignore[call-overload]
    except TypeError:
        return None
    for m in items:
        if isinstance(m, tuple):
            if len(m) == 2:
                s, t = m
                star = False
            elif len(m) == 3:
                s, t, star = m
            else:
                return None
            count = 1
        else:
            try:
                points = m.points
                if len(points) != 2:
                    return None
                s, t = points
                hits = m.hits
                star = hits[1]
                count = m.count
                if len(hits) != 2 or type(count) is not int or count < 1:
                    return None
            except (AttributeError, TypeError, ValueError, IndexError):
                return None
        if type(s) is not int or type(t) is not int or not (0 < s < 26 and 0 <= t < s):
            return None
        for _ in range(count):
            dist = s - t
            if dist in want:
                want.remove(dist)
            elif t == 0 and want and max(want) > dist:
                want.remove(min(d for d in want if d > dist))
                if any(mv[s + 1 : 7]):
                    return None
            else:
                return None
            if mv[s] <= 0 or (s != BAR and mv[BAR]):
                return None
            hit = False
            if t:
                c = (lst or opp)[25 - t]
                if c >= 2:
                    return None
                if c == 1:
                    if lst is None:
                        lst = list(opp)
                    lst[25 - t] = 0
                    lst[BAR] += 1
                    hit = True
                mv[t] += 1
            elif any(mv[7:]):
                return None
            mv[s] -= 1
            steps.append(_new(Step, (s, t, hit)))
            if hit != bool(star):
                if notes is None:
                    notes = []
                notes.append((s, t, "hit-without-star" if hit else "star-without-hit"))
    if want:
        return None
    after = Position._make(opp if lst is None else tuple(lst), tuple(mv), position.checkers)
    return _new(
        PlayCheck,
        (True, after, tuple(steps), None, "", position, roll, False, tuple(notes or ()), []),
    )


_play_steps: Callable[..., Any] | None
try:  # the typed C version of the board work (setup.py builds it where it can)
    from bgparse.rules._speedups import play_steps as _play_steps
except ImportError:
    _play_steps = None

#: The fast path of verify_play: in C where built, the Python original otherwise.
_verify_fast = _verify_fast_python if _play_steps is None else _verify_fast_c


#: What verify_play reads as a play: notation, written move groups, or single steps.
WrittenPlay = str | Iterable[MoveLike | tuple[int, int] | tuple[int, int, bool]]


def verify_play(position: Position, dice: Sequence[int], moves: WrittenPlay) -> PlayCheck:
    """Check a play as written against `position` and `dice`.

    `moves` is a sequence of written move groups (objects with `points`, `hits`, `count`, as
    bgparse.events.Move), of (src, dst) or (src, dst, hit) steps, or a notation string. Merged
    moves are split against the board (an unmarked intermediate landing means the route that
    does not hit there, a star the one that does), repeat counts expanded, and the written
    order is not binding: the play is legal when some order of its steps is. A play using all
    the dice is checked step by step; only a shorter one needs the legal plays generated.
    Raises PositionError for a position with defects, PlayError for input it cannot read.
    """
    if not position._checked:
        position.ensure_valid()
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise DiceError(f"dice must be two ints, got {dice!r}") from None
    roll = (d1, d2)
    dice_ok = type(d1) is int and type(d2) is int and 1 <= d1 <= 6 and 1 <= d2 <= 6
    if dice_ok and not isinstance(moves, str):
        fast = _verify_fast(position, roll, moves)
        if fast is not None:
            return fast
    chains = _chains(moves)
    mover = position.mover
    o0 = position.opponent[::-1]
    if not dice_ok:
        mv, o, done = _lenient(mover, o0, chains)
        return _check(
            position,
            roll,
            _board_after(position, mv, o),
            done,
            False,
            "dice-invalid",
            f"dice {d1}-{d2}: a die must show 1-6",
        )
    doubles = d1 == d2
    ndice = 4 if doubles else 2
    bad = _bad_points(chains)
    if bad:
        mv, o, done = _lenient(mover, o0, chains)
        return _check(position, roll, _board_after(position, mv, o), done, False, "bad-point", bad)

    if not chains:
        if not _can_move(mover, o0, d1, d2):
            return _check(position, roll, position.swap(), (), True)
        options = legal_plays(position, roll)
        return _check(
            position,
            roll,
            position.swap(),
            (),
            False,
            "missing-play",
            f"no play written for {d1}-{d2}, which has {plural(len(options), 'legal play')} "
            f"(e.g. {options[0].notation})",
            legal=options,
        )

    dice_list = [d1] * 4 if doubles else [max(d1, d2), min(d1, d2)]
    written = sum(len(rest) for _, rest in chains)
    found, failure = ([], None) if written > ndice else _resolve(mover, o0, dice_list, chains)
    if not found:
        return _unresolved(position, roll, chains, dice_list, failure)

    best_score = min(c.score for c in found)
    preferred = [c for c in found if c.score == best_score]
    legal: LegalPlays | None = None
    verdicts: dict[int, bool] = {}
    for cand in preferred:
        if cand.key not in verdicts:
            if cand.dice == ndice:
                verdicts[cand.key] = True
            else:
                if legal is None:
                    legal = legal_plays(position, roll)
                verdicts[cand.key] = cand.key in legal._gen.plays
    legal_ones = [c for c in preferred if verdicts[c.key]]
    pool = legal_ones or preferred
    chosen = pool[0]
    ambiguous = len({c.key for c in pool}) > 1
    after = _after(position, chosen.key)
    if legal_ones:
        message = ""
        if ambiguous:
            message = "the record fits several different legal plays; the first is taken"
        return _check(
            position,
            roll,
            after,
            chosen.steps,
            True,
            None,
            message,
            ambiguous,
            chosen.mismatch,
            legal,
        )
    assert legal is not None
    example = legal[0].notation
    if chosen.dice < legal.dice_used:
        reason = "fewer-dice-than-possible"
        message = (
            f"the play uses {chosen.dice} of the dice {d1}-{d2}; legal plays use "
            f"{legal.dice_used} (e.g. {example})"
        )
    elif chosen.pips < legal.pips_used:
        reason = "higher-die-not-played"
        message = (
            f"only one die of {d1}-{d2} can be played, and then it must be the "
            f"{max(d1, d2)} (e.g. {example})"
        )
    else:  # not expected: every complete resolution using the most dice is generated
        reason = "fewer-dice-than-possible"
        message = f"not among the legal plays of {d1}-{d2} (e.g. {example})"
    return _check(
        position,
        roll,
        after,
        chosen.steps,
        False,
        reason,
        message,
        ambiguous,
        chosen.mismatch,
        legal,
    )


def _unresolved(
    position: Position,
    roll: tuple[int, int],
    chains: list[_Chain],
    dice_list: list[int],
    failure: tuple[int, str, int, int] | None,
) -> PlayCheck:
    """The verdict for a play that no order of legal single-die steps can make."""
    d1, d2 = roll
    ndice = len(dice_list) if d1 == d2 else 2
    segments: list[tuple[int, int]] = []
    for src, rest in chains:
        prev = src
        for point, _ in rest:
            segments.append((prev, point))
            prev = point
    if len(segments) > ndice:
        reason = "too-many-steps"
        # Repeat counts are capped at 5 when expanded, so a count can hide more.
        written = f"at least {len(segments)}" if len(segments) >= 5 else str(len(segments))
        message = f"{written} moves written for {d1}-{d2}, which gives {ndice} steps"
    elif (empty := _empty_source(position.mover, segments)) is not None:
        # Checked before the dice: moving a checker that is not there is the plainer fault.
        reason = "no-checker"
        message = _failure_text(reason, *empty)
    elif not _covers([(a - b, b == OFF) for a, b in segments], dice_list):
        reason = "wrong-dice"
        dists = ", ".join(f"{_segment_text(a, b)} ({plural(a - b, 'pip')})" for a, b in segments)
        message = f"{dists}: does not fit the dice {d1}-{d2}"
    elif failure is not None:
        _, reason, s, t = failure
        message = _failure_text(reason, s, t)
    else:  # pragma: no cover - _covers and the search agree when the board allows nothing
        reason = "wrong-dice"
        message = f"the moves do not fit the dice {d1}-{d2}"
    mv, o, done = _lenient(position.mover, position.opponent[::-1], chains)
    return _check(position, roll, _board_after(position, mv, o), done, False, reason, message)


def _empty_source(
    mover: tuple[int, ...], segments: list[tuple[int, int]]
) -> tuple[int, int] | None:
    """The first written segment leaving a point the mover has no checker on, even counting
    the checkers the play's other segments bring there."""
    leaving: dict[int, int] = {}
    arriving: dict[int, int] = {}
    for a, b in segments:
        leaving[a] = leaving.get(a, 0) + 1
        arriving[b] = arriving.get(b, 0) + 1
    for a, b in segments:
        if 0 <= a <= BAR and leaving[a] > mover[a] + arriving.get(a, 0):
            return a, b
    return None


def _failure_text(reason: str, s: int, t: int) -> str:
    move = _segment_text(s, t)
    return {
        "no-checker": f"{move}: no checker of the mover on {'the bar' if s == BAR else s}",
        "bar-not-cleared": f"{move}: a checker is still on the bar and must enter first",
        "blocked-point": f"{move}: point {t} is held by the opponent",
        "bear-off-not-home": f"{move}: bearing off while checkers are outside the home board",
        "bear-off-not-highest": f"{move}: a larger die bears off only from the highest point",
    }.get(reason, f"{move}: {REASONS.get(reason, reason)}")
