"""Arrow schemas of the dataset's tables (schema v3), their partitioning and file metadata.

v2 (from v1): every count, score, cube and index column is int32 (was int16). Parquet stores
both in 32 bits, so files do not grow; a hostile record (a game of 50,000 actions, a cube
doubled twenty times) no longer overflows a column.

v3 (from v2): a beaver or raccoon is no longer a double. `cube_actions` gains `offer` (double,
beaver, raccoon) and files each `Beavers => N` at its own level (`cube_before` is the cube the
beaverer has just taken, `cube_offered` = N); `is_redouble` and `taker_recubed` speak of
doubles only; `games.n_doubles` leaves beavers out (they are `n_beavers`); `findings` gains
`in_duplicate` (a duplicate input keeps its own findings); `games.is_post_crawford` is the
replay's judgement.

Sides are absolute as in `bgparse.model.verified`: 0 is the left column of a `.mat` score line
(GNU's player 0, SGF White), 1 the right one; `-1` means "nobody" (a centred cube). Columns named
`*_mover`/`*_opponent` or `*_doubler`/`*_taker` are relative to the action's side instead.

Partitioned tables carry the hive keys `source` (the producer or a label given at import) and
`year` (of the match date, NULL where the record has none): they live in the directory names,
not in the files. The `imports` ledger is not partitioned.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "ANALYSES",
    "CUBE_ACTIONS",
    "DECISIONS",
    "FINDINGS",
    "GAMES",
    "IMPORTS",
    "MATCHES",
    "PARTITIONED",
    "PARTITION_FIELDS",
    "SCHEMA_VERSION",
    "TABLES",
    "TURNS",
    "dictionary_columns",
    "file_schema",
    "row_schema",
]

#: Bumped on renames, type or meaning changes; additive nullable columns keep it.
SCHEMA_VERSION = 3

PARTITION_FIELDS: tuple[pa.Field, ...] = (
    pa.field("source", pa.string(), nullable=False),
    pa.field("year", pa.int16()),
)

_UID = pa.uuid()
_STEP = pa.struct(
    [
        pa.field("src", pa.uint8(), nullable=False),  # mover's numbering: 25 bar
        pa.field("dst", pa.uint8(), nullable=False),  # 0 off
        pa.field("hit", pa.bool_(), nullable=False),
    ]
)

MATCHES = pa.schema(
    [
        pa.field("match_uid", _UID, nullable=False),  # first 128 bits of content_sha256
        pa.field("content_sha256", pa.string(), nullable=False),  # of the canonical match
        pa.field("file_sha256", pa.string(), nullable=False),
        pa.field("source_path", pa.string(), nullable=False),  # "archive.zip!member" for members
        pa.field("match_index", pa.int32(), nullable=False),  # which match of the file
        pa.field("format", pa.string()),  # mat | sgf
        pa.field("dialect", pa.string()),
        pa.field("import_id", pa.string(), nullable=False),
        pa.field("imported_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("bgparse_version", pa.string(), nullable=False),
        pa.field("match_date", pa.date32()),
        pa.field("event_date", pa.string()),  # as the record writes it
        pa.field("site", pa.string()),
        pa.field("event", pa.string()),
        pa.field("round", pa.string()),
        pa.field("player0", pa.string()),
        pa.field("player1", pa.string()),
        pa.field("player0_key", pa.string()),  # NFC, case-folded: for lookups
        pa.field("player1_key", pa.string()),
        pa.field("rating0", pa.float64()),
        pa.field("rating1", pa.float64()),
        pa.field("match_length", pa.int32(), nullable=False),  # 0 = money session
        pa.field("variant", pa.string()),
        pa.field("crawford", pa.bool_()),
        pa.field("jacoby", pa.bool_()),
        pa.field("beaver", pa.bool_()),
        pa.field("cube_limit", pa.int32()),
        pa.field("n_games", pa.int32(), nullable=False),
        pa.field("final_score0", pa.int32(), nullable=False),
        pa.field("final_score1", pa.int32(), nullable=False),
        pa.field("winner", pa.int8()),  # NULL: unfinished match or money session
        pa.field("is_complete", pa.bool_(), nullable=False),
        pa.field("is_valid", pa.bool_(), nullable=False),  # no error-level finding
        pa.field("n_errors", pa.int32(), nullable=False),
        pa.field("n_warnings", pa.int32(), nullable=False),
        pa.field("n_infos", pa.int32(), nullable=False),
        pa.field("rules_json", pa.string()),  # the RuleSet the replay used
        pa.field("tags_json", pa.string()),  # every header tag as written, in order
    ]
)

GAMES = pa.schema(
    [
        pa.field("match_uid", _UID, nullable=False),
        pa.field("game_no", pa.int32(), nullable=False),  # as the record numbers it
        pa.field("game_index", pa.int32(), nullable=False),  # 0-based order in the match
        pa.field("match_length", pa.int32(), nullable=False),
        pa.field("score0_before", pa.int32(), nullable=False),  # computed running score
        pa.field("score1_before", pa.int32(), nullable=False),
        pa.field("score0_written", pa.int32(), nullable=False),  # the score line as written
        pa.field("score1_written", pa.int32(), nullable=False),
        pa.field("away0", pa.int32()),  # points still needed; NULL in money play
        pa.field("away1", pa.int32()),
        pa.field("is_crawford", pa.bool_(), nullable=False),
        pa.field("is_post_crawford", pa.bool_(), nullable=False),
        pa.field("opening_side", pa.int8()),  # NULL unless the game starts from the opening
        pa.field("opening_roll", pa.string()),  # high-low, e.g. "31"
        pa.field("opening_play", pa.string()),
        pa.field("reply_roll", pa.string()),
        pa.field("reply_play", pa.string()),
        pa.field("n_turns", pa.int32(), nullable=False),  # rows in `turns`
        pa.field("n_plays", pa.int32(), nullable=False),
        pa.field("n_dances", pa.int32(), nullable=False),
        pa.field("n_doubles", pa.int32(), nullable=False),  # beavers and raccoons not included
        pa.field("n_takes", pa.int32(), nullable=False),
        pa.field("n_drops", pa.int32(), nullable=False),
        pa.field("n_beavers", pa.int32(), nullable=False),  # beavers and raccoons
        pa.field("final_cube", pa.int32(), nullable=False),
        pa.field("final_cube_owner", pa.int8(), nullable=False),
        pa.field("end", pa.string(), nullable=False),  # normal | resign | drop | unfinished
        pa.field("winner", pa.int8()),
        pa.field("result_type", pa.string()),  # single | gammon | backgammon
        pa.field("points", pa.int32(), nullable=False),  # what the winner scored
        pa.field("resign_level", pa.int8()),
        pa.field("jacoby_applied", pa.bool_(), nullable=False),
        pa.field("final_position_id", pa.string()),
        pa.field("final_match_id", pa.string()),
        pa.field("line", pa.int32(), nullable=False),
    ]
)

TURNS = pa.schema(
    [
        pa.field("match_uid", _UID, nullable=False),
        pa.field("game_no", pa.int32(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),  # 0-based action index in the game
        pa.field("side", pa.int8(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),  # play dance hidden double take drop ...
        pa.field("move_no", pa.int32(), nullable=False),  # the mover's n-th turn (1-based)
        pa.field("rolls_before", pa.int32(), nullable=False),  # rolls by either side before it
        pa.field("position_id", pa.string()),  # GNU Position ID before the action
        pa.field("match_id", pa.string()),  # GNU Match ID before the action
        pa.field("die1", pa.uint8()),  # as written (order kept)
        pa.field("die2", pa.uint8()),
        pa.field("roll", pa.string()),  # high-low, e.g. "31", "66"
        pa.field("is_doublet", pa.bool_()),
        pa.field("play", pa.string()),  # canonical notation of the resolved play
        pa.field("written", pa.string()),  # the play as the record wrote it
        pa.field("steps", pa.list_(_STEP)),  # resolved single-die steps
        pa.field("hits", pa.uint8(), nullable=False),
        pa.field("pips_mover", pa.int32(), nullable=False),
        pa.field("pips_opponent", pa.int32(), nullable=False),
        pa.field("is_race", pa.bool_()),  # no contact left; NULL without a position
        pa.field("cube_value", pa.int32(), nullable=False),  # before the action
        pa.field("cube_owner", pa.int8(), nullable=False),
        pa.field("score_mover", pa.int32(), nullable=False),  # match score before the game
        pa.field("score_opponent", pa.int32(), nullable=False),
        pa.field("away_mover", pa.int32()),  # NULL in money play
        pa.field("away_opponent", pa.int32()),
        pa.field("is_crawford", pa.bool_(), nullable=False),
        pa.field("legal", pa.bool_()),  # did the record's play pass the rules
        pa.field("n_legal", pa.int32()),
        pa.field("line", pa.int32(), nullable=False),
        pa.field("column", pa.int32(), nullable=False),
    ]
)

CUBE_ACTIONS = pa.schema(
    [
        pa.field("match_uid", _UID, nullable=False),
        pa.field("game_no", pa.int32(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),  # the offer's action index
        pa.field("doubler", pa.int8(), nullable=False),  # who offered (a beaverer offers too)
        pa.field("taker", pa.int8(), nullable=False),  # who answers the offer
        pa.field("move_no", pa.int32(), nullable=False),  # doubler's n-th turn
        pa.field("rolls_before", pa.int32(), nullable=False),
        pa.field("is_first_double", pa.bool_(), nullable=False),  # first of its game
        pa.field("cube_before", pa.int32(), nullable=False),  # beaver: the value just taken
        pa.field("cube_offered", pa.int32(), nullable=False),  # 2 × cube_before
        pa.field("cube_after", pa.int32(), nullable=False),  # offered if accepted, else before
        pa.field("is_redouble", pa.bool_(), nullable=False),  # a double by the cube's owner
        pa.field("offer", pa.string(), nullable=False),  # double | beaver | raccoon
        pa.field("response", pa.string(), nullable=False),  # take drop beaver raccoon none
        pa.field("position_id", pa.string()),
        pa.field("match_id", pa.string()),
        pa.field("pips_doubler", pa.int32(), nullable=False),
        pa.field("pips_taker", pa.int32(), nullable=False),
        pa.field("pip_diff", pa.int32(), nullable=False),  # taker minus doubler
        pa.field("is_race", pa.bool_()),
        pa.field("match_length", pa.int32(), nullable=False),
        pa.field("score_doubler", pa.int32(), nullable=False),
        pa.field("score_taker", pa.int32(), nullable=False),
        pa.field("away_doubler", pa.int32()),
        pa.field("away_taker", pa.int32()),
        pa.field("is_crawford", pa.bool_(), nullable=False),
        pa.field("is_post_crawford", pa.bool_(), nullable=False),
        pa.field("game_winner", pa.int8()),
        pa.field("doubler_won", pa.bool_()),
        pa.field("doubler_result", pa.int32()),  # points the doubler won (+) or lost (-)
        pa.field("game_end", pa.string(), nullable=False),
        pa.field("result_type", pa.string()),
        pa.field("final_cube", pa.int32(), nullable=False),
        pa.field("taker_recubed", pa.bool_(), nullable=False),  # taker doubled later (no beaver)
        pa.field("rolls_after", pa.int32(), nullable=False),  # rolls left in the game
        pa.field("line", pa.int32(), nullable=False),
        pa.field("column", pa.int32(), nullable=False),
    ]
)

FINDINGS = pa.schema(
    [
        pa.field("file_sha256", pa.string(), nullable=False),
        pa.field("source_path", pa.string(), nullable=False),
        pa.field("match_uid", _UID),  # NULL: about the file as a whole
        pa.field("match_index", pa.int32()),
        pa.field("game_no", pa.int32()),
        pa.field("turn", pa.int32()),
        pa.field("code", pa.string(), nullable=False),
        pa.field("severity", pa.string(), nullable=False),  # error | warning | info
        pa.field("message", pa.string(), nullable=False),
        pa.field("line", pa.int32(), nullable=False),
        pa.field("column", pa.int32(), nullable=False),
        # The source line, or 200 characters of it around the column.
        pa.field("excerpt", pa.string()),
        pa.field("import_id", pa.string(), nullable=False),
        # About a copy of a match stored from another input (the same plays, another file):
        # the input keeps its own findings, the match's rows are the first copy's.
        pa.field("in_duplicate", pa.bool_(), nullable=False),
    ]
)

#: One row per decision per analysis source (docs/SCHEMA.md, docs/ANALYSIS.md). Partitioned
#: like the other tables, but its hive key `source` is the analysis source (xg, gnubg-sgf,
#: gnubg-text, engine), not the import's label: a match analysed twice keeps both.
DECISIONS = pa.schema(
    [
        pa.field("match_uid", _UID, nullable=False),
        pa.field("game_no", pa.int32(), nullable=False),
        pa.field("ply", pa.int32(), nullable=False),  # the turn decided: turns.ply
        pa.field("side", pa.int8(), nullable=False),  # who decided
        pa.field("kind", pa.string(), nullable=False),  # checker | cube | take
        pa.field("engine", pa.string(), nullable=False),  # gnubg | xg | bgsage
        pa.field("level", pa.string(), nullable=False),  # the evaluation, as the source names it
        pa.field("analysis_id", pa.string(), nullable=False),  # the import or analyze run
        # The file whose analysis it is (NULL: the engine's): a copy of a stored match keeps
        # the analysis it brings when its source differs (docs/ANALYSIS.md).
        pa.field("file_sha256", pa.string()),
        pa.field("counted", pa.bool_(), nullable=False),  # in rates, as GNU counts
        pa.field("error", pa.float64(), nullable=False),  # EMG, cube 1, >= 0
        pa.field("error_mwc", pa.float64()),  # match winning chances lost, where given
        pa.field("luck", pa.float64()),  # checker rows: the roll's luck, EMG
        pa.field("luck_mwc", pa.float64()),
        pa.field("play", pa.string()),  # the play made (canonical)
        pa.field("best_play", pa.string()),
        pa.field("played_rank", pa.int32()),  # 1 = best; NULL: not ranked
        pa.field("n_candidates", pa.int32()),
        pa.field("n_legal", pa.int32()),
        pa.field("equity_best", pa.float64()),
        pa.field("equity_played", pa.float64()),
        pa.field("action", pa.string()),  # no double | double | take | pass | beaver | raccoon
        pa.field("equity_no_double", pa.float64()),  # the doubler's view
        pa.field("equity_double_take", pa.float64()),
        pa.field("equity_double_pass", pa.float64()),
        pa.field("proper_action", pa.string()),
        pa.field("error_type", pa.string()),
        pa.field("offer_ply", pa.int32()),  # take rows: the double's ply (cube_actions.ply)
        pa.field("position_id", pa.string()),
        pa.field("match_id", pa.string()),
        pa.field("cube_value", pa.int32(), nullable=False),
        pa.field("line", pa.int32(), nullable=False),
        pa.field("column", pa.int32(), nullable=False),
    ]
)

IMPORTS = pa.schema(
    [
        pa.field("import_id", pa.string(), nullable=False),
        pa.field("imported_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("path", pa.string(), nullable=False),  # "archive.zip!member" for members
        pa.field("kind", pa.string(), nullable=False),  # file | member | archive
        pa.field("archive_path", pa.string()),
        pa.field("archive_sha256", pa.string()),
        pa.field("size_bytes", pa.int64()),
        pa.field("sha256", pa.string()),  # NULL where the content was never read whole
        pa.field("status", pa.string(), nullable=False),  # imported | duplicate | quarantined
        pa.field("reason", pa.string()),
        pa.field("bgparse_version", pa.string(), nullable=False),
        pa.field("schema_version", pa.int32(), nullable=False),
        pa.field("n_matches", pa.int32(), nullable=False),  # stored by this input
        pa.field("n_duplicate_matches", pa.int32(), nullable=False),  # already stored
        pa.field("n_games", pa.int32(), nullable=False),
        pa.field("n_turns", pa.int32(), nullable=False),
        pa.field("n_cube_actions", pa.int32(), nullable=False),
        pa.field("n_findings", pa.int32(), nullable=False),
        pa.field("n_errors", pa.int32(), nullable=False),
    ]
)

#: The ledger of `bgparse analyze`: one row per match and run, what the engine made of it.
#: A match is analysed again by the same engine and level only where its last row failed.
ANALYSES = pa.schema(
    [
        pa.field("analysis_id", pa.string(), nullable=False),
        pa.field("analysed_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("match_uid", _UID, nullable=False),
        pa.field("engine", pa.string(), nullable=False),
        pa.field("engine_version", pa.string(), nullable=False),
        pa.field("level", pa.string(), nullable=False),
        pa.field("status", pa.string(), nullable=False),  # analysed | failed
        pa.field("reason", pa.string()),
        pa.field("n_decisions", pa.int32(), nullable=False),
        pa.field("bgparse_version", pa.string(), nullable=False),
    ]
)

#: Every table, in the order views are created and files are published.
TABLES: dict[str, pa.Schema] = {
    "matches": MATCHES,
    "games": GAMES,
    "turns": TURNS,
    "cube_actions": CUBE_ACTIONS,
    "findings": FINDINGS,
    "decisions": DECISIONS,
    "imports": IMPORTS,
    "analyses": ANALYSES,
}
PARTITIONED = frozenset({"matches", "games", "turns", "cube_actions", "findings", "decisions"})


def row_schema(table: str) -> pa.Schema:
    """The columns a query sees: the file's columns, then the partition keys (which live in
    the folder names) for partitioned tables."""
    schema = TABLES[table]
    if table in PARTITIONED:
        for f in PARTITION_FIELDS:
            schema = schema.append(f)
    return schema


def file_schema(table: str, bgparse_version: str) -> pa.Schema:
    """The schema written into each Parquet file, with `schema_version` in its metadata."""
    return TABLES[table].with_metadata(
        {
            "schema_version": str(SCHEMA_VERSION),
            "bgparse_table": table,
            "bgparse_version": bgparse_version,
        }
    )


#: String columns holding a different value nearly every row (boards, Match IDs, plays):
#: written plainly. A dictionary of them only grows until Parquet gives it up for the rest
#: of the column chunk. Measured on the turns of GNU matches: 8.6% fewer instructions to
#: write them, files 11% smaller.
_PLAIN = frozenset(
    {"position_id", "match_id", "play", "written", "final_position_id", "final_match_id"}
)


def dictionary_columns(table: str) -> list[str]:
    """The columns of `table` that Parquet files write with a dictionary: all but those of
    nearly distinct values. Parquet names a nested column's leaves by their path, which this
    list does not: a play's steps (small integers, which zstd packs as well) are plain too,
    as measured."""
    return [name for name in TABLES[table].names if name not in _PLAIN]
