//! The coefficients a solution's algebra derives: "2*x + x = 24" combines two terms of the
//! unknown into 3*x, and a later "24/3" divides by that 3. The 3 is the solution's own value,
//! computed from the coefficients it wrote (here "twice" and one), not a number of the question,
//! even where the question writes a 3 ("3 were orange"); the program cannot follow the algebra,
//! so such a value is a quantity it does not have.

use crate::num::Num;

/// A coefficient derived by combining like terms of an unknown.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Derived {
    /// The byte offset where the combination ends: only steps after it can read the value.
    pub(super) at: usize,
    pub(super) value: Num,
    /// The expression that combines the terms, as written ("2*x + x").
    pub(super) from: String,
    /// The coefficients it combines, without their signs (2 and 1).
    pub(super) terms: Vec<Num>,
}

/// Every coefficient `text` derives: the sum of two or more terms of one unknown written in one
/// expression ("2*x + x", "6Z + 4Z"), or the difference of the unknown's coefficients on the two
/// sides of an equation ("(3 * x) + 27 = (6 * x) + 9"). An unknown is a single letter the text
/// declares ("Let x be ...", "x = ..."); an expression whose terms cannot all be read as a number
/// times the unknown ("3 * (x + 9)", "B/2") derives nothing. A coefficient of 0 or 1 says nothing.
pub(super) fn derived_coefficients(text: &str) -> Vec<Derived> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let unknowns = unknowns(&chars);
    if unknowns.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for clause in clauses(&chars) {
        let sides: Vec<&[(usize, char)]> = clause.split(|&(_, c)| c == '=').collect();
        let parsed: Vec<Option<Vec<Terms>>> = sides
            .iter()
            .map(|side| read_side(side, &unknowns))
            .collect();
        for (side, terms) in sides.iter().zip(&parsed) {
            for t in terms.iter().flatten().filter(|t| t.count > 1) {
                out.push(Derived {
                    at: t.end,
                    value: t.sum.abs(),
                    from: written(side, t.begin, t.end),
                    terms: t.coefficients.clone(),
                });
            }
        }
        for (k, pair) in parsed.windows(2).enumerate() {
            let [Some(left), Some(right)] = pair else {
                continue;
            };
            let mut seen: Vec<char> = Vec::new();
            // The expressions either side of the `=`: the last on its left, the first on its right.
            for l in left.iter().rev() {
                if seen.contains(&l.unknown) {
                    continue;
                }
                seen.push(l.unknown);
                let Some(r) = right.iter().find(|r| r.unknown == l.unknown) else {
                    continue;
                };
                if let Ok(d) = l.sum.sub(r.sum) {
                    out.push(Derived {
                        at: l.end.max(r.end),
                        value: d.abs(),
                        from: format!(
                            "{} = {}",
                            written(sides[k], l.begin, l.end),
                            written(sides[k + 1], r.begin, r.end)
                        ),
                        terms: [l.coefficients.as_slice(), r.coefficients.as_slice()].concat(),
                    });
                }
            }
        }
    }
    out.retain(|d| !d.value.is_zero() && !d.value.eq_num(Num::ONE));
    out
}

/// The terms of one unknown in one side of an equation.
#[derive(Clone, Debug)]
struct Terms {
    unknown: char,
    /// The signed sum of their coefficients.
    sum: Num,
    count: usize,
    coefficients: Vec<Num>,
    /// The byte offsets of the first's start and the last's end.
    begin: usize,
    end: usize,
}

/// The text of a run of characters between two byte offsets.
fn written(run: &[(usize, char)], begin: usize, end: usize) -> String {
    run.iter()
        .filter(|&&(p, _)| p >= begin && p < end)
        .map(|&(_, c)| c)
        .collect()
}

/// Runs of the text that hold at most one equation: lines, sentences, clauses, and the text
/// between two calculator annotations (the marker `\u{1}`).
fn clauses(chars: &[(usize, char)]) -> Vec<&[(usize, char)]> {
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let digit = |i: Option<usize>| i.and_then(at).is_some_and(|c| c.is_ascii_digit());
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..chars.len() {
        let c = chars[i].1;
        let ends = match c {
            '\n' | ';' | ':' | '?' | '!' | '\u{1}' => true,
            // "1,000" and "2.5" are numbers; "x = 8. Then" and "8, so" end a clause.
            ',' | '.' => !(digit(i.checked_sub(1)) && digit(Some(i + 1))),
            _ => false,
        };
        if ends {
            out.push(&chars[start..i]);
            start = i + 1;
        }
    }
    out.push(&chars[start..]);
    out
}

fn is_letter(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphabetic())
}

/// The single letters the text declares as unknowns: "Let x", "x be", "x represent(s)", or a
/// letter alone before `=` ("x = 24/3", "B = 18"), not after a number ("5 m = 500 cm").
fn unknowns(chars: &[(usize, char)]) -> Vec<char> {
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let word_after = |i: usize| -> String {
        chars
            .iter()
            .skip(i)
            .skip_while(|(_, c)| *c == ' ')
            .take_while(|(_, c)| c.is_ascii_alphabetic())
            .map(|&(_, c)| c.to_ascii_lowercase())
            .collect()
    };
    let mut out = Vec::new();
    for i in 0..chars.len() {
        let c = chars[i].1;
        let alone = c.is_ascii_alphabetic()
            && !is_letter(i.checked_sub(1).and_then(at))
            && !is_letter(at(i + 1));
        if !alone || out.contains(&c) {
            continue;
        }
        let before: String = chars[..i]
            .iter()
            .rev()
            .skip_while(|(_, c)| *c == ' ')
            .take_while(|(_, c)| c.is_ascii_alphabetic())
            .map(|&(_, c)| c.to_ascii_lowercase())
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        let after = word_after(i + 1);
        let next = chars
            .iter()
            .skip(i + 1)
            .map(|&(_, c)| c)
            .find(|&c| c != ' ');
        let previous = chars[..i].iter().rev().map(|&(_, c)| c).find(|&c| c != ' ');
        let declared = before == "let"
            || ["be", "represent", "represents", "stand", "stands"].contains(&after.as_str())
            || (next == Some('=')
                && previous.is_none_or(|p| p.is_ascii_alphabetic() || ",.;:\n(".contains(p)));
        if declared {
            out.push(c);
        }
    }
    out
}

/// The terms of each unknown in one side of an equation, or `None` when a term of an unknown
/// is more than a number times it ("3 * (x + 9)", "x/2", "-(x + x)").
fn read_side(side: &[(usize, char)], unknowns: &[char]) -> Option<Vec<Terms>> {
    let at = |i: usize| side.get(i).map(|&(_, c)| c);
    // The first index before `i` (going back) whose character is not a space.
    let back = |i: usize| (0..i).rev().find(|&j| side[j].1 != ' ');
    let forward = |i: usize| (i..side.len()).find(|&j| side[j].1 != ' ');
    let mut out: Vec<Terms> = Vec::new();
    for i in 0..side.len() {
        let (pos, c) = side[i];
        if !unknowns.contains(&c)
            || is_letter(i.checked_sub(1).and_then(at))
            || is_letter(at(i + 1))
        {
            continue;
        }
        let next = forward(i + 1).and_then(at);
        // "8 x 2" and "3 x $5" multiply.
        if c.eq_ignore_ascii_case(&'x')
            && next.is_some_and(|n| n.is_ascii_digit() || n == '$' || n == '(')
        {
            continue;
        }
        if next.is_some_and(|n| n.is_ascii_digit() || "*/(^×÷·".contains(n)) {
            return None;
        }
        // The coefficient: digits right before the letter, or before a `*`.
        let mut j = back(i);
        let mut times = false;
        if let Some(k) = j.filter(|&k| "*×·".contains(side[k].1)) {
            times = true;
            j = back(k);
        }
        let mut digits = String::new();
        let mut k = j;
        while let Some(n) = k {
            let ch = side[n].1;
            let grouping = ch == ',' && n > 0 && side[n - 1].1.is_ascii_digit();
            if ch.is_ascii_digit() || ch == '.' || grouping {
                if ch != ',' {
                    digits.insert(0, ch);
                }
                k = n.checked_sub(1);
            } else {
                break;
            }
        }
        let start = match (digits.is_empty(), k) {
            (true, _) if times => return None,
            (true, _) => i,
            (false, Some(n)) => n + 1,
            (false, None) => 0,
        };
        if digits.is_empty() && j.is_some_and(|p| side[p].1 == ')') {
            return None;
        }
        let coefficient = if digits.is_empty() {
            Num::ONE
        } else {
            Num::parse_decimal(&digits)?
        };
        // The sign: the operator before the term, through any brackets that open it.
        let mut s = back(start);
        let mut opens = 0;
        let mut outermost = start;
        while let Some(p) = s.filter(|&p| side[p].1 == '(') {
            opens += 1;
            outermost = p;
            s = back(p);
        }
        let operator = s.map(|p| side[p].1);
        let closed = next == Some(')');
        let negative = matches!(operator, Some('-' | '−' | '–'));
        match operator {
            Some('+' | '-' | '−' | '–') | None => {}
            Some(o) if o.is_ascii_alphabetic() => {}
            // A term multiplied or divided by something before it.
            Some(_) => return None,
        }
        if opens > 0 && negative && !closed {
            return None;
        }
        let term = if negative {
            Num::ZERO.sub(coefficient).ok()?
        } else {
            coefficient
        };
        // The term as written, with the brackets that wrap it alone.
        let first = if closed { outermost } else { start };
        let begin = side.get(first).map_or(pos, |&(p, _)| p);
        let last = if closed {
            forward(i + 1).unwrap_or(i)
        } else {
            i
        };
        let end = side[last].0 + side[last].1.len_utf8();
        // A term after a word starts an expression of its own ("the pieces are 4x and x").
        let continues = matches!(operator, Some('+' | '-' | '−' | '–'));
        match out
            .iter_mut()
            .rev()
            .find(|t| t.unknown == c)
            .filter(|_| continues)
        {
            Some(t) => {
                t.sum = t.sum.add(term).ok()?;
                t.count += 1;
                t.coefficients.push(coefficient);
                t.end = end;
            }
            None => out.push(Terms {
                unknown: c,
                sum: term,
                count: 1,
                coefficients: vec![coefficient],
                begin,
                end,
            }),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<String> {
        derived_coefficients(text)
            .iter()
            .map(|d| format!("{}:{}", d.value, d.from))
            .collect()
    }

    #[test]
    fn like_terms_combine_into_a_derived_coefficient() {
        let bob = "Let x = the number of white fish.\nBob has twice as many orange fish as white fish, so 2*x + x = 24 fish\n3*x = 24\nx = 24/3 = \u{1}8 white fish.";
        assert_eq!(values(bob), vec!["3:2*x + x"]);
        let d = &derived_coefficients(bob)[0];
        assert!(bob.find("3*x").is_some_and(|p| d.at < p));
        assert_eq!(d.terms, vec![Num::int(2), Num::ONE]);
        let zest = "Let Z be the ounces of zest.\nso she uses 2Z + 2Z + 2Z = \u{1}6Z in all.\nIn all, she uses 6Z + 4Z = 10Z = \u{1}10 ounces.";
        assert_eq!(values(zest), vec!["6:2Z + 2Z + 2Z", "10:6Z + 4Z"]);
        let ages =
            "Let x be Sam's age. We get (3 * x) + 27 = (6 * x) + 9. So 27 - 9 = (6 * x) - (3 * x).";
        assert_eq!(
            values(ages),
            vec!["3:(3 * x) = (6 * x)", "3:(6 * x) - (3 * x)"]
        );
    }

    #[test]
    fn a_coefficient_the_question_gives_is_not_derived() {
        // "5 times more": 5*x is the question's 5; only 5*x + x = 6*x is derived.
        let t = "Let x be the money Williams has.\nJackson has 5*x dollars.\n5*x+x=150\n6*x=150\nx=\u{1}25";
        assert_eq!(values(t), vec!["6:5*x+x"]);
        // One term: nothing to combine.
        assert!(
            values("Let m be Mel's weight. Brenda's weight is 3*m + 10 = 220 pounds").is_empty()
        );
        // No declared unknown: "5 m + 3 m" are metres, and "ml/L" is no declaration.
        assert!(values("The ropes are 5 m + 3 m = 8 m long.").is_empty());
        assert!(values("2000 L - 1600 L = 400 L, 400 L * 1000 ml/L = 400,000 ml").is_empty());
        // Terms a word separates are not one expression.
        assert!(
            values("Let x be the shorter piece. The pieces are 4x and x in length.").is_empty()
        );
        // "x" that multiplies.
        assert!(values("Let x be it. Then 8 x 2 = 16 and 3 x 4 = 12.").is_empty());
        // A term that is more than a number times the unknown derives nothing.
        assert!(values("Let x be it. 3 * (x + 9) = 6 * x + 9").is_empty());
        assert!(values("Let B be it. Lily = B/2 + B").is_empty());
        // x - x and 2x - x say nothing.
        assert!(values("Let x be it. 2x - x = 5").is_empty());
    }
}
