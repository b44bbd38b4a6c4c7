//! The properties the fuzz targets under `fuzz/` assert, one function per target, each taking the
//! fuzzer's raw bytes. The targets call these and nothing else, so they compile against the same
//! API as the rest of the core and cannot fall behind it; a stable-toolchain harness in
//! `cargo test` runs every function over a corpus of real and mutated questions, programs and
//! replies. A function returns normally when the property holds and panics with a message
//! naming the input when it does not (a panic inside the core counts the same way).
//!
//! Public only for the fuzz targets: nothing else in advmath calls these.

use crate::agreement::{is_one, render_agreeing};
use crate::attack::noise::{add_noise, strip_marks, words, NoiseCount};
use crate::attack::text::missing::withhold;
use crate::extract::{abstains, extract as extract_answer, is_correct_exact, Extracted};
use crate::extract::{assistant_text, extract_last_number, extract_xie2024, is_correct, Rule};
use crate::num::Num;
use crate::program::{validate_program, AlignMode, Links, Node, Program};
use crate::question::rendering::{format_like, render, template};
use crate::question::{find_slots, word_numbers, Slot};

#[cfg(test)]
mod corpus_tests;

/// A check: returns when the property holds for the input, panics when it does not.
pub type Check = fn(&[u8]);

/// Every check, by the name of its fuzz target.
pub const CHECKS: [(&str, Check); 6] = [
    ("extract", extract),
    ("number", number),
    ("program", program),
    ("question", question),
    ("noise", noise),
    ("agreement", agreement),
];

/// Any text a model may write: extraction never panics, a miss carries no value (and only a miss
/// does), a found number is written in the assistant's text, and a found value is graded
/// without panicking and is exactly correct against itself.
pub fn extract(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let reply = assistant_text(&text);
    for (name, found) in [
        ("extract", extract_answer(&text)),
        ("extract_last_number", extract_last_number(&text)),
    ] {
        check_extracted(name, &text, &found);
        assert_eq!(
            found.text.is_some(),
            found.value.is_some(),
            "{name}: a found number is written somewhere, a miss nowhere, in {text:?}: {found:?}"
        );
        if let Some(written) = &found.text {
            assert!(
                !written.is_empty() && reply.contains(written.as_str()),
                "{name}: {written:?} is not in the assistant's text {reply:?} of {text:?}"
            );
        }
    }
    check_extracted("extract_xie2024", &text, &extract_xie2024(&text));
    if let Some(a) = abstains(&text) {
        assert!(
            reply.contains(a.statement.as_str()),
            "abstains: {:?} is not in the assistant's text {reply:?} of {text:?}",
            a.statement
        );
    }
}

fn check_extracted(name: &str, text: &str, found: &Extracted) {
    assert_eq!(
        found.rule == Rule::Miss,
        found.value.is_none(),
        "{name}: only a miss has no value, in {text:?}: {found:?}"
    );
    if let Some(v) = found.value {
        let _ = is_correct(Some(v), Num::int(42));
        assert!(
            is_correct_exact(Some(v), v),
            "{name}: {v:?} is not exactly itself, in {text:?}"
        );
    }
}

/// Any decimal text: a parsed number's canonical text parses back to it exactly when it has at
/// most 12 decimal places, and to it rounded to 6 places otherwise, as `Num`'s `Display` says
/// (only a value whose rounding does not fit 38 digits is printed through f64, approximately).
pub fn number(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(n) = Num::parse_decimal(text) else {
        return;
    };
    let printed = n.to_string();
    let back = Num::parse_decimal(&printed);
    assert!(
        back.is_some(),
        "{text:?} printed as {printed:?}, which does not parse"
    );
    let expected = if n.decimal_parts(12).is_some() {
        Some(n)
    } else {
        n.round(6).ok().filter(|r| r.decimal_parts(6).is_some())
    };
    if expected.is_some() {
        assert_eq!(back, expected, "{text:?} printed as {printed:?}");
    }
}

/// Any program and question (the question first, then a NUL, then the program; without a NUL
/// the whole text is the program of an empty question): parsing, alignment and validation
/// reject or accept, never panic, in either alignment mode with the paper's links or all of
/// them; an accepted program is a tree over the question's slots, evaluates on the question's
/// own numbers and survives a JSON round trip.
pub fn program(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (question, source) = text.split_once('\0').unwrap_or(("", text));
    let slots = find_slots(question);
    let every_link = Links::parse(&Links::NAMES.join(",")).expect("the names parse");
    for mode in [AlignMode::Given, AlignMode::Synthesised] {
        for links in [Links::DIGITS, every_link] {
            if let Ok(program) = validate_program(source, question, &slots, None, mode, links) {
                check_accepted(&program, &slots, text);
            }
        }
    }
}

fn check_accepted(program: &Program, slots: &[Slot], text: &str) {
    let n = program.nodes.len();
    assert!(
        (program.answer as usize) < n,
        "the answer is no node, for {text:?}: {program:?}"
    );
    for (i, node) in program.nodes.iter().enumerate() {
        let children: &[u32] = match node {
            Node::Leaf { slot } => {
                assert!(
                    (*slot as usize) < slots.len(),
                    "leaf of slot {slot} with {} slots, for {text:?}",
                    slots.len()
                );
                &[]
            }
            Node::Const { .. } => &[],
            Node::Bin { lhs, rhs, .. } => &[*lhs, *rhs],
            Node::Neg { arg } => std::slice::from_ref(arg),
            Node::Call { args, .. } => args,
        };
        assert!(
            children.iter().all(|&c| (c as usize) < i),
            "node {i} is not after its children, for {text:?}: {program:?}"
        );
    }
    for t in &program.ties {
        assert!(
            (t.slot as usize) < slots.len() && (t.follows as usize) < slots.len(),
            "tie {t:?} with {} slots, for {text:?}",
            slots.len()
        );
    }
    let mut values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    program.apply_ties(&mut values);
    assert!(
        program.eval_value(&values).is_ok(),
        "an accepted program does not evaluate on its question's numbers, for {text:?}: {program:?}"
    );
    let json = program.to_json();
    let back = Program::from_json(&json).expect("own JSON reads back");
    assert_eq!(back.to_json(), json, "JSON round trip, for {text:?}");
    assert_eq!(&back, program, "JSON round trip, for {text:?}");
}

/// Any question text: its number slots are found without panicking, in order, each spanning
/// whole characters, and filling the template with the slots' own texts gives the question back.
/// Taking any one slot out (`missing`) never panics, and where it is taken out the text holds one
/// number fewer.
pub fn question(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let slots = find_slots(&text);
    let own = own_texts(&text, &slots);
    assert_eq!(
        render(&template(&text, &slots), &own),
        text,
        "template filled with its own slots, for {slots:?}"
    );
    for s in &slots {
        let _ = format_like(s.value, s);
    }
    let _ = word_numbers(&text);
    for i in 0..slots.len() {
        let needed: Vec<bool> = (0..slots.len()).map(|j| j == i).collect();
        if let Ok(w) = withhold(&text, &slots, &needed, fnv1a(data)) {
            assert_eq!(w.slot, i, "took out another slot of {text:?}");
            assert_eq!(
                find_slots(&w.text).len() + 1,
                slots.len(),
                "slot {i} of {text:?} taken out as {:?}",
                w.text
            );
        }
    }
}

/// The slots' texts, after checking that the slots are in order and each spans whole characters.
fn own_texts(text: &str, slots: &[Slot]) -> Vec<String> {
    let mut end = 0;
    slots
        .iter()
        .map(|s| {
            assert!(
                end <= s.start && s.start < s.end,
                "slots out of order or empty in {text:?}: {slots:?}"
            );
            end = s.end;
            text.get(s.start..s.end)
                .unwrap_or_else(|| panic!("slot {s:?} cuts a character of {text:?}"))
                .to_string()
        })
        .collect()
}

/// Any question text: punctuation noise only adds marks. At each rate and count rule, the noisy
/// text's words without standalone marks are the question's words without them, each insertion
/// adds one word and two bytes, their number follows the count rule, and the same seed gives the
/// same text.
pub fn noise(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let n = words(&text).len();
    let seed = fnv1a(data);
    let cases = [
        (10, NoiseCount::Floor),
        (30, NoiseCount::Round),
        (50, NoiseCount::Randint),
        (100, NoiseCount::Floor),
    ];
    for (percent, mode) in cases {
        let noisy = add_noise(&text, percent, mode, seed);
        assert_eq!(
            strip_marks(&noisy),
            strip_marks(&text),
            "noise at {percent}% ({mode:?}) changed a word of {text:?}: {noisy:?}"
        );
        let inserted = words(&noisy).len() - n;
        assert_eq!(
            noisy.len(),
            text.len() + 2 * inserted,
            "noise at {percent}% ({mode:?}) added more than marks to {text:?}: {noisy:?}"
        );
        let floor = n * percent as usize / 100;
        let counted = match mode {
            NoiseCount::Floor => inserted == floor,
            NoiseCount::Round => inserted.abs_diff(floor) <= 1 && inserted <= n,
            NoiseCount::Randint => (1..=n).contains(&inserted),
        };
        assert!(
            counted,
            "{inserted} marks at {percent}% ({mode:?}) in {n} words of {text:?}"
        );
    }
    assert_eq!(
        add_noise(&text, 30, NoiseCount::Randint, seed),
        add_noise(&text, 30, NoiseCount::Randint, seed),
        "the same seed gave two texts for {text:?}"
    );
}

/// Any question text: rendering with agreement and the question's own numbers gives the question
/// back (no count crossed one, so no noun changes), and rendering with every count crossing one
/// never panics.
pub fn agreement(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let slots = find_slots(&text);
    let own = own_texts(&text, &slots);
    let t = template(&text, &slots);
    let was_one: Vec<bool> = own.iter().map(|s| is_one(s)).collect();
    assert_eq!(
        render_agreeing(&t, &own, &was_one, &text),
        text,
        "agreement changed a question rendered with its own numbers"
    );
    let crossed: Vec<String> = own
        .iter()
        .map(|s| if is_one(s) { "5" } else { "1" }.to_string())
        .collect();
    let _ = render_agreeing(&t, &crossed, &was_one, &text);
}

/// A seed for the noise that follows the input, so a fuzzer's finding replays.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
