-- Xie et al. 2024, Appendix G: generations per problem per method (M1, M2, M3).
--
-- One row per dataset x attack of `generation_stats` (written by `advmath generate`, one row per
-- problem and numeric attack). For each method: the problems attempted, the attempts per problem
-- (N), and per problem on average the valid generations (attempts whose every node kept its
-- constraints, duplicates included) and the distinct valid generations (number tuples, the
-- original excluded), with their smallest and largest count; then how many problems reached the
-- m variants asked for (`reached_target`, their share) and the variants written per problem, over
-- every problem (`mean_emitted`) and over those that got at least one (`emitted_per_varied_problem`,
-- what the headline's `asked ... of N` reads).
-- A problem whose generation failed with an internal error (`failure` set) made no attempt and is
-- left out. Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for means and division.
SELECT
    dataset,
    attack,
    COUNT(*) AS problems,
    CAST(SUM(attempts) AS DOUBLE) / COUNT(*) AS mean_attempts,
    CAST(SUM(valid) AS DOUBLE) / COUNT(*) AS mean_valid,
    CAST(SUM(unique_valid) AS DOUBLE) / COUNT(*) AS mean_unique_valid,
    MIN(unique_valid) AS min_unique_valid,
    MAX(unique_valid) AS max_unique_valid,
    SUM(CASE WHEN reached_target THEN 1 ELSE 0 END) AS reached_target,
    CAST(SUM(CASE WHEN reached_target THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*) AS reached_share,
    CAST(SUM(emitted) AS DOUBLE) / COUNT(*) AS mean_emitted,
    CAST(SUM(emitted) AS DOUBLE)
        / NULLIF(SUM(CASE WHEN emitted > 0 THEN 1 ELSE 0 END), 0) AS emitted_per_varied_problem
FROM generation_stats
WHERE failure IS NULL
GROUP BY dataset, attack
ORDER BY dataset, attack
