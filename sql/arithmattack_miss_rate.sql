-- ArithmAttack Table 2 (answer-extraction miss rate): the share of inspected replies whose right answer the extraction missed, per model and dataset.
--
-- Reads `annotations` (kind `miss_rate`, from `advmath annotate ingest` of filled sheets drawn by
-- `advmath annotate sample miss-rate`: every reply of a MultiArith-like dataset and the first 100
-- of a GSM8K-like one, as the study inspected them). Each annotator marks a reply `missed` = 1 when
-- it states the right answer and the extracted answer is not it. One row per model x template x
-- dataset: `replies` inspected, `annotators`, `ratings`, `missed` = ratings of 1, `miss_rate` =
-- missed / ratings (every annotator's verdicts averaged), `majority_miss_rate` = share of replies
-- more than half of their annotators marked missed, `unanimous` = share of replies every annotator
-- judged alike.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division.
WITH per_reply AS (
    SELECT
        model,
        template,
        dataset,
        item,
        COUNT(*) AS n,
        SUM(value) AS ones
    FROM annotations
    WHERE kind = 'miss_rate'
    GROUP BY model, template, dataset, item
),
raters AS (
    SELECT model, template, dataset, COUNT(DISTINCT annotator) AS annotators
    FROM annotations
    WHERE kind = 'miss_rate'
    GROUP BY model, template, dataset
)
SELECT
    p.model,
    p.template,
    p.dataset,
    COUNT(*) AS replies,
    MAX(r.annotators) AS annotators,
    SUM(p.n) AS ratings,
    SUM(p.ones) AS missed,
    CAST(SUM(p.ones) AS DOUBLE) / SUM(p.n) AS miss_rate,
    CAST(SUM(CASE WHEN 2 * p.ones > p.n THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS majority_miss_rate,
    CAST(SUM(CASE WHEN p.ones = 0 OR p.ones = p.n THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS unanimous
FROM per_reply p
JOIN raters r
  ON r.model = p.model AND r.template = p.template AND r.dataset = p.dataset
GROUP BY p.model, p.template, p.dataset
ORDER BY p.model, p.template, p.dataset
