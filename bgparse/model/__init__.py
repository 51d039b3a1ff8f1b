"""The data model a record becomes, below every format and above the rules: findings and their
codes (`findings`), the format-neutral record every reader produces (`events`: `MatchRecord`,
its games and events, each with its span), the verified match that the replay makes of it
(`verified`), and the conventions by which a conversion carries what the other format has no
place for (`carry`), shared by the readers and the writers.

Nothing is imported here: each module is loaded by name, so that the readers (in a worker's
start) load only what they use."""
