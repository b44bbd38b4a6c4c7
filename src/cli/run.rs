//! `advmath run`: the default pipeline, every stage chained.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use advmath::output::tsv_row;

use super::comma_list;
use advmath::llm::client::Endpoint;
use advmath::pipeline::{RunConfig, DEFAULT_MODELS};
use advmath::respond::{Backend, RespondConfig};
use advmath::store::DEFAULT_OUT;

use super::places::{folder, input, Located};
use super::{api_key_from, GenerationArgs, SourceArgs};
use advmath::store::places::Places;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Problem files; none means the embedded default dataset.
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub source: SourceArgs,
    /// Output folder: tables in `<out>/tables`, reports in `<out>/reports`.
    #[arg(long, default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    #[command(flatten)]
    pub generation: GenerationArgs,
    /// Models to ask: offline ones by default (all simulated: marked so in every report).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = comma_list(&DEFAULT_MODELS)
    )]
    pub models: Vec<String>,
    /// Ask the --models at this OpenAI-compatible endpoint instead of simulating them; several
    /// base URLs (comma-separated or repeated) are servers of the same models, as in `respond`.
    #[arg(long, value_delimiter = ',')]
    pub endpoint: Vec<String>,
    /// Environment variable holding the endpoint's API key.
    #[arg(long)]
    pub api_key_env: Option<String>,
}

impl RunArgs {
    pub fn config(&self) -> anyhow::Result<RunConfig> {
        let tables = advmath::store::tables_dir(&self.out);
        let responders = self
            .models
            .iter()
            .map(|m| {
                let backend = if self.endpoint.is_empty() {
                    Backend::Offline
                } else {
                    Backend::Endpoint(Endpoint {
                        urls: self.endpoint.clone(),
                        api_key: api_key_from(&self.api_key_env)?,
                        ..Endpoint::new("", m.as_str())
                    })
                };
                Ok(RespondConfig {
                    backend,
                    progress: true,
                    ..RespondConfig::new(tables.clone(), m.as_str())
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(RunConfig {
            inputs: self.inputs.clone(),
            options: self.source.options(),
            out: self.out.clone(),
            generation: self.generation.config(tables),
            responders,
            regression: RunConfig::regression_for(&self.out),
        })
    }
}

impl Located for RunArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        for path in &mut self.inputs {
            input(places, path)?;
        }
        if let Some(path) = &mut self.source.programs_from {
            input(places, path)?;
        }
        folder(places, &mut self.out)
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let config = args.config()?;
    let summary = advmath::pipeline::run(&config)?;
    let mut out = stdout.lock();
    summary.ingest.write_table(&mut out)?;
    writeln!(out)?;
    summary.generate.write_table(&mut out)?;
    writeln!(out)?;
    tsv_row(&mut out, ["model", "responses", "correct"])?;
    for (model, s) in &summary.responses {
        tsv_row(
            &mut out,
            [model.clone(), s.written.to_string(), s.correct.to_string()],
        )?;
    }
    eprint!("{}", super::query::headline_text(&summary.metrics));
    eprintln!(
        "outputs in {}",
        advmath::store::location::display(&config.out)
    );
    summary.ingest.failures()?;
    summary.generate.failures()?;
    Ok(())
}
