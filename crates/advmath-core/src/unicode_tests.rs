//! Property tests over arbitrary Unicode text for every part of the core that reads question,
//! solution or reply text: slot finding, templates and rendering, agreement, noise, the text's
//! constraints and units, program synthesis and answer extraction. Questions hold curly quotes,
//! dashes, accents, currency signs, emoji, combining marks, other digit scripts and NBSP, so
//! no byte position any of them computes may fall inside a character, and a question's template
//! filled with its own numbers must give the question back byte for byte.

use proptest::prelude::*;

use crate::agreement::{is_one, render_agreeing};
use crate::attack::noise::{add_noise, strip_marks, words, NoiseCount};
use crate::extract::{assistant_text, extract, extract_last_number, extract_xie2024, Rule};
use crate::num::Num;
use crate::program::links::describe_links;
use crate::program::Links;
use crate::question::rendering::{format_like, group_thousands, render, render_with, template};
use crate::question::shown::text_constraints;
use crate::question::units::unit_uses;
use crate::question::{
    expression_counts, find_slots, is_percentage, is_plain_cardinal, word_numbers, Slot,
};
use crate::synth::{
    clean_expression, from_gsm8k, from_multiarith, gsm8k_final_answer, gsm8k_steps,
};

/// Characters outside ASCII that GSM8K questions hold (or that look like what they hold): a
/// Cyrillic А, a curly apostrophe, dashes, an accent, currency, other scripts' digits, a
/// combining accent, a family emoji (one grapheme of five code points) and a no-break space.
pub(crate) const UNICODE: &[&str] = &[
    "\u{410}",
    "\u{2019}",
    "\u{201c}",
    "\u{2014}",
    "\u{2013}",
    "\u{2212}",
    "\u{e9}",
    "\u{20ac}",
    "\u{a3}",
    "\u{663}",
    "\u{ff15}",
    "\u{301}",
    "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}",
    "\u{a0}",
    "\u{d7}",
    "\u{f7}",
    "\u{ff5c}",
];

/// Pieces the scanners react to: digits and numbers in every style a slot keeps, number words,
/// units and rate words, `$`, `%`, separators, braces (literal and slot-like), fractions, times of
/// day, and the markers of solutions and replies.
const ASCII: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "12",
    "40",
    "3.50",
    ".5",
    "1,200",
    "2/3",
    "1e3",
    "3rd",
    "5km",
    "8:00",
    "$",
    "%",
    ",",
    ".",
    ". ",
    ";",
    ":",
    "/",
    "-",
    "'",
    " ",
    " ",
    " ",
    "\n",
    "{",
    "}",
    "{{",
    "}}",
    "{0}",
    "{1}",
    "one",
    "two",
    "Three",
    "twenty",
    "half",
    "fourths",
    "percent",
    "days",
    "week",
    "hour",
    "a",
    "per",
    "apples",
    "cookies",
    "am",
    "o'clock",
    "st",
    "th",
    "x",
    "+",
    "*",
    "=",
    "(",
    ")",
    "<<",
    ">>",
    "####",
    "answer is",
    "The final answer is",
    "Answer:",
    "\\boxed{",
    "\\frac{",
    "<|im_start|>assistant\n",
    "<think>",
    "</think>",
    "step",
];

/// Text made of the pieces above and the non-ASCII characters, glued in any order.
fn soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => prop::sample::select(ASCII),
        1 => prop::sample::select(UNICODE),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

/// Any string, or the soup the scanners react to (which random strings rarely hit).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![1 => any::<String>(), 3 => soup()]
}

/// Words, marks and non-ASCII characters without a number among them.
fn filler() -> impl Strategy<Value = String> {
    const WORDS: &[&str] = &[
        " ", " ", " ", "apples", "cookies", "days", "a", "week", "per", "hour", "am", "x", "'",
        ",", ".", ". ", ":", "-", "/", "(", ")", "{", "}", "$", "%", "\n", "st", "th", "=",
    ];
    let piece = prop_oneof![
        2 => prop::sample::select(WORDS),
        1 => prop::sample::select(UNICODE),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|p| p.concat())
}

/// A question with two numbers in any text, and a solution whose step computes with them the
/// way GSM8K writes it (prose, annotation, result, unit, final answer), so that synthesis goes
/// all the way through linking, labels and checking the answer.
fn worked() -> impl Strategy<Value = (String, String, i128)> {
    let number = 2i128..60;
    let op = prop::sample::select(vec!['+', '-', '*']);
    (
        (filler(), number.clone(), filler(), number, filler()),
        (op, filler(), filler()),
    )
        .prop_map(|((s1, a, s2, b, s3), (op, prose, unit))| {
            let r = match op {
                '+' => a + b,
                '-' => a - b,
                _ => a * b,
            };
            let q = format!("{s1} {a} {s2} {b} {s3}");
            let solution = format!("{prose} {a} {op} {b} = <<{a}{op}{b}={r}>>{r} {unit}\n#### {r}");
            (q, solution, r)
        })
}

fn slot_texts<'a>(q: &'a str, slots: &[Slot]) -> Vec<&'a str> {
    slots
        .iter()
        .map(|s| {
            q.get(s.start..s.end)
                .expect("a slot spans whole characters")
        })
        .collect()
}

/// Every value a slot may take in a variant, in its original's style.
fn new_values(slots: &[Slot], seed: i128) -> Vec<String> {
    slots
        .iter()
        .enumerate()
        .map(|(i, s)| format_like(Num::int(seed + i as i128 * 7), s))
        .collect()
}

proptest! {
    #[test]
    fn slots_span_whole_characters_in_order(q in text()) {
        let slots = find_slots(&q);
        let mut end = 0;
        for s in &slots {
            prop_assert!(end <= s.start && s.start < s.end && s.end <= q.len(), "{slots:?}");
            prop_assert!(q.is_char_boundary(s.start) && q.is_char_boundary(s.end));
            end = s.end;
        }
        let _ = expression_counts(&q, &slots);
        let _ = word_numbers(&q);
        for (i, s) in slots.iter().enumerate() {
            let _ = is_plain_cardinal(&q, &slots, i);
            let _ = is_percentage(&q, s);
        }
    }

    #[test]
    fn a_template_filled_with_its_own_numbers_is_the_question(q in text()) {
        let slots = find_slots(&q);
        let t = template(&q, &slots);
        let own: Vec<String> = slot_texts(&q, &slots).into_iter().map(String::from).collect();
        prop_assert_eq!(render(&t, &own), q.clone());
        // No slot changes between one and more, so agreement changes nothing either.
        let was_one: Vec<bool> = own.iter().map(|t| is_one(t)).collect();
        prop_assert_eq!(render_agreeing(&t, &own, &was_one, &q), q);
    }

    #[test]
    fn rendering_new_numbers_never_panics(q in text(), seed in 0i128..3) {
        let slots = find_slots(&q);
        let t = template(&q, &slots);
        let values = new_values(&slots, seed);
        let rendered = render(&t, &values);
        // Each count flips between one and more, so every noun after a slot is looked at.
        let was_one: Vec<bool> = values.iter().map(|v| !is_one(v)).collect();
        let agreeing = render_agreeing(&t, &values, &was_one, &q);
        // The text around the numbers stays as it was.
        let mut expected = String::new();
        let mut pos = 0;
        for (s, v) in slots.iter().zip(&values) {
            expected.push_str(q.get(pos..s.start).expect("slots in order"));
            expected.push_str(v);
            pos = s.end;
        }
        expected.push_str(q.get(pos..).expect("the last slot ends in the text"));
        prop_assert_eq!(&rendered, &expected);
        if slots.is_empty() {
            prop_assert_eq!(&agreeing, &q);
        }
        for v in &values {
            let _ = group_thousands(v);
        }
    }

    #[test]
    fn any_template_renders_without_panic(
        t in text(),
        values in prop::collection::vec(text(), 0..4),
        was_one in prop::collection::vec(any::<bool>(), 0..4),
        question in text(),
        skip in 0usize..8,
    ) {
        let _ = render(&t, &values);
        // A callback that claims to have written more of the rest than there is, or part of a
        // character, must not make the renderer cut a character in two.
        let _ = render_with(&t, &values, |_, rest, _| skip.min(rest.len()));
        let _ = render_agreeing(&t, &values, &was_one, &question);
        let _ = group_thousands(&t);
    }

    #[test]
    fn noise_only_adds_marks_to_any_text(
        q in text(),
        p in prop::sample::select(vec![10u32, 30, 50]),
        seed: u64,
        mode in prop::sample::select(vec![NoiseCount::Floor, NoiseCount::Round, NoiseCount::Randint]),
    ) {
        let noisy = add_noise(&q, p, mode, seed);
        prop_assert_eq!(strip_marks(&noisy), strip_marks(&q));
        prop_assert!(words(&noisy).len() >= words(&q).len());
    }

    #[test]
    fn constraints_and_units_never_panic(q in text()) {
        let slots = find_slots(&q);
        for c in text_constraints(&q, &slots) {
            let (a, b) = c.slots();
            prop_assert!((a as usize) < slots.len() && b.is_none_or(|b| (b as usize) < slots.len()));
        }
        for (slot, _) in unit_uses(&q, &slots) {
            prop_assert!((slot as usize) < slots.len());
        }
    }

    #[test]
    fn extraction_reads_a_number_of_the_reply(r in text()) {
        let reply = assistant_text(&r);
        for e in [extract(&r), extract_last_number(&r)] {
            prop_assert_eq!(e.value.is_none(), e.rule == Rule::Miss);
            if let Some(t) = &e.text {
                prop_assert!(reply.contains(t.as_str()), "{t:?} not in {reply:?}");
            }
        }
        let _ = extract_xie2024(&r);
    }

    #[test]
    fn synthesis_never_panics(q in text(), solution in text(), gold in 0i128..200) {
        let slots = find_slots(&q);
        let _ = gsm8k_steps(&solution);
        let _ = gsm8k_final_answer(&solution);
        let _ = clean_expression(&solution);
        let all = Links {
            number_words: true,
            percentages: true,
            fractions: true,
            unit_lengths: true,
            factor_ones: true,
            halves: true,
        };
        for links in [Links::DIGITS, all] {
            let _ = from_gsm8k(&q, &slots, &solution, Num::int(gold), links);
        }
    }

    #[test]
    fn synthesis_of_a_worked_step_never_panics((q, solution, r) in worked()) {
        let slots = find_slots(&q);
        let values: Vec<Num> = slots.iter().map(|s| s.value).collect();
        for links in [Links::DIGITS, Links::parse("number-words,percentages,fractions").unwrap()] {
            if let Ok(program) = from_gsm8k(&q, &slots, &solution, Num::int(r), links) {
                let _ = describe_links(&program, &q, &slots);
                prop_assert!(program.eval(&values).is_ok_and(|v| v.eq_num(Num::int(r))));
            }
        }
    }

    #[test]
    fn multiarith_alignments_never_panic(
        q in text(),
        equation in "X=\\(\\(?[0-9]{1,3}\\.0[-+*/][0-9]{1,3}\\.0\\)?\\)",
        alignments in prop::collection::vec(0usize..120, 0..3),
    ) {
        let slots = find_slots(&q);
        let _ = from_multiarith(&q, &slots, &equation, &alignments, Num::int(1), Links::DIGITS);
    }
}

/// GSM8K train's question whose first letter is a Cyrillic А (U+0410), which looks like a Latin
/// A and is two bytes long.
const SENIOR_CENTER: &str = "\u{410} Senior Center is hosting a bingo night. $2,400 in prize money will be given away. The first winner of the night will receive a third of the money. The next ten winners will each receive a 10th of the remaining amount. How many dollars will each of the next ten winners receive?";

#[test]
fn a_question_opening_with_a_cyrillic_letter_renders_back_and_with_new_numbers() {
    let q = SENIOR_CENTER;
    let slots = find_slots(q);
    assert_eq!(slot_texts(q, &slots), ["2,400", "ten", "ten"]);
    let t = template(q, &slots);
    assert!(t.starts_with("\u{410} Senior Center is hosting a bingo night. ${0} in prize"));
    let own: Vec<String> = slot_texts(q, &slots)
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(render(&t, &own), q);
    let values = vec![
        format_like(Num::int(3600), &slots[0]),
        format_like(Num::int(12), &slots[1]),
        format_like(Num::int(12), &slots[2]),
    ];
    let rendered = render(&t, &values);
    assert_eq!(
        rendered,
        q.replace("$2,400", "$3,600").replace("ten", "twelve")
    );
    assert!(rendered.starts_with("\u{410} Senior Center"));
    let was_one = vec![false; 3];
    assert_eq!(render_agreeing(&t, &values, &was_one, q), rendered);
    let solution = "The first winner will receive 2400 / 3 = $<<2400/3=800>>800.\nThere will be 2400 - 800 = $<<2400-800=1600>>1600 left.\nThe other winners will receive 1600 / 10 = $<<1600/10=160>>160 each.\n#### 160";
    let program = from_gsm8k(q, &slots, solution, Num::int(160), Links::DIGITS).unwrap();
    assert_eq!(program.variable_slots(), vec![0]);
}
