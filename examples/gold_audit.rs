//! The gold-answer audit's material (`reports/gold_audit.md`) for a tables folder that has been
//! ingested and generated: per dataset and numeric attack, the variants and those that change a
//! number word, make a written fraction improper or push a percentage past 100; then, for every
//! problem whose variable leaves include anything but a plain digit link, its original, how each
//! number is linked, and three variants with their gold answers, for a person to read.
//!
//! ```sh
//! cargo run --example gold_audit -- <tables> [--review]
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use advmath::generate::audit::text_property_breaks;
use advmath::program::links::{describe_links, link_kinds, LinkKind};
use advmath::question::find_slots;
use advmath::store::{parquet_files_under, read_batches, text_column};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tables = PathBuf::from(args.first().expect("usage: gold_audit <tables> [--review]"));
    println!("| dataset | attack | variants | problems | number word changed | improper fraction | percentage over 100 | unit length changed | problems with a break |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let counts = text_property_breaks(&tables)?;
    let mut problems: BTreeMap<(String, String), usize> = BTreeMap::new();
    for file in parquet_files_under(&advmath::store::variants::dir(&tables))? {
        let attack = file
            .1
            .iter()
            .find(|(k, _)| k == "attack")
            .map(|(_, v)| v.clone());
        let dataset = file
            .1
            .iter()
            .find(|(k, _)| k == "dataset")
            .map(|(_, v)| v.clone());
        let (Some(dataset), Some(attack)) = (dataset, attack) else {
            continue;
        };
        let mut ids = std::collections::BTreeSet::new();
        for b in read_batches(&file.0)? {
            ids.extend(
                text_column(&b, "problem_id", &file.0)?
                    .iter()
                    .flatten()
                    .map(String::from),
            );
        }
        *problems.entry((dataset, attack)).or_default() += ids.len();
    }
    for ((dataset, attack), b) in &counts {
        println!(
            "| {dataset} | {attack} | {} | {} | {} | {} | {} | {} | {} |",
            b.variants,
            problems
                .get(&(dataset.clone(), attack.clone()))
                .unwrap_or(&0),
            b.number_word_changed,
            b.improper_fraction,
            b.percentage_over_100,
            b.unit_length_changed,
            b.problems.len()
        );
    }
    if !args.iter().any(|a| a == "--review") {
        return Ok(());
    }
    let variants = read_variants(&tables)?;
    for r in advmath::store::problems::read_problems(&tables)? {
        let Some(tree) = r.tree.as_ref().filter(|_| r.is_valid()) else {
            continue;
        };
        let slots = find_slots(&r.question);
        let kinds = link_kinds(tree, &r.question, &slots);
        if kinds.iter().all(|(_, k)| *k == LinkKind::Digits) {
            continue;
        }
        println!(
            "\n## {}\n{}\ngold {}; links {}",
            r.problem_id,
            r.question,
            r.answer.as_deref().unwrap_or("?"),
            describe_links(tree, &r.question, &slots)
        );
        for attack in ["m3", "m2", "m1"] {
            if let Some(vs) = variants.get(&(r.problem_id.clone(), attack.to_string())) {
                for (q, a) in vs.iter().take(3) {
                    println!("- {attack}: {q}  => {a}");
                }
                break;
            }
        }
    }
    Ok(())
}

type Variants = BTreeMap<(String, String), Vec<(String, String)>>;

/// (problem, attack) -> (question, gold) of its numeric variants, in variant order.
fn read_variants(tables: &std::path::Path) -> anyhow::Result<Variants> {
    let mut out = Variants::new();
    for (file, parts) in parquet_files_under(&advmath::store::variants::dir(tables))? {
        let Some(attack) = parts
            .iter()
            .find(|(k, _)| k == "attack")
            .map(|(_, v)| v.clone())
        else {
            continue;
        };
        for b in read_batches(&file)? {
            let (ids, qs, answers) = (
                text_column(&b, "problem_id", &file)?,
                text_column(&b, "question", &file)?,
                text_column(&b, "answer", &file)?,
            );
            for i in 0..b.num_rows() {
                out.entry((ids.value(i).to_string(), attack.clone()))
                    .or_default()
                    .push((qs.value(i).to_string(), answers.value(i).to_string()));
            }
        }
    }
    Ok(out)
}
