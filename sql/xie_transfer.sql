-- Xie et al. 2024, Figure 3 (transferability heatmap): share of one model's adversarial examples that also fool another.
--
-- One row per template x dataset x attack x ordered pair (source, target) of the models that
-- answered variants of the attack, the diagonal included. An adversarial example for a model is a
-- variant it answers wrongly whose original it answers correctly. `transfer_rate` =
-- also_fool_target / source_adversarial: the share of the source's adversarial examples that are
-- adversarial examples for the target too (a variant the target never answered does not fool it,
-- so run every model on the same variants). NULL (shown empty) when the source has none.
-- Assumes one graded response per model, template and variant.
-- Each adversarial variant carries the list of models it fools (ARRAY_AGG); unnesting that list
-- twice gives the pairs without a self-join of all responses.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0;
-- ARRAY_AGG and UNNEST behave alike in both.
WITH fooled AS (
    SELECT v.template, v.dataset, v.attack, v.variant_id, ARRAY_AGG(v.model) AS models
    FROM adversarial_examples v
    GROUP BY v.template, v.dataset, v.attack, v.variant_id
),
sources AS (
    SELECT template, dataset, attack, models, UNNEST(models) AS source
    FROM fooled
),
pairs AS (
    SELECT template, dataset, attack, source, UNNEST(models) AS target
    FROM sources
),
shared AS (
    SELECT template, dataset, attack, source, target, COUNT(*) AS n
    FROM pairs
    GROUP BY template, dataset, attack, source, target
),
answered AS (
    SELECT DISTINCT template, dataset, attack, model
    FROM graded
    WHERE attack <> 'original'
),
grid AS (
    SELECT s.template, s.dataset, s.attack, s.model AS source, t.model AS target
    FROM answered s
    JOIN answered t
      ON t.template = s.template
     AND t.dataset = s.dataset
     AND t.attack = s.attack
),
cells AS (
    SELECT
        g.template,
        g.dataset,
        g.attack,
        g.source,
        g.target,
        COALESCE(s.n, 0) AS n,
        MAX(CASE WHEN g.source = g.target THEN COALESCE(s.n, 0) END)
            OVER (PARTITION BY g.template, g.dataset, g.attack, g.source) AS source_adversarial
    FROM grid g
    LEFT JOIN shared s
      ON s.template = g.template
     AND s.dataset = g.dataset
     AND s.attack = g.attack
     AND s.source = g.source
     AND s.target = g.target
)
SELECT
    template,
    dataset,
    attack,
    source,
    target,
    source_adversarial,
    n AS also_fool_target,
    CAST(n AS DOUBLE) / NULLIF(source_adversarial, 0) AS transfer_rate
FROM cells
ORDER BY template, dataset, attack, source, target
