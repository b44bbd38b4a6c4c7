-- Clean vs attacked accuracy, paired per problem: the discordant counts of an exact McNemar test (Xie et al. 2024 Table 1; ArithmAttack Table 1).
--
-- One row per model x template x dataset x attack, over the problems of Table 1. Each problem is a
-- pair (clean, attacked): clean = its original answered correctly; attacked = every graded variant
-- of the attack answered correctly (for a punctuation level with one variant per problem, that
-- variant). `clean_only` counts pairs right clean and wrong attacked, `attacked_only` the reverse.
-- Rust (advmath::metrics) adds `p_value`: the exact two-sided McNemar test, a binomial test of
-- clean_only against n = clean_only + attacked_only at p = 1/2,
-- p = min(1, 2 * P(X <= min(clean_only, attacked_only))), 1 when n = 0; and `p_holm`, the
-- p-values of a model's attacks on one dataset and template adjusted together (Holm's step-down).
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division.
SELECT
    p.model,
    p.template,
    p.dataset,
    p.attack,
    COUNT(*) AS pairs,
    SUM(o.orig_ok) AS clean_correct,
    SUM(p.all_ok) AS attacked_correct,
    CAST(SUM(o.orig_ok) AS DOUBLE) / COUNT(*) AS clean_accuracy,
    CAST(SUM(p.all_ok) AS DOUBLE) / COUNT(*) AS attacked_accuracy,
    SUM(o.orig_ok * (1 - p.all_ok)) AS clean_only,
    SUM((1 - o.orig_ok) * p.all_ok) AS attacked_only
FROM attack_outcomes p
JOIN original_outcomes o
  ON o.model = p.model
 AND o.template = p.template
 AND o.dataset = p.dataset
 AND o.problem_id = p.problem_id
GROUP BY p.model, p.template, p.dataset, p.attack
ORDER BY p.model, p.template, p.dataset, p.attack
