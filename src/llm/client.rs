//! An OpenAI-compatible client: `/v1/chat/completions` or `/v1/completions`, one attempt at a
//! time; [`super::servers`] retries and spreads requests over an endpoint's servers.
//!
//! Retries cover what a busy or flaky server does: 429 and 5xx (honouring `Retry-After`),
//! timeouts, dropped connections and bodies that are not the JSON promised. Backoff is exponential
//! with full jitter; a `Retry-After` is honoured up to [`MAX_RETRY_AFTER`] (and never beyond the
//! request timeout), and a wait of a second or more is logged. A reply without content (a chat
//! message whose `content` is null) comes from a server that is up: it is asked again at once, up
//! to the endpoint's attempts, and then the request fails for good without the server being
//! backed off. The API key is read from an environment variable at start and only ever put in
//! the Authorization header: a server that echoes it back in a reply or an error body has it
//! replaced by `[redacted]` before anything is printed or stored.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Decoding settings; part of the resume key.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoding {
    pub temperature: f64,
    pub top_p: Option<f64>,
    pub max_tokens: u32,
    pub seed: Option<u64>,
    pub stop: Vec<String>,
}

impl Default for Decoding {
    /// Greedy, 512 tokens: reruns are reproducible. Neither paper's setting (Xie et al. sampled
    /// at 0.1 with 512 tokens, ArithmAttack at the model's default temperature).
    fn default() -> Self {
        Decoding {
            temperature: 0.0,
            top_p: None,
            max_tokens: 512,
            seed: None,
            stop: Vec::new(),
        }
    }
}

impl Decoding {
    /// Canonical text for the resume key.
    pub fn key_text(&self) -> String {
        format!(
            "t={};p={:?};max={};seed={:?};stop={:?}",
            self.temperature, self.top_p, self.max_tokens, self.seed, self.stop
        )
    }
}

#[derive(Clone, Debug)]
pub struct Endpoint {
    /// Base URLs of the servers that serve the model, e.g. `http://127.0.0.1:8080` or
    /// `https://api.openai.com` (with or without `/v1`); requests spread over them
    /// ([`super::servers`]).
    pub urls: Vec<String>,
    pub model: String,
    pub completions: bool,
    pub api_key: Option<String>,
    pub timeout: Duration,
    pub max_attempts: u32,
    pub backoff_base: Duration,
    pub backoff_cap: Duration,
}

impl Endpoint {
    /// Chat completions without a key, 120 s per request, 6 attempts backing off from 0.5 s up
    /// to 30 s.
    pub fn new(url: impl Into<String>, model: impl Into<String>) -> Self {
        Endpoint {
            urls: vec![url.into()],
            model: model.into(),
            completions: false,
            api_key: None,
            timeout: Duration::from_secs(120),
            max_attempts: 6,
            backoff_base: Duration::from_millis(500),
            backoff_cap: Duration::from_secs(30),
        }
    }

    /// The request URL on the server at `url` (one of [`Endpoint::urls`]).
    pub fn request_url(&self, url: &str) -> String {
        let base = url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        if self.completions {
            format!("{base}/v1/completions")
        } else {
            format!("{base}/v1/chat/completions")
        }
    }

    /// The JSON body for one prompt.
    pub fn body(&self, prompt: &str, d: &Decoding) -> Value {
        let mut body = if self.completions {
            json!({ "model": self.model, "prompt": prompt })
        } else {
            json!({ "model": self.model, "messages": [{ "role": "user", "content": prompt }] })
        };
        body["temperature"] = json!(d.temperature);
        body["max_tokens"] = json!(d.max_tokens);
        if let Some(p) = d.top_p {
            body["top_p"] = json!(p);
        }
        if let Some(s) = d.seed {
            body["seed"] = json!(s);
        }
        if !d.stop.is_empty() {
            body["stop"] = json!(d.stop);
        }
        body
    }
}

/// A finished generation.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub text: String,
    pub latency_ms: f64,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub finish_reason: Option<String>,
    pub attempts: u32,
}

/// Why one attempt failed, and whether another may succeed.
#[derive(Debug)]
pub(crate) enum AttemptError {
    Retry {
        reason: String,
        after: Option<Duration>,
    },
    Fatal(String),
}

pub fn agent(timeout: Duration, connections: usize) -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_idle_connections(connections.max(1))
        .max_idle_connections_per_host(connections.max(1))
        .build();
    ureq::Agent::new_with_config(config)
}

/// A parsed completion: text, prompt tokens, completion tokens, finish reason.
pub type Parsed = (String, Option<i64>, Option<i64>, Option<String>);

/// Why a body is no completion.
#[derive(Debug, thiserror::Error)]
enum ReplyError {
    /// Cut short or garbled on the way: the server or the connection is in trouble.
    #[error("malformed JSON from the server: {0}")]
    Malformed(serde_json::Error),
    #[error("no choices in the response: {0}")]
    NoChoices(String),
    /// A well-formed reply whose first choice holds no text (`"content": null`): the model
    /// produced none, the server itself is fine.
    #[error("no text in the first choice: {0}")]
    NoContent(String),
}

/// Parse an OpenAI-style response body.
pub fn parse_completion(body: &str, completions: bool) -> Result<Parsed, String> {
    parse_reply(body, completions).map_err(|e| e.to_string())
}

fn parse_reply(body: &str, completions: bool) -> Result<Parsed, ReplyError> {
    let v: Value = serde_json::from_str(body).map_err(ReplyError::Malformed)?;
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| ReplyError::NoChoices(truncate(body, 200)))?;
    let text = if completions {
        choice.get("text").and_then(Value::as_str)
    } else {
        choice
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_str)
    }
    .ok_or_else(|| ReplyError::NoContent(truncate(body, 200)))?;
    let usage = v.get("usage");
    let tok = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_i64);
    Ok((
        text.to_string(),
        tok("prompt_tokens"),
        tok("completion_tokens"),
        choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(String::from),
    ))
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The longest `Retry-After` honoured: a server asking for more is waited on this long.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// A `Retry-After` number in units of `unit` seconds, as asked (an HTTP date is treated as
/// "soon": one backoff step).
pub(crate) fn retry_after(value: Option<&str>, unit: f64) -> Option<Duration> {
    let s = value?.trim();
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        // Kept as asked (for the message), bounded only so that an absurd value fits a Duration;
        // what is waited is capped apart ([`honoured`]).
        .map(|v| Duration::from_secs_f64((v * unit).min(1e12)))
}

/// The part of a server's `Retry-After` that is waited: at most [`MAX_RETRY_AFTER`], and never
/// longer than one request may take.
pub(crate) fn honoured(after: Duration, timeout: Duration) -> Duration {
    after.min(MAX_RETRY_AFTER).min(timeout)
}

/// `text` with every occurrence of the API key replaced.
pub(crate) fn redact(text: String, key: Option<&str>) -> String {
    match key {
        Some(key) if !key.is_empty() && text.contains(key) => text.replace(key, "[redacted]"),
        _ => text,
    }
}

/// One request to the server at `url`, its reply parsed; the API key is redacted from every
/// text it returns.
///
/// A reply without content is sent again here, on the same server, up to the endpoint's
/// attempts, and then fails for good ([`AttemptError::Fatal`]): handed back for a retry, it would
/// take a server that answers at once out of service, for a backoff that grows with every such
/// reply. A transient failure among these sends is handed back for a retry as any other.
pub(crate) fn attempt(
    agent: &ureq::Agent,
    endpoint: &Endpoint,
    url: &str,
    body: &Value,
) -> Result<Completion, AttemptError> {
    let key = endpoint.api_key.as_deref();
    let redacted = |e: AttemptError| match e {
        AttemptError::Retry { reason, after } => AttemptError::Retry {
            reason: redact(reason, key),
            after,
        },
        AttemptError::Fatal(reason) => AttemptError::Fatal(redact(reason, key)),
    };
    let sends = endpoint.max_attempts.max(1);
    let mut empty = String::new();
    for n in 1..=sends {
        let (text, latency_ms) = send(agent, endpoint, url, body).map_err(redacted)?;
        match parse_reply(&text, endpoint.completions) {
            Ok((text, prompt_tokens, completion_tokens, finish_reason)) => {
                return Ok(Completion {
                    text: redact(text, key),
                    latency_ms,
                    prompt_tokens,
                    completion_tokens,
                    finish_reason,
                    attempts: n,
                })
            }
            Err(e @ ReplyError::NoContent(_)) => empty = e.to_string(),
            Err(e) => {
                return Err(redacted(AttemptError::Retry {
                    reason: e.to_string(),
                    after: None,
                }))
            }
        }
    }
    Err(redacted(AttemptError::Fatal(format!(
        "gave up after {sends} attempts: {empty}"
    ))))
}

fn send(
    agent: &ureq::Agent,
    endpoint: &Endpoint,
    url: &str,
    body: &Value,
) -> Result<(String, f64), AttemptError> {
    let start = Instant::now();
    let mut req = agent
        .post(&endpoint.request_url(url))
        .header("Content-Type", "application/json");
    if let Some(key) = &endpoint.api_key {
        req = req.header("Authorization", &format!("Bearer {key}"));
    }
    let mut resp = match req.send_json(body) {
        Ok(r) => r,
        Err(e) => {
            return Err(AttemptError::Retry {
                reason: format!("request failed: {e}"),
                after: None,
            })
        }
    };
    let status = resp.status().as_u16();
    // OpenAI also sends `retry-after-ms`, finer than `Retry-After`: prefer it when present.
    let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok());
    let after = retry_after(header("retry-after-ms"), 0.001)
        .or_else(|| retry_after(header("retry-after"), 1.0));
    let text = match resp.body_mut().read_to_string() {
        Ok(t) => t,
        Err(e) => {
            return Err(AttemptError::Retry {
                reason: format!("connection dropped while reading the body: {e}"),
                after,
            })
        }
    };
    // Redacted whole before any of it is cut for a message: a key cut in two would survive.
    let text = redact(text, endpoint.api_key.as_deref());
    let latency = start.elapsed().as_secs_f64() * 1000.0;
    match status {
        200..=299 => Ok((text, latency)),
        429 | 500..=599 | 408 => Err(AttemptError::Retry {
            reason: format!("HTTP {status}: {}", truncate(&text, 200)),
            after,
        }),
        _ => Err(AttemptError::Fatal(format!(
            "HTTP {status}: {}",
            truncate(&text, 300)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_chat_and_completion_bodies() {
        let chat = r#"{"choices":[{"message":{"content":"the answer is 4"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}}"#;
        assert_eq!(
            parse_completion(chat, false).unwrap(),
            (
                "the answer is 4".into(),
                Some(10),
                Some(5),
                Some("stop".into())
            )
        );
        let comp = r#"{"choices":[{"text":"4","finish_reason":"length"}]}"#;
        assert_eq!(parse_completion(comp, true).unwrap().0, "4");
        assert!(parse_completion("{not json", false)
            .unwrap_err()
            .contains("malformed JSON"));
        assert!(parse_completion(r#"{"choices":[]}"#, false).is_err());
    }

    #[test]
    fn a_reply_without_content_is_told_from_a_broken_one() {
        let null = r#"{"choices":[{"message":{"role":"assistant","content":null}}]}"#;
        assert!(matches!(
            parse_reply(null, false),
            Err(ReplyError::NoContent(_))
        ));
        assert!(matches!(
            parse_reply(r#"{"choices":[{"finish_reason":"stop"}]}"#, true),
            Err(ReplyError::NoContent(_))
        ));
        assert!(matches!(
            parse_reply(r#"{"choices": [ {"message": "#, false),
            Err(ReplyError::Malformed(_))
        ));
        assert!(parse_completion(null, false)
            .unwrap_err()
            .starts_with("no text in the first choice: "));
    }

    #[test]
    fn urls_and_bodies() {
        let e = Endpoint {
            urls: vec!["http://h:1/v1/".into()],
            model: "m".into(),
            completions: false,
            api_key: None,
            timeout: Duration::from_secs(1),
            max_attempts: 1,
            backoff_base: Duration::from_millis(1),
            backoff_cap: Duration::from_millis(1),
        };
        assert_eq!(e.request_url(&e.urls[0]), "http://h:1/v1/chat/completions");
        let d = Decoding {
            temperature: 0.0,
            top_p: Some(0.9),
            max_tokens: 64,
            seed: Some(1),
            stop: vec!["\n\n".into()],
        };
        let b = e.body("hi", &d);
        assert_eq!(b["messages"][0]["content"], "hi");
        assert_eq!(b["top_p"], 0.9);
        assert_eq!(b["stop"][0], "\n\n");
        assert_eq!(retry_after(Some("2"), 1.0), Some(Duration::from_secs(2)));
        assert_eq!(
            retry_after(Some("1500"), 0.001),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT"), 1.0),
            None
        );
        assert_eq!(
            retry_after(Some("1e300"), 1.0),
            Some(Duration::from_secs(1_000_000_000_000))
        );
        assert_eq!(retry_after(Some("NaN"), 1.0), None);
    }

    #[test]
    fn a_long_retry_after_is_capped_by_the_maximum_and_the_timeout() {
        let asked = Duration::from_secs(100_000);
        assert_eq!(honoured(asked, Duration::from_secs(120)), MAX_RETRY_AFTER);
        assert_eq!(
            honoured(asked, Duration::from_secs(5)),
            Duration::from_secs(5)
        );
        assert_eq!(
            honoured(Duration::from_secs(2), Duration::from_secs(5)),
            Duration::from_secs(2)
        );
    }

    #[test]
    fn the_api_key_is_redacted_from_server_text() {
        let key = Some("sk-secret-123");
        assert_eq!(
            redact(
                "HTTP 401: bad key sk-secret-123 (sk-secret-123)".into(),
                key
            ),
            "HTTP 401: bad key [redacted] ([redacted])"
        );
        assert_eq!(redact("no key here".into(), key), "no key here");
        assert_eq!(redact("anything".into(), Some("")), "anything");
        assert_eq!(redact("anything".into(), None), "anything");
    }
}
