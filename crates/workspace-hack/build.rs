// Cargo compiles a crate's build dependencies only when it has a build script; this empty one lets
// `[build-dependencies]` unify the features of crates compiled for the host.
fn main() {}
