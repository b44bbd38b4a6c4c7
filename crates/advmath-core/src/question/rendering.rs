//! A question with new numbers: the template (each slot a `{i}`), filled again with each
//! number written in its original's style (thousands separators, money decimals, a capital at
//! the start of a sentence, no float noise).

use super::{cardinal_word, Slot};
use crate::num::{format_fixed, Num};

/// The question with slot `i` replaced by `{i}`; literal braces are doubled so the template is
/// unambiguous.
pub fn template(text: &str, slots: &[Slot]) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut pos = 0;
    for (i, s) in slots.iter().enumerate() {
        push_escaped(&mut out, &text[pos..s.start]);
        out.push('{');
        out.push_str(&i.to_string());
        out.push('}');
        pos = s.end;
    }
    push_escaped(&mut out, &text[pos..]);
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
/// wrote in their place (0: none).
pub fn render_with(
    template: &str,
    values: &[String],
    mut after_slot: impl FnMut(usize, &str, &mut String) -> usize,
) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let bytes = template.as_bytes();
    let mut i = 0;
    while i < template.len() {
        let c = bytes[i];
        if (c == b'{' || c == b'}') && bytes.get(i + 1) == Some(&c) {
            out.push(c as char);
            i += 2;
            continue;
        }
        if c != b'{' {
            let next = template[i + 1..]
                .find(['{', '}'])
                .map_or(template.len(), |j| i + 1 + j);
            out.push_str(&template[i..next]);
            i = next;
            continue;
        }
        let close = template[i..].find('}').map_or(template.len(), |j| i + j);
        let idx: usize = template[i + 1..close].parse().unwrap_or(usize::MAX);
        i = (close + 1).min(template.len());
        if let Some(v) = values.get(idx) {
            out.push_str(v);
            i += after_slot(idx, &template[i..], &mut out);
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
        Some(p) => (&rest[..p], &rest[p..]),
        None => (rest, ""),
    };
    let mut out = String::with_capacity(s.len() + int.len() / 3);
    out.push_str(sign);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str(frac);
    out
}
