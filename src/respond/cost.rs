//! What a run will cost before it starts: requests, and an estimate of prompt and completion
//! tokens. Prompt tokens are estimated as one per four characters of the rendered prompt (the
//! usual rule of thumb for English text under BPE tokenisers; a server's own count differs by
//! model); completion tokens are bounded by `max_tokens` per request, since a reply's length is
//! not known before it is written.

use super::rows::Item;
use crate::llm::prompt::Template;

/// Requests a run will make and their estimated tokens.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    pub requests: usize,
    /// Estimated prompt tokens over every request (characters / 4, rounded up per prompt).
    pub prompt_tokens: u64,
    /// At most this many completion tokens (`max_tokens` per request).
    pub completion_tokens_at_most: u64,
}

impl Cost {
    /// The cost of asking `questions` once each with `template`, at most `max_tokens` per reply.
    pub fn of<'a>(
        questions: impl Iterator<Item = &'a Item>,
        template: &Template,
        max_tokens: u32,
    ) -> Cost {
        let mut cost = Cost::default();
        for it in questions {
            cost.requests += 1;
            let chars = template.render(&it.question).chars().count() as u64;
            cost.prompt_tokens += chars.div_ceil(4);
            cost.completion_tokens_at_most += u64::from(max_tokens);
        }
        cost
    }

    /// The line printed before a run's first request (and by `--dry-run`).
    pub fn line(&self, model: &str) -> String {
        format!(
            "{model}: {} requests, about {} prompt tokens (characters / 4) and at most {} completion tokens (--max-tokens per request)",
            self.requests, self.prompt_tokens, self.completion_tokens_at_most
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_tokens_are_a_quarter_of_the_rendered_characters_rounded_up() {
        let t = Template {
            name: "t".into(),
            text: "Q: {question}".into(),
        };
        let item = |q: &str| Item {
            variant_id: None,
            problem_id: None,
            dataset: None,
            attack: None,
            noise_level: None,
            question: q.into(),
            gold: None,
            variant_index: 0,
        };
        let items = [item("1+1?"), item("Zoë has 3 pens.")];
        // "Q: 1+1?" is 7 characters -> 2; "Q: Zoë has 3 pens." 18 characters -> 5.
        let c = Cost::of(items.iter(), &t, 100);
        assert_eq!(
            c,
            Cost {
                requests: 2,
                prompt_tokens: 7,
                completion_tokens_at_most: 200
            }
        );
        assert!(c
            .line("m")
            .starts_with("m: 2 requests, about 7 prompt tokens"));
    }
}
