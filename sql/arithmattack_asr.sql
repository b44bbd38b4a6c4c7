-- ArithmAttack (Abedin et al.), Tables 1 (GSM8K) and 3 (MultiArith), their ASR column, and Figure 3: attack success rate of punctuation noise per model x dataset.
--
-- One row per model x template x dataset x noise level > 0. A noisy item is matched to its clean
-- question by problem_id. At each level, `asr` = noisy items answered wrongly whose clean question
-- is answered correctly / noisy items whose clean question is answered correctly (NULL when the
-- model answers no clean question correctly). `asr_mean` averages `asr` over the levels of the
-- model and dataset (the paper's ASR: 10, 30 and 50 percent). `fixed` counts noisy items answered
-- correctly whose clean question is answered wrongly.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
WITH noised AS (
    SELECT
        g.model,
        g.template,
        g.dataset,
        g.problem_id,
        g.noise_level,
        g.ok
    FROM graded g
    JOIN attacks a ON a.attack = g.attack
    WHERE a.kind = 'noise'
),
per_level AS (
    SELECT
        n.model,
        n.template,
        n.dataset,
        n.noise_level,
        COUNT(*) AS items,
        SUM(c.orig_ok) AS clean_correct,
        SUM(CASE WHEN c.orig_ok = 1 AND n.ok = 0 THEN 1 ELSE 0 END) AS flipped,
        SUM(CASE WHEN c.orig_ok = 0 AND n.ok = 1 THEN 1 ELSE 0 END) AS fixed
    FROM noised n
    JOIN original_outcomes c
      ON c.model = n.model
     AND c.template = n.template
     AND c.dataset = n.dataset
     AND c.problem_id = n.problem_id
    GROUP BY n.model, n.template, n.dataset, n.noise_level
),
rates AS (
    SELECT
        model,
        template,
        dataset,
        noise_level,
        items,
        clean_correct,
        flipped,
        fixed,
        CAST(flipped AS DOUBLE) / NULLIF(clean_correct, 0) AS asr
    FROM per_level
)
SELECT
    model,
    template,
    dataset,
    noise_level,
    items,
    clean_correct,
    flipped,
    fixed,
    asr,
    -- Summed in level order: a window without an order adds the three rates in whatever order
    -- the rows arrive, and the last bit of the mean would depend on the thread schedule.
    AVG(asr) OVER (
        PARTITION BY model, template, dataset
        ORDER BY noise_level
        ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS asr_mean
FROM rates
ORDER BY model, template, dataset, noise_level
