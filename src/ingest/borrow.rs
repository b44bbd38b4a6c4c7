//! Programs borrowed by question text (`ingest --programs-from FILE`): a question list without
//! programs, such as the 180 MultiArith test questions of the ArithmAttack study, takes the given
//! program or the worked solution of the problem with the same question in another source
//! (MultiArith.json), and is then validated like any other problem.
//!
//! Questions match exactly first, then with runs of whitespace collapsed and the ends trimmed. A
//! question that occurs k times in the list takes the k-th donor with that text, so repeated
//! questions (MultiArith has 20) each keep a donor of their own while donors last.

use std::collections::HashMap;

use super::{RawProblem, Source};

fn collapse(q: &str) -> String {
    q.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Fill the rows of `source` that have neither a program nor a worked solution from the donor
/// row with the same question; returns how many rows were filled.
pub fn borrow_programs(source: &mut Source, donor: &Source) -> usize {
    let has_solution = |r: &RawProblem| {
        r.row_error.is_none()
            && (r.worked.is_some() || r.program.as_ref().is_some_and(|p| p.is_ok()))
    };
    let mut exact: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut loose: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, d) in donor
        .rows
        .iter()
        .enumerate()
        .filter(|(_, d)| has_solution(d))
    {
        exact.entry(d.question.as_str()).or_default().push(i);
        loose.entry(collapse(&d.question)).or_default().push(i);
    }
    let mut used = vec![false; donor.rows.len()];
    let mut filled = 0;
    for row in source.rows.iter_mut() {
        if row.row_error.is_some() || has_solution(row) {
            continue;
        }
        let candidates = exact
            .get(row.question.as_str())
            .into_iter()
            .chain(loose.get(&collapse(&row.question)))
            .flatten();
        let Some(&i) = candidates.into_iter().find(|&&i| !used[i]) else {
            continue;
        };
        used[i] = true;
        row.worked = donor.rows[i].worked.clone();
        if let Some(Ok(p)) = &donor.rows[i].program {
            row.program = Some(Ok(p.clone()));
        }
        filled += 1;
    }
    filled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{Format, Worked};

    fn source(rows: Vec<RawProblem>) -> Source {
        Source {
            path: "x".into(),
            format: Format::Jsonl,
            dataset: "d".into(),
            split: "test".into(),
            rows,
        }
    }

    fn row(q: &str, equation: Option<&str>) -> RawProblem {
        RawProblem {
            question: q.into(),
            answer: Some("1".into()),
            worked: equation.map(|e| Worked::MultiArith {
                equation: e.into(),
                alignments: Vec::new(),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn repeated_questions_take_distinct_donors() {
        let donor = source(vec![
            row(" A has 2. ", Some("X=(2.0)")),
            row("B has 3.", Some("X=(3.0)")),
            row(" A has 2. ", Some("X=(2.0+0.0)")),
        ]);
        let mut list = source(vec![
            row(" A has 2. ", None),
            row("B  has 3.", None),
            row(" A has 2. ", None),
            row(" A has 2. ", None),
            row("C has 4.", None),
        ]);
        assert_eq!(borrow_programs(&mut list, &donor), 3);
        let eq = |r: &RawProblem| match &r.worked {
            Some(Worked::MultiArith { equation, .. }) => Some(equation.clone()),
            _ => None,
        };
        let got: Vec<Option<String>> = list.rows.iter().map(eq).collect();
        assert_eq!(
            got,
            vec![
                Some("X=(2.0)".into()),
                Some("X=(3.0)".into()),
                Some("X=(2.0+0.0)".into()),
                None,
                None
            ]
        );
    }
}
