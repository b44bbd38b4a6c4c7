-- The pool `advmath annotate sample human-eval` draws from: every adversarial example (a variant
-- the model answers wrongly although it solves the original) with its text, its answer and its
-- original's. Not a metric.
SELECT
    a.model,
    a.template,
    a.dataset,
    a.attack,
    a.problem_id,
    a.variant_id,
    v.variant_index,
    v.question,
    v.answer,
    o.question AS original_question,
    o.answer AS original_answer
FROM adversarial_examples a
JOIN variants v ON v.variant_id = a.variant_id
JOIN variants o ON o.problem_id = a.problem_id
WHERE o.attack = (SELECT attack FROM attacks WHERE is_original)
