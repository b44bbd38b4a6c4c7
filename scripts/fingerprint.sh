#!/usr/bin/env bash
# Hash every table, report and hub file two pipelines write, to show that a change of code left
# the outputs byte-identical: run it before and after, then `diff` the two listings.
#
#   scripts/fingerprint.sh [BINARY] [WORKDIR] > hashes.txt
#   scripts/fingerprint.sh --hash-only WORKDIR > hashes.txt   (hash a finished WORKDIR again)
#
# 1. `advmath run` on the embedded default dataset;
# 2. the Xie et al. release (../shared/data/xie2024) through ingest, generate, respond with the
#    offline sim-* models, features (both sets), regress, metrics and publish.
# Response part files carry a timestamp and pid in their names, so each listing line names a file
# by its folder and the hash of its content, sorted. Two things a run writes are not its result
# and are masked before hashing: the work folder's own path (reports, Markdown and HTML, name
# their tables folder) and the seconds column of `metrics`' stdout.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
hash_only=0
if [ "${1:-}" = "--hash-only" ]; then
  hash_only=1
  work="$(realpath "$2")"
else
  bin="$(realpath "${1:-$root/target/debug/advmath}")"
  work="${2:-$(mktemp -d)}"
  mkdir -p "$work"
  work="$(realpath "$work")"
fi
data="$root/../shared/data/xie2024"
cd "$work"

if [ "$hash_only" = 0 ]; then
rm -rf default xie
mkdir -p default xie
log="$work/stderr.log"
"$bin" run --out default/out >default/stdout.txt 2>>"$log"

t=xie/tables
"$bin" ingest --format xie --tables "$t" "$data/gsm8k" "$data/multiarith" >xie/ingest.tsv 2>>"$log"
"$bin" generate --tables "$t" --seed 7 >xie/generate.tsv 2>>"$log"
for m in sim-careful sim-carry sim-divweak sim-distracted; do
  # Problems without a program have noise variants only, which an offline model cannot answer
  # (exit 1, "failed for good"); the other answers are written.
  "$bin" respond --tables "$t" --model "$m" >>xie/respond.tsv 2>>"$log" || [ $? -eq 1 ]
done
"$bin" features --tables "$t" >xie/features.tsv 2>>"$log"
"$bin" features --tables "$t" --set xie2024 >>xie/features.tsv 2>>"$log"
"$bin" regress --tables "$t" --report-dir xie/regress >xie/regress.tsv 2>>"$log"
"$bin" regress --tables "$t" --set advmath --report-dir xie/regress-advmath >xie/regress-advmath.tsv 2>>"$log"
"$bin" metrics --tables "$t" --out xie/metrics >xie/metrics.tsv 2>>"$log"
"$bin" publish --tables "$t" --out xie/hub >xie/publish.tsv 2>>"$log"

fi

find default xie -type f -print0 | sort -z | while IFS= read -r -d '' f; do
  name="$f"
  case "$f" in */part-*-*.parquet) name="$(dirname "$f")/part-*.parquet" ;; esac
  case "$f" in
    */metrics.tsv) sum="$(cut -f1,2,4- "$f" | sed "s#$work#<work>#g" | sha256sum)" ;;
    *.md | *.tsv | *.csv | *.json | *.txt | *.html) sum="$(sed "s#$work#<work>#g" "$f" | sha256sum)" ;;
    *) sum="$(sha256sum <"$f")" ;;
  esac
  printf '%s  %s\n' "${sum%% *}" "$name"
done | sort -k2,2 -k1,1
