"""The replay: an event record walked through the rules engine into the verified match with
every finding. `match` is the loop over games and events; `plays`, `cube` and `results`
turn the events of their kind into operations of the rules' `Game` and its verdicts into
findings."""

from bgparse.replay.match import replay, rules_for

__all__ = ["replay", "rules_for"]
