-- Xie et al. 2024, Figure 2 (human evaluation): the mean score per method and criterion, with the annotators' agreement.
--
-- Reads `annotations` (kind `human_eval`, from `advmath annotate ingest` of filled sheets drawn by
-- `advmath annotate sample human-eval`: problems the model failed, two adversarial examples each).
-- Each annotator scores every item 1 or 0 on correctness (the answer shown is the modified problem's
-- answer), coherence (the problem is contextually coherent) and similarity (its difficulty matches
-- the original's). One row per model x template x dataset x method x criterion: `items` rated,
-- `annotators`, `ratings`, `mean_score` = ratings of 1 / ratings (the figure's bar), `unanimous` =
-- share of items every annotator scored alike, `fleiss_kappa` = Fleiss' kappa over the items
-- rated by at least two annotators: (P - Pe) / (1 - Pe) with P the mean pairwise agreement of an
-- item, n_i(n_i - 1) in the denominator, and Pe = p^2 + (1 - p)^2 for p the share of 1s (NULL
-- when Pe = 1: every rating alike, kappa undefined).
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
WITH ratings AS (
    SELECT model, template, dataset, attack, criterion, item, annotator, value
    FROM annotations
    WHERE kind = 'human_eval'
),
per_item AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        criterion,
        item,
        COUNT(*) AS n,
        SUM(value) AS ones
    FROM ratings
    GROUP BY model, template, dataset, attack, criterion, item
),
cells AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        criterion,
        COUNT(*) AS items,
        SUM(n) AS ratings,
        SUM(ones) AS ones,
        SUM(CASE WHEN ones = 0 OR ones = n THEN 1 ELSE 0 END) AS unanimous_items,
        SUM(CASE WHEN n > 1 THEN 1 ELSE 0 END) AS shared_items,
        SUM(CASE WHEN n > 1 THEN n ELSE 0 END) AS shared_ratings,
        SUM(CASE WHEN n > 1 THEN ones ELSE 0 END) AS shared_ones,
        SUM(
            CASE
                WHEN n > 1
                THEN CAST(ones * (ones - 1) + (n - ones) * (n - ones - 1) AS DOUBLE) / (n * (n - 1))
                ELSE 0
            END
        ) AS pair_agreement
    FROM per_item
    GROUP BY model, template, dataset, attack, criterion
),
raters AS (
    SELECT model, template, dataset, attack, criterion, COUNT(DISTINCT annotator) AS annotators
    FROM ratings
    GROUP BY model, template, dataset, attack, criterion
),
kappa_parts AS (
    SELECT
        c.*,
        r.annotators,
        pair_agreement / NULLIF(shared_items, 0) AS p_bar,
        CAST(shared_ones AS DOUBLE) / NULLIF(shared_ratings, 0) AS p_one
    FROM cells c
    JOIN raters r
      ON r.model = c.model AND r.template = c.template AND r.dataset = c.dataset
     AND r.attack = c.attack AND r.criterion = c.criterion
)
SELECT
    model,
    template,
    dataset,
    attack AS method,
    criterion,
    items,
    annotators,
    ratings,
    CAST(ones AS DOUBLE) / ratings AS mean_score,
    CAST(unanimous_items AS DOUBLE) / items AS unanimous,
    (p_bar - (p_one * p_one + (1 - p_one) * (1 - p_one)))
        / NULLIF(1 - (p_one * p_one + (1 - p_one) * (1 - p_one)), 0) AS fleiss_kappa
FROM kappa_parts
ORDER BY model, template, dataset, method, criterion
