//! The servers of one endpoint: requests spread over the healthy ones, and a server that fails
//! is taken out for a while and tried again later.
//!
//! Each server takes at most `per_server` requests at once; a request goes to the server in
//! service with the fewest in flight. A transient failure (429, 5xx, timeout, refused or dropped
//! connection, a body that is not the promised JSON) takes the server out of service for a
//! backoff that doubles with its failures in a row (equal jitter, at least what a `Retry-After`
//! asked, up to [`super::client::MAX_RETRY_AFTER`] and the request timeout), and the request
//! is tried again, on whichever server is in service then, up to the endpoint's attempts per
//! request. A failure the request itself causes (another 4xx) is final at once. When every
//! server has been out of service and none has answered for [`Servers::stall_limit`], the
//! requests still waiting fail (a rerun asks them again) instead of waiting forever.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::client::{self, AttemptError, Completion, Decoding, Endpoint};

/// What one server did during a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerCounts {
    pub url: String,
    /// Requests sent to it.
    pub requests: u64,
    /// Of those, answered.
    pub answered: u64,
    /// Times it was taken out of service.
    pub taken_out: u64,
}

#[derive(Default)]
struct ServerState {
    counts: ServerCounts,
    in_flight: usize,
    out_until: Option<Instant>,
    failures_in_row: u32,
}

struct State {
    servers: Vec<ServerState>,
    /// The last answer from any server (the start, before the first).
    last_answer: Instant,
    rng: Pcg64Mcg,
}

/// How one request on a server ended.
enum Outcome<'a> {
    Answered,
    /// The server refused the request itself (a 4xx other than 408 and 429): it is up.
    Refused,
    /// A transient failure; `asked` is the server's `Retry-After`.
    Failed {
        reason: &'a str,
        asked: Option<Duration>,
    },
}

pub struct Servers {
    endpoint: Endpoint,
    agent: ureq::Agent,
    per_server: usize,
    state: Mutex<State>,
    changed: Condvar,
}

impl Servers {
    /// The endpoint's servers, each taking at most `per_server` requests at once.
    pub fn new(endpoint: &Endpoint, per_server: usize) -> Servers {
        let per_server = per_server.max(1);
        Servers {
            agent: client::agent(endpoint.timeout, per_server * endpoint.urls.len().max(1)),
            per_server,
            state: Mutex::new(State {
                servers: endpoint
                    .urls
                    .iter()
                    .map(|url| ServerState {
                        counts: ServerCounts {
                            url: url.clone(),
                            ..Default::default()
                        },
                        ..Default::default()
                    })
                    .collect(),
                last_answer: Instant::now(),
                rng: Pcg64Mcg::seed_from_u64(0x005e_7e75),
            }),
            endpoint: endpoint.clone(),
            changed: Condvar::new(),
        }
    }

    /// Requests in flight when every server is busy: the number of worker threads to run.
    pub fn capacity(&self) -> usize {
        self.per_server * self.endpoint.urls.len().max(1)
    }

    /// How long every server may be out of service with no answer before waiting requests fail.
    pub fn stall_limit(&self) -> Duration {
        (self.endpoint.backoff_cap * 2 + self.endpoint.timeout).max(Duration::from_secs(10))
    }

    pub fn counts(&self) -> Vec<ServerCounts> {
        let state = self.state.lock().expect("servers lock");
        state.servers.iter().map(|s| s.counts.clone()).collect()
    }

    /// A server in service with a free slot (the least busy), waiting for one as long as needed.
    fn acquire(&self) -> Result<usize, String> {
        let mut state = self.state.lock().expect("servers lock");
        loop {
            let now = Instant::now();
            let in_service = |s: &ServerState| s.out_until.is_none_or(|t| t <= now);
            let free = state
                .servers
                .iter()
                .enumerate()
                .filter(|(_, s)| in_service(s) && s.in_flight < self.per_server)
                .min_by_key(|(i, s)| (s.in_flight, *i))
                .map(|(i, _)| i);
            if let Some(i) = free {
                let server = &mut state.servers[i];
                server.in_flight += 1;
                server.counts.requests += 1;
                return Ok(i);
            }
            let all_out = !state.servers.iter().any(in_service);
            if all_out && state.last_answer.elapsed() > self.stall_limit() {
                return Err(format!(
                    "no server of the endpoint answered for {:.0} s ({} server(s), all out of service)",
                    state.last_answer.elapsed().as_secs_f64(),
                    state.servers.len()
                ));
            }
            // Woken when a request ends; a server coming back into service is noticed by time.
            let back = state
                .servers
                .iter()
                .filter_map(|s| s.out_until)
                .filter(|&t| t > now)
                .min()
                .map_or(Duration::from_millis(200), |t| t - now);
            state = self
                .changed
                .wait_timeout(state, back.min(Duration::from_millis(200)))
                .expect("servers lock")
                .0;
        }
    }

    /// Record how a request on server `i` ended; a transient failure takes the server out.
    fn release(&self, i: usize, outcome: Outcome) {
        let mut state = self.state.lock().expect("servers lock");
        let now = Instant::now();
        let State {
            servers,
            last_answer,
            rng,
        } = &mut *state;
        let server = &mut servers[i];
        server.in_flight -= 1;
        match outcome {
            Outcome::Answered | Outcome::Refused => {
                server.counts.answered += u64::from(matches!(outcome, Outcome::Answered));
                server.failures_in_row = 0;
                *last_answer = now;
            }
            Outcome::Failed { reason, asked } => {
                let already_out = server.out_until.is_some_and(|t| t > now);
                // Requests that were in flight when the server was taken out do not lengthen its
                // backoff: one outage is one failure.
                if !already_out {
                    server.failures_in_row += 1;
                    server.counts.taken_out += 1;
                }
                let step = self.endpoint.backoff_base.as_secs_f64()
                    * 2f64.powi(server.failures_in_row.saturating_sub(1).min(30) as i32);
                // Equal jitter: a server out of service stays out for at least half the step.
                let step = step.min(self.endpoint.backoff_cap.as_secs_f64());
                let jittered = step / 2.0 + rng.random_range(0.0..=step / 2.0);
                let honoured = asked.map(|a| client::honoured(a, self.endpoint.timeout));
                let wait = honoured.map_or(jittered, |h| h.as_secs_f64().max(jittered));
                let until = now + Duration::from_secs_f64(wait);
                server.out_until = Some(server.out_until.map_or(until, |t| t.max(until)));
                if let Some(asked) = asked.filter(|_| wait >= 1.0) {
                    crate::progress::note!(
                        "note: {}: the server asked to wait {:.1} s (Retry-After); waiting {:.1} s",
                        self.endpoint.model,
                        asked.as_secs_f64(),
                        wait
                    );
                } else if !already_out && self.endpoint.urls.len() > 1 {
                    crate::progress::note!(
                        "note: {} taken out of service for {wait:.1} s: {reason}",
                        server.counts.url
                    );
                }
            }
        }
        drop(state);
        self.changed.notify_all();
    }

    /// Send one prompt, retried on the servers in service until answered, failed for good, or
    /// out of attempts.
    pub fn complete(&self, prompt: &str, decoding: &Decoding) -> Result<Completion, String> {
        let body = self.endpoint.body(prompt, decoding);
        let attempts = self.endpoint.max_attempts.max(1);
        let mut last = String::new();
        for n in 1..=attempts {
            let i = self.acquire()?;
            let url = &self.endpoint.urls[i];
            match client::attempt(&self.agent, &self.endpoint, url, &body) {
                Ok(completion) => {
                    self.release(i, Outcome::Answered);
                    return Ok(Completion {
                        attempts: n,
                        ..completion
                    });
                }
                Err(AttemptError::Fatal(reason)) => {
                    // The request is at fault, not the server: it stays in service.
                    self.release(i, Outcome::Refused);
                    return Err(reason);
                }
                Err(AttemptError::Retry { reason, after }) => {
                    self.release(
                        i,
                        Outcome::Failed {
                            reason: &reason,
                            asked: after,
                        },
                    );
                    last = reason;
                }
            }
        }
        Err(format!("gave up after {attempts} attempts: {last}"))
    }
}
