//! What the question's text itself asks of its numbers ([`TextConstraint`]): a written fraction
//! stays proper, a percentage stays at most 100, a number word stays a plural count, a count of
//! days in a week stays at most 7.

use super::{is_percentage, Slot};
use crate::cut;
use crate::num::Num;

/// A property a number of the question keeps because of how the question shows it: the paper's
/// constraints ("Proper Fraction: ... prevents phrases such as 'John eats 4/3 of his chimichanga'
/// and 'the bucket is filled till 150% full'") applied to the nodes the text itself shows, which
/// a program may never compute as a node of its own.
#[derive(Clone, Copy, Debug)]
pub enum TextConstraint {
    /// `num/den` written in digits, originally strictly between 0 and 1: stays so.
    Fraction { num: u32, den: u32 },
    /// `num/den` whose denominator is not a number of its own ("3/4ths"): stays proper.
    FractionOf { num: u32, den: Num },
    /// A percentage ("40%", "40 percent") of at most 100: stays at most 100.
    Percentage { slot: u32 },
    /// A number word before a plural noun ("two cassette tapes"): stays at least 2, so the noun
    /// still agrees.
    Plural { slot: u32 },
    /// A count of a smaller unit within a larger one ("5 days a week"): stays at most the larger
    /// unit's length (see [`super::units`]).
    AtMost { slot: u32, max: Num },
}

impl TextConstraint {
    /// The slots whose values it constrains.
    pub fn slots(self) -> (u32, Option<u32>) {
        match self {
            TextConstraint::Fraction { num, den } => (num, Some(den)),
            TextConstraint::FractionOf { num, .. } => (num, None),
            TextConstraint::Percentage { slot }
            | TextConstraint::Plural { slot }
            | TextConstraint::AtMost { slot, .. } => (slot, None),
        }
    }

    /// Does it hold for these slot values?
    #[inline]
    pub fn holds(self, values: &[Num]) -> bool {
        match self {
            TextConstraint::Fraction { num, den } => values[num as usize]
                .div(values[den as usize])
                .is_ok_and(|q| q.is_proper_fraction()),
            TextConstraint::FractionOf { num, den } => values[num as usize]
                .div(den)
                .is_ok_and(|q| q.is_proper_fraction()),
            TextConstraint::Percentage { slot } => {
                values[slot as usize].cmp_num(Num::int(100)) != std::cmp::Ordering::Greater
            }
            TextConstraint::Plural { slot } => {
                values[slot as usize].cmp_num(Num::int(2)) != std::cmp::Ordering::Less
            }
            TextConstraint::AtMost { slot, max } => {
                values[slot as usize].cmp_num(max) != std::cmp::Ordering::Greater
            }
        }
    }
}

/// The [`TextConstraint`]s of a question whose original values satisfy them: fractions written
/// `a/b` in digits that are proper (the denominator a number of its own, or glued to a suffix as
/// in "3/4ths"), percentages of at most 100 in digits or words, and number words (which are
/// plural counts of 2 or more).
pub fn text_constraints(text: &str, slots: &[Slot]) -> Vec<TextConstraint> {
    let values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let mut out = Vec::new();
    for (i, w) in slots.windows(2).enumerate() {
        if !w[0].word && !w[1].word && cut::between(text, w[0].end, w[1].start).trim() == "/" {
            out.push(TextConstraint::Fraction {
                num: i as u32,
                den: i as u32 + 1,
            });
        }
    }
    for (i, s) in slots.iter().enumerate() {
        let glued = cut::after(text, s.end)
            .strip_prefix('/')
            .map(|d| cut::before(d, d.bytes().take_while(u8::is_ascii_digit).count()))
            .filter(|digits| !digits.is_empty())
            .filter(|_| slots.get(i + 1).is_none_or(|next| next.start != s.end + 1));
        if let Some(digits) = glued.filter(|_| !s.word) {
            if let Some(den) = Num::parse_decimal(digits) {
                out.push(TextConstraint::FractionOf { num: i as u32, den });
            }
        }
        if is_percentage(text, s) {
            out.push(TextConstraint::Percentage { slot: i as u32 });
        }
        if s.word {
            out.push(TextConstraint::Plural { slot: i as u32 });
        }
    }
    for (slot, u) in super::units::unit_uses(text, slots) {
        if let super::units::UnitUse::AtMost(max) = u {
            out.push(TextConstraint::AtMost { slot, max });
        }
    }
    out.retain(|c| c.holds(&values));
    out
}
