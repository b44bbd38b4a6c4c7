//! The text attacks beyond numbers, after GSM-Symbolic and GSM-NoOp (Mirzadeh et al., 2024):
//! [`names`] gives every person the question names a new name, and [`noop`] adds one sentence
//! that mentions a quantity the answer never reads. Neither changes a number of the question, so
//! the gold answer is the original's (or the numeric variant's, when composed with M1–M3).
//!
//! Both read the text as words with byte spans ([`words`]) and sentences ([`sentences`]), cut on
//! character boundaries only, so any Unicode passes through unchanged.

mod lexicon;
pub mod missing;
pub mod names;
pub mod noop;

use crate::cut;
use crate::seed::mix;
use crate::vocab::TextEdit;

/// A question after its text attack: the new text, and the no-op's number when one was added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edited {
    pub text: String,
    pub distractor: Option<i128>,
}

/// `text` with `edit` made, drawn from `seed`: the names first, then the no-op sentence (which
/// then speaks of the new names). The refusal names why the question takes no such edit (the
/// `generation_stats.refused` values).
pub fn apply(edit: TextEdit, text: &str, seed: u64) -> Result<Edited, &'static str> {
    let mut out = Edited {
        text: text.to_string(),
        distractor: None,
    };
    if edit.names {
        out = renamed(&out.text, seed)?;
    }
    if edit.noop {
        out = with_noop(&out.text, seed)?;
    }
    Ok(out)
}

/// `text` with every person it names renamed, drawn from `seed` (a [`names::NamesRefusal`]'s
/// name when it takes no such edit).
pub fn renamed(text: &str, seed: u64) -> Result<Edited, &'static str> {
    Ok(Edited {
        text: names::rename(text, seed).map_err(|e| e.name())?.text,
        distractor: None,
    })
}

/// `text` with one no-op sentence, drawn from `seed` (a [`noop::NoopRefusal`]'s name when it
/// takes no such edit).
pub fn with_noop(text: &str, seed: u64) -> Result<Edited, &'static str> {
    // Its own stream, so that renaming the people first does not change which sentence is drawn.
    let with = noop::insert_noop(text, mix(seed ^ NOOP_STREAM)).map_err(|e| e.name())?;
    Ok(Edited {
        text: with.text,
        distractor: Some(with.number),
    })
}

/// Mixed into a variant's seed for its no-op draw.
const NOOP_STREAM: u64 = 0x6e6f_6f70;

/// One word of a text: a run of letters, with its byte span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word<'t> {
    pub start: usize,
    pub end: usize,
    pub text: &'t str,
}

/// The words of `text`: maximal runs of alphabetic characters (an apostrophe splits "Ann's"
/// into "Ann" and "s").
pub fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphabetic(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(Word {
                    start: s,
                    end: i,
                    text: cut::between(text, s, i),
                });
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(Word {
            start: s,
            end: text.len(),
            text: cut::after(text, s),
        });
    }
    out
}

/// Byte spans of the sentences of `text`, in order; each ends just after its `.`, `!` or `?`
/// (a mark followed by a space or the end; "3.50" and `."` end nothing) or at the end
/// of the text.
pub fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let next = chars.peek().map(|&(_, n)| n);
        // "Mr. Marcellus", "Dr. Wertz", "John A. Smith": a title or an initial ends nothing.
        let word_before = cut::before(text, i)
            .rsplit(|c: char| !c.is_alphabetic())
            .next()
            .unwrap_or("");
        let abbreviation = c == '.'
            && (ABBREVIATIONS.contains(&word_before)
                || (word_before.chars().count() == 1
                    && word_before.starts_with(char::is_uppercase)));
        if next.is_none_or(|n| n.is_whitespace()) && !abbreviation {
            let end = i + c.len_utf8();
            if !cut::between(text, start, end).trim().is_empty() {
                out.push((start, end));
            }
            start = end;
        }
    }
    if !cut::after(text, start).trim().is_empty() {
        out.push((start, text.len()));
    }
    out
}

/// Words that a full stop abbreviates without ending the sentence.
const ABBREVIATIONS: &[&str] = &[
    "Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "Prof", "Mt", "vs", "etc", "Inc", "Ltd", "Co", "No",
    "Jan", "Feb", "Aug", "Sept", "Oct", "Nov", "Dec",
];

/// Whether any word of `text` starts with one of `stems` (lower case): "old" finds "older",
/// "cousin" finds "cousins".
pub fn mentions_any(text: &str, stems: &[&str]) -> bool {
    words(text).iter().any(|w| {
        let lower = w.text.to_lowercase();
        stems.iter().any(|s| lower.starts_with(s))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_edits_rename_first_and_keep_every_number() {
        let text = "Natalia sold 48 clips to her friends. How many clips did Natalia sell?";
        let both = apply(TextEdit::BOTH, text, 5).unwrap();
        let names = apply(TextEdit::NAMES, text, 5).unwrap();
        assert!(!both.text.contains("Natalia"));
        assert!(both.text.contains("48 clips"));
        let k = both.distractor.unwrap();
        let written = [k.to_string(), noop::number_text(k)];
        assert!(
            written.iter().any(|w| both.text.contains(w.as_str())),
            "{}",
            both.text
        );
        assert_eq!(names.distractor, None);
        assert_eq!(
            apply(TextEdit::NAMES, "What is 5 times 7?", 0),
            Err("no_name")
        );
    }

    #[test]
    fn words_and_sentences_keep_unicode_whole() {
        let text = "Zoë’s café sells 3.50 cakes. Then? “Yes.” Done";
        let titled = "Mr. Lee met Dr. A. Wertz. Then they ate.";
        let s: Vec<&str> = sentences(titled)
            .iter()
            .map(|&(a, b)| cut::between(titled, a, b))
            .collect();
        assert_eq!(s, ["Mr. Lee met Dr. A. Wertz.", " Then they ate."]);
        let w: Vec<&str> = words(text).iter().map(|w| w.text).collect();
        assert_eq!(
            w,
            ["Zoë", "s", "café", "sells", "cakes", "Then", "Yes", "Done"]
        );
        let s: Vec<&str> = sentences(text)
            .iter()
            .map(|&(a, b)| cut::between(text, a, b))
            .collect();
        assert_eq!(
            s,
            ["Zoë’s café sells 3.50 cakes.", " Then?", " “Yes.” Done"]
        );
        assert!(mentions_any(text, &["caf"]));
        assert!(!mentions_any(text, &["tea"]));
    }
}
