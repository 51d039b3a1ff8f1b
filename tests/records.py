"""Small hand-written records the CLI tests share."""

from __future__ import annotations

#: A legal 3-point match of one short game (Alice wins 1 point).
SHORT_MATCH = """\
 3 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 42: 24/20 24/22             41: 6/5* 24/20
  2) 61: 25/24 22/16             33: 13/10 8/5 6/3 6/3
                                  Wins 1 point
"""

#: The same match with Alice's first play illegal for her 42 (P001 at line 5).
SHORT_MATCH_ILLEGAL = SHORT_MATCH.replace("42: 24/20 24/22", "42: 24/18 13/11")
