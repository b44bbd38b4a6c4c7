-- Xie et al. 2024, Table 3: attack success rate of M3 against the RobustMath rephrasing attack, per model, averaged over datasets.
--
-- One row per model x template with an `m3` or a `rephrase` attack. ASR is the paper's Eq. 6 as in
-- Table 1 (view `paper_accuracy`): (OA - AA) / OA per dataset over Table 1's problem set, AA
-- counting a problem when every graded variant of the attack is answered correctly. As the paper
-- does, each figure (OA, AA and ASR) is the plain mean over the datasets the attack was run on
-- (`m3_datasets`, `rephrase_datasets`); a dataset where the model solves no original (ASR NULL)
-- is left out of the means.
-- The rephrasing attack is the RobustMath release of the authors (`advmath ingest
-- ../shared/data/xie2024/robustmath`: dataset `robustmath`, its originals as attack `original`,
-- every rephrased question of an original as one variant of attack `rephrase`); M3 comes from
-- `advmath generate --attack m3` on the paper's datasets. `m3_oa`, `m3_aa` / `rephrase_oa`,
-- `rephrase_aa` are the mean OA and AA over the same datasets (those with a defined ASR).
-- Portable SQL (DataFusion and DuckDB): AVG skips NULL.
WITH compared AS (
    SELECT
        p.model,
        p.template,
        a.kind = 'rewrite' AS rephrased,
        p.oa,
        p.aa,
        p.asr
    FROM paper_accuracy p
    JOIN attacks a ON a.attack = p.attack
    WHERE a.families IN ('m3', 'rephrase')
)
SELECT
    model,
    template,
    AVG(CASE WHEN NOT rephrased AND asr IS NOT NULL THEN oa END) AS m3_oa,
    AVG(CASE WHEN NOT rephrased AND asr IS NOT NULL THEN aa END) AS m3_aa,
    AVG(CASE WHEN NOT rephrased THEN asr END) AS m3_asr,
    COUNT(CASE WHEN NOT rephrased THEN asr END) AS m3_datasets,
    AVG(CASE WHEN rephrased AND asr IS NOT NULL THEN oa END) AS rephrase_oa,
    AVG(CASE WHEN rephrased AND asr IS NOT NULL THEN aa END) AS rephrase_aa,
    AVG(CASE WHEN rephrased THEN asr END) AS rephrase_asr,
    COUNT(CASE WHEN rephrased THEN asr END) AS rephrase_datasets
FROM compared
GROUP BY model, template
ORDER BY model, template
