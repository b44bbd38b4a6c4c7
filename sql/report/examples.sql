-- The sample the adversarial-example browser of report.html shows; not a metric. Per dataset and
-- attack, the 40 problems with the most adversarial examples (a variant a model answers wrongly
-- although it solves the original, as the view `adversarial_examples` counts them; summed over
-- models and templates; ties in the source's order: by the id's length, then the id, so that
-- `gsm8k/test/11` comes before `gsm8k/test/101`), and per problem its 3 variants that fool the most
-- models (ties by variant index); then one row per stored reply to those variants and to their
-- originals, graded or not, with `adversarial` true where that reply makes the variant an
-- adversarial example. A study of any size gives at most 40 x 3 variants per dataset and attack,
-- so the page stays small; the problems are ranked from the per-problem outcomes, and only the
-- chosen problems' replies are read again, so the query stays small too.
WITH problem_scores AS (
    SELECT
        a.dataset,
        a.attack,
        a.problem_id,
        SUM(CASE WHEN o.orig_ok = 1 THEN a.n_wrong ELSE 0 END) AS fooled
    FROM attack_outcomes a
    LEFT JOIN original_outcomes o
      ON o.model = a.model
     AND o.template = a.template
     AND o.dataset = a.dataset
     AND o.problem_id = a.problem_id
    GROUP BY a.dataset, a.attack, a.problem_id
),
chosen_problems AS (
    SELECT dataset, attack, problem_id, problem_order
    FROM (
        SELECT
            dataset,
            attack,
            problem_id,
            ROW_NUMBER() OVER (PARTITION BY dataset, attack ORDER BY fooled DESC, LENGTH(problem_id), problem_id) AS problem_order
        FROM problem_scores
    ) ranked
    WHERE problem_order <= 40
),
-- How many runs each model has under a template: `graded` names a model with several
-- `model [run]`, and the outcomes of its originals go by that name.
runs_per_model AS (
    SELECT model, template, COUNT(DISTINCT COALESCE(run, 'default')) AS runs
    FROM responses
    WHERE correct IS NOT NULL AND variant_id IS NOT NULL
    GROUP BY model, template
),
-- The graded replies to the chosen problems' variants (read from `responses` for these problems
-- only); `fools` = 1 when the reply is wrong and its model solves the original.
chosen_replies AS (
    SELECT
        r.model AS base_model,
        COALESCE(r.run, 'default') AS run,
        r.template,
        r.dataset,
        r.attack,
        r.problem_id,
        r.variant_id,
        c.problem_order,
        CASE WHEN NOT r.correct AND o.orig_ok = 1 THEN 1 ELSE 0 END AS fools
    FROM chosen_problems c
    JOIN responses r
      ON r.dataset = c.dataset
     AND r.attack = c.attack
     AND r.problem_id = c.problem_id
    JOIN runs_per_model n ON n.model = r.model AND n.template = r.template
    LEFT JOIN original_outcomes o
      ON o.model = CASE WHEN n.runs > 1 THEN r.model || ' [' || COALESCE(r.run, 'default') || ']' ELSE r.model END
     AND o.template = r.template
     AND o.dataset = r.dataset
     AND o.problem_id = r.problem_id
    WHERE r.correct IS NOT NULL
      AND r.variant_id IS NOT NULL
),
variant_ranks AS (
    SELECT
        dataset,
        attack,
        problem_id,
        variant_id,
        problem_order,
        models_fooled,
        ROW_NUMBER() OVER (
            PARTITION BY dataset, attack, problem_id
            ORDER BY models_fooled DESC, variant_index
        ) AS variant_rank
    FROM (
        SELECT
            dataset,
            attack,
            problem_id,
            variant_id,
            MIN(problem_order) AS problem_order,
            SUM(fools) AS models_fooled,
            CAST(SPLIT_PART(variant_id, '/', -1) AS INTEGER) AS variant_index
        FROM chosen_replies
        GROUP BY dataset, attack, problem_id, variant_id
    ) per_variant
),
shown AS (
    SELECT dataset, attack, problem_id, variant_id, problem_order, variant_rank, models_fooled
    FROM variant_ranks
    WHERE variant_rank <= 3
),
adversarial_replies AS (
    SELECT DISTINCT base_model, run, template, variant_id
    FROM chosen_replies
    WHERE fools = 1
),
questions AS (
    SELECT s.dataset, s.attack, s.problem_id, s.problem_order, s.variant_rank, s.models_fooled,
           'variant' AS role, s.variant_id
    FROM shown s
    UNION ALL
    SELECT DISTINCT s.dataset, s.attack, s.problem_id, s.problem_order, 0 AS variant_rank, 0 AS models_fooled,
           'original' AS role, s.problem_id || '/original/0' AS variant_id
    FROM shown s
)
SELECT
    q.dataset,
    q.attack,
    q.problem_id,
    q.problem_order,
    q.variant_rank,
    q.role,
    q.variant_id,
    q.models_fooled,
    v.question,
    v.answer,
    r.model,
    r.template,
    COALESCE(r.run, 'default') AS run,
    r.response,
    r.extracted,
    r.extraction_rule,
    r.correct,
    r.simulated,
    k.variant_id IS NOT NULL AS adversarial
FROM questions q
JOIN variants v ON v.variant_id = q.variant_id AND v.dataset = q.dataset
LEFT JOIN responses r ON r.variant_id = q.variant_id
LEFT JOIN adversarial_replies k
  ON k.variant_id = r.variant_id
 AND k.base_model = r.model
 AND k.run = COALESCE(r.run, 'default')
 AND k.template = r.template
ORDER BY q.dataset, q.attack, q.problem_order, q.variant_rank, r.model, r.template, run;
