#!/usr/bin/env bash
# The guided-attack study of reports/guided_attack.md: the Xie et al. release, M3 with 20
# variants per problem, each offline model learnt from on its own tables folder (a folder holds
# one guided attack), then guided (K = 20) against random M3 on the held-out problems.
# Usage: scripts/guided_study.sh OUT [MODEL...]   (default models: sim-carry sim-divweak)
set -euo pipefail
out=${1:?usage: guided_study.sh OUT [MODEL...]}
shift
models=("${@:-sim-carry}")
[ $# -eq 0 ] && models=(sim-carry sim-divweak)
advmath=${ADVMATH:-advmath}
data=${ADVMATH_DATA:-../shared/data}
base=$out/base
"$advmath" ingest --programs given --tables "$base" "$data/xie2024/gsm8k" "$data/xie2024/multiarith"
"$advmath" generate --attack m3 --variants 20 --tables "$base"
for m in "${models[@]}"; do
    "$advmath" respond --model "$m" --tables "$base"
done
"$advmath" features --set xie2024 --tables "$base"
for m in "${models[@]}"; do
    t=$out/$m
    rm -rf "$t" && cp -r "$base" "$t"
    "$advmath" generate --attack guided --guided-by "$m" --budget 20 --tables "$t"
    "$advmath" respond --model "$m" --tables "$t"
    "$advmath" metrics --tables "$t" --out "$out/$m-metrics"
done
