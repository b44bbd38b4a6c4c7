-- View `problem_outcomes`: one row per model x template x dataset x attack x problem with at least
-- one graded response (the original counts as the attack `original`): `n_var` graded responses,
-- `n_wrong` of them wrong, `all_ok` = 1 when none is. For the attacks (not the original), from the
-- variant index that ends `variant_id` (`.../m1/7` is variant 7): `first_wrong`, the lowest index
-- answered wrongly (NULL when none is), and `index_span`, the highest index + 1.
-- The per-problem views and the attacks-vs-k curve read it, so one pass over the responses serves
-- them all. SPLIT_PART with a negative index counts from the end, in DataFusion and DuckDB alike.
CREATE VIEW problem_outcomes AS
SELECT
    model,
    template,
    dataset,
    attack,
    problem_id,
    COUNT(*) AS n_var,
    COUNT(*) - SUM(ok) AS n_wrong,
    MIN(ok) AS all_ok,
    MIN(CASE WHEN ok = 0 THEN variant_index END) AS first_wrong,
    MAX(variant_index) + 1 AS index_span
FROM (
    SELECT
        model,
        template,
        dataset,
        attack,
        problem_id,
        ok,
        CASE
            WHEN attack <> (SELECT attack FROM attacks WHERE is_original)
                THEN CAST(SPLIT_PART(variant_id, '/', -1) AS INTEGER)
        END AS variant_index
    FROM graded
) indexed
GROUP BY model, template, dataset, attack, problem_id;
