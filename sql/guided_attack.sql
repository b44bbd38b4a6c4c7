-- Guided against random M3 (an advmath extension, not a paper's table): per model, on the problems the guided attack held out, ASR with the first K variants of each attack, and the requests each spends to reach its first adversarial example.
--
-- One row per model x template x dataset x K, K in 1, 5, 10, 20, over the problems with a graded
-- original, graded `guided` variants and graded `m3` variants, at least K of each (the guided
-- attack's problems are its held-out split, so random M3 is measured on exactly them). The
-- guided variants are numbered best first, so its first K are the guided attack with budget K;
-- M3's are numbered in a seeded random order, so its first K are a uniform K-subset. For each
-- attack, as Table 1 and Figure 7 compute them (Eq. 5-6): aa = problems whose variants of index
-- below K are all answered correctly (the original not required) / problems, asr = (oa - aa) / oa
-- (NULL when oa = 0). `asr_difference` = guided_asr - random_asr.
-- Every problem falls in one of eight cells `c_<o><g><r>` (1 = right): o the original, g every
-- guided variant below K, r every M3 variant below K. The ASRs depend on the problems only
-- through these counts, so resampling problems is a multinomial draw of them, done in Rust
-- (seeded, deterministic): it adds guided_asr_low/high, random_asr_low/high and
-- difference_low/high (95% percentile intervals; a replicate without a solved original is
-- skipped).
-- Efficient-attack measure, over the problems whose original is answered correctly, each
-- attacked in variant order until its first wrong answer or K requests: `*_requests` = variant
-- requests sent (the original's request is not counted), `*_broken` = problems broken,
-- `*_requests_per_broken` = requests / broken (NULL when none is broken).
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
WITH paired AS (
    SELECT
        g.model,
        g.template,
        g.dataset,
        g.problem_id,
        o.orig_ok,
        g.first_wrong AS guided_first,
        g.index_span AS guided_span,
        r.first_wrong AS random_first,
        r.index_span AS random_span
    FROM problem_outcomes g
    JOIN attacks ga ON ga.attack = g.attack
    JOIN problem_outcomes r
      ON r.model = g.model
     AND r.template = g.template
     AND r.dataset = g.dataset
     AND r.problem_id = g.problem_id
    JOIN attacks ra ON ra.attack = r.attack
    JOIN original_outcomes o
      ON o.model = g.model
     AND o.template = g.template
     AND o.dataset = g.dataset
     AND o.problem_id = g.problem_id
    WHERE ga.families = 'guided'
      AND ra.families = 'm3'
),
-- The budgets K, one row each per pair: UNNEST of a list, as Figure 7's curve expands its k.
budgets AS (
    SELECT
        model,
        template,
        dataset,
        orig_ok,
        guided_first,
        guided_span,
        random_first,
        random_span,
        UNNEST([1, 5, 10, 20]) AS k
    FROM paired
),
per_problem AS (
    SELECT
        model,
        template,
        dataset,
        k,
        orig_ok,
        CASE WHEN guided_first IS NULL OR guided_first >= k THEN 1 ELSE 0 END AS guided_ok,
        CASE WHEN random_first IS NULL OR random_first >= k THEN 1 ELSE 0 END AS random_ok,
        CASE WHEN guided_first < k THEN guided_first + 1 ELSE k END AS guided_requests,
        CASE WHEN random_first < k THEN random_first + 1 ELSE k END AS random_requests
    FROM budgets
    WHERE k <= guided_span
      AND k <= random_span
),
totals AS (
    SELECT
        model,
        template,
        dataset,
        k,
        COUNT(*) AS problems,
        SUM(orig_ok) AS original_correct,
        SUM(guided_ok) AS guided_correct,
        SUM(random_ok) AS random_correct,
        SUM(orig_ok * guided_requests) AS guided_requests,
        SUM(orig_ok * (1 - guided_ok)) AS guided_broken,
        SUM(orig_ok * random_requests) AS random_requests,
        SUM(orig_ok * (1 - random_ok)) AS random_broken,
        SUM(CASE WHEN orig_ok = 0 AND guided_ok = 0 AND random_ok = 0 THEN 1 ELSE 0 END) AS c_000,
        SUM(CASE WHEN orig_ok = 0 AND guided_ok = 0 AND random_ok = 1 THEN 1 ELSE 0 END) AS c_001,
        SUM(CASE WHEN orig_ok = 0 AND guided_ok = 1 AND random_ok = 0 THEN 1 ELSE 0 END) AS c_010,
        SUM(CASE WHEN orig_ok = 0 AND guided_ok = 1 AND random_ok = 1 THEN 1 ELSE 0 END) AS c_011,
        SUM(CASE WHEN orig_ok = 1 AND guided_ok = 0 AND random_ok = 0 THEN 1 ELSE 0 END) AS c_100,
        SUM(CASE WHEN orig_ok = 1 AND guided_ok = 0 AND random_ok = 1 THEN 1 ELSE 0 END) AS c_101,
        SUM(CASE WHEN orig_ok = 1 AND guided_ok = 1 AND random_ok = 0 THEN 1 ELSE 0 END) AS c_110,
        SUM(CASE WHEN orig_ok = 1 AND guided_ok = 1 AND random_ok = 1 THEN 1 ELSE 0 END) AS c_111
    FROM per_problem
    GROUP BY model, template, dataset, k
)
SELECT
    model,
    template,
    dataset,
    k,
    problems,
    CAST(original_correct AS DOUBLE) / problems AS oa,
    CAST(guided_correct AS DOUBLE) / problems AS guided_aa,
    CAST(original_correct - guided_correct AS DOUBLE) / NULLIF(original_correct, 0) AS guided_asr,
    CAST(random_correct AS DOUBLE) / problems AS random_aa,
    CAST(original_correct - random_correct AS DOUBLE) / NULLIF(original_correct, 0) AS random_asr,
    CAST(random_correct - guided_correct AS DOUBLE) / NULLIF(original_correct, 0) AS asr_difference,
    guided_requests,
    guided_broken,
    CAST(guided_requests AS DOUBLE) / NULLIF(guided_broken, 0) AS guided_requests_per_broken,
    random_requests,
    random_broken,
    CAST(random_requests AS DOUBLE) / NULLIF(random_broken, 0) AS random_requests_per_broken,
    c_000,
    c_001,
    c_010,
    c_011,
    c_100,
    c_101,
    c_110,
    c_111
FROM totals
ORDER BY model, template, dataset, k
