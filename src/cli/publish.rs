//! `advmath publish`: a folder ready for `hf upload`.

use std::path::PathBuf;

use clap::Args;

use advmath::store::default_tables;

use super::places::{folder, Located};
use advmath::publish::PublishConfig;
use advmath::store::places::Places;

#[derive(Args, Debug)]
pub struct PublishArgs {
    /// The folder to write (refused if it exists, unless --force).
    #[arg(long)]
    pub out: PathBuf,
    /// Folder of the Parquet tables to publish from.
    #[arg(long, default_value_os_t = default_tables())]
    pub tables: PathBuf,
    /// Dataset name for the card (default: advmath-<sources>).
    #[arg(long)]
    pub name: Option<String>,
    /// Extra tables to publish as configs of their own, comma-separated (responses, features).
    #[arg(long, value_delimiter = ',')]
    pub include: Vec<String>,
    /// Replace an existing folder.
    #[arg(long)]
    pub force: bool,
    /// Rows per Parquet shard.
    #[arg(long, default_value_t = PublishConfig::MAX_SHARD_ROWS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_shard_rows: u64,
    /// The prompt of the lm-evaluation-harness tasks written in `lm_eval/`: xie2024,
    /// arithmattack, or a file with a {question} placeholder (as `respond --template`).
    #[arg(long, default_value = "xie2024")]
    pub template: String,
}

impl PublishArgs {
    pub fn config(&self) -> advmath::Result<PublishConfig> {
        let config = PublishConfig::new(self.tables.clone(), self.out.clone());
        Ok(PublishConfig {
            name: self.name.clone().unwrap_or(config.name),
            include: self.include.clone(),
            force: self.force,
            max_shard_rows: self.max_shard_rows as usize,
            template: advmath::llm::prompt::Template::resolve(&self.template)?,
            ..config
        })
    }
}

impl Located for PublishArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)?;
        folder(places, &mut self.out)
    }
}

pub fn run(args: PublishArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let config = args.config()?;
    let summary = advmath::publish::publish(&config)?;
    summary.write_table(&mut stdout.lock())?;
    eprintln!(
        "published to {}; upload with: hf upload <user>/{} {} --repo-type dataset",
        config.out.display(),
        config.name,
        config.out.display()
    );
    Ok(())
}
