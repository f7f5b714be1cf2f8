#!/bin/bash
# CPU time per inference of our executor_runner on every model of the issue-22
# benchmark set (bench/export_bench_models.py), portable-only and XNNPACK
# files, 1 thread: the runner's "cpu time per execution" median over 30
# executions, ROUNDS rounds (keep the lowest). Then the official runtime on
# the XNNPACK files through bench/cpu_time.py.
#   RUNNER=build/examples/executor_runner/executor_runner ROUNDS=2 bash bench/cpu_sweep.sh
set -u
cd "$(dirname "$0")/.."
RUNNER=${RUNNER:-build/examples/executor_runner/executor_runner}
ROUNDS=${ROUNDS:-2}
MODELS="mobilenet_v2 mobilenet_v3_small mobilenet_v3_large efficientnet_b0 regnet_y_400mf resnet18
resnet50 densenet121 vit_small transformer decoder_lm wav2letter mobilenet_v2_int8 mobilenet_v2_dq
transformer_int8 transformer_dq"
for r in $(seq "$ROUNDS"); do
  for m in $MODELS; do
    for f in "$m" "${m}_xnnpack"; do
      v=$("$RUNNER" --model_path="bench/models/$f.pte" --input="bench/models/${m}_in.npy" \
            --num_executions=30 --threads=1 2>&1 |
          sed -n 's/cpu time per execution: median \([0-9.]*\) ms.*/\1/p')
      echo "r$r $f $v"
    done
  done
done
ARGS=()
for m in $MODELS; do ARGS+=("bench/models/${m}_xnnpack.pte:bench/models/${m}_in.npy"); done
/opt/tv/bin/python bench/cpu_time.py --runner "$RUNNER" --rounds "$ROUNDS" "${ARGS[@]}"
