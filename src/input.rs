//! Limits every reader of users' files applies, whichever stage reads them.
//!
//! A JSON row nested thousands of levels deep overflows the stack of any recursive parser (polars'
//! among them) and aborts the whole process. Real rows are flat records, so a JSON Lines reader
//! first sets aside the rows nested deeper than [`MAX_JSON_DEPTH`] (to report each by number)
//! and parses only the others.

/// The deepest JSON nesting a row may have.
pub const MAX_JSON_DEPTH: usize = 64;

/// How deep the arrays and objects of one JSON text nest (brackets inside strings ignored).
pub fn json_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for c in text.bytes() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// JSON Lines text split for a parser: the rows it may take (as text, one per line), their row
/// numbers, and the numbers of the rows nested too deep. Rows are the non-blank lines, numbered
/// from 0.
pub struct ShallowLines {
    pub text: String,
    pub rows: Vec<usize>,
    pub too_deep: Vec<usize>,
}

pub fn shallow_json_lines(text: &str) -> ShallowLines {
    let mut out = ShallowLines {
        text: String::with_capacity(text.len()),
        rows: Vec::new(),
        too_deep: Vec::new(),
    };
    for (row, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        if json_depth(line) > MAX_JSON_DEPTH {
            out.too_deep.push(row);
        } else {
            out.rows.push(row);
            out.text.push_str(line);
            out.text.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_rows_are_set_aside_by_number_and_brackets_in_strings_do_not_count() {
        let deep = format!("{{\"a\": {}1{}}}", "[".repeat(10_000), "]".repeat(10_000));
        let text = format!("{{\"q\": \"[[[[\"}}\n\n{deep}\n{{\"q\": 2}}\n");
        let split = shallow_json_lines(&text);
        assert_eq!(split.rows, vec![0, 2]);
        assert_eq!(split.too_deep, vec![1]);
        assert_eq!(split.text, "{\"q\": \"[[[[\"}\n{\"q\": 2}\n");
        assert_eq!(json_depth("{\"q\": \"[[[[\"}"), 1);
    }
}
