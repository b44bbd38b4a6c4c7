#!/usr/bin/env python3
"""Does the README's second command reuse what its first compiled?

Asks cargo for the units (crate, features, profile) of `cargo build` (what `cargo run -- run`
compiles) and of `cargo test --features cluster --no-run`, without compiling anything, and lists
every dependency the two would compile with different features: each is one more compilation of
it and of everything above it. Fix one by naming the test build's features for it in
crates/workspace-hack/Cargo.toml. Exit 0 when the first build is wholly reused, 1 otherwise.

The unit graph is a cargo flag not yet stable; the script asks for it the way cargo's own test
suite does (a stable cargo is told to accept it for this one call).
"""
import json
import os
import subprocess
import sys


def units(*args):
    env = dict(os.environ, __CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS="nightly")
    out = subprocess.run(
        ["cargo", *args, "--unit-graph", "-Z", "unstable-options"],
        env=env, check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)["units"]


def key(unit):
    # The profile's name (dev or test) is not part of what cargo compiles; its settings are.
    profile = {k: v for k, v in unit["profile"].items() if k != "name"}
    return (unit["pkg_id"], unit["target"]["name"], unit["mode"],
            tuple(sorted(unit["features"])), json.dumps(profile, sort_keys=True))


def crate(unit):
    source, _, tail = unit["pkg_id"].rpartition("#")
    if "@" in tail:
        return tail
    # A path package in a folder of its own name is spelled `path+file:///.../name#version`.
    return source.rstrip("/").rsplit("/", 1)[-1] + "@" + tail


def main():
    first = units("build", "--locked")
    second = units("test", "--locked", "--features", "cluster", "--no-run")
    second_keys = {key(u) for u in second}
    first_keys = {key(u) for u in first}
    ours = ("advmath@", "advmath-core", "workspace-hack")
    recompiled = [u for u in first if key(u) not in second_keys
                  and not any(o in u["pkg_id"] for o in ours)]
    added = {crate(u) for u in second if key(u) not in first_keys}
    print(f"first build: {len(first)} units of {len({crate(u) for u in first})} crates; "
          f"the second adds {len(second) - (len(first) - len(recompiled))} units of {len(added)} crates")
    for u in sorted(recompiled, key=crate):
        wider = [sorted(set(v["features"]) - set(u["features"]))
                 for v in second if v["pkg_id"] == u["pkg_id"] and v["target"]["name"] == u["target"]["name"]
                 and v["mode"] == u["mode"]]
        print(f"compiled twice: {crate(u)} ({u['target']['name']}, {u['mode']}): the test build adds {wider}")
    return 1 if recompiled else 0


if __name__ == "__main__":
    sys.exit(main())
