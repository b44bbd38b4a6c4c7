-- How often each model says a question cannot be answered, rightly and wrongly (after GSM-Plus's critical thinking, Li et al. 2024), an advmath extension, not a paper's.
--
-- Rightly: on the questions a needed number was taken out of (`missing`); wrongly: on every
-- question that has an answer.
--
-- One row per model x template x dataset with at least one reply read for abstention (rows graded
-- before replies were read so have `abstained` NULL and are left out).
-- - `no_answer_replies`: replies to questions with no answer; `right_abstentions`: those that say
--   it cannot be answered; `abstention_rate`: their share (NULL when there are none). On these
--   questions a reply is right exactly when it abstains, so the rate is the accuracy on them.
-- - `answerable_replies`: replies to every other question (originals and every other attack);
--   `false_abstentions`: those that say it cannot be answered; `false_abstention_rate`: their
--   share (NULL when there are none).
-- Rates are rounded to 10 decimals, so that they do not depend on the order an engine adds in.
-- Portable SQL (DataFusion and DuckDB).
WITH read_replies AS (
    SELECT model, template, dataset, answerable, CAST(abstained AS DOUBLE) AS abstained
    FROM graded
    WHERE abstained IS NOT NULL
),
counts AS (
    SELECT
        model,
        template,
        dataset,
        SUM(1 - answerable) AS no_answer_replies,
        SUM((1 - answerable) * abstained) AS right_abstentions,
        SUM(answerable) AS answerable_replies,
        SUM(answerable * abstained) AS false_abstentions
    FROM read_replies
    GROUP BY model, template, dataset
)
SELECT
    model,
    template,
    dataset,
    CAST(no_answer_replies AS BIGINT) AS no_answer_replies,
    CAST(right_abstentions AS BIGINT) AS right_abstentions,
    CASE WHEN no_answer_replies > 0
        THEN ROUND(right_abstentions / no_answer_replies, 10) END AS abstention_rate,
    CAST(answerable_replies AS BIGINT) AS answerable_replies,
    CAST(false_abstentions AS BIGINT) AS false_abstentions,
    CASE WHEN answerable_replies > 0
        THEN ROUND(false_abstentions / answerable_replies, 10) END AS false_abstention_rate
FROM counts
ORDER BY model, template, dataset;
