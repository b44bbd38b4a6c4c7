-- Xie et al. 2024, Table 1 with uncertainty: the per-problem outcome counts behind 95% bootstrap intervals for AA and ASR.
--
-- One row per model x template x dataset x attack, over the problems of Table 1. Every problem is
-- in exactly one outcome: `robust` (original and every variant right), `broken` (original right,
-- some variant wrong) or `original_wrong`. AA = robust / problems and ASR = broken / (robust +
-- broken) depend on the problems only through these counts, so resampling problems with
-- replacement is drawing the three counts from a multinomial. That resampling is done in Rust
-- (advmath::metrics, seeded and deterministic: a portable SQL hash-based replicate table would cost
-- problems x replicates rows): it adds aa_low, aa_high, asr_low, asr_high (2.5 and 97.5
-- percentiles of the replicates; ASR empty when undefined).
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
WITH graded AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        problem_id,
        CASE WHEN correct THEN 1 ELSE 0 END AS ok
    FROM responses
    WHERE correct IS NOT NULL
      AND variant_id IS NOT NULL
      AND problem_id IS NOT NULL
      AND dataset IS NOT NULL
      AND attack IS NOT NULL
),
orig AS (
    SELECT
        model,
        template,
        dataset,
        problem_id,
        MIN(ok) AS orig_ok
    FROM graded
    WHERE attack = 'original'
    GROUP BY model, template, dataset, problem_id
),
per_problem AS (
    SELECT model, template, dataset, attack, problem_id, MIN(ok) AS all_ok
    FROM graded
    WHERE attack <> 'original'
    GROUP BY model, template, dataset, attack, problem_id
)
SELECT
    p.model,
    p.template,
    p.dataset,
    p.attack,
    COUNT(*) AS problems,
    SUM(o.orig_ok * p.all_ok) AS robust,
    SUM(o.orig_ok * (1 - p.all_ok)) AS broken,
    SUM(1 - o.orig_ok) AS original_wrong,
    CAST(SUM(o.orig_ok * p.all_ok) AS DOUBLE) / COUNT(*) AS aa,
    CAST(SUM(o.orig_ok * (1 - p.all_ok)) AS DOUBLE) / NULLIF(SUM(o.orig_ok), 0) AS asr
FROM per_problem p
JOIN orig o
  ON o.model = p.model
 AND o.template = p.template
 AND o.dataset = p.dataset
 AND o.problem_id = p.problem_id
GROUP BY p.model, p.template, p.dataset, p.attack
ORDER BY p.model, p.template, p.dataset, p.attack
