//! The command-line types of the stages that talk to models about variants: prompts and
//! decoding, `respond` (with the efficient attack), `export-batch` and `ingest-responses`.

use std::path::{Path, PathBuf};

use clap::Args;

use super::places::{folder, input, output_file, Located};
use advmath::llm::client::{Decoding, Endpoint};
use advmath::llm::prompt::Template;
use advmath::output::tsv_row;
use advmath::respond::outside::{OutsideConfig, OutsideFormat};
use advmath::respond::{Backend, EfficientConfig, EfficientProtocol, Extraction, RespondConfig};
use advmath::store::default_tables;
use advmath::store::places::Places;

/// The library's endpoint settings, read for the defaults of the flags that change them.
pub(crate) fn endpoint_defaults() -> Endpoint {
    Endpoint::new("", "")
}

/// Prompt and decoding settings (they are part of every response's resume key); the defaults
/// are [`Template::default`] and [`Decoding::default`].
#[derive(Args, Debug, Clone)]
pub struct PromptArgs {
    /// Prompt template: xie2024 (the paper's zero-shot CoT), arithmattack, or a file with {question}.
    #[arg(long, default_value_t = Template::default().name)]
    pub template: String,
    /// Sampling temperature. The default 0 (greedy) makes reruns reproducible; it is neither
    /// paper's setting: Xie et al. sampled at 0.1 with 512 tokens, ArithmAttack at the model's
    /// default temperature with up to 2000 new tokens.
    #[arg(long, default_value_t = Decoding::default().temperature)]
    pub temperature: f64,
    /// Nucleus sampling: keep the smallest token set with this probability mass.
    #[arg(long)]
    pub top_p: Option<f64>,
    /// Most tokens a reply may have; a reply cut here has finish reason `length`.
    #[arg(long, default_value_t = Decoding::default().max_tokens)]
    pub max_tokens: u32,
    /// Sampling seed sent to the server.
    #[arg(long)]
    pub decode_seed: Option<u64>,
    /// Stop sequences (repeatable).
    #[arg(long)]
    pub stop: Vec<String>,
}

impl PromptArgs {
    pub fn template(&self) -> anyhow::Result<Template> {
        Ok(Template::resolve(&self.template)?)
    }

    pub fn decoding(&self) -> Decoding {
        Decoding {
            temperature: self.temperature,
            top_p: self.top_p,
            max_tokens: self.max_tokens,
            seed: self.decode_seed,
            stop: self.stop.clone(),
        }
    }
}

/// The API key held by the environment variable `var` names; read once, never logged.
pub(crate) fn api_key_from(var: &Option<String>) -> anyhow::Result<Option<String>> {
    match var {
        Some(var) => std::env::var(var).map(Some).map_err(|_| {
            advmath::Error::usage(format!("environment variable {var} is not set")).into()
        }),
        None => Ok(None),
    }
}

/// What a run asks and how hard it presses the server: the sample, the budget, and the
/// connection settings (`respond` and `run` share them).
#[derive(Args, Debug, Clone)]
pub struct RequestArgs {
    /// Ask at most K variants per problem of every attack, the first K in variant_index order
    /// (a uniform sample of the variants generated); originals always (efficient attack: at most
    /// K candidates per problem).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub per_problem: Option<u32>,
    /// A budget: at most N requests this run (questions already answered, and replies reused
    /// for identical questions, do not count; the rest wait for the next run). Not a sample:
    /// for a fair small one use --problems and --per-problem. With --efficient-from, N problems.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Requests in flight at once, per server.
    #[arg(long, default_value_t = RespondConfig::default().concurrency as u32,
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    /// Per-request timeout, seconds.
    #[arg(long, default_value_t = endpoint_defaults().timeout.as_secs_f64())]
    pub timeout: f64,
}

impl RequestArgs {
    /// The endpoint with these connection settings.
    pub fn endpoint(&self, urls: &[String], model: &str, api_key: Option<String>) -> Endpoint {
        Endpoint {
            urls: urls.to_vec(),
            api_key,
            timeout: std::time::Duration::from_secs_f64(self.timeout.max(0.001)),
            ..Endpoint::new("", model)
        }
    }

    /// `config` with this sample (`problems` per dataset drawn with `seed`), budget and
    /// concurrency.
    pub fn apply(&self, config: &mut RespondConfig, problems: Option<u32>, seed: u64) {
        config.problems = problems.map(|n| n as usize);
        config.sample_seed = seed;
        config.per_problem = self.per_problem.map(|k| k as usize);
        config.limit = self.limit;
        config.concurrency = self.concurrency as usize;
    }
}

/// Every default is [`RespondConfig::default`]'s, [`Endpoint::new`]'s or
/// [`EfficientConfig::new`]'s, which `run` uses too.
#[derive(Args, Debug)]
pub struct RespondArgs {
    /// Folder of the Parquet tables (reads variants, writes responses/<model>/).
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Model name: sent to the endpoint, or an offline model (oracle, sim-careful, sim-carry,
    /// sim-divweak, sim-distracted) when --endpoint is absent.
    #[arg(long)]
    pub model: String,
    /// Base URL of an OpenAI-compatible server (llama.cpp, vLLM, Ollama, OpenAI). Several
    /// (comma-separated or repeated) are servers of the same model: each takes up to
    /// --concurrency requests at once, a server that fails is taken out of service for a backoff
    /// and tried again later, and its requests go to the others; every variant still gets
    /// exactly one response.
    #[arg(long, value_delimiter = ',')]
    pub endpoint: Vec<String>,
    /// Use /v1/completions instead of /v1/chat/completions.
    #[arg(long)]
    pub completions: bool,
    /// Environment variable holding the API key (never logged, never stored).
    #[arg(long)]
    pub api_key_env: Option<String>,
    #[command(flatten)]
    pub prompt: PromptArgs,
    #[command(flatten)]
    pub requests: RequestArgs,
    /// Attempts per request (429, 5xx, timeouts and dropped connections are retried with
    /// exponential backoff and jitter, honouring Retry-After).
    #[arg(long, default_value_t = endpoint_defaults().max_attempts,
          value_parser = clap::value_parser!(u32).range(1..=50))]
    pub attempts: u32,
    /// First backoff step, seconds.
    #[arg(long, default_value_t = endpoint_defaults().backoff_base.as_secs_f64())]
    pub backoff: f64,
    /// Ask about N problems per dataset, drawn with --seed among the problems that have a
    /// question of every attack asked (the same problems for every attack, as one problem set P
    /// stands under Xie et al.'s Table 1); their originals are always asked.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub problems: Option<u32>,
    /// Seed of the --problems draw (the same seed draws the same problems for every model).
    #[arg(long, default_value_t = 0, requires = "problems")]
    pub seed: u64,
    /// Print the requests this run would make (one TSV row each: dataset, attack, problem,
    /// variant, question) and their estimated tokens, and ask nothing.
    #[arg(long, conflicts_with = "efficient_from")]
    pub dry_run: bool,
    /// Only these attacks (originals are always included), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub attack: Vec<String>,
    /// Only these datasets, comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub dataset: Vec<String>,
    /// Efficient attack (Xie et al. Table 5): rank the problems by this cheaper model's
    /// adversarial examples and send the target only those, one at a time per problem, stopping
    /// a problem at its first success. Rows go to efficient_responses/<model>/.
    #[arg(long)]
    pub efficient_from: Option<String>,
    /// Efficient attack: problems attacked per dataset and attack (the paper's 50).
    #[arg(long, default_value_t = EfficientConfig::new("").top_problems as u32,
          requires = "efficient_from", value_parser = clap::value_parser!(u32).range(1..))]
    pub top_problems: u32,
    /// Efficient attack: `wrong-variants` (the paper's text and the authors' script) sends every
    /// variant the cheap model gets wrong and never asks the original; `solved-originals` keeps
    /// only problems whose original the cheap model solves, asks the target the original first
    /// and attacks only what it solves.
    #[arg(long, value_enum, default_value_t = EfficientConfig::new("").protocol,
          requires = "efficient_from")]
    pub efficient_protocol: EfficientProtocol,
    /// Efficient attack: which run of the cheap model ranks the problems (e.g.
    /// `temperature=0.3`; see the responses table's `run`), when it has several.
    #[arg(long, requires = "efficient_from")]
    pub cheap_run: Option<String>,
    /// How answers are read: advmath's rules (standard: the stated answer, then the last number),
    /// Xie et al.'s scorer (xie2024: the last match of their digit pattern, no sign) or the
    /// ArithmAttack study's (last-number), each to reproduce that paper's grading.
    #[arg(long, value_enum, default_value_t = Extraction::default())]
    pub extraction: Extraction,
    /// Write a Parquet part every K responses ...
    #[arg(long, default_value_t = RespondConfig::default().flush_every)]
    pub flush_every: usize,
    /// ... or every T seconds.
    #[arg(long, default_value_t = RespondConfig::default().flush_seconds)]
    pub flush_seconds: f64,
    /// At the end of a run the model's parts smaller than this are folded into parts of up to
    /// this size (e.g. 128MiB, 1GiB), every row kept.
    #[arg(long, default_value = "128MiB", value_parser = super::size)]
    pub part_size: usize,
}

impl RespondArgs {
    pub fn config(&self) -> anyhow::Result<RespondConfig> {
        let backend = match self.endpoint.is_empty() {
            true => Backend::Offline,
            false => Backend::Endpoint(Endpoint {
                completions: self.completions,
                max_attempts: self.attempts,
                backoff_base: std::time::Duration::from_secs_f64(self.backoff.max(0.0)),
                ..self.requests.endpoint(
                    &self.endpoint,
                    &self.model,
                    api_key_from(&self.api_key_env)?,
                )
            }),
        };
        let mut config = RespondConfig {
            tables: self.tables.clone(),
            model: self.model.clone(),
            template: self.prompt.template()?,
            decoding: self.prompt.decoding(),
            backend,
            attacks: self.attack.clone(),
            datasets: self.dataset.clone(),
            efficient: self.efficient_from.as_ref().map(|cheap| EfficientConfig {
                top_problems: self.top_problems as usize,
                protocol: self.efficient_protocol,
                cheap_run: self.cheap_run.clone(),
                ..EfficientConfig::new(cheap.as_str())
            }),
            extraction: self.extraction,
            dry_run: self.dry_run,
            flush_every: self.flush_every.max(1),
            flush_seconds: self.flush_seconds,
            part_size: self.part_size as u64,
            progress: true,
            ..RespondConfig::default()
        };
        self.requests.apply(&mut config, self.problems, self.seed);
        Ok(config)
    }
}

#[derive(Args, Debug)]
pub struct ExportBatchArgs {
    /// Folder of the Parquet tables (reads `variants/`).
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// The JSONL file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Model name written into every request (and into the response keys).
    #[arg(long)]
    pub model: String,
    /// Requests for `/v1/completions` instead of `/v1/chat/completions`.
    #[arg(long)]
    pub completions: bool,
    #[command(flatten)]
    pub prompt: PromptArgs,
    /// Only these attacks (originals are always included), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub attack: Vec<String>,
}

#[derive(Args, Debug)]
pub struct IngestResponsesArgs {
    /// The file or folder to read.
    pub input: PathBuf,
    /// Layout of the input.
    #[arg(long, value_enum)]
    pub format: OutsideFormat,
    /// Folder of the Parquet tables: reads `variants/` to match rows, writes `responses/`.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Model name (required unless the layout carries it: ArithmAttack folders, GSM8K solutions).
    #[arg(long)]
    pub model: Option<String>,
    #[command(flatten)]
    pub prompt: PromptArgs,
    /// Generic layout: column holding the question (matched to variants by its text).
    #[arg(long, default_value = "question")]
    pub question_col: String,
    /// Generic layout: column holding the model's raw reply.
    #[arg(long, default_value = "response")]
    pub response_col: String,
    /// Generic layout: column holding the gold answer, for rows that match no variant.
    #[arg(long)]
    pub gold_col: Option<String>,
    /// Noise level of a single ArithmAttack or generic file, in percent (0 to 100).
    #[arg(long, value_parser = clap::value_parser!(i32).range(0..=100))]
    pub noise_level: Option<i32>,
    /// How to read answers: advmath's rules (standard), the last number of the reply as the
    /// ArithmAttack study scored (last-number), or Xie et al.'s scorer (xie2024: the last match of
    /// their digit pattern, no sign), each to reproduce that paper's figures.
    #[arg(long, value_enum, default_value_t = Extraction::default())]
    pub extraction: Extraction,
}

impl IngestResponsesArgs {
    pub fn config(&self) -> anyhow::Result<OutsideConfig> {
        Ok(OutsideConfig {
            tables: self.tables.clone(),
            input: self.input.clone(),
            format: self.format,
            model: self.model.clone(),
            template: self.prompt.template()?,
            decoding: self.prompt.decoding(),
            question_col: self.question_col.clone(),
            response_col: self.response_col.clone(),
            gold_col: self.gold_col.clone(),
            noise_level: self.noise_level,
            extraction: self.extraction,
        })
    }
}

impl Located for RespondArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)
    }
}

impl Located for ExportBatchArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)?;
        output_file(places, &mut self.out)
    }

    fn outputs_beside_tables(&self) -> Vec<(&Path, &Path)> {
        vec![(self.out.as_path(), self.tables.as_path())]
    }
}

impl Located for IngestResponsesArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        input(places, &mut self.input)?;
        folder(places, &mut self.tables)
    }
}

pub fn respond(args: RespondArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let config = args.config()?;
    let s = advmath::respond::respond(&config)?;
    let mut out = stdout.lock();
    if config.dry_run {
        tsv_row(
            &mut out,
            ["dataset", "attack", "problem_id", "variant_id", "question"],
        )?;
        for it in &s.planned {
            let cell = |v: &Option<String>| v.clone().unwrap_or_default();
            tsv_row(
                &mut out,
                [
                    cell(&it.dataset),
                    cell(&it.attack),
                    cell(&it.problem_id),
                    cell(&it.variant_id),
                    it.question.clone(),
                ],
            )?;
        }
        eprintln!("dry run: {}", s.cost.line(&config.model));
        eprintln!(
            "dry run: {} more rows would reuse stored replies to identical questions; nothing was asked or written",
            s.reused
        );
        return Ok(());
    }
    s.write_table(&config.model, &mut out)?;
    if let Some(note) = s.unanswerable_note(&config.model) {
        eprintln!("{note}");
    }
    if s.failed > 0 {
        return Err(advmath::Error::invalid(
            &config.model,
            format!(
                "{} request(s) failed for good; rerun the same command to retry them",
                s.failed
            ),
        )
        .into());
    }
    s.failures()?;
    Ok(())
}

pub fn export_batch(args: ExportBatchArgs) -> anyhow::Result<()> {
    let n = advmath::respond::outside::export_batch(
        &args.tables,
        &args.out,
        &args.model,
        &args.prompt.template()?,
        &args.prompt.decoding(),
        &args.attack,
        args.completions,
    )?;
    eprintln!("{n} requests -> {}", args.out.display());
    Ok(())
}

pub fn ingest_responses(args: IngestResponsesArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let written = advmath::respond::outside::ingest_responses(&args.config()?)?;
    let mut models: Vec<_> = written.into_iter().collect();
    models.sort();
    let mut out = stdout.lock();
    tsv_row(&mut out, ["model", "rows"])?;
    for (m, n) in models {
        tsv_row(&mut out, [m, n.to_string()])?;
    }
    Ok(())
}
