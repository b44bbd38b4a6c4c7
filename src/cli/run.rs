//! `advmath run`: the default pipeline, every stage chained.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use advmath::pipeline::{RunConfig, DEFAULT_MODELS};
use advmath::respond::{Backend, RespondConfig};
use advmath::store::DEFAULT_OUT;

use super::places::{folder, input, Located};
use super::{api_key_from, GenerationArgs, PromptArgs, RequestArgs, SourceArgs};
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
    /// Models to ask; without --endpoint the offline ones by default (all simulated: marked so
    /// in every report). With --endpoint name the models the server serves: the offline names
    /// are never sent to a server.
    #[arg(long, value_delimiter = ',', value_name = "MODELS")]
    pub models: Option<Vec<String>>,
    /// Ask the --models at this OpenAI-compatible endpoint instead of simulating them; several
    /// base URLs (comma-separated or repeated) are servers of the same models, as in `respond`.
    #[arg(long, value_delimiter = ',', requires = "models")]
    pub endpoint: Vec<String>,
    /// Environment variable holding the endpoint's API key.
    #[arg(long)]
    pub api_key_env: Option<String>,
    #[command(flatten)]
    pub prompt: PromptArgs,
    #[command(flatten)]
    pub requests: RequestArgs,
    /// Ask about N problems per dataset (respond's --problems), drawn with --seed among those
    /// that have a question of every attack; --sample-problems limits what is generated instead.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub ask_problems: Option<u32>,
}

impl RunArgs {
    pub fn config(&self) -> anyhow::Result<RunConfig> {
        let tables = advmath::store::tables_dir(&self.out);
        let models: Vec<String> = match &self.models {
            Some(m) => m.clone(),
            None => DEFAULT_MODELS.iter().map(|m| m.to_string()).collect(),
        };
        let generation = self.generation.config(tables.clone());
        let responders = models
            .iter()
            .map(|m| {
                let backend = if self.endpoint.is_empty() {
                    Backend::Offline
                } else {
                    Backend::Endpoint(self.requests.endpoint(
                        &self.endpoint,
                        m,
                        api_key_from(&self.api_key_env)?,
                    ))
                };
                let mut config = RespondConfig {
                    backend,
                    progress: true,
                    template: self.prompt.template()?,
                    decoding: self.prompt.decoding(),
                    ..RespondConfig::new(tables.clone(), m.as_str())
                };
                // One seed for the run: the variants drawn and the problems asked.
                self.requests
                    .apply(&mut config, self.ask_problems, generation.seed);
                Ok(config)
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(RunConfig {
            inputs: self.inputs.clone(),
            options: self.source.options(),
            out: self.out.clone(),
            generation,
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
    for (i, (model, s)) in summary.responses.iter().enumerate() {
        s.write_rows(model, i == 0, &mut out)?;
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
