//! Where a no-op sentence may go: after a sentence that ends with a full stop, before one that
//! opens a sentence of its own and reaches back to nothing the new sentence could take over, and
//! (for a sentence about a person) where no later pronoun could turn to that person.

use super::super::lexicon::PRONOUN_TAKERS;
use super::super::names::Gender;
use super::super::words;
use crate::cut;

/// The first place from `after` on, before the question sentence `last`, where a sentence fits
/// (see [`fits_before_next`]): right after the sentence that introduces its subject, or as soon
/// after as the text allows.
pub(super) fn first_fit(
    text: &str,
    spans: &[(usize, usize)],
    after: Option<usize>,
    last: usize,
    items: bool,
    also: impl Fn(Option<usize>) -> bool,
) -> Option<Option<usize>> {
    let fits = |a: Option<usize>| fits_before_next(text, spans, a, items) && also(a);
    if fits(after) {
        return Some(after);
    }
    let from = after.map_or(0, |i| i + 1);
    (from..last).map(Some).find(|&a| fits(a))
}

/// Whether a sentence may go after sentence `after` (before the text when `None`): that one
/// ends with a full stop, and the next starts a sentence of its own (a capital letter: not the
/// rest of a list cut by a stray full stop) and reaches back to nothing the new sentence could
/// take over ("four times that many", "the rest"; after a sentence about some of the items,
/// also "them", "they", "it").
pub(super) fn fits_before_next(
    text: &str,
    spans: &[(usize, usize)],
    after: Option<usize>,
    items: bool,
) -> bool {
    const BACK: &[&str] = &[
        "that many",
        "that much",
        "that number",
        "that amount",
        "this number",
        "this amount",
        "those",
        "these",
        "of them",
        "the rest",
        "the remaining",
        "the others",
        "the same",
        "that total",
        "this total",
        "all of them",
        "each of them",
        "such",
        "other",
        "others",
        "rest",
        "remaining",
        "remainder",
    ];
    // A count a sentence about a person gives could be taken for these.
    const BACK_TO_NUMBER: &[&str] = &[
        "that many",
        "that much",
        "that number",
        "that amount",
        "this number",
        "this amount",
        "the same number",
        "the same amount",
        "that total",
        "this total",
        "so many",
        "such",
    ];
    const BACK_TO_ITEMS: &[&str] = &["them", "they", "their", "it", "its", "ones"];
    if let Some(i) = after {
        if !cut::between(text, spans[i].0, spans[i].1).ends_with('.') {
            return false;
        }
    }
    let Some(sentence) = next_sentence(text, spans, after) else {
        return true;
    };
    let opens = sentence
        .trim_start_matches(|c: char| c.is_whitespace() || "\"“‘'(".contains(c))
        .starts_with(char::is_uppercase);
    let lower: Vec<String> = words(sentence)
        .iter()
        .map(|w| w.text.to_lowercase())
        .collect();
    let joined = format!(" {} ", lower.join(" "));
    let back = if items { BACK } else { BACK_TO_NUMBER };
    // "the same amount of weight" says what it is the same as; "the same amount" alone may
    // reach back to the new sentence's number.
    let reaches_back = back.iter().any(|p| {
        joined
            .match_indices(&format!(" {p} "))
            .any(|(at, m)| !cut::after(&joined, at + m.len()).starts_with("of "))
    }) || (items && BACK_TO_ITEMS.iter().any(|p| lower.iter().any(|w| w == p)));
    opens && !reaches_back
}

/// Whether a sentence about `who` after sentence `after` leaves the next sentence's pronouns
/// as they were: the next has none that could be theirs before it names them itself, or the
/// one before it speaks of them already. Otherwise "He digs" after "Nate lives 8 miles away"
/// would turn from Nate's dog to Nate.
pub(super) fn pronouns_stay_theirs(
    text: &str,
    spans: &[(usize, usize)],
    after: Option<usize>,
    who: &str,
    gender: Gender,
) -> bool {
    const SHE: &[&str] = &["she", "her", "hers", "herself"];
    const HE: &[&str] = &["he", "him", "his", "himself"];
    let compatible = |w: &str| {
        let lower = w.to_lowercase();
        let (she, he) = (SHE.contains(&lower.as_str()), HE.contains(&lower.as_str()));
        match gender {
            Gender::Female => she,
            Gender::Male => he,
            Gender::Either => she || he,
        }
    };
    let Some(next) = next_sentence(text, spans, after) else {
        return true;
    };
    // "The trader" is named by its noun.
    let name = who.rsplit(' ').next().unwrap_or(who);
    let is_name = |w: &str| w.eq_ignore_ascii_case(name);
    let could_be_theirs = words(next)
        .iter()
        .take_while(|w| !is_name(w.text))
        .any(|w| compatible(w.text));
    // The sentence before speaks of them: by name, as the owner of a thing (not of an animal or
    // a person, who could take the pronoun), or it opens with one of their pronouns.
    let spoken_of = after.is_some_and(|i| {
        let (a, b) = spans[i];
        let sentence = cut::between(text, a, b);
        let ws = words(sentence);
        let by_name = ws.iter().enumerate().any(|(k, w)| {
            let possessive = cut::after(sentence, w.end).starts_with(['\'', '’']);
            let owned = ws
                .get(k + 2)
                .map(|o| o.text.to_lowercase())
                .unwrap_or_default();
            is_name(w.text) && (!possessive || !PRONOUN_TAKERS.contains(&owned.as_str()))
        });
        let by_pronoun = ws.first().is_some_and(|w| match gender {
            Gender::Female => w.text.eq_ignore_ascii_case("she"),
            Gender::Male => w.text.eq_ignore_ascii_case("he"),
            Gender::Either => false,
        });
        by_name || by_pronoun
    });
    !could_be_theirs || spoken_of
}

/// Whether the sentence after sentence `after` has none of `words` (lower case).
pub(super) fn next_is_free_of(
    text: &str,
    spans: &[(usize, usize)],
    after: Option<usize>,
    words_of: &[&str],
) -> bool {
    let Some(next) = next_sentence(text, spans, after) else {
        return true;
    };
    !words(next)
        .iter()
        .any(|w| words_of.contains(&w.text.to_lowercase().as_str()))
}

/// The sentence after sentence `after` (the first when `None`), if there is one.
fn next_sentence<'t>(
    text: &'t str,
    spans: &[(usize, usize)],
    after: Option<usize>,
) -> Option<&'t str> {
    let &(a, b) = spans.get(after.map_or(0, |i| i + 1))?;
    Some(cut::between(text, a, b))
}
