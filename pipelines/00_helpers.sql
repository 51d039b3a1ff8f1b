-- Helpers shared by the statistics: confidence intervals, the χ² tail, the phase of a game.
-- Loaded first by bgparse.questions.query.connect(); every later file may use them.

-- Wilson score interval of a binomial proportion k/n (z = 1.96: 95%). NULL when n = 0.
-- Chosen over the normal approximation because archives are small and rates near 0 or 1
-- (gammon rates, take rates at odd scores) are common: Wilson stays inside [0, 1].
-- k = 0 and k = n are given exactly: the formula leaves about 1e-17 of rounding there.
CREATE OR REPLACE MACRO wilson_lo(k, n, z := 1.96) AS
    CASE WHEN n > 0 AND k = 0 THEN 0.0 WHEN n > 0 THEN
        ((k::DOUBLE / n + z * z / (2 * n))
         - z * sqrt((k::DOUBLE / n) * (1 - k::DOUBLE / n) / n + z * z / (4.0 * n * n)))
        / (1 + z * z / n)
    END;

CREATE OR REPLACE MACRO wilson_hi(k, n, z := 1.96) AS
    CASE WHEN n > 0 AND k = n THEN 1.0 WHEN n > 0 THEN
        ((k::DOUBLE / n + z * z / (2 * n))
         + z * sqrt((k::DOUBLE / n) * (1 - k::DOUBLE / n) / n + z * z / (4.0 * n * n)))
        / (1 + z * z / n)
    END;

-- k / n as a DOUBLE, NULL when n = 0.
CREATE OR REPLACE MACRO ratio(k, n) AS CASE WHEN n > 0 THEN k::DOUBLE / n END;

-- Upper tail P(X >= x) of a χ² distribution with an even number of degrees of freedom:
-- exp(-x/2) · Σ_{i < df/2} (x/2)^i / i!  (closed form; DuckDB has no χ² CDF).
CREATE OR REPLACE MACRO chi2_sf_even(x, df) AS
    exp(-x / 2) * list_sum(list_transform(range(df // 2), lambda i: pow(x / 2, i) / gamma(i + 1)));

-- Where a game stands in its match: money, pre-crawford, crawford, post-crawford.
CREATE OR REPLACE MACRO bg_phase(match_length, is_crawford, is_post_crawford) AS
    CASE
        WHEN match_length = 0 THEN 'money'
        WHEN is_crawford THEN 'crawford'
        WHEN is_post_crawford THEN 'post-crawford'
        ELSE 'pre-crawford'
    END;

-- "money", or the match length as text: a readable group label.
CREATE OR REPLACE MACRO bg_length_label(match_length) AS
    CASE WHEN match_length = 0 THEN 'money' ELSE match_length::VARCHAR END;
