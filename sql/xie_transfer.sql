-- Xie et al. 2024, Figure 3 (transferability heatmap): for every pair of models, the share of problems with a variant that both answer wrongly.
--
-- One row per template x dataset x attack x ordered pair (model_a, model_b) of the models that
-- answered variants of the attack, the diagonal included (a model with itself: the share of
-- problems with a variant it answers wrongly). The authors compute each cell as the universal
-- attacks of a pair (`universal_attack_pair_wise` -> `find_universal_attacks` in their
-- attack/experiment.py and attack/universal_attack.py): a problem counts when at least one of its
-- variants is answered wrongly by both models, whether or not either model solves the original,
-- and the denominator is the problems attacked (here: the problems of the attack with graded
-- variants from both models). The figure is therefore symmetric: cell (a, b) equals (b, a).
-- A variant is wrong for a model when any graded answer of that model to it is wrong (MIN(ok) = 0),
-- as in the view `attack_outcomes`; a variant a model never answered fools it not.
-- `shared_problems` = problems with a variant both get wrong, `problems` = problems both were
-- asked, `transfer_share` = shared_problems / problems (NULL, shown empty, when problems = 0).
--
-- How it is computed: pairing every model with every other per problem would make models^2 rows
-- per problem. Instead the models of each template x dataset x attack are numbered, and a
-- problem (or variant) carries the set of its models as bits of BIGINT words (63 models a word,
-- any number of words), so the pairs are counted from a few masks.
-- The small side of each join (the numbered models) is written first: DataFusion builds its hash
-- table from the first input when it cannot tell the sizes apart, and the masks of millions of
-- problems would not fit.
-- Portable SQL (DataFusion and DuckDB): BIGINT bit masks with <<, >> and &, BIT_OR, explicit
-- DOUBLE casts for division, NULLIF for 0 / 0.
WITH numbered AS (
    -- The models of each template x dataset x attack: word w, bit b for the (63w + b)-th by name.
    SELECT template, dataset, attack, model, name_rank / 63 AS word, name_rank % 63 AS bit
    FROM attack_models
),
asked_masks AS (
    -- Per problem and word: the models with a graded variant of it.
    SELECT
        o.template,
        o.dataset,
        o.attack,
        o.problem_id,
        n.word,
        BIT_OR(CAST(1 AS BIGINT) << n.bit) AS mask
    FROM numbered n
    JOIN attack_outcomes o
      ON n.template = o.template
     AND n.dataset = o.dataset
     AND n.attack = o.attack
     AND n.model = o.model
    GROUP BY o.template, o.dataset, o.attack, o.problem_id, n.word
),
asked_combos AS (
    -- How many problems share each combination of two words' masks (few distinct ones).
    SELECT
        a.template,
        a.dataset,
        a.attack,
        a.word AS word_a,
        a.mask AS mask_a,
        b.word AS word_b,
        b.mask AS mask_b,
        COUNT(*) AS problems
    FROM asked_masks a
    JOIN asked_masks b
      ON b.template = a.template
     AND b.dataset = a.dataset
     AND b.attack = a.attack
     AND b.problem_id = a.problem_id
    GROUP BY a.template, a.dataset, a.attack, a.word, a.mask, b.word, b.mask
),
asked AS (
    SELECT
        c.template,
        c.dataset,
        c.attack,
        x.model AS model_a,
        y.model AS model_b,
        SUM(c.problems) AS problems
    FROM asked_combos c
    JOIN numbered x
      ON x.template = c.template
     AND x.dataset = c.dataset
     AND x.attack = c.attack
     AND x.word = c.word_a
    JOIN numbered y
      ON y.template = c.template
     AND y.dataset = c.dataset
     AND y.attack = c.attack
     AND y.word = c.word_b
    WHERE ((c.mask_a >> x.bit) & 1) = 1
      AND ((c.mask_b >> y.bit) & 1) = 1
    GROUP BY c.template, c.dataset, c.attack, x.model, y.model
),
wrong_masks AS (
    -- Per variant and word: the models with a wrong graded answer to it.
    SELECT
        g.template,
        g.dataset,
        g.attack,
        g.problem_id,
        g.variant_id,
        n.word,
        BIT_OR(CAST(1 AS BIGINT) << n.bit) AS mask
    FROM numbered n
    JOIN graded g
      ON n.template = g.template
     AND n.dataset = g.dataset
     AND n.attack = g.attack
     AND n.model = g.model
    WHERE g.attack <> 'original'
      AND g.ok = 0
    GROUP BY g.template, g.dataset, g.attack, g.problem_id, g.variant_id, n.word
),
wide_groups AS (
    -- The template x dataset x attack groups with more than 63 models (more than one word).
    SELECT template, dataset, attack
    FROM numbered
    GROUP BY template, dataset, attack
    HAVING MAX(word) > 0
),
cover AS (
    -- Per problem, model x and word: the models wrong together with x on one of its variants.
    -- Within x's own word that is the OR of the variants' masks where x's bit is set ...
    SELECT
        a.template,
        a.dataset,
        a.attack,
        a.problem_id,
        x.model AS model_a,
        a.word,
        BIT_OR(a.mask) AS together
    FROM numbered x
    JOIN wrong_masks a
      ON x.template = a.template
     AND x.dataset = a.dataset
     AND x.attack = a.attack
     AND x.word = a.word
    WHERE ((a.mask >> x.bit) & 1) = 1
    GROUP BY a.template, a.dataset, a.attack, a.problem_id, x.model, a.word
    UNION ALL
    -- ... and in the other words of groups that have them, the same variants' other masks (a
    -- join of the variants with themselves, which the common case, one word, skips).
    SELECT
        a.template,
        a.dataset,
        a.attack,
        a.problem_id,
        x.model AS model_a,
        b.word,
        BIT_OR(b.mask) AS together
    FROM wide_groups w
    JOIN wrong_masks a
      ON w.template = a.template
     AND w.dataset = a.dataset
     AND w.attack = a.attack
    JOIN numbered x
      ON x.template = a.template
     AND x.dataset = a.dataset
     AND x.attack = a.attack
     AND x.word = a.word
    JOIN wrong_masks b
      ON b.template = a.template
     AND b.dataset = a.dataset
     AND b.attack = a.attack
     AND b.problem_id = a.problem_id
     AND b.variant_id = a.variant_id
     AND b.word <> a.word
    WHERE ((a.mask >> x.bit) & 1) = 1
    GROUP BY a.template, a.dataset, a.attack, a.problem_id, x.model, b.word
),
shared AS (
    -- One cover row per problem and model x, so a count of rows counts problems.
    SELECT
        c.template,
        c.dataset,
        c.attack,
        c.model_a,
        y.model AS model_b,
        COUNT(*) AS shared_problems
    FROM numbered y
    JOIN cover c
      ON y.template = c.template
     AND y.dataset = c.dataset
     AND y.attack = c.attack
     AND y.word = c.word
    WHERE ((c.together >> y.bit) & 1) = 1
    GROUP BY c.template, c.dataset, c.attack, c.model_a, y.model
)
SELECT
    k.template,
    k.dataset,
    k.attack,
    k.model_a,
    k.model_b,
    k.problems,
    COALESCE(s.shared_problems, 0) AS shared_problems,
    CAST(COALESCE(s.shared_problems, 0) AS DOUBLE) / NULLIF(k.problems, 0) AS transfer_share
FROM asked k
LEFT JOIN shared s
  ON s.template = k.template
 AND s.dataset = k.dataset
 AND s.attack = k.attack
 AND s.model_a = k.model_a
 AND s.model_b = k.model_b
ORDER BY k.template, k.dataset, k.attack, k.model_a, k.model_b
