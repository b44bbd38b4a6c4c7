-- View `adversarial_examples`: the paper's adversarial examples, one row per model and variant
-- that the model answers wrongly although it solves the variant's original.
CREATE VIEW adversarial_examples AS
SELECT
    v.model,
    v.template,
    v.dataset,
    v.attack,
    v.problem_id,
    v.variant_id
FROM graded v
JOIN original_outcomes o
  ON o.model = v.model
 AND o.template = v.template
 AND o.dataset = v.dataset
 AND o.problem_id = v.problem_id
WHERE v.attack <> (SELECT attack FROM attacks WHERE is_original)
  AND o.orig_ok = 1
  AND v.ok = 0;
