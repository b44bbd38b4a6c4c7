//! Publish variant datasets as a folder ready for `hf upload`: sharded Parquet per config and
//! split, and a dataset card (YAML front matter the Hub validates, and a body a stranger can use).
//!
//! The folder is written under a temporary name and renamed into place, so a failed run never
//! leaves a half-written dataset; the same inputs give byte-identical files.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::ingest::read_problems;
use crate::schema;
use crate::table::{read_batches, AtomicParquet};

/// A checked publish config.
#[derive(Clone, Debug)]
pub struct PublishConfig {
    pub tables: PathBuf,
    pub out: PathBuf,
    pub name: String,
    /// Extra tables to publish as configs of their own (`responses`, `features`).
    pub include: Vec<String>,
    pub force: bool,
    pub max_shard_rows: usize,
}

/// What was published: config -> split -> rows.
#[derive(Clone, Debug, Default)]
pub struct PublishSummary {
    pub configs: BTreeMap<String, BTreeMap<String, usize>>,
    /// config -> split -> bytes of its Parquet shards.
    pub bytes: BTreeMap<String, BTreeMap<String, u64>>,
}

/// `advmath-<dataset>[-<dataset>...]` from the variants partitions of `tables`.
pub fn default_name(tables: &Path) -> String {
    let names: Vec<String> = crate::table::partitions(&tables.join("variants"), "dataset")
        .unwrap_or_default()
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    if names.is_empty() {
        "advmath-variants".into()
    } else {
        format!("advmath-{}", names.join("-"))
    }
}

impl PublishSummary {
    /// One line per (config, split), tab-separated, for stdout.
    pub fn write_table(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        writeln!(out, "config\tsplit\trows")?;
        for (config, splits) in &self.configs {
            for (split, rows) in splits {
                writeln!(out, "{config}\t{split}\t{rows}")?;
            }
        }
        Ok(())
    }
}

/// Source datasets: licence id, how the card names the source, its citation key.
fn source_info(dataset: &str) -> (&'static str, &'static str) {
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

fn size_category(rows: usize) -> &'static str {
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

/// The published schema of a variants config: the partition columns become real columns.
pub fn published_variants_schema() -> SchemaRef {
    let mut fields = vec![
        Field::new("dataset", DataType::Utf8, false),
        Field::new("attack", DataType::Utf8, false),
    ];
    fields.extend(
        schema::variants()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone()),
    );
    Arc::new(Schema::new(fields))
}

/// Config name for an attack (`m3+punct30` -> `m3_punct30`: config names stay path- and glob-safe).
pub fn config_name(attack: &str) -> String {
    attack.replace('+', "_")
}

fn parquet_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| Error::file(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    Ok(files)
}

/// Shards of one (config, split), named once the count is known.
struct ShardWriter {
    dir: PathBuf,
    split: String,
    schema: SchemaRef,
    max_rows: usize,
    current: Option<(AtomicParquet, usize)>,
    shards: Vec<PathBuf>,
    rows: usize,
}

impl ShardWriter {
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            if self
                .current
                .as_ref()
                .is_none_or(|(_, n)| *n >= self.max_rows)
            {
                self.close_current()?;
                let path = self.dir.join(format!(
                    "{}-{:05}.partial.parquet",
                    self.split,
                    self.shards.len()
                ));
                self.current = Some((AtomicParquet::create(&path, self.schema.clone())?, 0));
                self.shards.push(path);
            }
            let (w, n) = self.current.as_mut().expect("opened above");
            let take = (self.max_rows - *n).min(batch.num_rows() - offset);
            w.write(&batch.slice(offset, take))?;
            *n += take;
            offset += take;
            self.rows += take;
        }
        Ok(())
    }

    fn close_current(&mut self) -> Result<()> {
        if let Some((w, _)) = self.current.take() {
            w.finish()?;
        }
        Ok(())
    }

    /// Close and rename to `<split>-NNNNN-of-MMMMM.parquet`; rows and bytes written.
    fn finish(mut self) -> Result<(usize, u64)> {
        self.close_current()?;
        let total = self.shards.len();
        let mut bytes = 0;
        for (i, p) in self.shards.iter().enumerate() {
            let target = self
                .dir
                .join(format!("{}-{:05}-of-{:05}.parquet", self.split, i, total));
            fs::rename(p, &target).map_err(|e| Error::file(&target, e))?;
            bytes += fs::metadata(&target)
                .map_err(|e| Error::file(&target, e))?
                .len();
        }
        Ok((self.rows, bytes))
    }
}

/// Writers for every split of one config.
struct ConfigWriter {
    dir: PathBuf,
    schema: SchemaRef,
    max_rows: usize,
    splits: BTreeMap<String, ShardWriter>,
}

impl ConfigWriter {
    fn new(dir: PathBuf, schema: SchemaRef, max_rows: usize) -> Self {
        ConfigWriter {
            dir,
            schema,
            max_rows,
            splits: BTreeMap::new(),
        }
    }

    /// Route each row of `batch` to its split.
    fn write(&mut self, batch: &RecordBatch, split_of_row: &[String]) -> Result<()> {
        let distinct: BTreeSet<&String> = split_of_row.iter().collect();
        for split in distinct {
            let mask: arrow::array::BooleanArray =
                split_of_row.iter().map(|s| Some(s == split)).collect();
            let part = if mask.true_count() == batch.num_rows() {
                batch.clone()
            } else {
                filter_record_batch(batch, &mask)?
            };
            let writer = self
                .splits
                .entry(split.clone())
                .or_insert_with(|| ShardWriter {
                    dir: self.dir.clone(),
                    split: split.clone(),
                    schema: self.schema.clone(),
                    max_rows: self.max_rows,
                    current: None,
                    shards: Vec::new(),
                    rows: 0,
                });
            writer.write(&part)?;
        }
        Ok(())
    }

    fn finish(self) -> Result<BTreeMap<String, (usize, u64)>> {
        self.splits
            .into_iter()
            .map(|(s, w)| Ok((s, w.finish()?)))
            .collect()
    }
}

fn constant_column(value: &str, rows: usize) -> ArrayRef {
    Arc::new(StringArray::from(vec![value; rows]))
}

/// Publish the variants (and included tables) of `config.tables` into `config.out`.
pub fn publish(config: &PublishConfig) -> Result<PublishSummary> {
    if config.out.exists() && !config.force {
        return Err(Error::Usage(format!(
            "{} exists; pass --force to replace it",
            config.out.display()
        )));
    }
    let problems = read_problems(&config.tables)?;
    let split_of: HashMap<String, String> = problems
        .iter()
        .map(|p| (p.problem_id.clone(), p.split.clone()))
        .collect();
    let parent = config
        .out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|e| Error::file(parent, e))?;
    let staging = parent.join(format!(
        ".{}.publishing-{}",
        config
            .out
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("dataset"),
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&staging);
    let result = write_folder(config, &staging, &split_of);
    let summary = match result {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    if config.out.exists() {
        let old = parent.join(format!(
            ".{}.old-{}",
            config
                .out
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("dataset"),
            std::process::id()
        ));
        fs::rename(&config.out, &old).map_err(|e| Error::file(&config.out, e))?;
        fs::rename(&staging, &config.out).map_err(|e| Error::file(&config.out, e))?;
        let _ = fs::remove_dir_all(&old);
    } else {
        fs::rename(&staging, &config.out).map_err(|e| Error::file(&config.out, e))?;
    }
    Ok(summary)
}

fn split_for_problem(split_of: &HashMap<String, String>, problem_id: &str) -> String {
    split_of
        .get(problem_id)
        .cloned()
        .unwrap_or_else(|| "test".into())
}

fn write_folder(
    config: &PublishConfig,
    staging: &Path,
    split_of: &HashMap<String, String>,
) -> Result<PublishSummary> {
    let variants_dir = config.tables.join("variants");
    let datasets = crate::table::partitions(&variants_dir, "dataset")?;
    if datasets.is_empty() {
        return Err(Error::invalid(
            variants_dir.display(),
            "no variants to publish (run `advmath generate` first)",
        ));
    }
    let schema = published_variants_schema();
    let mut writers: BTreeMap<String, ConfigWriter> = BTreeMap::new();
    let mut sources = BTreeSet::new();
    for (dataset, ddir) in &datasets {
        sources.insert(dataset.clone());
        for (attack, adir) in crate::table::partitions(ddir, "attack")? {
            let name = config_name(&attack);
            let writer = writers.entry(name.clone()).or_insert_with(|| {
                ConfigWriter::new(
                    staging.join("data").join(&name),
                    schema.clone(),
                    config.max_shard_rows,
                )
            });
            for file in parquet_files(&adir)? {
                for batch in read_batches(&file)? {
                    let n = batch.num_rows();
                    let mut cols = vec![constant_column(dataset, n), constant_column(&attack, n)];
                    cols.extend(batch.columns().iter().cloned());
                    let out = RecordBatch::try_new(schema.clone(), cols)?;
                    let pids = crate::table::text_column(&batch, "problem_id", &file)?;
                    let splits: Vec<String> = (0..n)
                        .map(|i| split_for_problem(split_of, pids.value(i)))
                        .collect();
                    writer.write(&out, &splits)?;
                }
            }
        }
    }
    for table in &config.include {
        include_table(config, staging, table, split_of, &mut writers)?;
    }
    let mut summary = PublishSummary::default();
    let mut schemas = BTreeMap::new();
    for (name, w) in writers {
        schemas.insert(name.clone(), w.schema.clone());
        let splits = w.finish()?;
        summary.bytes.insert(
            name.clone(),
            splits.iter().map(|(s, (_, b))| (s.clone(), *b)).collect(),
        );
        summary
            .configs
            .insert(name, splits.into_iter().map(|(s, (r, _))| (s, r)).collect());
    }
    let runs = read_runs(&config.tables, &sources);
    let card = dataset_card(config, &summary, &schemas, &sources, &runs);
    crate::table::write_text(&staging.join("README.md"), &card)?;
    let licences: BTreeSet<&str> = sources.iter().map(|d| source_info(d).0).collect();
    if licences.len() > 1 {
        let mut text = String::from("# Licences

This dataset mixes sources under different licences; the `dataset` column of each row names its source.\n\n");
        for d in &sources {
            let _ = writeln!(text, "- `{d}`: {}", source_info(d).1);
        }
        crate::table::write_text(&staging.join("LICENSE.md"), &text)?;
    }
    Ok(summary)
}

/// Another table (`responses`, `features`) as a config of its own; hive partition values become
/// columns, rows go to the split of their problem.
fn include_table(
    config: &PublishConfig,
    staging: &Path,
    table: &str,
    split_of: &HashMap<String, String>,
    writers: &mut BTreeMap<String, ConfigWriter>,
) -> Result<()> {
    let dir = config.tables.join(table);
    if !dir.is_dir() {
        return Err(Error::invalid(
            dir.display(),
            format!("--include {table}: no such table"),
        ));
    }
    let files = crate::table::parquet_files_under(&dir)?;
    for (file, parts) in files {
        for batch in read_batches(&file)? {
            let n = batch.num_rows();
            let mut fields: Vec<Field> = parts
                .iter()
                .map(|(k, _)| Field::new(k, DataType::Utf8, false))
                .collect();
            fields.extend(batch.schema().fields().iter().map(|f| f.as_ref().clone()));
            let mut cols: Vec<ArrayRef> =
                parts.iter().map(|(_, v)| constant_column(v, n)).collect();
            cols.extend(batch.columns().iter().cloned());
            let schema = Arc::new(Schema::new(fields));
            let out = RecordBatch::try_new(schema.clone(), cols)?;
            let splits: Vec<String> = if let Some(p) = batch.column_by_name("problem_id") {
                let p = p.as_string::<i32>();
                (0..n)
                    .map(|i| split_for_problem(split_of, p.value(i)))
                    .collect()
            } else if let Some(v) = batch.column_by_name("variant_id") {
                let v = v.as_string::<i32>();
                (0..n)
                    .map(|i| {
                        let id = v.value(i);
                        let pid = id.rsplitn(3, '/').nth(2).unwrap_or(id);
                        split_for_problem(split_of, pid)
                    })
                    .collect()
            } else {
                vec!["test".to_string(); n]
            };
            let writer = writers.entry(table.to_string()).or_insert_with(|| {
                ConfigWriter::new(
                    staging.join("data").join(table),
                    schema.clone(),
                    config.max_shard_rows,
                )
            });
            if writer.schema != schema {
                return Err(Error::invalid(
                    file.display(),
                    format!("schema differs from the rest of {table}"),
                ));
            }
            writer.write(&out, &splits)?;
        }
    }
    Ok(())
}

fn read_runs(tables: &Path, sources: &BTreeSet<String>) -> Vec<serde_json::Value> {
    sources
        .iter()
        .filter_map(|d| {
            let text = fs::read_to_string(crate::generate::run_record_path(tables, d)).ok()?;
            serde_json::from_str(&text).ok()
        })
        .collect()
}

fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

fn dataset_card(
    config: &PublishConfig,
    summary: &PublishSummary,
    schemas: &BTreeMap<String, SchemaRef>,
    sources: &BTreeSet<String>,
    runs: &[serde_json::Value],
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
        let _ = writeln!(y, "license_link: LICENSE.md");
    }
    y.push_str("language:\n- en\ntask_categories:\n- question-answering\n- text-generation\n");
    let _ = writeln!(y, "size_categories:\n- {}", size_category(total));
    y.push_str("tags:\n- math\n- math-word-problems\n- adversarial\n- robustness\n- advmath\n");
    y.push_str("source_datasets:\n");
    for d in sources {
        // The default dataset was written for advmath: it is an original source, not an extension.
        let source = if d == "default" {
            "original".to_string()
        } else {
            format!("extended|{d}")
        };
        let _ = writeln!(y, "- {}", yaml_str(&source));
    }
    y.push_str("configs:\n");
    let default = if summary.configs.contains_key("m3") {
        "m3"
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
                "  - split: {split}\n    path: {}",
                yaml_str(&format!("data/{name}/{split}-*.parquet"))
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
                "  - name: {split}\n    num_bytes: {bytes}\n    num_examples: {rows}"
            );
        }
    }
    y.push_str("---\n\n");

    let mut b = String::new();
    let _ = writeln!(b, "# {}\n", config.name);
    let _ = writeln!(
        b,
        "Adversarial variants of grade-school math word problems, made with [advmath](https://crates.io/crates/advmath) {}. \
         Each problem's solution program is parsed into a tree of operations over the numbers of the question; the numbers are \
         re-sampled under the constraints of the original (every intermediate result keeps being an integer, positive, or a \
         proper fraction when it was), the answer is recomputed exactly, and the question is re-rendered. Punctuation-noise \
         configs insert marks before random words and keep the answer.\n",
        env!("CARGO_PKG_VERSION")
    );
    b.push_str("## Configs\n\n| config | split | rows |\n|---|---|---:|\n");
    for (name, splits) in &summary.configs {
        for (split, rows) in splits {
            let _ = writeln!(b, "| {name} | {split} | {rows} |");
        }
    }
    b.push_str("\n`original` holds the unmodified problems, so accuracy on the originals and on the variants can be compared \
        problem by problem (`problem_id`).\n\n## How the variants were made\n\n");
    b.push_str("- **M1** (free): new numbers drawn uniformly with up to c significant digits (divisors up to c/2).\n");
    b.push_str("- **M2** (same digit count): each number keeps its number of digits (one-digit numbers draw from 1-99).\n");
    b.push_str("- **M3** (same significant digits): one-digit leading parts draw from 1-9, larger ones from a Poisson around the original.\n");
    b.push_str("- **punctNN** (ArithmAttack): one of `. , ! ? ; :` inserted before NN% of the words; `m3_punctNN` noises M3 variants.\n\n");
    if runs.is_empty() {
        b.push_str("Generation settings were not recorded with these tables.\n\n");
    } else {
        b.push_str("| source | attacks | attempts per problem (N) | variants per problem (m) | digits (c) | noise levels | seed | advmath |\n|---|---|---:|---:|---:|---|---:|---|\n");
        for r in runs {
            let list = |k: &str| {
                r[k].as_array()
                    .map(|a| {
                        a.iter()
                            .map(|v| v.to_string().trim_matches('"').to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default()
            };
            let _ = writeln!(
                b,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                r["dataset"].as_str().unwrap_or(""),
                list("attacks"),
                r["attempts"],
                r["variants"],
                r["digits"],
                list("noise_levels"),
                r["seed"],
                r["advmath_version"].as_str().unwrap_or("")
            );
        }
        b.push('\n');
    }
    b.push_str("## Fields\n\n| field | type | meaning |\n|---|---|---|\n");
    let vschema = published_variants_schema();
    for f in vschema.fields() {
        let doc = schema::VARIANTS_DOC
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
        - Programs were given (written by GPT-4 in the Xie et al. release) or synthesised from worked solutions; a program that \
        misreads its problem yields variants whose answers follow the program, not the text. Problems whose program could not \
        be validated are excluded.\n- Numbers are rendered with at most 3 decimals (money keeps 2); answers may be fractions shown \
        to 6 decimals (`answer_exact` has the exact value).\n- English only.\n\n");
    b.push_str("## Licences of the sources\n\n");
    for d in sources {
        let _ = writeln!(b, "- `{d}`: {}", source_info(d).1);
    }
    if licences.len() > 1 {
        b.push_str("\nThe sources carry different licences (`license: other`); each row's `dataset` column names its source, and \
            the licence of that source applies to the row.\n");
    }
    b.push_str("\n## Citation\n\n```bibtex\n@inproceedings{xie2024adversarial,\n  title     = {Adversarial Math Word Problem Generation},\n  author    = {Xie, Roy and Huang, Chengxuan and Wang, Junlin and Dhingra, Bhuwan},\n  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2024},\n  year      = {2024},\n  note      = {arXiv:2402.17916}\n}\n\n@article{abedin2025arithmattack,\n  title   = {ArithmAttack: Evaluating Robustness of LLMs to Noisy Context in Math Problem Solving},\n  author  = {Abedin, Zain Ul and Qamar, Shahzeb and Flek, Lucie and Karimi, Akbar},\n  year    = {2025}\n}\n```\n");
    y + &b
}

fn dtype_label(f: &Field) -> String {
    match f.data_type() {
        DataType::List(item) => format!("list of {}", dtype(item.data_type())),
        t => dtype(t).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_categories_follow_the_hub() {
        assert_eq!(size_category(0), "n<1K");
        assert_eq!(size_category(999), "n<1K");
        assert_eq!(size_category(1000), "1K<n<10K");
        assert_eq!(size_category(250_000), "100K<n<1M");
    }

    #[test]
    fn config_names_are_path_safe() {
        assert_eq!(config_name("m3+punct30"), "m3_punct30");
        assert_eq!(config_name("original"), "original");
    }
}
