-- What the validation found, and one player's record.

-- Findings by severity and code: how many, in how many files and matches. `finding_codes`
-- (code, severity, description) is made by bgparse.questions.query from bgparse.model.findings.CODES.
-- Every input keeps its own findings, a duplicate copy of a stored match too (its score and
-- `Wins` lines are its own): `findings` counts those of the stored copies and of files as a
-- whole, `duplicate_findings` those of the duplicate copies, so no copy is counted twice;
-- `files` and `matches` count every input and every distinct match.
CREATE OR REPLACE MACRO bg_findings_summary() AS TABLE
SELECT
    f.severity,
    f.code,
    any_value(c.description) AS description,
    count(*) FILTER (WHERE NOT f.in_duplicate) AS findings,
    count(*) FILTER (WHERE f.in_duplicate) AS duplicate_findings,
    count(DISTINCT f.file_sha256) AS files,
    count(DISTINCT f.match_uid) AS matches
FROM findings AS f
LEFT JOIN finding_codes AS c ON c.code = f.code
GROUP BY f.severity, f.code
ORDER BY
    CASE f.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END,
    findings DESC,
    f.code;

-- Per player (by case-folded name; for_player narrows to one): matches and games won, gammons
-- for and against, doubles offered per game, and how they answered doubles: took, beavered or
-- dropped. Beavers and raccoons are neither doubles offered nor takes.
CREATE OR REPLACE MACRO bg_player_profile(for_player := NULL, min_matches := 1) AS TABLE
WITH sides AS (
    SELECT
        m.match_uid,
        s.me,
        CASE s.me WHEN 0 THEN m.player0 ELSE m.player1 END AS name,
        CASE s.me WHEN 0 THEN m.player0_key ELSE m.player1_key END AS player_key,
        m.winner = s.me AS won
    FROM matches AS m
    CROSS JOIN (VALUES (0), (1)) AS s(me)
),
p AS (
    SELECT * FROM sides WHERE for_player IS NULL OR player_key = for_player
),
ms AS (
    SELECT
        player_key,
        min(name) AS name,
        count(*) AS matches,
        count(won) AS decided,
        count(*) FILTER (WHERE won) AS match_wins
    FROM p
    GROUP BY player_key
),
gs AS (
    SELECT
        p.player_key,
        count(*) AS games,
        count(g.winner) AS games_done,
        count(*) FILTER (WHERE g.winner = p.me) AS game_wins,
        count(*) FILTER (
            WHERE g.winner = p.me AND g.result_type IN ('gammon', 'backgammon')
        ) AS gammons_won,
        count(*) FILTER (
            WHERE g.winner = 1 - p.me AND g.result_type IN ('gammon', 'backgammon')
        ) AS gammons_lost
    FROM p
    JOIN games AS g ON g.match_uid = p.match_uid
    GROUP BY p.player_key
),
cs AS (
    SELECT
        p.player_key,
        count(*) FILTER (WHERE c.doubler = p.me) AS doubles,
        count(*) FILTER (
            WHERE c.taker = p.me AND c.response IN ('take', 'drop', 'beaver', 'raccoon')
        ) AS doubled,
        count(*) FILTER (WHERE c.taker = p.me AND c.response = 'take') AS takes,
        count(*) FILTER (WHERE c.taker = p.me AND c.response = 'beaver') AS beavers,
        count(*) FILTER (WHERE c.taker = p.me AND c.response = 'drop') AS drops
    FROM p
    JOIN cube_actions AS c ON c.match_uid = p.match_uid AND c.offer = 'double'
    GROUP BY p.player_key
)
-- A player whose matches had no double has no `cs` row: a count of 0, a rate of 0 over its
-- games (empty only when the denominator is 0, as every rate).
SELECT
    ms.name AS player,
    ms.matches,
    ms.match_wins,
    ratio(ms.match_wins, ms.decided) AS match_win_rate,
    wilson_lo(ms.match_wins, ms.decided) AS match_win_lo,
    wilson_hi(ms.match_wins, ms.decided) AS match_win_hi,
    coalesce(gs.games, 0) AS games,
    coalesce(gs.game_wins, 0) AS game_wins,
    ratio(gs.game_wins, gs.games_done) AS game_win_rate,
    wilson_lo(gs.game_wins, gs.games_done) AS game_win_lo,
    wilson_hi(gs.game_wins, gs.games_done) AS game_win_hi,
    coalesce(gs.gammons_won, 0) AS gammons_won,
    coalesce(gs.gammons_lost, 0) AS gammons_lost,
    coalesce(cs.doubles, 0) AS doubles,
    ratio(coalesce(cs.doubles, 0), gs.games) AS doubles_per_game,
    coalesce(cs.doubled, 0) AS doubled,
    coalesce(cs.takes, 0) AS takes,
    ratio(cs.takes, cs.doubled) AS take_rate,
    wilson_lo(cs.takes, cs.doubled) AS take_lo,
    wilson_hi(cs.takes, cs.doubled) AS take_hi,
    coalesce(cs.beavers, 0) AS beavers,
    coalesce(cs.drops, 0) AS drops
FROM ms
LEFT JOIN gs USING (player_key)
LEFT JOIN cs USING (player_key)
WHERE ms.matches >= min_matches
ORDER BY ms.matches DESC, player;
