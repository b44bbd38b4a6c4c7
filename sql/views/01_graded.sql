-- View `graded`: every graded response about a variant, one row per response, `ok` = 1 when
-- correct and 0 when not. Ungraded rows (`correct` NULL: a failed request or no gold answer) and
-- outside rows that match no variant are left out. The metric files read responses through it.
CREATE VIEW graded AS
SELECT
    model,
    template,
    dataset,
    attack,
    problem_id,
    variant_id,
    noise_level,
    CASE WHEN correct THEN 1 ELSE 0 END AS ok
FROM responses
WHERE correct IS NOT NULL
  AND variant_id IS NOT NULL
  AND problem_id IS NOT NULL
  AND dataset IS NOT NULL
  AND attack IS NOT NULL;
