"""Writes sample_logs/mat/: one small record per dialect quirk the .mat reader accepts.

Every sample is a legal match bgparse generated itself (`bgparse.replay.generate`), written by its own
writer in the layout of the producer the quirk comes from (`MatStyle`), and, where no writer knob
covers a quirk (hidden plays, Snowie dumps, XG set-up lines, Galaxy's stray row numbers,
encodings), edited afterwards by the small functions below. Nothing here is copied from any
other program's files. Run from the project root to regenerate (deterministic):

    .venv/bin/python tests/make_samples.py
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bgparse.model.verified import VerifiedMatch
from bgparse.readers import iter_records
from bgparse.replay import replay
from bgparse.replay.generate import generate_match
from bgparse.rules import Position
from bgparse.rules.ids import encode_xgid_board
from bgparse.writers.mat import MatStyle, write_mat

OUT = Path(__file__).resolve().parents[1] / "sample_logs" / "mat"

STUDIO = MatStyle(
    bar="bar",
    off="off",
    counts=True,
    merge=True,
    dance="cannot-move",
    right_column=40,
    row_number_width="growing",
    result="in-row",
    plural="always-singular",
    leading_space=False,
)
XG_TEXT = MatStyle(
    bar="Bar",
    off="Off",
    counts=True,
    merge=True,
    dance="cannot-move",
    right_column=39,
    plural="always-singular",
    and_match=True,
    newline="\r\n",
)
GALAXY_A = MatStyle(
    stars=False,
    dance="empty",
    plural="always-singular",
    and_match=True,
    losses_line=True,
    leading_space=False,
)
XG_MOBILE = MatStyle(
    stars=False,
    dice_order="as-rolled",
    dance="empty",
    right_column=37,
    result="in-row",
    plural="always-singular",
    leading_space=False,
)
CHOUE = MatStyle(
    bar="bar",
    off="off",
    counts=True,
    dance="cannot-move",
    score_colon=": ",
    cube_leading_space=False,
    arrow="==>",
    leading_space=False,
)
OPENGAMMON = MatStyle(
    dice_order="as-rolled",
    right_column=44,
    plural="always-plural",
    score_colon=": ",
    cube_leading_space=False,
    dance="empty",
)


def match(seed: int, length: int, **tags: str) -> VerifiedMatch:
    """A generated match carrying exactly the given header tags."""
    m = generate_match(seed, length)
    return replace(m, format="mat", tags=tuple((k.replace("_", " "), v) for k, v in tags.items()))


def find(length: int, want: Callable[[VerifiedMatch], bool], start: int = 1) -> VerifiedMatch:
    """The first generated match (by seed) that shows what a sample needs."""
    for seed in range(start, start + 5000):
        m = generate_match(seed, length)
        if want(m):
            return replace(m, format="mat", tags=())
    raise RuntimeError("no generated match shows what the sample needs")


def edits(edit: Callable[[str], str], text: str) -> bool:
    """Whether an edit finds what it needs in `text`."""
    try:
        edit(text)
    except RuntimeError:
        return False
    return True


def has_kind(kind: str) -> Callable[[VerifiedMatch], bool]:
    return lambda m: any(t.kind == kind for g in m.games for t in g.turns)


def retag(m: VerifiedMatch, **tags: str) -> VerifiedMatch:
    return replace(m, tags=tuple((k.replace("_", " "), v) for k, v in tags.items()))


# --- edits for quirks no writer knob makes ------------------------------------------------------


def edit_last_dance(text: str, new: Callable[[str], str]) -> str:
    """Rewrite the right-hand dance cell (`DD: ` at a line's end) of one row."""
    lines = text.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        m = re.search(r"(\d\d): $", lines[i])
        if m and re.match(r"\s*\d+\)", lines[i]):
            lines[i] = lines[i][: m.start()] + new(m.group(1))
            return "\n".join(lines)
    raise RuntimeError("no right-hand dance to edit")


def three_dance_forms(text: str) -> str:
    text = edit_last_dance(text, lambda d: f"{d}:")
    return edit_last_dance(text, lambda d: f"{d}: Cannot Move")


def hidden_play(text: str) -> str:
    """A resignation after rolling, as XG writes it: the roll's play shown as `???`."""
    out = re.sub(r"(\d\d): *\n(\s+Wins)", r"\1: ???\n\2", text, count=1)
    if out == text:  # the result in the same row: keep its column
        out = re.sub(r"(\d\d):    ( +Wins)", r"\1: ???\2", text, count=1)
    if out == text:
        raise RuntimeError("no roll before a resignation")
    return out


def resign_before_roll(text: str) -> str:
    """Backgammon Studio's `00: ????`: the loser resigns before rolling, in its own cell of the
    row where the winner's `Wins` stands."""
    out = re.sub(r"^(\s*\d+\) )( {9})( *Wins)", r"\g<1>00: ????\3", text, count=1, flags=re.M)
    if out == text:
        raise RuntimeError("no result in the right-hand cell of an otherwise empty row")
    return out


def stray_row_number(text: str) -> str:
    """Backgammon Galaxy sometimes appends a row (`14)  Losses ...  Wins ...`) to the end of
    the line before it, row number and all."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"\s*(\d+\))\s+(Losses.*)$", line)
        if m and i > 0 and re.match(r"\s*\d+\) \d\d: \S", lines[i - 1]):
            lines[i - 1] = f"{lines[i - 1].rstrip()}      {m.group(1)}  {m.group(2)}"
            del lines[i]
            return "\n".join(lines)
    raise RuntimeError("no Losses row after a roll")


def to_tabs(text: str, column: int = 40) -> str:
    """Padding written with tabs at 8-column stops, as some transcribers do: the blanks before
    a right cell that starts at `column` (a multiple of 8) become tabs."""
    out = []
    for line in text.split("\n"):
        if len(line) > column and line[column] != " " and line[column - 1] == " ":
            head = line[:column].rstrip(" ")
            if head:
                # One tab to the next stop after the left cell, then one per 8 columns.
                next_stop = -(-len(head) // 8) * 8
                count = (column - next_stop) // 8 + (1 if next_stop > len(head) else 0)
                candidate = head + "\t" * count + line[column:]
                if candidate.expandtabs(8)[column:] == line[column:]:
                    line = candidate
        out.append(line)
    return "\n".join(out)


def reread(text: str) -> VerifiedMatch:
    """The written text read and replayed again: its turns carry the lines of that text."""
    [record] = iter_records(text.encode("utf-8"), "sample")
    return replay(record)


def illegal_play_dump(text: str) -> str:
    """XG/Snowie's `Illegal play (...)`: a producer that cannot write a play replaces it by a
    40-field dump of the board for the player to roll next, with that player's dice."""
    m = reread(text)
    game = m.games[0]
    plays = [t for t in game.turns if t.kind == "play"]
    target, nxt = plays[5], plays[6]
    pos = Position.from_position_id(nxt.position_id)
    points = [pos.mover[p] - pos.opponent[25 - p] for p in range(1, 25)]
    names = (m.players[nxt.side], m.players[target.side])
    dice = nxt.dice or (0, 0)
    fields = [
        str(m.length), "0", "1", "0", "0", *names, "0",
        str(game.score_before[nxt.side]), str(game.score_before[target.side]),
        str(nxt.cube_value), "0", str(pos.opponent[25]), *map(str, points), str(pos.mover[25]),
        str(max(dice)), str(min(dice)),
    ]  # fmt: skip
    lines = text.split("\n")
    line = lines[target.line - 1]
    start = target.column - 1
    cell = line[start:].split("  ")[0].rstrip()
    dump = f"{cell[:3]} Illegal play ({';'.join(fields)};)"
    rest = line[start + len(cell) :].lstrip()
    lines[target.line - 1] = (line[:start] + dump + ("  " + rest if rest else "")).rstrip()
    return "\n".join(lines)


def set_position(text: str) -> str:
    """XG's `; Set Pos=`: a game whose first rows are cut and replaced by the board they led to
    (uppercase checkers are the left player), with the cube centred."""
    m = reread(text)
    game = m.games[0]
    cube_turns = [t for t in game.turns if t.kind != "play"]
    plays = [t for t in game.turns if t.kind == "play"]
    start = next(t for t in plays[8:] if t.column < 20 and all(c.ply > t.ply for c in cube_turns))
    pos = Position.from_position_id(start.position_id)
    boards = (pos.mover, pos.opponent) if start.side == 0 else (pos.opponent, pos.mover)
    board = encode_xgid_board(boards[0], boards[1])
    lines = text.split("\n")
    first_row = next(i for i, ln in enumerate(lines) if re.match(r"\s*\d+\)", ln))
    return "\n".join([*lines[:first_row], f"; Set Pos={board}/0", *lines[start.line - 1 :]])


def write(name: str, text: str, encoding: str = "utf-8", bom: bytes = b"") -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / name).write_bytes(bom + text.encode(encoding))


def main() -> None:
    gnu = match(11, 3, EventDate="2024.05.01")
    write("gnu_export.mat", write_mat(gnu))

    box = (
        "+------------------------------------+\n"
        "|  Club championship, final          |\n"
        "+------------------------------------+\n"
        "# transcribed from the score sheets\n"
    )
    tagged = retag(match(12, 3), Site="Club", Event="Championship", Round="Final")
    write("optional_header_and_boxes.mat", box + write_mat(tagged))

    write("zero_point_match.mat", write_mat(match(13, 0), MatStyle(leading_space=False)))

    colon = write_mat(match(14, 1), MatStyle(score_colon=": "))
    write("score_line_no_space_before_colon.mat", colon)

    named = write_mat(match(15, 1))
    lines = named.split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^ \S.* : \d+\s+\S.* : \d+$", line):
            lines[i] = re.sub(r"^( \S.*? : \d+\s+)\S.*?( : \d+)$", r"\1\2", line)
    write("score_line_empty_name.mat", "\n".join(lines))

    rated = write_mat(match(16, 3))
    rated = re.sub(
        r"^ (\w+) : (\d+)(\s+)(\w+) : (\d+)$", r" \1,1780 : \2\3\4,1830 : \5", rated, flags=re.M
    )
    write("score_line_name_with_rating.mat", rated)

    studio = retag(match(17, 3), Site="Backgammon Studio", Event="Online match")
    write("drifting_columns.txt", write_mat(studio, STUDIO))

    write("single_space_overflow.mat", write_mat(match(18, 3), MatStyle(right_column=24)))

    write("bar_off_words.txt", write_mat(match(19, 3), MatStyle(bar="bar", off="off")))
    xg = retag(match(20, 3), Site="eXtreme Gammon", Player_1="Anna", Player_2="Bo")
    write("bar_off_capitalised_crlf.txt", write_mat(xg, XG_TEXT))

    galaxy = retag(match(21, 3), Site="BackgammonGalaxy", Player_1_Elo="5,00/0")
    write("missing_hit_stars.txt", write_mat(galaxy, GALAXY_A))

    counted = find(3, lambda m: "*(" in write_mat(m, MatStyle(counts=True)))
    write("star_before_count.txt", write_mat(counted, MatStyle(counts=True)))
    write("repeat_counts_and_merged_steps.txt", write_mat(match(22, 3), STUDIO))

    mobile = retag(match(23, 3), Site="XG Mobile")
    write("dice_as_rolled.txt", write_mat(mobile, XG_MOBILE))

    dances = find(
        3, lambda m: sum(t.kind == "dance" and t.side == 1 for g in m.games for t in g.turns) >= 2
    )
    write("dances_three_forms.mat", three_dance_forms(write_mat(dances)))

    write("long_arrow.mat", write_mat(find(3, has_kind("double")), CHOUE))
    write("always_plural_points.mat", write_mat(match(24, 5), OPENGAMMON))

    beavers = find(0, has_kind("beaver"))
    write("beavers.mat", write_mat(beavers))

    drops = find(5, lambda m: sum(t.kind == "drop" for g in m.games for t in g.turns) >= 2)
    write("results_in_every_position.mat", write_mat(drops))
    write("results_in_rows.txt", write_mat(drops, STUDIO))
    write("losses_lines.txt", write_mat(retag(drops, Site="BackgammonGalaxy"), GALAXY_A))

    resigned = find(3, lambda m: any(t.kind == "hidden" for g in m.games for t in g.turns))
    write("hidden_plays.txt", hidden_play(write_mat(resigned)))
    resigns = find(
        1,
        lambda m: (
            m.games[-1].end == "resign"
            and m.games[-1].winner == 1
            and m.games[-1].turns[-1].side == 1
        ),
    )
    write("resign_before_roll.txt", resign_before_roll(write_mat(resigns, STUDIO)))

    write("illegal_play_dump.txt", illegal_play_dump(write_mat(match(26, 1))))

    setpos = retag(match(27, 1), Site="eXtreme Gammon")
    write("set_pos_line.mat", set_position(write_mat(setpos)))

    rows = write_mat(drops, STUDIO).rstrip("\n") + "\n  99)\n"
    write("empty_numbered_rows.txt", rows)
    write("missing_final_newline.mat", write_mat(match(28, 1)).rstrip("\n"))

    galaxy_rows = find(3, lambda m: edits(stray_row_number, write_mat(m, GALAXY_A)))
    galaxy_rows = retag(galaxy_rows, Site="BackgammonGalaxy")
    write("galaxy_stray_row_number.txt", stray_row_number(write_mat(galaxy_rows, GALAXY_A)))

    accents = replace(match(29, 1), players=("Jérôme", "Åsa Ødegård"))
    text = write_mat(accents)
    write("utf8_bom.mat", text, bom=codecs.BOM_UTF8)
    write("utf16_bom.mat", text, encoding="utf-16-le", bom=codecs.BOM_UTF16_LE)
    write("windows_1252.mat", text, encoding="cp1252")
    write("crlf_line_ends.mat", text.replace("\n", "\r\n"))
    write("tabs.mat", to_tabs(write_mat(match(30, 1), MatStyle(right_column=40))))

    two = write_mat(match(31, 1)) + "\n" + write_mat(retag(match(32, 3), Site="Club"))
    write("several_matches_in_one_file.mat", two)

    # XG puts its Player 2 in the left column: the tags never decide column order.
    left, right = match(33, 3).players
    xg_order = retag(match(33, 3), Site="eXtreme Gammon", Player_1=right, Player_2=left)
    write("player_tags_not_column_order.mat", write_mat(xg_order))


if __name__ == "__main__":
    main()
