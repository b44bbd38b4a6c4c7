-- GSM-Plus's view of every attack (Li et al. 2024: accuracy, performance drop rate and accurately solved pairs), an advmath extension, not a paper's: GSM-Plus's perturbations were written by a model and corrected by people, advmath's families make them by rule.
--
-- One row per model x template x dataset x attack other than `original`, on the pairs of a
-- graded variant and its problem's graded original. `perturbation` names GSM-Plus's kind of the
-- attack: numerical substitution (`m1`, `m2`, `m3`), digit expansion (`digits`), integer to
-- decimal conversion (`decimals`), distractor insertion (`noop`), critical thinking (`missing`: right
-- when the reply says the question cannot be answered), problem understanding
-- (`rephrase`); an attack GSM-Plus does not make (names, punctuation noise, a composition, the
-- guided attack) reads `beyond GSM-Plus`.
-- - `pairs`: graded variants whose original is graded; `problems`: their problems.
-- - `accuracy`: accuracy on the variants of the pairs; `original_accuracy`: on their originals,
--   each pair counting its problem's original once (a problem with three variants weighs three,
--   as GSM-Plus pairs every variation with its seed question). An original answered several
--   times (samples) is right only if every answer is (the shared view `original_outcomes`).
-- - `pdr`: the performance drop rate, 1 - accuracy / original_accuracy (NULL when no original
--   of the pairs is right).
-- - `asp`: the accurately solved pairs, the share of pairs with both questions right.
-- Figures are rounded to 10 decimals, so that they do not depend on the order an engine adds in.
-- Ungraded rows are left out. Portable SQL (DataFusion and DuckDB).
WITH pairs AS (
    SELECT
        g.model,
        g.template,
        g.dataset,
        g.attack,
        g.problem_id,
        CAST(g.ok AS DOUBLE) AS ok,
        CAST(o.orig_ok AS DOUBLE) AS original_ok
    FROM graded g
    JOIN original_outcomes o
      ON o.model = g.model
     AND o.template = g.template
     AND o.dataset = g.dataset
     AND o.problem_id = g.problem_id
    WHERE g.attack <> (SELECT attack FROM attacks WHERE is_original)
),
per_attack AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        COUNT(DISTINCT problem_id) AS problems,
        COUNT(*) AS pairs,
        SUM(ok) AS right_variants,
        SUM(original_ok) AS right_originals,
        SUM(ok * original_ok) AS right_pairs
    FROM pairs
    GROUP BY model, template, dataset, attack
)
SELECT
    p.model,
    p.template,
    p.dataset,
    p.attack,
    COALESCE(a.gsm_plus, 'beyond GSM-Plus') AS perturbation,
    problems,
    pairs,
    ROUND(right_variants / pairs, 10) AS accuracy,
    ROUND(right_originals / pairs, 10) AS original_accuracy,
    CASE
        WHEN right_originals = 0 THEN NULL
        ELSE ROUND(1 - right_variants / right_originals, 10)
    END AS pdr,
    ROUND(right_pairs / pairs, 10) AS asp
FROM per_attack p
LEFT JOIN attacks a ON a.attack = p.attack
ORDER BY p.model, p.template, p.dataset, p.attack
