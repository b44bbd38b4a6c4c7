//! One writer for the result tables advmath prints and saves: tab-separated lines on stdout, and
//! CSV (RFC 4180) with its quoting decided here. Markdown tables are `metrics`' result tables.

use std::borrow::Cow;
use std::io::{self, Write};

/// Write one tab-separated line (fields are written as they are: they hold no tab).
pub fn tsv_row<S: AsRef<str>>(
    out: &mut impl Write,
    fields: impl IntoIterator<Item = S>,
) -> io::Result<()> {
    let mut first = true;
    for field in fields {
        if !first {
            out.write_all(b"\t")?;
        }
        first = false;
        out.write_all(field.as_ref().as_bytes())?;
    }
    out.write_all(b"\n")
}

/// Which CSV text fields are quoted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quote {
    /// Only a field holding a comma, a quote or a line break.
    Needed,
    /// Every text field (numbers never), as Python's `csv.QUOTE_NONNUMERIC` writes.
    AllText,
}

/// One CSV field: text (quoted by the writer's rule) or a number written as is.
#[derive(Clone, Debug, PartialEq)]
pub enum CsvField<'a> {
    Text(Cow<'a, str>),
    Number(String),
    /// An empty field (SQL NULL).
    Empty,
}

/// A CSV text being written: a header line, then rows.
pub struct Csv {
    text: String,
    quote: Quote,
}

impl Csv {
    /// A CSV whose header names `columns` (quoted only when needed).
    pub fn new<S: AsRef<str>>(columns: impl IntoIterator<Item = S>, quote: Quote) -> Csv {
        let header: Vec<Cow<str>> = columns
            .into_iter()
            .map(|c| Cow::Owned(quote_needed(c.as_ref()).into_owned()))
            .collect();
        let mut text = header.join(",");
        text.push('\n');
        Csv { text, quote }
    }

    pub fn row(&mut self, fields: &[CsvField]) {
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                self.text.push(',');
            }
            match field {
                CsvField::Text(s) => match self.quote {
                    Quote::Needed => self.text.push_str(&quote_needed(s)),
                    Quote::AllText => self.text.push_str(&quote(s)),
                },
                CsvField::Number(n) => self.text.push_str(n),
                CsvField::Empty => {}
            }
        }
        self.text.push('\n');
    }

    pub fn finish(self) -> String {
        self.text
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// `s` quoted when it holds a comma, a quote or a line break.
pub fn quote_needed(s: &str) -> Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        Cow::Owned(quote(s))
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_by_rule() {
        let row = [
            CsvField::Text("a,b".into()),
            CsvField::Text("plain".into()),
            CsvField::Number("0.5".into()),
            CsvField::Empty,
            CsvField::Text("say \"hi\"".into()),
        ];
        let mut needed = Csv::new(["x", "y,z", "n", "e", "q"], Quote::Needed);
        needed.row(&row);
        assert_eq!(
            needed.finish(),
            "x,\"y,z\",n,e,q\n\"a,b\",plain,0.5,,\"say \"\"hi\"\"\"\n"
        );
        let mut all = Csv::new(["x"], Quote::AllText);
        all.row(&row[1..3]);
        assert_eq!(all.finish(), "x\n\"plain\",0.5\n");
    }

    #[test]
    fn tsv_rows() {
        let mut out = Vec::new();
        tsv_row(&mut out, ["a", "b"]).unwrap();
        tsv_row(&mut out, [String::from("1")]).unwrap();
        assert_eq!(out, b"a\tb\n1\n");
    }
}

/// The line each stage ends with on stderr, in the one vocabulary of counts every stage shares:
/// of the units it `read`, each was `used`, `refused` (the data cannot serve: an invalid
/// program, no gold answer, a fit with no variation), `skipped` (nothing to do this run: already
/// done by an earlier one, or past a budget) or `failed` (an internal error or a request that
/// failed for good: a rerun retries it); and the rows it `written`, of which `reused` came from
/// an earlier answer to an identical question. The four parts always add up to `read`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub stage: &'static str,
    /// What a unit is: problems, variants, fits, metrics.
    pub unit: &'static str,
    pub read: usize,
    pub refused: usize,
    pub skipped: usize,
    pub failed: usize,
    pub written: usize,
    pub reused: usize,
    /// A word on the units counted, if one helps (e.g. what the refused ones still got).
    pub detail: Option<String>,
}

impl Tally {
    /// The units used: those neither refused, skipped nor failed.
    pub fn used(&self) -> usize {
        self.read
            .saturating_sub(self.refused + self.skipped + self.failed)
    }

    /// `generate done: 36 problems read = 27 used + 9 refused + 0 skipped + 0 failed; 9800 rows
    /// written (0 reused)`, with the detail after a semicolon.
    pub fn line(&self) -> String {
        let mut line = format!(
            "{} done: {} {} read = {} used + {} refused + {} skipped + {} failed; {} rows written ({} reused)",
            self.stage,
            self.read,
            self.unit,
            self.used(),
            self.refused,
            self.skipped,
            self.failed,
            self.written,
            self.reused
        );
        if let Some(d) = &self.detail {
            line.push_str("; ");
            line.push_str(d);
        }
        line
    }
}
