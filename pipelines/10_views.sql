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

-- The rows a one-sided statistic counts, each with `me`: the side whose statistic the row is.
-- Unfiltered they are the base rows as they are; under a player filter
-- (bgparse.questions.filters.Filters.install_sides) each keeps only the rows whose `me` is that player,
-- so a statistic read through them counts only the player's own side.
-- The opening mover's games (opening-rolls, opening-plays, opening-outcomes, first-mover).
CREATE OR REPLACE VIEW opening_games AS
SELECT *, opening_side AS me FROM games WHERE opening_side IS NOT NULL;

-- The replier's games: the side that moved second (reply-plays).
CREATE OR REPLACE VIEW reply_games AS
SELECT *, 1 - opening_side AS me FROM games WHERE opening_side IS NOT NULL;

-- The winner's games (gammon-by-cube; first-mover's game-1 winners).
CREATE OR REPLACE VIEW won_games AS
SELECT *, winner AS me FROM games WHERE winner IS NOT NULL;

-- The offering side's offers (cube-rates, cube-timing).
CREATE OR REPLACE VIEW doubler_offers AS
SELECT *, doubler AS me FROM cube_actions;

-- The answering side's offers (take-outcomes, race-takes).
CREATE OR REPLACE VIEW taker_offers AS
SELECT *, taker AS me FROM cube_actions;

-- The rolling side's turns (dice).
CREATE OR REPLACE VIEW roller_turns AS
SELECT *, side AS me FROM turns;
