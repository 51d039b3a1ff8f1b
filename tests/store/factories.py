"""Hand-made verified matches for the store's tests: a JSON-able spec, and `build` to turn it
into the `VerifiedMatch` the replay would produce (cube state, scores, Crawford, counts)."""

from __future__ import annotations

import base64
import json
import multiprocessing
import os
from typing import Any

from bgparse.model.events import MatchInfo
from bgparse.model.findings import Finding, SyntaxRecordError
from bgparse.model.verified import CubeAction, ResolvedStep, Turn, VerifiedGame, VerifiedMatch
from bgparse.rules import MatchState, Position, RuleSet
from bgparse.rules.game import Game

START = "4HPwATDgc/ABMA"
Spec = dict[str, Any]


def position_id(mine: dict[int, int], theirs: dict[int, int]) -> str:
    """A GNU Position ID from two {point: checkers} maps (own numbering, 25 = bar)."""
    bits = ""
    for side in (mine, theirs):
        for point in range(1, 26):
            bits += "1" * side.get(point, 0) + "0"
    bits = bits.ljust(80, "0")
    value = int(bits[::-1], 2)
    return base64.b64encode(value.to_bytes(10, "little")).decode().rstrip("=")


def race(pid: str) -> bool:
    return Position.from_position_id(pid).is_race()


#: Both sides in their home boards: no contact.
RACE = position_id({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})


def roll(side: int, dice: str, play: str = "", **kw: Any) -> Spec:
    steps = kw.pop("steps", None)
    if steps is None and play:
        steps = [
            [int(p.split("/")[0]), int(p.split("/")[-1].rstrip("*")), p.endswith("*")]
            for p in play.split()
        ]
    return {"kind": "play", "side": side, "dice": dice, "play": play, "steps": steps or [], **kw}


def dance(side: int, dice: str, **kw: Any) -> Spec:
    return {"kind": "dance", "side": side, "dice": dice, **kw}


def hidden(side: int, dice: str, **kw: Any) -> Spec:
    return {"kind": "hidden", "side": side, "dice": dice, **kw}


def double(side: int, **kw: Any) -> Spec:
    return {"kind": "double", "side": side, **kw}


def take(side: int) -> Spec:
    return {"kind": "take", "side": side}


def drop(side: int) -> Spec:
    return {"kind": "drop", "side": side}


def beaver(side: int) -> Spec:
    return {"kind": "beaver", "side": side}


def game(*actions: Spec, winner: int | None, result: str = "single", end: str = "normal") -> Spec:
    return {"actions": list(actions), "winner": winner, "result": result, "end": end}


def match(
    *games: Spec,
    players: tuple[str, str] = ("Alice", "Bob"),
    length: int = 5,
    date: str | None = "2021-03-04",
    dialect: str = "test",
    findings: list[dict[str, Any]] | None = None,
) -> Spec:
    return {
        "players": list(players),
        "length": length,
        "date": date,
        "dialect": dialect,
        "games": list(games),
        "findings": findings or [],
    }


_LEVELS = {"single": 1, "gammon": 2, "backgammon": 3}


def build(spec: Spec, path: str = "test.mat", index: int = 0) -> VerifiedMatch:
    """The verified match of a spec. The game (cube, turn, score, Crawford, how it ended and
    its points) is the rules' own `Game` and `MatchState`, driven by the spec's actions as the
    replay drives them; positions, pips and plays are the spec's (they are not checked)."""
    length = spec["length"]
    rules = RuleSet().for_length(length)
    state = MatchState.new(length, rules)
    games: list[VerifiedGame] = []
    for number, gs in enumerate(spec["games"], start=1):
        g = Game.next_of(state, rules)
        score, crawford = g.score, g.crawford
        turns: list[Turn] = []
        cubes: list[dict[str, Any]] = []
        counts = dict.fromkeys(("play", "dance", "double", "take", "drop", "beaver"), 0)
        for i, a in enumerate(gs["actions"]):
            side = a["side"]
            kind = a["kind"]
            dice = (int(a["dice"][0]), int(a["dice"][1])) if "dice" in a else None
            pips = tuple(a.get("pips", (167, 167)))
            away = g.away(side)
            cube, owner = g.cube.value, g.cube.owner
            turns.append(
                Turn(
                    game=number,
                    ply=i,
                    side=side,
                    kind=kind,
                    line=10 * number + i,
                    column=5,
                    position_id=a.get("pos", START),
                    match_id="cAkAAAAAAAAA",
                    dice=dice,
                    steps=tuple(ResolvedStep(s, d, h) for s, d, h in a.get("steps", [])),
                    play=a.get("play", ""),
                    written=a.get("play", ""),
                    hits=sum(1 for *_, h in a.get("steps", []) if h),
                    pips=(pips[0], pips[1]),
                    cube_value=cube,
                    cube_owner=owner,
                    legal=True if kind == "play" else None,
                    score=score,
                    away=away,
                    crawford=crawford,
                    race=race(a.get("pos", START)),
                )
            )
            counts[kind] = counts.get(kind, 0) + 1
            # The spec's actions stand as written (a spec may break a rule on purpose).
            if dice is not None:
                g.before_roll()
                g.roll(side, dice)
            elif kind == "double":
                g.double(side)
                cubes.append(
                    {"turn": i, "doubler": side, "before": cube, "after": cube, "response": "none"}
                    | {"pips": pips, "pos": a.get("pos", START), "away": away}
                )
            elif kind == "take":
                g.take(side)
                cubes[-1].update(after=g.cube.value, response="take")
            elif kind == "beaver":
                # A beaver with no 'Takes' after it: taken as the next roll takes it.
                g.beaver(side)
                g.before_roll()
                cubes[-1].update(after=g.cube.value, response="beaver")
            elif kind == "drop":
                g.drop(side)
                cubes[-1].update(response="drop")
        winner = gs["winner"]
        if winner is not None and not g.over:
            if gs["end"] == "resign":
                level = _LEVELS[gs["result"]]
                g.resigned(winner, level, g.resignation_value(level))
            else:
                g.bore_off(winner, gs["result"])
        points = g.points if winner is not None else 0
        actions = [
            CubeAction(
                game=number,
                turn=c["turn"],
                doubler=c["doubler"],
                cube_before=c["before"],
                cube_after=c["after"],
                response=c["response"],
                position_id=c["pos"],
                match_id="cAkAAAAAAAAA",
                pips=c["pips"],
                score=score,
                away=c["away"],
                crawford=crawford,
                line=10 * number + c["turn"],
                column=5,
                doubler_result=None
                if winner is None
                else (points if winner == c["doubler"] else -points),
                race=race(c["pos"]),
            )
            for c in cubes
        ]
        games.append(
            VerifiedGame(
                number=number,
                score_before=score,
                score_written=score,
                winner=winner,
                points=points,
                end=g.end,
                result_type=g.result if winner is not None else None,
                cube=g.cube.value,
                cube_owner=g.cube.owner,
                crawford=crawford,
                plays=counts["play"],
                doubles=counts["double"],
                takes=counts["take"],
                drops=counts["drop"],
                beavers=counts["beaver"],
                dances=counts["dance"],
                final_position_id=START,
                final_match_id="cAkAAAAAAAAA",
                line=10 * number,
                turns=tuple(turns),
                cube_actions=tuple(actions),
            )
        )
        if winner is not None:
            state = state.finish_game(winner, points)
    findings = tuple(
        Finding.make(f["code"], f.get("message", "test finding"), f.get("line", 1), 1)
        for f in spec.get("findings", [])
    )
    players = (spec["players"][0], spec["players"][1])
    return VerifiedMatch(
        path=path,
        index=index,
        format="mat",
        dialect=spec.get("dialect", "test"),
        players=players,
        length=length,
        info=MatchInfo(event_date=spec.get("date")),
        tags=(("EventDate", spec.get("date") or ""),),
        games=tuple(games),
        final_score=state.scores,
        winner=state.winner,
        findings=findings,
        rules={"crawford": True, "jacoby": False},
    )


def encode(*specs: Spec) -> bytes:
    """The bytes of a fake match file holding these matches (read back by `fake_verify`)."""
    return json.dumps(list(specs)).encode()


def fake_verify(data: bytes, path: str) -> list[VerifiedMatch]:
    """A stand-in for readers + replay over `encode`d files: empty and non-JSON files are
    refused as the real readers would; a file saying "crash" raises an internal error."""
    if not data.strip():
        raise SyntaxRecordError(Finding.make("S001", "file is empty", 1, 1), path)
    if data.strip() == b"crash":
        raise RuntimeError("boom")
    if data.strip() == b"die" and multiprocessing.parent_process() is not None:
        os._exit(3)  # a worker process dying (as when the kernel kills it for memory)
    try:
        specs = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise SyntaxRecordError(
            Finding.make("S002", "file holds binary data", 1, 1), path
        ) from None
    return [build(s, path, i) for i, s in enumerate(specs)]
