//! The `names` attack: every person the question names gets a new first name, the same one at
//! every mention (possessives included), of the gender the question's pronouns give that person,
//! drawn from [`first_names.tsv`](self) (written for advmath, CC0-1.0) and never a word already
//! in the question or another person's new name. Numbers are untouched, so the gold stands.
//!
//! A person is a capitalised word that is a listed first name, or an unlisted one the text uses
//! as a person (followed by `'s` or by a verb). Left alone: a name after a title ("Mr. Smith",
//! "Aunt May"), a surname after a first name, words of a proper noun ("Tik Tok", "Sally's
//! Bakery", "in Jordan"), months, days, holidays, languages, brands. A person whose gender
//! neither the list nor the pronouns settle gets a name used for either. A question that names
//! no one is refused, as is one with a capitalised word that may be a person the rules do not
//! see, or two names one letter apart.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::lexicon::{
    ACTS, ANIMAL, FEMALE_TITLES, GIVING, MALE_TITLES, NEVER, PERSON_BEFORE, PLACE_AFTER,
    PRONOUN_TAKERS, THING_BEFORE, TITLES,
};
use super::{words, Word};
use crate::cut;

mod refusal;

pub use refusal::NamesRefusal;

/// The gender a person's new name must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gender {
    Female,
    Male,
    /// Nothing in the text says: a name used for either.
    Either,
}

/// One person the question names: the name, the gender a new name needs, and the byte spans of
/// every mention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    pub name: String,
    pub gender: Gender,
    pub mentions: Vec<(usize, usize)>,
}

/// A question with its people renamed, and each (old, new) name in order of first mention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renamed {
    pub text: String,
    pub swaps: Vec<(String, String)>,
}

struct Listed {
    gender: Gender,
    drawable: bool,
}

static LIST_TEXT: &str = include_str!("first_names.tsv");

static LISTED: LazyLock<BTreeMap<&'static str, Listed>> = LazyLock::new(|| {
    LIST_TEXT
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let (name, gender, draw) = (cols.next()?, cols.next()?, cols.next()?);
            let gender = match gender {
                "F" => Gender::Female,
                "M" => Gender::Male,
                _ => Gender::Either,
            };
            Some((
                name,
                Listed {
                    gender,
                    drawable: draw == "y",
                },
            ))
        })
        .collect()
});

/// The names a new name is drawn from, per gender, in list order.
static DRAWABLE: LazyLock<BTreeMap<Gender, Vec<&'static str>>> = LazyLock::new(|| {
    let mut out: BTreeMap<Gender, Vec<&'static str>> = BTreeMap::new();
    for (name, l) in LISTED.iter().filter(|(_, l)| l.drawable) {
        out.entry(l.gender).or_default().push(name);
    }
    out
});

const SHE: &[&str] = &["she", "her", "hers", "herself"];
const HE: &[&str] = &["he", "him", "his", "himself"];

fn is_capitalised(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(char::is_uppercase)
        && w.chars().count() >= 2
        && chars.all(char::is_lowercase)
}

/// What `text` holds just after a word ending at `end`: an apostrophe (straight or curly).
fn apostrophe_after(text: &str, end: usize) -> Option<usize> {
    let rest = cut::after(text, end);
    ['\'', '’']
        .into_iter()
        .find(|&a| rest.starts_with(a))
        .map(char::len_utf8)
}

/// Whether the word starts a sentence (only quotes, brackets and spaces between it and the
/// text's start or a sentence's final mark).
fn starts_sentence(text: &str, start: usize) -> bool {
    let head = cut::before(text, start)
        .trim_end_matches(|c: char| c.is_whitespace() || "\"“‘'(".contains(c));
    head.is_empty() || head.ends_with(['.', '!', '?', ':', '\n'])
}

/// The people `text` names, in order of first mention, with the gender a new name needs.
pub fn people(text: &str) -> Result<Vec<Person>, NamesRefusal> {
    let Named {
        people: named,
        titled,
        unsure,
    } = named(text);
    if named.is_empty() {
        return Err(NamesRefusal::NoName);
    }
    if !unsure.is_empty() {
        return Err(NamesRefusal::UnsureName);
    }
    // "Aurelia … Arelia", "Tasha … Tashay": one person spelled twice, or two whom renaming
    // would tell apart more than the text does.
    for (i, (a, _)) in named.iter().enumerate() {
        if named[i + 1..].iter().any(|(b, _)| alike(a, b)) {
            return Err(NamesRefusal::NamesAlike);
        }
    }
    let lower: BTreeSet<String> = words(text).iter().map(|w| w.text.to_lowercase()).collect();
    let has = |set: &[&str]| set.iter().any(|p| lower.contains(*p));
    let (she, he) = (has(SHE), has(HE));
    let alone = named.len() + titled.len() == 1;
    // Where every person is mentioned, titled ones too: a person's own pronouns are those after
    // their mention and before anyone else's.
    let ws = words(text);
    let mut starts: Vec<(usize, usize)> = Vec::new();
    for (k, (_, mentions)) in named.iter().enumerate() {
        starts.extend(mentions.iter().map(|&(a, _)| (a, k)));
    }
    starts.extend(titled.iter().map(|(_, at, _)| (*at, usize::MAX)));
    starts.sort_unstable();
    let own_pronouns = |k: usize| {
        let (mut she, mut he) = (false, false);
        for (n, &(at, who)) in starts.iter().enumerate() {
            if who != k {
                continue;
            }
            let until = starts.get(n + 1).map_or(text.len(), |&(next, _)| next);
            for w in ws.iter().filter(|w| w.start > at && w.start < until) {
                let lower = w.text.to_lowercase();
                she |= SHE.contains(&lower.as_str());
                he |= HE.contains(&lower.as_str());
            }
        }
        match (she, he) {
            (true, false) => Some(Gender::Female),
            (false, true) => Some(Gender::Male),
            (true, true) => Some(Gender::Either),
            (false, false) => None,
        }
    };
    let mut out = Vec::new();
    for (k, (name, mentions)) in named.into_iter().enumerate() {
        let listed = LISTED.get(name.as_str()).map(|l| l.gender);
        let by_pronouns = match (she, he) {
            (true, false) => Some(Gender::Female),
            (false, true) => Some(Gender::Male),
            (false, false) => Some(Gender::Either),
            (true, true) => None,
        };
        // "Melanie's father … brings him": a person named only as the owner of someone who can
        // take the pronouns is not shown to be theirs.
        let owner_only = mentions.iter().all(|&(_, end)| {
            let rest = cut::after(text, end);
            let owned = rest
                .strip_prefix("'s ")
                .or_else(|| rest.strip_prefix("’s "))
                .and_then(|r| words(r).first().map(|w| w.text.to_lowercase()));
            owned.is_some_and(|o| PRONOUN_TAKERS.contains(&o.as_str()))
        });
        let gender = match (listed, alone) {
            (_, true) if owner_only && firmly(&name) => listed.unwrap_or(Gender::Either),
            // A lone person's pronouns are theirs, whatever the list says.
            (_, true) => match (by_pronouns, listed) {
                (Some(Gender::Either), Some(g)) => g,
                (Some(g), _) => g,
                (None, Some(g @ (Gender::Female | Gender::Male))) => g,
                // Both pronouns and a name of either: a name of either fits whichever is theirs.
                (None, _) => Gender::Either,
            },
            // Several people: the pronouns after their own mentions ("Kim has started his own
            // business"), else the list; a name of either gender where those are mixed or the
            // list does not place the name.
            (_, false) => match (own_pronouns(k), listed) {
                // A name the list places firmly keeps its gender: a pronoun after it may be
                // someone else's ("Martha gave Joseph 5. She …").
                (_, Some(g @ (Gender::Female | Gender::Male))) if firmly(&name) => g,
                (Some(g @ (Gender::Female | Gender::Male)), _) => g,
                (_, Some(g)) => g,
                (_, None) => Gender::Either,
            },
        };
        out.push(Person {
            name,
            gender,
            mentions,
        });
    }
    Ok(out)
}

/// A capitalised word's spans, and whether some mention shows it is a person.
type Mentions = (Vec<(usize, usize)>, bool);

/// The people a text names.
pub struct Named {
    /// Each person's name and the spans of its mentions, in order of first mention.
    pub people: Vec<(String, Vec<(usize, usize)>)>,
    /// Each titled mention ("Mrs. Cruz": female; "Dr. Wertz": either), as written, where it
    /// starts, and the gender its title gives.
    pub titled: Vec<(String, usize, Gender)>,
    /// Capitalised words inside a sentence that may be people but do not show it.
    pub unsure: Vec<String>,
}

/// The people `text` names (see [`Named`]).
pub fn named(text: &str) -> Named {
    let ws = words(text);
    let adjacent = |a: &Word, b: &Word| cut::between(text, a.end, b.start) == " ";
    // Per capitalised word: the spans where it may be a person, and whether some mention shows
    // it is one (listed and not a common word opening a sentence, or acting).
    let mut mentions: BTreeMap<&str, Mentions> = BTreeMap::new();
    let mut kept: BTreeSet<&str> = BTreeSet::new();
    let mut titled: Vec<(String, usize, Gender)> = Vec::new();
    let mut candidate_at = vec![false; ws.len()];
    let text_has_pronoun = ws.iter().any(|w| {
        let lower = w.text.to_lowercase();
        SHE.contains(&lower.as_str()) || HE.contains(&lower.as_str())
    });
    let lower_words: BTreeSet<&str> = ws
        .iter()
        .filter(|w| w.text.starts_with(char::is_lowercase))
        .map(|w| w.text)
        .collect();
    for (i, w) in ws.iter().enumerate() {
        if !is_capitalised(w.text) || NEVER.contains(&w.text) || TITLES.contains(&w.text) {
            continue;
        }
        let prev = i.checked_sub(1).map(|p| &ws[p]);
        let next = ws.get(i + 1);
        let possessive = apostrophe_after(text, w.end).is_some();
        if let Some(p) = prev {
            let joined = cut::between(text, p.end, w.start)
                .trim()
                .trim_matches('.')
                .is_empty();
            if joined && TITLES.contains(&p.text) {
                let gender = if FEMALE_TITLES.contains(&p.text) {
                    Gender::Female
                } else if MALE_TITLES.contains(&p.text) {
                    Gender::Male
                } else {
                    Gender::Either
                };
                let written = cut::between(text, p.start, w.end).to_string();
                titled.push((written, p.start, gender));
                kept.insert(w.text);
                continue;
            }
            // "T-Rex": a word joined by a hyphen is part of another word.
            let hyphened = cut::between(text, p.end, w.start) == "-";
            // A surname, a word of a proper noun ("Cozy Homes"), or an animal's name ("his dog
            // Rex", "a cat named Binkie").
            let named_animal = ANIMAL.contains(&p.text.to_lowercase().as_str())
                || (matches!(p.text, "named" | "called")
                    && i >= 2
                    && ANIMAL.contains(&ws[i - 2].text.to_lowercase().as_str()));
            if hyphened
                || named_animal
                || (adjacent(p, w)
                    && (candidate_at[i - 1]
                        || (is_capitalised(p.text) && !NEVER.contains(&p.text))))
            {
                // A surname, or a word of a proper noun: kept wherever it is written.
                kept.insert(w.text);
                continue;
            }
            let business = p.text == "s"
                && i >= 2
                && is_capitalised(ws[i - 2].text)
                && cut::between(text, ws[i - 2].end, p.start).chars().count() == 1;
            let before = p.text.to_lowercase();
            if business {
                kept.insert(ws[i - 2].text);
            }
            // "the Rubik's cube": after an article even a possessive is a thing's name; so is a
            // word after "a gold", "the new" ("a gold Jewell").
            let article = matches!(before.as_str(), "a" | "an" | "the");
            const ADJECTIVES: &[&str] = &[
                "gold", "golden", "silver", "diamond", "wooden", "plastic", "metal", "glass",
                "red", "blue", "green", "white", "black", "yellow", "brown", "pink", "purple",
                "big", "small", "large", "new", "old", "little",
            ];
            let after_article = i >= 2
                && ADJECTIVES.contains(&p.text)
                && adjacent(p, w)
                && matches!(ws[i - 2].text.to_lowercase().as_str(), "a" | "an" | "the")
                && adjacent(&ws[i - 2], p);
            if after_article {
                kept.insert(w.text);
                continue;
            }
            if business
                || (adjacent(p, w)
                    && THING_BEFORE.contains(&before.as_str())
                    && (!possessive || article))
            {
                kept.insert(w.text);
                continue;
            }
        }
        // The word after the name, past a possessive's "s".
        let beyond = match next {
            Some(n) if possessive && n.text == "s" && n.start == w.end + 1 => ws.get(i + 2),
            Some(n) if possessive && n.text == "s" && cut::between(text, w.end, n.start) == "’" => {
                ws.get(i + 2)
            }
            _ => next,
        };
        if let Some(n) = beyond {
            let after = cut::between(text, w.end, n.start).trim_start_matches(['\'', '’']);
            let after = after.strip_prefix('s').unwrap_or(after);
            // "Sally's Bakery" is a business, "Tom's restaurant" Tom's; "Hollock valley" a place.
            let place = PLACE_AFTER
                .iter()
                .any(|p| *p == n.text || (!possessive && p.eq_ignore_ascii_case(n.text)));
            if after == " " && place {
                kept.insert(w.text);
                continue;
            }
        }
        // "Gunther, the gorilla", "Alfie the albatross": an animal's name.
        let described = ws[i + 1..]
            .iter()
            .take(3)
            .skip_while(|n| n.text == "the")
            .take(2)
            .any(|n| ANIMAL.contains(&n.text.to_lowercase().as_str()));
        let appositive = next.is_some_and(|n| {
            n.text == "the"
                && cut::between(text, w.end, n.start)
                    .trim_matches([' ', ','])
                    .is_empty()
        });
        if appositive && described {
            kept.insert(w.text);
            continue;
        }
        // "San Diego", "Los Angeles", "Publisher A": an unlisted word right before another
        // capitalised word, or before a one-letter label, is a word of a name of a place or a
        // thing.
        if let Some(n) = next.filter(|n| cut::between(text, w.end, n.start) == " ") {
            let label = n.text.chars().count() == 1 && n.text.starts_with(char::is_uppercase);
            let proper = is_capitalised(n.text) && !NEVER.contains(&n.text);
            if label || (proper && !LISTED.contains_key(w.text)) {
                kept.insert(w.text);
                continue;
            }
        }
        let verb = next
            .filter(|n| cut::between(text, w.end, n.start).trim().is_empty())
            .and_then(|n| ACTS.iter().position(|a| *a == n.text));
        // "Cheese is", "Pizzas does": a common noun opening a sentence. An unlisted word acts
        // only where it is no word the text also writes in lower case, and only a plural-free
        // word acts by a mere "is" or "has".
        let lower = w.text.to_lowercase();
        let common = is_common(&lower_words, &lower);
        // The word that opens a question about someone ("Tyrion changes his mask …", "Jess is
        // trying … She") is that someone, when it is no common noun.
        let opens_story = i == 0
            && text_has_pronoun
            && next.is_some_and(|n| {
                let lower = n.text;
                lower.starts_with(char::is_lowercase)
                    && (["and", "is", "has", "was"].contains(&lower)
                        || ACTS.contains(&lower)
                        || (lower.chars().count() >= 4
                            && (lower.ends_with('s') || lower.ends_with("ed"))))
            });
        // An unlisted word in s ("Termites ate") may be a plural: only a possessive or the
        // opening of a story makes it someone.
        let plural_like = w.text.ends_with('s') && !LISTED.contains_key(w.text);
        let acts = possessive || (!common && (opens_story || (verb.is_some() && !plural_like)));
        let known = LISTED
            .get(w.text)
            .is_some_and(|l| l.drawable || !starts_sentence(text, w.start));
        candidate_at[i] = true;
        let entry = mentions.entry(w.text).or_default();
        entry.0.push((w.start, w.end));
        entry.1 |= known || acts;
    }
    let mut order: Vec<&str> = mentions
        .iter()
        .filter(|(n, (_, person))| *person && !kept.contains(*n))
        .map(|(n, _)| *n)
        .collect();
    // An unlisted word after "to", "than", "his friend" in a story about people is one more
    // of them ("He gives 30 to Nicky").
    if !order.is_empty() {
        for (i, w) in ws.iter().enumerate() {
            let Some((_, person)) = mentions.get_mut(w.text) else {
                continue;
            };
            // "to" marks a person only after giving ("gives 30 to Nicky"), not a place ("a trip
            // to Rochester").
            let before = i.checked_sub(1).map(|p| ws[p].text.to_lowercase());
            let given_to = before.as_deref() == Some("to")
                && ws[i.saturating_sub(8)..i - 1]
                    .iter()
                    .any(|g| GIVING.contains(&g.text.to_lowercase().as_str()));
            let after_person_word = i > 0
                && (given_to
                    || (before.as_deref() != Some("to")
                        && PERSON_BEFORE.contains(&ws[i - 1].text.to_lowercase().as_str())))
                && cut::between(text, ws[i - 1].end, w.start)
                    .trim_matches([' ', ','])
                    .is_empty();
            let lower = w.text.to_lowercase();
            if !*person
                && after_person_word
                && !kept.contains(w.text)
                && !is_common(&lower_words, &lower)
            {
                *person = true;
                order.push(w.text);
            }
        }
    }
    // A capitalised word inside a sentence that is neither a person nor known to be something
    // else: it may be someone the rules do not see, whom renaming the others would leave as is.
    let unsure = mentions
        .iter()
        .filter(|(n, (spans, person))| {
            !*person
                && !kept.contains(*n)
                && spans
                    .iter()
                    .any(|&(start, _)| !starts_sentence(text, start))
        })
        .map(|(n, _)| n.to_string())
        .collect();
    order.sort_by_key(|n| mentions[n].0[0].0);
    order.dedup();
    let named = order
        .into_iter()
        .map(|n| {
            (
                n.to_string(),
                mentions.remove(n).map(|m| m.0).unwrap_or_default(),
            )
        })
        .collect();
    Named {
        people: named,
        titled,
        unsure,
    }
}

/// Whether the list gives `name` a gender and no other reading: a drawable name, not also a
/// common word ("Kim", "Jean" and "Bill" are not).
fn firmly(name: &str) -> bool {
    LISTED
        .get(name)
        .is_some_and(|l| l.drawable && l.gender != Gender::Either)
}

/// Whether `lower` (a capitalised word, lower-cased) is a word the text also writes in lower
/// case, itself or as a plural or singular ("Publisher" beside "publishers").
fn is_common(lower_words: &BTreeSet<&str>, lower: &str) -> bool {
    lower_words.contains(lower)
        || lower_words.contains(lower.trim_end_matches('s'))
        || lower_words.contains(format!("{lower}s").as_str())
}

/// Whether two names are one edit (a letter added, dropped or changed) apart.
fn alike(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => {
            short
                .iter()
                .zip(long.iter())
                .filter(|(x, y)| x != y)
                .count()
                <= 1
        }
        1 => (0..long.len()).any(|skip| {
            long.iter()
                .enumerate()
                .filter(|&(k, _)| k != skip)
                .map(|(_, c)| c)
                .eq(short.iter())
        }),
        _ => false,
    }
}

/// `text` with every person renamed, by a draw from `seed`.
pub fn rename(text: &str, seed: u64) -> Result<Renamed, NamesRefusal> {
    let people = people(text)?;
    let taken: BTreeSet<String> = words(text).iter().map(|w| w.text.to_lowercase()).collect();
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut chosen: Vec<&str> = Vec::new();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut swaps = Vec::new();
    for p in &people {
        let pool: Vec<&str> = DRAWABLE
            .get(&p.gender)
            .into_iter()
            .flatten()
            .copied()
            .filter(|n| !taken.contains(&n.to_lowercase()) && !chosen.contains(n))
            .collect();
        if pool.is_empty() {
            return Err(NamesRefusal::NoNameLeft);
        }
        let new = pool[rng.random_range(0..pool.len())];
        chosen.push(new);
        swaps.push((p.name.clone(), new.to_string()));
        for &(start, end) in &p.mentions {
            let mut replacement = new.to_string();
            // "Chris' book" becomes "Emma's book": a bare apostrophe follows only an s.
            if let Some(a) = apostrophe_after(text, end) {
                let bare = !cut::after(text, end + a).starts_with(|c: char| c.is_alphabetic());
                if bare && !new.ends_with('s') {
                    let mark = cut::between(text, end, end + a);
                    replacement.push_str(mark);
                    replacement.push('s');
                    edits.push((start, end + a, replacement));
                    continue;
                }
            }
            edits.push((start, end, replacement));
        }
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(text.len() + 16);
    let mut at = 0;
    for (start, end, new) in edits {
        out.push_str(cut::between(text, at, start));
        out.push_str(&new);
        at = end;
    }
    out.push_str(cut::after(text, at));
    Ok(Renamed { text: out, swaps })
}

#[cfg(test)]
mod tests;
