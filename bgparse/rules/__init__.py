"""The rules engine: positions, legal checker plays, play verification, position and match IDs.

Pure Python; imports nothing from the rest of bgparse.
"""

from bgparse.rules.cube import CubeError, CubeState
from bgparse.rules.diagram import diagram
from bgparse.rules.ids import (
    IdError,
    MatchIdState,
    XgidState,
    decode_match_id,
    decode_xgid,
    decode_xgid_board,
    encode_match_id,
    encode_xgid,
    encode_xgid_board,
    final_match_id,
)
from bgparse.rules.match import MatchState
from bgparse.rules.notation import MoveLike, PlayError, WrittenMove, format_play, parse_play
from bgparse.rules.plays import DiceError, LegalPlays, Play, legal_plays
from bgparse.rules.position import BAR, OFF, VARIANTS, Position, PositionError, PositionSummary
from bgparse.rules.ruleset import RuleNote, RuleSet
from bgparse.rules.scoring import explain_win_points, game_points, result_type
from bgparse.rules.steps import Step
from bgparse.rules.verification import REASONS, PlayCheck, WrittenPlay, verify_play

__all__ = [
    "BAR",
    "OFF",
    "REASONS",
    "VARIANTS",
    "CubeError",
    "CubeState",
    "DiceError",
    "IdError",
    "LegalPlays",
    "MatchIdState",
    "MatchState",
    "MoveLike",
    "Play",
    "PlayCheck",
    "PlayError",
    "Position",
    "PositionError",
    "PositionSummary",
    "RuleNote",
    "RuleSet",
    "Step",
    "WrittenMove",
    "WrittenPlay",
    "XgidState",
    "decode_match_id",
    "decode_xgid",
    "decode_xgid_board",
    "diagram",
    "encode_match_id",
    "encode_xgid",
    "encode_xgid_board",
    "explain_win_points",
    "final_match_id",
    "format_play",
    "game_points",
    "legal_plays",
    "parse_play",
    "result_type",
    "verify_play",
]
