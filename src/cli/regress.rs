//! `advmath regress`: the per-model feature study (Xie et al. Table 8, Figure 8).

use std::path::PathBuf;

use clap::Args;

use advmath::output::tsv_row;

use super::places::{folder, Located};
use advmath::feature_sets::FeatureSet;
use advmath::regress::RegressConfig;
use advmath::store::places::Places;

/// Every default comes from [`RegressConfig::default`], which `advmath run` uses too.
#[derive(Args, Debug)]
pub struct RegressArgs {
    /// Folder of the Parquet tables (reads features and responses, writes coefficients).
    #[arg(long, default_value_os_t = RegressConfig::default().tables)]
    pub tables: PathBuf,
    /// Attacks whose variants enter the fit, comma-separated (the paper uses M3).
    #[arg(long, value_delimiter = ',', default_values_t = RegressConfig::default().attacks)]
    pub attack: Vec<String>,
    /// The feature set fitted: `xie2024` (the authors' family) or `advmath` (advmath's own 51).
    #[arg(long, value_enum, default_value_t = RegressConfig::default().set)]
    pub set: FeatureSet,
    /// `logistic`: penalised logistic regression (linfa, Wald tests), this project's design;
    /// `linear`: the authors' default, least squares of the 1/0 correctness with an intercept
    /// (statsmodels OLS; minimum-norm where features are collinear; t tests; raw features,
    /// --alpha unused).
    #[arg(long, value_enum, default_value_t = RegressConfig::default().method)]
    pub method: advmath::regress::RegressMethod,
    /// Figure 8's answer length: `tokens` under cl100k_base (GPT-3.5's and GPT-4's tokenizer:
    /// digit runs cut in threes), the paper's "token counts"; or `digits` (the token count of
    /// LLaMA-family tokenizers).
    #[arg(long, value_enum, default_value_t = RegressConfig::default().answer_length)]
    pub answer_length: advmath::regress::AnswerLength,
    /// L2 penalty weight of the logistic fit, scikit-learn's 1/C (0 for plain maximum likelihood).
    #[arg(long, default_value_t = RegressConfig::default().alpha)]
    pub alpha: f64,
    /// Standardise features, so coefficients are per standard deviation (`--standardize` alone
    /// means true).
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true",
          default_value_t = RegressConfig::default().standardize)]
    pub standardize: bool,
    /// Folder for regression.md and the Figure 8 plots.
    #[arg(long, default_value_os_t = RegressConfig::default().report_dir)]
    pub report_dir: PathBuf,
}

impl RegressArgs {
    pub fn config(&self) -> RegressConfig {
        RegressConfig {
            tables: self.tables.clone(),
            attacks: self.attack.clone(),
            alpha: self.alpha,
            standardize: self.standardize,
            set: self.set,
            method: self.method,
            answer_length: self.answer_length,
            report_dir: self.report_dir.clone(),
        }
    }
}

impl Located for RegressArgs {
    fn localize(&mut self, places: &mut Places) -> advmath::Result<()> {
        folder(places, &mut self.tables)?;
        folder(places, &mut self.report_dir)
    }
}

pub fn run(args: RegressArgs) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let config = args.config();
    let s = advmath::regress::regress(&config)?;
    let mut out = stdout.lock();
    tsv_row(
        &mut out,
        [
            "model",
            "template",
            "n",
            "right",
            "wrong",
            "accuracy",
            "informative",
            "most_positive",
            "most_negative",
        ],
    )?;
    // A named feature with its coefficient and Wald (or t) p-value.
    let named = |terms: Vec<&advmath::regress::Term>| {
        terms
            .iter()
            .map(|t| {
                format!(
                    "{} ({:+.3}, p={:.2e})",
                    t.feature,
                    t.coefficient.unwrap_or(f64::NAN),
                    t.p_value.unwrap_or(f64::NAN)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    for f in &s.fits {
        let right = (f.accuracy * f.n as f64).round() as usize;
        let (top, bottom) = advmath::regress::extreme_terms(f);
        tsv_row(
            &mut out,
            [
                f.model.clone(),
                f.template.clone(),
                f.n.to_string(),
                right.to_string(),
                (f.n - right.min(f.n)).to_string(),
                format!("{:.4}", f.accuracy),
                advmath::regress::not_informative(f)
                    .map(|why| format!("no: {why}"))
                    .unwrap_or_else(|| "yes".into()),
                named(top),
                named(bottom),
            ],
        )?;
    }
    eprintln!(
        "report -> {}",
        advmath::store::location::display(&config.report_dir.join("regression.md"))
    );
    Ok(())
}
