//! Rows of each published format, hand-written after the released files, malformed ones too.

use serde_json::json;

use super::*;
use crate::num::Num;
use crate::program::{validate_program, AlignMode, ErrorKind, Links, ProgramError};
use crate::question::find_slots;

fn candidate(row: Value) -> Candidate {
    match extract(&row, None) {
        Ok(Extracted::Candidate(c)) => *c,
        other => panic!("expected a candidate, got {other:?}"),
    }
}

fn refused(row: Value) -> RowError {
    extract(&row, None).expect_err("the row should be refused")
}

/// The program's tree and its answer on the question's numbers, checked against `gold`.
fn answer(question: &str, program: &str, gold: &str) -> Result<Num, ProgramError> {
    let slots = find_slots(question);
    let tree = validate_program(
        program,
        question,
        &slots,
        crate::num::wide::Value::parse_decimal(gold),
        AlignMode::Given,
        Links::DIGITS,
    )?;
    let values: Vec<_> = slots.iter().map(|s| s.value).collect();
    Ok(tree.eval(&values).expect("the original numbers evaluate"))
}

const DUCKS: &str = "Janet\u{2019}s ducks lay 16 eggs per day. She eats 3 for breakfast \
                     and bakes muffins with 4. She sells the rest for $2 an egg. How much does \
                     she make?";

#[test]
fn tora_row_keeps_the_python_block_and_its_index() {
    let output = "```python\ndef daily_income():\n    \"\"\"Janet's ducks.\"\"\"\n    \
                  eggs = 16 - 3 - 4\n    income = eggs * 2\n    return income\n\n\
                  income = daily_income()\nprint(income)\n```\n```output\n18\n```\n\
                  Janet makes $\\boxed{18}$ dollars.";
    let c = candidate(json!({
        "idx": 0, "question": DUCKS, "gt": "18", "code": [output], "pred": ["18"]
    }));
    assert_eq!(c.family, Family::Tora);
    assert_eq!(c.key, MatchKey::Index(0));
    assert_eq!(c.question, DUCKS);
    assert!(c.program.starts_with("def daily_income():"));
    assert!(c.program.ends_with("print(income)\n"));
    assert!(!c.program.contains("boxed") && !c.program.contains("output"));
    assert_eq!(c.restoration, None);
    assert_eq!(answer(DUCKS, &c.program, "18").unwrap(), Num::int(18));
}

#[test]
fn tora_rows_without_one_closed_python_block_are_refused() {
    let row = |output: &str| json!({"idx": 3, "question": "q", "code": [output]});
    assert_eq!(
        refused(row("The answer is $\\boxed{18}$.")),
        RowError::FenceMissing
    );
    assert_eq!(
        refused(row("```python\nx = 1\nprint(x)\n")),
        RowError::FenceUnclosed
    );
    assert_eq!(
        refused(row(
            "```python\nx = 1\nprint(x)\n```\n```output\n1\n```\n```python\nprint(2)\n```"
        )),
        RowError::SeveralBlocks(2)
    );
    assert_eq!(
        refused(json!({"idx": 3, "question": "q", "code": []})),
        RowError::NoCode("code")
    );
    assert_eq!(
        refused(json!({"idx": 3, "question": "q", "code": [7]})),
        RowError::NoCode("code")
    );
    // Without an index the question is the key.
    let c = candidate(json!({"question": " Two  words ", "code": ["```python\nprint(1)\n```"]}));
    assert_eq!(c.key, MatchKey::Question("Two words".into()));
}

#[test]
fn pot_few_shot_script_answers_with_its_last_assignment() {
    let q = "A robe takes 2 bolts of blue fiber and 3 of white. How many bolts in total?";
    let c = candidate(json!({
        "question": q, "answer": 5.0, "executed": 5.0,
        "generated": ["blue = 2\nwhite = 3\nans = blue + white"]
    }));
    assert_eq!(c.family, Family::Pot);
    assert_eq!(c.key, MatchKey::Question(q.into()));
    assert_eq!(answer(q, &c.program, "5").unwrap(), Num::int(5));
}

#[test]
fn pot_prompt_line_is_skipped_and_empty_programs_refused() {
    assert_eq!(
        extract(&json!({"prompt": "Question: ...\n# Python code"}), None),
        Ok(Extracted::Prompt)
    );
    assert_eq!(
        refused(json!({"question": "q", "generated": []})),
        RowError::NoCode("generated")
    );
    assert_eq!(
        refused(json!({"question": "q", "generated": null})),
        RowError::NoCode("generated")
    );
    assert_eq!(
        refused(json!({"generated": "ans = 1"})),
        RowError::NoMatchKey
    );
}

#[test]
fn pot_zero_shot_solver_with_numpy_imported_answers_with_its_return() {
    let q = " Debby had 32 pieces of candy and her sister had 42. They ate 35. How many are left? ";
    let program = "\nimport math\nimport numpy as np\n\n# Question: Debby ...\n\
                   # Answer this question by implementing a solver() function.\n\
                   def solver():\n    # Let's write a Python program step by step\n    \
                   debby = 32\n    sister = 42\n    eaten = 35\n    \
                   left = debby + sister - eaten\n    return left\nans = solver()";
    let c =
        candidate(json!({"question": q, "answer": 39.0, "executed": 39.0, "generated": program}));
    assert_eq!(c.family, Family::Pot);
    assert_eq!(
        c.key,
        MatchKey::Question(
            "Debby had 32 pieces of candy and her sister had 42. They ate 35. How many are left?"
                .into()
        )
    );
    assert_eq!(answer(q, &c.program, "39").unwrap(), Num::int(39));
}

#[test]
fn numpy_or_sympy_used_stays_unsupported() {
    let q = "He has 5 apples and buys 3.";
    for program in [
        "import numpy as np\ndef solver():\n    t = np.sum([5, 3])\n    return t\nans = solver()",
        "import numpy as np\nt = 5 + 3 + np.pi\nprint(t)",
        "from sympy import symbols\nx = symbols('x')\nprint(5 + 3)",
        "import sympy\nt = sympy.Rational(5) + 3\nprint(t)",
        "from sympy import *\nt = 5 + 3\nprint(t)",
        "import os\nt = 5 + 3\nprint(t)",
    ] {
        let e = answer(q, program, "8").expect_err(program);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{program}: {e}");
    }
    let e = answer(q, "import numpy as np\nt = np.sum(5)\nprint(t)", "8").unwrap_err();
    assert!(e.detail.contains("numpy is not supported"), "{e}");
    for program in [
        "import numpy as np\nimport sympy\nt = 5 + 3\nprint(t)",
        "from sympy import symbols, Eq\nimport numpy.linalg\nt = 5 + 3\nprint(t)",
    ] {
        assert_eq!(answer(q, program, "8").unwrap(), Num::int(8));
    }
}

#[test]
fn tora_print_of_the_result_reads_the_return_even_through_round() {
    let q = "He has 5 apples and buys 3.";
    let program = "def f():\n    \"\"\"He has 5 apples.\"\"\"\n    t = 5 + 3\n    \
                   return round(t, 2)\n\nresult = f()\nprint(result)\n";
    let slots = find_slots(q);
    let tree = validate_program(
        program,
        q,
        &slots,
        crate::num::wide::Value::parse_decimal("8"),
        AlignMode::Given,
        Links::DIGITS,
    )
    .unwrap();
    // The answer is the function's return, not a value printed before or after it.
    assert_eq!(tree.eval(&[Num::int(1), Num::int(2)]).unwrap(), Num::int(3));
}

const ROBE_CODE: &str = "\ndef solution():\n    \"\"\"A robe takes 2 bolts of blue fiber and half \
                         that much white fiber.  How many bolts in total does it take?\"\"\"\n    \
                         blue_fiber = 2287720\n    white_fiber = blue_fiber / 2\n    \
                         total_fiber = blue_fiber + white_fiber\n    result = total_fiber\n    \
                         return result\n\n\n\n";
const ROBE_INPUT: &str = "A robe takes 2287720 bolts of blue fiber and half that much white \
                          fiber.  How many bolts in total does it take?";

#[test]
fn gsm_hard_row_is_restored_to_the_original_number() {
    let c = candidate(json!({"input": ROBE_INPUT, "code": ROBE_CODE, "target": 3431580.0}));
    assert_eq!(c.family, Family::Pal);
    let original = "A robe takes 2 bolts of blue fiber and half that much white fiber.  How \
                    many bolts in total does it take?";
    assert_eq!(c.question, original);
    assert_eq!(c.key, MatchKey::Question(normalise_question(original)));
    assert!(c.program.contains("blue_fiber = 2\n"));
    assert!(!c.program.contains("2287720"));
    assert_eq!(
        c.restoration,
        Some(Restoration::Undone {
            changed: "2287720".into(),
            original: "2".into()
        })
    );
}

#[test]
fn gsm_hard_number_word_is_restored_to_its_value() {
    let code =
        "def solution():\n    \"\"\"She eats three and bakes with four. She has 16.\"\"\"\n    \
                eggs = 16 - 3 - 4933828\n    return eggs\n";
    let c = candidate(json!({
        "input": "She eats three and bakes with 4933828. She has 16.", "code": code, "target": 0.0
    }));
    assert!(c.program.contains("eggs = 16 - 3 - 4\n"), "{}", c.program);
    assert_eq!(
        c.restoration,
        Some(Restoration::Undone {
            changed: "4933828".into(),
            original: "four".into()
        })
    );
}

#[test]
fn gsm_hard_unchanged_question_keeps_the_program() {
    let code = "def solution():\n    \"\"\"He walks 60 miles.\"\"\"\n    return 60\n";
    let c = candidate(json!({"input": "He walks 60  miles.", "code": code, "target": 60.0}));
    assert_eq!(c.program, code);
    assert_eq!(c.restoration, Some(Restoration::Unchanged));
}

#[test]
fn gsm_hard_refusals_name_their_reason() {
    let pal = |doc: &str, body: &str, input: &str| {
        let code = format!("def solution():\n    \"\"\"{doc}\"\"\"\n{body}");
        match refused(json!({"input": input, "code": code, "target": 1.0})) {
            RowError::Restoration(r) => r,
            other => panic!("{other:?}"),
        }
    };
    let ret = "    x = 7000001 * 2\n    return x\n";
    assert_eq!(
        pal(
            "He has 3 cats and 3 dogs.",
            ret,
            "He has 7000001 cats and 7000001 dogs."
        ),
        Refusal::ReplacedAtSeveralPlaces
    );
    assert_eq!(
        pal(
            "It costs $1.50, or 50 cents.",
            ret,
            "It costs $1.7000001, or 7000001 cents."
        ),
        Refusal::SeveralNumbersDiffer
    );
    assert_eq!(
        pal("It costs 5 dollars.", ret, "It cost 7000001 dollars."),
        Refusal::TextsDiffer
    );
    assert_eq!(
        pal("He has 5 cats.", ret, "He has 7000001 cats today."),
        Refusal::TextsDiffer
    );
    assert_eq!(
        pal("He ate half a pie.", ret, "He ate 7000001 a pie."),
        Refusal::NotANumber
    );
    assert_eq!(
        pal(
            "It costs $0.5.",
            "    x = 8/7\n    return x\n",
            "It costs $1.1428571428571428."
        ),
        Refusal::ChangedNumberNotInCode
    );
    assert_eq!(
        pal(
            "He has 5 cats.",
            "    x = 7000001\n    y = 7000001.0\n    return x + y\n",
            "He has 7000001 cats."
        ),
        Refusal::ChangedNumberInCodeSeveralTimes
    );
    // The new number inside a string is not a literal: one literal only.
    let c = candidate(json!({
        "input": "He has 7000001 cats.",
        "code": "def solution():\n    \"\"\"He has 5 cats.\"\"\"\n    note = '7000001 cats'\n    \
                 return 7000001\n",
        "target": 1.0
    }));
    assert!(
        c.program.contains("note = '7000001 cats'\n    return 5\n"),
        "{}",
        c.program
    );
    let r = |row: Value| match refused(row) {
        RowError::Restoration(r) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        r(json!({"input": "x", "code": "def solution(:\n", "target": 1.0})),
        Refusal::Unparsable
    );
    assert_eq!(
        r(json!({"input": "x", "code": "def solution():\n    return 1\n", "target": 1.0})),
        Refusal::NoDocstring
    );
}

#[test]
fn restoring_handles_text_beyond_ascii() {
    // Curly quotes and an accented name before the number: tokens are characters, not bytes.
    let code = "def solution():\n    \"\"\"Zoë\u{2019}s 3 café tables seat 4 each.\"\"\"\n    \
                return 9100200 * 4\n";
    let c = candidate(json!({
        "input": "Zoë\u{2019}s 9100200 café tables seat 4 each.", "code": code, "target": 1.0
    }));
    assert!(c.program.contains("return 3 * 4\n"), "{}", c.program);
}

#[test]
fn unusable_rows_say_why() {
    assert_eq!(refused(json!([1, 2])), RowError::NotAnObject);
    assert_eq!(refused(json!("text")), RowError::NotAnObject);
    assert_eq!(
        refused(json!({"question": "q", "answer": 3})),
        RowError::UnknownShape(vec!["answer".into(), "question".into()])
    );
    assert_eq!(
        refused(json!({"input": "q", "code": ""})),
        RowError::NoCode("code")
    );
    assert_eq!(
        refused(json!({"input": "q", "code": null})),
        RowError::NoCode("code")
    );
}

#[test]
fn pal_row_without_input_is_the_program_as_written() {
    let code = "def solution():\n    \"\"\"He has 5 apples and buys 3.\"\"\"\n    return 5 + 3\n";
    let c = candidate(json!({"code": code, "model": "codex"}));
    assert_eq!(c.family, Family::Pal);
    assert_eq!(c.model.as_deref(), Some("codex"));
    let Ok(Extracted::Candidate(named)) = extract(&json!({"code": code}), Some("code-davinci-002"))
    else {
        panic!("a PAL row");
    };
    assert_eq!(named.model.as_deref(), Some("code-davinci-002"));
    let Ok(Extracted::Candidate(own)) =
        extract(&json!({"code": code, "model": "codex"}), Some("x"))
    else {
        panic!("a PAL row");
    };
    assert_eq!(own.model.as_deref(), Some("codex"));
    assert_eq!(
        c.key,
        MatchKey::Question("He has 5 apples and buys 3.".into())
    );
    assert_eq!(c.program, code);
    assert_eq!(c.restoration, None);
    let fenced = format!("```python\n{code}```");
    assert_eq!(
        candidate(json!({"code": fenced, "question": "q"})).program,
        code
    );
}

#[test]
fn questions_match_whatever_their_spacing_and_quotes() {
    assert_eq!(
        normalise_question("  Janet\u{2019}s ducks\n lay  \u{201C}16\u{201D} eggs. "),
        "Janet's ducks lay \"16\" eggs."
    );
    assert_eq!(normalise_question(""), "");
}
