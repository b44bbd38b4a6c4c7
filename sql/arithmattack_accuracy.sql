-- ArithmAttack (Abedin et al.), Tables 1 (GSM8K) and 3 (MultiArith), their accuracy columns, and Figure 2: accuracy per model x dataset x punctuation-noise level.
--
-- One row per model x template x dataset x noise level. Level 0 is the clean question (attack
-- `original`); the noisy levels are the attacks `punct10`, `punct30`, `punct50`, ... (their
-- noise_level column: percent of the words that get a punctuation mark). accuracy = graded
-- responses answered correctly / graded responses at that level (every item, not only those with
-- noisy variants). Ungraded rows (`correct` NULL) are left out.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division.
WITH noised AS (
    SELECT
        g.model,
        g.template,
        g.dataset,
        CASE WHEN a.is_original THEN 0 ELSE g.noise_level END AS noise_level,
        g.ok
    FROM graded g
    JOIN attacks a ON a.attack = g.attack
    WHERE a.is_original OR a.kind = 'noise'
)
SELECT
    model,
    template,
    dataset,
    noise_level,
    COUNT(*) AS items,
    SUM(ok) AS correct,
    CAST(SUM(ok) AS DOUBLE) / COUNT(*) AS accuracy
FROM noised
GROUP BY model, template, dataset, noise_level
ORDER BY model, template, dataset, noise_level
