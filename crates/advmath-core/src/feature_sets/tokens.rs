//! How many tokens a number's text is to a model: Figure 8 of Xie et al. plots accuracy against
//! "token counts of the final answer".
//!
//! The tokenizer is `cl100k_base`, GPT-3.5's and GPT-4's (the paper's API models and its
//! efficient attack's target). Its pre-tokenizer cuts a run of digits into pieces of at most three
//! digits, left to right (the `\p{N}{1,3}` alternative of its pattern), and every one- to
//! three-digit string is one token of its vocabulary; a `.` or `-` between them is a piece, and a
//! token, of its own. So `-12345.5` is `-`, `123`, `45`, `.`, `5`: five tokens. The LLaMA-family
//! models of the paper split numbers into single digits instead, for which the digit count
//! (`--answer-length digits`) is the token count.

/// Tokens of `text`, a number as written (`-12345.5`, `1200`, `0.375`), under `cl100k_base`.
/// Any other character counts as one token.
pub fn cl100k_number_tokens(text: &str) -> usize {
    let mut tokens = 0;
    let mut run: usize = 0;
    for c in text.chars() {
        if c.is_ascii_digit() {
            run += 1;
            continue;
        }
        tokens += run.div_ceil(3);
        run = 0;
        tokens += 1;
    }
    tokens + run.div_ceil(3)
}

#[cfg(test)]
mod tests {
    use super::cl100k_number_tokens;

    #[test]
    fn digit_runs_split_in_threes() {
        for (text, tokens) in [
            ("5", 1),
            ("1200", 2),
            ("123456", 2),
            ("1234567", 3),
            ("0.375", 3),
            ("-66", 2),
            ("-12345.5", 5),
            ("66424.2", 4),
        ] {
            assert_eq!(cl100k_number_tokens(text), tokens, "{text}");
        }
    }
}
