//! The gold-answer audit's counts over a tables folder: how many numeric variants change what
//! the question shows in a way no variant may (a number word, a proper fraction, a percentage,
//! a unit's length), read back from the tables alone (the variants'
//! `numbers` against their problems' questions), so any folder, from any version, can be audited.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::error::Result;
use crate::num::Num;
use crate::program::tree::num_text;
use crate::question::units::{unit_uses, UnitUse};
use crate::question::{find_slots, is_percentage};
use crate::store::problems::read_problems;
use crate::store::variants;
use crate::vocab::Attack;

/// What one numeric attack of one dataset broke.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breaks {
    pub variants: usize,
    /// A number word of the question ("two farms") has another value.
    pub number_word_changed: usize,
    /// A fraction written `a/b` that was proper is not.
    pub improper_fraction: usize,
    /// A percentage of at most 100 is above 100.
    pub percentage_over_100: usize,
    /// A number that defines a unit ("7 days a week", "8:00 AM") has another value, or a count
    /// of part of a unit ("5 days a week") exceeds the unit's length.
    pub unit_length_changed: usize,
    /// Problems with at least one such variant.
    pub problems: BTreeMap<String, usize>,
}

impl Breaks {
    pub fn broken(&self) -> usize {
        self.problems.values().sum()
    }
}

/// Per (dataset, attack) of the numeric attacks `m1`, `m2`, `m3`: the variants and the ones that
/// break a number word, a written fraction or a percentage.
pub fn text_property_breaks(tables: &Path) -> Result<BTreeMap<(String, String), Breaks>> {
    let questions: HashMap<String, String> = read_problems(tables)?
        .into_iter()
        .map(|r| (r.problem_id, r.question))
        .collect();
    let mut out: BTreeMap<(String, String), Breaks> = BTreeMap::new();
    for (dataset, dataset_dir) in variants::datasets(tables)? {
        for (attack, attack_dir) in variants::attacks(&dataset_dir)? {
            if !Attack::of(&attack)
                .is_some_and(|a| matches!(a, Attack::Numeric(_) | Attack::Guided))
            {
                continue;
            }
            let breaks = out.entry((dataset.clone(), attack)).or_default();
            for part in crate::store::parts(&attack_dir)? {
                variants::each_numbers_batch(&part, 8192, &mut |batch| {
                    for i in 0..batch.len() {
                        let id = batch.problem_ids.value(i);
                        let Some(q) = questions.get(id) else { continue };
                        let values: Vec<Num> = batch
                            .numbers_of(i)
                            .iter()
                            .filter_map(|s| s.as_deref().and_then(num_text::from_text))
                            .collect();
                        breaks.variants += 1;
                        let found = breaks_of(q, &values);
                        if found.iter().any(|&b| b) {
                            *breaks.problems.entry(id.to_string()).or_default() += 1;
                        }
                        breaks.number_word_changed += usize::from(found[0]);
                        breaks.improper_fraction += usize::from(found[1]);
                        breaks.percentage_over_100 += usize::from(found[2]);
                        breaks.unit_length_changed += usize::from(found[3]);
                    }
                    Ok(())
                })?;
            }
        }
    }
    Ok(out)
}

/// [changed number word, improper written fraction, percentage over 100, unit length changed]
/// for a variant with these slot values of `question`.
fn breaks_of(question: &str, values: &[Num]) -> [bool; 4] {
    let slots = find_slots(question);
    if slots.len() != values.len() {
        return [false; 4];
    }
    let word = slots
        .iter()
        .zip(values)
        .any(|(s, v)| s.word && !v.eq_num(s.value));
    let proper = |a: Num, b: Num| a.div(b).is_ok_and(|f| f.is_proper_fraction());
    let fraction = slots.iter().enumerate().any(|(i, s)| {
        // The denominator: the next number ("4/5"), or digits glued to a suffix ("3/4ths").
        let after = crate::cut::after(question, s.end).strip_prefix('/');
        let Some(after) = after.filter(|_| !s.word) else {
            return false;
        };
        let (den, new_den) = match slots.get(i + 1).filter(|n| n.start == s.end + 1) {
            Some(next) => (next.value, values[i + 1]),
            None => {
                let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                match Num::parse_decimal(&digits) {
                    Some(d) => (d, d),
                    None => return false,
                }
            }
        };
        proper(s.value, den) && !proper(values[i], new_den)
    });
    let hundred = Num::int(100);
    let percentage = slots.iter().zip(values).any(|(s, v)| {
        is_percentage(question, s) && s.value.cmp_num(hundred).is_le() && v.cmp_num(hundred).is_gt()
    });
    let unit = unit_uses(question, &slots)
        .into_iter()
        .any(|(i, u)| match u {
            UnitUse::Defines(_) => !values[i as usize].eq_num(slots[i as usize].value),
            UnitUse::AtMost(max) => values[i as usize].cmp_num(max).is_gt(),
        });
    [word, fraction, percentage, unit]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_break_is_seen() {
        let q = "Three friends eat 1/4 of 20 pies, 40% of them hot.";
        let slots = find_slots(q);
        let orig: Vec<Num> = slots.iter().map(|s| s.value).collect();
        assert_eq!(breaks_of(q, &orig), [false; 4]);
        let with = |i: usize, v: i128| {
            let mut x = orig.clone();
            x[i] = Num::int(v);
            breaks_of(q, &x)
        };
        assert_eq!(with(0, 5), [true, false, false, false]);
        assert_eq!(with(1, 4), [false, true, false, false]);
        assert_eq!(with(2, 7), [false; 4]);
        assert_eq!(with(4, 101), [false, false, true, false]);
        let q = "She smashes 3/4ths of the windows.";
        assert_eq!(breaks_of(q, &[Num::int(3)]), [false; 4]);
        assert_eq!(breaks_of(q, &[Num::int(4)]), [false, true, false, false]);
        let q = "He works 5 days a week in a normal 30 day month.";
        assert_eq!(breaks_of(q, &[Num::int(6), Num::int(30)]), [false; 4]);
        assert_eq!(
            breaks_of(q, &[Num::int(8), Num::int(30)]),
            [false, false, false, true]
        );
        assert_eq!(
            breaks_of(q, &[Num::int(5), Num::int(49)]),
            [false, false, false, true]
        );
    }
}
