-- Xie et al. 2024, Table 4 (universal attacks): share of problems with a variant that every model of a set answers wrongly, as the set grows to k models.
--
-- As in the authors' attack/universal_attack.py, a universal attack for a set of models is one
-- variant that every model of the set answers wrongly (whether the originals are solved does not
-- matter), and a problem counts when it has at least one. The denominator is the problems of the
-- attack, as the authors divide by every problem of the adversarial set: here the problems with at
-- least one graded variant of the attack by any model of the group (`problems`).
--
-- One row per template x dataset x attack x k, k = 1 .. `models` (the models with a graded variant
-- of the attack). Two figures, because the paper grows the set in one hand-picked model order:
--
-- * `prefix_share`: the set is the first k models of an order: the one given to `advmath metrics
--   --model-order a,b,c` (the `model_order` table: listed models first, in that order), then the
--   remaining models by name; with no order given, every model by name. `added_model` is the k-th
--   model of that order, `prefix_universal` the problems counted.
-- * `subset_mean_share`: the mean over all C(models, k) sets of k models (`subsets`) of the share
--   for that set, which depends on no order; `subset_min_share` / `subset_max_share` the extremes.
--   The sets are enumerated (every mask of the models' bits), so these are computed only for
--   groups of at most 12 models (4095 sets) and are NULL beyond.
--
-- A model fools a variant when one of its graded answers to it is wrong; ungraded answers
-- (`correct` NULL) fool nothing, and a model that never answered a variant is not fooled by it, so
-- run every model on the same variants. A group's models are the bits of one BIGINT mask, so the
-- prefix figure is computed for groups of at most 62 models and is NULL beyond.
-- Portable SQL (DataFusion and DuckDB): BIGINT bit masks with <<, & and BIT_OR, explicit DOUBLE casts for
-- division, NULLIF for 0 / 0.
WITH ordered AS (
    -- The models with a graded variant of the attack, bit b for the (b + 1)-th of the order.
    SELECT template, dataset, attack, model, order_rank AS bit, models
    FROM attack_models
),
variant_masks AS (
    -- A model fools a variant when one of its graded answers to it is wrong: OR its bit in.
    SELECT
        g.template,
        g.dataset,
        g.attack,
        g.problem_id,
        g.variant_id,
        BIT_OR(CAST(1 AS BIGINT) << o.bit) AS mask
    FROM ordered o
    JOIN graded g
      ON o.template = g.template
     AND o.dataset = g.dataset
     AND o.attack = g.attack
     AND o.model = g.model
    WHERE g.attack <> (SELECT attack FROM attacks WHERE is_original) AND g.ok = 0
    GROUP BY g.template, g.dataset, g.attack, g.problem_id, g.variant_id
),
problem_masks AS (
    SELECT DISTINCT template, dataset, attack, problem_id, mask
    FROM variant_masks
),
attacked_problems AS (
    SELECT template, dataset, attack, COUNT(DISTINCT problem_id) AS problems
    FROM attack_outcomes
    GROUP BY template, dataset, attack
),
-- Prefix sets: the first k models are the bits 0 .. k-1, so a problem counts for every k up to the
-- longest run of set bits from bit 0 in one of its variants' masks. That run ends at the mask's
-- lowest clear bit, isolated as a power of two by (mask + 1) & ~mask (~mask written -mask - 1):
-- `reach_bit` is the largest such power over the problem's masks, and the first k models all fall
-- for one of its variants exactly when reach_bit > 2^(k-1).
prefix_reach AS (
    SELECT
        template,
        dataset,
        attack,
        problem_id,
        MAX((mask + 1) & (-mask - 1)) AS reach_bit
    FROM problem_masks
    GROUP BY template, dataset, attack, problem_id
),
prefix AS (
    SELECT
        o.template,
        o.dataset,
        o.attack,
        o.bit + 1 AS k,
        o.models,
        o.model AS added_model,
        COUNT(r.problem_id) AS prefix_universal
    FROM ordered o
    LEFT JOIN prefix_reach r
      ON r.template = o.template
     AND r.dataset = o.dataset
     AND r.attack = o.attack
     AND r.reach_bit > (CAST(1 AS BIGINT) << o.bit)
    GROUP BY o.template, o.dataset, o.attack, o.bit, o.models, o.model
),
-- Every non-empty set of models of a group with at most 12 models: the masks 1 .. 2^models - 1,
-- with their sizes counted from their bits (set-based, so that a cluster can run it: no recursion).
subset_masks AS (
    SELECT
        template,
        dataset,
        attack,
        models,
        UNNEST(GENERATE_SERIES(CAST(1 AS BIGINT), (CAST(1 AS BIGINT) << models) - 1)) AS mask
    FROM (SELECT DISTINCT template, dataset, attack, models FROM ordered) g
    WHERE models <= 12
),
subset_bits AS (
    SELECT
        template,
        dataset,
        attack,
        mask,
        UNNEST(GENERATE_SERIES(CAST(0 AS BIGINT), CAST(models - 1 AS BIGINT))) AS b
    FROM subset_masks
),
full_subsets AS (
    SELECT template, dataset, attack, mask, SUM((mask >> b) & 1) AS set_size
    FROM subset_bits
    GROUP BY template, dataset, attack, mask
),
covered AS (
    SELECT
        s.template,
        s.dataset,
        s.attack,
        s.mask,
        COUNT(DISTINCT p.problem_id) AS n
    FROM full_subsets s
    JOIN problem_masks p
      ON p.template = s.template
     AND p.dataset = s.dataset
     AND p.attack = s.attack
     AND (p.mask & s.mask) = s.mask
    GROUP BY s.template, s.dataset, s.attack, s.mask
),
by_size AS (
    SELECT
        s.template,
        s.dataset,
        s.attack,
        s.set_size AS k,
        COUNT(*) AS subsets,
        SUM(COALESCE(c.n, 0)) AS covered_total,
        MIN(COALESCE(c.n, 0)) AS covered_min,
        MAX(COALESCE(c.n, 0)) AS covered_max
    FROM full_subsets s
    LEFT JOIN covered c
      ON c.template = s.template
     AND c.dataset = s.dataset
     AND c.attack = s.attack
     AND c.mask = s.mask
    GROUP BY s.template, s.dataset, s.attack, s.set_size
)
SELECT
    x.template,
    x.dataset,
    x.attack,
    x.k,
    x.models,
    n.problems,
    x.added_model,
    CASE WHEN x.models <= 62 THEN x.prefix_universal END AS prefix_universal,
    CASE
        WHEN x.models <= 62 THEN CAST(x.prefix_universal AS DOUBLE) / NULLIF(n.problems, 0)
    END AS prefix_share,
    z.subsets,
    CAST(z.covered_total AS DOUBLE) / NULLIF(z.subsets * n.problems, 0) AS subset_mean_share,
    CAST(z.covered_min AS DOUBLE) / NULLIF(n.problems, 0) AS subset_min_share,
    CAST(z.covered_max AS DOUBLE) / NULLIF(n.problems, 0) AS subset_max_share
FROM prefix x
JOIN attacked_problems n
  ON n.template = x.template
 AND n.dataset = x.dataset
 AND n.attack = x.attack
LEFT JOIN by_size z
  ON z.template = x.template
 AND z.dataset = x.dataset
 AND z.attack = x.attack
 AND z.k = x.k
ORDER BY x.template, x.dataset, x.attack, x.k
