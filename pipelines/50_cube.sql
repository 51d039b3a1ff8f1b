-- Cube statistics. A double is "accepted" when taken or beavered; rates of answers count only
-- answered doubles (a record that stops after "Doubles" has response 'none').

-- By away-away score (doubler, taker) and initial double vs redouble: how often doubles were
-- taken or dropped, and how the doubler fared after a take. for_length: one match length
-- (0 = money), NULL: all.
CREATE OR REPLACE MACRO bg_cube_rates_by_score(for_length := NULL, min_n := 1) AS TABLE
WITH c AS (
    SELECT *
    FROM cube_actions
    WHERE for_length IS NULL OR match_length = for_length
),
agg AS (
    SELECT
        away_doubler,
        away_taker,
        CASE WHEN is_redouble THEN 'redouble' ELSE 'initial' END AS kind,
        count(*) AS doubles,
        count(*) FILTER (WHERE response IN ('take', 'drop', 'beaver', 'raccoon')) AS answered,
        count(*) FILTER (WHERE response = 'take') AS takes,
        count(*) FILTER (WHERE response IN ('beaver', 'raccoon')) AS beavers,
        count(*) FILTER (WHERE response = 'drop') AS drops,
        count(*) FILTER (
            WHERE response IN ('take', 'beaver', 'raccoon') AND doubler_won IS NOT NULL
        ) AS accepted_done,
        count(*) FILTER (
            WHERE response IN ('take', 'beaver', 'raccoon') AND doubler_won
        ) AS doubler_wins
    FROM c
    GROUP BY ALL
)
SELECT
    away_doubler,
    away_taker,
    kind,
    doubles,
    takes,
    ratio(takes, answered) AS take_rate,
    wilson_lo(takes, answered) AS take_lo,
    wilson_hi(takes, answered) AS take_hi,
    drops,
    ratio(drops, answered) AS drop_rate,
    wilson_lo(drops, answered) AS drop_lo,
    wilson_hi(drops, answered) AS drop_hi,
    beavers,
    ratio(beavers, answered) AS beaver_rate,
    accepted_done AS takes_finished,
    doubler_wins,
    ratio(doubler_wins, accepted_done) AS doubler_win_rate,
    wilson_lo(doubler_wins, accepted_done) AS doubler_win_lo,
    wilson_hi(doubler_wins, accepted_done) AS doubler_win_hi
FROM agg
WHERE doubles >= min_n
ORDER BY away_doubler NULLS LAST, away_taker, kind;

-- When the first double of a game comes: per doubler's move number, the games whose first
-- double came then, as a share of all games, and the running share (its last value is the
-- share of games in which the cube was turned at all).
CREATE OR REPLACE MACRO bg_cube_timing(for_length := NULL) AS TABLE
WITH g AS (
    SELECT count(*) AS games
    FROM games
    WHERE for_length IS NULL OR match_length = for_length
),
f AS (
    SELECT move_no, count(*) AS n
    FROM cube_actions
    WHERE is_first_double AND (for_length IS NULL OR match_length = for_length)
    GROUP BY move_no
),
c AS (
    SELECT f.move_no, f.n, sum(f.n) OVER (ORDER BY f.move_no) AS running, g.games
    FROM f, g
)
SELECT
    move_no,
    n AS first_doubles,
    games,
    ratio(n, games) AS share,
    wilson_lo(n, games) AS share_lo,
    wilson_hi(n, games) AS share_hi,
    running::BIGINT AS cumulative,
    ratio(running, games) AS cumulative_share
FROM c
ORDER BY move_no;

-- After a take, per cube level offered: how often the doubler won, how often the taker
-- redoubled later (a recube), and how often the game ended in a gammon.
CREATE OR REPLACE MACRO bg_take_outcomes(min_n := 1) AS TABLE
WITH t AS (
    SELECT *
    FROM cube_actions
    WHERE response IN ('take', 'beaver', 'raccoon')
),
agg AS (
    SELECT
        cube_offered,
        count(*) AS takes,
        count(*) FILTER (WHERE doubler_won IS NOT NULL) AS finished,
        count(*) FILTER (WHERE doubler_won) AS doubler_wins,
        count(*) FILTER (WHERE taker_recubed) AS recubes,
        count(*) FILTER (
            WHERE doubler_won IS NOT NULL AND result_type IN ('gammon', 'backgammon')
        ) AS gammons,
        avg(final_cube) AS avg_final_cube
    FROM t
    GROUP BY cube_offered
)
SELECT
    cube_offered,
    takes,
    finished,
    doubler_wins,
    ratio(doubler_wins, finished) AS doubler_win_rate,
    wilson_lo(doubler_wins, finished) AS doubler_win_lo,
    wilson_hi(doubler_wins, finished) AS doubler_win_hi,
    recubes,
    ratio(recubes, takes) AS recube_rate,
    wilson_lo(recubes, takes) AS recube_lo,
    wilson_hi(recubes, takes) AS recube_hi,
    gammons,
    ratio(gammons, finished) AS gammon_rate,
    avg_final_cube
FROM agg
WHERE takes >= min_n
ORDER BY cube_offered;

-- Per final cube value over finished games: the share that ended on a drop, and among the
-- others (played out or resigned) the gammon and backgammon rates.
CREATE OR REPLACE MACRO bg_gammon_rate_by_cube() AS TABLE
WITH agg AS (
    SELECT
        final_cube,
        count(*) AS games,
        count(*) FILTER (WHERE "end" = 'drop') AS dropped,
        count(*) FILTER (WHERE "end" <> 'drop') AS not_dropped,
        count(*) FILTER (WHERE "end" <> 'drop' AND result_type = 'single') AS singles,
        count(*) FILTER (WHERE "end" <> 'drop' AND result_type = 'gammon') AS gammons,
        count(*) FILTER (WHERE "end" <> 'drop' AND result_type = 'backgammon') AS backgammons
    FROM games
    WHERE winner IS NOT NULL
    GROUP BY final_cube
)
SELECT
    final_cube,
    games,
    dropped,
    ratio(dropped, games) AS drop_rate,
    singles,
    gammons,
    backgammons,
    ratio(gammons + backgammons, not_dropped) AS gammon_rate,
    wilson_lo(gammons + backgammons, not_dropped) AS gammon_lo,
    wilson_hi(gammons + backgammons, not_dropped) AS gammon_hi,
    ratio(backgammons, not_dropped) AS backgammon_rate
FROM agg
ORDER BY final_cube;

-- Doubles in pure races, by the taker's pip deficit as a percentage of the doubler's count
-- (buckets of bucket_pct): take rate, and the taker's win rate after a take. These test the
-- racing rules of thumb (8-9-12, Trice), which are money-play heuristics.
CREATE OR REPLACE MACRO bg_race_take_outcomes(bucket_pct := 5, min_n := 1) AS TABLE
WITH r AS (
    SELECT
        (floor(100.0 * pip_diff / pips_doubler / bucket_pct) * bucket_pct)::INTEGER AS deficit,
        response,
        doubler_won
    FROM cube_actions
    WHERE is_race AND pips_doubler > 0
),
agg AS (
    SELECT
        deficit,
        count(*) AS doubles,
        count(*) FILTER (WHERE response IN ('take', 'drop', 'beaver', 'raccoon')) AS answered,
        count(*) FILTER (WHERE response IN ('take', 'beaver', 'raccoon')) AS takes,
        count(*) FILTER (
            WHERE response IN ('take', 'beaver', 'raccoon') AND doubler_won IS NOT NULL
        ) AS finished,
        count(*) FILTER (
            WHERE response IN ('take', 'beaver', 'raccoon') AND NOT doubler_won
        ) AS taker_wins
    FROM r
    GROUP BY deficit
)
SELECT
    deficit AS deficit_pct,
    deficit + bucket_pct AS deficit_pct_to,
    doubles,
    takes,
    ratio(takes, answered) AS take_rate,
    wilson_lo(takes, answered) AS take_lo,
    wilson_hi(takes, answered) AS take_hi,
    finished,
    taker_wins,
    ratio(taker_wins, finished) AS taker_win_rate,
    wilson_lo(taker_wins, finished) AS taker_win_lo,
    wilson_hi(taker_wins, finished) AS taker_win_hi
FROM agg
WHERE doubles >= min_n
ORDER BY deficit;
