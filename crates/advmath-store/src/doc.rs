//! The tables' reference, `docs/tables.md`, written from each table's own column docs (the
//! `DOC` constants beside its schema), so that it cannot drift from what the store writes. A test
//! compares the file with [`tables_markdown`]; `ADVMATH_UPDATE_DOCS=1 cargo test` rewrites it.

use crate::{
    annotations, candidate_programs, coefficients, efficient_responses, feature_tables,
    generation_stats, problems, responses, variants,
};

/// One table's entry in the reference.
struct TableDoc {
    name: &'static str,
    /// Below the tables folder.
    pattern: &'static str,
    about: &'static str,
    columns: Vec<(String, String)>,
}

fn cols(doc: &[(&str, &str)]) -> Vec<(String, String)> {
    doc.iter()
        .map(|(name, meaning)| (name.to_string(), meaning.to_string()))
        .collect()
}

fn tables() -> Vec<TableDoc> {
    vec![
        TableDoc {
            name: "problems",
            pattern: "problems/<dataset>__<split>.parquet",
            about: "",
            columns: cols(problems::DOC),
        },
        TableDoc {
            name: "candidate_programs",
            pattern: "candidate_programs/<dataset>__<split>.parquet",
            about: "Published model-written programs (`advmath ingest --candidates FILE...`: ToRA, Program-of-Thoughts, PAL inside GSM-Hard), one row per program and problem it matched, with its verdict. Written beside the (dataset, split)'s `problems` file and switched in with it; an ingest of that (dataset, split) without `--candidates` removes it.",
            columns: cols(candidate_programs::DOC),
        },
        TableDoc {
            name: "variants",
            pattern: "variants/dataset=<d>/attack=<a>/part-N.parquet",
            about: "`dataset` and `attack` are hive partition columns (in the path, not in the files). Originals are rows with attack `original`, so metrics join one table.",
            columns: cols(variants::DOC),
        },
        TableDoc {
            name: "generation_stats",
            pattern: "generation_stats/dataset=<d>/part-0.parquet",
            about: "",
            columns: cols(generation_stats::DOC),
        },
        TableDoc {
            name: "responses",
            pattern: "responses/<model>/part-*.parquet",
            about: "One row per (model, prompt, variant); the folder is the sanitised model name, the `model` column the real one. Part files are written atomically every K responses or T seconds, and `response_key` is the resume key (see Model responses in methods.md).",
            columns: cols(responses::DOC),
        },
        TableDoc {
            name: "features",
            pattern: "features/dataset=<d>/attack=<a>/part-0.parquet",
            about: "advmath's own 51 features (the `advmath` set; not the authors' list, see Feature study). One row per variant, partitioned like `variants`; every feature is Float64 (counts and 0/1 flags included), so the table is one numeric matrix. Definitions in `crates/advmath-core/src/feature_sets.rs`.",
            columns: cols(feature_tables::ADVMATH_DOC),
        },
        TableDoc {
            name: "features_xie2024",
            pattern: "features_xie2024/dataset=<d>/attack=<a>/part-0.parquet",
            about: "The `xie2024` set: the feature family of the authors' code (`generation/feature_map.py`), lower-cased authors' names (`Mult_count` is `mult_count`, bin −3 is `log_4_val_neg3`). One row per variant, partitioned like `variants`, every column Float64. A \"visit\" is one path from the answer to the node (a value used twice is visited twice, as the authors' recursive walk does). Definitions in `crates/advmath-core/src/feature_sets/xie2024.rs`.",
            columns: feature_tables::xie2024_doc(),
        },
        TableDoc {
            name: "coefficients",
            pattern: "coefficients/part-0.parquet",
            about: "One row per (model, template, term) of the feature study (`advmath regress`), the intercept included.",
            columns: cols(coefficients::DOC),
        },
        TableDoc {
            name: "efficient_responses",
            pattern: "efficient_responses/<model>/part-*.parquet",
            about: "The rows of efficient-attack runs (`respond --efficient-from`, see Model responses in methods.md): one row per request of the protocol, with every column of `responses` (the model is the target), then:",
            columns: cols(efficient_responses::DOC),
        },
        TableDoc {
            name: "annotations",
            pattern: "annotations/<kind>/<annotator>.parquet",
            about: "People's verdicts from filled annotation sheets (`advmath annotate ingest`, see Human judgements): one row per (sheet, item, criterion).",
            columns: cols(annotations::DOC),
        },
    ]
}

/// The text of `docs/tables.md`.
pub fn tables_markdown() -> String {
    let mut out = String::from(
        "# Tables\n\n<!-- Written from the column docs in crates/advmath-store/src/ by `ADVMATH_UPDATE_DOCS=1 cargo test`; \
         edit those, not this file. -->\n\n\
         Each table's location, schema, column docs and codec are defined once, in its file under `crates/advmath-store/src/`. \
         Every table is Parquet (zstd), under the tables folder (`out/tables` by default).\n",
    );
    for t in tables() {
        out.push_str(&format!("\n## {} — `tables/{}`\n\n", t.name, t.pattern));
        if !t.about.is_empty() {
            out.push_str(t.about);
            out.push_str("\n\n");
        }
        out.push_str("| column | meaning |\n|---|---|\n");
        for (name, meaning) in &t.columns {
            // A bar would end the cell; angle brackets in a name outside code would be HTML.
            let name = name
                .replace('|', "&#124;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            let meaning = meaning.replace('|', "&#124;");
            out.push_str(&format!("| {name} | {meaning} |\n"));
        }
    }
    out
}
