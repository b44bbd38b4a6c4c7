-- Xie et al. 2024, Table 1: original accuracy (OA, Eq. 3), attack accuracy (AA, Eq. 5) and attack success rate (ASR, Eq. 6).
--
-- One row per model x template x dataset x attack (every attack but `original`), from the view
-- `paper_accuracy` (sql/views/07_paper_accuracy.sql). The three figures share one problem set P
-- (`problems`): the problems with a graded original and at least one graded variant of the
-- attack. OA = originals of P answered correctly / |P|. AA = problems of P whose every graded
-- variant is answered correctly / |P| (the original not required). ASR = (OA - AA) / OA: NULL
-- (shown empty) when OA is 0; negative when the variants are answered better than the originals.
-- `bootstrap_ci` and `mcnemar` use the same P, so their ASR is this one.
--
-- Further figures, not the paper's Table 1: `robust_share` = problems of P whose original AND
-- every variant are answered correctly / |P| (a stricter accuracy than AA); `broken_share` =
-- problems of P whose original is right but some variant wrong / problems of P whose original is
-- right (NULL when none is); `attacked_problems` = problems with a graded variant, original or
-- not; `oa_all_originals` = the authors' eval.py reading of OA, over every graded original of the
-- dataset (`all_originals`), variants or not.
-- Ungraded rows (`correct` NULL: failed request or no gold answer) are left out. Several graded
-- answers to the same question count as correct only if all are.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
SELECT
    model,
    template,
    dataset,
    attack,
    problems,
    variants,
    original_correct,
    attack_correct,
    oa,
    aa,
    asr,
    robust_correct,
    CAST(robust_correct AS DOUBLE) / NULLIF(problems, 0) AS robust_share,
    CAST(solved_broken AS DOUBLE) / NULLIF(robust_correct + solved_broken, 0) AS broken_share,
    attacked_problems,
    all_originals,
    oa_all_originals
FROM paper_accuracy
ORDER BY model, template, dataset, attack
