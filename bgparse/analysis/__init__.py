"""Analysis: the equity each decision lost and each roll's luck, read from the records that
store it (`model.py`'s notes, attached to the verified turns by `attach.py`) or computed by the
engine (`engine.py`, bgsage: the only module that imports it) for the stored matches that
have none (`bgparse analyze`)."""
