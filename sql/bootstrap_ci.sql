-- Xie et al. 2024, Table 1 with uncertainty: the per-problem outcome counts behind 95% bootstrap intervals for AA and ASR (Eq. 5-6).
--
-- One row per model x template x dataset x attack, over the problems with both a graded original
-- and a graded variant of the attack (Table 1's problems when every problem has both). Every
-- problem is in exactly one outcome: `robust` (original and every variant right), `broken`
-- (original right, some variant wrong), `fixed` (original wrong, every variant right) or
-- `both_wrong`. The paper's AA = (robust + fixed) / problems (every variant right, the original
-- not required) and ASR = (OA - AA) / OA = (broken - fixed) / (robust + broken) depend on the
-- problems only through these counts, so resampling problems with replacement is drawing the four
-- counts from a multinomial. That resampling is done in Rust (advmath::metrics, seeded and
-- deterministic: a portable SQL hash-based replicate table would cost problems x replicates rows):
-- it adds aa_low, aa_high, asr_low, asr_high (2.5 and 97.5 percentiles of the replicates; ASR
-- empty when undefined).
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
SELECT
    p.model,
    p.template,
    p.dataset,
    p.attack,
    COUNT(*) AS problems,
    SUM(o.orig_ok * p.all_ok) AS robust,
    SUM(o.orig_ok * (1 - p.all_ok)) AS broken,
    SUM((1 - o.orig_ok) * p.all_ok) AS fixed,
    SUM((1 - o.orig_ok) * (1 - p.all_ok)) AS both_wrong,
    CAST(SUM(p.all_ok) AS DOUBLE) / COUNT(*) AS aa,
    CAST(SUM(o.orig_ok * (1 - p.all_ok)) - SUM((1 - o.orig_ok) * p.all_ok) AS DOUBLE)
        / NULLIF(SUM(o.orig_ok), 0) AS asr
FROM attack_outcomes p
JOIN original_outcomes o
  ON o.model = p.model
 AND o.template = p.template
 AND o.dataset = p.dataset
 AND o.problem_id = p.problem_id
GROUP BY p.model, p.template, p.dataset, p.attack
ORDER BY p.model, p.template, p.dataset, p.attack
