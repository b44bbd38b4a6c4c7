-- Xie et al. 2024, Table 5 (efficient attack): a target attacked with only a cheaper model's adversarial examples, one problem at a time until the first success: ASR and the requests it took.
--
-- Reads the efficient runs themselves (`efficient_responses`, written by `advmath respond --model
-- TARGET --efficient-from CHEAP`). One row per run: target x cheap model x template x dataset x
-- attack x protocol x top N x per-problem cap. A run ranked the problems by the cheap model's
-- candidates, took the top N, and sent the target each problem's candidates in variant order,
-- stopping the problem at its first wrong answer. Protocol `wrong-variants` (the default: the
-- paper's text and the authors' script): candidates are every variant the cheap model gets wrong,
-- no original is asked, every problem is attacked. Protocol `solved-originals`: only problems whose
-- original the cheap model solves, and the target is asked the original first; a problem whose
-- original it gets wrong is not attacked.
--
-- Every row is one request (an original row is written, and counted, in each attack that
-- selected its problem, as if each attack ran alone). `problems` = problems selected; `solved` =
-- problems attacked (original answered correctly; all of them under `wrong-variants`); `broken` =
-- attacked problems with a wrong answer on a candidate; `asr` = broken / solved (NULL when 0).
-- `requests` = rows of the run, originals included; `requests_per_broken` = requests / broken.
-- `full_requests_selected` = what a full attack on the same problems would send: the original
-- when the protocol asks it, plus every variant of the attack; `full_requests_all` = the same
-- over every problem of the dataset with variants of the attack. `saving_selected` = 1 -
-- requests / full_requests_selected, `saving_all` = 1 - requests / full_requests_all.
-- `run` is the efficient run's settings (decoding, extraction; `default` for the defaults): two
-- settings of a target are two rows, never pooled. The full attack on the same selected
-- problems, from the target's own full run with the same settings (`responses`, same template
-- and run), when it has one: `full_problems` = selected problems with a graded original and at
-- least one graded variant of the attack (Table 1's P on them), `full_solved` = those whose
-- original it answers correctly, `full_all_correct` = those whose every variant it answers
-- correctly, `full_asr` = (full_solved - full_all_correct) / full_solved: Eq. 6, (OA - AA) / OA,
-- as Table 1 computes it (AA does not require the original). `full_broken` = solved ones with a
-- wrong variant and `full_broken_share` = full_broken / full_solved, the share of solved problems
-- broken, which differs from Eq. 6 when the target misses an original but answers every variant.
-- NULL without a full run.
-- Portable SQL (DataFusion and DuckDB): explicit DOUBLE casts for division, NULLIF for 0 / 0.
WITH problem_runs AS (
    SELECT
        model AS target,
        cheap_model AS cheap,
        efficient_protocol AS protocol,
        top_problems,
        per_problem,
        template,
        COALESCE(run, 'default') AS run,
        dataset,
        plan_attack AS attack,
        problem_id,
        COUNT(*) AS requests,
        MAX(CASE WHEN step = 0 THEN 1 ELSE 0 END) AS original_asked,
        MIN(CASE WHEN step = 0 THEN (CASE WHEN correct THEN 1 ELSE 0 END) END) AS original_ok,
        MAX(CASE WHEN step > 0 AND correct = FALSE THEN 1 ELSE 0 END) AS broken,
        MAX(problem_variants) AS problem_variants,
        MAX(attack_problems) AS attack_problems,
        MAX(attack_variants) AS attack_variants
    FROM efficient_responses
    GROUP BY model, cheap_model, efficient_protocol, top_problems, per_problem, template,
        COALESCE(run, 'default'), dataset, plan_attack, problem_id
),
-- Per run, not per displayed model: `graded` keeps the base model and its run apart.
full_outcomes AS (
    SELECT
        base_model,
        run,
        template,
        dataset,
        attack,
        problem_id,
        MIN(ok) AS all_ok
    FROM graded
    WHERE base_model IN (SELECT DISTINCT model FROM efficient_responses)
    GROUP BY base_model, run, template, dataset, attack, problem_id
),
full_attack AS (
    SELECT
        a.base_model,
        a.run,
        a.template,
        a.dataset,
        a.attack,
        a.problem_id,
        o.all_ok AS orig_ok,
        a.all_ok
    FROM full_outcomes o
    JOIN full_outcomes a
      ON a.base_model = o.base_model AND a.run = o.run AND a.template = o.template
     AND a.dataset = o.dataset AND a.problem_id = o.problem_id
    WHERE o.attack = (SELECT attack FROM attacks WHERE is_original)
      AND a.attack <> (SELECT attack FROM attacks WHERE is_original)
),
runs AS (
    SELECT
        target,
        cheap,
        protocol,
        top_problems,
        per_problem,
        p.template,
        p.run,
        p.dataset,
        p.attack,
        COUNT(*) AS problems,
        SUM(COALESCE(original_ok, 1)) AS solved,
        SUM(broken) AS broken,
        SUM(requests) AS requests,
        SUM(original_asked + problem_variants) AS full_requests_selected,
        MAX(original_asked) * MAX(attack_problems) + MAX(attack_variants) AS full_requests_all,
        COUNT(f.problem_id) AS full_problems,
        COALESCE(SUM(f.orig_ok), 0) AS full_solved,
        COALESCE(SUM(f.all_ok), 0) AS full_all_correct,
        SUM(CASE WHEN f.orig_ok = 1 AND f.all_ok = 0 THEN 1 ELSE 0 END) AS full_broken
    FROM problem_runs p
    LEFT JOIN full_attack f
      ON f.base_model = p.target AND f.run = p.run AND f.template = p.template
     AND f.dataset = p.dataset AND f.attack = p.attack AND f.problem_id = p.problem_id
    GROUP BY target, cheap, protocol, top_problems, per_problem, p.template, p.run, p.dataset,
        p.attack
)
SELECT
    target,
    cheap,
    template,
    run,
    dataset,
    attack,
    protocol,
    top_problems,
    per_problem,
    problems,
    solved,
    broken,
    CAST(broken AS DOUBLE) / NULLIF(solved, 0) AS asr,
    requests,
    CAST(requests AS DOUBLE) / NULLIF(broken, 0) AS requests_per_broken,
    full_requests_selected,
    1 - CAST(requests AS DOUBLE) / full_requests_selected AS saving_selected,
    full_requests_all,
    1 - CAST(requests AS DOUBLE) / full_requests_all AS saving_all,
    full_problems,
    full_solved,
    full_all_correct,
    CAST(full_solved - full_all_correct AS DOUBLE) / NULLIF(full_solved, 0) AS full_asr,
    full_broken,
    CAST(full_broken AS DOUBLE) / NULLIF(full_solved, 0) AS full_broken_share
FROM runs
ORDER BY target, cheap, template, run, dataset, attack, protocol, top_problems, per_problem
