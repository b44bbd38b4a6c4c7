-- Xie et al. 2024, Table 1: original accuracy (OA), attack accuracy (AA) and attack success rate (ASR).
--
-- One row per model x template x dataset x attack (every attack but `original`). The problems are
-- those whose original has a graded response and that have at least one graded variant of the
-- attack. OA = share of them whose original is answered correctly. AA = share whose original AND
-- every variant of the attack are answered correctly (a problem survives the attack only if no
-- variant breaks it). ASR = (OA - AA) / OA, the share of originally solved problems that some
-- variant breaks; NULL (shown empty) when the model solves no original.
-- Ungraded rows (`correct` NULL: failed request or no gold answer) are left out. Several graded
-- answers to the same original count as correct only if all are.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
WITH graded AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        problem_id,
        CASE WHEN correct THEN 1 ELSE 0 END AS ok
    FROM responses
    WHERE correct IS NOT NULL
      AND variant_id IS NOT NULL
      AND problem_id IS NOT NULL
      AND dataset IS NOT NULL
      AND attack IS NOT NULL
),
orig AS (
    SELECT
        model,
        template,
        dataset,
        problem_id,
        MIN(ok) AS orig_ok
    FROM graded
    WHERE attack = 'original'
    GROUP BY model, template, dataset, problem_id
),
per_problem AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        problem_id,
        COUNT(*) AS n_var,
        MIN(ok) AS all_ok
    FROM graded
    WHERE attack <> 'original'
    GROUP BY model, template, dataset, attack, problem_id
),
summary AS (
    SELECT
        p.model,
        p.template,
        p.dataset,
        p.attack,
        COUNT(*) AS problems,
        SUM(p.n_var) AS variants,
        SUM(o.orig_ok) AS original_correct,
        SUM(o.orig_ok * p.all_ok) AS attack_correct
    FROM per_problem p
    JOIN orig o
      ON o.model = p.model
     AND o.template = p.template
     AND o.dataset = p.dataset
     AND o.problem_id = p.problem_id
    GROUP BY p.model, p.template, p.dataset, p.attack
)
SELECT
    s.model,
    s.template,
    s.dataset,
    s.attack,
    s.problems,
    s.variants,
    s.original_correct,
    s.attack_correct,
    CAST(s.original_correct AS DOUBLE) / s.problems AS oa,
    CAST(s.attack_correct AS DOUBLE) / s.problems AS aa,
    CAST(s.original_correct - s.attack_correct AS DOUBLE) / NULLIF(s.original_correct, 0) AS asr
FROM summary s
ORDER BY s.model, s.template, s.dataset, s.attack
