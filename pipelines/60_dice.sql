-- Dice fairness: the 21 distinct rolls against their expected frequencies (1/36 for a
-- doublet, 2/36 otherwise), with each roll's χ² contribution; the last row ("total") holds
-- χ² with 20 degrees of freedom and its p-value. Opening rolls are left out by default: they
-- are two players' single dice, and doublets are re-rolled.
CREATE OR REPLACE MACRO bg_dice_distribution(include_opening := false) AS TABLE
WITH rolls AS (
    SELECT roll
    FROM roller_turns
    WHERE roll IS NOT NULL
        AND kind IN ('play', 'dance', 'hidden')
        AND (include_opening OR rolls_before > 0)
),
all_rolls AS (
    SELECT hi::VARCHAR || lo::VARCHAR AS roll, CASE WHEN hi = lo THEN 1 ELSE 2 END / 36.0 AS p
    FROM range(1, 7) AS a(hi), range(1, 7) AS b(lo)
    WHERE lo <= hi
),
obs AS (
    SELECT a.roll, a.p, count(r.roll) AS n
    FROM all_rolls AS a
    LEFT JOIN rolls AS r USING (roll)
    GROUP BY a.roll, a.p
),
tot AS (
    SELECT *, sum(n) OVER () AS total FROM obs
),
per_roll AS (
    SELECT
        roll,
        n,
        ratio(n, total) AS freq,
        p AS expected_freq,
        p * total AS expected,
        CASE WHEN total > 0 THEN (n - p * total) ^ 2 / (p * total) END AS chi2,
        NULL::DOUBLE AS p_value
    FROM tot
)
SELECT * EXCLUDE (_o) FROM (
    SELECT *, 0 AS _o FROM per_roll
    UNION ALL
    SELECT
        'total',
        sum(n)::BIGINT,
        CASE WHEN sum(n) > 0 THEN 1.0 END,
        1.0,
        sum(expected),
        sum(chi2),
        CASE WHEN sum(n) > 0 THEN chi2_sf_even(sum(chi2), 20) END,
        1
    FROM per_roll
)
ORDER BY _o, roll DESC;
