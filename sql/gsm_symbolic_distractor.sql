-- GSM-NoOp's failure (Mirzadeh et al. 2024: models subtract the number a no-op sentence gives), an advmath extension, not a paper's: how often a model's answer to a question with a no-op sentence is the gold minus, or plus, that number.
--
-- One row per model x template x dataset x attack with a no-op sentence (`noop`, `names+noop`,
-- `m3+noop`, ...). `questions` graded, `wrong` of them answered wrongly; `used_minus` = answers
-- equal to the gold minus the sentence's number (`variants.distractor`), `used_plus` = to the
-- gold plus it, `used_distractor` = both; `distractor_rate` = used_distractor / questions, and
-- `share_of_wrong` = used_distractor / wrong (NULL when none is wrong). Answers and golds
-- compare as numbers (the gold's canonical decimal `variants.answer`), to within 1e-6; an
-- answer that is no number counts as neither. Ungraded rows are left out.
-- Portable SQL (DataFusion and DuckDB).
WITH noop AS (
    SELECT
        g.model,
        g.template,
        g.dataset,
        g.attack,
        g.ok,
        TRY_CAST(g.extracted AS DOUBLE) AS answer,
        TRY_CAST(v.answer AS DOUBLE) AS gold,
        CAST(v.distractor AS DOUBLE) AS distractor
    FROM graded g
    JOIN variants v
      ON v.variant_id = g.variant_id
     AND v.dataset = g.dataset
     AND v.attack = g.attack
    WHERE v.distractor IS NOT NULL
),
marked AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        ok,
        CASE WHEN ABS(answer - (gold - distractor)) < 0.000001 THEN 1 ELSE 0 END AS minus,
        CASE WHEN ABS(answer - (gold + distractor)) < 0.000001 THEN 1 ELSE 0 END AS plus
    FROM noop
)
SELECT
    model,
    template,
    dataset,
    attack,
    COUNT(*) AS questions,
    SUM(1 - ok) AS wrong,
    SUM(minus) AS used_minus,
    SUM(plus) AS used_plus,
    SUM(minus + plus) AS used_distractor,
    CAST(SUM(minus + plus) AS DOUBLE) / COUNT(*) AS distractor_rate,
    CASE
        WHEN SUM(1 - ok) = 0 THEN NULL
        ELSE CAST(SUM(minus + plus) AS DOUBLE) / SUM(1 - ok)
    END AS share_of_wrong
FROM marked
GROUP BY model, template, dataset, attack
ORDER BY model, template, dataset, attack
