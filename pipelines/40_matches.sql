-- Match-level statistics: the first mover's edge, empirical match equity, gammons by score.

-- Per match length: the opening mover's game win rate, and how often the winner of game 1
-- went on to win the match (finished matches only). The "all" row pools every length; its
-- match columns leave out 1-point matches, where game 1 is the match (its winner always wins
-- it), and its `note` says so.
CREATE OR REPLACE MACRO bg_first_mover_edge() AS TABLE
WITH g AS (
    SELECT
        bg_length_label(match_length) AS length,
        count(*) AS games,
        count(*) FILTER (WHERE winner = opening_side) AS mover_wins
    FROM opening_games
    WHERE opening_side IS NOT NULL AND winner IS NOT NULL
    GROUP BY GROUPING SETS ((match_length), ())
),
mm AS (
    SELECT m.match_length, g1.winner = m.winner AS game1_won
    FROM matches AS m
    JOIN won_games AS g1 ON g1.match_uid = m.match_uid AND g1.game_index = 0
    WHERE m.match_length > 0 AND m.winner IS NOT NULL AND g1.winner IS NOT NULL
),
m AS (
    SELECT
        bg_length_label(match_length) AS length,
        count(*) AS matches,
        count(*) FILTER (WHERE game1_won) AS game1_winner_won
    FROM mm
    GROUP BY match_length
    UNION ALL
    SELECT NULL, count(*), count(*) FILTER (WHERE game1_won)
    FROM mm
    WHERE match_length > 1
    HAVING count(*) > 0
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
    wilson_hi(m.game1_winner_won, m.matches) AS game1_match_hi,
    CASE
        WHEN coalesce(g.length, m.length) IS NULL
            THEN 'match columns without 1-point matches (game 1 decides them)'
        WHEN coalesce(g.length, m.length) = '1' THEN 'game 1 is the match'
    END AS note
FROM g
FULL JOIN m ON g.length IS NOT DISTINCT FROM m.length
ORDER BY coalesce(g.length, m.length) IS NULL,
    try_cast(coalesce(g.length, m.length) AS INTEGER) NULLS FIRST;

-- Empirical match equity: for each game of a finished match, from each side, the share of
-- those positions (away_me, away_opp, phase) whose player went on to win the match, beside
-- the published Kazaross-XG2 figure. At an equal score each game is counted from both sides
-- and exactly one of them wins: 0.5 by construction. Those rows give `n` as games (counted
-- once), no wins and no interval, and a `note` saying so. (Where game_sides keeps one side,
-- as with a player filter, no row is mirrored: each is that side's own.)
CREATE OR REPLACE MACRO bg_empirical_met(min_n := 1, max_away := 25) AS TABLE
WITH s AS (
    SELECT gs.match_uid, gs.game_no, gs.away_me, gs.away_opp, gs.phase,
        m.winner = gs.me AS won_match
    FROM game_sides AS gs
    JOIN matches AS m ON m.match_uid = gs.match_uid
    WHERE m.match_length > 0
        AND m.winner IS NOT NULL
        AND gs.away_me BETWEEN 1 AND max_away
        AND gs.away_opp BETWEEN 1 AND max_away
),
counted AS (
    SELECT
        away_me,
        away_opp,
        phase,
        count(*) AS sides,
        count(DISTINCT (match_uid, game_no)) AS n,
        count(*) FILTER (WHERE won_match) AS wins
    FROM s
    GROUP BY away_me, away_opp, phase
),
agg AS (
    -- A game met twice in one row: both its sides, at an equal score.
    SELECT *, sides > n AS mirrored FROM counted
)
SELECT
    a.away_me,
    a.away_opp,
    a.phase,
    a.n,
    CASE WHEN NOT a.mirrored THEN a.wins END AS wins,
    CASE WHEN a.mirrored THEN 0.5 ELSE ratio(a.wins, a.n) END AS mwc,
    CASE WHEN NOT a.mirrored THEN wilson_lo(a.wins, a.n) END AS mwc_lo,
    CASE WHEN NOT a.mirrored THEN wilson_hi(a.wins, a.n) END AS mwc_hi,
    p.mwc AS published,
    CASE WHEN a.mirrored THEN 0.5 ELSE ratio(a.wins, a.n) END - p.mwc AS diff,
    CASE WHEN a.mirrored THEN 'equal score: 0.5 by construction, n is games' END AS note
FROM agg AS a
LEFT JOIN met_published AS p USING (away_me, away_opp, phase)
WHERE a.n >= min_n
ORDER BY a.away_me, a.away_opp, a.phase;

-- Gammon rates by score, from each side: how often the player at (away_me, away_opp) won and
-- lost a gammon (or backgammon), and the per-game rate of gammons by either side. Money games
-- form one row (away NULL). That row and the equal-score rows are mirrored: each game is
-- counted from both sides, so "won" and "lost" would be the same half of the per-game rate.
-- They give `games` counted once and only the per-game figure, and a `note` saying so.
-- (Where game_sides keeps one side, as with a player filter, no row is mirrored.)
CREATE OR REPLACE MACRO bg_gammon_rate_by_score(min_n := 1) AS TABLE
WITH agg AS (
    SELECT
        away_me,
        away_opp,
        phase,
        count(*) AS sides,
        count(DISTINCT (match_uid, game_no)) AS games,
        count(*) FILTER (WHERE won_gammon) AS gammons_won,
        count(*) FILTER (WHERE lost_gammon) AS gammons_lost
    FROM game_sides
    WHERE winner IS NOT NULL
    GROUP BY away_me, away_opp, phase
),
r AS (
    -- A game met twice in one row: both its sides (money, or an equal score).
    SELECT
        *,
        sides > games AS mirrored,
        CASE WHEN sides > games THEN gammons_won ELSE gammons_won + gammons_lost END AS gammons
    FROM agg
)
SELECT
    away_me,
    away_opp,
    phase,
    games,
    CASE WHEN NOT mirrored THEN gammons_won END AS gammons_won,
    CASE WHEN NOT mirrored THEN ratio(gammons_won, games) END AS gammon_win_rate,
    CASE WHEN NOT mirrored THEN wilson_lo(gammons_won, games) END AS gammon_win_lo,
    CASE WHEN NOT mirrored THEN wilson_hi(gammons_won, games) END AS gammon_win_hi,
    CASE WHEN NOT mirrored THEN gammons_lost END AS gammons_lost,
    CASE WHEN NOT mirrored THEN ratio(gammons_lost, games) END AS gammon_loss_rate,
    CASE WHEN NOT mirrored THEN wilson_lo(gammons_lost, games) END AS gammon_loss_lo,
    CASE WHEN NOT mirrored THEN wilson_hi(gammons_lost, games) END AS gammon_loss_hi,
    gammons,
    ratio(gammons, games) AS gammon_rate,
    wilson_lo(gammons, games) AS gammon_lo,
    wilson_hi(gammons, games) AS gammon_hi,
    CASE
        WHEN mirrored THEN 'mirrored (money or equal score): per-game gammon rate only'
    END AS note
FROM r
WHERE games >= min_n
ORDER BY away_me NULLS LAST, away_opp, phase;
