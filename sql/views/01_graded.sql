-- View `graded`: every graded response about a variant, one row per response, `ok` = 1 when
-- correct and 0 when not. Ungraded rows (`correct` NULL: a failed request or no gold answer) and
-- outside rows that match no variant are left out. The metric files read responses through it.
--
-- A run is a unit: rows of one model and template written under other settings (`run`: decoding,
-- extraction, `imported`) are another run, never pooled. A model with one run under a template
-- keeps its name; a model with several shows as `model [run]` in `model`, so every metric has one
-- row per run. `base_model` and `run` keep the parts. The runs per model and template come from
-- the view `model_runs`, which has a row for every (model, template) of these rows: the left join
-- keeps every row, as an inner join would, and tells the engine that the result is as large as
-- the responses (so that it holds the small side of every later join in memory, and on a cluster
-- joins `model_runs` whole to every share of the responses). Parts written before `run` existed
-- read as NULL, the default run. `extracted` and `gold` are the reply's answer and the exact gold,
-- as text. `answerable` is 0 for a question with no answer (`missing`: its gold is NULL, and `ok`
-- says whether the reply said it cannot be answered), else 1; `abstained` is 1 when the reply's
-- last word is that the question cannot be answered (NULL for rows graded before replies were
-- read so).
CREATE VIEW graded AS
WITH rows_in_runs AS (
    SELECT
        model,
        template,
        COALESCE(run, 'default') AS run,
        dataset,
        attack,
        problem_id,
        variant_id,
        noise_level,
        correct,
        extracted,
        gold,
        abstained
    FROM responses
    WHERE correct IS NOT NULL
      AND variant_id IS NOT NULL
      AND problem_id IS NOT NULL
      AND dataset IS NOT NULL
      AND attack IS NOT NULL
)
SELECT
    CASE WHEN n.runs > 1 THEN r.model || ' [' || r.run || ']' ELSE r.model END AS model,
    r.model AS base_model,
    r.run,
    r.template,
    r.dataset,
    r.attack,
    r.problem_id,
    r.variant_id,
    r.noise_level,
    CASE WHEN r.correct THEN 1 ELSE 0 END AS ok,
    r.extracted,
    r.gold,
    CASE WHEN r.gold IS NULL THEN 0 ELSE 1 END AS answerable,
    CASE WHEN r.abstained THEN 1 WHEN NOT r.abstained THEN 0 END AS abstained
FROM rows_in_runs r
LEFT JOIN model_runs n ON n.model = r.model AND n.template = r.template;
