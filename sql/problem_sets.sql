-- The headline's account, an advmath extension, not a paper's table: what each row stands on (the problems and questions asked per model x dataset x attack, and the problem set the rows share).
--
-- One row per model x template x dataset x attack (`original` too) with a graded answer.
-- `problems` = problems with a graded question of the attack; `questions` = its graded
-- questions (variants; `problem_outcomes.n_var`, so an answer a table holds twice counts twice,
-- as in every metric that reads it); `questions_per_problem` = questions / problems (how many
-- variants of each problem were asked: AA and ASR fall as it grows, since one wrong variant fails the
-- problem); `shared_problems` = those problems that have a graded question of every attack the
-- model was asked on the dataset (the problem set every row of the model and dataset shares;
-- equal to `problems` on every row when the rows stand on one set). Ungraded rows are left out.
-- A problem shared by every row has a question of every attack, so the shared set is one count
-- per model x dataset; computing it apart keeps every join's build side a few rows long (joining
-- per-problem rows back to them held millions of rows in memory at the benchmark's scale).
-- Portable SQL (DataFusion and DuckDB).
WITH by_attack AS (
    SELECT
        model,
        template,
        dataset,
        attack,
        COUNT(*) AS problems,
        SUM(n_var) AS questions
    FROM problem_outcomes
    GROUP BY model, template, dataset, attack
),
attack_count AS (
    SELECT
        model,
        template,
        dataset,
        COUNT(*) AS attacks
    FROM by_attack
    GROUP BY model, template, dataset
),
per_problem AS (
    SELECT
        model,
        template,
        dataset,
        problem_id,
        COUNT(*) AS attacks
    FROM problem_outcomes
    GROUP BY model, template, dataset, problem_id
),
shared AS (
    SELECT
        a.model,
        a.template,
        a.dataset,
        COUNT(*) AS problems
    FROM attack_count a
    JOIN per_problem p
      ON p.model = a.model
     AND p.template = a.template
     AND p.dataset = a.dataset
     AND p.attacks = a.attacks
    GROUP BY a.model, a.template, a.dataset
)
SELECT
    b.model,
    b.template,
    b.dataset,
    b.attack,
    b.problems,
    b.questions,
    CAST(b.questions AS DOUBLE) / b.problems AS questions_per_problem,
    COALESCE(s.problems, 0) AS shared_problems
FROM by_attack b
LEFT JOIN shared s
  ON s.model = b.model
 AND s.template = b.template
 AND s.dataset = b.dataset
ORDER BY b.model, b.template, b.dataset, b.attack
