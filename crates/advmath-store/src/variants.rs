//! The `variants` table: hive-partitioned as `variants/dataset=<d>/attack=<a>/part-N.parquet`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, Int32Array, Int64Array, ListArray, ListBuilder, RecordBatch,
    StringArray, StringBuilder, UInt64Array,
};
use arrow::datatypes::{DataType, Field, Int32Type, Schema, SchemaRef};

use crate::atomic::write_text;
use crate::columns::{utf8, utf8_list};
use crate::commit::{commit_journal, Move, TablesLock};
use crate::error::{ColumnProblem, Error, Result};
use crate::parquet::{
    each_batch_of_columns, partitions, parts, read_batches, text_column, AtomicParquet,
};
use crate::paths::{hive_dir, name_component, part_file};
use crate::{generation_stats, runs};
use advmath_core::vocab::{Attack, Family};

/// The table's folder name under the tables root.
pub const TABLE: &str = "variants";

/// The stage that writes the table.
pub const MADE_BY: &str = "generate";

/// `<tables>/variants`.
pub fn dir(tables: &Path) -> PathBuf {
    tables.join(TABLE)
}

/// `<tables>/variants/dataset=<d>`: the partition one generation run of a dataset replaces.
pub fn dataset_dir(tables: &Path, dataset: &str) -> PathBuf {
    hive_dir(&dir(tables), DATASET, dataset)
}

/// `<tables>/variants/dataset=<d>/attack=<a>`.
pub fn attack_dir(tables: &Path, dataset: &str, attack: &str) -> PathBuf {
    hive_dir(&dataset_dir(tables, dataset), ATTACK, attack)
}

/// The dataset partitions of the table: (dataset, folder), in name order; none when absent.
pub fn datasets(tables: &Path) -> Result<Vec<(String, PathBuf)>> {
    partitions(&dir(tables), DATASET)
}

/// The attack partitions of one dataset folder (from [`datasets`]): (attack, folder), in name
/// order.
pub fn attacks(dataset_dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    partitions(dataset_dir, ATTACK)
}

/// The table's parts holding the variants of `attacks` (every part when empty), in path order.
pub fn parts_of_attacks(tables: &Path, attacks: &[String]) -> Result<Vec<PathBuf>> {
    crate::parquet::files_where(&dir(tables), ATTACK, attacks)
}

/// An attack's folder inside a staged dataset folder (a run's staging copy of `dataset=<d>`).
pub fn staged_attack_dir(staged_dataset: &Path, attack: &str) -> PathBuf {
    hive_dir(staged_dataset, ATTACK, attack)
}

/// The table's partition columns, outermost first (they are in the path, not in the files).
const DATASET: &str = "dataset";
const ATTACK: &str = "attack";

/// `variants`: hive-partitioned as `variants/dataset=<d>/attack=<a>/part-N.parquet`; `dataset` and
/// `attack` come from the path (they are not stored in the files, so DataFusion and DuckDB can add
/// them as partition columns). Originals are rows with attack `original`.
pub fn schema() -> SchemaRef {
    schema_of(true)
}

/// The schema of a partition named by its attack (a name advmath does not make has answers).
pub fn schema_for(attack: &str) -> SchemaRef {
    schema_of(Attack::of(attack).is_none_or(|a| a.answerable()))
}

/// The schema of an attack's partition: the answer columns are nullable only in the partitions of
/// an attack whose questions have no answer (a needed number taken out), so that every other
/// partition keeps the bytes it has always had.
pub fn schema_of(answerable: bool) -> SchemaRef {
    Arc::new(Schema::new(vec![
        utf8("variant_id", false),
        utf8("problem_id", false),
        Field::new("noise_level", DataType::Int32, false),
        Field::new("variant_index", DataType::Int32, false),
        utf8("question", false),
        utf8("answer", !answerable),
        utf8("answer_exact", !answerable),
        utf8_list("numbers"),
        Field::new("seed", DataType::UInt64, false),
        Field::new("support", DataType::Int32, false),
        Field::new("distractor", DataType::Int64, true),
    ]))
}

pub const DOC: &[(&str, &str)] = &[
    ("dataset", "partition: source dataset"),
    ("attack", "partition: `original`, `m1`, `m2`, `m3`, `punct10/30/50`, `names` (people renamed), `noop` (one irrelevant sentence added), `names+noop`, or a composition such as `m3+punct30`, `m3+names`, `m3+noop`"),
    ("variant_id", "`<problem_id>/<attack>/<variant_index>`"),
    ("problem_id", "the problem it was made from (joins `problems`)"),
    ("noise_level", "punctuation noise in percent of the word count (0 when none)"),
    ("variant_index", "0-based index within (problem, attack), in a seeded random order (the first k are a uniform sample of the m)"),
    ("question", "the question text shown to a model"),
    ("answer", "the exact answer, canonical text (integers without a decimal point; at most 6 decimals); null when the question has no answer (`missing`: a number it needs was taken out, and the right reply says so)"),
    ("answer_exact", "the exact answer as a decimal or a fraction `n/d`; null when the question has no answer"),
    ("numbers", "the value of every question slot, exact text, in slot order"),
    ("seed", "the draw seed: the variant can be regenerated from it alone"),
    ("support", "how many independent programs compute this row's gold answer from its numbers: the problem's own program and every valid program of another source (`candidate_programs`) that reads each number the row changes; a numeric variant any of them answers otherwise is never written (`generation_stats.rejected_disagreement`). 0 when no program backs the gold (the dataset's own answer: noise on a problem without a valid program, RobustMath's rewrites)"),
    ("distractor", "the number the `noop` sentence gives, which the answer never reads (null for every other attack): a reply whose answer is the gold plus or minus it used the distractor (`sql/gsm_symbolic_distractor.sql`)"),
];

/// Rows of a variants batch whose gold two or more independent programs give (`support` of at
/// least 2); 0 for a batch written before the column.
pub fn confirmed_rows(batch: &RecordBatch) -> usize {
    use arrow::array::{Array, AsArray};
    batch
        .column_by_name("support")
        .and_then(|c| c.as_primitive_opt::<arrow::datatypes::Int32Type>())
        .map_or(0, |a| {
            (0..a.len())
                .filter(|&i| !a.is_null(i) && a.value(i) >= 2)
                .count()
        })
}

/// One row of the `variants` table (`dataset` and `attack` are its partition).
pub struct Row {
    pub variant_id: String,
    pub problem_id: String,
    pub noise_level: i32,
    pub variant_index: i32,
    pub question: String,
    /// `None`: the question has no answer (a number it needs was taken out).
    pub answer: Option<String>,
    pub answer_exact: Option<String>,
    pub numbers: Vec<String>,
    pub seed: u64,
    /// How many independent programs compute `answer` from `numbers`.
    pub support: i32,
    /// The number a no-op sentence added, which the answer never reads.
    pub distractor: Option<i64>,
}

/// One batch of the columns a reader of the variants' numbers needs, typed.
pub struct NumbersBatch {
    pub variant_ids: StringArray,
    pub problem_ids: StringArray,
    /// Each variant's slot values, exact text, in slot order.
    pub numbers: ListArray,
}

impl NumbersBatch {
    pub fn len(&self) -> usize {
        self.variant_ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.variant_ids.is_empty()
    }

    /// The slot values of row `i`, as text (a null value is `None`).
    pub fn numbers_of(&self, i: usize) -> Vec<Option<String>> {
        let values = self.numbers.value(i);
        let values = values.as_string::<i32>();
        values.iter().map(|v| v.map(str::to_string)).collect()
    }
}

/// Hand `each` a part's variant ids, problem ids and numbers, `batch_rows` rows at a time, only
/// those columns decoded; a part lacking one, or holding it with another type, is an error
/// naming the file and the column.
pub fn each_numbers_batch(
    part: &Path,
    batch_rows: usize,
    each: &mut dyn FnMut(NumbersBatch) -> Result<()>,
) -> Result<()> {
    each_batch_of_columns(
        part,
        &["variant_id", "problem_id", "numbers"],
        batch_rows,
        &mut |b| {
            let numbers = b
                .column_by_name("numbers")
                .and_then(|c| c.as_list_opt::<i32>())
                .filter(|l| l.values().as_string_opt::<i32>().is_some())
                .cloned()
                .ok_or_else(|| Error::BadColumn {
                    file: part.to_path_buf(),
                    problem: ColumnProblem::WrongType {
                        column: "numbers".into(),
                        found: b
                            .column_by_name("numbers")
                            .map_or("absent".into(), |c| c.data_type().to_string()),
                        expected: "a list of text",
                    },
                })?;
            each(NumbersBatch {
                variant_ids: text_column(&b, "variant_id", part)?,
                problem_ids: text_column(&b, "problem_id", part)?,
                numbers,
            })
        },
    )
}

/// The no-op numbers of the variants under `tables`, by variant id: only the parts of an
/// attack with a no-op sentence are read.
pub fn distractors(tables: &Path) -> Result<std::collections::HashMap<String, i64>> {
    let mut out = std::collections::HashMap::new();
    for (_, dataset) in datasets(tables)? {
        for (attack, dir) in attacks(&dataset)? {
            if !Attack::of(&attack).is_some_and(|a| a.has(Family::Noop)) {
                continue;
            }
            for part in parts(&dir)? {
                each_batch_of_columns(&part, &["variant_id", "distractor"], 8192, &mut |b| {
                    let ids = text_column(&b, "variant_id", &part)?;
                    let values = b
                        .column_by_name("distractor")
                        .and_then(|c| c.as_primitive_opt::<arrow::datatypes::Int64Type>())
                        .cloned()
                        .ok_or_else(|| Error::BadColumn {
                            file: part.clone(),
                            problem: ColumnProblem::WrongType {
                                column: "distractor".into(),
                                found: b
                                    .column_by_name("distractor")
                                    .map_or("absent".into(), |c| c.data_type().to_string()),
                                expected: "Int64",
                            },
                        })?;
                    for i in 0..b.num_rows() {
                        if !values.is_null(i) {
                            out.insert(ids.value(i).to_string(), values.value(i));
                        }
                    }
                    Ok(())
                })?;
            }
        }
    }
    Ok(out)
}

/// A variant as a question to ask: what a reader of the table needs to put it to a model.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub variant_id: String,
    pub problem_id: String,
    pub question: String,
    /// The exact answer as a decimal or a fraction `n/d`; `None` when the question has none.
    pub answer_exact: Option<String>,
    pub noise_level: i32,
    pub variant_index: i32,
}

/// A part's variants as questions, in row order (only those columns decoded).
pub fn questions(part: &Path) -> Result<Vec<Question>> {
    let mut out = Vec::new();
    let columns = [
        "variant_id",
        "problem_id",
        "question",
        "answer_exact",
        "noise_level",
        "variant_index",
    ];
    each_batch_of_columns(part, &columns, 8192, &mut |b| {
        let text = |n: &str| text_column(&b, n, part);
        let (ids, pids, qs, gold) = (
            text("variant_id")?,
            text("problem_id")?,
            text("question")?,
            text("answer_exact")?,
        );
        let int = |n: &str| -> Result<Int32Array> {
            b.column_by_name(n)
                .and_then(|c| c.as_primitive_opt::<Int32Type>())
                .cloned()
                .ok_or_else(|| Error::BadColumn {
                    file: part.to_path_buf(),
                    problem: ColumnProblem::WrongType {
                        column: n.into(),
                        found: b
                            .column_by_name(n)
                            .map_or("absent".into(), |c| c.data_type().to_string()),
                        expected: "Int32",
                    },
                })
        };
        let (noise, index) = (int("noise_level")?, int("variant_index")?);
        for i in 0..b.num_rows() {
            out.push(Question {
                variant_id: ids.value(i).to_string(),
                problem_id: pids.value(i).to_string(),
                question: qs.value(i).to_string(),
                answer_exact: gold.is_valid(i).then(|| gold.value(i).to_string()),
                noise_level: noise.value(i),
                variant_index: index.value(i),
            });
        }
        Ok(())
    })?;
    Ok(out)
}

/// A part's (variant id, answer as canonical text) pairs, in row order (`None`: no answer).
pub fn answers(part: &Path) -> Result<Vec<(String, Option<String>)>> {
    let mut out = Vec::new();
    each_batch_of_columns(part, &["variant_id", "answer"], 8192, &mut |b| {
        let (ids, answers) = (
            text_column(&b, "variant_id", part)?,
            text_column(&b, "answer", part)?,
        );
        out.extend((0..b.num_rows()).map(|i| {
            (
                ids.value(i).to_string(),
                answers.is_valid(i).then(|| answers.value(i).to_string()),
            )
        }));
        Ok(())
    })?;
    Ok(out)
}

/// The problem ids of a batch read whole from `part` (one it copies on, as publish and the shard
/// merge do).
pub fn problem_ids_of(batch: &RecordBatch, part: &Path) -> Result<StringArray> {
    text_column(batch, "problem_id", part)
}

/// A part's problem ids, in row order.
pub fn problem_ids(part: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    each_batch_of_columns(part, &["problem_id"], 8192, &mut |b| {
        let ids = text_column(&b, "problem_id", part)?;
        out.extend(ids.iter().map(|id| id.unwrap_or_default().to_string()));
        Ok(())
    })?;
    Ok(out)
}

/// Rows as a batch in the table's schema: the answerable one unless a row has no answer.
pub fn rows_to_batch(rows: &[Row]) -> Result<RecordBatch> {
    let s = |f: &dyn Fn(&Row) -> &str| -> ArrayRef {
        Arc::new(rows.iter().map(|r| Some(f(r))).collect::<StringArray>())
    };
    let o = |f: &dyn Fn(&Row) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    let answerable = rows.iter().all(|r| r.answer.is_some());
    let mut numbers = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(
        arrow::datatypes::Field::new("item", arrow::datatypes::DataType::Utf8, false),
    ));
    for r in rows {
        for n in &r.numbers {
            numbers.values().append_value(n);
        }
        numbers.append(true);
    }
    Ok(RecordBatch::try_new(
        schema_of(answerable),
        vec![
            s(&|r| &r.variant_id),
            s(&|r| &r.problem_id),
            Arc::new(rows.iter().map(|r| r.noise_level).collect::<Int32Array>()),
            Arc::new(rows.iter().map(|r| r.variant_index).collect::<Int32Array>()),
            s(&|r| &r.question),
            o(&|r| r.answer.as_deref()),
            o(&|r| r.answer_exact.as_deref()),
            Arc::new(numbers.finish()),
            Arc::new(rows.iter().map(|r| r.seed).collect::<UInt64Array>()),
            Arc::new(rows.iter().map(|r| r.support).collect::<Int32Array>()),
            Arc::new(rows.iter().map(|r| r.distractor).collect::<Int64Array>()),
        ],
    )?)
}

/// A generation run's writers for one dataset's `variants` and `generation_stats` partitions,
/// created on first use in a staging folder. [`DatasetWriters::publish`] switches them in with
/// the run record, all three together; dropped unpublished (a failed run), they remove the
/// staging folder.
pub struct DatasetWriters {
    pub staging: PathBuf,
    pub variants: BTreeMap<String, AtomicParquet>,
    pub stats: Option<AtomicParquet>,
}

/// The prefix of a generation run's staging folder for a dataset (the pid follows).
fn staging_prefix(dataset: &str) -> String {
    format!(".staging-{}-", name_component(dataset))
}

/// Finish the switches dead generation runs of `dataset` decided, and remove the staging folders
/// of those that died before deciding (hold its writer lock).
pub fn remove_dead_staging(tables: &Path, dataset: &str) -> Result<usize> {
    drop(TablesLock::exclusive(tables)?);
    crate::commit::remove_leftovers(tables, Some(&staging_prefix(dataset)))
}

/// `<tables>/.staging-<dataset>-<pid>`: where this process stages a dataset's partitions.
pub fn staging_dir(tables: &Path, dataset: &str) -> PathBuf {
    tables.join(format!("{}{}", staging_prefix(dataset), std::process::id()))
}

impl DatasetWriters {
    /// Writers staging under [`staging_dir`] (a leftover of this name is cleared first).
    pub fn new(tables: &Path, dataset: &str) -> DatasetWriters {
        let staging = staging_dir(tables, dataset);
        let _ = fs::remove_dir_all(&staging);
        DatasetWriters {
            staging,
            variants: BTreeMap::new(),
            stats: None,
        }
    }

    pub fn variants(&mut self, attack: &str) -> Result<&mut AtomicParquet> {
        if !self.variants.contains_key(attack) {
            let path = part_file(&hive_dir(&self.staging.join(TABLE), ATTACK, attack), 0);
            self.variants.insert(
                attack.to_string(),
                AtomicParquet::create(&path, schema_for(attack))?,
            );
        }
        Ok(self.variants.get_mut(attack).expect("just inserted"))
    }

    pub fn stats(&mut self) -> Result<&mut AtomicParquet> {
        if self.stats.is_none() {
            let path = part_file(&self.staging.join(generation_stats::TABLE), 0);
            self.stats = Some(AtomicParquet::create(&path, generation_stats::schema())?);
        }
        Ok(self.stats.as_mut().expect("just created"))
    }

    /// Close every file, stage the run records, then switch the dataset's variants, statistics
    /// and run records in together: a reader sees the previous ones or the new ones.
    ///
    /// Only what the run made is replaced ([`Made`]): every other attack's partition, statistics
    /// rows and run record is carried over as it was, and so are the original rows of the
    /// problems those attacks still cover.
    pub fn publish(mut self, tables: &Path, dataset: &str, made: &Made) -> Result<()> {
        let kept = self.carry_over(tables, dataset, made)?;
        for (_, w) in std::mem::take(&mut self.variants) {
            w.finish()?;
        }
        if let Some(w) = self.stats.take() {
            w.finish()?;
        }
        // A dataset whose run emitted nothing gets empty partitions, replacing the old ones.
        for table in [TABLE, generation_stats::TABLE] {
            let dir = self.staging.join(table);
            fs::create_dir_all(&dir).map_err(|e| crate::error::Error::file(&dir, e))?;
        }
        for attack in &kept {
            let from = attack_dir(tables, dataset, attack);
            let to = hive_dir(&self.staging.join(TABLE), ATTACK, attack);
            fs::create_dir_all(&to).map_err(|e| crate::error::Error::file(&to, e))?;
            // Hard links: the kept partition keeps its bytes and costs no copy.
            for part in parts(&from)? {
                let name = part.file_name().expect("a part has a name");
                fs::hard_link(&part, to.join(name))
                    .map_err(|e| crate::error::Error::file(&part, e))?;
            }
        }
        let mut moves = vec![
            Move {
                staged: TABLE.into(),
                target: hive_dir(Path::new(TABLE), DATASET, dataset),
            },
            Move {
                staged: generation_stats::TABLE.into(),
                target: hive_dir(Path::new(generation_stats::TABLE), DATASET, dataset),
            },
        ];
        for (k, (attack, record)) in made.records.iter().enumerate() {
            let staged = format!("run-{k}.json");
            write_text(&self.staging.join(&staged), record)?;
            moves.push(Move {
                staged: staged.into(),
                target: runs::generate_record(Path::new(""), dataset, attack),
            });
        }
        let _switch = TablesLock::exclusive(tables)?;
        commit_journal(tables, &self.staging, &moves, &[])
    }

    /// Stage what the run keeps of the dataset's current partitions: the statistics rows of the
    /// attacks it did not make, and the original rows of the problems only kept attacks cover.
    /// Returns the kept attacks, whose partitions are linked in whole.
    fn carry_over(&mut self, tables: &Path, dataset: &str, made: &Made) -> Result<Vec<String>> {
        let mut kept = Vec::new();
        let mut covered: BTreeSet<String> = BTreeSet::new();
        for (attack, dir) in attacks(&dataset_dir(tables, dataset))? {
            if attack == advmath_core::vocab::Attack::ORIGINAL || made.attacks.contains(&attack) {
                continue;
            }
            for part in parts(&dir)? {
                for batch in read_batches(&part)? {
                    let ids = text_column(&batch, "problem_id", &part)?;
                    covered.extend(ids.iter().flatten().map(str::to_string));
                }
            }
            kept.push(attack);
        }
        let originals = attack_dir(tables, dataset, advmath_core::vocab::Attack::ORIGINAL);
        if originals.is_dir() {
            for part in parts(&originals)? {
                for batch in read_batches(&part)? {
                    let ids = text_column(&batch, "problem_id", &part)?;
                    let keep: arrow::array::BooleanArray = ids
                        .iter()
                        .map(|id| id.map(|id| covered.contains(id) && !made.originals.contains(id)))
                        .collect();
                    let rows = arrow::compute::filter_record_batch(&batch, &keep)?;
                    let rows = crate::parquet::conform(&rows, &schema(), &part)?;
                    self.variants(advmath_core::vocab::Attack::ORIGINAL)?
                        .write(&rows)?;
                }
            }
        }
        let stats = generation_stats::dataset_dir(tables, dataset);
        if stats.is_dir() {
            for part in parts(&stats)? {
                for batch in read_batches(&part)? {
                    let attacks = text_column(&batch, "attack", &part)?;
                    let keep: arrow::array::BooleanArray = attacks
                        .iter()
                        .map(|a| a.map(|a| !made.methods.contains(a)))
                        .collect();
                    let rows = arrow::compute::filter_record_batch(&batch, &keep)?;
                    if rows.num_rows() > 0 {
                        let rows =
                            crate::parquet::conform(&rows, &generation_stats::schema(), &part)?;
                        self.stats()?.write(&rows)?;
                    }
                }
            }
        }
        Ok(kept)
    }
}

/// What one generation run made of a dataset, which is all [`DatasetWriters::publish`] replaces.
#[derive(Clone, Debug, Default)]
pub struct Made {
    /// The `variants` partitions it wrote (`m3`, `punct10`, `m3+punct10`; `original` aside).
    pub attacks: BTreeSet<String>,
    /// The attacks whose `generation_stats` rows it wrote (numeric, guided, text).
    pub methods: BTreeSet<String>,
    /// The problems whose original rows it wrote.
    pub originals: BTreeSet<String>,
    /// Its run record per attack as `--attack` names it (`m3`, `punct`).
    pub records: Vec<(String, String)>,
}

impl Drop for DatasetWriters {
    /// Unpublished (the run failed): nothing of it stays. Published: the staging folder is
    /// already gone.
    fn drop(&mut self) {
        self.variants.clear();
        self.stats = None;
        let _ = fs::remove_dir_all(&self.staging);
    }
}
