//! What every reader of users' files does before a parser sees them, whichever stage reads them:
//! screen the rows, so that one bad row is set aside with its number and reason and the others
//! are read.
//!
//! A row is bad when it is not UTF-8, when a CSV record has more or fewer fields than the header,
//! or when a JSON Lines row is not a JSON object. A JSON row nested thousands of levels deep would
//! also overflow the stack of any recursive parser (polars' among them) and abort the whole
//! process, so rows nested deeper than [`MAX_JSON_DEPTH`] are bad rows too. The parser then reads
//! only the good rows, and each keeps its number in the file.
//!
//! Sizes are bounded where the cost of a row grows with them: a question longer than
//! [`MAX_QUESTION_BYTES`] is a bad row, and a delimited file whose header is wider than
//! [`MAX_COLUMNS`] is refused whole.
//!
//! [`cells`] is the one reader of users' tables as text cells (CSV, TSV, Parquet, JSON Lines)
//! built on these screens.

pub mod cells;

pub use cells::{read_csv, read_csv_numbered};

use std::path::Path;

/// The deepest JSON nesting a row may have.
pub const MAX_JSON_DEPTH: usize = 64;

/// The longest question a row may hold, in bytes. GSM8K's and MultiArith's questions are under
/// 1 KB; a hundred times that is generous for any word problem. Every variant copies its
/// question and the later stages hold many at once, so a 50 MB question grew a run past 2 GB.
pub const MAX_QUESTION_BYTES: usize = 100_000;

/// The most columns a CSV or TSV header may have. Input tables need a handful, and the table
/// reader's cost grows with the columns: a header of a million cost about 300 MB a row.
pub const MAX_COLUMNS: usize = 4_096;

/// Why `question` is too long to be a problem's question, if it is.
pub fn question_too_long(question: &str) -> Option<String> {
    (question.len() > MAX_QUESTION_BYTES).then(|| {
        format!(
            "the question is {} bytes, more than the {MAX_QUESTION_BYTES} a question may have",
            question.len()
        )
    })
}

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

/// A row set aside: its 0-based row number, its 1-based line in the file, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRow {
    pub row: usize,
    pub line: usize,
    pub reason: String,
}

impl BadRow {
    /// The row named for a person: `file: row 3 (line 4): reason`.
    pub fn describe(&self, file: &Path) -> String {
        format!(
            "{}: row {} (line {}): {}",
            file.display(),
            self.row + 1,
            self.line,
            self.reason
        )
    }
}

/// A file screened for a parser: the good rows as text it can parse (CSV with a comma and the
/// header, or JSON Lines), the row number of each good row in order, and the bad rows.
#[derive(Debug, Default)]
pub struct Screened {
    pub text: Vec<u8>,
    pub rows: Vec<usize>,
    pub bad: Vec<BadRow>,
}

/// Screen JSON Lines: rows are the non-blank lines, numbered from 0.
pub fn screen_json_lines(bytes: &[u8]) -> Screened {
    let mut out = Screened {
        text: Vec::with_capacity(bytes.len()),
        ..Screened::default()
    };
    let lines = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace));
    for (row, (i, line)) in lines.enumerate() {
        match screen_json_line(line) {
            Ok(text) => {
                out.rows.push(row);
                out.text.extend_from_slice(text.as_bytes());
                out.text.push(b'\n');
            }
            Err(reason) => out.bad.push(BadRow {
                row,
                line: i + 1,
                reason,
            }),
        }
    }
    out
}

/// One JSON Lines row as text a parser can take (a UTF-8 JSON object, not nested too deep), or
/// why not.
pub fn screen_json_line(line: &[u8]) -> Result<&str, String> {
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("not valid UTF-8 (byte {})", e.valid_up_to()))?
        .trim_end_matches('\r');
    if json_depth(text) > MAX_JSON_DEPTH {
        return Err(format!("JSON nested deeper than {MAX_JSON_DEPTH} levels"));
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => Ok(text),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(format!("malformed JSON: {e}")),
    }
}
/// Screen a CSV file with a header row, fields separated by `separator`: rows are the records
/// after the header (a quoted field may hold newlines), numbered from 0. The good rows are
/// written back comma-separated. A header that cannot be read, or that is wider than
/// [`MAX_COLUMNS`], is the file's error.
pub fn screen_csv(bytes: &[u8], separator: u8) -> Result<Screened, String> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(separator)
        .has_headers(true)
        .flexible(true)
        .from_reader(bytes);
    let header = reader
        .byte_headers()
        .map_err(|e| format!("the header cannot be read: {e}"))?
        .clone();
    if header.len() > MAX_COLUMNS {
        return Err(format!(
            "the header has {} columns, more than the {MAX_COLUMNS} a table may have",
            header.len()
        ));
    }
    if let Some(f) = header.iter().position(|f| std::str::from_utf8(f).is_err()) {
        return Err(format!("header field {} is not valid UTF-8", f + 1));
    }
    let mut writer = csv::Writer::from_writer(Vec::with_capacity(bytes.len()));
    let written = |e: csv::Error| format!("cannot re-write the rows: {e}");
    writer.write_byte_record(&header).map_err(written)?;
    let mut out = Screened::default();
    let mut record = csv::ByteRecord::new();
    for row in 0.. {
        let read = reader.read_byte_record(&mut record);
        let line = reader.position().line() as usize;
        let reason = match read {
            Ok(false) => break,
            Ok(true) if record.len() != header.len() => format!(
                "{} field(s) where the header has {}",
                record.len(),
                header.len()
            ),
            Ok(true) => match record.iter().position(|f| std::str::from_utf8(f).is_err()) {
                Some(f) => format!("field {} is not valid UTF-8", f + 1),
                None => {
                    writer.write_byte_record(&record).map_err(written)?;
                    out.rows.push(row);
                    continue;
                }
            },
            // The csv reader only fails on I/O (none from memory) or UTF-8, checked above.
            Err(e) => e.to_string(),
        };
        let line = record.position().map_or(line, |p| p.line() as usize);
        out.bad.push(BadRow { row, line, reason });
    }
    out.text = writer.into_inner().map_err(|e| e.to_string())?;
    Ok(out)
}

/// The field separator of a delimited file, by its extension (`.tsv` tabs, anything else commas).
pub fn separator_of(path: &Path) -> u8 {
    if path
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("tsv"))
    {
        b'\t'
    } else {
        b','
    }
}

/// Say on stderr, once per file, which rows were set aside: the first few by number and reason,
/// then how many more.
pub fn warn_skipped(file: &Path, bad: &[BadRow]) {
    let lines: Vec<String> = bad
        .iter()
        .map(|b| format!("{}; row skipped", b.describe(file)))
        .collect();
    warn_first_few(file, &lines);
}

/// How many bad rows of one file are named one by one on stderr before the rest are counted.
pub const NAMED_BAD_ROWS: usize = 5;

/// Print the first [`NAMED_BAD_ROWS`] of `warnings` (each naming a bad row of `file`) on stderr,
/// then one line counting the others: a file with many bad rows must not bury the log.
pub fn warn_first_few(file: &Path, warnings: &[String]) {
    for w in warnings.iter().take(NAMED_BAD_ROWS) {
        crate::progress::note!("warning: {w}");
    }
    if warnings.len() > NAMED_BAD_ROWS {
        crate::progress::note!(
            "warning: {}: {} more bad row(s) ({} in all)",
            file.display(),
            warnings.len() - NAMED_BAD_ROWS,
            warnings.len()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_rows_are_set_aside_by_number_and_brackets_in_strings_do_not_count() {
        let deep = format!("{{\"a\": {}1{}}}", "[".repeat(10_000), "]".repeat(10_000));
        let text = format!("{{\"q\": \"[[[[\"}}\n\n{deep}\n{{\"q\": 2}}\n");
        let split = screen_json_lines(text.as_bytes());
        assert_eq!(split.rows, vec![0, 2]);
        assert_eq!(
            (split.bad[0].row, split.bad[0].line),
            (1, 3),
            "{:?}",
            split.bad
        );
        assert!(split.bad[0].reason.contains("deeper than 64"));
        assert_eq!(split.text, b"{\"q\": \"[[[[\"}\n{\"q\": 2}\n");
        assert_eq!(json_depth("{\"q\": \"[[[[\"}"), 1);
    }

    #[test]
    fn json_lines_that_are_not_utf8_objects_are_bad_rows_and_the_rest_parse() {
        let text = b"{\"q\": 1}\n{\"q\": \"caf\xe9\"}\n[1, 2]\n{\"q\": \n{\"q\": 5}\r\n";
        let split = screen_json_lines(text);
        assert_eq!(split.rows, vec![0, 4]);
        let reasons: Vec<(usize, &str)> = split
            .bad
            .iter()
            .map(|b| (b.line, b.reason.split(' ').next().unwrap()))
            .collect();
        assert_eq!(reasons, vec![(2, "not"), (3, "not"), (4, "malformed")]);
        assert!(split.bad[0].reason.contains("UTF-8 (byte 10)"));
        assert_eq!(split.text, b"{\"q\": 1}\n{\"q\": 5}\n");
    }

    #[test]
    fn ragged_and_non_utf8_csv_records_are_bad_rows_named_by_row_and_line() {
        let text = b"id,question\n1,\"two\nlines\"\n2,a,b\n3,caf\xe9\n4,ok\n";
        let split = screen_csv(text, b',').unwrap();
        assert_eq!(split.rows, vec![0, 3]);
        assert_eq!(
            split.bad,
            vec![
                BadRow {
                    row: 1,
                    line: 4,
                    reason: "3 field(s) where the header has 2".into()
                },
                BadRow {
                    row: 2,
                    line: 5,
                    reason: "field 2 is not valid UTF-8".into()
                },
            ]
        );
        assert_eq!(split.text, b"id,question\n1,\"two\nlines\"\n4,ok\n");
        assert_eq!(
            split.bad[0].describe(Path::new("in.csv")),
            "in.csv: row 2 (line 4): 3 field(s) where the header has 2"
        );
        let tabs = screen_csv(b"id\tq\n1\tx,y\n", b'\t').unwrap();
        assert_eq!(tabs.text, b"id,q\n1,\"x,y\"\n");
        assert!(screen_csv(b"i\xffd,q\n", b',').is_err());
    }

    #[test]
    fn sizes_are_bounded_at_the_limits_not_before() {
        assert_eq!(question_too_long(&"a".repeat(MAX_QUESTION_BYTES)), None);
        assert_eq!(
            question_too_long(&"a".repeat(MAX_QUESTION_BYTES + 1)).as_deref(),
            Some("the question is 100001 bytes, more than the 100000 a question may have")
        );
        let header = |n: usize| vec!["c"; n].join(",") + "\n";
        assert!(screen_csv(header(MAX_COLUMNS).as_bytes(), b',').is_ok());
        assert_eq!(
            screen_csv(header(MAX_COLUMNS + 1).as_bytes(), b',').unwrap_err(),
            "the header has 4097 columns, more than the 4096 a table may have"
        );
    }
}
