-- The headline's account, an advmath extension, not a paper's table: what each row stands on (the problems and questions asked per model x dataset x attack, and the problem set the rows share).
--
-- One row per model x template x dataset x attack (`original` too) with a graded answer.
-- `problems` = problems with a graded question of the attack; `questions` = its distinct graded
-- questions (variants); `questions_per_problem` = questions / problems (how many variants of
-- each problem were asked: AA and ASR fall as it grows, since one wrong variant fails the
-- problem); `shared_problems` = those problems that have a graded question of every attack the
-- model was asked on the dataset (the problem set every row of the model and dataset shares;
-- equal to `problems` on every row when the rows stand on one set). Ungraded rows are left out.
-- Portable SQL (DataFusion and DuckDB).
WITH per_attack AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        problem_id,
        COUNT(DISTINCT variant_id) AS questions
    FROM graded
    GROUP BY model, template, dataset, attack, problem_id
),
attacks AS (
    SELECT
        model,
        template,
        dataset,
        COUNT(DISTINCT attack) AS attacks
    FROM per_attack
    GROUP BY model, template, dataset
),
everywhere AS (
    SELECT
        p.model,
        p.template,
        p.dataset,
        p.problem_id
    FROM per_attack p
    JOIN attacks a
      ON a.model = p.model
     AND a.template = p.template
     AND a.dataset = p.dataset
    GROUP BY p.model, p.template, p.dataset, p.problem_id, a.attacks
    HAVING COUNT(*) = a.attacks
)
SELECT
    p.model,
    p.template,
    p.dataset,
    p.attack,
    COUNT(*) AS problems,
    SUM(p.questions) AS questions,
    CAST(SUM(p.questions) AS DOUBLE) / COUNT(*) AS questions_per_problem,
    COUNT(e.problem_id) AS shared_problems
FROM per_attack p
LEFT JOIN everywhere e
  ON e.model = p.model
 AND e.template = p.template
 AND e.dataset = p.dataset
 AND e.problem_id = p.problem_id
GROUP BY p.model, p.template, p.dataset, p.attack
ORDER BY p.model, p.template, p.dataset, p.attack
