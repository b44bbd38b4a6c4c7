-- View `model_runs`: one row per model x template with a graded response about a variant, and
-- `runs`, how many runs its rows come from (`run`: the settings beyond model and template, e.g.
-- decoding, extraction, `imported`; parts written before `run` existed read as the default run).
-- `graded` names a model with several runs `model [run]`. A metrics run computes this view
-- once: it has a handful of rows, and an engine that knows so joins it whole to every share of
-- the responses instead of redistributing hundreds of millions of responses by model.
CREATE VIEW model_runs AS
SELECT
    model,
    template,
    COUNT(DISTINCT COALESCE(run, 'default')) AS runs
FROM responses
WHERE correct IS NOT NULL
  AND variant_id IS NOT NULL
  AND problem_id IS NOT NULL
  AND dataset IS NOT NULL
  AND attack IS NOT NULL
GROUP BY model, template;
