-- A player's matches and their opponents: one row per match from a side, and the tally of
-- each pairing. Every match counts, finished or not, money sessions too.

-- Every match twice, once from each side (`me`): the side's name, its opponent and the final
-- score from that side. Under a player filter only the player's side is kept
-- (bgparse.questions.filters.SIDED), so a listing is the player's own.
CREATE OR REPLACE VIEW match_sides AS
SELECT
    m.*,
    s.me,
    CASE s.me WHEN 0 THEN m.player0 ELSE m.player1 END AS name_me,
    CASE s.me WHEN 0 THEN m.player1 ELSE m.player0 END AS name_opp,
    CASE s.me WHEN 0 THEN m.player0_key ELSE m.player1_key END AS key_me,
    CASE s.me WHEN 0 THEN m.player1_key ELSE m.player0_key END AS key_opp,
    CASE s.me WHEN 0 THEN m.final_score0 ELSE m.final_score1 END AS score_me,
    CASE s.me WHEN 0 THEN m.final_score1 ELSE m.final_score0 END AS score_opp,
    CASE
        WHEN m.match_length = 0 THEN 'money'
        WHEN m.winner IS NULL THEN 'unfinished'
        WHEN m.winner = s.me THEN 'won'
        ELSE 'lost'
    END AS outcome
FROM matches AS m
CROSS JOIN (VALUES (0), (1)) AS s(me);

-- One row per match and side: date, opponent, length, the final score from the side, the
-- outcome (won, lost, unfinished; money for a session), games and findings.
CREATE OR REPLACE MACRO bg_player_matches() AS TABLE
SELECT
    match_date AS date,
    name_me AS player,
    name_opp AS opponent,
    bg_length_label(match_length) AS length,
    score_me AS score,
    score_opp AS opponent_score,
    outcome AS result,
    n_games AS games,
    n_errors AS errors,
    n_warnings AS warnings,
    event,
    source_path AS file,
    match_index
FROM match_sides
ORDER BY key_me, date NULLS LAST, file, match_index, me;

-- Per player and opponent: matches, wins and losses (rate over the decided matches), the
-- matches neither won (unfinished, or money sessions), points scored and conceded (final
-- scores summed), and the first and last dates.
CREATE OR REPLACE MACRO bg_head_to_head() AS TABLE
WITH agg AS (
    SELECT
        key_me,
        key_opp,
        min(name_me) AS player,
        min(name_opp) AS opponent,
        count(*) AS matches,
        count(*) FILTER (WHERE outcome = 'won') AS wins,
        count(*) FILTER (WHERE outcome = 'lost') AS losses,
        sum(score_me) AS points_won,
        sum(score_opp) AS points_lost,
        min(match_date) AS first,
        max(match_date) AS last
    FROM match_sides
    GROUP BY key_me, key_opp
)
SELECT
    player,
    opponent,
    matches,
    wins,
    losses,
    matches - wins - losses AS undecided,
    ratio(wins, wins + losses) AS win_rate,
    wilson_lo(wins, wins + losses) AS win_lo,
    wilson_hi(wins, wins + losses) AS win_hi,
    points_won::BIGINT AS points_won,
    points_lost::BIGINT AS points_lost,
    first,
    last
FROM agg
ORDER BY key_me, matches DESC, key_opp;
