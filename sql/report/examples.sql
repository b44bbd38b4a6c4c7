-- The sample the adversarial-example browser of report.html shows; not a metric. Per dataset and
-- attack, the 40 problems with the most adversarial examples (a variant a model answers wrongly
-- although it solves the original, the view `adversarial_examples`; summed over models and
-- templates; ties by problem id), and per problem its 3 variants that fool the most models (ties
-- by variant index); then one row per stored reply to those variants and to their originals,
-- graded or not, with `adversarial` true where that reply makes the variant an adversarial
-- example. A study of any size gives at most 40 x 3 variants per dataset and attack, so the page
-- stays small.
WITH fooled AS (
    SELECT dataset, attack, problem_id, variant_id, COUNT(*) AS models_fooled
    FROM adversarial_examples
    GROUP BY dataset, attack, problem_id, variant_id
),
asked AS (
    SELECT DISTINCT dataset, attack, problem_id, variant_id
    FROM graded
    WHERE attack <> 'original'
),
scored AS (
    SELECT a.dataset, a.attack, a.problem_id, a.variant_id, COALESCE(f.models_fooled, 0) AS models_fooled
    FROM asked a
    LEFT JOIN fooled f ON f.variant_id = a.variant_id AND f.attack = a.attack AND f.dataset = a.dataset
),
problem_orders AS (
    SELECT
        dataset,
        attack,
        problem_id,
        ROW_NUMBER() OVER (PARTITION BY dataset, attack ORDER BY SUM(models_fooled) DESC, problem_id) AS problem_order
    FROM scored
    GROUP BY dataset, attack, problem_id
),
variant_ranks AS (
    SELECT
        s.dataset,
        s.attack,
        s.problem_id,
        s.variant_id,
        s.models_fooled,
        p.problem_order,
        ROW_NUMBER() OVER (
            PARTITION BY s.dataset, s.attack, s.problem_id
            ORDER BY s.models_fooled DESC, v.variant_index
        ) AS variant_rank
    FROM scored s
    JOIN problem_orders p ON p.dataset = s.dataset AND p.attack = s.attack AND p.problem_id = s.problem_id
    JOIN variants v ON v.variant_id = s.variant_id AND v.attack = s.attack AND v.dataset = s.dataset
    WHERE p.problem_order <= 40
),
shown AS (
    SELECT dataset, attack, problem_id, variant_id, problem_order, variant_rank, models_fooled
    FROM variant_ranks
    WHERE variant_rank <= 3
),
adversarial_replies AS (
    SELECT DISTINCT g.base_model, g.run, g.template, g.variant_id
    FROM adversarial_examples a
    JOIN graded g ON g.model = a.model AND g.template = a.template AND g.variant_id = a.variant_id
),
questions AS (
    SELECT s.dataset, s.attack, s.problem_id, s.problem_order, s.variant_rank, s.models_fooled,
           'variant' AS role, s.variant_id
    FROM shown s
    UNION ALL
    SELECT DISTINCT s.dataset, s.attack, s.problem_id, s.problem_order, 0 AS variant_rank, 0 AS models_fooled,
           'original' AS role, o.variant_id
    FROM shown s
    JOIN variants o ON o.problem_id = s.problem_id AND o.dataset = s.dataset AND o.attack = 'original'
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
