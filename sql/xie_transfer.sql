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
-- any number of words), so the pairs are counted from a few masks. A mask's models are listed by
-- expanding its bits (UNNEST of GENERATE_SERIES over the bits a word holds, filtered on the mask),
-- which streams, rather than by joining the models to millions of masks: a hash join would hold
-- the masks in memory, and DataFusion may pick them as the side to hold.
-- Portable SQL (DataFusion and DuckDB): BIGINT bit masks with <<, >> and &, BIT_OR, explicit
-- DOUBLE casts for division, NULLIF for 0 / 0, integer division written as (n - n % 63) / 63 cast
-- to BIGINT (DuckDB's / gives a DOUBLE).
WITH numbered AS (
    -- The models of each template x dataset x attack: word w, bit b for the (63w + b)-th by name.
    SELECT
        template,
        dataset,
        attack,
        model,
        CAST((name_rank - name_rank % 63) / 63 AS BIGINT) AS word,
        name_rank % 63 AS bit,
        models
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
        BIT_OR(CAST(1 AS BIGINT) << n.bit) AS mask,
        MAX(n.models) AS models,
        -- The highest bit this word holds: 62, or fewer in the group's last word.
        CASE
            WHEN MAX(n.models) - 1 - 63 * n.word > 62 THEN 62 ELSE MAX(n.models) - 1 - 63 * n.word
        END AS top_bit
    FROM numbered n
    JOIN graded g
      ON n.template = g.template
     AND n.dataset = g.dataset
     AND n.attack = g.attack
     AND n.model = g.model
    WHERE g.attack <> (SELECT attack FROM attacks WHERE is_original)
      AND g.ok = 0
    GROUP BY g.template, g.dataset, g.attack, g.problem_id, g.variant_id, n.word
),
fooled AS (
    -- Per wrong variant and model x it fools: x's word and bit, and the variant's mask of that word.
    SELECT template, dataset, attack, problem_id, variant_id, word, mask, models, top_bit, bit
    FROM (
        SELECT
            template,
            dataset,
            attack,
            problem_id,
            variant_id,
            word,
            mask,
            models,
            top_bit,
            UNNEST(GENERATE_SERIES(0, top_bit)) AS bit
        FROM wrong_masks
    ) expanded
    WHERE ((mask >> bit) & 1) = 1
),
cover AS (
    -- Per problem, model x (word_a, bit_a) and word_b: the models of word_b wrong together with x
    -- on one of its variants. Within x's own word that is the OR of the masks x is in ...
    SELECT
        template,
        dataset,
        attack,
        problem_id,
        word AS word_a,
        bit AS bit_a,
        word AS word_b,
        MAX(top_bit) AS top_bit,
        BIT_OR(mask) AS together
    FROM fooled
    GROUP BY template, dataset, attack, problem_id, word, bit
    UNION ALL
    -- ... and in the other words of groups of more than 63 models, the same variants' other masks
    -- (a join of the variants with themselves, which the filter empties in the common case).
    SELECT
        f.template,
        f.dataset,
        f.attack,
        f.problem_id,
        f.word AS word_a,
        f.bit AS bit_a,
        b.word AS word_b,
        MAX(b.top_bit) AS top_bit,
        BIT_OR(b.mask) AS together
    FROM fooled f
    JOIN wrong_masks b
      ON b.template = f.template
     AND b.dataset = f.dataset
     AND b.attack = f.attack
     AND b.problem_id = f.problem_id
     AND b.variant_id = f.variant_id
     AND b.word <> f.word
    WHERE f.models > 63
      AND b.models > 63
    GROUP BY f.template, f.dataset, f.attack, f.problem_id, f.word, f.bit, b.word
),
shared_bits AS (
    -- One cover row per problem, model x and word_b, so a count of rows counts problems.
    SELECT template, dataset, attack, word_a, bit_a, word_b, bit_b, COUNT(*) AS shared_problems
    FROM (
        SELECT
            template,
            dataset,
            attack,
            word_a,
            bit_a,
            word_b,
            together,
            UNNEST(GENERATE_SERIES(0, top_bit)) AS bit_b
        FROM cover
    ) expanded
    WHERE ((together >> bit_b) & 1) = 1
    GROUP BY template, dataset, attack, word_a, bit_a, word_b, bit_b
),
shared AS (
    SELECT
        s.template,
        s.dataset,
        s.attack,
        x.model AS model_a,
        y.model AS model_b,
        s.shared_problems
    FROM shared_bits s
    JOIN numbered x
      ON x.template = s.template
     AND x.dataset = s.dataset
     AND x.attack = s.attack
     AND x.word = s.word_a
     AND x.bit = s.bit_a
    JOIN numbered y
      ON y.template = s.template
     AND y.dataset = s.dataset
     AND y.attack = s.attack
     AND y.word = s.word_b
     AND y.bit = s.bit_b
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
