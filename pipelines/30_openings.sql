-- Opening statistics (need only the record: roll, play, result). An opening is the first roll
-- of a game played from the standard starting position; games set up otherwise have none.

-- Per opening roll: how often the side that moved first won the game, and won a gammon.
CREATE OR REPLACE MACRO bg_opening_roll_win_rate(min_games := 1) AS TABLE
WITH o AS (
    SELECT
        opening_roll AS roll,
        winner = opening_side AS mover_won,
        winner = opening_side AND result_type IN ('gammon', 'backgammon') AS mover_gammon
    FROM opening_games
    WHERE opening_roll IS NOT NULL AND winner IS NOT NULL
),
agg AS (
    SELECT
        roll,
        count(*) AS games,
        count(*) FILTER (WHERE mover_won) AS mover_wins,
        count(*) FILTER (WHERE mover_gammon) AS mover_gammons
    FROM o
    GROUP BY roll
)
SELECT
    roll,
    games,
    mover_wins,
    ratio(mover_wins, games) AS win_rate,
    wilson_lo(mover_wins, games) AS win_lo,
    wilson_hi(mover_wins, games) AS win_hi,
    mover_gammons,
    ratio(mover_gammons, games) AS gammon_rate,
    wilson_lo(mover_gammons, games) AS gammon_lo,
    wilson_hi(mover_gammons, games) AS gammon_hi
FROM agg
WHERE games >= min_games
ORDER BY win_rate DESC, roll;

-- Share of each opening play within its roll; with era_years > 0, per era of that many years
-- (games without a date are left out of an era split). Where the games are analysed
-- (25_analysis.sql's bg_early_play_errors): how many,
-- what the play lost on average against the best (EMG), the best play the analysis names most
-- often, and whose analysis.
CREATE OR REPLACE MACRO bg_opening_play_share(era_years := 0, min_games := 1, for_source := NULL)
AS TABLE
WITH o AS (
    SELECT
        CASE WHEN era_years > 0 THEN (floor(year / era_years) * era_years)::INTEGER END AS era,
        opening_roll AS roll,
        opening_play AS play,
        match_uid,
        game_no
    FROM opening_games
    WHERE opening_play IS NOT NULL AND (era_years <= 0 OR year IS NOT NULL)
),
e AS (
    SELECT * FROM bg_early_play_errors(for_source := for_source, rolls_before_is := 0)
),
agg AS (
    SELECT
        o.era,
        o.roll,
        o.play,
        count(*) AS games,
        count(e.error) AS analysed,
        avg(e.error) AS mean_error,
        mode(e.best_play) AS best_play,
        string_agg(DISTINCT e.source, ', ' ORDER BY e.source) AS analysis
    FROM o
    LEFT JOIN e USING (match_uid, game_no)
    GROUP BY o.era, o.roll, o.play
),
tot AS (
    SELECT *, sum(games) OVER (PARTITION BY era, roll) AS roll_games FROM agg
)
SELECT
    era,
    roll,
    play,
    games,
    roll_games::BIGINT AS roll_games,
    ratio(games, roll_games) AS share,
    wilson_lo(games, roll_games) AS share_lo,
    wilson_hi(games, roll_games) AS share_hi,
    analysed,
    mean_error,
    best_play,
    analysis
FROM tot
WHERE games >= min_games
ORDER BY era NULLS FIRST, roll, games DESC, play;

-- Per (opening roll, play): how the mover fared: wins, points per game, gammons.
CREATE OR REPLACE MACRO bg_opening_play_outcomes(min_games := 1) AS TABLE
WITH o AS (
    SELECT
        opening_roll AS roll,
        opening_play AS play,
        winner = opening_side AS mover_won,
        CASE WHEN winner = opening_side THEN points ELSE -points END AS mover_points,
        winner = opening_side AND result_type IN ('gammon', 'backgammon') AS mover_gammon
    FROM opening_games
    WHERE opening_play IS NOT NULL AND winner IS NOT NULL
),
agg AS (
    SELECT
        roll,
        play,
        count(*) AS games,
        count(*) FILTER (WHERE mover_won) AS mover_wins,
        sum(mover_points) AS mover_points,
        count(*) FILTER (WHERE mover_gammon) AS mover_gammons
    FROM o
    GROUP BY roll, play
)
SELECT
    roll,
    play,
    games,
    mover_wins,
    ratio(mover_wins, games) AS win_rate,
    wilson_lo(mover_wins, games) AS win_lo,
    wilson_hi(mover_wins, games) AS win_hi,
    ratio(mover_points, games) AS points_per_game,
    ratio(mover_gammons, games) AS gammon_rate
FROM agg
WHERE games >= min_games
ORDER BY roll, games DESC, play;

-- Reply plays: per opening (roll, play) and reply roll, the share of each reply play, and
-- where analysed what it lost against the best (as bg_opening_play_share).
-- for_roll / for_play narrow it to one opening roll / play (NULL: all).
CREATE OR REPLACE MACRO bg_reply_play_share(
    for_roll := NULL, for_play := NULL, min_games := 1, for_source := NULL
)
AS TABLE
WITH r AS (
    SELECT opening_roll, opening_play, reply_roll, reply_play, match_uid, game_no
    FROM reply_games
    WHERE reply_play IS NOT NULL
        AND opening_play IS NOT NULL
        AND (for_roll IS NULL OR opening_roll = for_roll)
        AND (for_play IS NULL OR opening_play = for_play)
),
e AS (
    SELECT * FROM bg_early_play_errors(for_source := for_source, rolls_before_is := 1)
),
agg AS (
    SELECT
        r.opening_roll,
        r.opening_play,
        r.reply_roll,
        r.reply_play,
        count(*) AS games,
        count(e.error) AS analysed,
        avg(e.error) AS mean_error,
        mode(e.best_play) AS best_play,
        string_agg(DISTINCT e.source, ', ' ORDER BY e.source) AS analysis
    FROM r
    LEFT JOIN e USING (match_uid, game_no)
    GROUP BY ALL
),
tot AS (
    SELECT *, sum(games) OVER (PARTITION BY opening_roll, opening_play, reply_roll) AS n
    FROM agg
)
SELECT
    opening_roll,
    opening_play,
    reply_roll,
    reply_play,
    games,
    n::BIGINT AS reply_roll_games,
    ratio(games, n) AS share,
    wilson_lo(games, n) AS share_lo,
    wilson_hi(games, n) AS share_hi,
    analysed,
    mean_error,
    best_play,
    analysis
FROM tot
WHERE games >= min_games
ORDER BY opening_roll, opening_play, reply_roll, games DESC, reply_play;
