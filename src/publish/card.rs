//! The dataset card of a published folder: YAML front matter the Hub validates (licences derived
//! from the sources, configs, features and row counts) and a body a stranger can use.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use arrow::datatypes::{DataType, Field, SchemaRef};

use super::hub;
use super::{published_variants_schema, PublishConfig, PublishSummary};
use crate::program::ErrorKind;
use crate::store::runs::RunRecord;
use crate::vocab::{Attack, AttackSpec, Family, Kind, Method};

/// What the card says about the data itself, read from the tables: per source dataset its
/// problems, how many have a valid program and where the valid programs came from; per config
/// the problems it holds.
#[derive(Clone, Debug, Default)]
pub struct CardFacts {
    /// dataset -> its problems and their programs.
    pub datasets: BTreeMap<String, SourceFacts>,
    /// config -> distinct problems among its rows.
    pub config_problems: BTreeMap<String, usize>,
    /// With a `responses` config: per (model, template, run, simulated), the graded answers
    /// about variants and, per attack, the problems asked and the questions asked.
    pub responses: BTreeMap<ResponsesKey, (usize, AskedPerAttack)>,
}

/// One source dataset's problems as the card counts them.
#[derive(Clone, Debug, Default)]
pub struct SourceFacts {
    pub problems: usize,
    pub valid: usize,
    /// Origin category of the valid ones -> count.
    pub origins: BTreeMap<&'static str, usize>,
    /// Problems refused because the question contradicts the dataset's label (`wrong_label`,
    /// advmath's errata list): a user of the card should know their gold was not made up.
    pub wrong_labels: usize,
}

/// A published responses group: model, template, run (its settings), simulated.
pub type ResponsesKey = (String, String, String, bool);

/// attack -> (problems asked, questions asked).
pub type AskedPerAttack = BTreeMap<String, (BTreeSet<String>, usize)>;

/// The card's name for a `program_origin` value.
fn origin_category(origin: &str) -> &'static str {
    match origin {
        "given" => "given with the source",
        "gsm8k_annotations" | "multiarith_equations" => {
            "synthesised from the source's worked solutions"
        }
        o if o.starts_with("published:") => "published model-written programs",
        o if o.starts_with("llm:") => "model-written (advmath programs)",
        _ => "other",
    }
}

impl CardFacts {
    pub fn read(
        tables: &Path,
        config_problems: BTreeMap<String, BTreeSet<String>>,
        with_responses: bool,
    ) -> crate::error::Result<CardFacts> {
        let mut responses: BTreeMap<ResponsesKey, (usize, AskedPerAttack)> = BTreeMap::new();
        if with_responses {
            crate::store::responses::each_label(tables, &mut |l| {
                let mut parts = l.variant_id.rsplitn(3, '/');
                let (_, attack, problem) = (parts.next(), parts.next(), parts.next());
                let key = (
                    l.model.to_string(),
                    l.template.to_string(),
                    l.run.to_string(),
                    l.simulated,
                );
                let entry = responses.entry(key).or_default();
                entry.0 += 1;
                let per = entry
                    .1
                    .entry(attack.unwrap_or_default().to_string())
                    .or_default();
                per.0.insert(problem.unwrap_or_default().to_string());
                per.1 += 1;
            })?;
        }
        let mut datasets: BTreeMap<String, SourceFacts> = BTreeMap::new();
        for p in crate::store::problems::read_problems(tables)? {
            let entry = datasets.entry(p.dataset.clone()).or_default();
            entry.problems += 1;
            if p.is_valid() {
                entry.valid += 1;
                *entry
                    .origins
                    .entry(origin_category(&p.program_origin))
                    .or_default() += 1;
            }
            if p.error
                .as_ref()
                .is_some_and(|e| e.kind == ErrorKind::WrongLabel)
            {
                entry.wrong_labels += 1;
            }
        }
        Ok(CardFacts {
            datasets,
            config_problems: config_problems
                .into_iter()
                .map(|(c, s)| (c, s.len()))
                .collect(),
            responses,
        })
    }
}

/// Source datasets: licence id, how the card names the source, its citation key.
pub(super) fn source_info(dataset: &str) -> (&'static str, &'static str) {
    if dataset.starts_with("gsm8k") {
        (
            "mit",
            "GSM8K (Cobbe et al. 2021, openai/grade-school-math), MIT",
        )
    } else if dataset.starts_with("xie2024") {
        (
            "apache-2.0",
            "the Xie et al. 2024 release (ruoyuxie/adversarial_mwps_generation), Apache-2.0",
        )
    } else if dataset.starts_with("multiarith") {
        (
            "unknown",
            "MultiArith (Roy & Roth 2015), licence not declared by its distribution",
        )
    } else if dataset == "default" {
        (
            "mit",
            "the advmath default dataset, written for advmath, MIT",
        )
    } else {
        ("unknown", "a user-supplied source, licence not declared")
    }
}

pub(super) fn size_category(rows: usize) -> &'static str {
    match rows {
        0..=999 => "n<1K",
        1_000..=9_999 => "1K<n<10K",
        10_000..=99_999 => "10K<n<100K",
        100_000..=999_999 => "100K<n<1M",
        1_000_000..=9_999_999 => "1M<n<10M",
        10_000_000..=99_999_999 => "10M<n<100M",
        _ => "100M<n<1B",
    }
}

/// The Hub's dtype name for an Arrow type (`datasets` feature YAML).
fn feature_yaml(field: &Field, indent: &str) -> String {
    let name = field.name();
    match field.data_type() {
        DataType::List(item) => format!(
            "{indent}- name: {name}\n{indent}  list: {}\n",
            dtype(item.data_type())
        ),
        other => format!(
            "{indent}- name: {name}\n{indent}  dtype: {}\n",
            dtype(other)
        ),
    }
}

fn dtype(t: &DataType) -> &'static str {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 => "string",
        DataType::Int32 => "int32",
        DataType::Int64 => "int64",
        DataType::UInt64 => "uint64",
        DataType::Float64 => "float64",
        DataType::Float32 => "float32",
        DataType::Boolean => "bool",
        _ => "string",
    }
}

/// The run records of every source dataset, one per attack; one that cannot be read is an error
/// naming its file.
pub(super) fn read_runs(
    tables: &Path,
    sources: &BTreeSet<String>,
) -> crate::error::Result<Vec<RunRecord>> {
    let mut out = Vec::new();
    for d in sources {
        for (_, path) in crate::store::runs::generate_records(tables, d)? {
            out.push(RunRecord::read(&path)?);
        }
    }
    Ok(out)
}

fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

pub(super) fn dataset_card(
    config: &PublishConfig,
    summary: &PublishSummary,
    schemas: &BTreeMap<String, SchemaRef>,
    sources: &BTreeSet<String>,
    runs: &[RunRecord],
    programs: &BTreeMap<String, BTreeSet<(String, String)>>,
    facts: &CardFacts,
) -> String {
    let licences: BTreeSet<&str> = sources.iter().map(|d| source_info(d).0).collect();
    let total: usize = summary.configs.values().flat_map(|s| s.values()).sum();
    let mut y = String::from("---\n");
    let _ = writeln!(y, "pretty_name: {}", yaml_str(&config.name));
    if licences.len() == 1 {
        let _ = writeln!(
            y,
            "license: {}",
            licences.iter().next().expect("one licence")
        );
    } else {
        let _ = writeln!(y, "license: other");
        let _ = writeln!(y, "license_name: mixed-source-licences");
        let _ = writeln!(y, "license_link: {}", hub::LICENSE_FILE);
    }
    y.push_str("language:\n- en\ntask_categories:\n- question-answering\n- text-generation\n");
    let _ = writeln!(y, "size_categories:\n- {}", size_category(total));
    y.push_str("tags:\n- math\n- math-word-problems\n- adversarial\n- robustness\n- advmath\n");
    y.push_str("source_datasets:\n");
    for d in sources {
        // The default dataset was written for advmath: it is an original source, not an extension.
        let source = if d == "default" {
            hub::SOURCE_DATASET_ORIGINAL.to_string()
        } else {
            format!("extended|{d}")
        };
        let _ = writeln!(y, "- {}", yaml_str(&source));
    }
    y.push_str("configs:\n");
    // The paper's headline attack is the card's default config, where the run made it.
    let m3 = super::config_name(&Attack::Numeric(Method::M3).to_string());
    let default = if summary.configs.contains_key(&m3) {
        m3.as_str()
    } else {
        summary
            .configs
            .keys()
            .next()
            .map(String::as_str)
            .unwrap_or("")
    };
    for (name, splits) in &summary.configs {
        let _ = writeln!(y, "- config_name: {}", yaml_str(name));
        if name == default {
            y.push_str("  default: true\n");
        }
        y.push_str("  data_files:\n");
        for split in splits.keys() {
            let _ = writeln!(
                y,
                "  - split: {}\n    path: {}",
                yaml_str(split),
                yaml_str(&hub::split_glob(name, split))
            );
        }
    }
    y.push_str("dataset_info:\n");
    for (name, splits) in &summary.configs {
        let _ = writeln!(y, "- config_name: {}", yaml_str(name));
        y.push_str("  features:\n");
        for f in schemas[name].fields() {
            y.push_str(&feature_yaml(f, "  "));
        }
        y.push_str("  splits:\n");
        for (split, rows) in splits {
            let bytes = summary.bytes[name][split];
            let _ = writeln!(
                y,
                "  - name: {}\n    num_bytes: {bytes}\n    num_examples: {rows}",
                yaml_str(split)
            );
        }
    }
    y.push_str("---\n\n");

    let mut b = String::new();
    let _ = writeln!(b, "# {}\n", config.name);
    let _ = writeln!(
        b,
        "Adversarial variants of grade-school math word problems, made with advmath {}. \
         Each problem's solution program is parsed into a tree of operations over the numbers of the question; the numbers are \
         re-sampled under the constraints of the original (every intermediate result keeps being an integer, positive, or a \
         proper fraction when it was), the answer is recomputed exactly, and the question is re-rendered. Punctuation-noise \
         configs insert marks before random words and keep the answer.\n",
        env!("CARGO_PKG_VERSION")
    );
    b.push_str("## Configs\n\n| config | split | rows | problems | which problems |\n|---|---|---:|---:|---|\n");
    for (name, splits) in &summary.configs {
        let problems = facts
            .config_problems
            .get(name)
            .map(|n| n.to_string())
            .unwrap_or_default();
        let total: usize = facts.datasets.values().map(|d| d.problems).sum();
        let valid: usize = facts.datasets.values().map(|d| d.valid).sum();
        // Numeric variants exist only for problems with a valid program.
        let numeric = name.starts_with('m') || name == Attack::GUIDED;
        let which = match facts.config_problems.get(name) {
            _ if config.include.contains(name) => "a table of the run, not variants".to_string(),
            None => "a table of the run, not variants".to_string(),
            Some(&n) if numeric && n == valid => {
                format!("all {valid} problems with a valid program")
            }
            Some(&n) if numeric => format!(
                "{n} of the {valid} problems with a valid program: those whose draws reached variants"
            ),
            Some(&n) if n == total => {
                "every problem of the sources, with a valid program or not".to_string()
            }
            Some(&n) => format!("{n} of the {total} problems"),
        };
        for (split, rows) in splits {
            let _ = writeln!(b, "| {name} | {split} | {rows} | {problems} | {which} |");
        }
    }
    b.push_str("\n| source | problems | with a valid program | where the valid programs came from | labels refused |\n|---|---:|---:|---|---:|\n");
    for (dataset, s) in &facts.datasets {
        let origins: Vec<String> = s.origins.iter().map(|(o, n)| format!("{n} {o}")).collect();
        let _ = writeln!(
            b,
            "| {dataset} | {} | {} | {} | {} |",
            s.problems,
            s.valid,
            origins.join("; "),
            s.wrong_labels
        );
    }
    b.push_str("\n*Labels refused*: problems whose dataset answer their own question contradicts, on advmath's \
        errata list (`wrong_label`; each row with the answer the question gives and the worked solution's slip, found \
        by a blind read of every GSM8K test label: advmath's `reports/gold_audit.md`). They have no variant: advmath puts no \
        other answer in the label's place.\n");
    if !facts.responses.is_empty() {
        b.push_str("\nThe `responses` config holds graded answers of these models (the run names the settings beyond \
            model and template that differ from advmath's defaults: decoding, extraction; a simulated model is not an LLM):\n\n\
            | model | template | run | simulated | answers | problems and questions asked per attack |\n|---|---|---|---|---:|---|\n");
        for ((model, template, run, simulated), (answers, attacks)) in &facts.responses {
            let sample: Vec<String> = attacks
                .iter()
                .map(|(a, (problems, questions))| {
                    format!("{a}: {} problems, {questions} questions", problems.len())
                })
                .collect();
            let _ = writeln!(
                b,
                "| {model} | {template} | {run} | {} | {answers} | {} |",
                if *simulated { "yes" } else { "no" },
                sample.join("; ")
            );
        }
    }
    b.push_str("\n`original` holds the unmodified problems, so accuracy on the originals and on the variants can be compared \
        problem by problem (`problem_id`).\n\n## How the variants were made\n\n");
    b.push_str("- **M1** (free): new numbers drawn uniformly with up to c significant digits (divisors up to c/2).\n");
    b.push_str("- **M2** (same digit count): each number keeps its number of digits (one-digit numbers draw from 1-99).\n");
    b.push_str("- **M3** (same significant digits): one-digit leading parts draw from 1-9, larger ones from a Poisson around the original.\n");
    b.push_str("- **punctNN** (ArithmAttack): one of `. , ! ? ; :` inserted before NN% of the words; `m3_punctNN` (attack `m3+punctNN`) noises M3 variants.\n");
    b.push_str("- **names** (after GSM-Symbolic, Mirzadeh et al. 2024; advmath's extension, made by rule, not by hand): every person the question names gets a new first name, the same at every mention, of the gender its pronouns give (a name used for either where they do not), from a name list written for advmath (CC0-1.0); numbers and gold unchanged. A question that names no one, or with a word that may be an unseen person, has none. `m3_names` (attack `m3+names`) renames the people of M3 variants: GSM-Symbolic's names and numbers together.\n");
    b.push_str("- **noop** (after GSM-NoOp, Mirzadeh et al. 2024; GSM-Plus's distractor insertion; advmath's extension, made by rule from a fixed bank of sentence forms, not by hand): one sentence with a number the answer never reads, after the sentence that introduces what it speaks of (\"Five of the cookies were a bit smaller than average.\", \"Weng has 4 cousins.\"); the number is the `distractor` column, and the gold is unchanged. `m3_noop` (attack `m3+noop`) adds one to M3 variants.\n");
    b.push_str("- **missing** (GSM-Plus's critical thinking, Li et al. 2024; advmath's extension, made by rule, not by hand): one number the answer needs (the solution program says which) is replaced by an indefinite (\"a certain number of notebooks\", \"a certain amount\", \"a certain percentage\"), so the question has no answer: `answer` and `answer_exact` are null, never a number, and a reply is right only when it says the question cannot be answered (the lm-eval tasks grade it so with `advmath extract --no-answer`). `m3_missing` (attack `m3+missing`) takes a number out of M3 variants.\n\n");
    if runs.is_empty() {
        b.push_str("Generation settings were not recorded with these tables.\n\n");
    } else {
        b.push_str("| source | attack | attempts per problem (N) | variants per problem (m) | digits (c) | noise levels | seed | advmath |\n|---|---|---:|---:|---:|---|---:|---|\n");
        for r in runs {
            let list = |items: &[String]| items.join(", ");
            let levels: Vec<String> = r.noise_levels.iter().map(u32::to_string).collect();
            let attack = r.attack.clone().unwrap_or_else(|| list(&r.attacks));
            // A setting the attack does not use is a dash, not the run's value for another one:
            // noise has no attempts or digits, M1-M3 alone no noise levels.
            let specs: Vec<Attack> = attack
                .split(',')
                .filter_map(|a| AttackSpec::parse(a).ok())
                .map(|spec| spec.at_level(0))
                .collect();
            let numeric = specs.iter().any(|a| a.changes_numbers());
            let noise = specs.iter().any(|a| a.has(Family::Punct));
            let when = |used: bool, v: String| if used { v } else { "—".to_string() };
            let text_only = !numeric && specs.iter().any(|a| a.has_kind(Kind::Text));
            let variants = if numeric {
                r.variants
            } else if text_only {
                r.text_variants.unwrap_or(r.noise_variants)
            } else {
                r.noise_variants
            };
            let _ = writeln!(
                b,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                r.dataset,
                attack,
                when(numeric, r.attempts.to_string()),
                variants,
                when(numeric, r.digits.to_string()),
                when(noise, list(&levels)),
                r.seed,
                r.advmath_version
            );
        }
        b.push('\n');
        for r in runs {
            if let Some(g) = &r.guided {
                let _ = writeln!(
                    b,
                    "- **guided** ({}; advmath's extension, not a paper's attack): the {} M3 candidates per problem that a \
                     logistic fit of `{}`'s answers{} on {} training problems ({} answers, {:.1}% right; `{}` features) ranks \
                     likeliest to be answered wrongly, best first. The training problems are a seeded share {} of the problems \
                     (split seed {}); the {} held-out problems attacked are listed in the run record.",
                    r.dataset,
                    g.budget,
                    g.model,
                    g.run.as_deref().map(|run| format!(" (run `{run}`)")).unwrap_or_default(),
                    g.training_problems,
                    g.training_labels,
                    100.0 * g.training_accuracy,
                    g.feature_set,
                    g.train_share,
                    g.split_seed,
                    g.held_out.len()
                );
            }
        }
        if runs.iter().any(|r| r.guided.is_some()) {
            b.push('\n');
        }
    }
    b.push_str("## Fields\n\n| field | type | meaning |\n|---|---|---|\n");
    let vschema = published_variants_schema();
    for f in vschema.fields() {
        let doc = crate::store::variants::DOC
            .iter()
            .find(|(n, _)| n == f.name())
            .map(|(_, d)| *d)
            .unwrap_or("");
        let _ = writeln!(b, "| {} | {} | {} |", f.name(), dtype_label(f), doc);
    }
    let _ = writeln!(
        b,
        "\n## Usage\n\n```python\nfrom datasets import load_dataset\n\nds = load_dataset(\"<user>/{}\", \"m3\", split=\"{}\")\nprint(ds[0][\"question\"], ds[0][\"answer\"])\n```\n",
        config.name,
        summary.configs.get(default).and_then(|s| s.keys().next()).map(String::as_str).unwrap_or("test")
    );
    b.push_str("## Limitations\n\n- Variants keep the structure of the solution program, not necessarily the realism of the story: a new \
        number can be implausible for its context (a group of 97 friends, a 1-year-old father) even though every constraint holds.\n\
        - A program that misreads its problem yields variants whose answers follow the program, not the text (the table \
        under Configs says where each source's programs came from). Only problems with a valid program have numeric \
        variants (the Configs table says which problems each config holds).\n- Numbers are rendered with at most 3 decimals (money keeps 2); answers may be fractions shown \
        to 6 decimals (`answer_exact` has the exact value).\n- English only.\n\n");
    b.push_str(&programs_section(summary, programs));
    b.push_str("## Licences of the sources\n\n");
    for d in sources {
        let _ = writeln!(b, "- `{d}`: {}", source_info(d).1);
    }
    if licences.len() > 1 {
        b.push_str("\nThe sources carry different licences (`license: other`); each row's `dataset` column names its source, and \
            the licence of that source applies to the row.\n");
    }
    b.push_str("\n## Citation\n\n```bibtex\n@inproceedings{xie2024adversarial,\n  title     = {Adversarial Math Word Problem Generation},\n  author    = {Xie, Roy and Huang, Chengxuan and Wang, Junlin and Dhingra, Bhuwan},\n  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2024},\n  year      = {2024},\n  note      = {arXiv:2402.17916}\n}\n\n@article{abedin2025arithmattack,\n  title   = {ArithmAttack: Evaluating Robustness of LLMs to Noisy Context in Math Problem Solving},\n  author  = {Abedin, Zain Ul and Qamar, Shahzeb and Flek, Lucie and Karimi, Akbar},\n  year    = {2025}\n}\n\n@article{mirzadeh2024gsmsymbolic,\n  title   = {GSM-Symbolic: Understanding the Limitations of Mathematical Reasoning in Large Language Models},\n  author  = {Mirzadeh, Iman and Alizadeh, Keivan and Shahrokhi, Hooman and Tuzel, Oncel and Bengio, Samy and Farajtabar, Mehrdad},\n  year    = {2024},\n  note    = {arXiv:2410.05229}\n}\n```\n");
    y + &b
}

/// How many numeric variants two or more independent programs give the gold of, per dataset,
/// and where the second programs came from, with their licences.
fn programs_section(
    summary: &PublishSummary,
    programs: &BTreeMap<String, BTreeSet<(String, String)>>,
) -> String {
    let mut b = String::from("## Gold answers and the programs that give them\n\n");
    b.push_str(
        "A numeric variant's gold answer is its problem's program evaluated on the variant's numbers. Where other \
         programs of the same problem were ingested (`advmath ingest --candidates`), each one that reads every number \
         the variant changes had to compute the same answer, or the variant was not written; `support` counts the \
         programs that gave it.\n\n| dataset | numeric variants | gold given by 2 or more programs | share |\n|---|---:|---:|---:|\n",
    );
    for (dataset, (rows, confirmed)) in &summary.confirmed {
        let share = if *rows == 0 {
            0.0
        } else {
            100.0 * *confirmed as f64 / *rows as f64
        };
        let _ = writeln!(b, "| `{dataset}` | {rows} | {confirmed} | {share:.1}% |");
    }
    let listed: Vec<_> = programs
        .iter()
        .filter(|(d, _)| summary.confirmed.contains_key(*d))
        .collect();
    if listed.is_empty() {
        b.push_str(
            "\nNo second programs were ingested: each gold answer comes from one program.\n\n",
        );
        return b;
    }
    b.push_str("\nSecond programs (published model-written programs; none was run, each was read into advmath's whitelisted subset):\n\n");
    for (dataset, sources) in listed {
        for (family, source) in sources {
            let Some(p) = crate::published::PUBLICATIONS
                .iter()
                .find(|p| p.family.as_str() == family)
            else {
                continue;
            };
            let _ = writeln!(
                b,
                "- `{dataset}`: `{source}`, from [{}]({}), {}",
                p.project, p.url, p.licence
            );
        }
    }
    b.push('\n');
    b
}

fn dtype_label(f: &Field) -> String {
    match f.data_type() {
        DataType::List(item) => format!("list of {}", dtype(item.data_type())),
        t => dtype(t).to_string(),
    }
}
