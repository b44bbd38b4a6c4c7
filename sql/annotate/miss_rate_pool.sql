-- The pool `advmath annotate sample miss-rate` draws from: every reply a model gave about a
-- variant, with what the extraction read from it. Not a metric. A model with several runs
-- (settings beyond model and template) is named `model [run]`, as in `graded`, so that a sheet
-- and the miss rates it gives never pool replies of different settings; `base_model` is the
-- model as asked.
SELECT
    CASE WHEN n.runs > 1 THEN r.model || ' [' || COALESCE(r.run, 'default') || ']' ELSE r.model END
        AS model,
    r.model AS base_model,
    r.template,
    r.dataset,
    r.attack,
    r.problem_id,
    r.variant_id,
    r.question,
    r.gold,
    r.response,
    r.extracted
FROM responses r
LEFT JOIN model_runs n ON n.model = r.model AND n.template = r.template
WHERE r.response IS NOT NULL
  AND r.variant_id IS NOT NULL
  AND r.problem_id IS NOT NULL
  AND r.dataset IS NOT NULL
  AND r.attack IS NOT NULL
