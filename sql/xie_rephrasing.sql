-- Xie et al. 2024, Table 3: attack success rate of M3 against the RobustMath rephrasing attack, per model, averaged over datasets.
--
-- One row per model x template with an `m3` or a `rephrase` attack. ASR is the paper's Eq. 5 as in
-- Table 1 (view `paper_accuracy`): (OA - AA) / OA per dataset, AA counting a problem when every
-- graded variant of the attack is answered correctly. As the paper does, each attack's ASR is the
-- plain mean over the datasets it was run on (`m3_datasets`, `rephrase_datasets`); a dataset
-- where the model solves no original (ASR NULL) is left out of the mean.
-- The rephrasing attack is the RobustMath release of the authors (`advmath ingest
-- ../shared/data/xie2024/robustmath`: dataset `robustmath`, its originals as attack `original`,
-- every rephrased question of an original as one variant of attack `rephrase`); M3 comes from
-- `advmath generate --attack m3` on the paper's datasets. `m3_aa` / `rephrase_aa` are the mean AA
-- over the same datasets (those with a defined ASR).
-- Portable SQL (DataFusion and DuckDB): AVG skips NULL.
SELECT
    model,
    template,
    AVG(CASE WHEN attack = 'm3' THEN asr END) AS m3_asr,
    AVG(CASE WHEN attack = 'm3' AND asr IS NOT NULL THEN aa END) AS m3_aa,
    COUNT(CASE WHEN attack = 'm3' THEN asr END) AS m3_datasets,
    AVG(CASE WHEN attack = 'rephrase' THEN asr END) AS rephrase_asr,
    AVG(CASE WHEN attack = 'rephrase' AND asr IS NOT NULL THEN aa END) AS rephrase_aa,
    COUNT(CASE WHEN attack = 'rephrase' THEN asr END) AS rephrase_datasets
FROM paper_accuracy
WHERE attack IN ('m3', 'rephrase')
GROUP BY model, template
ORDER BY model, template
