-- The pool `advmath annotate sample miss-rate` draws from: every reply a model gave about a
-- variant, with what the extraction read from it. Not a metric.
SELECT
    model,
    template,
    dataset,
    attack,
    problem_id,
    variant_id,
    question,
    gold,
    response,
    extracted
FROM responses
WHERE response IS NOT NULL
  AND variant_id IS NOT NULL
  AND problem_id IS NOT NULL
  AND dataset IS NOT NULL
  AND attack IS NOT NULL
