-- Xie et al. 2024, Figure 7: attack accuracy as a function of the number of attacks per problem, k = 1 .. m.
--
-- One row per model x template x dataset x attack x k, k = 1 .. m, m = the largest variant_index + 1
-- of the group. The problems are those of Table 1 (graded original, at least one graded variant). With
-- only the first k variants of each problem (variant_index 0 .. k-1; the index is the last
-- `/`-separated field of variant_id, `<problem_id>/<attack>/<variant_index>`), a problem counts
-- as solved when its original and those variants are all answered correctly:
-- aa = solved / problems, and asr = (oa - aa) / oa (NULL when oa = 0). At k = m this is Table 1.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0;
-- SPLIT_PART (negative index: from the end) and UNNEST(GENERATE_SERIES(1, m)) behave alike in both.
WITH per_problem AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        problem_id,
        MIN(CASE WHEN ok = 0 THEN variant_index END) AS first_wrong,
        MAX(variant_index) + 1 AS m
    FROM (
        SELECT
            model,
            template,
            dataset,
            attack,
            problem_id,
            CAST(SPLIT_PART(variant_id, '/', -1) AS INTEGER) AS variant_index,
            ok
        FROM graded
        WHERE attack <> 'original'
    ) indexed
    GROUP BY model, template, dataset, attack, problem_id
),
hist AS (
    SELECT
        p.model,
        p.template,
        p.dataset,
        p.attack,
        o.orig_ok,
        p.first_wrong,
        COUNT(*) AS n,
        MAX(p.m) AS m
    FROM per_problem p
    JOIN original_outcomes o
      ON o.model = p.model
     AND o.template = p.template
     AND o.dataset = p.dataset
     AND o.problem_id = p.problem_id
    GROUP BY p.model, p.template, p.dataset, p.attack, o.orig_ok, p.first_wrong
),
hist_m AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        orig_ok,
        first_wrong,
        n,
        MAX(m) OVER (PARTITION BY model, template, dataset, attack) AS m
    FROM hist
),
expanded AS (
    SELECT model, template, dataset, attack, orig_ok, first_wrong, n, UNNEST(GENERATE_SERIES(1, m)) AS k
    FROM hist_m
),
curve AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        k,
        SUM(n) AS problems,
        SUM(orig_ok * n) AS original_correct,
        SUM(CASE WHEN orig_ok = 1 AND (first_wrong IS NULL OR first_wrong >= k) THEN n ELSE 0 END)
            AS attack_correct
    FROM expanded
    GROUP BY model, template, dataset, attack, k
)
SELECT
    model,
    template,
    dataset,
    attack,
    k,
    problems,
    original_correct,
    attack_correct,
    CAST(original_correct AS DOUBLE) / problems AS oa,
    CAST(attack_correct AS DOUBLE) / problems AS aa,
    CAST(original_correct - attack_correct AS DOUBLE) / NULLIF(original_correct, 0) AS asr
FROM curve
ORDER BY model, template, dataset, attack, k
