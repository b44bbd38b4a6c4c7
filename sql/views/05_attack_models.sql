-- View `attack_models`: one row per template x dataset x attack x model with a graded variant of
-- the attack, numbered within its group: `name_rank` 0, 1, ... by model name; `order_rank` 0, 1,
-- ... in the order of `model_order` (the models it lists first, in its order, then the rest by
-- name), the order in which Table 4's prefix figure adds models; `models` the group's size.
-- The cross-model metrics (transfer, universal attacks) use the ranks as bit positions. A metrics
-- run computes the view once, so the engine also knows how small it is when it plans their joins.
CREATE VIEW attack_models AS
SELECT
    a.template,
    a.dataset,
    a.attack,
    a.model,
    CAST(ROW_NUMBER() OVER (
        PARTITION BY a.template, a.dataset, a.attack ORDER BY a.model
    ) AS BIGINT) - 1 AS name_rank,
    CAST(ROW_NUMBER() OVER (
        PARTITION BY a.template, a.dataset, a.attack
        ORDER BY CASE WHEN o.position IS NULL THEN 1 ELSE 0 END, o.position, a.model
    ) AS BIGINT) - 1 AS order_rank,
    CAST(COUNT(*) OVER (PARTITION BY a.template, a.dataset, a.attack) AS BIGINT) AS models
FROM (SELECT DISTINCT template, dataset, attack, model FROM attack_outcomes) a
LEFT JOIN model_order o ON o.model = a.model;
