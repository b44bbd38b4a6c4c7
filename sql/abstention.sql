-- How often each model says a question cannot be answered, rightly and wrongly (after GSM-Plus's critical thinking, Li et al. 2024), an advmath extension, not a paper's.
--
-- One row per model x template x dataset x attack with at least one reply read for abstention
-- (rows graded before replies were read so have `abstained` NULL and are left out).
-- - `answerable`: 0 for an attack whose questions have no answer (`missing`: a needed number was
--   taken out), 1 for every other attack and the originals.
-- - `replies`: the replies read; `abstentions`: those that say the question cannot be answered;
--   `abstention_rate`: their share. Where `answerable` is 0 these are right abstentions, and the
--   rate is the accuracy on the attack; where it is 1 they are false abstentions.
-- Rates are rounded to 10 decimals, so that they do not depend on the order an engine adds in.
-- Portable SQL (DataFusion and DuckDB).
SELECT
    model,
    template,
    dataset,
    attack,
    MIN(answerable) AS answerable,
    COUNT(*) AS replies,
    CAST(SUM(abstained) AS BIGINT) AS abstentions,
    ROUND(CAST(SUM(abstained) AS DOUBLE) / COUNT(*), 10) AS abstention_rate
FROM graded
WHERE abstained IS NOT NULL
GROUP BY model, template, dataset, attack
ORDER BY model, template, dataset, attack;
