//! One response: the question asked ([`Item`]), the scored answer (a `responses` row, whose type
//! and codec are the store's) and its resume key.

use super::grade::{grade, Extraction};
use crate::llm::client::Decoding;
use crate::llm::prompt::Template;
use crate::program::tree::num_text;
use crate::seed::{fnv1a, fnv1a_from, mix};
use crate::store::responses::ResponseRow;

/// A run's label: the settings beyond model and template that change what is asked or how it
/// is graded, those that differ from the defaults, in a fixed order (`default` when none does).
pub fn run_label(decoding: &Decoding, extraction: Extraction, completions: bool) -> String {
    let d = Decoding::default();
    let mut parts: Vec<String> = Vec::new();
    if decoding.temperature != d.temperature {
        parts.push(format!("temperature={}", decoding.temperature));
    }
    if let Some(p) = decoding.top_p {
        parts.push(format!("top_p={p}"));
    }
    if decoding.max_tokens != d.max_tokens {
        parts.push(format!("max_tokens={}", decoding.max_tokens));
    }
    if let Some(seed) = decoding.seed {
        parts.push(format!("seed={seed}"));
    }
    if !decoding.stop.is_empty() {
        parts.push(format!("stop={:?}", decoding.stop));
    }
    if extraction != Extraction::default() {
        parts.push(format!("extraction={}", extraction.name()));
    }
    if completions {
        parts.push("completions".to_string());
    }
    if parts.is_empty() {
        crate::store::responses::DEFAULT_RUN.to_string()
    } else {
        parts.join(",")
    }
}

/// One question to ask: a variant, or an outside row.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub variant_id: Option<String>,
    pub problem_id: Option<String>,
    pub dataset: Option<String>,
    pub attack: Option<String>,
    pub noise_level: Option<i32>,
    pub question: String,
    /// What a right reply says (`None`: not known, and the reply is not graded).
    pub gold: Option<super::grade::Gold>,
    pub variant_index: i32,
}

/// A response row built by the grader: every row the respond stage writes is scored here, once,
/// against its item's gold answer.
pub trait Scored: Sized {
    /// A row for a generated text, scored with the standard extraction.
    fn scored(
        key: String,
        model: &str,
        template: &str,
        item: &Item,
        text: String,
        source: &str,
    ) -> Self {
        Self::scored_by(
            key,
            model,
            template,
            item,
            text,
            source,
            Extraction::Standard,
        )
    }

    /// As [`Scored::scored`], with a chosen extraction scheme: extraction and scoring happen
    /// here, once.
    fn scored_by(
        key: String,
        model: &str,
        template: &str,
        item: &Item,
        text: String,
        source: &str,
        extraction: Extraction,
    ) -> Self;

    /// The row of `item` in `run` answered by the reply already given to an identical question
    /// (an identical request: same model, prompt and decoding): the same text and request
    /// metadata, scored against `item`'s own gold answer with `extraction`.
    fn reusing(&self, item: &Item, extraction: Extraction, run: &str) -> Self;
}

impl Scored for ResponseRow {
    fn scored_by(
        key: String,
        model: &str,
        template: &str,
        item: &Item,
        text: String,
        source: &str,
        extraction: Extraction,
    ) -> ResponseRow {
        let g = grade(&text, item.gold, extraction);
        ResponseRow {
            response_key: key,
            model: model.to_string(),
            template: template.to_string(),
            run: crate::store::responses::DEFAULT_RUN.to_string(),
            variant_id: item.variant_id.clone(),
            problem_id: item.problem_id.clone(),
            dataset: item.dataset.clone(),
            attack: item.attack.clone(),
            noise_level: item.noise_level,
            question: item.question.clone(),
            response: Some(text),
            extracted: g.extracted,
            extraction_rule: g.rule.to_string(),
            gold: item
                .gold
                .and_then(super::grade::Gold::answer)
                .map(|g| num_text::to_text(&g)),
            abstained: Some(g.abstained),
            correct: g.correct,
            correct_exact: g.correct_exact,
            latency_ms: None,
            prompt_tokens: None,
            completion_tokens: None,
            finish_reason: None,
            source: source.to_string(),
            simulated: crate::vocab::is_simulated(model),
            error: None,
        }
    }

    fn reusing(&self, item: &Item, extraction: Extraction, run: &str) -> ResponseRow {
        let mut row = ResponseRow::scored_by(
            self.response_key.clone(),
            &self.model,
            &self.template,
            item,
            self.response.clone().unwrap_or_default(),
            &self.source,
            extraction,
        );
        row.latency_ms = self.latency_ms;
        row.prompt_tokens = self.prompt_tokens;
        row.completion_tokens = self.completion_tokens;
        row.finish_reason = self.finish_reason.clone();
        row.simulated = self.simulated;
        row.in_run(run)
    }
}

/// The request key: hex of two independent 64-bit hashes of the settings and the question. At
/// temperature 0 two variants with the same question share it (and one reply, which greedy
/// decoding would give again); above 0 the variant is hashed too, so each variant is its own
/// sample, as a sampling run asks it. A row is identified by the key and its variant
/// ([`ResponseRow::row_id`]).
pub fn response_key(model: &str, template: &Template, decoding: &Decoding, item: &Item) -> String {
    ResponseKeys::new(model, template, decoding).key(item)
}

/// [`response_key`] for many questions under one model, prompt and decoding: the hash of the
/// shared prefix (the prompt template is most of the text) is computed once.
pub struct ResponseKeys {
    prefix: u64,
    per_variant: bool,
}

impl ResponseKeys {
    pub fn new(model: &str, template: &Template, decoding: &Decoding) -> ResponseKeys {
        let prefix = format!(
            "{model}\u{0}{}\u{0}{}\u{0}",
            template.text,
            decoding.key_text()
        );
        ResponseKeys {
            prefix: fnv1a(prefix.as_bytes()),
            per_variant: decoding.temperature > 0.0,
        }
    }

    /// The key of `item`'s request.
    pub fn key(&self, item: &Item) -> String {
        match (&item.variant_id, self.per_variant) {
            (Some(variant), true) => {
                self.key_of(&format!("{}\u{0}variant\u{0}{variant}", item.question))
            }
            _ => self.key_of(&item.question),
        }
    }

    fn key_of(&self, question: &str) -> String {
        let a = fnv1a_from(self.prefix, question.as_bytes());
        let b = mix(a ^ fnv1a_from(a, b"\x01"));
        format!("{a:016x}{b:016x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(question: &str, variant: &str) -> Item {
        Item {
            variant_id: Some(variant.into()),
            problem_id: None,
            dataset: None,
            attack: None,
            noise_level: None,
            question: question.into(),
            gold: None,
            variant_index: 0,
        }
    }

    /// At temperature 0 the key of a question is the two hashes of the whole request text, as it
    /// was before the prefix's hash was shared (stored keys stay valid), whatever the variant.
    /// Above 0 each variant has its own key: its own sample.
    #[test]
    fn keys_hash_the_whole_request_text_and_the_variant_when_sampling() {
        let template = Template::resolve("xie2024").unwrap();
        let greedy = Decoding {
            temperature: 0.0,
            top_p: None,
            max_tokens: 512,
            seed: Some(3),
            stop: Vec::new(),
        };
        let question = "Tom has 3 apples and buys 4 more. How many apples does he have?";
        let text = format!(
            "m\u{0}{}\u{0}{}\u{0}{question}",
            template.text,
            greedy.key_text()
        );
        let a = fnv1a(text.as_bytes());
        let b = mix(a ^ fnv1a(&[text.as_bytes(), b"\x01"].concat()));
        let (v1, v2) = (item(question, "d/m3/1"), item(question, "d/m3/2"));
        assert_eq!(
            response_key("m", &template, &greedy, &v1),
            format!("{a:016x}{b:016x}")
        );
        assert_eq!(
            response_key("m", &template, &greedy, &v2),
            format!("{a:016x}{b:016x}")
        );
        let sampling = Decoding {
            temperature: 0.1,
            ..greedy
        };
        assert_ne!(
            response_key("m", &template, &sampling, &v1),
            response_key("m", &template, &sampling, &v2)
        );
    }
}
