//! Prompt templates: the two papers' prompts, verbatim, and user files with `{question}`; and
//! Xie et al.'s code-generation prompt.

use std::path::Path;

use crate::error::{Error, Result};

/// Xie et al. 2024, zero-shot chain of thought (verbatim from their code).
pub const XIE2024: &str = "Solve a math problem. The solution ends with \"the answer is (a number)\" like \"the answer is 1\".\nQuestion: {question}\nAnswer: Let's think step by step.";

/// ArithmAttack (Abedin et al.): the user turn its scripts send, whitespace included (their
/// indented triple-quoted string puts a newline and 20 spaces before each line and a newline and
/// 16 spaces at the end; some chat templates trim it, others keep it, and the released generations
/// show both). Their scripts then apply the chat template without an assistant header, which an
/// OpenAI-compatible server always adds: that difference is listed in `reports/paper_fidelity.md`.
pub const ARITHMATTACK: &str = "\n                    Think step by step through the following problem and clearly show each step of your reasoning. Ensure the final answer is clearly indicated by ending with {The final answer is}.\n                    question:\n                    {question}\n                ";

/// The code-generation prompt of Xie et al. 2024 (section 3.1, appendix A.1), verbatim from the
/// authors' `generation/gpt_code_prompt.py`: the model is given the problem and its final answer.
/// The spaces before the line breaks are theirs.
pub fn xie2024_program(question: &str, answer: &str) -> String {
    format!(
        "Write a Python script that contains a step-by-step solution for a given math problem and its answer. \
         Start the script by defining variables corresponding to the quantities mentioned in the problem. Print \
         the final answer at the end of the script. Do not use if-else statements and loops to solve the \
         problem. \n\nGiven problem: \"{question}\" \nAnswer: \"{answer}\"\nPython script:"
    )
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    pub name: String,
    pub text: String,
}

impl Default for Template {
    /// Xie et al.'s zero-shot chain of thought.
    fn default() -> Self {
        Template {
            name: "xie2024".into(),
            text: XIE2024.into(),
        }
    }
}

impl Template {
    /// A built-in name (`xie2024`, `arithmattack`) or a file holding a template with `{question}`.
    pub fn resolve(spec: &str) -> Result<Template> {
        let text = match spec {
            "xie2024" => XIE2024.to_string(),
            "arithmattack" => ARITHMATTACK.to_string(),
            path => {
                let p = Path::new(path);
                let text = std::fs::read_to_string(p).map_err(|e| Error::file(p, e))?;
                if !text.contains("{question}") {
                    return Err(Error::usage(format!(
                        "template {path} has no {{question}} placeholder"
                    )));
                }
                return Ok(Template {
                    name: p
                        .file_stem()
                        .and_then(|s| s.to_str())
                        .unwrap_or(path)
                        .to_string(),
                    text,
                });
            }
        };
        Ok(Template {
            name: spec.to_string(),
            text,
        })
    }

    /// Only `{question}` is substituted: other braces (ArithmAttack's `{The final answer is}`)
    /// are part of the prompt.
    pub fn render(&self, question: &str) -> String {
        self.text.replace("{question}", question)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_render_verbatim() {
        let t = Template::resolve("xie2024").unwrap();
        assert_eq!(
            t.render("1+1?"),
            "Solve a math problem. The solution ends with \"the answer is (a number)\" like \"the answer is 1\".\nQuestion: 1+1?\nAnswer: Let's think step by step."
        );
        let a = Template::resolve("arithmattack").unwrap();
        let indent = " ".repeat(20);
        assert_eq!(
            a.render("Q"),
            format!(
                "\n{indent}Think step by step through the following problem and clearly show each step of your reasoning. Ensure the final answer is clearly indicated by ending with {{The final answer is}}.\n{indent}question:\n{indent}Q\n{}",
                " ".repeat(16)
            )
        );
    }

    #[test]
    fn the_code_prompt_gives_problem_and_answer() {
        assert_eq!(
            xie2024_program("Tom has {answer} 3 apples.", "3"),
            "Write a Python script that contains a step-by-step solution for a given math problem and its answer. \
             Start the script by defining variables corresponding to the quantities mentioned in the problem. \
             Print the final answer at the end of the script. Do not use if-else statements and loops to solve \
             the problem. \n\nGiven problem: \"Tom has {answer} 3 apples.\" \nAnswer: \"3\"\nPython script:"
        );
    }

    #[test]
    fn files_need_a_placeholder() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.txt");
        std::fs::write(&p, "no placeholder").unwrap();
        assert!(Template::resolve(p.to_str().unwrap()).is_err());
        std::fs::write(&p, "Q: {question}\nA:").unwrap();
        assert_eq!(
            Template::resolve(p.to_str().unwrap()).unwrap().render("x"),
            "Q: x\nA:"
        );
    }
}
