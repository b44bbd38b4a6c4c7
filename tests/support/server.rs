//! A tiny OpenAI-compatible HTTP server on loopback, for tests and benchmarks: it answers chat
//! completions and can inject the faults real servers produce (429 with Retry-After, 500,
//! timeouts, malformed JSON, a connection reset mid-body). Bounded: it serves until dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Copy, Debug)]
pub enum Reply {
    Ok,
    TooMany {
        retry_after: u32,
    },
    ServerError,
    Hang(Duration),
    Malformed,
    ResetMidBody,
    /// 200 with this assistant text.
    Text(&'static str),
    /// 200 whose message has `"content": null`, as a server does when the model produced no
    /// text (or only a refusal or a tool call).
    NullContent,
    /// 401 whose body echoes the request's Authorization header, as some servers do.
    EchoAuthorization,
    /// 500 whose long body echoes the Authorization header after this many characters.
    EchoAuthorizationAfter(usize),
}

pub struct Server {
    pub port: u16,
    pub requests: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// `plan(n)` decides the reply to the n-th request (0-based); `delay` is added to every OK.
pub fn spawn(plan: impl Fn(usize) -> Reply + Send + Sync + 'static, delay: Duration) -> Server {
    spawn_with(move |n, _| plan(n), delay)
}

/// As [`spawn`], with the request body too: `plan(n, body)` can answer by the prompt.
#[allow(dead_code)]
pub fn spawn_with(
    plan: impl Fn(usize, &str) -> Reply + Send + Sync + 'static,
    delay: Duration,
) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let plan = Arc::new(plan);
    let (req, st) = (requests.clone(), stop.clone());
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            if st.load(Ordering::SeqCst) {
                break;
            }
            let Ok(conn) = conn else { continue };
            let (plan, req) = (plan.clone(), req.clone());
            std::thread::spawn(move || serve(conn, &*plan, &req, delay));
        }
    });
    Server {
        port,
        requests,
        stop,
    }
}

fn serve(
    conn: TcpStream,
    plan: &(dyn Fn(usize, &str) -> Reply + Send + Sync),
    count: &AtomicUsize,
    delay: Duration,
) {
    let _ = conn.set_nodelay(true);
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut out = conn;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0;
        let mut authorization = String::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            if h == "\r\n" {
                break;
            }
            if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            if let Some((_, v)) = h
                .split_at_checked("authorization:".len())
                .filter(|(name, _)| name.eq_ignore_ascii_case("authorization:"))
            {
                authorization = v.trim().to_string();
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        // A server without the model list: the client's check before a run gets a 404 and
        // goes on; it is not a completion request, so it is not counted or planned.
        if line.starts_with("GET ") {
            let missing = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
            if out.write_all(missing.as_bytes()).is_err() {
                return;
            }
            continue;
        }
        let n = count.fetch_add(1, Ordering::SeqCst);
        let ok = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Step 1: add. So the answer is 42."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":9}}"#;
        let send = |out: &mut TcpStream, status: &str, extra: &str, body: &str| {
            let head = format!("HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n", body.len());
            out.write_all(head.as_bytes())
                .and_then(|_| out.write_all(body.as_bytes()))
        };
        let result = match plan(n, &String::from_utf8_lossy(&body)) {
            Reply::Ok => {
                if !delay.is_zero() {
                    std::thread::sleep(delay);
                }
                send(&mut out, "200 OK", "", ok)
            }
            Reply::TooMany { retry_after } => send(
                &mut out,
                "429 Too Many Requests",
                &format!("Retry-After: {retry_after}\r\n"),
                r#"{"error":"slow down"}"#,
            ),
            Reply::ServerError => send(
                &mut out,
                "500 Internal Server Error",
                "",
                r#"{"error":"boom"}"#,
            ),
            Reply::Hang(d) => {
                std::thread::sleep(d);
                return;
            }
            Reply::Malformed => send(&mut out, "200 OK", "", r#"{"choices": [ {"message": "#),
            Reply::EchoAuthorization => send(
                &mut out,
                "401 Unauthorized",
                "",
                &format!(r#"{{"error":"invalid credentials: {authorization}"}}"#),
            ),
            Reply::EchoAuthorizationAfter(n) => send(
                &mut out,
                "500 Internal Server Error",
                "",
                &format!(
                    r#"{{"error":"{}{authorization}{}"}}"#,
                    "x".repeat(n),
                    "y".repeat(300)
                ),
            ),
            Reply::Text(t) => {
                let body = format!(
                    r#"{{"choices":[{{"index":0,"message":{{"role":"assistant","content":{}}},"finish_reason":"stop"}}]}}"#,
                    json_string(t)
                );
                send(&mut out, "200 OK", "", &body)
            }
            Reply::NullContent => send(
                &mut out,
                "200 OK",
                "",
                r#"{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}"#,
            ),
            Reply::ResetMidBody => {
                let head = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", ok.len());
                let _ = out.write_all(head.as_bytes());
                let _ = out.write_all(&ok.as_bytes()[..ok.len() / 2]);
                let _ = out.flush();
                return;
            }
        };
        if result.is_err() {
            return;
        }
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
