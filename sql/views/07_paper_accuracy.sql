-- View `paper_accuracy`: Xie et al. 2024 Eq. 3-5 (attack/eval.py), one row per model x template x
-- dataset x attack (every attack but `original`).
--
-- OA (Eq. 3) = originals answered correctly / problems with a graded original (`original_problems`,
-- the same for every attack of a dataset: eval.py scores every original it has an answer for).
-- AA (Eq. 4) = problems whose every graded variant of the attack is answered correctly / problems
-- with at least one graded variant (`problems`); the original is not required (eval.py counts a
-- problem when its variant accuracy is 100%, over the problems that have variants).
-- ASR (Eq. 5) = (OA - AA) / OA; it can be negative when the variants are easier than the
-- originals, and is NULL when OA is 0 or the model answered no original of the dataset.
-- Besides the paper's figures, over the problems with both a graded original and a graded variant
-- (`paired_problems`): `robust_correct` problems whose original AND every variant are right, and
-- `solved_broken` problems whose original is right but some variant wrong.
CREATE VIEW paper_accuracy AS
WITH originals AS (
    SELECT
        model,
        template,
        dataset,
        COUNT(*) AS original_problems,
        SUM(orig_ok) AS original_correct
    FROM original_outcomes
    GROUP BY model, template, dataset
),
attacked AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        COUNT(*) AS problems,
        SUM(n_var) AS variants,
        SUM(all_ok) AS attack_correct
    FROM attack_outcomes
    GROUP BY model, template, dataset, attack
),
paired AS (
    SELECT
        p.model,
        p.template,
        p.dataset,
        p.attack,
        COUNT(*) AS paired_problems,
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
    o.original_problems,
    o.original_correct,
    a.problems,
    a.variants,
    a.attack_correct,
    CAST(o.original_correct AS DOUBLE) / o.original_problems AS oa,
    CAST(a.attack_correct AS DOUBLE) / a.problems AS aa,
    (CAST(o.original_correct AS DOUBLE) / o.original_problems
        - CAST(a.attack_correct AS DOUBLE) / a.problems)
        / NULLIF(CAST(o.original_correct AS DOUBLE) / o.original_problems, 0) AS asr,
    COALESCE(s.paired_problems, 0) AS paired_problems,
    COALESCE(s.robust_correct, 0) AS robust_correct,
    COALESCE(s.solved_broken, 0) AS solved_broken
FROM attacked a
LEFT JOIN originals o
  ON o.model = a.model
 AND o.template = a.template
 AND o.dataset = a.dataset
LEFT JOIN paired s
  ON s.model = a.model
 AND s.template = a.template
 AND s.dataset = a.dataset
 AND s.attack = a.attack;
