-- Xie et al. 2024, Figure 7: attack accuracy as a function of the number of attacks per problem, k = 1 .. m.
--
-- One row per model x template x dataset x attack x k, k = 1 .. m, m = the largest variant_index + 1
-- of the group. AA and ASR are Table 1's (Eq. 5-6, view `paper_accuracy`), over Table 1's problem
-- set P (a graded original and a graded variant of the attack), with only the first k variants of
-- each problem (variant_index 0 .. k-1; the index is the last `/`-separated field of variant_id,
-- `<problem_id>/<attack>/<variant_index>`): aa = problems of P whose graded variants of index below k are
-- all answered correctly (the original not required) / |P|, and asr = (oa - aa) / oa with Table 1's
-- OA over P (NULL when oa = 0). At k = m this is Table 1.
-- A problem's first wrong variant index and its m come from the view `problem_outcomes`.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0;
-- UNNEST(GENERATE_SERIES(1, m)) behaves alike in both.
WITH per_problem AS (
    SELECT
        p.model,
        p.template,
        p.dataset,
        p.attack,
        p.problem_id,
        p.first_wrong,
        p.index_span AS m
    FROM problem_outcomes p
    JOIN original_outcomes o
      ON o.model = p.model
     AND o.template = p.template
     AND o.dataset = p.dataset
     AND o.problem_id = p.problem_id
    WHERE p.attack <> (SELECT attack FROM attacks WHERE is_original)
),
hist AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        first_wrong,
        COUNT(*) AS n,
        MAX(m) AS m
    FROM per_problem
    GROUP BY model, template, dataset, attack, first_wrong
),
hist_m AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        first_wrong,
        n,
        MAX(m) OVER (PARTITION BY model, template, dataset, attack) AS m
    FROM hist
),
expanded AS (
    SELECT model, template, dataset, attack, first_wrong, n, UNNEST(GENERATE_SERIES(1, m)) AS k
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
        SUM(CASE WHEN first_wrong IS NULL OR first_wrong >= k THEN n ELSE 0 END) AS attack_correct
    FROM expanded
    GROUP BY model, template, dataset, attack, k
)
SELECT
    c.model,
    c.template,
    c.dataset,
    c.attack,
    c.k,
    c.problems,
    a.original_correct,
    c.attack_correct,
    a.oa,
    CAST(c.attack_correct AS DOUBLE) / c.problems AS aa,
    (a.oa - CAST(c.attack_correct AS DOUBLE) / c.problems) / NULLIF(a.oa, 0) AS asr
FROM curve c
JOIN paper_accuracy a
  ON a.model = c.model
 AND a.template = c.template
 AND a.dataset = c.dataset
 AND a.attack = c.attack
ORDER BY c.model, c.template, c.dataset, c.attack, c.k
