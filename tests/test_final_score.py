"""A game whose record writes its points capped to what the winner needed (R008) is stored
as the note says, and the final score is the sum of the stored games' points (passing the
length only where a game was worth more, as GNU Backgammon keeps it): import + query."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bgparse.cli import app
from bgparse.readers import iter_records
from bgparse.replay import replay

runner = CliRunner()


def _record(length: int, score: tuple[int, int], cube: bool, wins: int) -> str:
    rows = [
        f" {length} point match",
        "",
        " Game 1",
        f" Anna : {score[0]}                       Bo : {score[1]}",
        "  1) 31: 8/5 6/5                 42: 8/4 6/4 ",
    ]
    if cube:
        rows.append("  2)  Doubles => 2                Takes")
    rows += [
        f"  {len(rows) - 3}) 33: 13/10 13/10 6/3 6/3     ",
        f"      Wins {wins} points",
    ]
    return "".join(row + "\n" for row in rows)


#: 3-0 in a 5-point match, the cube at 2, Bo resigns and the record says 3 points: more than
#: Anna needed (2), less than the gammon it is worth (4). It was stored as 3, ending 6-0,
#: beside a note saying the points were capped to 2.
CAPPED = _record(5, (3, 0), cube=True, wins=3)
#: 4-0 in the Crawford game of a 5-point match, a gammon resigned: 2 points (1 needed), as
#: the record says and the rules agree: no note, 6-0 as GNU Backgammon scores it.
PAST = _record(5, (4, 0), cube=False, wins=2)


def test_the_stored_rows_say_what_the_note_says(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "capped.mat").write_text(CAPPED)
    (inputs / "past.mat").write_text(PAST)
    data = tmp_path / "data"
    done = runner.invoke(app, ["import", str(inputs), "--data", str(data), "--workers", "1"])
    assert done.exit_code == 0, done.output
    sql = (
        "SELECT regexp_extract(m.source_path, '[a-z]+[.]mat') AS file, m.final_score0,"
        " m.final_score1, m.winner, g.points, string_agg(f.code || ' ' || f.message, '; ')"
        " AS notes FROM matches m JOIN games g USING (match_uid)"
        " LEFT JOIN findings f ON f.match_uid = m.match_uid AND f.code = 'R008'"
        " GROUP BY ALL ORDER BY file"
    )
    query = runner.invoke(app, ["query", sql, "--data", str(data), "--format", "csv"])
    assert query.exit_code == 0, query.output
    assert query.output == (
        "file,final_score0,final_score1,winner,points,notes\n"
        'capped.mat,5,0,0,2,"R008 3 points: a resignation with the cube at 2 is'
        ' worth 4, capped to the 2 points the winner needed to win the match"\n'
        "past.mat,6,0,0,2,\n"
    )


def test_the_replay_scores_a_capped_game_as_its_note_says() -> None:
    [record] = iter_records(CAPPED.encode(), "capped.mat")
    match = replay(record)
    [game] = match.games
    [note] = [f for f in match.findings if f.code == "R008"]
    assert "capped to the 2 points" in note.message
    assert (game.score_before, game.points, match.final_score) == ((3, 0), 2, (5, 0))
