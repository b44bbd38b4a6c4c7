//! The endpoint checked before the first question: every URL written with its scheme, every
//! server reachable, and the model among those the server lists (`/v1/models`, where it has
//! the route). A wrong `--endpoint` then costs seconds, not a run of retries.
//!
//! A server that answers anything at all passes: from then on the client's retries handle its
//! moods. A server that lists models without the one asked gets a warning, not a refusal: some
//! servers (llama-cpp-python) list a file name and answer whatever model a request names.

use std::time::Duration;

use serde_json::Value;

use super::client::Endpoint;
use crate::error::{Error, Result};

/// How long the check waits for a server.
const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// Refuse a URL written without `http://` or `https://` (exit 2, with the fix), and a server
/// nobody answers at (exit 1, naming the URL and what to check); warn when the server lists
/// models and the endpoint's is not among them.
pub fn check_endpoint(endpoint: &Endpoint) -> Result<()> {
    for url in &endpoint.urls {
        check_form(url)?;
    }
    let agent = super::client::agent(CHECK_TIMEOUT, 1);
    for url in &endpoint.urls {
        let base = url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        let mut req = agent.get(format!("{base}/v1/models"));
        if let Some(key) = &endpoint.api_key {
            req = req.header("Authorization", &format!("Bearer {key}"));
        }
        let mut resp = req.call().map_err(|e| Error::Unreachable {
            url: url.clone(),
            reason: super::client::redact(e.to_string(), endpoint.api_key.as_deref()),
        })?;
        if !resp.status().is_success() {
            continue;
        }
        let Ok(body) = resp.body_mut().read_to_string() else {
            continue;
        };
        let listed = served_models(&body);
        if !listed.is_empty() && !listed.contains(&endpoint.model) {
            crate::progress::note!(
                "warning: {url} lists the models {}, not {:?}; the requests name {:?} anyway (check --model)",
                listed.join(", "),
                endpoint.model,
                endpoint.model
            );
        }
    }
    Ok(())
}

/// A URL must say its scheme: `127.0.0.1:8080` is read by HTTP clients as a scheme `127.0.0.1`.
fn check_form(url: &str) -> Result<()> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.starts_with('/') => Ok(()),
        _ => Err(Error::setting(
            "endpoint",
            format!(
                "{url:?} is not an http(s) URL: write it with its scheme, e.g. --endpoint http://{}",
                url.split("://").last().unwrap_or(url).trim_start_matches('/')
            ),
        )),
    }
}

/// The model ids of an OpenAI `/v1/models` reply (`{"data": [{"id": ...}]}`); none when the
/// body is something else.
fn served_models(body: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return Vec::new();
    };
    v.get("data")
        .and_then(Value::as_array)
        .map(|models| {
            models
                .iter()
                .filter_map(|m| m.get("id").and_then(Value::as_str).map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_need_their_scheme() {
        assert!(check_form("http://127.0.0.1:8080").is_ok());
        assert!(check_form("https://api.openai.com/v1").is_ok());
        let err = check_form("127.0.0.1:8080").unwrap_err().to_string();
        assert!(err.contains("--endpoint http://127.0.0.1:8080"), "{err}");
        assert!(check_form("http://").is_err());
        assert!(check_form("ftp://h").is_err());
    }

    #[test]
    fn listed_models_are_read_from_the_reply() {
        assert_eq!(
            served_models(r#"{"object":"list","data":[{"id":"a"},{"id":"b"}]}"#),
            ["a", "b"]
        );
        assert!(served_models("not json").is_empty());
    }

    #[test]
    fn a_refused_connection_is_named_at_once() {
        // Port 9 (discard) has no listener here.
        let e = Endpoint::new("http://127.0.0.1:9", "m");
        let started = std::time::Instant::now();
        let err = check_endpoint(&e).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(6));
        assert!(matches!(err, Error::Unreachable { .. }), "{err}");
        assert!(err.to_string().starts_with("http://127.0.0.1:9: "), "{err}");
    }
}
