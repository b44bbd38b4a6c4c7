-- View `paper_accuracy`: Xie et al. 2024, Table 1 (Eq. 3, 5 and 6), one row per model x template x
-- dataset x attack (every attack but `original`) with a graded variant.
--
-- Eq. 3 and Eq. 5 both sum over the problem set P and divide by |P|. P here is the problems with a
-- graded original and at least one graded variant of the attack (`problems`), one set for the
-- three figures of a cell:
-- OA (Eq. 3) = problems of P whose original is answered correctly / |P|.
-- AA (Eq. 5) = problems of P whose every graded variant of the attack is answered correctly / |P|
-- (the original not required).
-- ASR (Eq. 6) = (OA - AA) / OA; negative when the variants are answered better than the
-- originals, NULL when OA is 0 or P is empty.
-- The authors' attack/eval.py scores every original it has an answer for, variants or not: that
-- reading is kept as `all_originals` / `oa_all_originals` (OA over every graded original of the
-- dataset), never mixed into the paper's three.
-- Besides the paper's figures: `robust_correct` problems of P whose original AND every variant
-- are right, and `solved_broken` problems of P whose original is right but some variant wrong.
CREATE VIEW paper_accuracy AS
WITH originals AS (
    SELECT
        model,
        template,
        dataset,
        COUNT(*) AS all_originals,
        SUM(orig_ok) AS all_originals_correct
    FROM original_outcomes
    GROUP BY model, template, dataset
),
attacked AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        COUNT(*) AS attacked_problems
    FROM attack_outcomes
    GROUP BY model, template, dataset, attack
),
paired AS (
    SELECT
        p.model,
        p.template,
        p.dataset,
        p.attack,
        COUNT(*) AS problems,
        SUM(p.n_var) AS variants,
        SUM(o.orig_ok) AS original_correct,
        SUM(p.all_ok) AS attack_correct,
        SUM(o.orig_ok * p.all_ok) AS robust_correct,
        SUM(o.orig_ok * (1 - p.all_ok)) AS solved_broken
    FROM attack_outcomes p
    JOIN original_outcomes o
      ON o.model = p.model
     AND o.template = p.template
     AND o.dataset = p.dataset
     AND o.problem_id = p.problem_id
    GROUP BY p.model, p.template, p.dataset, p.attack
)
SELECT
    a.model,
    a.template,
    a.dataset,
    a.attack,
    COALESCE(s.problems, 0) AS problems,
    COALESCE(s.variants, 0) AS variants,
    COALESCE(s.original_correct, 0) AS original_correct,
    COALESCE(s.attack_correct, 0) AS attack_correct,
    CAST(s.original_correct AS DOUBLE) / NULLIF(s.problems, 0) AS oa,
    CAST(s.attack_correct AS DOUBLE) / NULLIF(s.problems, 0) AS aa,
    (CAST(s.original_correct AS DOUBLE) - CAST(s.attack_correct AS DOUBLE))
        / NULLIF(CAST(s.original_correct AS DOUBLE), 0) AS asr,
    COALESCE(s.robust_correct, 0) AS robust_correct,
    COALESCE(s.solved_broken, 0) AS solved_broken,
    a.attacked_problems,
    COALESCE(o.all_originals, 0) AS all_originals,
    CAST(o.all_originals_correct AS DOUBLE) / NULLIF(o.all_originals, 0) AS oa_all_originals
FROM attacked a
LEFT JOIN paired s
  ON s.model = a.model
 AND s.template = a.template
 AND s.dataset = a.dataset
 AND s.attack = a.attack
LEFT JOIN originals o
  ON o.model = a.model
 AND o.template = a.template
 AND o.dataset = a.dataset;
