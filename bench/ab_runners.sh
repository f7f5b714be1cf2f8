#!/usr/bin/env bash
# Interleaved A/B of two executor_runner binaries on the bench models (bench/models, from
# bench/export_bench_models.py): for each model (not delegated and XNNPACK) and 1 and 2
# threads, the runners take turns ROUNDS times (default 3) and each keeps its best median
# per-inference time of RUNS executions (default 30). Prints one line per case with the ratio
# new / baseline. Use it to show a change leaves speed unchanged:
#   cp build/examples/executor_runner/executor_runner /tmp/runner_before   # before the change
#   bash bench/ab_runners.sh /tmp/runner_before build/examples/executor_runner/executor_runner
# MODELS="transformer_dq vit_small" picks other models (each still in both files).
set -euo pipefail
base=$(realpath "$1"); new=$(realpath "$2")
rounds=${ROUNDS:-3}; runs=${RUNS:-30}
cd "$(dirname "$0")/models"
median() {  # runner model threads
  "$1" --model_path="$2.pte" --input="${2%_xnnpack}_in.npy" --num_executions="$runs" \
    --threads="$3" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
for m in ${MODELS:-mobilenet_v2 resnet18 efficientnet_b0 transformer}; do
  for v in "" _xnnpack; do
    for t in 1 2; do
      b=""; n=""
      for _ in $(seq "$rounds"); do
        x=$(median "$base" "$m$v" "$t"); y=$(median "$new" "$m$v" "$t")
        b=$(echo "$b $x" | tr ' ' '\n' | sed '/^$/d' | sort -g | head -1)
        n=$(echo "$n $y" | tr ' ' '\n' | sed '/^$/d' | sort -g | head -1)
      done
      echo "$m$v threads=$t baseline $b ms new $n ms ratio $(awk "BEGIN{printf \"%.3f\", $n/$b}")"
    done
  done
done
