//! Every table advmath knows: its name, hive partition columns, file pattern, and whether only
//! some runs make it. Plain data, at the bottom of the store: the schemas are the tables' own
//! files' (the store's `optional_schema` for the optional ones).

/// How a table is laid out under `tables/`.
#[derive(Debug, Clone, Copy)]
pub struct TableLayout {
    pub name: &'static str,
    /// Hive partition columns, outermost first (they are in the path, not in the files).
    pub partitions: &'static [&'static str],
    /// The expected file layout, for messages.
    pub pattern: &'static str,
    /// Made only by some runs: when absent it is registered empty (its schema, no row), so a
    /// metric over it gives no row instead of an error.
    pub optional: bool,
    /// The `advmath` command that writes it, for the message when it is missing.
    pub made_by: &'static str,
}

/// A table is its name: two layouts are the same table when they name the same one.
impl PartialEq for TableLayout {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// Every table advmath knows.
pub const TABLE_LAYOUTS: &[TableLayout] = &[
    TableLayout {
        name: "problems",
        partitions: &[],
        pattern: "problems/<dataset>__<split>.parquet",
        optional: false,
        made_by: "ingest",
    },
    TableLayout {
        name: "candidate_programs",
        partitions: &[],
        pattern: "candidate_programs/<dataset>__<split>.parquet",
        optional: true,
        made_by: "ingest --candidates",
    },
    TableLayout {
        name: "variants",
        partitions: &["dataset", "attack"],
        pattern: "variants/dataset=<d>/attack=<a>/part-N.parquet",
        optional: false,
        made_by: "generate",
    },
    TableLayout {
        name: "generation_stats",
        partitions: &["dataset"],
        pattern: "generation_stats/dataset=<d>/part-0.parquet",
        optional: false,
        made_by: "generate",
    },
    TableLayout {
        name: "responses",
        partitions: &[],
        pattern: "responses/<model-folder>/part-*.parquet",
        optional: false,
        made_by: "respond",
    },
    TableLayout {
        name: "features",
        partitions: &["dataset", "attack"],
        pattern: "features/dataset=<d>/attack=<a>/part-0.parquet",
        optional: false,
        made_by: "features",
    },
    TableLayout {
        name: "coefficients",
        partitions: &[],
        pattern: "coefficients/part-0.parquet",
        optional: false,
        made_by: "regress",
    },
    TableLayout {
        name: "efficient_responses",
        partitions: &[],
        pattern: "efficient_responses/<target-folder>/part-*.parquet",
        optional: true,
        made_by: "respond --efficient-from",
    },
    TableLayout {
        name: "annotations",
        partitions: &[],
        pattern: "annotations/<kind>/<annotator>.parquet",
        optional: true,
        made_by: "annotate ingest",
    },
];
