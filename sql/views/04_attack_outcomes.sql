-- View `attack_outcomes`: one row per model x template x dataset x attack x problem with at least
-- one graded variant of the attack (every attack but `original`): `n_var` graded variants,
-- `n_wrong` of them answered wrongly, `all_ok` = 1 when none is.
CREATE VIEW attack_outcomes AS
SELECT
    model,
    template,
    dataset,
    attack,
    problem_id,
    n_var,
    n_wrong,
    all_ok
FROM problem_outcomes
WHERE attack <> (SELECT attack FROM attacks WHERE is_original);
