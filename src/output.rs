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
