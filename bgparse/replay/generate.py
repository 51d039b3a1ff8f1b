"""The match generator: random legal self-play, deterministic for a seed, as verified matches that
the writers turn into `.mat` or SGF files (test corpora, benchmarks, sample files).

Every play comes from the rules engine's `legal_plays`; the game (board, cube, score, how it
ended) is the rules' `Game`, which the replay drives too, and the match `MatchState`. The
policy is simple on purpose, but it makes games with what records hold: hits and entries from
the bar (it prefers hitting and making points), closed boards, bear-offs, gammons, doubles with
takes and drops (by the pip count), beavers and raccoons in money play, no double in the
Crawford game, and now and then a resignation, before rolling or after (a roll not played, as
GNU records one).

What a generated match leaves out, for speed: the per-turn Position and Match IDs (empty strings,
as are the cube actions' IDs); replaying the written file gives them. The final Position and
Match ID of each game are filled in.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from bgparse.model.events import GENERATED, GENERATOR, MatchInfo
from bgparse.model.verified import CubeAction, Turn, VerifiedGame, VerifiedMatch
from bgparse.rules import (
    CubeState,
    MatchState,
    RuleSet,
    format_play,
    legal_plays,
)
from bgparse.rules.game import Game, Verdict
from bgparse.rules.scoring import jacoby_applies

__all__ = ["NAMES", "GeneratorPolicy", "generate_match", "generate_matches"]

#: Player names drawn for generated matches (two different ones per match).
NAMES = (
    "Alice",
    "Bob",
    "Carol",
    "Dave",
    "Erin",
    "Frank",
    "Grace",
    "Heidi",
    "Ivan",
    "Judy",
    "Mallory",
    "Niaj",
    "Olivia",
    "Peggy",
    "Sybil",
    "Trent",
)

#: A generated game that goes on longer than this many turns is a bug, not a long game.
_MAX_TURNS = 2000


@dataclass(frozen=True, slots=True)
class GeneratorPolicy:
    """The knobs of the self-play policy (probabilities are per decision)."""

    #: How often the play is the best by a quick heuristic (hits, points made, blots, checkers
    #: off) rather than a uniformly random legal play.
    greedy: float = 0.6
    #: Double when ahead by this fraction of one's own pip count (or by 8 pips, whichever is
    #: more) ...
    double_lead: float = 0.12
    #: ... with this probability; and now and then whatever the count says.
    double_rate: float = 0.25
    random_double: float = 0.02
    #: Drop when the doubler leads by more than this fraction of its pip count.
    drop_lead: float = 0.4
    #: In money play: beaver (or raccoon) a double when the pips say the doubler is behind.
    beaver_rate: float = 0.4
    #: ... and redouble a beaver (a raccoon) now and then whatever the pips say.
    raccoon_rate: float = 0.3
    #: Resign before rolling when behind by this many pips in a race (with `resign_rate`) ...
    resign_deficit: int = 40
    resign_rate: float = 0.3
    #: ... and of those, this share after rolling (the roll written, not played).
    resign_after_roll: float = 0.3


def generate_matches(
    count: int,
    length: int,
    seed: int,
    *,
    money: bool = False,
    policy: GeneratorPolicy = GeneratorPolicy(),
) -> Iterator[VerifiedMatch]:
    """`count` generated matches of `length` points (or money sessions of 2 to 6 games). Match
    i depends only on (seed, i), so any one of them can be made again alone."""
    for i in range(count):
        yield generate_match(f"{seed}:{i}", 0 if money else length, policy=policy, index=i)


def generate_match(
    seed: int | str,
    length: int,
    *,
    games: int | None = None,
    policy: GeneratorPolicy = GeneratorPolicy(),
    index: int = 0,
    rules: RuleSet | None = None,
) -> VerifiedMatch:
    """One match of `length` points played to its end, or, for `length` 0, a money session of
    `games` games (2 to 6, drawn from the seed, where None). `rules`: play under this rule set
    (made fit for the length) instead of the defaults drawn from the seed."""
    if length < 0:
        raise ValueError(f"match length must be 0 or more, not {length}")
    rng = random.Random(seed)
    first, second = rng.sample(NAMES, 2)
    default = RuleSet(crawford=True)
    if length == 0:
        # Money play: Jacoby on or off, beavers and raccoons up to three (GNU's default).
        default = RuleSet(jacoby=rng.random() < 0.5, beavers=3)
        if games is None:
            games = rng.randint(2, 6)
    rules = rules or default
    rules = rules.for_length(length)
    state = MatchState.new(length, rules)
    played: list[VerifiedGame] = []
    number = 0
    while not state.is_over and (length > 0 or number < (games or 0)):
        number += 1
        game = _Game(rng, policy, Game.next_of(state, rules), number).play()
        played.append(game)
        assert game.winner is not None
        state = state.finish_game(game.winner, game.points)
    return VerifiedMatch(
        path=f"generated-{seed}",
        index=index,
        format="generated",
        dialect=GENERATED,
        players=(first, second),
        length=length,
        info=MatchInfo(transcriber=GENERATOR),
        tags=(),
        games=tuple(played),
        final_score=state.scores,
        winner=state.winner,
        rules=rules.as_dict(),
    )


@dataclass(slots=True)
class _CubeRow:
    """A double (or beaver) awaiting the game's end to become a `CubeAction`."""

    turn: int
    doubler: int
    before: int  # the cube the offer starts from (after a beaver: the value just taken)
    after: int
    response: str = "none"
    offer: str = "double"  # double | beaver | raccoon


class _Game:
    """One game of self-play: the policy's choices, driving the rules' `Game` (which holds the
    board, cube, score and end), and the rows the verified game is made of."""

    def __init__(
        self, rng: random.Random, policy: GeneratorPolicy, game: Game, number: int
    ) -> None:
        self.rng = rng
        self.policy = policy
        self.game = game
        self.rules = game.rules
        self.number = number
        self.turns: list[Turn] = []
        self.cube_rows: list[_CubeRow] = []
        self.counts = {"plays": 0, "dances": 0, "doubles": 0, "takes": 0, "drops": 0, "beavers": 0}

    def turn(
        self,
        side: int,
        kind: str,
        *,
        dice: tuple[int, int] | None = None,
        steps: tuple[tuple[int, int, bool], ...] = (),
        n_legal: int | None = None,
        cube: CubeState | None = None,
        pips: tuple[int, int] = (0, 0),
    ) -> None:
        game = self.game
        c = cube or game.cube
        self.turns.append(
            Turn(
                game=self.number,
                ply=len(self.turns),
                side=side,
                kind=kind,
                line=0,
                column=0,
                position_id="",
                match_id="",
                dice=dice,
                steps=steps,
                play=format_play(steps) if steps else "",
                written="",
                hits=sum(1 for s in steps if s[2]),
                pips=pips,
                cube_value=c.value,
                cube_owner=c.owner if c.owner in (0, 1) else -1,
                legal=True if kind in ("play", "dance") else None,
                n_legal=n_legal,
                score=game.score,
                away=game.away(side),
                crawford=game.crawford,
            )
        )

    # --- the game --------------------------------------------------------------------------

    def play(self) -> VerifiedGame:
        rng = self.rng
        # The opening: each side throws one die until they differ; the higher plays both.
        while True:
            d0, d1 = rng.randint(1, 6), rng.randint(1, 6)
            if d0 != d1:
                break
        side = 0 if d0 > d1 else 1
        dice = (max(d0, d1), min(d0, d1))
        for _ in range(_MAX_TURNS):
            # No cube action or resignation before the opening roll.
            if self.turns and self.before_roll(side):
                break
            if self.turns:
                dice = (rng.randint(1, 6), rng.randint(1, 6))
            if self.roll(side, dice):
                break
            side = 1 - side
        else:  # pragma: no cover - random legal play always ends a game long before this
            raise RuntimeError("a generated game did not end")
        return self.finish()

    def before_roll(self, side: int) -> bool:
        """A resignation or a double (and its answer) before `side` rolls; True if either
        ends the game."""
        pos = self.game.board(side)
        mine, theirs = pos.pips()
        policy = self.policy
        rng = self.rng
        if (
            not pos.has_contact()
            and mine - theirs >= policy.resign_deficit
            and rng.random() < policy.resign_rate
            and rng.random() >= policy.resign_after_roll
        ):
            self.resign(side)
            return True
        if self.game.may_double(side):
            lead = theirs - mine
            wants = (
                lead > max(8.0, policy.double_lead * mine) and rng.random() < policy.double_rate
            ) or rng.random() < policy.random_double
            if wants:
                return self.double(side, lead, mine)
        return False

    def double(self, side: int, lead: int, pips: int) -> bool:
        """`side` doubles, ahead by `lead` pips with `pips` to go; the answer follows, with
        beavers and raccoons (money play) while the rules allow and the pips invite them.
        True if the double is dropped."""
        rng = self.rng
        policy = self.policy
        game = self.game
        to_go = {side: pips, 1 - side: pips + lead}
        before = game.cube
        _legal(game.double(side))
        self.counts["doubles"] += 1
        self.turn(side, "double", cube=before, pips=(to_go[side], to_go[1 - side]))
        self.cube_rows.append(_CubeRow(len(self.turns) - 1, side, before.value, 2 * before.value))
        doubler = side
        while True:
            answerer = 1 - doubler
            ahead = to_go[doubler] - to_go[answerer]  # the answerer's lead in pips
            answer_pips = (to_go[answerer], to_go[doubler])
            before = game.cube
            rate = policy.raccoon_rate if before.beavers else policy.beaver_rate
            if (
                game.may_beaver(answerer)
                and (ahead > 0 or before.beavers > 0)
                and rng.random() < rate
            ):
                _legal(game.beaver(answerer))
                kind = "raccoon" if before.beavers else "beaver"
                self.counts["beavers"] += 1
                self.cube_rows[-1].response = kind
                self.turn(answerer, kind, cube=before, pips=answer_pips)
                pending = game.cube.pending
                assert pending is not None
                self.cube_rows.append(
                    _CubeRow(
                        len(self.turns) - 1, answerer, game.cube.value, pending.value, offer=kind
                    )
                )
                doubler = answerer
                continue
            if -ahead > policy.drop_lead * to_go[doubler] + rng.uniform(-5.0, 5.0):
                _legal(game.drop(answerer))
                self.counts["drops"] += 1
                self.cube_rows[-1].response = "drop"
                self.turn(answerer, "drop", cube=before, pips=answer_pips)
                return True
            _legal(game.take(answerer))
            self.counts["takes"] += 1
            self.cube_rows[-1].response = "take"
            self.turn(answerer, "take", cube=before, pips=answer_pips)
            return False

    def roll(self, side: int, dice: tuple[int, int]) -> bool:
        """`side` rolls `dice` and plays (or resigns after rolling); True if the game ends."""
        rng = self.rng
        game = self.game
        pos = game.board(side)
        pips = pos.pips()
        _legal(game.roll(side, dice))
        plays = legal_plays(pos, dice)
        n = len(plays)
        if (
            n > 1
            and not pos.has_contact()
            and pips[0] - pips[1] >= self.policy.resign_deficit
            and rng.random() < self.policy.resign_rate * self.policy.resign_after_roll
        ):
            # Rolled, then resigned: the roll stands with no play (more than one legal play,
            # so a reader cannot take the roll for a forced or impossible one).
            self.counts["plays"] += 1
            self.turn(side, "hidden", dice=dice, pips=pips)
            game.passed(side)
            self.resign(side)
            return True
        if n == 1:
            play = plays[0]
        elif rng.random() < self.policy.greedy:
            play = max(plays, key=lambda p: _score(p.after.opponent, p.steps) + rng.random())
        else:
            play = plays[rng.randrange(n)]
        steps = tuple((s.src, s.dst, s.hit) for s in play.steps)
        self.counts["plays"] += 1
        if not steps:
            self.counts["dances"] += 1
        self.turn(side, "play" if steps else "dance", dice=dice, steps=steps, n_legal=n, pips=pips)
        return game.moved(side, play.after)

    def resign(self, loser: int) -> None:
        """`loser` gives the game up: a single game, or a gammon while it has borne nothing off
        (where the Jacoby rule would make a resigned gammon worth a single, always a single)."""
        game = self.game
        pos = game.board(loser)
        level = 1
        jacoby = jacoby_applies(self.rules, cube_used=game.cube.used, length=game.length)
        if pos.off()[0] == 0 and not jacoby and self.rng.random() < 0.3:
            level = 2
        game.resigned(1 - loser, level, game.resignation_value(level))

    def finish(self) -> VerifiedGame:
        game = self.game
        winner = game.winner
        assert winner is not None
        points = game.points
        cube = game.cube
        owner = cube.owner if cube.owner in (0, 1) else -1
        actions = tuple(
            CubeAction(
                game=self.number,
                turn=row.turn,
                doubler=row.doubler,
                cube_before=row.before,
                cube_after=row.after
                if row.response in ("take", "beaver", "raccoon")
                else row.before,
                response=row.response,
                position_id="",
                match_id="",
                pips=self.turns[row.turn].pips,
                score=game.score,
                away=game.away(row.doubler),
                crawford=game.crawford,
                line=0,
                column=0,
                doubler_result=points if winner == row.doubler else -points,
                offer=row.offer,
            )
            for row in self.cube_rows
        )
        counts = self.counts
        return VerifiedGame(
            number=self.number,
            score_before=game.score,
            score_written=game.score,
            winner=winner,
            points=points,
            end=game.end,
            result_type=game.result,
            cube=cube.value,
            cube_owner=owner,
            crawford=game.crawford,
            plays=counts["plays"],
            doubles=counts["doubles"],
            takes=counts["takes"],
            drops=counts["drops"],
            beavers=counts["beavers"],
            dances=counts["dances"],
            final_position_id=game.position.position_id(),
            final_match_id=game.match_id_after(),
            line=0,
            turns=tuple(self.turns),
            cube_actions=actions,
            resign_level=game.resign_level,
            post_crawford=game.post_crawford,
            jacoby_applied=game.jacoby_applied,
        )


def _legal(verdicts: tuple[Verdict, ...]) -> None:
    """The policy only takes actions the rules allow: a verdict here is a bug (a dead cube
    taken is legal, only noted)."""
    for v in verdicts:
        if v.reason != "dead-cube-taken":
            raise AssertionError(f"the generator broke a rule: {v.message}")


def _score(board: tuple[int, ...], steps: tuple[tuple[int, int, bool], ...]) -> float:
    """A play's appeal for the greedy policy, from the mover's board after it: hits, points
    held (two or more checkers), blots left, checkers borne off."""
    hits = sum(1 for s in steps if s[2])
    blots = board.count(1)
    held = 26 - board.count(0) - blots
    return 3.0 * hits + 1.5 * held - blots - 2.0 * sum(board)
