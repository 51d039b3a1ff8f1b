"""Verification of a play as recorded (`verify_play`): resolve what was written (merged moves,
repeat counts, steps in any order) into single-die steps and decide whether it is legal,
generating the legal set only when the play uses fewer dice than rolled; the reasons and texts
of an illegal play."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from typing import Any, Final, NamedTuple

from bgparse.rules.notation import MoveLike, PlayError, parse_play, segment_text
from bgparse.rules.plays import (
    _H,
    _W,
    DiceError,
    LegalPlays,
    _after,
    _base_key,
    _key_of,
    legal_plays,
)
from bgparse.rules.position import BAR, OFF, Position
from bgparse.rules.steps import STEP_TABLE, Step, single_step
from bgparse.rules.wording import plural

__all__ = ["REASONS", "PlayCheck", "WrittenPlay", "verify_play"]

# Builds tuples (and NamedTuples) without the Python-level __new__: they are made per play.
_new = tuple.__new__


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
                step = single_step(mv, o, s, d)
                if isinstance(step, str):
                    if not deepest or depth > deepest[0][0]:
                        deepest[:] = [(depth, step, s, max(t, 0))]
                    continue
                _, land, hit = step
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
    # single_step refuses an empty source and, with a checker on the bar, every other one:
    # only the sources it could allow are asked (a dance is a tenth of all rolls).
    if mover[BAR]:
        sources: Sequence[int] = _BAR_ONLY
    else:
        sources = [s for s in range(24, 0, -1) if mover[s]]
    for d in (d1,) if d1 == d2 else (d1, d2):
        for s in sources:
            if type(single_step(mover, o, s, d)) is Step:
                return True
    return False


_BAR_ONLY: Final = (BAR,)


def _verify_fast_c(position: Position, roll: tuple[int, int], moves: object) -> PlayCheck | None:
    """`_verify_fast_python` in C (`_speedups.verify_fast`)."""
    assert _fast_c is not None
    check: PlayCheck | None = _fast_c(position, roll, moves, STEP_TABLE, Position, PlayCheck)
    return check


def _verify_fast_python(
    position: Position, roll: tuple[int, int], moves: object
) -> PlayCheck | None:
    """The common case without a search: single-die steps using every die (or moves of more
    than one die whose route is plain, `_merged_legs`), legal in the order written. None means
    "not this case" (the full check decides)."""
    done = _play_steps_python(position.mover, position.opponent, roll[0], roll[1], moves)
    if done is None:
        return None
    opponent, mover, steps, notes = done
    after = Position._make(opponent, mover, position.checkers)
    return _new(PlayCheck, (True, after, steps, None, "", position, roll, False, notes, []))


def _play_steps_python(
    mover: tuple[int, ...],
    opponent: tuple[int, ...],
    d1: int,
    d2: int,
    moves: object,
    step_table: tuple[Step, ...] = STEP_TABLE,
    partial: bool = False,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[Step, ...], _Mismatch] | None:
    """The board work of the fast path: written moves that are single-die steps (or, using
    every die, moves of more than one die whose route is plain: `_merged_legs`), legal in the
    order written, using every die (or, with `partial`, single steps leaving dice unplayed and
    writing every hit star right). Returns (opponent after, mover after, the steps from
    `step_table`, the hit-star notes), None for "not this case". `_speedups.play_steps` is its
    typed twin."""
    want = [d1, d1, d1, d1] if d1 == d2 else [d1, d2]
    mv = list(mover)
    opp = opponent
    lst: list[int] | None = None  # the opponent's counts, copied on the first hit
    steps: list[Step] = []
    stars: list[bool] = []
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
            legs: tuple[tuple[int, int, object], ...] = ((s, t, star),)
            if dist in want:
                want.remove(dist)
            elif t == 0 and want and max(want) > dist:
                want.remove(min(d for d in want if d > dist))
                if any(mv[s + 1 : 7]):
                    return None
            elif partial or t == 0:
                return None
            else:
                merged = _merged_legs(s, t, star, want, lst or opp)
                if merged is None:
                    return None
                legs = merged
            for a, b, mark in legs:
                if mv[a] <= 0 or (a != BAR and mv[BAR]):
                    return None
                hit = False
                if b:
                    c = (lst or opp)[25 - b]
                    if c >= 2:
                        return None
                    if c == 1:
                        if lst is None:
                            lst = list(opp)
                        lst[25 - b] = 0
                        lst[BAR] += 1
                        hit = True
                    mv[b] += 1
                elif any(mv[7:]):
                    return None
                mv[a] -= 1
                steps.append(step_table[(a * 26 + b) * 2 + hit])
                stars.append(bool(mark))
                if hit != bool(mark):
                    if len(legs) > 1:
                        return None  # a merged move's star written wrong: the full check
                    if notes is None:
                        notes = []
                    notes.append((a, b, "hit-without-star" if hit else "star-without-hit"))
    if want and (not partial or notes is not None):
        return None
    if notes is not None and _star_order_matters(steps, stars, notes):
        return None
    return (opp if lst is None else tuple(lst), tuple(mv), tuple(steps), tuple(notes or ()))


def _merged_legs(
    s: int, t: int, star: object, want: list[int], opponent: Sequence[int]
) -> tuple[tuple[int, int, object], ...] | None:
    """A written move of more than one die (`24/14` for 6-4, `24/16` for 4-4) as its single
    steps, where the full check's first resolution is plain to see: its dice taken from
    `want`. With two different dice, the higher die first unless an opposing checker stands
    where it lands, then the lower die first where none does (the full check prefers the
    route that hits only where the record says, and of equal routes the first it tries, the
    higher die first); with doubles, the one route, where no opposing checker stands on it.
    None for any other case (a route only past a blot, too few dice): the full check reads
    it."""
    dist = s - t
    if len(want) < 2:
        return None
    die = want[0]
    if want.count(die) == len(want):  # doubles
        k, rest = divmod(dist, die)
        if rest or k > len(want):
            return None
        points = [s - i * die for i in range(k + 1)]
        if any(opponent[25 - p] for p in points[1:-1]):
            return None
        del want[:k]
        return tuple((a, b, star if b == t else False) for a, b in pairwise(points))
    high, low = max(want), min(want)
    if dist != high + low:
        return None
    for d in (high, low):
        if not opponent[25 - (s - d)]:
            want.clear()
            return ((s, s - d, False), (s - d, t, star))
    return None


def _verify_partial(
    position: Position,
    roll: tuple[int, int],
    moves: object,
    play_steps: Callable[..., Any] | None = None,
) -> PlayCheck | None:
    """A play written as single-die steps, legal in the order written, that leaves dice
    unplayed (a twentieth of the corpus's plays): legal where its result is one of the legal
    plays (they use no more dice, and the higher die where only one can move). None where it
    is not this case or not legal: the full check decides, and words the reason.

    Why this is the full check's answer: each written step is one die, so every order of the
    steps that the search finds ends on the same result (a bear-off's die may differ, its
    step not), and with every star right no other route scores better."""
    d1, d2 = roll
    done = (play_steps or _play_steps)(
        position.mover, position.opponent, d1, d2, moves, STEP_TABLE, True
    )
    if done is None or not done[2]:
        return None
    opponent, mover, steps, notes = done
    after = Position._make(opponent, mover, position.checkers)
    legal = legal_plays(position, roll)
    if _key_of(position, after) not in legal._gen.plays:
        return None
    return _check(position, roll, after, steps, True, None, "", False, notes, legal)


def _star_order_matters(
    steps: list[Step], stars: list[bool], notes: list[tuple[int, int, str]]
) -> bool:
    """Does a hit star written wrong land where a step with the other star lands too? Then
    another order of the steps may give the hit to the starred one, which the full check
    prefers (landings whose stars agree score the same in every order)."""
    for _, t, _ in notes:
        marks = {star for step, star in zip(steps, stars, strict=True) if step[1] == t}
        if len(marks) > 1:
            return True
    return False


_fast_c: Callable[..., Any] | None
try:  # the typed C version (setup.py builds it where it can)
    from bgparse.rules._speedups import verify_fast as _fast_c
except ImportError:
    _fast_c = None

#: The fast path of verify_play: in C where built, the Python original otherwise.
_verify_fast = _verify_fast_python if _fast_c is None else _verify_fast_c

_play_steps: Callable[..., Any]
try:
    from bgparse.rules._speedups import play_steps as _play_steps
except ImportError:
    _play_steps = _play_steps_python


#: What verify_play reads as a play: notation, written move groups, or single steps.
WrittenPlay = str | Iterable[MoveLike | tuple[int, int] | tuple[int, int, bool]]


def verify_play(position: Position, dice: Sequence[int], moves: WrittenPlay) -> PlayCheck:
    """Check a play as written against `position` and `dice`.

    `moves` is a sequence of written move groups (objects with `points`, `hits`, `count`, as
    bgparse.model.events.Move), of (src, dst) or (src, dst, hit) steps, or a notation string. Merged
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
    if dice_ok and type(moves) is tuple and not moves:
        return _verify_no_play(position, roll)  # no play written (a dance, most often)
    if dice_ok and not isinstance(moves, str):
        fast = _verify_fast(position, roll, moves)
        if fast is not None:
            return fast
        fast = _verify_partial(position, roll, moves)
        if fast is not None:
            return fast
    return _verify_full(position, roll, moves, dice_ok)


def _verify_full(
    position: Position, roll: tuple[int, int], moves: WrittenPlay, dice_ok: bool
) -> PlayCheck:
    """verify_play without its fast path: the reference the fast paths are tested by."""
    d1, d2 = roll
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
        return _verify_no_play(position, roll)

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


def _verify_no_play(position: Position, roll: tuple[int, int]) -> PlayCheck:
    """The verdict on no play written for a roll of valid dice: legal only where nothing can
    move (a dance)."""
    d1, d2 = roll
    if not _can_move(position.mover, position.opponent[::-1], d1, d2):
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
        dists = ", ".join(f"{segment_text(a, b)} ({plural(a - b, 'pip')})" for a, b in segments)
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
    move = segment_text(s, t)
    return {
        "no-checker": f"{move}: no checker of the mover on {'the bar' if s == BAR else s}",
        "bar-not-cleared": f"{move}: a checker is still on the bar and must enter first",
        "blocked-point": f"{move}: point {t} is held by the opponent",
        "bear-off-not-home": f"{move}: bearing off while checkers are outside the home board",
        "bear-off-not-highest": f"{move}: a larger die bears off only from the highest point",
    }.get(reason, f"{move}: {REASONS.get(reason, reason)}")
