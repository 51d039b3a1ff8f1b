"""Every statistic recomputed from the records by a route that does not use the dataset's
tables, and compared row by row with `bgparse stats NAME --format json` over a dataset imported
from the same files (issue 12).

The route: the records' own events (`bgparse.readers`: rolls, plays, doubles, beavers, takes,
drops), GNU Backgammon's reading of the same files (`../shared/corpus/gnubg-sample/*.truth.json`:
score before each game, winner, points, how it ended, the Crawford game, the final cube, and
the board before every action as a GNU Position ID) and a small tally here: its own cube state,
its own Position ID decoder, its own Wilson interval and χ² tail. The findings statistic is
recomputed from `bgparse validate --format json` over one-change files of
`../shared/corpus/gnubg-illegal`, which does not read the dataset either; the matches and
head-to-head listings from GNU's final scores and winners, the records' `EventDate` tags and
`validate`'s findings of each sample file.

The slice: the 30 GNU Backgammon matches of gnubg-sample (1- to 25-point matches and money
sessions, with beavers, raccoons, Jacoby sessions, resignations and drops).
"""

from __future__ import annotations

import base64
import csv
import json
import math
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.ingest import ImportOptions, run_import
from bgparse.model.events import Beaver, CannotMove, Double, Drop, Raccoon, Roll, Take
from bgparse.questions.stats import STATISTICS
from bgparse.readers import read_path
from tests.analysis.test_stats_analysis import STATISTICS_TESTED
from tests.conftest import CORPUS, corpus_files, load_truth

pytestmark = pytest.mark.corpus

SAMPLE = corpus_files("gnubg-sample", "*.mat")
runner = CliRunner()
Z = 1.96


# --- the independent tally ------------------------------------------------------------------


def wilson(k: int, n: int) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    p = k / n
    centre = p + Z * Z / (2 * n)
    spread = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    lo, hi = (centre - spread) / (1 + Z * Z / n), (centre + spread) / (1 + Z * Z / n)
    return (0.0 if k == 0 else lo), (1.0 if k == n else hi)


def rate(k: int, n: int) -> float | None:
    return k / n if n else None


def board(position_id: str) -> tuple[list[int], list[int]]:
    """GNU Position ID → (checkers of the side not on roll, of the side on roll), each by its
    own point 1..24 at index 0..23 and the bar at 24: per side and point, a one per checker
    then a zero, little-endian bits of the base64 bytes."""
    raw = base64.b64decode(position_id + "==")
    halves: list[list[int]] = [[0] * 25, [0] * 25]
    half = point = 0
    for i in range(80):
        if half > 1:
            break
        if (raw[i // 8] >> (i % 8)) & 1:
            halves[half][point] += 1
        else:
            point += 1
            if point == 25:
                half, point = half + 1, 0
    return halves[0], halves[1]


def pips(side: list[int]) -> int:
    return sum((i + 1) * n for i, n in enumerate(side))


def no_contact(a: list[int], b: list[int]) -> bool:
    """Every checker of one side is past every checker of the other (a pure race)."""
    back_a = max((i + 1 for i, n in enumerate(a) if n), default=0)
    back_b = max((i + 1 for i, n in enumerate(b) if n), default=0)
    return back_a + back_b < 25


def roll_text(dice: tuple[int, int] | list[int]) -> str:
    return f"{max(dice)}{min(dice)}"


Net = frozenset[tuple[int, int]]


def net_of_steps(steps: list[list[int]]) -> Net:
    """The change a play makes to the mover's points (bar 25, off 0), from single-die steps."""
    change: Counter[int] = Counter()
    for src, dst in steps:
        change[src] -= 1
        change[dst] += 1
    return frozenset((p, n) for p, n in change.items() if n)


def net_of_text(play: str) -> Net:
    """The same change read from a play as the dataset writes it: `24/13`, `13/7*/5`,
    `8/3(2)`, `bar/20`, `6/off`."""
    change: Counter[int] = Counter()
    for token in play.split():
        count = 1
        if token.endswith(")"):
            token, _, n = token[:-1].partition("(")
            count = int(n)
        points = [p.rstrip("*") for p in token.split("/")]
        first, last = points[0], points[-1]
        src = 25 if first == "bar" else int(first)
        dst = 0 if last == "off" else int(last)
        change[src] -= count
        change[dst] += count
    return frozenset((p, n) for p, n in change.items() if n)


@dataclass
class Offer:
    doubler: int
    offer: str  # double | beaver | raccoon
    cube_before: int
    is_redouble: bool
    move_no: int
    response: str = "none"
    race: bool = False
    pips_doubler: int = 0
    pips_taker: int = 0


@dataclass
class GameFacts:
    length: int
    score: tuple[int, int]
    crawford: bool
    post_crawford: bool
    cube_allowed: bool
    winner: int | None
    points: int
    end: str
    result: str | None  # as scored: a Jacoby gammon is a single
    final_cube: int
    opening: tuple[int, str, Net] | None  # (mover, roll, play)
    reply: tuple[str, Net | None] | None  # (roll, play; None for a dance)
    rolls_after_opening: list[str] = field(default_factory=list)
    offers: list[Offer] = field(default_factory=list)


@dataclass
class MatchFacts:
    players: tuple[str, str]
    length: int
    winner: int | None
    games: list[GameFacts]


def _key(name: str) -> str:
    return " ".join(unicodedata.normalize("NFC", name).split()).casefold()


def game_facts(game: Any, truth: dict[str, Any], tg: dict[str, Any]) -> GameFacts:
    length = truth["match_length"]
    score = (tg["score_before"][0], tg["score_before"][1])
    crawford = bool(tg.get("crawford_game"))
    post = (
        truth["crawford_rule"]
        and length > 1
        and length - 1 in score
        and max(score) < length
        and not crawford
    )
    rolls = [a for a in game.actions if isinstance(a, Roll | CannotMove)]
    moves = [a for a in tg["actions"] if a["action"] == "move"]
    assert len(rolls) == len(moves), "the record's rolls are GNU's moves"
    opening = reply = None
    if moves:
        first = moves[0]
        opening = (first["player"], roll_text(first["dice"]), net_of_steps(first["move"]))
        answer = next((m for m in moves[1:] if m["player"] != first["player"]), None)
        if answer is not None:
            reply = (roll_text(answer["dice"]), net_of_steps(answer["move"]) or None)
    # The cube, tallied here from the record's events; boards from GNU's actions.
    boards = iter(a for a in tg["actions"] if a["action"] == "double")
    offers: list[Offer] = []
    value, owner = 1, -1
    pending: Offer | None = None
    chain = 0
    rolled = [0, 0]
    for a in game.actions:
        if isinstance(a, Roll | CannotMove):
            if pending is not None and pending.offer != "double":
                # A .mat writes no 'Takes' after a beaver: the roll is the take.
                pending.response = "take"
                value, owner, pending = 2 * pending.cube_before, pending.doubler, None
            rolled[a.side] += 1
        elif isinstance(a, Double | Beaver | Raccoon):
            gnu = next(boards)
            not_on_roll, on_roll = board(gnu["board"])
            assert gnu["player"] == a.side
            if pending is not None:  # a beaver (or raccoon): take, then offer at once
                chain += 1
                pending.response = "beaver" if chain == 1 else "raccoon"
                value, owner = 2 * pending.cube_before, a.side
                kind = pending.response
            else:
                chain, kind = 0, "double"
            pending = Offer(
                a.side,
                kind,
                value,
                kind == "double" and owner == a.side,
                rolled[a.side] + 1,
                race=no_contact(on_roll, not_on_roll),
                pips_doubler=pips(on_roll),
                pips_taker=pips(not_on_roll),
            )
            offers.append(pending)
        elif isinstance(a, Take) and pending is not None:
            pending.response = "take"
            value = 2 * pending.cube_before
            owner = 1 - pending.doubler if pending.offer == "double" else pending.doubler
            pending = None
        elif isinstance(a, Drop) and pending is not None:
            pending.response = "drop"
            pending = None
    result = tg["result_type"] if tg["end"] != "drop" else None
    turned = any(o.response in ("take", "beaver", "raccoon") for o in offers)
    if tg["end"] == "normal" and truth["jacoby"] and length == 0 and not turned:
        result = "single"  # the Jacoby rule: an unturned-cube gammon scores a single
    return GameFacts(
        length=length,
        score=score,
        crawford=crawford,
        post_crawford=bool(post),
        cube_allowed=truth["cube_use"] and not crawford and length != 1,
        winner=tg["winner"],
        points=tg["points_won"],
        end=tg["end"],
        result=result,
        final_cube=tg["final_cube"],
        opening=opening,
        reply=reply,
        rolls_after_opening=[roll_text(m["dice"]) for m in moves[1:]],
        offers=offers,
    )


def match_facts(path: Path) -> MatchFacts:
    truth = load_truth(path)
    [record] = read_path(path)
    games = [game_facts(g, truth, tg) for g, tg in zip(record.games, truth["games"], strict=True)]
    return MatchFacts(record.players, truth["match_length"], truth["match_winner"], games)


def phase(g: GameFacts) -> str:
    if g.length == 0:
        return "money"
    return "crawford" if g.crawford else "post-crawford" if g.post_crawford else "pre-crawford"


def away(g: GameFacts, side: int) -> int | None:
    return g.length - g.score[side] if g.length else None


def gammon(g: GameFacts) -> bool:
    return g.result in ("gammon", "backgammon")


def all_games(matches: list[MatchFacts]) -> Iterator[GameFacts]:
    for m in matches:
        yield from m.games


def all_offers(matches: list[MatchFacts]) -> Iterator[tuple[GameFacts, int, Offer]]:
    for g in all_games(matches):
        for i, o in enumerate(g.offers):
            yield g, i, o


def recubed(g: GameFacts, i: int, o: Offer) -> bool:
    return any(p.offer == "double" and p.doubler != o.doubler for p in g.offers[i + 1 :])


# --- the dataset's side ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def matches() -> list[MatchFacts]:
    if not SAMPLE:
        pytest.skip("corpus folder gnubg-sample is absent")
    return [match_facts(p) for p in SAMPLE]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SAMPLE:
        pytest.skip("corpus folder gnubg-sample is absent")
    data = tmp_path_factory.mktemp("recomputed") / "data"
    run_import(SAMPLE, data, ImportOptions(workers=1))
    return data


def stats(data: Path, name: str, *args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["stats", name, "--data", str(data), "--format", "json", *args])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def same(got: dict[Any, dict[str, Any]], want: dict[Any, dict[str, Any]]) -> None:
    """Row by row: the same keys, and in each row the columns `want` names, floats to 1e-9."""
    assert sorted(got, key=repr) == sorted(want, key=repr)
    for key, expected in want.items():
        row = got[key]
        for col, value in expected.items():
            if isinstance(value, float):
                assert row[col] == pytest.approx(value, abs=1e-9), (key, col)
            else:
                assert row[col] == value, (key, col, row[col], value)


def with_ci(prefix: str, k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {f"{prefix}_rate": rate(k, n), f"{prefix}_lo": lo, f"{prefix}_hi": hi}


# --- one test per statistic -----------------------------------------------------------------


def test_opening_rolls(matches: list[MatchFacts], dataset: Path) -> None:
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    for g in all_games(matches):
        if g.opening and g.winner is not None:
            t = tally[g.opening[1]]
            t["games"] += 1
            t["wins"] += g.winner == g.opening[0]
            t["gammons"] += g.winner == g.opening[0] and gammon(g)
    want = {
        roll: {
            "games": t["games"],
            "mover_wins": t["wins"],
            "mover_gammons": t["gammons"],
            "win_lo": wilson(t["wins"], t["games"])[0],
            "gammon_rate": rate(t["gammons"], t["games"]),
        }
        for roll, t in tally.items()
    }
    same({r["roll"]: r for r in stats(dataset, "opening-rolls")}, want)


def test_opening_plays(matches: list[MatchFacts], dataset: Path) -> None:
    plays: Counter[tuple[str, Net]] = Counter()
    for g in all_games(matches):
        if g.opening:
            plays[g.opening[1], g.opening[2]] += 1
    per_roll = Counter[str]()
    for (roll, _), n in plays.items():
        per_roll[roll] += n
    want = {
        key: {"games": n, "roll_games": per_roll[key[0]], "share": n / per_roll[key[0]]}
        for key, n in plays.items()
    }
    got = {(r["roll"], net_of_text(r["play"])): r for r in stats(dataset, "opening-plays")}
    same(got, want)


def test_opening_outcomes(matches: list[MatchFacts], dataset: Path) -> None:
    tally: dict[tuple[str, Net], Counter[str]] = defaultdict(Counter)
    for g in all_games(matches):
        if g.opening and g.winner is not None:
            mover = g.opening[0]
            t = tally[g.opening[1], g.opening[2]]
            t["games"] += 1
            t["wins"] += g.winner == mover
            t["points"] += g.points if g.winner == mover else -g.points
            t["gammons"] += g.winner == mover and gammon(g)
    want = {
        key: {
            "games": t["games"],
            "mover_wins": t["wins"],
            "points_per_game": t["points"] / t["games"],
            "gammon_rate": t["gammons"] / t["games"],
            **with_ci("win", t["wins"], t["games"]),
        }
        for key, t in tally.items()
    }
    got = {(r["roll"], net_of_text(r["play"])): r for r in stats(dataset, "opening-outcomes")}
    same(got, want)


def test_reply_plays(matches: list[MatchFacts], dataset: Path) -> None:
    replies: Counter[tuple[str, Net, str, Net]] = Counter()
    for g in all_games(matches):
        if g.opening and g.reply and g.reply[1] is not None:
            replies[g.opening[1], g.opening[2], g.reply[0], g.reply[1]] += 1
    per_roll: Counter[tuple[str, Net, str]] = Counter()
    for key, n in replies.items():
        per_roll[key[:3]] += n
    want = {
        key: {"games": n, "reply_roll_games": per_roll[key[:3]], "share": n / per_roll[key[:3]]}
        for key, n in replies.items()
    }
    got = {
        (r["opening_roll"], net_of_text(r["opening_play"]), r["reply_roll"],
         net_of_text(r["reply_play"])): r for r in stats(dataset, "reply-plays")
    }  # fmt: skip
    same(got, want)


def test_first_mover(matches: list[MatchFacts], dataset: Path) -> None:
    games: dict[str, Counter[str]] = defaultdict(Counter)
    for g in all_games(matches):
        if g.opening and g.winner is not None:
            for label in (str(g.length) if g.length else "money", "all"):
                games[label]["games"] += 1
                games[label]["wins"] += g.winner == g.opening[0]
    for m in matches:
        first = m.games[0]
        if m.length and m.winner is not None and first.winner is not None:
            labels = [str(m.length)] + (["all"] if m.length > 1 else [])
            for label in labels:
                games[label]["matches"] += 1
                games[label]["game1"] += first.winner == m.winner
    want = {
        label: {
            "games": t["games"],
            "mover_wins": t["wins"],
            "matches": t["matches"],
            "game1_winner_won": t["game1"],
            **with_ci("mover_win", t["wins"], t["games"]),
            **with_ci("game1_match", t["game1"], t["matches"]),
        }
        for label, t in games.items()
    }
    got = {r["length"]: r for r in stats(dataset, "first-mover")}
    same(got, want)
    assert got["1"]["note"] == "game 1 is the match"
    assert "without 1-point matches" in got["all"]["note"]


def test_match_equity(matches: list[MatchFacts], dataset: Path) -> None:
    tally: dict[tuple[int, int, str], Counter[str]] = defaultdict(Counter)
    for m in matches:
        if not m.length or m.winner is None:
            continue
        for g in m.games:
            for me in (0, 1):
                a, b = away(g, me), away(g, 1 - me)
                assert a is not None and b is not None
                if 1 <= a <= 25 and 1 <= b <= 25:
                    tally[a, b, phase(g)]["sides"] += 1
                    tally[a, b, phase(g)]["wins"] += m.winner == me
    want: dict[Any, dict[str, Any]] = {}
    for key, t in tally.items():
        if key[0] == key[1]:
            # One game from both sides, one of which wins: 0.5, no interval.
            assert t["wins"] * 2 == t["sides"]
            want[key] = {"n": t["sides"] // 2, "wins": None, "mwc": 0.5, "mwc_lo": None}
        else:
            lo, hi = wilson(t["wins"], t["sides"])
            want[key] = {"n": t["sides"], "wins": t["wins"], "mwc_lo": lo, "mwc_hi": hi}
    got = {(r["away_me"], r["away_opp"], r["phase"]): r for r in stats(dataset, "match-equity")}
    same(got, want)


def test_cube_rates(matches: list[MatchFacts], dataset: Path) -> None:
    tally: dict[tuple[Any, ...], Counter[str]] = defaultdict(Counter)
    for g, _, o in all_offers(matches):
        kind = o.offer if o.offer != "double" else "redouble" if o.is_redouble else "initial"
        # Each offer counts in its score's row and in the 'all' row, which is tallied from
        # the offers themselves: its rates are over every answered offer, not the rows'.
        for key in ((away(g, o.doubler), away(g, 1 - o.doubler), kind), (None, None, "all")):
            t = tally[key]
            t["offers"] += 1
            t["answered"] += o.response != "none"
            t[o.response] += 1
            accepted = o.response in ("take", "beaver", "raccoon")
            t["done"] += accepted and g.winner is not None
            t["wins"] += accepted and g.winner == o.doubler
    want = {
        key: {
            "offers": t["offers"],
            "takes": t["take"],
            "drops": t["drop"],
            "beavers": t["beaver"] + t["raccoon"],
            "accepted_finished": t["done"],
            "doubler_wins": t["wins"],
            **with_ci("take", t["take"], t["answered"]),
            **with_ci("drop", t["drop"], t["answered"]),
            **with_ci("doubler_win", t["wins"], t["done"]),
        }
        for key, t in tally.items()
    }
    got = {(r["away_doubler"], r["away_taker"], r["kind"]): r for r in stats(dataset, "cube-rates")}
    same(got, want)
    assert {k[2] for k in want} >= {"initial", "redouble", "beaver", "raccoon", "all"}
    # The 'all' row is not the rows' sum of rates: recomputed from the other rows' counts.
    rows = [r for k, r in got.items() if k[2] != "all"]
    whole = got[None, None, "all"]
    assert whole["offers"] == sum(r["offers"] for r in rows)
    assert whole["takes"] == sum(r["takes"] for r in rows)
    answered = sum(r["takes"] + r["drops"] + r["beavers"] for r in rows)
    assert whole["take_rate"] == pytest.approx(whole["takes"] / answered, abs=1e-12)
    assert whole["doubler_wins"] == sum(r["doubler_wins"] for r in rows)


def test_cube_timing(matches: list[MatchFacts], dataset: Path) -> None:
    allowed = [g for g in all_games(matches) if g.cube_allowed]
    first = Counter(g.offers[0].move_no for g in allowed if g.offers)
    running = 0
    want = {}
    for move_no in sorted(first):
        running += first[move_no]
        want[move_no] = {
            "first_doubles": first[move_no],
            "games": len(allowed),
            "cumulative": running,
            "cumulative_share": running / len(allowed),
            **{k.replace("share_rate", "share"): v
               for k, v in with_ci("share", first[move_no], len(allowed)).items()},
        }  # fmt: skip
    same({r["move_no"]: r for r in stats(dataset, "cube-timing")}, want)


def test_take_outcomes(matches: list[MatchFacts], dataset: Path) -> None:
    tally: dict[int, Counter[str]] = defaultdict(Counter)
    for g, i, o in all_offers(matches):
        if o.response not in ("take", "beaver", "raccoon"):
            continue
        t = tally[2 * o.cube_before]
        t["accepted"] += 1
        t["beavered"] += o.response != "take"
        t["finished"] += g.winner is not None
        t["wins"] += g.winner == o.doubler
        t["recubes"] += recubed(g, i, o)
        t["doubler_gammons"] += g.winner == o.doubler and gammon(g)
        t["taker_gammons"] += g.winner == 1 - o.doubler and gammon(g)
        t["cube"] += g.final_cube
    want = {
        level: {
            "accepted": t["accepted"],
            "beavered": t["beavered"],
            "finished": t["finished"],
            "doubler_wins": t["wins"],
            "recubes": t["recubes"],
            "doubler_gammons": t["doubler_gammons"],
            "taker_gammons": t["taker_gammons"],
            "avg_final_cube": t["cube"] / t["accepted"],
            **with_ci("doubler_win", t["wins"], t["finished"]),
            **with_ci("recube", t["recubes"], t["accepted"]),
        }
        for level, t in tally.items()
    }
    same({r["cube_offered"]: r for r in stats(dataset, "take-outcomes")}, want)
    assert max(want) >= 8  # beavers and raccoons at their own levels


def test_gammon_by_cube(matches: list[MatchFacts], dataset: Path) -> None:
    tally: dict[int, Counter[str]] = defaultdict(Counter)
    for g in all_games(matches):
        if g.winner is None:
            continue
        t = tally[g.final_cube]
        t["games"] += 1
        t["dropped"] += g.end == "drop"
        if g.end != "drop":
            t[str(g.result)] += 1
    want = {
        cube: {
            "games": t["games"],
            "dropped": t["dropped"],
            "singles": t["single"],
            "gammons": t["gammon"],
            "backgammons": t["backgammon"],
            "gammon_lo": wilson(t["gammon"] + t["backgammon"], t["games"] - t["dropped"])[0],
        }
        for cube, t in tally.items()
    }
    same({r["final_cube"]: r for r in stats(dataset, "gammon-by-cube")}, want)


def test_gammon_by_score(matches: list[MatchFacts], dataset: Path) -> None:
    tally: dict[tuple[Any, ...], Counter[str]] = defaultdict(Counter)
    for g in all_games(matches):
        if g.winner is None:
            continue
        for me in (0, 1):
            t = tally[away(g, me), away(g, 1 - me), phase(g)]
            t["sides"] += 1
            t["won"] += g.winner == me and gammon(g)
            t["lost"] += g.winner != me and gammon(g)
    want: dict[Any, dict[str, Any]] = {}
    for key, t in tally.items():
        if key[0] is None or key[0] == key[1]:
            games, gammons = t["sides"] // 2, t["won"]
            want[key] = {"games": games, "gammons_won": None, "gammons_lost": None}
        else:
            games, gammons = t["sides"], t["won"] + t["lost"]
            want[key] = {
                "games": games,
                "gammons_won": t["won"],
                "gammons_lost": t["lost"],
                **with_ci("gammon_win", t["won"], games),
                **with_ci("gammon_loss", t["lost"], games),
            }
        want[key].update({"gammons": gammons, **with_ci("gammon", gammons, games)})
    got = {(r["away_me"], r["away_opp"], r["phase"]): r for r in stats(dataset, "gammon-by-score")}
    same(got, want)


def test_race_takes(matches: list[MatchFacts], dataset: Path) -> None:
    tally: dict[int, Counter[str]] = defaultdict(Counter)
    for g, _, o in all_offers(matches):
        if o.offer != "double" or not o.race or o.pips_doubler <= 0:
            continue
        deficit = math.floor(100 * (o.pips_taker - o.pips_doubler) / o.pips_doubler / 5) * 5
        t = tally[deficit]
        t["doubles"] += 1
        t["answered"] += o.response != "none"
        t[o.response] += 1
        accepted = o.response in ("take", "beaver")
        t["finished"] += accepted and g.winner is not None
        t["taker_wins"] += accepted and g.winner == 1 - o.doubler
    want = {
        d: {
            "deficit_pct_to": d + 5,
            "doubles": t["doubles"],
            "takes": t["take"],
            "beavers": t["beaver"],
            "drops": t["drop"],
            "finished": t["finished"],
            "taker_wins": t["taker_wins"],
            **with_ci("take", t["take"], t["answered"]),
            **with_ci("taker_win", t["taker_wins"], t["finished"]),
        }
        for d, t in tally.items()
    }
    same({r["deficit_pct"]: r for r in stats(dataset, "race-takes")}, want)
    assert want


def test_dice(matches: list[MatchFacts], dataset: Path) -> None:
    seen = Counter(r for g in all_games(matches) for r in g.rolls_after_opening)
    total = sum(seen.values())
    want: dict[str, dict[str, Any]] = {}
    chi2 = 0.0
    for hi in range(1, 7):
        for lo in range(1, hi + 1):
            p = (1 if hi == lo else 2) / 36
            roll = f"{hi}{lo}"
            part = (seen[roll] - p * total) ** 2 / (p * total)
            chi2 += part
            want[roll] = {"n": seen[roll], "expected": p * total, "chi2": part}
    # P(χ² with 20 degrees of freedom ≥ x), the closed form for an even df.
    x = chi2 / 2
    p_value = math.exp(-x) * sum(x**i / math.factorial(i) for i in range(10))
    want["total"] = {"n": total, "chi2": chi2, "p_value": p_value}
    same({r["roll"]: r for r in stats(dataset, "dice")}, want)


def test_player(matches: list[MatchFacts], dataset: Path) -> None:
    names: dict[str, str] = {}
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    for m in matches:
        for me in (0, 1):
            key = _key(m.players[me])
            names[key] = min(names.get(key, m.players[me]), m.players[me])
            t = tally[key]
            t["matches"] += 1
            t["decided"] += m.winner is not None
            t["match_wins"] += m.winner == me
            for g in m.games:
                t["games"] += 1
                t["done"] += g.winner is not None
                t["game_wins"] += g.winner == me
                t["gammons_won"] += g.winner == me and gammon(g)
                t["gammons_lost"] += g.winner == 1 - me and gammon(g)
                for o in g.offers:
                    if o.offer != "double":
                        continue  # a beaver or raccoon is not a double
                    t["doubles"] += o.doubler == me
                    if o.doubler != me and o.response != "none":
                        t["doubled"] += 1
                        t[o.response] += 1
    want = {
        names[key]: {
            "matches": t["matches"],
            "match_wins": t["match_wins"],
            "games": t["games"],
            "game_wins": t["game_wins"],
            "gammons_won": t["gammons_won"],
            "gammons_lost": t["gammons_lost"],
            "doubles": t["doubles"],
            "doubles_per_game": t["doubles"] / t["games"],
            "doubled": t["doubled"],
            "takes": t["take"],
            "beavers": t["beaver"],
            "drops": t["drop"],
            **with_ci("match_win", t["match_wins"], t["decided"]),
            **with_ci("game_win", t["game_wins"], t["done"]),
            **with_ci("take", t["take"], t["doubled"]),
        }
        for key, t in tally.items()
    }
    same({r["player"]: r for r in stats(dataset, "player")}, want)


def _listing() -> list[dict[str, Any]]:
    """Each sample match as a listing row would give it, from GNU's reading (players, length,
    final score, winner), the record's `EventDate` tag and `validate`'s findings."""
    rows = []
    for path in SAMPLE:
        truth = load_truth(path)
        [record] = read_path(path)
        written = record.tag("EventDate")
        date = written.replace(".", "-") if written else None
        out = runner.invoke(app, ["validate", str(path), "--format", "json"])
        [report] = [json.loads(line) for line in out.stdout.splitlines()]
        severities = Counter(f["severity"] for f in report.get("findings", []))
        rows.append(
            {
                "players": truth["players"],
                "length": truth["match_length"],
                "score": truth["final_score"],
                "winner": truth["match_winner"],
                "games": truth["n_games"],
                "date": date,
                "errors": severities["error"],
                "warnings": severities["warning"],
                "file": path.name,
            }
        )
    return rows


def _result(m: dict[str, Any], me: int) -> str:
    if m["length"] == 0:
        return "money"
    if m["winner"] is None:
        return "unfinished"
    return "won" if m["winner"] == me else "lost"


def test_matches(dataset: Path) -> None:
    want = {}
    for m in _listing():
        for me in (0, 1):
            want[m["file"], m["players"][me]] = {
                "date": m["date"],
                "player": m["players"][me],
                "opponent": m["players"][1 - me],
                "length": str(m["length"]) if m["length"] else "money",
                "score": m["score"][me],
                "opponent_score": m["score"][1 - me],
                "result": _result(m, me),
                "games": m["games"],
                "errors": m["errors"],
                "warnings": m["warnings"],
            }
    rows = stats(dataset, "matches")
    assert len(rows) == len(want)
    same({(Path(r["file"]).name, r["player"]): r for r in rows}, want)
    # Under --player: that player's side only, one row per match.
    name = max(_key(p) for m in _listing() for p in m["players"])
    mine = stats(dataset, "matches", "--player", name)
    assert mine and all(_key(r["player"]) == name for r in mine)
    assert len(mine) == sum(_key(p) == name for m in _listing() for p in m["players"])


def test_head_to_head(dataset: Path) -> None:
    tally: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    names: dict[str, str] = {}
    for m in _listing():
        for me in (0, 1):
            mine, theirs = m["players"][me], m["players"][1 - me]
            for n in (mine, theirs):
                names[_key(n)] = min(names.get(_key(n), n), n)
            t = tally[_key(mine), _key(theirs)]
            t["matches"] += 1
            outcome = _result(m, me)
            t["wins"] += outcome == "won"
            t["losses"] += outcome == "lost"
            t["points_won"] += m["score"][me]
            t["points_lost"] += m["score"][1 - me]
    want = {
        (names[a], names[b]): {
            "matches": t["matches"],
            "wins": t["wins"],
            "losses": t["losses"],
            "undecided": t["matches"] - t["wins"] - t["losses"],
            "points_won": t["points_won"],
            "points_lost": t["points_lost"],
            **with_ci("win", t["wins"], t["wins"] + t["losses"]),
        }
        for (a, b), t in tally.items()
    }
    same({(r["player"], r["opponent"]): r for r in stats(dataset, "head-to-head")}, want)


def _illegal_files() -> list[Path]:
    """The one-change files whose change is an error."""
    expected = CORPUS / "gnubg-illegal" / "EXPECTED.tsv"
    if not expected.is_file():
        return []
    with expected.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    folder = expected.parent
    return [folder / r["file"] for r in rows if r["expected"] == "error"]


def test_findings(tmp_path: Path) -> None:
    """Each file's findings as `validate` reports them, per severity and code. A few of these
    files are the same match (two illegal plays that both leave the board as it was): which
    copy is the duplicate is the match identity's judgement (test_right_facts.py tests it), so
    here a finding may sit in `findings` or in `duplicate_findings`, never in both or neither."""
    files = _illegal_files()
    if not files:
        pytest.skip("corpus folder gnubg-illegal is absent")
    tally: Counter[tuple[str, str]] = Counter()
    where: dict[tuple[str, str], set[tuple[str, int]]] = defaultdict(set)
    for path in files:
        out = runner.invoke(app, ["validate", str(path), "--format", "json"])
        for line in out.stdout.splitlines():
            report = json.loads(line)
            for f in report.get("findings", []):
                key = (f["severity"], f["code"])
                tally[key] += 1
                where[key].add((path.name, report["index"]))
    data = tmp_path / "data"
    run_import(files, data, ImportOptions(workers=1))
    got = {(r["severity"], r["code"]): r for r in stats(data, "findings")}
    assert sorted(got) == sorted(tally)
    for key, n in tally.items():
        row = got[key]
        assert row["findings"] + row["duplicate_findings"] == n, key
        assert row["files"] == len({name for name, _ in where[key]}), key
        assert 1 <= row["matches"] <= len(where[key]), key
    assert any(row["duplicate_findings"] for row in got.values())
    assert any(sev == "error" for sev, _ in tally)


def test_every_statistic_is_recomputed_here() -> None:
    names = {
        name.removeprefix("test_").replace("_", "-")
        for name in globals()
        if name.startswith("test_") and name != "test_every_statistic_is_recomputed_here"
    }
    # The analysis's statistics are recomputed from its decisions beside the engine's run:
    # tests/analysis/test_stats_analysis.py.
    assert set(STATISTICS) <= names | set(STATISTICS_TESTED)
