//! `advmath generate`: the generation settings `generate` and `run` share, and sharded runs.

use std::path::PathBuf;

use clap::Args;

use advmath::output::tsv_row;
use advmath::store::default_tables;

use super::places::{folder, Located};
use super::{comma_list, MAX_THREADS};
use advmath::attack::noise::NoiseCount;
use advmath::generate::guided::GuidedConfig;
use advmath::generate::GenerateConfig;
use advmath::store::places::Places;
use advmath::vocab::AttackSpec;

fn parse_attack(s: &str) -> Result<AttackSpec, String> {
    AttackSpec::parse(s)
}

/// Generation settings shared by `generate` and `run`; every default is
/// [`GenerateConfig::default`]'s.
#[derive(Args, Debug, Clone)]
pub struct GenerationArgs {
    /// Attacks, comma-separated: m1 (free), m2 (same digit count), m3 (same significant digits),
    /// digits (one number that can grow gains one to three digits, after GSM-Plus), decimals
    /// (whole amounts of money, time, length, weight or volume gain a quarter, a half or three
    /// quarters, written as decimals: "$4.25", "2.5 hours"; GSM-Plus's conversion), fractions
    /// (the same parts of every such amount but money, written as mixed numbers: "3 1/2
    /// pounds", "2 3/4 hours"), punct
    /// (ArithmAttack noise on the originals), names (every person renamed, after
    /// GSM-Symbolic), noop (one irrelevant sentence with a number added, after GSM-NoOp),
    /// missing (a number the answer needs becomes "a certain number of ...": the question has
    /// no answer, GSM-Plus's critical thinking), or a composition such as m3+punct, names+m3,
    /// noop+m3, missing+m3, names+noop+m3 (the numbers drawn first, then the text changed;
    /// written `m3+names` in the tables). `guided`
    /// (generate only, alone) keeps the M3 candidates a model's fitted failure model ranks
    /// likeliest to break it: see --guided-by.
    #[arg(long, value_delimiter = ',', value_parser = parse_attack, default_value = comma_list(&GenerateConfig::default().attacks))]
    pub attack: Vec<AttackSpec>,
    /// Attempts per problem and numeric attack (the paper's N).
    #[arg(long, default_value_t = GenerateConfig::default().attempts, value_parser = clap::value_parser!(u64).range(1..))]
    pub attempts: u64,
    /// Variants per problem and attack (m); under M1-M3 a problem that does not reach m
    /// distinct valid variants gets none (the paper's Algorithm 2), under `digits`,
    /// `decimals` and `fractions` every one it reaches, up to m.
    #[arg(long, default_value_t = GenerateConfig::default().variants as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub variants: u32,
    /// At most this many problems per attack (default: all that reach m variants).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub problems: Option<u32>,
    /// Attack n problems per dataset, each with m variants in every requested attack (the paper
    /// attacks 100 randomly selected problems with 100 variants each): problems are taken in the
    /// order of a hash of (--seed, problem id), skipping those that fall short of m (the log says
    /// how many, and any shortfall); originals are written for them only.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub sample_problems: Option<u32>,
    /// Significant digits for M1 draws (the paper's c).
    #[arg(long, default_value_t = GenerateConfig::default().digits,
          value_parser = clap::value_parser!(u32).range(1..=15))]
    pub digits: u32,
    /// Punctuation noise levels, percent of the word count.
    #[arg(long, value_delimiter = ',', default_value = comma_list(&GenerateConfig::default().noise_levels),
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub noise: Vec<u32>,
    /// Noised copies per problem and noise level (ArithmAttack makes one).
    #[arg(long, default_value_t = GenerateConfig::default().noise_variants as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub noise_variants: u32,
    /// Distinct variants per problem of `names` and `noop` on the original question
    /// (GSM-Symbolic's instances of one template), from at most 4 times as many draws; composed
    /// with M1–M3, one per numeric variant.
    #[arg(long, default_value_t = GenerateConfig::default().text_variants as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub text_variants: u32,
    /// Punctuation marks per question, words being the question split on single spaces:
    /// `floor`: floor(p x words), the count of every noised question the ArithmAttack study
    /// released; `round`: round(p x words), half to even; `randint`: the study's published
    /// script, randint(1, int(p x words + 1)).
    #[arg(long, value_enum, default_value_t = GenerateConfig::default().noise_count)]
    pub noise_count: NoiseCount,
    /// Change only the numbers, as the paper's text does: "3 notebooks" becomes "1 notebooks".
    /// By default the noun right after a count that becomes one (or stops being one) agrees
    /// with it, where the rule is sure ("1 notebook", "5 hours"), and with `--constraints
    /// reader` (the default) so do a noun past adjectives ("1 photograph frame") and an article
    /// right before a number ("an 8 hour day").
    #[arg(long)]
    pub keep_noun_forms: bool,
    /// Which constraints a variant keeps. `reader` (the default) adds to the paper's node
    /// constraints what a reader takes for granted: a part stays within its whole ("ate 17 of
    /// 33"), numbers of one noun that the question ranks keep their order, counts of bounded
    /// units stay inside them (days in a week, hours in a month, a person's age), bills and coins
    /// exist, facts of the world (a spider's 8 legs) and plural counts stay; the article and a noun past adjectives agree with a changed number. `paper` keeps
    /// the paper's constraints only, and the noun right after a count agreeing: the variants of
    /// versions before the reader's rules, byte for byte. Each problem's rules, with why they
    /// were inferred, are `generation_stats.reader_rules`; rejections per rule are
    /// `rejected_order`, `rejected_unit_bound` and `rejected_denomination`.
    #[arg(long, value_enum, default_value_t = GenerateConfig::default().constraints)]
    pub constraints: advmath::attack::coherence::Constraints,
    /// Run seed; every variant's own seed derives from it, the problem id, the attack and the index.
    #[arg(long, default_value_t = GenerateConfig::default().seed)]
    pub seed: u64,
    /// Worker threads, 1 to 1024 (default: all cores). The output does not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS as i64))]
    pub threads: Option<u32>,
}

impl GenerationArgs {
    pub fn config(&self, tables: PathBuf) -> GenerateConfig {
        GenerateConfig {
            tables,
            attacks: self.attack.clone(),
            attempts: self.attempts,
            variants: self.variants as usize,
            problems: self.problems.map(|p| p as usize),
            sample_problems: self.sample_problems.map(|p| p as usize),
            digits: self.digits,
            noise_levels: self.noise.clone(),
            noise_variants: self.noise_variants as usize,
            text_variants: self.text_variants as usize,
            noise_count: self.noise_count,
            noun_agreement: !self.keep_noun_forms,
            constraints: self.constraints,
            seed: self.seed,
            threads: self.threads.map(|t| t as usize),
            shard: None,
            progress: true,
            guided: None,
            budget: GenerateConfig::default().budget,
        }
    }
}

/// The guided attack's settings: which model it learns from, and how the problems are split.
#[derive(Args, Debug, Clone)]
pub struct GuidedArgs {
    /// With `--attack guided`: the model whose graded M3 responses the failure model is
    /// fitted on (needs `generate --attack m3`, `respond` and `features` first). Its
    /// training problems are a seeded share of the problems (--train-share, --split-seed); the
    /// others, listed in the run record, are attacked.
    #[arg(long, value_name = "MODEL")]
    pub guided_by: Option<String>,
    /// Learn only from this run of the guiding model's responses (default: all its runs).
    #[arg(long, value_name = "RUN", requires = "guided_by")]
    pub guided_run: Option<String>,
    /// Guided variants kept per held-out problem (K), best first: the first k of them are the
    /// guided attack with budget k. A problem with fewer distinct valid candidates gets none.
    #[arg(long, value_name = "K", default_value_t = GenerateConfig::default().budget as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub budget: u32,
    /// Share of the problems the failure model is fitted on (the rest are attacked).
    #[arg(long, default_value_t = GuidedConfig::new("").train_share)]
    pub train_share: f64,
    /// Seed of the training/held-out split of the problems (by a hash of each problem id).
    #[arg(long, default_value_t = GuidedConfig::new("").split_seed)]
    pub split_seed: u64,
    /// The feature set the failure model reads (its table must exist).
    #[arg(long, value_enum, default_value_t = GuidedConfig::new("").set)]
    pub guided_features: advmath::feature_sets::FeatureSet,
}

impl GuidedArgs {
    fn apply(&self, config: &mut GenerateConfig) {
        config.budget = self.budget as usize;
        config.guided = self.guided_by.as_ref().map(|model| GuidedConfig {
            model: model.clone(),
            run: self.guided_run.clone(),
            train_share: self.train_share,
            split_seed: self.split_seed,
            set: self.guided_features,
        });
    }
}

#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Folder of the Parquet tables: reads `problems/`, writes `variants/` and `generation_stats/`.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Make only the K-th of N contiguous slices of each dataset's problems (K counts from 1),
    /// into `<tables>/_shards/generate/K-of-N/`, so that N machines or jobs (a Slurm array, a
    /// Kubernetes indexed job) share a run; then `--merge-shards N` joins them. The merged
    /// tables equal a single run with the same options, byte for byte.
    #[arg(long, value_name = "K/N", conflicts_with_all = ["merge_shards", "problems"])]
    pub shard: Option<advmath::generate::shard::Shard>,
    /// Join the outputs of `--shard 1/N` .. `N/N` into the tables (every shard must be done,
    /// with the same options) and remove the shard folders. Generation options are not used.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub merge_shards: Option<u32>,
    #[command(flatten)]
    pub generation: GenerationArgs,
    #[command(flatten)]
    pub guided: GuidedArgs,
}

impl Located for GenerateArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)
    }
}

pub fn run(args: GenerateArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    if let Some(count) = args.merge_shards {
        let merged = advmath::generate::shard::merge_shards(&args.tables, count as usize)?;
        let mut out = stdout.lock();
        tsv_row(&mut out, ["dataset", "variant_rows"])?;
        for (dataset, rows) in &merged.datasets {
            tsv_row(&mut out, [dataset.clone(), rows.to_string()])?;
        }
        return Ok(());
    }
    let mut config = args.generation.config(args.tables.clone());
    config.shard = args.shard;
    args.guided.apply(&mut config);
    let summary = advmath::generate::generate(&config)?;
    eprintln!(
        "{} attempts; {} invalid problems skipped",
        summary.attempts, summary.skipped_invalid
    );
    for sample in &summary.samples {
        eprintln!("{}", sample.summary());
    }
    if summary.noise_only > 0 {
        eprintln!(
            "{} problems without a valid program got punctuation noise only",
            summary.noise_only
        );
    }
    for line in summary.refusal_lines() {
        eprintln!("{line}");
    }
    for ((dataset, attack), n) in &summary.lost_to_rules {
        eprintln!(
            "{dataset} {attack}: {n} problems fall short of the variants the attack needs only \
             because of the reader's rules (they reach them under --constraints paper; see \
             generation_stats)"
        );
    }
    summary.write_table(&mut stdout.lock())?;
    summary.failures()?;
    Ok(())
}
