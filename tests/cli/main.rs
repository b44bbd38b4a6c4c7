//! End-to-end tests: the real binary on tiny fixtures, plus library-level property tests and
//! checks on the real data in `../shared/data` (skipped, with a message, when it is absent).
//!
//! One integration-test binary (`cargo test --test cli`); each module covers one part of the CLI.

mod abstention;
mod annotate;
mod candidates;
mod circles;
#[cfg(feature = "cluster")]
mod cluster;
mod contained;
mod crash;
mod defaults;
mod efficient;
mod extract;
mod feature_study;
mod first_day;
mod first_hour;
mod fixtures;
mod generate;
mod gold;
mod guided;
mod hostile;
mod ingest;
mod layers;
mod leases;
mod leftovers;
mod lm_eval;
mod long_runs;
mod metrics;
mod missing;
mod names;
mod noise;
mod offline;
mod outside;
mod publish;
mod reader;
mod real_data;
mod replies;
mod report;
mod respond;
mod run;
mod runs;
mod s3;
mod scale;
#[path = "../support/server.rs"]
mod server;
mod slt;
mod sql;
mod sql_attacks;
mod steered;
mod text_attacks;
mod usage;
mod util;
mod wheel;
