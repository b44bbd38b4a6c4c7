-- ArithmAttack (Abedin et al.), Table 1 and Figure 2: accuracy per model x dataset x punctuation-noise level.
--
-- One row per model x template x dataset x noise level. Level 0 is the clean question (attack
-- `original`); the noisy levels are the attacks `punct10`, `punct30`, `punct50`, ... (their
-- noise_level column: percent of the words that get a punctuation mark). accuracy = graded
-- responses answered correctly / graded responses at that level (every item, not only those with
-- noisy variants). Ungraded rows (`correct` NULL) are left out.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division.
WITH graded AS (
    SELECT
        model,
        template,
        dataset,
        CASE WHEN attack = 'original' THEN 0 ELSE noise_level END AS noise_level,
        CASE WHEN correct THEN 1 ELSE 0 END AS ok
    FROM responses
    WHERE correct IS NOT NULL
      AND variant_id IS NOT NULL
      AND problem_id IS NOT NULL
      AND dataset IS NOT NULL
      AND (attack = 'original' OR attack LIKE 'punct%')
)
SELECT
    model,
    template,
    dataset,
    noise_level,
    COUNT(*) AS items,
    SUM(ok) AS correct,
    CAST(SUM(ok) AS DOUBLE) / COUNT(*) AS accuracy
FROM graded
GROUP BY model, template, dataset, noise_level
ORDER BY model, template, dataset, noise_level
