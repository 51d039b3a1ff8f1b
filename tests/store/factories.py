"""Hand-made verified matches for the store's tests: a JSON-able spec, and `build` to turn it
into the `VerifiedMatch` the replay would produce (cube state, scores, Crawford, counts)."""

from __future__ import annotations

import base64
import json
import multiprocessing
import os
from typing import Any

from bgparse.events import MatchInfo
from bgparse.findings import Finding, SyntaxRecordError
from bgparse.rules import Position
from bgparse.verified import CubeAction, ResolvedStep, Turn, VerifiedGame, VerifiedMatch

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


_MULT = {"single": 1, "gammon": 2, "backgammon": 3}


def build(spec: Spec, path: str = "test.mat", index: int = 0) -> VerifiedMatch:
    length = spec["length"]
    score = [0, 0]
    crawford_used = False
    games: list[VerifiedGame] = []
    for number, gs in enumerate(spec["games"], start=1):
        away_both = [length - score[0], length - score[1]] if length else None
        crawford = bool(length and not crawford_used and away_both and 1 in away_both)
        crawford_used = crawford_used or crawford
        cube, owner = 1, -1
        turns: list[Turn] = []
        cubes: list[dict[str, Any]] = []
        counts = dict.fromkeys(("play", "dance", "double", "take", "drop", "beaver"), 0)
        for i, a in enumerate(gs["actions"]):
            side = a["side"]
            kind = a["kind"]
            dice = (int(a["dice"][0]), int(a["dice"][1])) if "dice" in a else None
            pips = tuple(a.get("pips", (167, 167)))
            away = (length - score[side], length - score[1 - side]) if length else None
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
                    score=(score[0], score[1]),
                    away=away,
                    crawford=crawford,
                    race=race(a.get("pos", START)),
                )
            )
            counts[kind] = counts.get(kind, 0) + 1
            if kind == "double":
                cubes.append(
                    {"turn": i, "doubler": side, "before": cube, "after": cube, "response": "none"}
                    | {"pips": pips, "pos": a.get("pos", START), "away": away}
                )
            elif kind in ("take", "beaver"):
                cube *= 2 if kind == "take" else 4
                owner = side
                cubes[-1].update(after=cube, response=kind)
            elif kind == "drop":
                cubes[-1].update(response="drop")
        winner = gs["winner"]
        end = gs["end"]
        if end == "drop":
            points = cubes[-1]["before"]
            result_type: str | None = "single"
        elif winner is None:
            points, result_type = 0, None
        else:
            points = cube * _MULT[gs["result"]]
            result_type = gs["result"]
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
                score=(score[0], score[1]),
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
                score_before=(score[0], score[1]),
                score_written=(score[0], score[1]),
                winner=winner,
                points=points,
                end=end if winner is not None else "unfinished",
                result_type=result_type,
                cube=cube,
                cube_owner=owner,
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
            score[winner] += points
    match_winner = None
    if length:
        match_winner = next((s for s in (0, 1) if score[s] >= length), None)
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
        final_score=(score[0], score[1]),
        winner=match_winner,
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
