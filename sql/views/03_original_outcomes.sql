-- View `original_outcomes`: one row per model x template x dataset x problem whose original has a
-- graded response; `orig_ok` = 1 when it is answered correctly (several graded answers to the same
-- original count as correct only if all are).
CREATE VIEW original_outcomes AS
SELECT
    model,
    template,
    dataset,
    problem_id,
    all_ok AS orig_ok
FROM problem_outcomes
WHERE attack = (SELECT attack FROM attacks WHERE is_original);
