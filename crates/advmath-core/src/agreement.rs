//! Number agreement of the noun after a count: when a variant turns "3 notebooks" into a count of
//! one, the noun becomes "notebook", and "1 hour" becomes "5 hours". Only the word right after the
//! number (one space between) changes, and only when the change is sure: a plural ending in `s`
//! is made singular by the regular rules and a list of irregular and `-ie` nouns; a singular is
//! made plural only when the question itself writes that plural elsewhere, or the word is a unit
//! or an irregular noun listed here. Anything else (an adjective, "each", a fraction's
//! denominator) is left as written: the number is what a variant changes.
//!
//! The article right before a number agrees with how the number is read: "a 5 hour day" that
//! becomes an 8 hour day is "an 8 hour day", "an 11" that becomes 12 is "a 12", and "an $8
//! sweater" that costs $359,064 is "a $359064 sweater".

use crate::cut;
use crate::question::rendering::render_with;

/// Whether a number written in digits is read with a vowel sound first ("eight", "eleven",
/// "eighteen", "eighty", "eight hundred", "eleven thousand"), and so takes "an". The leading
/// group of three digits is what is read first: 18,000 is "eighteen thousand", 180 "a hundred
/// and eighty".
pub fn reads_with_vowel(number: &str) -> bool {
    let digits: String = number
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    if digits.is_empty() || digits.starts_with('0') {
        return false;
    }
    let lead = match digits.len() % 3 {
        0 => 3,
        n => n,
    };
    let (group, _) = cut::split(&digits, lead);
    group.starts_with('8') || group == "11" || group == "18"
}

/// Make the article right before the number just written at the end of `out` ("a", "an", at
/// the start of the text or after a non-letter) agree with how the number is read, if the
/// number `changed` from the question's.
fn agree_article(out: &mut String, number: &str, changed: impl FnOnce() -> bool) {
    let Some(before) = out.strip_suffix(number) else {
        return;
    };
    // A sum of money is read by its number: "an $8 sweater" is "an eight-dollar sweater", "a $12
    // sweater" a twelve-dollar one.
    let (before, sign) = match before.strip_suffix('$') {
        Some(b) => (b, "$"),
        None => (before, ""),
    };
    let want_an = reads_with_vowel(number);
    for (article, is_an) in [("a ", false), ("an ", true), ("A ", false), ("An ", true)] {
        let Some(head) = before.strip_suffix(article) else {
            continue;
        };
        if head.chars().last().is_some_and(char::is_alphanumeric) {
            continue;
        }
        if is_an != want_an && changed() {
            let capital = article.starts_with('A');
            let agreeing = match (want_an, capital) {
                (true, false) => "an ",
                (true, true) => "An ",
                (false, false) => "a ",
                (false, true) => "A ",
            };
            out.truncate(head.len());
            out.push_str(agreeing);
            out.push_str(sign);
            out.push_str(number);
        }
        return;
    }
}

/// Whether a rendered count reads as one ("1", "one", "One"), which takes a singular noun.
pub fn is_one(text: &str) -> bool {
    matches!(text, "1" | "one" | "One")
}

/// The template with each `{i}` replaced by `texts[i]`, the word after a slot made to agree where
/// the slot's count changed between one and more than one (`was_one[i]` against the new text).
/// `question` is the original text: a plural the question writes somewhere may be used.
pub fn render_agreeing(
    template: &str,
    texts: &[String],
    was_one: &[bool],
    question: &str,
) -> String {
    render_agreeing_as(template, texts, was_one, question, true)
}

/// [`render_agreeing`], for a `reader` (the article before a changed number agrees, and a noun
/// past up to two adjectives or noun modifiers: "1 different album", "1 photograph frame") or
/// not (the noun right after the number only, as versions before a reader's rules did).
pub fn render_agreeing_as(
    template: &str,
    texts: &[String],
    was_one: &[bool],
    question: &str,
    reader: bool,
) -> String {
    // The question's own slot texts, read only when an article disagrees with a number: a
    // number the variant did not change keeps the article the question gives it ("a 825").
    let mut originals: Option<Vec<String>> = None;
    render_with(template, texts, |idx, rest, out| {
        let text = &texts[idx];
        if reader {
            agree_article(out, text, || {
                let originals = originals.get_or_insert_with(|| {
                    crate::question::find_slots(question)
                        .iter()
                        .map(|s| s.written_in(question).to_string())
                        .collect()
                });
                originals.get(idx).is_none_or(|o| o != text)
            });
        }
        let changed = was_one.get(idx).is_some_and(|&w| w != is_one(text));
        let after_slash = out
            .strip_suffix(text.as_str())
            .is_some_and(|o| o.ends_with('/'));
        if !changed || after_slash || rest.starts_with('/') {
            return 0;
        }
        let Some(rest) = rest.strip_prefix(' ') else {
            return 0;
        };
        let Some((word, _)) = next_word(rest) else {
            return 0;
        };
        let word_len = word.len();
        let agreeing = if is_one(text) {
            singular(word)
        } else {
            plural(word, question)
        };
        match agreeing {
            Some(w) => {
                out.push(' ');
                out.push_str(&w);
                1 + word_len
            }
            None if reader => match past_modifiers(rest, is_one(text), question) {
                Some((w, used)) => {
                    out.push(' ');
                    out.push_str(&w);
                    1 + used
                }
                None => 0,
            },
            None => 0,
        }
    })
}

/// The lower-case word `text` starts with, and what follows it, if it is a whole word (not
/// glued to a digit, a hyphen or an apostrophe: "miles2", "4-hour", "men's").
fn next_word(text: &str) -> Option<(&str, &str)> {
    let len = text.bytes().take_while(|b| b.is_ascii_lowercase()).count();
    let (word, after) = cut::split(text, len);
    let boundary = after
        .chars()
        .next()
        .is_none_or(|b| !b.is_alphanumeric() && b != '-' && b != '\'');
    (!word.is_empty() && boundary).then_some((word, after))
}

/// The noun after one or two modifiers ("different albums", "photograph frames") made to agree
/// with a count that is now `one` or not, with the modifiers before it; and how many bytes of
/// `rest` that replaces. A modifier is a lower-case word that is neither a unit ("12 inch
/// pizzas" counts inches, not pizzas) nor a plural, nor a word that is no noun's ("other",
/// "more").
fn past_modifiers(rest: &str, one: bool, question: &str) -> Option<(String, usize)> {
    let mut at = 0;
    for k in 0..3 {
        let (word, after) = next_word(cut::after(rest, at))?;
        let len = word.len();
        if k > 0 {
            let agreeing = if one {
                singular(word)
            } else {
                plural(word, question)
            };
            if let Some(noun) = agreeing {
                let mut out = cut::before(rest, at).to_string();
                out.push_str(&noun);
                return Some((out, at + len));
            }
        }
        let modifier = !NOT_A_NOUN.contains(&word)
            && !NOT_MODIFIERS.contains(&word)
            && !word.ends_with("ly")
            && !UNITS.contains(&word)
            && !word.ends_with('s')
            && singular(word).is_none();
        if k == 2 || !modifier || !after.starts_with(' ') {
            return None;
        }
        at += len + 1;
    }
    None
}

/// Plurals whose singular the regular rules would get wrong.
const IRREGULAR: &[(&str, &str)] = &[
    ("child", "children"),
    ("person", "people"),
    ("man", "men"),
    ("woman", "women"),
    ("foot", "feet"),
    ("tooth", "teeth"),
    ("mouse", "mice"),
    ("goose", "geese"),
    ("knife", "knives"),
    ("loaf", "loaves"),
    ("leaf", "leaves"),
    ("half", "halves"),
    ("shelf", "shelves"),
    ("wolf", "wolves"),
    ("calf", "calves"),
    ("life", "lives"),
    ("wife", "wives"),
    ("thief", "thieves"),
    ("potato", "potatoes"),
    ("tomato", "tomatoes"),
    ("hero", "heroes"),
    ("mango", "mangoes"),
    ("bus", "buses"),
    ("quiz", "quizzes"),
    ("scarf", "scarves"),
];

/// Nouns in `-ie`, whose plural `-ies` is not a `-y` noun's.
const IE_NOUNS: &[&str] = &[
    "cookie", "movie", "brownie", "calorie", "pie", "tie", "smoothie", "zombie", "selfie",
    "rookie", "goalie", "veggie", "hoodie", "birdie", "auntie", "freebie", "lie", "genie",
];

/// Words after a number that are not its noun, or whose form does not follow it.
pub(crate) const NOT_A_NOUN: &[&str] = &[
    "a",
    "an",
    "the",
    "and",
    "or",
    "of",
    "to",
    "per",
    "each",
    "more",
    "less",
    "in",
    "on",
    "at",
    "for",
    "by",
    "with",
    "from",
    "is",
    "was",
    "are",
    "were",
    "has",
    "had",
    "will",
    "would",
    "can",
    "percent",
    "dozen",
    "hundred",
    "thousand",
    "million",
    "billion",
    "times",
    "as",
    "than",
    "fewer",
    "extra",
    "other",
    "plus",
    "minus",
    "series",
    "species",
    "means",
    "news",
    "sheep",
    "fish",
    "deer",
    "lbs",
    "pounds-worth",
];

/// Whether a noun, singular or plural, is a unit of measure (which agrees with any count).
pub(crate) fn is_unit(word: &str) -> bool {
    UNITS.contains(&word) || singular(word).is_some_and(|one| UNITS.contains(&one.as_str()))
}

/// Words that can stand between a count and a noun without modifying the noun ("groups of 3
/// how many groups"): question words, determiners, adverbs.
const NOT_MODIFIERS: &[&str] = &[
    "how", "many", "much", "what", "which", "who", "whose", "why", "when", "where", "some", "any",
    "all", "both", "few", "several", "every", "no", "not", "only", "just", "very", "so", "too",
    "also", "then", "that", "this", "these", "those", "there", "here", "if", "but", "into", "onto",
    "over", "under", "after", "before", "about", "again", "still", "yet",
];

/// Units of measure, which always agree with their count.
const UNITS: &[&str] = &[
    "second",
    "minute",
    "hour",
    "day",
    "week",
    "month",
    "year",
    "decade",
    "century",
    "dollar",
    "cent",
    "penny",
    "nickel",
    "dime",
    "quarter",
    "mile",
    "yard",
    "inch",
    "meter",
    "kilometer",
    "centimeter",
    "pound",
    "ounce",
    "gallon",
    "quart",
    "pint",
    "liter",
    "cup",
    "gram",
    "kilogram",
    "ton",
    "page",
    "point",
    "piece",
    "slice",
    "box",
    "bag",
    "bottle",
    "pack",
    "person",
    "child",
    "man",
    "woman",
    "foot",
    "tooth",
    "mouse",
    "goose",
    "loaf",
    "half",
];

/// The singular of a plural noun, when the rules are sure of it.
pub(crate) fn singular(word: &str) -> Option<String> {
    if NOT_A_NOUN.contains(&word) || word.len() < 3 {
        return None;
    }
    if let Some((s, _)) = IRREGULAR.iter().find(|(_, p)| *p == word) {
        return Some(s.to_string());
    }
    if let Some(stem) = word.strip_suffix("ies") {
        let ie = format!("{stem}ie");
        if IE_NOUNS.contains(&ie.as_str()) {
            return Some(ie);
        }
        return (stem.len() >= 2).then(|| format!("{stem}y"));
    }
    if word.ends_with("aches") {
        return word.strip_suffix('s').map(str::to_string);
    }
    for sibilant in ["sses", "ches", "shes", "xes", "zzes"] {
        if word.ends_with(sibilant) {
            // Every sibilant plural ends in "es", which goes.
            return word.strip_suffix("es").map(str::to_string);
        }
    }
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return None;
    }
    word.strip_suffix('s').map(str::to_string)
}

/// The plural of a singular noun: by rule, when the question writes it somewhere or the word
/// is a unit or an irregular noun listed here.
fn plural(word: &str, question: &str) -> Option<String> {
    if NOT_A_NOUN.contains(&word) || word.len() < 3 {
        return None;
    }
    let form = if let Some((_, p)) = IRREGULAR.iter().find(|(s, _)| *s == word) {
        p.to_string()
    } else if IE_NOUNS.contains(&word) {
        format!("{word}s")
    } else if word.ends_with('s')
        || word.ends_with('x')
        || word.ends_with('z')
        || word.ends_with("ch")
        || word.ends_with("sh")
    {
        format!("{word}es")
    } else if let Some(stem) = word
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u']))
    {
        format!("{stem}ies")
    } else {
        format!("{word}s")
    };
    let written = question
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| w == form);
    (written || UNITS.contains(&word)).then_some(form)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agree(template: &str, texts: &[&str], was_one: &[bool], question: &str) -> String {
        let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        render_agreeing(template, &texts, was_one, question)
    }

    #[test]
    fn the_article_before_a_number_agrees_with_how_it_is_read() {
        let q = "He works a 5 hour day and an 11 hour night. A 3 day trip costs $6.";
        let t = "He works a {0} hour day and an {1} hour night. A {2} day trip costs ${3}.";
        assert_eq!(
            agree(t, &["8", "12", "18", "80"], &[false; 4], q),
            "He works an 8 hour day and a 12 hour night. An 18 day trip costs $80."
        );
        assert_eq!(
            agree(t, &["5", "11", "3", "6"], &[false; 4], q),
            q,
            "unchanged numbers keep their articles"
        );
        // A number the variant did not change keeps the question's article, right or not.
        let q = "They ordered a 825 kg load and a 5 kg box.";
        let t = "They ordered a {0} kg load and a {1} kg box.";
        assert_eq!(
            agree(t, &["825", "8"], &[false; 2], q),
            "They ordered a 825 kg load and an 8 kg box."
        );
        // Only an article on its own: "Ina 8" is left as it is; money is read by its number.
        assert_eq!(
            agree(
                "Ina {0} and a ${1} and an ${2} sweater.",
                &["8", "8", "359064"],
                &[false; 3],
                "Ina 5 and a $5 and an $8 sweater."
            ),
            "Ina 8 and an $8 and a $359064 sweater."
        );
        for (n, an) in [
            ("8", true),
            ("11", true),
            ("18", true),
            ("80", true),
            ("800", true),
            ("8,500", true),
            ("11000", true),
            ("18000", true),
            ("8.5", true),
            ("1", false),
            ("110", false),
            ("180", false),
            ("1800", false),
            ("0.8", false),
            ("12", false),
            ("81000", true),
        ] {
            assert_eq!(reads_with_vowel(n), an, "{n}");
        }
    }

    #[test]
    fn the_paper_s_rendering_leaves_articles_and_nouns_past_adjectives_alone() {
        let q = "She works a 5 hour day and bought 3 photograph frames.";
        let t = "She works a {0} hour day and bought {1} photograph frames.";
        let texts = ["8".to_string(), "1".to_string()];
        assert_eq!(
            render_agreeing_as(t, &texts, &[false, false], q, false),
            "She works a 8 hour day and bought 1 photograph frames."
        );
        assert_eq!(
            render_agreeing_as(t, &texts, &[false, false], q, true),
            "She works an 8 hour day and bought 1 photograph frame."
        );
    }

    #[test]
    fn the_noun_agrees_past_adjectives_and_noun_modifiers() {
        let q = "He has 3 different albums, 2 large pizza slices and 1 red apple; apples.";
        let t = "He has {0} different albums, {1} large pizza slices and {2} red apple; apples.";
        assert_eq!(
            agree(t, &["1", "1", "4"], &[false, false, true], q),
            "He has 1 different album, 1 large pizza slice and 4 red apples; apples."
        );
        // A unit before the noun counts the unit ("two 12 inch pizzas"); "more" and "other" are
        // no modifiers; a verb after a noun is left alone; a plural that the question never
        // writes is not guessed.
        for (q, t, texts, was_one) in [
            ("two 12 inch pizzas", "two {0} inch pizzas", ["1"], [false]),
            ("3 more apples", "{0} more apples", ["1"], [false]),
            ("3 other kids", "{0} other kids", ["1"], [false]),
            (
                "groups of 3 how many groups",
                "groups of {0} how many groups",
                ["1"],
                [false],
            ),
            (
                "1 baker makes bread",
                "{0} baker makes bread",
                ["4"],
                [true],
            ),
            ("1 green kite", "{0} green kite", ["4"], [true]),
        ] {
            let want = t.replace("{0}", texts[0]);
            assert_eq!(agree(t, &texts, &was_one, q), want, "{q}");
        }
    }

    #[test]
    fn a_count_of_one_takes_the_singular_and_more_the_plural() {
        let q = "Maya buys 3 notebooks and 4 pens.";
        let t = "Maya buys {0} notebooks and {1} pens.";
        assert_eq!(
            agree(t, &["1", "1"], &[false, false], q),
            "Maya buys 1 notebook and 1 pen."
        );
        assert_eq!(
            agree(t, &["5", "1"], &[false, false], q),
            "Maya buys 5 notebooks and 1 pen."
        );
        let q = "It takes 1 hour to bake 1 cake, and 1 dog eats 3 cakes.";
        let t = "It takes {0} hour to bake {1} cake, and {2} dog eats {3} cakes.";
        assert_eq!(
            agree(t, &["4", "2", "2", "1"], &[true, true, true, false], q),
            "It takes 4 hours to bake 2 cakes, and 2 dog eats 1 cake."
        );
    }

    #[test]
    fn irregular_and_ie_nouns_and_sibilants() {
        for (plural, singular) in [
            ("children", "child"),
            ("cookies", "cookie"),
            ("candies", "candy"),
            ("boxes", "box"),
            ("classes", "class"),
            ("inches", "inch"),
            ("potatoes", "potato"),
            ("houses", "house"),
            ("shoes", "shoe"),
        ] {
            let t = "She has {0} ".to_string() + plural + ".";
            assert_eq!(
                agree(&t, &["1"], &[false], ""),
                format!("She has 1 {singular}."),
                "{plural}"
            );
        }
    }

    #[test]
    fn what_is_not_sure_is_left_as_written() {
        let same = |t: &str, texts: &[&str], was_one: &[bool]| {
            let q = t.replace("{0}", "3").replace("{1}", "4");
            assert_eq!(
                agree(t, texts, was_one, &q),
                t.replace("{0}", texts[0])
                    .replace("{1}", texts.get(1).copied().unwrap_or(""))
            );
        };
        // Function words, glued forms and fractions (an adjective is passed over: see
        // the_noun_agrees_past_adjectives_and_noun_modifiers).
        same("It costs ${0} each.", &["1"], &[false]);
        same("She has {0} more apples.", &["1"], &[false]);
        same("A {0}-hour drive.", &["1"], &[false]);
        same("Add {0}/{1} cups of flour.", &["1", "1"], &[false, false]);
        same("He ran {0} miles2 today.", &["1"], &[false]);
        // A singular whose plural the question never writes, and which is no unit.
        same("She has {0} dog.", &["4"], &[true]);
        // Money with cents keeps the plural: "$1.50 bills".
        same("He has {0} bills.", &["1.50"], &[false]);
        // The count did not cross one.
        same("He has {0} bills.", &["7"], &[false]);
    }
}
