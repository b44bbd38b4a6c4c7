-- Xie et al. 2024, Table 1: original accuracy (OA), attack accuracy (AA) and attack success rate (ASR), Eq. 3-5.
--
-- One row per model x template x dataset x attack (every attack but `original`), from the view
-- `paper_accuracy` (sql/views/07_paper_accuracy.sql), which follows the paper and its code
-- (attack/eval.py). OA = originals answered correctly / problems with a graded original
-- (`original_problems`). AA = problems whose every graded variant of the attack is answered
-- correctly / problems with at least one graded variant (`problems`): the original is not
-- required. ASR = (OA - AA) / OA: NULL (shown empty) when OA is 0; negative when the variants
-- are answered better than the originals.
--
-- Two further figures, not the paper's, over the problems with both a graded original and a
-- graded variant (`paired_problems`): `robust_share` = problems whose original AND every variant
-- are answered correctly / paired problems (a stricter accuracy than AA), and `broken_share` =
-- problems whose original is right but some variant wrong / problems whose original is right
-- (the share of solved problems the attack breaks; NULL when none is solved).
-- Ungraded rows (`correct` NULL: failed request or no gold answer) are left out. Several graded
-- answers to the same question count as correct only if all are.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
SELECT
    model,
    template,
    dataset,
    attack,
    original_problems,
    original_correct,
    problems,
    variants,
    attack_correct,
    oa,
    aa,
    asr,
    paired_problems,
    robust_correct,
    CAST(robust_correct AS DOUBLE) / NULLIF(paired_problems, 0) AS robust_share,
    CAST(solved_broken AS DOUBLE) / NULLIF(robust_correct + solved_broken, 0) AS broken_share
FROM paper_accuracy
ORDER BY model, template, dataset, attack
