-- Analysis statistics over `decisions` (docs/ANALYSIS.md, docs/STATISTICS.md): one row per
-- decision per analysis source. A match may carry several sources (an .xg file and its SGF
-- twin, a record and the engine): every statistic reads one per match, the one asked for
-- (`for_source`) or else the first the match has of xg, gnubg-sgf, gnubg-text, engine (a
-- program's own stored analysis before bgparse's engine; of the engine's levels, the
-- deepest), and says which in its `analysis` column.

-- The order in which sources are preferred.
CREATE OR REPLACE MACRO bg_source_rank(source) AS
    coalesce(list_position(['xg', 'gnubg-sgf', 'gnubg-text', 'engine'], source), 99);

-- The deciding side's decisions (`me`: the side that decided). Under a player filter only the
-- player's own decisions are kept (bgparse.questions.filters.SIDED).
CREATE OR REPLACE VIEW decision_sides AS
SELECT *, side AS me FROM decisions;

-- The decisions a statistic reads: per match, one analysis, chosen over both sides'
-- decisions so that a player filter does not change which. A stored analysis is its source's
-- (its decisions' levels vary: XG names each move's); the engine's is a level's.
CREATE OR REPLACE MACRO bg_chosen_decisions(for_source := NULL) AS TABLE
WITH avail AS (
    SELECT DISTINCT
        match_uid,
        source,
        CASE WHEN source = 'engine' THEN level END AS run_level
    FROM decisions
    WHERE for_source IS NULL OR source = for_source
),
pick AS (
    SELECT *
    FROM avail
    QUALIFY row_number() OVER (
        PARTITION BY match_uid ORDER BY bg_source_rank(source), run_level DESC NULLS LAST
    ) = 1
)
SELECT d.*
FROM decision_sides AS d
JOIN pick AS p
    ON d.match_uid = p.match_uid
    AND d.source = p.source
    AND (p.run_level IS NULL OR d.level = p.run_level);

-- Per player (or per player and match, with per_match): decisions counted as GNU Backgammon
-- counts them (unforced checker plays; close or actual cube decisions, answers included),
-- the equity they lost (EMG, normalised to a cube of 1), the luck of their rolls, GNU's error
-- rate (mEMG per counted decision) and XG's Performance Rating (500 times the error per
-- counted decision: GNU's rate halved, over GNU's counting).
CREATE OR REPLACE MACRO bg_performance_rows(for_source, per_match, min_decisions) AS TABLE
WITH d AS (
    SELECT
        c.*,
        CASE c.me WHEN 0 THEN m.player0 ELSE m.player1 END AS player,
        CASE c.me WHEN 0 THEN m.player0_key ELSE m.player1_key END AS player_key,
        CASE c.me WHEN 0 THEN m.player1 ELSE m.player0 END AS opponent,
        m.match_date,
        m.match_length,
        m.source_path,
        m.match_index
    FROM bg_chosen_decisions(for_source := for_source) AS c
    JOIN matches AS m USING (match_uid)
),
agg AS (
    SELECT
        player_key,
        CASE WHEN per_match THEN match_uid END AS match_uid,
        min(player) AS player,
        CASE WHEN per_match THEN min(opponent) END AS opponent,
        CASE WHEN per_match THEN min(match_date) END AS date,
        CASE WHEN per_match THEN min(match_length) END AS match_length,
        CASE WHEN per_match THEN min(source_path) END AS file,
        count(DISTINCT match_uid) AS matches,
        string_agg(DISTINCT source, ', ' ORDER BY source) AS analysis,
        count(*) FILTER (WHERE kind = 'checker' AND counted) AS checker_decisions,
        coalesce(sum(error) FILTER (WHERE kind = 'checker'), 0) AS checker_error,
        count(*) FILTER (WHERE kind IN ('cube', 'take') AND counted) AS cube_decisions,
        coalesce(sum(error) FILTER (WHERE kind IN ('cube', 'take')), 0) AS cube_error,
        count(*) FILTER (WHERE kind = 'checker' AND luck IS NOT NULL) AS rolls,
        coalesce(sum(luck) FILTER (WHERE kind = 'checker'), 0) AS luck
    FROM d
    GROUP BY player_key, CASE WHEN per_match THEN match_uid END
)
SELECT
    player,
    opponent,
    date,
    match_length,
    matches,
    analysis,
    checker_decisions,
    checker_error,
    1000 * ratio(checker_error, checker_decisions) AS checker_error_rate,
    cube_decisions,
    cube_error,
    1000 * ratio(cube_error, cube_decisions) AS cube_error_rate,
    rolls,
    luck,
    1000 * ratio(checker_error + cube_error, checker_decisions + cube_decisions) AS error_rate,
    500 * ratio(checker_error + cube_error, checker_decisions + cube_decisions) AS pr,
    file
FROM agg
WHERE checker_decisions + cube_decisions >= min_decisions
ORDER BY player_key, date NULLS LAST, file;

-- The two statistics of those rows: per player, and per player and match.
CREATE OR REPLACE MACRO bg_performance(for_source := NULL, min_decisions := 1) AS TABLE
SELECT
    player, matches, analysis, checker_decisions, checker_error, checker_error_rate,
    cube_decisions, cube_error, cube_error_rate, rolls, luck, error_rate, pr
FROM bg_performance_rows(
    for_source := for_source, per_match := false, min_decisions := min_decisions
);

CREATE OR REPLACE MACRO bg_match_performance(for_source := NULL, min_decisions := 1) AS TABLE
SELECT
    date, player, opponent, match_length, analysis, checker_decisions, checker_error,
    checker_error_rate, cube_decisions, cube_error, cube_error_rate, rolls, luck, error_rate,
    pr, file
FROM bg_performance_rows(
    for_source := for_source, per_match := true, min_decisions := min_decisions
);

-- Cube errors by away score (the decider's, then the opponent's; NULL: money) and GNU's kind
-- of error: how many cube decisions were counted there, how many were each kind of error, and
-- what they cost (EMG). The 'all' row of a score sums its kinds.
CREATE OR REPLACE MACRO bg_cube_errors(for_source := NULL, for_length := NULL, min_n := 1)
AS TABLE
WITH d AS (
    SELECT c.*, t.away_mover AS away_me, t.away_opponent AS away_opp, m.match_length
    FROM bg_chosen_decisions(for_source := for_source) AS c
    JOIN turns AS t USING (match_uid, game_no, ply)
    JOIN matches AS m USING (match_uid)
    WHERE c.kind IN ('cube', 'take')
        AND (for_length IS NULL OR m.match_length = for_length)
),
score AS (
    SELECT
        away_me,
        away_opp,
        count(*) FILTER (WHERE counted) AS decisions,
        string_agg(DISTINCT source, ', ' ORDER BY source) AS analysis
    FROM d
    GROUP BY away_me, away_opp
),
err AS (
    SELECT
        away_me,
        away_opp,
        CASE WHEN grouping(error_type) = 1 THEN 'all' ELSE error_type END AS error_type,
        count(*) AS errors,
        sum(error) AS cost
    FROM d
    WHERE error > 0
    GROUP BY GROUPING SETS ((away_me, away_opp, error_type), (away_me, away_opp))
)
SELECT
    s.away_me,
    s.away_opp,
    coalesce(e.error_type, 'all') AS error_type,
    s.decisions,
    coalesce(e.errors, 0) AS errors,
    ratio(coalesce(e.errors, 0), s.decisions) AS error_share,
    coalesce(e.cost, 0.0) AS cost,
    ratio(e.cost, e.errors) AS cost_per_error,
    1000 * ratio(coalesce(e.cost, 0.0), s.decisions) AS cost_rate,
    s.analysis
FROM score AS s
-- money play's scores are NULL: matched as equal
LEFT JOIN err AS e
    ON e.away_me IS NOT DISTINCT FROM s.away_me AND e.away_opp IS NOT DISTINCT FROM s.away_opp
WHERE s.decisions >= min_n
ORDER BY s.away_me NULLS LAST, s.away_opp NULLS LAST, error_type = 'all' DESC, cost DESC;

-- The opening play's and the reply's analysis: per roll and play, the games analysed and what
-- the play lost on average against the best (EMG), with the best play the analysis names most
-- often. rolls_before: 0 the opening roll's play, 1 the reply's.
CREATE OR REPLACE MACRO bg_early_play_errors(for_source := NULL, rolls_before_is := 0) AS TABLE
SELECT
    t.match_uid,
    t.game_no,
    c.play,
    c.best_play,
    c.error,
    c.source
FROM bg_chosen_decisions(for_source := for_source) AS c
JOIN turns AS t USING (match_uid, game_no, ply)
WHERE c.kind = 'checker' AND t.rolls_before = rolls_before_is AND t.kind = 'play';

-- The worst decisions: each with its players, where it stands (Position and Match ID, which
-- `bgparse show` draws), what was done and what was best, and the `bgparse show` argument
-- that draws it from its file (FILE:GAME:tTURN).
CREATE OR REPLACE MACRO bg_blunders(for_source := NULL, min_error := 0.1, top := 50) AS TABLE
SELECT
    m.match_date AS date,
    CASE c.me WHEN 0 THEN m.player0 ELSE m.player1 END AS player,
    CASE c.me WHEN 0 THEN m.player1 ELSE m.player0 END AS opponent,
    c.game_no AS game,
    t.move_no,
    c.kind,
    t.roll,
    coalesce(c.play, c.action) AS made,
    coalesce(c.best_play, c.proper_action) AS best,
    c.error,
    c.error_type,
    c.source AS analysis,
    c.position_id,
    c.match_id,
    m.source_path AS file,
    m.match_index,
    m.source_path || ':' || c.game_no || ':t' || (c.ply + 1) AS show
FROM bg_chosen_decisions(for_source := for_source) AS c
JOIN matches AS m USING (match_uid)
JOIN turns AS t USING (match_uid, game_no, ply)
WHERE c.error >= min_error
ORDER BY c.error DESC, date NULLS LAST, file, c.game_no, c.ply
LIMIT top;
