//! The assistant's turn of a raw generation: the reply cut out of its chat template (headers,
//! turn ends and special tokens of the common templates), with `<think>` blocks and calculator
//! annotations dropped, so that no number of the prompt is ever taken for the answer.

/// Headers that open the assistant's turn. Some templates have none (Mistral's `[/INST]` closes
/// the user turn instead; the ArithmAttack Qwen runs label the reply `system`), hence also
/// [`USER_HEADERS`] and [`TURN_ENDS`].
const ASSISTANT_HEADERS: &[&str] = &[
    "<|start_header_id|>assistant<|end_header_id|>",
    "<|im_start|>assistant",
    "<start_of_turn>model",
    "<|start_of_role|>assistant<|end_of_role|>",
    "<|assistant|>",
    "<|Assistant|>",
    "<\u{ff5c}Assistant\u{ff5c}>",
];

const USER_HEADERS: &[&str] = &[
    "<|start_header_id|>user<|end_header_id|>",
    "<|im_start|>user",
    "<start_of_turn>user",
    "<|start_of_role|>user<|end_of_role|>",
    "<|user|>",
    "<|User|>",
    "<\u{ff5c}User\u{ff5c}>",
    "[INST]",
];

const TURN_ENDS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<end_of_turn>",
    "[/INST]",
    "</s>",
    "<|end|>",
    "<|end_of_text|>",
    "<|endoftext|>",
    "<|end_of_role|>",
    "<\u{ff5c}end\u{2581}of\u{2581}sentence\u{ff5c}>",
];

/// Tokens without the `<|...|>` shape that templates use.
const PLAIN_SPECIAL_TOKENS: &[&str] = &[
    "<s>",
    "</s>",
    "<bos>",
    "<eos>",
    "<pad>",
    "<unk>",
    "<start_of_turn>",
    "<end_of_turn>",
    "[INST]",
    "[/INST]",
    "<<SYS>>",
    "<</SYS>>",
];

pub(super) fn rfind_any(text: &str, needles: &[&str]) -> Option<(usize, usize)> {
    needles
        .iter()
        .filter_map(|n| text.rfind(n).map(|i| (i, i + n.len())))
        .max_by_key(|&(i, _)| i)
}

pub(super) fn find_any(text: &str, needles: &[&str]) -> Option<(usize, usize)> {
    needles
        .iter()
        .filter_map(|n| text.find(n).map(|i| (i, i + n.len())))
        .min_by_key(|&(i, _)| i)
}

/// The text of the assistant's reply: template, echoed prompt, special tokens and `<think>`
/// blocks removed. A response without any template is returned as it is (tokens aside).
pub fn assistant_text(raw: &str) -> String {
    strip_calculator(&strip_think(&strip_special_tokens(reply_span(raw))))
}

pub(super) fn reply_span(raw: &str) -> &str {
    if let Some((_, end)) = rfind_any(raw, ASSISTANT_HEADERS) {
        // A decoder stops at the end of the turn; anything after it is a hallucinated next turn.
        return turns(crate::cut::after(raw, end))
            .into_iter()
            .find(|t| has_content(t))
            .unwrap_or("");
    }
    // Without an assistant header the reply is the last turn with any text, and it may open
    // with a role header of its own: the ArithmAttack Qwen runs answer as `user` or `system`.
    let turns = turns(raw);
    let Some(last) = turns.iter().rposition(|t| has_content(t)) else {
        return "";
    };
    let first_user = turns
        .iter()
        .position(|t| find_any(t, USER_HEADERS).is_some());
    if first_user == Some(last) {
        // The prompt's own user turn: the model said nothing.
        return "";
    }
    skip_role_header(turns[last])
}

/// The text split at every end-of-turn token.
pub(super) fn turns(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some((i, e)) = find_any(rest, TURN_ENDS) {
        out.push(crate::cut::before(rest, i));
        rest = crate::cut::after(rest, e);
    }
    out.push(rest);
    out
}

pub(super) fn has_content(turn: &str) -> bool {
    !strip_special_tokens(turn).trim().is_empty()
}

/// Skips the role header that opens a turn (`<|im_start|>system\n`).
pub(super) fn skip_role_header(text: &str) -> &str {
    let t = text.trim_start();
    if t.starts_with("<|start_header_id|>") {
        if let Some((_, after)) = t.split_once("<|end_header_id|>") {
            return after;
        }
    }
    if t.starts_with("<|im_start|>") || t.starts_with("<start_of_turn>") {
        return t.split_once('\n').map_or("", |(_, after)| after);
    }
    text
}

/// Replaces special tokens by a newline, so that numbers on either side never merge.
pub(super) fn strip_special_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'outer: while let Some(i) = rest.find(['<', '[']) {
        let (text, tail) = crate::cut::split(rest, i);
        out.push_str(text);
        if let Some(after) = PLAIN_SPECIAL_TOKENS
            .iter()
            .find_map(|t| tail.strip_prefix(t))
        {
            out.push('\n');
            rest = after;
            continue;
        }
        // `<|anything|>` and DeepSeek's full-width `<｜anything｜>`.
        for (open, close) in [("<|", "|>"), ("<\u{ff5c}", "\u{ff5c}>")] {
            if let Some(body) = tail.strip_prefix(open) {
                if let Some((inner, after)) = body.split_once(close) {
                    if inner.len() <= 64 && !inner.contains(char::is_whitespace) {
                        out.push('\n');
                        rest = after;
                        continue 'outer;
                    }
                }
            }
        }
        // Not a token: its `<` or `[` is text.
        let mut chars = tail.chars();
        out.extend(chars.next());
        rest = chars.as_str();
    }
    out.push_str(rest);
    out
}

/// Drops reasoning blocks. A `</think>` without its opening tag (the template opened it in the
/// prompt) drops everything before it; an unclosed `<think>` keeps its text, since a truncated
/// reasoning is all the reply there is.
pub(super) fn strip_think(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    if let Some((reasoning, after)) = rest.split_once("</think>") {
        if !reasoning.contains("<think>") {
            rest = after;
        }
    }
    while let Some((text, after)) = rest.split_once("<think>") {
        out.push_str(text);
        match after.split_once("</think>") {
            Some((_, tail)) => rest = tail,
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Drops GSM8K calculator annotations, `<<18+28=46>>46` -> `46`: they are tool calls whose
/// inner `=` would otherwise read as the end of a calculation.
pub(super) fn strip_calculator(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((text, body)) = rest.split_once("<<") {
        out.push_str(text);
        match body.split_once(">>") {
            Some((calculation, tail))
                if calculation.len() <= 120
                    && calculation.contains('=')
                    && !calculation.contains('\n') =>
            {
                rest = tail;
            }
            _ => {
                out.push_str("<<");
                rest = body;
            }
        }
    }
    out.push_str(rest);
    out
}
