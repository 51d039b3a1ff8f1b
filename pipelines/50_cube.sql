-- Cube statistics. Each row of cube_actions is one offer: a double, or the redouble a beaver
-- or raccoon makes (`offer`). Doubles, takes, drops and beavers are counted apart: a beaver
-- is neither a double nor a take. An offer is "accepted" when taken or beavered; rates of
-- answers count only answered offers (a record that stops after "Doubles" has response 'none').

-- By away-away score (doubler, taker) and kind of offer: an initial double (centred cube), a
-- redouble (by the cube's owner), a beaver or a raccoon (money play). How often each was
-- taken, dropped or beavered, and how the offering side fared once it was accepted.
-- for_length: one match length (0 = money), NULL: all.
CREATE OR REPLACE MACRO bg_cube_rates_by_score(for_length := NULL, min_n := 1) AS TABLE
WITH c AS (
    SELECT
        *,
        CASE
            WHEN offer <> 'double' THEN offer
            WHEN is_redouble THEN 'redouble'
            ELSE 'initial'
        END AS kind
    FROM doubler_offers
    WHERE for_length IS NULL OR match_length = for_length
),
agg AS (
    -- Per score and kind, and one 'all' row over every offer (its rates are over every
    -- answered offer, not an average of the rows' rates).
    SELECT
        away_doubler,
        away_taker,
        CASE WHEN grouping(kind) = 1 THEN 'all' ELSE kind END AS kind,
        count(*) AS offers,
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
    GROUP BY GROUPING SETS ((away_doubler, away_taker, kind), ())
)
SELECT
    away_doubler,
    away_taker,
    kind,
    offers,
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
    accepted_done AS accepted_finished,
    doubler_wins,
    ratio(doubler_wins, accepted_done) AS doubler_win_rate,
    wilson_lo(doubler_wins, accepted_done) AS doubler_win_lo,
    wilson_hi(doubler_wins, accepted_done) AS doubler_win_hi
FROM agg
WHERE offers >= min_n
ORDER BY kind = 'all', away_doubler NULLS LAST, away_taker,
    list_position(['initial', 'redouble', 'beaver', 'raccoon'], kind);

-- Games in which a double was allowed: not the Crawford game, not a 1-point match (no cube
-- there), and the cube in use (not cubeless: no `cube` rule off, no cube limit of 1).
CREATE OR REPLACE VIEW games_cube_allowed AS
SELECT g.*
FROM games AS g
JOIN matches AS m USING (match_uid)
WHERE NOT g.is_crawford
    AND g.match_length <> 1
    AND coalesce(try_cast(json_extract_string(m.rules_json, '$.cube') AS BOOLEAN), true)
    AND coalesce(try_cast(json_extract_string(m.rules_json, '$.cube_limit') AS INTEGER), 2) > 1;

-- When the first double of a game comes: per doubler's move number, the games whose first
-- double came then, as a share of the games in which a double was allowed
-- (games_cube_allowed), and the running share (its last value is the share of those games in
-- which the cube was turned at all).
CREATE OR REPLACE MACRO bg_cube_timing(for_length := NULL) AS TABLE
WITH a AS (
    SELECT match_uid, game_no
    FROM games_cube_allowed
    WHERE for_length IS NULL OR match_length = for_length
),
g AS (
    SELECT count(*) AS games FROM a
),
f AS (
    SELECT c.move_no, count(*) AS n
    FROM doubler_offers AS c
    JOIN a USING (match_uid, game_no)
    WHERE c.is_first_double
    GROUP BY c.move_no
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

-- Per cube level offered, over accepted offers (taken, or beavered: every double, beaver and
-- raccoon offer, each at its own level): how often the offering side (the "doubler") won, how
-- often the taker made a double of its own later in the game (a recube; a beaver is none),
-- and the gammons (and backgammons) each side won.
CREATE OR REPLACE MACRO bg_take_outcomes(min_n := 1) AS TABLE
WITH t AS (
    SELECT *
    FROM taker_offers
    WHERE response IN ('take', 'beaver', 'raccoon')
),
agg AS (
    SELECT
        cube_offered,
        count(*) AS accepted,
        count(*) FILTER (WHERE response IN ('beaver', 'raccoon')) AS beavered,
        count(*) FILTER (WHERE doubler_won IS NOT NULL) AS finished,
        count(*) FILTER (WHERE doubler_won) AS doubler_wins,
        count(*) FILTER (WHERE taker_recubed) AS recubes,
        count(*) FILTER (
            WHERE doubler_won AND result_type IN ('gammon', 'backgammon')
        ) AS doubler_gammons,
        count(*) FILTER (
            WHERE NOT doubler_won AND result_type IN ('gammon', 'backgammon')
        ) AS taker_gammons,
        avg(final_cube) AS avg_final_cube
    FROM t
    GROUP BY cube_offered
)
SELECT
    cube_offered,
    accepted,
    beavered,
    finished,
    doubler_wins,
    ratio(doubler_wins, finished) AS doubler_win_rate,
    wilson_lo(doubler_wins, finished) AS doubler_win_lo,
    wilson_hi(doubler_wins, finished) AS doubler_win_hi,
    recubes,
    ratio(recubes, accepted) AS recube_rate,
    wilson_lo(recubes, accepted) AS recube_lo,
    wilson_hi(recubes, accepted) AS recube_hi,
    doubler_gammons,
    ratio(doubler_gammons, finished) AS doubler_gammon_rate,
    taker_gammons,
    ratio(taker_gammons, finished) AS taker_gammon_rate,
    avg_final_cube
FROM agg
WHERE accepted >= min_n
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
    FROM won_games
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

-- Doubles in pure races (beaver and raccoon offers left out), by the taker's pip deficit as a
-- percentage of the doubler's count (buckets of bucket_pct): how often they were taken,
-- beavered and dropped, and the taker's win rate once it accepted (took or beavered). These
-- test the racing rules of thumb (8-9-12, Trice), which are money-play heuristics.
CREATE OR REPLACE MACRO bg_race_take_outcomes(bucket_pct := 5, min_n := 1) AS TABLE
WITH r AS (
    SELECT
        (floor(100.0 * pip_diff / pips_doubler / bucket_pct) * bucket_pct)::INTEGER AS deficit,
        response,
        doubler_won
    FROM taker_offers
    WHERE is_race AND pips_doubler > 0 AND offer = 'double'
),
agg AS (
    SELECT
        deficit,
        count(*) AS doubles,
        count(*) FILTER (WHERE response IN ('take', 'drop', 'beaver', 'raccoon')) AS answered,
        count(*) FILTER (WHERE response = 'take') AS takes,
        count(*) FILTER (WHERE response IN ('beaver', 'raccoon')) AS beavers,
        count(*) FILTER (WHERE response = 'drop') AS drops,
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
    beavers,
    drops,
    finished,
    taker_wins,
    ratio(taker_wins, finished) AS taker_win_rate,
    wilson_lo(taker_wins, finished) AS taker_win_lo,
    wilson_hi(taker_wins, finished) AS taker_win_hi
FROM agg
WHERE doubles >= min_n
ORDER BY deficit;
