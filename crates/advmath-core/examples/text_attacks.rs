//! Runs the `names` and `noop` text attacks over a JSON Lines file of `{"question"}` rows and
//! prints, per attack, how many questions got a variant and why the others did not; with
//! `--show N`, the first N variants of each, for reading by hand.
//!
//! `cargo run -p advmath-core --example text_attacks -- ../shared/data/gsm8k/test.jsonl --show 5`

use std::collections::BTreeMap;

use advmath_core::attack::text::{names::rename, noop::insert_noop};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .expect("usage: text_attacks FILE.jsonl [--show N]");
    let show: usize = args
        .iter()
        .position(|a| a == "--show")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(0);
    let text = std::fs::read_to_string(path).expect("readable file");
    let mut tally: BTreeMap<(&str, String), usize> = BTreeMap::new();
    let (mut shown_names, mut shown_noop) = (0, 0);
    for (line, row) in text.lines().enumerate() {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(row) else {
            continue;
        };
        let Some(q) = value.get("question").and_then(|q| q.as_str()) else {
            continue;
        };
        let seed = line as u64;
        match rename(q, seed) {
            Ok(r) => {
                *tally.entry(("names", "made".into())).or_default() += 1;
                if shown_names < show {
                    shown_names += 1;
                    println!("names {line}: {:?}\n  {q}\n  {}", r.swaps, r.text);
                }
            }
            Err(e) => {
                if std::env::var("SHOW_REFUSED").is_ok_and(|v| v == e.name()) {
                    println!("refused {line}: {q}");
                }
                *tally.entry(("names", e.name().into())).or_default() += 1
            }
        }
        match insert_noop(q, seed) {
            Ok(n) => {
                *tally.entry(("noop", "made".into())).or_default() += 1;
                if shown_noop < show {
                    shown_noop += 1;
                    println!("noop {line} ({}): {}", n.number, n.text);
                }
            }
            Err(e) => {
                if std::env::var("SHOW_REFUSED").is_ok_and(|v| v == e.name()) {
                    println!("refused {line}: {q}");
                }
                *tally.entry(("noop", e.name().into())).or_default() += 1
            }
        }
    }
    for ((attack, what), n) in tally {
        println!("{attack}\t{what}\t{n}");
    }
}
