"""Legal play generation: every distinct legal play of a roll (`legal_plays`).

It follows the scheme GNU Backgammon's generator uses (depth-first over single-die steps, both
die orders for a mixed roll, non-increasing sources for doubles, keep the leaves with the most
dice and then the most pips, merge leaves by resulting position), with fast paths for the
common cases that reach the same set without the search.

Internally a result is one int: the mover's 26 counts as bytes (little-endian, byte p = point
p) plus one bit per hit blot above bit 208. It is cheap to build step by step and identifies
the final position including which blots were hit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Final, NamedTuple

from bgparse.helpers.errors import RulesError
from bgparse.rules.notation import format_play
from bgparse.rules.position import BAR, Position, PositionError
from bgparse.rules.steps import Step, single_step

__all__ = ["DiceError", "LegalPlays", "Play", "legal_plays"]

# Builds tuples (and NamedTuples) without the Python-level __new__: they are made per play.
_new = tuple.__new__


class DiceError(RulesError):
    """Dice that are not two ints 1-6."""


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


def _gen(plays: dict[int, _Raw], dice: int, pips: int) -> _Gen:
    # A named tuple's generated __new__ runs interpreted even where this module is compiled.
    return _new(_Gen, (plays, dice, pips))  # type: ignore[no-any-return]


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
        return _gen({key: ((BAR, th), (BAR, tl))}, 2, hi + lo)
    if ok_hi:
        return _gen({base + _W[th] + (_H[th] if o[th] == 1 else 0): ((BAR, th),)}, 1, hi)
    if ok_lo:
        return _gen({base + _W[tl] + (_H[tl] if o[tl] == 1 else 0): ((BAR, tl),)}, 1, lo)
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
        return _gen(res, 2, hi + lo)
    if steps_hi:
        return _gen({base + a[2] + a[3]: (a,) for a in steps_hi}, 1, hi)
    if steps_lo:
        return _gen({base + b[2] + b[3]: (b,) for b in steps_lo}, 1, lo)
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
        return _gen(res4, 4, 4 * d)
    if res3:
        return _gen(res3, 3, 3 * d)
    if res2:
        return _gen(res2, 2, 2 * d)
    if res1:
        return _gen(res1, 1, d)
    return _DANCE


_BAR_ONLY: Final = (BAR,)


def _generate_general(mover: tuple[int, ...], opponent: tuple[int, ...], d1: int, d2: int) -> _Gen:
    """The plain search every case can use, each step asked of `single_step`: the reference
    the fast paths are tested by."""
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
        # Doubles take their sources in non-increasing order (one order per set of steps).
        # With a checker on the bar only the bar may move (single_step's second refusal,
        # without a call per point; `top` is below the bar only after a step from a point,
        # which the bar being empty allowed).
        sources = range(top, 0, -1) if not mv[BAR] or top != BAR else _BAR_ONLY
        for s in sources:
            if not mv[s]:  # an empty point: single_step's first refusal, without the call
                continue
            step = single_step(mv, o, s, d)
            if isinstance(step, str):
                continue
            _, t, hit = step
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
    return _gen(res, best[0], best[1])


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

    `after` has the other side on roll (as GNU's generator returns it), as `Position.apply`
    and `verify_play(...).after` have it: `position.apply(play.steps) == play.after`, and
    `after.swap()` is the board with the same side still on roll."""

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
