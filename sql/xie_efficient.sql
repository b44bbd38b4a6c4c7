-- Xie et al. 2024, Table 5 (efficient attack): attacking a target model with only the adversarial examples of a cheaper model.
--
-- One row per template x dataset x attack x ordered pair (target, cheap) of different models: the
-- target has problems of Table 1 for the attack, the cheap model answered variants of it. An
-- adversarial example for a model is a variant it answers
-- wrongly whose original it answers correctly. Over the target's problems of Table 1:
-- full attack: every variant is sent to the target, `full_requests` = the target's graded
-- variants, `full_broken` = problems it solves that some variant breaks, `full_asr` =
-- full_broken / solved (Table 1's ASR). Efficient attack: only the cheap model's adversarial
-- examples are sent, `efficient_requests` = their number (all problems), `efficient_broken` = problems the
-- target solves that one of them breaks (a variant adversarial for both models), `efficient_asr`
-- = efficient_broken / solved. `requests_saved` = 1 - efficient_requests / full_requests;
-- `asr_retained` = efficient_broken / full_broken. ASRs are NULL (empty) when solved = 0.
-- Assumes one graded response per model, template and variant.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0;
-- ARRAY_AGG and UNNEST (the models each variant fools, expanded into pairs) behave alike in both.
WITH model_stats AS (
    SELECT
        p.model,
        p.template,
        p.dataset,
        p.attack,
        COUNT(*) AS problems,
        SUM(o.orig_ok) AS solved,
        SUM(p.n_var) AS full_requests,
        SUM(o.orig_ok * (1 - p.all_ok)) AS full_broken
    FROM attack_outcomes p
    JOIN original_outcomes o
      ON o.model = p.model
     AND o.template = p.template
     AND o.dataset = p.dataset
     AND o.problem_id = p.problem_id
    GROUP BY p.model, p.template, p.dataset, p.attack
),
cheap_models AS (
    SELECT DISTINCT template, dataset, attack, model
    FROM graded
    WHERE attack <> 'original'
),
grid AS (
    SELECT
        m.model AS target,
        m.template,
        m.dataset,
        m.attack,
        m.problems,
        m.solved,
        m.full_requests,
        m.full_broken,
        c.model AS cheap
    FROM model_stats m
    JOIN cheap_models c
      ON c.template = m.template
     AND c.dataset = m.dataset
     AND c.attack = m.attack
),
fooled AS (
    SELECT v.template, v.dataset, v.attack, v.problem_id, v.variant_id, ARRAY_AGG(v.model) AS models
    FROM adversarial_examples v
    GROUP BY v.template, v.dataset, v.attack, v.problem_id, v.variant_id
),
fooled_targets AS (
    SELECT template, dataset, attack, problem_id, models, UNNEST(models) AS target
    FROM fooled
),
fooled_pairs AS (
    SELECT template, dataset, attack, problem_id, target, UNNEST(models) AS cheap
    FROM fooled_targets
),
pair_stats AS (
    SELECT
        template,
        dataset,
        attack,
        target,
        cheap,
        COUNT(*) AS shared_variants,
        COUNT(DISTINCT problem_id) AS broken
    FROM fooled_pairs
    GROUP BY template, dataset, attack, target, cheap
),
cells AS (
    SELECT
        g.template,
        g.dataset,
        g.attack,
        g.target,
        g.cheap,
        g.problems,
        g.solved,
        g.full_requests,
        g.full_broken,
        COALESCE(s.broken, 0) AS efficient_broken,
        COALESCE(
            MAX(CASE WHEN g.target = g.cheap THEN s.shared_variants END)
                OVER (PARTITION BY g.template, g.dataset, g.attack, g.cheap),
            0
        ) AS efficient_requests
    FROM grid g
    LEFT JOIN pair_stats s
      ON s.template = g.template
     AND s.dataset = g.dataset
     AND s.attack = g.attack
     AND s.target = g.target
     AND s.cheap = g.cheap
)
SELECT
    template,
    dataset,
    attack,
    target,
    cheap,
    problems,
    solved,
    full_requests,
    full_broken,
    CAST(full_broken AS DOUBLE) / NULLIF(solved, 0) AS full_asr,
    efficient_requests,
    efficient_broken,
    CAST(efficient_broken AS DOUBLE) / NULLIF(solved, 0) AS efficient_asr,
    1 - CAST(efficient_requests AS DOUBLE) / full_requests AS requests_saved,
    CAST(efficient_broken AS DOUBLE) / NULLIF(full_broken, 0) AS asr_retained
FROM cells
WHERE target <> cheap
ORDER BY template, dataset, attack, target, cheap
