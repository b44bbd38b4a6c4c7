//! A lexical size check that runs before a program is parsed.
//!
//! The parser itself is table-driven, but the syntax tree it returns, its destructor and the
//! lowering that walks it are recursive: one statement nested thousands of levels deep
//! (`((((...3))))`, `3 + 0 + 0 + ...`, `------3`) would overflow a worker thread's stack and abort
//! the whole run, which must never happen for one bad row. Word-problem programs stay far below
//! these limits (the deepest statement of the Xie et al. release nests 2 brackets and has 7 operators),
//! so anything beyond them is rejected as `unsupported`, naming the limit.

use super::{ErrorKind, ProgramError};

/// Deepest bracket nesting a program may have.
pub const MAX_NESTING: usize = 64;
/// Most operator characters, brackets included, one statement may have.
pub const MAX_OPERATORS_PER_STATEMENT: usize = 256;

/// Reject a program whose statements nest or chain beyond the limits; strings and comments are
/// skipped, so a long message in `print` costs nothing.
pub fn check_size(source: &str) -> Result<(), ProgramError> {
    let b = source.as_bytes();
    let (mut depth, mut deepest, mut operators) = (0usize, 0usize, 0usize);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            quote @ (b'\'' | b'"') => {
                i = string_end(b, i, quote);
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                operators += 1;
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'+' | b'-' | b'*' | b'/' | b'%' | b'~' | b'@' | b'&' | b'|' | b'^' | b'<' | b'>'
            | b'=' | b'!' => operators += 1,
            // A statement ends at a newline outside brackets (a backslash continuation keeps
            // counting, which only errs on the safe side) or at a semicolon.
            b'\n' | b';' if depth == 0 => operators = 0,
            _ => {}
        }
        if deepest > MAX_NESTING {
            return Err(too_big(format!(
                "brackets nested more than {MAX_NESTING} levels deep"
            )));
        }
        if operators > MAX_OPERATORS_PER_STATEMENT {
            return Err(too_big(format!(
                "a statement with more than {MAX_OPERATORS_PER_STATEMENT} operators"
            )));
        }
        i += 1;
    }
    Ok(())
}

fn too_big(what: String) -> ProgramError {
    ProgramError::new(
        ErrorKind::Unsupported,
        format!("{what}: too large for a word-problem program"),
    )
}

/// Index just past the string literal opening at `start` (single or triple quoted; a backslash
/// escapes the next byte, as it does for the closing quote even in raw strings). An unterminated
/// string runs to the end of its line, or of the text when triple quoted; the parser reports it.
fn string_end(b: &[u8], start: usize, quote: u8) -> usize {
    let triple = b.len() >= start + 3 && b[start + 1] == quote && b[start + 2] == quote;
    let mut i = start + if triple { 3 } else { 1 };
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' if !triple => return i,
            c if c == quote => {
                if !triple {
                    return i + 1;
                }
                if b.len() >= i + 3 && b[i + 1] == quote && b[i + 2] == quote {
                    return i + 3;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case::plain("x = (3 + 4) * 2\nprint(x)")]
    #[case::brackets_in_strings("print(f\"((((( {x} ))))) \" + '[[[[[' * 1)")]
    #[case::comment(
        "x = 1  # (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
    )]
    #[case::triple(
        "\"\"\"((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((\"\"\"\nx = 1"
    )]
    #[case::long_program_short_statements(&"x = x + 1\n".repeat(1000))]
    fn accepts_word_problem_programs(#[case] source: &str) {
        assert_eq!(check_size(source), Ok(()));
    }

    #[rstest]
    #[case::parens(format!("x = {}3{}", "(".repeat(65), ")".repeat(65)), "nested")]
    #[case::chain(format!("x = 3{}", " + 0".repeat(300)), "operators")]
    #[case::unary(format!("x = {}3", "-".repeat(300)), "operators")]
    #[case::after_a_string(format!("print('((')\nx = {}3", "(".repeat(100)), "nested")]
    fn rejects_what_would_exhaust_the_stack(#[case] source: String, #[case] what: &str) {
        let err = check_size(&source).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported);
        assert!(err.detail.contains(what), "{}", err.detail);
    }
}
