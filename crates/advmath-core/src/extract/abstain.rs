//! Abstention: whether a reply's last word is that the question cannot be answered.
//!
//! A model asked a question with a needed number taken out (GSM-Plus's "critical thinking") is
//! right only if it says so. Replies mention missing information all the time on the way to a
//! number ("the distance is not given, so we assume ..."), so a phrase alone is not an abstention:
//! the reply abstains when a statement that the question cannot be answered comes after its
//! commitment to a number, or when it commits to no number at all after such a statement. The
//! commitment is the one [`super::extract`] reads (a stated answer, else the last number), so a
//! reply that abstains and then "assumes" a value and states an answer is read as answering, as
//! a grader must: it gave a number.
//!
//! The statements are closed lists of words (below), not a model; `reports/abstention.md` gives
//! the fixture of real replies they are measured on and the replies they still misread.

use crate::cut;

use super::{assistant_text, find_commitment, Rule};

/// Why a reply was read as abstaining: the statement, as written, and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abstention {
    pub statement: String,
    pub start: usize,
}

/// Words that, before a verb of finding out, say it cannot be done ("cannot determine").
const UNABLE: &[&[&str]] = &[
    &["cannot"],
    &["can't"],
    &["can", "not"],
    &["could", "not"],
    &["couldn't"],
    &["unable", "to"],
    &["impossible", "to"],
    &["not", "possible", "to"],
    &["no", "way", "to"],
    &["not", "able", "to"],
];

/// Words allowed between the negation and its verb ("cannot be uniquely determined").
const FILLER: &[&str] = &[
    "be",
    "accurately",
    "exactly",
    "definitively",
    "precisely",
    "uniquely",
    "directly",
    "fully",
    "really",
    "actually",
    "yet",
];

/// Verbs of finding out an answer.
const FIND: &[&str] = &[
    "determine",
    "determined",
    "answer",
    "answered",
    "calculate",
    "calculated",
    "compute",
    "computed",
    "find",
    "found",
    "solve",
    "solved",
    "know",
    "known",
    "tell",
    "conclude",
    "give",
    "provide",
];

/// Statements of missing information, as word sequences; `*` matches any one word.
const LACKING: &[&[&str]] = &[
    &["not", "enough", "information"],
    &["n't", "enough", "information"],
    &["not", "*", "enough", "information"],
    &["n't", "*", "enough", "information"],
    &["not", "enough", "info"],
    &["not", "enough", "data"],
    &["not", "enough", "details"],
    &["insufficient", "information"],
    &["insufficient", "data"],
    &["insufficient", "details"],
    &["missing", "information"],
    &["information", "is", "missing"],
    &["information", "is", "insufficient"],
    &["information", "is", "incomplete"],
    &["lacks", "the", "information"],
    &["lack", "of", "information"],
    &["question", "is", "incomplete"],
    &["problem", "is", "incomplete"],
    &["question", "is", "unanswerable"],
    &["problem", "is", "unanswerable"],
    &["cannot", "be", "answered"],
    &["without", "knowing"],
    &["without", "additional", "information"],
    &["without", "more", "information"],
    &["without", "further", "information"],
    &["without", "further", "details"],
    &["without", "additional", "details"],
];

/// The statement that the question cannot be answered, when it is the reply's last word (see
/// the module documentation).
pub fn abstains(response: &str) -> Option<Abstention> {
    let text = assistant_text(response);
    let commitment = find_commitment(&text);
    if let Some((_, token)) = commitment {
        // From the last "=" before the number: "S + C = 42 + 88 = 130" names its terms first.
        let rest = answer_side(&text, token.start);
        if in_unknowns(rest) {
            return Some(Abstention {
                statement: rest.trim().to_string(),
                start: token.start,
            });
        }
    }
    // Only a statement that ends after the committed number can matter (one before it is taken
    // back by it), and no statement is 400 bytes long: the words before that are not read.
    let from = commitment.map_or(0, |(_, token)| word_start_before(&text, token.start, 400));
    let last = statements(&text, from).pop()?;
    if let Some((rule, token)) = commitment {
        let committed_after = token.start >= last.start + last.statement.len();
        let explicit = rule != Rule::LastNumber;
        // A stated answer after the statement is a commitment; a stated answer before it is
        // taken back. The last number of the reply stands only when it comes after.
        if committed_after || (!explicit && token.start >= last.start) {
            return None;
        }
    }
    Some(last)
}

/// The line holding byte `i`, from its last `=` before `i` (or its start) to its end.
fn answer_side(text: &str, i: usize) -> &str {
    let head = cut::before(text, i);
    let line_start = head.rfind('\n').map_or(0, |k| k + 1);
    let start = cut::after(head, line_start)
        .rfind('=')
        .map_or(line_start, |k| line_start + k + 1);
    let end = cut::after(text, i).find('\n').map_or(text.len(), |k| i + k);
    cut::between(text, start, end)
}

/// Whether a reply's answer, on its line after the last `=` before it, is written in terms of an
/// unknown ("80 + 60 + A", "32 + 8t", "1115 - C", `4750}{\text{number of students}}`): a single
/// letter that is an operand of `+ - * /`, or follows a digit where such an operator is, or
/// words as a fraction's part. "5 x 3" writes a product, "2h", "450°C" and "km/h" units, and
/// `**` is Markdown: none is an unknown.
fn in_unknowns(rest: &str) -> bool {
    if rest.contains("\\frac{\\text") || rest.contains("}{\\text") {
        return true;
    }
    let chars: Vec<char> = without_tags(&rest.replace("**", "")).chars().collect();
    let is_op = |c: char| matches!(c, '+' | '-' | '*' | '/' | '\u{d7}' | '\u{2212}');
    let has_op = chars.iter().any(|&c| is_op(c));
    let near = |from: usize, step: isize| {
        let mut k = from as isize + step;
        while k >= 0 && (k as usize) < chars.len() && chars[k as usize] == ' ' {
            k += step;
        }
        usize::try_from(k).ok().and_then(|k| chars.get(k).copied())
    };
    (0..chars.len()).any(|i| {
        let c = chars[i];
        let alone = c.is_ascii_alphabetic()
            && !chars.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric())
            && (i == 0 || !chars[i - 1].is_ascii_alphabetic() && chars[i - 1] != '\\');
        if !alone || !has_op {
            return false;
        }
        let (before, after) = (near(i, -1), near(i, 1));
        let times = matches!(c, 'x' | 'X')
            && before.is_some_and(|b| b.is_ascii_digit())
            && after.is_some_and(|a| a.is_ascii_digit() || a == '$');
        // "km/h", "m/s": a slash between letters is "per".
        let per = i >= 2 && chars[i - 1] == '/' && chars[i - 2].is_ascii_alphabetic()
            || chars.get(i + 1) == Some(&'/')
                && chars.get(i + 2).is_some_and(char::is_ascii_alphabetic);
        // "2h", "5m" write a unit; "8t" and "8x" are more often an unknown.
        let after_digit = i > 0 && chars[i - 1].is_ascii_digit();
        if after_digit && "hmsgklLKMBd".contains(c) || i > 0 && chars[i - 1] == '\u{b0}' {
            return false;
        }
        !times && !per && (before.is_some_and(is_op) || after.is_some_and(is_op) || after_digit)
    })
}

/// `text` without markup tags ("<b>4 shelves</b>", "</s>"), whose slash and letters are no
/// division by an unknown.
fn without_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(cut::before(rest, open));
        let after = cut::after(rest, open + 1);
        let name = after.strip_prefix('/').unwrap_or(after);
        let letters = name
            .char_indices()
            .find(|(_, c)| !c.is_ascii_alphabetic())
            .map_or(name.len(), |(i, _)| i);
        if letters > 0 && cut::after(name, letters).starts_with('>') {
            rest = cut::after(name, letters + 1);
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The start of the word at or before `back` bytes before `i` (0 when there is none): a place to
/// read words from without cutting one.
fn word_start_before(text: &str, i: usize, back: usize) -> usize {
    cut::before(text, i.saturating_sub(back))
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(k, c)| k + c.len_utf8())
}

/// A word of the text and its byte span, lower case; "can't" and "n't" stay one word.
struct Word {
    text: String,
    start: usize,
    end: usize,
}

fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    let push = |s: usize, e: usize, out: &mut Vec<Word>| {
        let w = cut::between(text, s, e)
            .to_lowercase()
            .replace('\u{2019}', "'");
        // "don't enough" never occurs; "isn't enough" and "doesn't" end in "n't".
        let w = match w.strip_suffix("n't") {
            Some(stem) if !matches!(stem, "ca" | "could" | "") => "n't".to_string(),
            _ => w,
        };
        out.push(Word {
            text: w,
            start: s,
            end: e,
        });
    };
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || c == '\'' || c == '\u{2019}';
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                push(s, i, &mut out);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        push(s, text.len(), &mut out);
    }
    out
}

fn matches_at(words: &[Word], at: usize, pattern: &[&str]) -> bool {
    pattern.len() <= words.len() - at
        && pattern
            .iter()
            .zip(&words[at..])
            .all(|(p, w)| *p == "*" || *p == w.text)
}

/// Every statement that the question cannot be answered, in order.
fn statements(text: &str, from: usize) -> Vec<Abstention> {
    let words: Vec<Word> = words(cut::after(text, from))
        .into_iter()
        .map(|w| Word {
            start: w.start + from,
            end: w.end + from,
            ..w
        })
        .collect();
    let mut found = Vec::new();
    for at in 0..words.len() {
        let end = UNABLE
            .iter()
            .filter(|p| matches_at(&words, at, p))
            .find_map(|p| {
                let verb = (at + p.len()..words.len())
                    .take(4)
                    .find(|&k| !FILLER.contains(&words[k].text.as_str()))?;
                FIND.contains(&words[verb].text.as_str()).then_some(verb)
            })
            .or_else(|| {
                LACKING
                    .iter()
                    .find(|p| matches_at(&words, at, p))
                    .map(|p| at + p.len() - 1)
            });
        if let Some(end) = end {
            found.push(Abstention {
                statement: cut::between(text, words[at].start, words[end].end).to_string(),
                start: words[at].start,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::abstains;

    #[test]
    fn a_closing_statement_abstains() {
        let a = abstains(
            "Megan has 40 stickers. Without knowing how many she gave away, we cannot determine \
             how many she has left.",
        )
        .unwrap();
        assert_eq!(a.statement, "cannot determine");
    }

    #[test]
    fn a_stated_answer_after_the_statement_is_a_commitment() {
        assert_eq!(
            abstains(
                "The price is not given, so we cannot determine it exactly. Assuming $2, the \
                 total is 3 * 2 = 6. The final answer is 6."
            ),
            None
        );
    }

    #[test]
    fn a_last_number_after_the_statement_is_an_answer() {
        assert_eq!(
            abstains("We can't find y exactly. If Jack is alone, 700 - 80 = 620 kg."),
            None
        );
    }

    #[test]
    fn a_stated_answer_that_is_no_number_abstains() {
        let a = abstains(
            "She made $80 in all, and it is impossible to determine the lemonade sales. \
             \\boxed{\\text{The final answer is \"not enough information\".}}",
        )
        .unwrap();
        assert_eq!(a.statement, "not enough information");
    }

    #[test]
    fn markup_tags_are_no_unknowns() {
        assert!(abstains(
            "So the shelves = 12 books / 3 books per shelf\n= <b>4 shelves</b>\n\n\
             Therefore, Roger will need <b>4 shelves</b> to store all the books.</s>"
        )
        .is_none());
        assert!(abstains("The total is 80 + 60 + A.</s>").is_some());
    }

    #[test]
    fn missing_as_a_quantity_is_no_statement() {
        assert_eq!(
            abstains("Points missing = 400 - 255 = 145. John is missing $100."),
            None
        );
        assert_eq!(abstains("We cannot have half a person, so 3 people."), None);
    }

    #[test]
    fn an_answer_in_terms_of_an_unknown_abstains() {
        for reply in [
            "Anna's goals are unknown.\n\\[\n\\boxed{80 + 60 + A}\n\\]",
            "The total distance is\n\\[ \\boxed{32 + 8t} \\]",
            "we can only write \\[ \\boxed{\\text{Profit} = 1115 - C} \\]",
            "{The final answer is: ? = 8x/9, x is an integer}",
            "The final answer is:\n\nfinal score = (k * 8) + 8",
            "approximately $\\boxed{\\frac{4750}{\\text{number of graduating students}}}$.",
        ] {
            assert!(abstains(reply).is_some(), "{reply}");
        }
        for reply in [
            "She has 5 x 3 = 15 apples.",
            "The final answer is 2h + 30 minutes = 150 minutes.",
            "Total: 3 + 4 = 7. The answer is 7.",
            "A total of 12 - 5 = 7 pens.",
            "The speed is 120 / 2 = 60 km/h.",
            "{The final answer is}\n\\[ S_{total} + C_{total} = 42 + 88 = 130 \\]",
            "the final answer is: Maggie should set the oven to **450\u{b0}C**.",
        ] {
            assert_eq!(abstains(reply), None, "{reply}");
        }
    }

    #[test]
    fn contractions_and_curly_apostrophes_are_read() {
        assert!(abstains("There isn\u{2019}t enough information to say.").is_some());
        assert!(abstains("We couldn't   determine the total.").is_some());
        assert!(abstains("It cannot be uniquely determined.").is_some());
    }
}
