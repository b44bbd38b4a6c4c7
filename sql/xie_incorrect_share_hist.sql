-- Xie et al. 2024, appendix F (distribution behind Table 2): histogram of the per-problem share of incorrectly answered variants.
--
-- One row per model x template x dataset x attack x bin, all ten bins present (zero counts
-- included). Over every problem with at least one graded variant of the attack, whether or not the
-- model solves its original (as Table 2's `mean_incorrect_share_all` and the authors' per-problem
-- accuracy), share = variants answered wrongly / graded variants; bin b
-- (0..9) holds b/10 <= share < (b+1)/10, and bin 9 also holds share = 1. Binning compares
-- integers (10 * wrong against b * variants), so no rounding decides a bin. `share_of_problems` =
-- problems in the bin / problems of the group.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, no engine functions.
WITH shares AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        CASE
            WHEN 10 * n_wrong < 1 * n_var THEN 0
            WHEN 10 * n_wrong < 2 * n_var THEN 1
            WHEN 10 * n_wrong < 3 * n_var THEN 2
            WHEN 10 * n_wrong < 4 * n_var THEN 3
            WHEN 10 * n_wrong < 5 * n_var THEN 4
            WHEN 10 * n_wrong < 6 * n_var THEN 5
            WHEN 10 * n_wrong < 7 * n_var THEN 6
            WHEN 10 * n_wrong < 8 * n_var THEN 7
            WHEN 10 * n_wrong < 9 * n_var THEN 8
            ELSE 9
        END AS bin
    FROM attack_outcomes
),
wide AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        SUM(CASE WHEN bin = 0 THEN 1 ELSE 0 END) AS n0,
        SUM(CASE WHEN bin = 1 THEN 1 ELSE 0 END) AS n1,
        SUM(CASE WHEN bin = 2 THEN 1 ELSE 0 END) AS n2,
        SUM(CASE WHEN bin = 3 THEN 1 ELSE 0 END) AS n3,
        SUM(CASE WHEN bin = 4 THEN 1 ELSE 0 END) AS n4,
        SUM(CASE WHEN bin = 5 THEN 1 ELSE 0 END) AS n5,
        SUM(CASE WHEN bin = 6 THEN 1 ELSE 0 END) AS n6,
        SUM(CASE WHEN bin = 7 THEN 1 ELSE 0 END) AS n7,
        SUM(CASE WHEN bin = 8 THEN 1 ELSE 0 END) AS n8,
        SUM(CASE WHEN bin = 9 THEN 1 ELSE 0 END) AS n9,
        COUNT(*) AS problems
    FROM shares
    GROUP BY model, template, dataset, attack
),
bins AS (
    SELECT bin
    FROM (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS b (bin)
),
cells AS (
    SELECT
        w.model,
        w.template,
        w.dataset,
        w.attack,
        b.bin,
        CASE b.bin
            WHEN 0 THEN w.n0
            WHEN 1 THEN w.n1
            WHEN 2 THEN w.n2
            WHEN 3 THEN w.n3
            WHEN 4 THEN w.n4
            WHEN 5 THEN w.n5
            WHEN 6 THEN w.n6
            WHEN 7 THEN w.n7
            WHEN 8 THEN w.n8
            WHEN 9 THEN w.n9
        END AS n,
        w.problems
    FROM wide w
    CROSS JOIN bins b
)
SELECT
    model,
    template,
    dataset,
    attack,
    bin,
    CAST(bin AS DOUBLE) / 10 AS share_from,
    CAST(bin + 1 AS DOUBLE) / 10 AS share_to,
    n AS problems,
    CAST(n AS DOUBLE) / problems AS share_of_problems
FROM cells
ORDER BY model, template, dataset, attack, bin
