#!/usr/bin/env bash
# Interleaved CPU-time A/B of two executor_runner binaries on the issue-22
# mobile models (bench/models): per model, file (portable, XNNPACK-lowered)
# and thread count, the runners alternate ROUNDS times (default 3); each keeps
# its best "cpu time per execution" median over RUNS executions (default 30).
#   bash bench/ab_cpu_mobile.sh /tmp/runner_before build/examples/executor_runner/executor_runner
# MODELS, FILES (words: portable, xnnpack) and THREADS override the sets.
set -euo pipefail
base=$(realpath "$1"); new=$(realpath "$2")
rounds=${ROUNDS:-3}; runs=${RUNS:-30}
models=${MODELS:-"mobilenet_v2 mobilenet_v3_small mobilenet_v3_large efficientnet_b0"}
files=${FILES:-"portable xnnpack"}
threads=${THREADS:-"1 2"}
cd "$(dirname "$0")/models"
cpu() {  # runner model threads
  "$1" --model_path="$2.pte" --input="${2%_xnnpack}_in.npy" --num_executions="$runs" \
    --threads="$3" | sed -n 's/^cpu time per execution: median \([0-9.]*\) ms.*/\1/p'
}
echo "load: $(uptime | sed 's/.*load average: //')"
for m in $models; do
  for f in $files; do
    v=""; [ "$f" = "xnnpack" ] && v=_xnnpack
    for t in $threads; do
      b=1e9; n=1e9
      for _ in $(seq "$rounds"); do
        x=$(cpu "$base" "$m$v" "$t"); y=$(cpu "$new" "$m$v" "$t")
        b=$(awk "BEGIN{print ($x < $b) ? $x : $b}"); n=$(awk "BEGIN{print ($y < $n) ? $y : $n}")
      done
      echo "$m$v threads=$t cpu ms: old $b new $n ratio $(awk "BEGIN{printf \"%.3f\", $n/$b}")"
    done
  done
done
echo "load: $(uptime | sed 's/.*load average: //')"
