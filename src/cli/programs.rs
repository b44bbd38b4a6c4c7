//! `advmath programs`: ask a model for the solution programs of the problems that lack a valid
//! one. It writes the `problems` table, as `ingest` does, so it lives beside it.

use std::path::PathBuf;

use clap::Args;

use advmath::ingest::programs::ProgramsConfig;
use advmath::llm::client::{Decoding, Endpoint};
use advmath::output::tsv_row;
use advmath::store::default_tables;

use super::places::{folder, Located};
use super::respond::{api_key_from, endpoint_defaults};
use advmath::store::places::Places;

fn programs_defaults() -> ProgramsConfig {
    ProgramsConfig::new(default_tables(), endpoint_defaults())
}

#[derive(Args, Debug)]
pub struct ProgramsArgs {
    /// Folder of the Parquet tables: reads and rewrites `problems/`.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Model to ask for programs (the paper used GPT-4).
    #[arg(long)]
    pub model: String,
    /// Base URL of an OpenAI-compatible server.
    #[arg(long)]
    pub endpoint: String,
    /// Use `/v1/completions` instead of `/v1/chat/completions`.
    #[arg(long)]
    pub completions: bool,
    /// Name of the environment variable holding the API key (never logged, never stored).
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Requests in flight at once.
    #[arg(long, default_value_t = programs_defaults().concurrency)]
    pub concurrency: usize,
    /// Per-request timeout, seconds.
    #[arg(long, default_value_t = endpoint_defaults().timeout.as_secs_f64())]
    pub timeout: f64,
    /// Most tokens a reply may have.
    #[arg(long, default_value_t = programs_defaults().decoding.max_tokens)]
    pub max_tokens: u32,
    /// At most n problems.
    #[arg(long)]
    pub limit: Option<usize>,
    /// What the model's programs may link beyond the numbers written in digits (as for
    /// `ingest --link`).
    #[arg(long, value_name = "LIST", default_value = "digits", value_parser = advmath::program::Links::parse)]
    pub link: advmath::program::Links,
}

impl ProgramsArgs {
    pub fn config(&self) -> anyhow::Result<ProgramsConfig> {
        let api_key = api_key_from(&self.api_key_env)?;
        let defaults = programs_defaults();
        Ok(ProgramsConfig {
            tables: self.tables.clone(),
            endpoint: Endpoint {
                completions: self.completions,
                api_key,
                timeout: std::time::Duration::from_secs_f64(self.timeout.max(0.001)),
                ..Endpoint::new(self.endpoint.as_str(), self.model.as_str())
            },
            decoding: Decoding {
                max_tokens: self.max_tokens,
                ..defaults.decoding
            },
            concurrency: self.concurrency.max(1),
            limit: self.limit,
            links: self.link,
        })
    }
}

impl Located for ProgramsArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)
    }
}

pub fn programs(args: ProgramsArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let s = advmath::ingest::programs::write_programs(&args.config()?)?;
    let mut out = stdout.lock();
    tsv_row(&mut out, ["asked", "now_valid", "rejected", "failed"])?;
    tsv_row(
        &mut out,
        [s.asked, s.now_valid, s.rejected, s.failed].map(|n| n.to_string()),
    )?;
    Ok(())
}
