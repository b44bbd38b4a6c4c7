-- Xie et al. 2024, Table 2 (and appendix F): average share of incorrectly answered variants per problem.
--
-- One row per model x template x dataset x attack (every attack but `original`). For each problem
-- with at least one graded variant, share = variants answered wrongly / graded variants.
-- `mean_incorrect_share_all` averages it over every such problem, whether or not its original
-- has a graded answer (the text's average per problem, as the authors' `calculate_accuracy`,
-- which never looks at the original). `mean_incorrect_share` averages it over the problems whose
-- original the model answers correctly (there every wrong variant is an adversarial example);
-- NULL when there is no such problem. `pooled_incorrect_share` is adversarial examples / variants
-- over the originally solved problems.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
SELECT
    p.model,
    p.template,
    p.dataset,
    p.attack,
    COUNT(*) AS problems,
    SUM(COALESCE(o.orig_ok, 0)) AS original_correct,
    SUM(COALESCE(o.orig_ok, 0) * p.n_var) AS variants_of_solved,
    SUM(COALESCE(o.orig_ok, 0) * p.n_wrong) AS adversarial_examples,
    AVG(CASE WHEN o.orig_ok = 1 THEN CAST(p.n_wrong AS DOUBLE) / p.n_var END) AS mean_incorrect_share,
    AVG(CAST(p.n_wrong AS DOUBLE) / p.n_var) AS mean_incorrect_share_all,
    CAST(SUM(COALESCE(o.orig_ok, 0) * p.n_wrong) AS DOUBLE)
        / NULLIF(SUM(COALESCE(o.orig_ok, 0) * p.n_var), 0) AS pooled_incorrect_share
FROM attack_outcomes p
LEFT JOIN original_outcomes o
  ON o.model = p.model
 AND o.template = p.template
 AND o.dataset = p.dataset
 AND o.problem_id = p.problem_id
GROUP BY p.model, p.template, p.dataset, p.attack
ORDER BY p.model, p.template, p.dataset, p.attack
