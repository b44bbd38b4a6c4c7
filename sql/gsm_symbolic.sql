-- GSM-Symbolic's view of the text attacks (Mirzadeh et al. 2024, their accuracy-distribution figures), an advmath extension, not a paper's: per model, accuracy on the original, names only, numbers only, names and numbers, and with a no-op sentence, with the spread over variant sets.
--
-- One row per model x template x dataset x attack of the family: `original`; `names` (people
-- renamed); `noop` (one irrelevant sentence added); `names+noop`; each numeric method alone
-- (`m1`, `m2`, `m3`: numbers only) and with the text attacks (`m3+names`: names and numbers;
-- `m3+noop`; `m3+names+noop`). `family` says which in words. A variant set is every problem's
-- variant of one index (GSM-Symbolic draws 50 sets of one instance per template): `sets` counts
-- the sets with a graded question, `set_accuracy_mean` and `set_accuracy_std` (sample standard
-- deviation, NULL for a single set) are taken over the sets' accuracies, from their sum and sum
-- of squares and rounded to 10 decimals, so that the figures do not depend on the order an
-- engine adds the sets in (it differs with the thread count). `accuracy` pools every
-- graded question. `original_accuracy` is the accuracy on the originals of the row's own
-- problems, and `accuracy_drop` = original_accuracy - set_accuracy_mean, the fall their figures show.
-- Rows stand on different problems (a question that names no one gets no `names` variant):
-- compare a row with its own `original_accuracy`. Ungraded rows are left out.
-- Portable SQL (DataFusion and DuckDB).
WITH family AS (
    SELECT
        g.model,
        g.template,
        g.dataset,
        g.attack,
        g.problem_id,
        a.gsm_symbolic AS family,
        v.variant_index,
        g.ok
    FROM graded g
    JOIN variants v
      ON v.variant_id = g.variant_id
     AND v.dataset = g.dataset
     AND v.attack = g.attack
    JOIN attacks a ON a.attack = g.attack
    WHERE a.gsm_symbolic IS NOT NULL
),
per_set AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        variant_index,
        AVG(CAST(ok AS DOUBLE)) AS set_accuracy
    FROM family
    GROUP BY model, template, dataset, attack, variant_index
),
spread AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        COUNT(*) AS sets,
        SUM(set_accuracy) AS total,
        SUM(set_accuracy * set_accuracy) AS squares
    FROM per_set
    GROUP BY model, template, dataset, attack
),
pooled AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        family,
        COUNT(DISTINCT problem_id) AS problems,
        COUNT(*) AS questions,
        AVG(CAST(ok AS DOUBLE)) AS accuracy
    FROM family
    GROUP BY model, template, dataset, attack, family
),
originals AS (
    SELECT
        model,
        template,
        dataset,
        problem_id,
        AVG(CAST(ok AS DOUBLE)) AS original_ok
    FROM graded
    WHERE attack = (SELECT attack FROM attacks WHERE is_original)
    GROUP BY model, template, dataset, problem_id
),
same_problems AS (
    SELECT
        f.model,
        f.template,
        f.dataset,
        f.attack,
        ROUND(AVG(o.original_ok), 10) AS original_accuracy
    FROM (SELECT DISTINCT model, template, dataset, attack, problem_id FROM family) f
    JOIN originals o
      ON o.model = f.model
     AND o.template = f.template
     AND o.dataset = f.dataset
     AND o.problem_id = f.problem_id
    GROUP BY f.model, f.template, f.dataset, f.attack
)
SELECT
    p.model,
    p.template,
    p.dataset,
    p.attack,
    p.family,
    p.problems,
    p.questions,
    s.sets,
    p.accuracy,
    ROUND(s.total / s.sets, 10) AS set_accuracy_mean,
    CASE
        WHEN s.sets < 2 THEN NULL
        ELSE ROUND(SQRT(GREATEST((s.squares - s.total * s.total / s.sets) / (s.sets - 1), 0)), 10)
    END AS set_accuracy_std,
    sp.original_accuracy,
    ROUND(sp.original_accuracy - s.total / s.sets, 10) AS accuracy_drop
FROM pooled p
JOIN spread s
  ON s.model = p.model
 AND s.template = p.template
 AND s.dataset = p.dataset
 AND s.attack = p.attack
LEFT JOIN same_problems sp
  ON sp.model = p.model
 AND sp.template = p.template
 AND sp.dataset = p.dataset
 AND sp.attack = p.attack
ORDER BY p.model, p.template, p.dataset, p.attack
