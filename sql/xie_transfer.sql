-- Xie et al. 2024, Figure 3 (transferability heatmap): for every pair of models, the share of problems with a variant that both answer wrongly.
--
-- One row per template x dataset x attack x ordered pair (model_a, model_b) of the models that
-- answered variants of the attack, the diagonal included (a model with itself: the share of
-- problems with a variant it answers wrongly). The authors compute each cell as the universal
-- attacks of a pair (`universal_attack_pair_wise` -> `find_universal_attacks` in their
-- attack/experiment.py and attack/universal_attack.py): a problem counts when at least one of its
-- variants is answered wrongly by both models, whether or not either model solves the original,
-- and the denominator is the problems attacked (here: the problems of the attack with graded
-- variants from both models). The figure is therefore symmetric: cell (a, b) equals (b, a).
-- A variant is wrong for a model when any graded answer of that model to it is wrong (MIN(ok) = 0),
-- as in the view `attack_outcomes`; a variant a model never answered fools it not.
-- `shared_problems` = problems with a variant both get wrong, `problems` = problems both were
-- asked, `transfer_share` = shared_problems / problems (NULL, shown empty, when problems = 0).
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
WITH wrong AS (
    SELECT model, template, dataset, attack, problem_id, variant_id
    FROM graded
    WHERE attack <> 'original'
    GROUP BY model, template, dataset, attack, problem_id, variant_id
    HAVING MIN(ok) = 0
),
shared AS (
    SELECT
        a.template,
        a.dataset,
        a.attack,
        a.model AS model_a,
        b.model AS model_b,
        COUNT(DISTINCT a.problem_id) AS shared_problems
    FROM wrong a
    JOIN wrong b
      ON b.template = a.template
     AND b.dataset = a.dataset
     AND b.attack = a.attack
     AND b.variant_id = a.variant_id
    GROUP BY a.template, a.dataset, a.attack, a.model, b.model
),
asked AS (
    SELECT
        a.template,
        a.dataset,
        a.attack,
        a.model AS model_a,
        b.model AS model_b,
        COUNT(*) AS problems
    FROM attack_outcomes a
    JOIN attack_outcomes b
      ON b.template = a.template
     AND b.dataset = a.dataset
     AND b.attack = a.attack
     AND b.problem_id = a.problem_id
    GROUP BY a.template, a.dataset, a.attack, a.model, b.model
)
SELECT
    k.template,
    k.dataset,
    k.attack,
    k.model_a,
    k.model_b,
    k.problems,
    COALESCE(s.shared_problems, 0) AS shared_problems,
    CAST(COALESCE(s.shared_problems, 0) AS DOUBLE) / NULLIF(k.problems, 0) AS transfer_share
FROM asked k
LEFT JOIN shared s
  ON s.template = k.template
 AND s.dataset = k.dataset
 AND s.attack = k.attack
 AND s.model_a = k.model_a
 AND s.model_b = k.model_b
ORDER BY k.template, k.dataset, k.attack, k.model_a, k.model_b
