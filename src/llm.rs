//! Talking to a language model, for every stage that does: an OpenAI-compatible client (chat or
//! completions, retries, `Retry-After`), a pool of servers of one model, and the prompts the
//! papers use. `respond` asks models about variants with it; `ingest`'s `programs` asks one for
//! solution programs.

pub mod client;
pub mod preflight;
pub mod prompt;
pub mod servers;
