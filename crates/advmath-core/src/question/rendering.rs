//! A question with new numbers: the template (each slot a `{i}`), filled again with each
//! number written in its original's style (thousands separators, money decimals, a capital at
//! the start of a sentence, no float noise).

use super::{cardinal_word, Slot};
use crate::cut;
use crate::num::{format_fixed, Num};

/// The question with slot `i` replaced by `{i}`; literal braces are doubled so the template is
/// unambiguous.
pub fn template(text: &str, slots: &[Slot]) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut pos = 0;
    for (i, s) in slots.iter().enumerate() {
        push_escaped(&mut out, cut::between(text, pos, s.start));
        out.push('{');
        out.push_str(&i.to_string());
        out.push('}');
        pos = s.end;
    }
    push_escaped(&mut out, cut::after(text, pos));
    out
}

fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '{' => out.push_str("{{"),
            '}' => out.push_str("}}"),
            _ => out.push(c),
        }
    }
}

/// Fill a template with slot texts.
pub fn render(template: &str, values: &[String]) -> String {
    render_with(template, values, |_, _, _| 0)
}

/// [`render`], calling `after_slot(i, rest, out)` after slot `i`'s text is written, with `rest`
/// the template after the slot; it may write to `out` and returns how many bytes of `rest` it
/// wrote in their place (0: none). A count that ends inside a character skips that character too.
pub fn render_with(
    template: &str,
    values: &[String],
    mut after_slot: impl FnMut(usize, &str, &mut String) -> usize,
) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    // The template is walked a character at a time, never a byte: any text around the slots
    // (a Cyrillic letter, a curly quote, an emoji) is copied whole.
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        if let Some(tail) = rest.strip_prefix("{{").or_else(|| rest.strip_prefix("}}")) {
            out.push(c);
            rest = tail;
            continue;
        }
        if c != '{' {
            // Literal text (a lone `}` included) up to the next brace after this character.
            let next = cut::after(rest, c.len_utf8())
                .find(['{', '}'])
                .map_or(rest.len(), |j| c.len_utf8() + j);
            let (literal, tail) = cut::split(rest, next);
            out.push_str(literal);
            rest = tail;
            continue;
        }
        // `{i}`; an unclosed `{` runs to the end of the template.
        let body = cut::after(rest, 1);
        let (index, tail) = body.split_once('}').unwrap_or((body, ""));
        let idx: usize = index.parse().unwrap_or(usize::MAX);
        rest = tail;
        if let Some(v) = values.get(idx) {
            out.push_str(v);
            let replaced = after_slot(idx, rest, &mut out);
            rest = cut::after(rest, cut::ceil_boundary(rest, replaced));
        }
    }
    out
}

/// Text for a new value in the style of the original slot: at most 3 decimals (the reference's
/// limit), the original's decimal places kept for money-like values (`2.50` -> `4.70`), and
/// thousands separators where the original had them.
pub fn format_like(value: Num, like: &Slot) -> String {
    if like.word {
        if let Some(w) = value.as_integer().and_then(cardinal_word) {
            return if like.capital {
                capitalise(w)
            } else {
                w.to_string()
            };
        }
    }
    let mut s = format_fixed(value, like.decimals.max(3));
    if like.decimals == 2 {
        // Money keeps its cents: "$2.50" -> "$4.70", "$3.00" -> "$4.00".
        match s.find('.') {
            Some(p) if s.len() - p - 1 < 2 => s.push('0'),
            None => s.push_str(".00"),
            _ => {}
        }
    }
    if like.thousands {
        s = group_thousands(&s);
    }
    s
}

/// A part as a mixed number ("3 1/2", "3/4"), which every reader takes for its exact value;
/// a value with no such text (an integer, a float) is written as [`format_like`] writes it.
pub fn format_mixed(value: Num, like: &Slot) -> String {
    match value {
        Num::Ratio { n, d } if d > 1 && n > 0 => {
            let (whole, part) = (n / d, n % d);
            let whole = if like.thousands {
                group_thousands(&whole.to_string())
            } else {
                whole.to_string()
            };
            if whole == "0" {
                format!("{part}/{d}")
            } else {
                format!("{whole} {part}/{d}")
            }
        }
        _ => format_like(value, like),
    }
}

fn capitalise(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

pub fn group_thousands(s: &str) -> String {
    let (sign, rest) = match s.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", s),
    };
    let (int, frac) = match rest.find('.') {
        Some(p) => cut::split(rest, p),
        None => (rest, ""),
    };
    let digits = int.chars().count();
    let mut out = String::with_capacity(s.len() + digits / 3);
    out.push_str(sign);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (digits - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str(frac);
    out
}
