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
WITH summary AS (
    SELECT
        p.model,
        p.template,
        p.dataset,
        p.attack,
        COUNT(*) AS problems,
        SUM(p.n_var) AS variants,
        SUM(o.orig_ok) AS original_correct,
        SUM(o.orig_ok * p.all_ok) AS attack_correct
    FROM attack_outcomes p
    JOIN original_outcomes o
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
