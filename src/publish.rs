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

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

mod card;
mod hub;
pub mod lm_eval;
mod size;

use crate::error::{Error, Result};
use crate::llm::prompt::Template;
use crate::output::tsv_row;
use crate::store::commit::{StagedFolder, TablesLock};
use crate::store::problems::read_problems;
use crate::store::{columns, read_batches, variants, AtomicParquet};
use crate::vocab::Attack;
use card::{dataset_card, read_runs, source_info};

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
    /// The prompt the lm-evaluation-harness tasks ask with.
    pub template: Template,
}

impl PublishConfig {
    /// Rows per Parquet shard unless told otherwise.
    pub const MAX_SHARD_ROWS: usize = 500_000;

    /// The variants of `tables` into `out`, named from their datasets ([`default_name`]), no
    /// extra table, an existing `out` refused.
    pub fn new(tables: PathBuf, out: PathBuf) -> Self {
        PublishConfig {
            name: default_name(&tables),
            tables,
            out,
            include: Vec::new(),
            force: false,
            max_shard_rows: Self::MAX_SHARD_ROWS,
            template: Template::default(),
        }
    }
}

/// What was published: config -> split -> rows.
#[derive(Clone, Debug, Default)]
pub struct PublishSummary {
    pub configs: BTreeMap<String, BTreeMap<String, usize>>,
    /// config -> split -> its size as `datasets` computes it (Arrow bytes, not file bytes).
    pub bytes: BTreeMap<String, BTreeMap<String, u64>>,
    /// dataset -> (numeric variants, those whose gold two or more independent programs give).
    pub confirmed: BTreeMap<String, (usize, usize)>,
}

/// `advmath-<dataset>[-<dataset>...]` from the variants partitions of `tables`.
pub fn default_name(tables: &Path) -> String {
    let names: Vec<String> = variants::datasets(tables)
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
        tsv_row(&mut *out, ["config", "split", "rows"])?;
        for (config, splits) in &self.configs {
            for (split, rows) in splits {
                tsv_row(
                    &mut *out,
                    [config.as_str(), split.as_str(), &rows.to_string()],
                )?;
            }
        }
        Ok(())
    }
}

/// The published schema of a variants config: the partition columns become real columns.
pub fn published_variants_schema() -> SchemaRef {
    published_schema_of(&crate::store::variants::schema())
}

/// The published schema of one attack's config (its answers nullable when it has none).
fn published_schema_for(attack: &str) -> SchemaRef {
    published_schema_of(&crate::store::variants::schema_for(attack))
}

fn published_schema_of(variants: &SchemaRef) -> SchemaRef {
    let mut fields = vec![
        Field::new(columns::DATASET, DataType::Utf8, false),
        Field::new(columns::ATTACK, DataType::Utf8, false),
    ];
    fields.extend(variants.fields().iter().map(|f| f.as_ref().clone()));
    Arc::new(Schema::new(fields))
}

/// Config name for an attack (`m3+punct30` -> `m3_punct30`: config names stay path- and glob-safe).
pub fn config_name(attack: &str) -> String {
    attack.replace('+', "_")
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
                let path = hub::partial_shard(&self.dir, &self.split, self.shards.len());
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

    /// Close and rename to `<split>-NNNNN-of-MMMMM.parquet`; rows written, and their size as
    /// `datasets` computes it.
    fn finish(mut self) -> Result<(usize, u64)> {
        self.close_current()?;
        let total = self.shards.len();
        let mut bytes = 0;
        for (i, p) in self.shards.iter().enumerate() {
            let target = hub::shard(&self.dir, &self.split, i, total);
            fs::rename(p, &target).map_err(|e| Error::file(&target, e))?;
            crate::store::atomic::step(&target, "renamed in")?;
            bytes += size::arrow_bytes(&target)?;
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
        return Err(Error::setting(
            "force",
            format!(
                "is needed to publish into {}, which exists: with it, publish replaces what it writes ({}) and keeps the rest (.git/, .gitattributes, other files); or name a new folder with --out",
                config.out.display(),
                hub::OWNED.join(", ")
            ),
        ));
    }
    let _read = TablesLock::shared(&config.tables)?;
    for table in ["problems", "variants"]
        .into_iter()
        .chain(config.include.iter().map(String::as_str))
    {
        crate::store::foreign::refuse_foreign_in(&config.tables, table)?;
    }
    let problems = read_problems(&config.tables)?;
    let split_of: HashMap<String, String> = problems
        .iter()
        .map(|p| (p.problem_id.clone(), p.split.clone()))
        .collect();
    // A split names the Hub's shard files and a key of the card: a value a problems table
    // carries is untrusted, so only what the Hub itself accepts as a split name goes through.
    if let Some(p) = problems.iter().find(|p| !is_hub_split(&p.split)) {
        return Err(Error::invalid(
            crate::store::problems::problems_path(&config.tables, &p.dataset, &p.split).display(),
            format!(
                "problem {}: split {:?} is not a split name the Hub accepts (letters, digits and `_`, in parts joined by `.`)",
                p.problem_id, p.split
            ),
        ));
    }
    let folder = StagedFolder::begin(&config.out, "publish", &config.tables)?;
    let summary = write_folder(config, &folder.staging, &split_of)?;
    // Publishing into a clone of a Hub repository: its `.git/`, `.gitattributes` and anything
    // else publish does not write stay as they are.
    folder.commit_keeping(hub::OWNED)?;
    let configs: usize = summary.configs.values().map(|s| s.len()).sum();
    let tally = crate::output::Tally {
        stage: "publish",
        unit: "config splits",
        read: configs,
        written: summary.configs.values().flat_map(|s| s.values()).sum(),
        ..Default::default()
    };
    crate::progress::note!("{}", tally.line());
    Ok(summary)
}

/// An attack whose gold a program computes from changed numbers (not the original, its noise or
/// a rewrite, whose gold is the dataset's own).
fn numeric_attack(attack: &str) -> bool {
    Attack::of(attack).is_some_and(Attack::changes_numbers)
}

/// The Hub's rule for a split name: `^\w+(\.\w+)*$`.
fn is_hub_split(split: &str) -> bool {
    split
        .split('.')
        .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
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
    let variants_dir = variants::dir(&config.tables);
    let mut confirmed_by_dataset: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let datasets = variants::datasets(&config.tables)?;
    if datasets.is_empty() {
        return Err(Error::missing_table(
            variants::TABLE,
            variants_dir,
            variants::MADE_BY,
        ));
    }
    let mut writers: BTreeMap<String, ConfigWriter> = BTreeMap::new();
    let mut sources = BTreeSet::new();
    let mut files = 0;
    for (_, ddir) in &datasets {
        for (_, adir) in variants::attacks(ddir)? {
            files += crate::store::parts(&adir)?.len() as u64;
        }
    }
    let progress = crate::progress::Progress::new("publish", "variant parts", files);
    let mut tasks = Vec::new();
    let mut config_problems: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (dataset, ddir) in &datasets {
        sources.insert(dataset.clone());
        for (attack, adir) in variants::attacks(ddir)? {
            let name = config_name(&attack);
            let mut task = lm_eval::Task {
                dataset: dataset.clone(),
                attack: attack.clone(),
                config: name.clone(),
                splits: BTreeSet::new(),
            };
            let schema = published_schema_for(&attack);
            let writer = writers.entry(name.clone()).or_insert_with(|| {
                ConfigWriter::new(
                    hub::config_dir(staging, &name),
                    schema.clone(),
                    config.max_shard_rows,
                )
            });
            for file in crate::store::parts(&adir)? {
                for batch in read_batches(&file)? {
                    let n = batch.num_rows();
                    let mut cols = vec![constant_column(dataset, n), constant_column(&attack, n)];
                    cols.extend(batch.columns().iter().cloned());
                    let out = RecordBatch::try_new(schema.clone(), cols)?;
                    let pids = variants::problem_ids_of(&batch, &file)?;
                    if numeric_attack(&attack) {
                        let confirmed = variants::confirmed_rows(&batch);
                        let entry = confirmed_by_dataset.entry(dataset.to_string()).or_default();
                        entry.0 += n;
                        entry.1 += confirmed;
                    }
                    let held = config_problems.entry(name.clone()).or_default();
                    for i in 0..n {
                        if !held.contains(pids.value(i)) {
                            held.insert(pids.value(i).to_string());
                        }
                    }
                    let splits: Vec<String> = (0..n)
                        .map(|i| split_for_problem(split_of, pids.value(i)))
                        .collect();
                    task.splits.extend(splits.iter().cloned());
                    writer.write(&out, &splits)?;
                }
                progress.inc(1);
            }
            tasks.push(task);
        }
    }
    progress.finish();
    lm_eval::write_tasks(staging, &tasks, &config.template)?;
    for table in &config.include {
        include_table(
            config,
            staging,
            table,
            split_of,
            &mut writers,
            config_problems.entry(table.clone()).or_default(),
        )?;
    }
    // A table without problem ids says nothing about problems.
    config_problems.retain(|_, held| !held.is_empty());
    let mut summary = PublishSummary {
        confirmed: confirmed_by_dataset,
        ..PublishSummary::default()
    };
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
    let runs = read_runs(&config.tables, &sources)?;
    let programs = crate::store::candidate_programs::valid_sources(&config.tables)?;
    let facts = card::CardFacts::read(
        &config.tables,
        config_problems,
        config.include.iter().any(|t| t == "responses"),
    )?;
    let card = dataset_card(
        config, &summary, &schemas, &sources, &runs, &programs, &facts,
    );
    crate::store::write_text(&hub::card(staging), &card)?;
    let licences: BTreeSet<&str> = sources.iter().map(|d| source_info(d).0).collect();
    if licences.len() > 1 {
        let mut text = String::from("# Licences

This dataset mixes sources under different licences; the `dataset` column of each row names its source.\n\n");
        for d in &sources {
            let _ = writeln!(text, "- `{d}`: {}", source_info(d).1);
        }
        crate::store::write_text(&hub::license(staging), &text)?;
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
    problems: &mut BTreeSet<String>,
) -> Result<()> {
    let dir = config.tables.join(table);
    if !dir.is_dir() {
        return Err(Error::invalid(
            dir.display(),
            format!("no table `{table}` to publish beside the variants"),
        ));
    }
    let files = crate::store::parquet_files_under(&dir)?;
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
            let splits: Vec<String> = if let Some(p) = batch.column_by_name(columns::PROBLEM_ID) {
                let p = p.as_string::<i32>();
                for i in 0..n {
                    if p.is_valid(i) && !problems.contains(p.value(i)) {
                        problems.insert(p.value(i).to_string());
                    }
                }
                (0..n)
                    .map(|i| split_for_problem(split_of, p.value(i)))
                    .collect()
            } else if let Some(v) = batch.column_by_name(columns::VARIANT_ID) {
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
                    hub::config_dir(staging, table),
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

#[cfg(test)]
mod tests {
    use super::card::size_category;
    use super::*;
    use crate::vocab::Attack;

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
        assert_eq!(config_name(Attack::ORIGINAL), Attack::ORIGINAL);
    }
}
