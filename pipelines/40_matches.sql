-- Match-level statistics: the first mover's edge, empirical match equity, gammons by score.

-- Per match length: the opening mover's game win rate, and how often the winner of game 1
-- went on to win the match (finished matches only). The "all" row pools every length.
CREATE OR REPLACE MACRO bg_first_mover_edge() AS TABLE
WITH g AS (
    SELECT
        bg_length_label(match_length) AS length,
        count(*) AS games,
        count(*) FILTER (WHERE winner = opening_side) AS mover_wins
    FROM games
    WHERE opening_side IS NOT NULL AND winner IS NOT NULL
    GROUP BY GROUPING SETS ((match_length), ())
),
m AS (
    SELECT
        bg_length_label(m.match_length) AS length,
        count(*) AS matches,
        count(*) FILTER (WHERE g1.winner = m.winner) AS game1_winner_won
    FROM matches AS m
    JOIN games AS g1 ON g1.match_uid = m.match_uid AND g1.game_index = 0
    WHERE m.match_length > 0 AND m.winner IS NOT NULL AND g1.winner IS NOT NULL
    GROUP BY GROUPING SETS ((m.match_length), ())
)
SELECT
    coalesce(g.length, m.length, 'all') AS length,
    coalesce(g.games, 0) AS games,
    coalesce(g.mover_wins, 0) AS mover_wins,
    ratio(g.mover_wins, g.games) AS mover_win_rate,
    wilson_lo(g.mover_wins, g.games) AS mover_win_lo,
    wilson_hi(g.mover_wins, g.games) AS mover_win_hi,
    coalesce(m.matches, 0) AS matches,
    coalesce(m.game1_winner_won, 0) AS game1_winner_won,
    ratio(m.game1_winner_won, m.matches) AS game1_match_rate,
    wilson_lo(m.game1_winner_won, m.matches) AS game1_match_lo,
    wilson_hi(m.game1_winner_won, m.matches) AS game1_match_hi
FROM g
FULL JOIN m ON g.length IS NOT DISTINCT FROM m.length
ORDER BY coalesce(g.length, m.length) IS NULL,
    try_cast(coalesce(g.length, m.length) AS INTEGER) NULLS FIRST;

-- Empirical match equity: for each game of a finished match, from each side, the share of
-- those positions (away_me, away_opp, phase) whose player went on to win the match, beside
-- the published Kazaross-XG2 figure.
CREATE OR REPLACE MACRO bg_empirical_met(min_n := 1, max_away := 25) AS TABLE
WITH s AS (
    SELECT gs.away_me, gs.away_opp, gs.phase, m.winner = gs.me AS won_match
    FROM game_sides AS gs
    JOIN matches AS m ON m.match_uid = gs.match_uid
    WHERE m.match_length > 0
        AND m.winner IS NOT NULL
        AND gs.away_me BETWEEN 1 AND max_away
        AND gs.away_opp BETWEEN 1 AND max_away
),
agg AS (
    SELECT away_me, away_opp, phase, count(*) AS n, count(*) FILTER (WHERE won_match) AS wins
    FROM s
    GROUP BY ALL
)
SELECT
    a.away_me,
    a.away_opp,
    a.phase,
    a.n,
    a.wins,
    ratio(a.wins, a.n) AS mwc,
    wilson_lo(a.wins, a.n) AS mwc_lo,
    wilson_hi(a.wins, a.n) AS mwc_hi,
    p.mwc AS published,
    ratio(a.wins, a.n) - p.mwc AS diff
FROM agg AS a
LEFT JOIN met_published AS p USING (away_me, away_opp, phase)
WHERE a.n >= min_n
ORDER BY a.away_me, a.away_opp, a.phase;

-- Gammon rates by score, from each side: how often the player at (away_me, away_opp) won and
-- lost a gammon (or backgammon). Money games form one row (away NULL).
CREATE OR REPLACE MACRO bg_gammon_rate_by_score(min_n := 1) AS TABLE
WITH agg AS (
    SELECT
        away_me,
        away_opp,
        phase,
        count(*) AS games,
        count(*) FILTER (WHERE won_gammon) AS gammons_won,
        count(*) FILTER (WHERE lost_gammon) AS gammons_lost
    FROM game_sides
    WHERE winner IS NOT NULL
    GROUP BY ALL
)
SELECT
    away_me,
    away_opp,
    phase,
    games,
    gammons_won,
    ratio(gammons_won, games) AS gammon_win_rate,
    wilson_lo(gammons_won, games) AS gammon_win_lo,
    wilson_hi(gammons_won, games) AS gammon_win_hi,
    gammons_lost,
    ratio(gammons_lost, games) AS gammon_loss_rate,
    wilson_lo(gammons_lost, games) AS gammon_loss_lo,
    wilson_hi(gammons_lost, games) AS gammon_loss_hi
FROM agg
WHERE games >= min_n
ORDER BY away_me NULLS LAST, away_opp, phase;
