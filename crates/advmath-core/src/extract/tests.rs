use super::turn::strip_special_tokens;
use super::*;
use proptest::prelude::*;
use rstest::rstest;

fn n(s: &str) -> Num {
    Num::parse_decimal(s).unwrap()
}

#[rstest]
#[case::answer_is("So the answer is 42.", "42", Rule::AnswerIs)]
#[case::answer_is_colon("The answer is: 18 dollars", "18", Rule::AnswerIs)]
#[case::answer_is_dollar("Thus the answer is $1,234.50.", "1234.5", Rule::AnswerIs)]
#[case::answer_is_last("the answer is 3. Wait, the answer is 4.", "4", Rule::AnswerIs)]
#[case::answer_is_beats_final("The final answer is 6. So the answer is 5", "5", Rule::AnswerIs)]
#[case::final_answer(
    "Total: 9 + 3 = 12.\n\n{The final answer is 540.}",
    "540",
    Rule::FinalAnswerIs
)]
#[case::final_answer_boxed("The final answer is: $\\boxed{18}$", "18", Rule::FinalAnswerIs)]
#[case::final_answer_next_lines(
    "The final answer is:\n\\[\n\\boxed{70}\n\\]",
    "70",
    Rule::FinalAnswerIs
)]
#[case::final_answer_equation(
    "The final answer is: 18 (left) + 28 (bought) = 46 apples.",
    "46",
    Rule::FinalAnswerIs
)]
#[case::final_answer_aside(
    "The final answer is 40 (with x = 8) apples.",
    "40",
    Rule::FinalAnswerIs
)]
#[case::final_answer_sentence_skipped(
    "He has 9 apples.\nThe final answer is: Paige has 10 songs after adding 8.",
    "8",
    Rule::LastNumber
)]
#[case::final_answer_template_unfilled(
    "3 + 6 = 9 apples.\nTherefore, the final answer is {The final answer is}.",
    "9",
    Rule::LastNumber
)]
#[case::boxed("so \\boxed{7} and then 8 more words", "7", Rule::Boxed)]
#[case::boxed_last("\\boxed{1} ... \\boxed{2}", "2", Rule::Boxed)]
#[case::boxed_text("\\boxed{18 \\text{ dollars}}", "18", Rule::Boxed)]
#[case::boxed_escaped_dollar("\\boxed{\\$1,200}", "1200", Rule::Boxed)]
#[case::boxed_frac("\\boxed{\\frac{3}{4}}", "0.75", Rule::Boxed)]
#[case::boxed_dfrac("\\boxed{\\dfrac{1}{8}}", "0.125", Rule::Boxed)]
#[case::boxed_equation("\\boxed{3 + 6 = 9}", "9", Rule::Boxed)]
#[case::boxed_percent("\\boxed{20\\%}", "20", Rule::Boxed)]
#[case::hashes("She makes 9 * 2 = 18 dollars.\n#### 18", "18", Rule::Hashes)]
#[case::hashes_heading("#### 4. Compare\nJohn earned 40 more.", "40", Rule::LastNumber)]
#[case::answer_colon("Answer: 42", "42", Rule::AnswerColon)]
#[case::answer_colon_bold("**Answer:** $61 in total, not 22", "61", Rule::AnswerColon)]
#[case::answer_colon_sentence(
    "### Final Answer:\nThe cost after the 30% discount is **$70**.",
    "70",
    Rule::AnswerColon
)]
#[case::last_number("First 3, then 5 apples.", "5", Rule::LastNumber)]
#[case::last_number_list_marker("3 + 6 = 9\n4. Final count of apples", "9", Rule::LastNumber)]
#[case::last_number_step("We got 12.\nStep 5: done", "12", Rule::LastNumber)]
#[case::thousands("It costs 1,234,567 in total", "1234567", Rule::LastNumber)]
#[case::thousands_then_comma("It was 5,000, more or less", "5000", Rule::LastNumber)]
#[case::not_thousands("pick 1,23", "23", Rule::LastNumber)]
#[case::list_of_numbers("the values 1, 2, 3", "3", Rule::LastNumber)]
#[case::negative("The temperature is -3 degrees", "-3", Rule::LastNumber)]
#[case::negative_money("{The final answer is -$8.}", "-8", Rule::FinalAnswerIs)]
#[case::unicode_minus("the answer is \u{2212}7", "-7", Rule::AnswerIs)]
#[case::subtraction_not_negative("10-3", "3", Rule::LastNumber)]
#[case::decimal("about 2.50 miles", "2.5", Rule::LastNumber)]
#[case::trailing_period("The answer is 7.", "7", Rule::AnswerIs)]
#[case::fraction("The answer is 3/4 of a cup", "0.75", Rule::AnswerIs)]
#[case::mixed_number("The answer is 2 1/2 hours", "2.5", Rule::AnswerIs)]
#[case::frac("The answer is \\frac{10}{4}", "2.5", Rule::AnswerIs)]
#[case::latex_mixed_number("{The final answer is} {17\\frac{1}{2}}", "17.5", Rule::FinalAnswerIs)]
#[case::two_numbers_not_mixed("The answer is 3 12/4", "3", Rule::AnswerIs)]
#[case::percent("The answer is 25%", "25", Rule::AnswerIs)]
#[case::units("The answer is 12 km/h", "12", Rule::AnswerIs)]
#[case::hedge("The answer is approximately 3.33 inches", "3.33", Rule::AnswerIs)]
#[case::zero_is_a_value("The answer is 0", "0", Rule::AnswerIs)]
#[case::calculator("so 16 - 3 = <<16-3=13>>13 eggs", "13", Rule::LastNumber)]
fn extracts(#[case] response: &str, #[case] value: &str, #[case] rule: Rule) {
    let e = extract(response);
    assert_eq!((e.value, e.rule), (Some(n(value)), rule), "{response:?}");
    assert!(e.text.is_some());
}

#[rstest]
#[case::empty("")]
#[case::words("I cannot solve this without more information.")]
#[case::only_template("{The final answer is}")]
#[case::echoed_prompt_only(
    "<|im_start|>user\nJohn has 3 apples.<|im_end|>\n<|im_start|>assistant\n<|im_end|>"
)]
#[case::unanswered_inst("<s>[INST] Tom has 5 pens and 7 pencils. [/INST]</s>")]
fn misses(#[case] response: &str) {
    assert_eq!(extract(response), Extracted::miss(), "{response:?}");
}

#[test]
fn the_echoed_prompt_and_its_template_are_ignored() {
    let llama = "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting \
        Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|>\
        <|start_header_id|>user<|end_header_id|>\n\nEnsure the final answer is clearly \
        indicated by ending with {The final answer is}.\nJames runs 3 sprints of 60 meters.\
        <|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHe runs 3 * 60 = 180 \
        meters.\n\n{The final answer is 180.}<|eot_id|>";
    assert_eq!(extract(llama).value, Some(n("180")));
    // The Qwen runs answer under a second `user` (or a `system`) header.
    let qwen = "<|im_start|>system\nYou are Qwen.<|im_end|>\n<|im_start|>user\nJosh buys a \
        house for $80,000.<|im_end|>\n<|im_start|>user\nThe profit is $\\boxed{70000}$ \
        dollars.<|im_end|>";
    assert_eq!(extract(qwen).value, Some(n("70000")));
    let mistral = "<s> [INST] Sam had 10 socks and threw 3 away. [/INST] He has 10 - 3 = 7 \
        socks.</s>";
    assert_eq!(extract(mistral).value, Some(n("7")));
    let gemma = "<bos><start_of_turn>user\nThe cafeteria had 23 apples.<end_of_turn>\n\
        They have 9 apples left. \n<end_of_turn>";
    assert_eq!(extract(gemma).value, Some(n("9")));
    // zephyr sometimes writes a broken assistant header.
    let zephyr = "<|user|>\nFaye had 47 pieces of candy.</s> \n<|assistant|\nShe has 62 \
        pieces now.</s>";
    assert_eq!(extract(zephyr).value, Some(n("62")));
}

#[test]
fn a_hallucinated_next_turn_is_cut_off() {
    let raw = "<|im_start|>user\nQ: 2 + 2?<|im_end|>\n<|im_start|>assistant\nThe answer \
        is 4.<|im_end|>\n<|im_start|>user\nAnd the answer is 99<|im_end|>";
    assert_eq!(extract(raw).value, Some(n("4")));
}

#[test]
fn few_shot_turns_in_the_prompt_are_skipped() {
    let raw = "[INST] 1 + 1? [/INST] The answer is 2.</s>[INST] 5 + 5? [/INST] The answer \
        is 10.</s>";
    assert_eq!(extract(raw).value, Some(n("10")));
}

#[test]
fn think_blocks_are_dropped() {
    let raw = "<think>Maybe the answer is 5? No.</think>The answer is 6.";
    assert_eq!(extract(raw).value, Some(n("6")));
    // The template opened the block in the prompt.
    let raw = "<|im_start|>assistant\n<think>\nthe answer is 5\n</think>\n\nIt is 7";
    assert_eq!(extract(raw).value, Some(n("7")));
    // A truncated reasoning is all the reply there is.
    assert_eq!(extract("<think>so the answer is 8 and").value, Some(n("8")));
}

#[test]
fn special_tokens_never_merge_numbers() {
    assert_eq!(assistant_text("12<|eot_id|>"), "12");
    assert_eq!(extract("3<|x|>4").value, Some(n("4")));
    assert_eq!(
        strip_special_tokens("a <| not a token |> b"),
        "a <| not a token |> b"
    );
}

#[rstest]
#[case::integer_mantissa("The answer is 1e3.", "1000", "1e3")]
#[case::decimal_mantissa("The answer is 2.5e2", "250", "2.5e2")]
#[case::upper_case_signed("The answer is 1.5E+3 grams", "1500", "1.5E+3")]
#[case::negative_exponent("The answer is 3e-2", "0.03", "3e-2")]
#[case::negative_value("The answer is -2e3.", "-2000", "-2e3")]
#[case::boxed("\\boxed{4e1}", "40", "4e1")]
#[case::last_number("It comes to about 6e2 in all", "600", "6e2")]
#[case::percent("The answer is 5e1%", "50", "5e1%")]
fn scientific_notation_is_read_exactly(
    #[case] response: &str,
    #[case] value: &str,
    #[case] text: &str,
) {
    let e = extract(response);
    assert_eq!(e.value, Some(n(value)), "{response:?}");
    assert!(e.value.unwrap().is_exact(), "{response:?}");
    assert_eq!(e.text.as_deref(), Some(text), "{response:?}");
}

#[test]
fn scientific_notation_past_i128_is_a_float_not_its_mantissa() {
    let e = extract("The answer is 2e40.");
    assert_eq!(e.text.as_deref(), Some("2e40"));
    assert_eq!(e.value.map(Num::to_f64), Some(2e40));
}

#[rstest]
#[case::bare_e("The answer is 1e.", "1")]
#[case::sign_without_digits("The answer is 4e- 2", "4")]
#[case::word("The answer is 3 eggs", "3")]
#[case::glued_word("The answer is 3eggs", "3")]
#[case::glued_letters_after("The answer is 2e3x", "2")]
#[case::eg("Use a unit, e.g. 7 boxes", "7")]
#[case::number_then_eg("He has 7 e.g. apples", "7")]
#[case::decimal_exponent("The answer is 2e3.5", "2")]
#[case::thousands_groups("The answer is 1,000e3", "1000")]
#[case::exponent_out_of_range("The answer is 1e999.", "1")]
fn not_scientific_notation(#[case] response: &str, #[case] value: &str) {
    let e = extract(response);
    assert_eq!(e.value, Some(n(value)), "{response:?}");
}

#[test]
fn matched_text_is_the_number_as_written() {
    let e = extract("The answer is $1,234.50 in total");
    assert_eq!(e.text.as_deref(), Some("$1,234.50"));
    let e = extract("\\boxed{\\frac{3}{4}}");
    assert_eq!(e.text.as_deref(), Some("\\frac{3}{4}"));
}

#[test]
fn correctness_rules() {
    assert!(is_correct(Some(n("3.333")), n("3.33")));
    assert!(is_correct(Some(Num::ratio(10, 3).unwrap()), n("3.33")));
    assert!(!is_correct_exact(Some(n("3.333")), n("3.33")));
    assert!(is_correct_exact(Some(n("18.0")), n("18")));
    assert!(!is_correct(Some(n("-15")), n("15")));
    assert!(!is_correct(None, Num::ZERO));
    assert!(!is_correct_exact(None, Num::ZERO));
}

#[test]
fn rule_names_are_snake_case_and_distinct() {
    let names: Vec<_> = Rule::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(
        names,
        [
            "answer_is",
            "final_answer_is",
            "boxed",
            "hashes",
            "answer_colon",
            "last_number",
            "miss"
        ]
    );
}

/// Pieces that exercise every branch of the scanners, for the no-panic property.
const PIECES: &[&str] = &[
    "<|",
    "|>",
    "<|im_start|>",
    "<|im_end|>",
    "[INST]",
    "[/INST]",
    "</s>",
    "<think>",
    "</think>",
    "<<",
    ">>",
    "=",
    "\\boxed{",
    "{",
    "}",
    "\\frac{",
    "\\dfrac",
    "answer is",
    "The final answer is",
    "Answer:",
    "####",
    "-",
    "\u{2212}",
    "$",
    "\\$",
    "%",
    "\\%",
    ",",
    ".",
    "/",
    " ",
    "\n",
    "1",
    "23",
    "456",
    "0",
    "é",
    "\u{d7}",
    "\u{ff5c}",
    "step",
    "(",
    ")",
    "x",
    "\\approx",
    "*",
];

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(s in any::<String>()) {
        let e = extract(&s);
        prop_assert_eq!(e.value.is_none(), e.rule == Rule::Miss);
    }

    #[test]
    fn never_panics_on_template_soup(
        parts in prop::collection::vec(prop::sample::select(PIECES), 0..40)
    ) {
        let s: String = parts.concat();
        let e = extract(&s);
        prop_assert_eq!(e.value.is_none(), e.rule == Rule::Miss);
        prop_assert_eq!(e.value.is_none(), e.text.is_none());
    }

    #[test]
    fn formatted_integers_round_trip(
        v in -10_000_000i64..10_000_000,
        dollar: bool,
        commas: bool,
    ) {
        let digits = v.unsigned_abs().to_string();
        let body = if commas {
            let mut out = String::new();
            for (k, c) in digits.chars().enumerate() {
                if k > 0 && (digits.len() - k) % 3 == 0 {
                    out.push(',');
                }
                out.push(c);
            }
            out
        } else {
            digits
        };
        let text = format!(
            "{}{}{}",
            if v < 0 { "-" } else { "" },
            if dollar { "$" } else { "" },
            body
        );
        let e = extract(&format!("Some 7 steps.\nThe answer is {text}."));
        prop_assert_eq!(e.value, Some(Num::int(v as i128)));
        prop_assert_eq!(e.text, Some(text));
    }

    #[test]
    fn decimals_round_trip(cents in 0i64..100_000_000) {
        let text = format!("{}.{:02}", cents / 100, cents % 100);
        let e = extract(&format!("\\boxed{{{text}}}"));
        prop_assert_eq!(e.value, Num::ratio(cents as i128, 100));
    }

    #[test]
    fn correctness_is_symmetric(a in -100_000i64..100_000, b in -100_000i64..100_000) {
        let x = Num::ratio(a as i128, 1000).unwrap();
        let y = Num::ratio(b as i128, 1000).unwrap();
        prop_assert_eq!(is_correct(Some(x), y), is_correct(Some(y), x));
        prop_assert!(is_correct(Some(x), x));
        prop_assert!(!is_correct_exact(Some(x), y) || is_correct(Some(x), y));
    }
}
