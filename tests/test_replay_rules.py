"""Rules the record does not state, read from the record itself: the Jacoby rule from a money
session's running score, and the Crawford rule when only assumed. The records are legal
matches made by bgparse's generator and written as GNU writes them, then edited the way GNU's
own exports differ (GNU writes a 'Wins' line without the Jacoby rule, and no Crawford tag)."""

from __future__ import annotations

import re

from bgparse.model.findings import Severity
from bgparse.model.verified import VerifiedMatch
from bgparse.readers import iter_records
from bgparse.replay import replay
from bgparse.replay.generate import GeneratorPolicy, generate_match
from bgparse.writers import write_mat

NO_CUBE = GeneratorPolicy(double_rate=0.0, random_double=0.0, resign_rate=0.0)


def read(text: str) -> VerifiedMatch:
    [rec] = iter_records(text.encode(), "test.mat")
    return replay(rec)


def errors(m: VerifiedMatch) -> list[str]:
    return [f"{f.code} {f.message}" for f in m.findings if f.severity is Severity.ERROR]


def jacoby_session() -> tuple[str, VerifiedMatch]:
    """A money session without the Jacoby rule whose first game is a gammon with the cube
    never turned (2 points), a single and another game after it."""
    m = generate_match("jac:0", 0, games=3, policy=NO_CUBE)
    assert m.rules["jacoby"] is False
    assert [(g.end, g.result_type, g.cube, g.points) for g in m.games[:2]] == [
        ("normal", "gammon", 1, 2),
        ("normal", "single", 1, 1),
    ]
    return write_mat(m), m


def test_gammon_scored_single_by_the_next_score_line_is_the_jacoby_rule() -> None:
    text, original = jacoby_session()
    # GNU's export of the same session played with the Jacoby rule: its 'Wins' line still
    # says 2 points, its score lines count the game as 1.
    left = original.players[0]
    edited = re.sub(
        rf"(?m)^( {left} : )(\d+)",
        lambda m: m[1] + str(max(int(m[2]) - 1, 0)),
        text,
    )
    assert edited.count(f" {left} : 1 ") == 1 and "Wins 2 points" in edited
    m = read(edited)
    assert errors(m) == []
    assert m.rules["jacoby"] is True
    first = m.games[0]
    assert (first.points, first.result_type, first.jacoby_applied) == (1, "single", True)
    notes = [f for f in m.findings if f.code == "R010"]
    assert notes and all(f.severity is Severity.INFO for f in notes)
    assert any("the next game's score counts 1" in f.message for f in notes)
    assert m.games[1].score_before == (1, 0)
    # The last game has no score line after it: its 'Wins 2 points' (GNU writes it without
    # the rule) is scored by the rule the session was played under, with a note.
    last = m.games[-1]
    assert (last.points, last.result_type, last.jacoby_applied) == (1, "single", True)
    assert m.final_score == (2, 1)
    assert any(f.code == "R001" and f.severity is Severity.INFO for f in m.findings)


def test_gammon_scored_in_full_by_the_next_score_line_is_no_jacoby() -> None:
    text, _ = jacoby_session()
    m = read(text)
    assert errors(m) == [] and m.rules["jacoby"] is False
    first = m.games[0]
    assert (first.points, first.result_type, first.jacoby_applied) == (2, "gammon", False)
    assert not [f for f in m.findings if f.code == "R010"]


def crawford_double_match() -> str:
    """A 3-point match whose Crawford game holds a double (a match played without the rule)."""
    from bgparse.rules import RuleSet

    for i in range(400):
        m = generate_match(f"crawford:{i}", 3)
        # Played with the rule, the generator never doubles in the Crawford game: make one.
        crawford = [g for g in m.games if g.crawford]
        if crawford and crawford[0].plays >= 2:
            text = write_mat(m)
            number = crawford[0].number
            head, sep, rest = text.partition(f" Game {number}\n")
            lines = rest.split("\n")
            # The first row with two plays: the right player doubles instead of playing,
            # the left player takes, and the right player's roll moves to the next row.
            for k, line in enumerate(lines[2:], start=2):
                cells = re.match(r"(\s*\d+\) )(\d\d: .*?)\s{2,}(\d\d: .*)$", line)
                if cells:
                    lines[k] = f"{cells[1]}{cells[2]:<29} Doubles => 2"
                    lines.insert(k + 1, f"{' ' * len(cells[1])}{'Takes':<29} {cells[3]}")
                    break
            else:
                continue
            assert RuleSet().crawford
            return head + sep + "\n".join(lines)
    raise AssertionError("no generated match with a Crawford game of two plays")


def test_double_in_an_assumed_crawford_game_is_an_error() -> None:
    """Match play uses the Crawford rule unless the record or the user says otherwise: a
    double in the Crawford game is an error at its line, the message saying the rule was
    assumed; --no-crawford turns it off (issue 12, fact 5)."""
    text = crawford_double_match()
    m = read(text)
    c007 = [f for f in m.findings if f.code == "C007"]
    assert len(c007) == 1 and c007[0].severity is Severity.ERROR
    assert not m.ok
    assert "the Crawford rule is assumed" in c007[0].message
    assert "--no-crawford" in c007[0].message
    source = text.split("\n")[c007[0].line - 1]
    assert source[c007[0].column - 1 :].startswith("Doubles => 2")
    stated = read('; [Crawford "On"]\n' + text)
    [f] = [f for f in stated.findings if f.code == "C007"]
    assert f.severity is Severity.ERROR and "assumed" not in f.message
    [rec] = iter_records(text.encode(), "test.mat")
    off = replay(rec, {"crawford": False})
    assert not [f for f in off.findings if f.code == "C007"]


def test_a_record_of_nothing_but_illegal_plays_is_reported_within_bounds() -> None:
    """3,000 rolls with no play written, nested as SGF variations: every one is reported, the
    board is shown under the first 200 only, and once the search for the board after each
    has used its budget a single N004 says so (the cost stays linear in the file)."""
    text = "(;FF[4]GM[6]" + "(;B[31]" * 3000 + ")" * 3000 + ")"
    [rec] = iter_records(text.encode(), "hostile.sgf")
    m = replay(rec, keep_turns=False)
    p001 = [f for f in m.findings if f.code == "P001"]
    assert len(p001) >= 2999
    assert all(f.detail for f in p001[:200]) and not any(f.detail for f in p001[200:])
    [n004] = [f for f in m.findings if f.code == "N004"]
    assert n004.severity is Severity.INFO and n004.line == 1


def test_a_score_line_without_the_automatic_doubles_is_named() -> None:
    """GNU Backgammon's money sessions played without a display record a game's automatic
    doubles (CV[2]) but keep the cube at 1 for the score: its next score line counts the game
    at half. The error stays (the record contradicts itself) and says what the difference is;
    a difference of anything else gets no such note."""
    game = (
        "(;FF[4]GM[6]MI[length:0][game:{n}][ws:{ws}][bs:{bs}]PW[Al]PB[Bo]{extra}RE[{re}]{body})\n"
    )
    first = game.format(
        n=0, ws=0, bs=0, extra="CV[2]", re="B+2", body=";W[31hefe];B[double];W[drop]"
    )

    def second(bs: int) -> str:
        return game.format(
            n=1, ws=0, bs=bs, extra="", re="W+1", body=";W[31hefe];B[double];W[take]"
        )

    def r002(bs: int) -> list[str]:
        [rec] = iter_records((first + second(bs)).encode(), "session.sgf")
        m = replay(rec)
        assert m.games[0].points == 2  # the cube was 2 from the start, doubled to 4, dropped
        return [f.message for f in m.findings if f.code == "R002"]

    assert r002(2) == []
    [message] = r002(1)
    assert message.startswith("game 2 starts at 0-1, but the games before it make 0-2")
    assert "counts game 1's 2 points as 1" in message
    assert "automatic doubles that started its cube at 2" in message
    [other] = r002(3)
    assert other == "game 2 starts at 0-3, but the games before it make 0-2"


def test_a_mat_score_line_with_automatic_doubles_the_record_cannot_show_is_named() -> None:
    """A `.mat` has no place for automatic doubles, yet GNU's score lines count them (a game
    won at cube 1 as written, scored at twice as many points): R002 stays an error and says
    the difference is that; any other difference gets no such note."""
    m = generate_match("auto:0", 0, games=2, policy=NO_CUBE)
    assert [(g.winner, g.points) for g in m.games] == [(0, 1), (0, 1)]
    left = m.players[0]
    text = write_mat(m)
    assert text.count(f" {left} : 1 ") == 1

    def r002(score: int) -> list[str]:
        edited = text.replace(f" {left} : 1 ", f" {left} : {score} ")
        return [f.message for f in read(edited).findings if f.code == "R002"]

    [message] = r002(2)
    assert message.startswith("game 2 starts at 2-0, but the games before it make 1-0")
    assert "counts game 1's 1 point as 2, 2 times as many" in message
    assert "automatic doubles the record does not show had started its cube at 2" in message
    assert message.endswith("; a .mat cannot write them)")
    assert "4 times as many" in r002(4)[0]
    assert r002(3) == ["game 2 starts at 3-0, but the games before it make 1-0"]
