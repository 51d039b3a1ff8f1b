-- Derived views over the base tables (matches, games, turns, cube_actions, findings, imports).

-- Every game twice, once from each side ("me" = 0 or 1), so that score-dependent statistics
-- count each game once from each player's point of view (the mirrored union).
CREATE OR REPLACE VIEW game_sides AS
SELECT
    g.*,
    s.me,
    CASE s.me WHEN 0 THEN g.away0 ELSE g.away1 END AS away_me,
    CASE s.me WHEN 0 THEN g.away1 ELSE g.away0 END AS away_opp,
    bg_phase(g.match_length, g.is_crawford, g.is_post_crawford) AS phase,
    g.winner = s.me AS won,
    g.winner = s.me AND g.result_type IN ('gammon', 'backgammon') AS won_gammon,
    g.winner = 1 - s.me AND g.result_type IN ('gammon', 'backgammon') AS lost_gammon
FROM games AS g
CROSS JOIN (VALUES (0), (1)) AS s(me);
