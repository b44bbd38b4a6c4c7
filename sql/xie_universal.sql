-- Xie et al. 2024, Table 4 (universal attacks): adversarial examples shared by k models, for every k.
--
-- One row per template x dataset x attack x k, k = 1 .. `models` (the models that answered
-- variants of the attack). An adversarial example for a model is a variant it answers wrongly
-- whose original it answers correctly. For each variant, `fooled` counts the models for which it
-- is one; the variants with fooled >= 1 are the group's adversarial examples (a variant fools
-- only models that answered it, so run every model on the same variants). `exactly_k` /
-- `at_least_k` count the variants fooling exactly / at least k models; `share_at_least_k` =
-- at_least_k / adversarial examples (the share shared by k models: universal at k = models).
-- Assumes one graded response per model, template and variant (duplicates count twice).
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
WITH per_variant AS (
    SELECT v.template, v.dataset, v.attack, v.variant_id, COUNT(*) AS fooled
    FROM adversarial_examples v
    GROUP BY v.template, v.dataset, v.attack, v.variant_id
),
hist AS (
    SELECT template, dataset, attack, fooled, COUNT(*) AS n
    FROM per_variant
    GROUP BY template, dataset, attack, fooled
),
answered AS (
    SELECT DISTINCT template, dataset, attack, model
    FROM graded
    WHERE attack <> 'original'
),
ks AS (
    SELECT
        template,
        dataset,
        attack,
        ROW_NUMBER() OVER (PARTITION BY template, dataset, attack ORDER BY model) AS k,
        COUNT(*) OVER (PARTITION BY template, dataset, attack) AS models
    FROM answered
),
expanded AS (
    SELECT k.template, k.dataset, k.attack, k.k, k.models, h.fooled, h.n
    FROM ks k
    LEFT JOIN hist h
      ON h.template = k.template
     AND h.dataset = k.dataset
     AND h.attack = k.attack
),
counts AS (
    SELECT
        template,
        dataset,
        attack,
        k,
        MAX(models) AS models,
        SUM(CASE WHEN fooled = k THEN n ELSE 0 END) AS exactly_k,
        SUM(CASE WHEN fooled >= k THEN n ELSE 0 END) AS at_least_k,
        SUM(CASE WHEN fooled >= 1 THEN n ELSE 0 END) AS adversarial_examples
    FROM expanded
    GROUP BY template, dataset, attack, k
)
SELECT
    template,
    dataset,
    attack,
    k,
    models,
    exactly_k,
    at_least_k,
    adversarial_examples,
    CAST(at_least_k AS DOUBLE) / NULLIF(adversarial_examples, 0) AS share_at_least_k
FROM counts
ORDER BY template, dataset, attack, k
