#!/bin/bash
# A/B of two executor_runner builds on the issue-22 benchmark set: CPU time
# per inference at 1 thread ("cpu time per execution" median of 20), the two
# alternating per file, 3 rounds (keep each one's lowest). Portable-only files
# for the fp32 models, XNNPACK files for the int8 ones.
#   OLD=path/to/old/executor_runner NEW=path/to/new/executor_runner bash bench/ab_session.sh
# (build the old one from an earlier commit in a git worktree).
OLD=${OLD:?the old executor_runner}
NEW=${NEW:-build/examples/executor_runner/executor_runner}
cd "$(dirname "$0")/.."
for r in 1 2 3; do
  for f in mobilenet_v2 mobilenet_v3_small mobilenet_v3_large efficientnet_b0 regnet_y_400mf resnet18 resnet50 densenet121 vit_small transformer decoder_lm wav2letter mobilenet_v2_int8_xnnpack mobilenet_v2_dq_xnnpack transformer_int8_xnnpack transformer_dq_xnnpack; do
    m=${f%_xnnpack}
    for b in old new; do
      bin=$OLD; [ $b = new ] && bin=$NEW
      v=$($bin --model_path=bench/models/$f.pte --input=bench/models/${m}_in.npy --num_executions=20 --threads=1 2>&1 | sed -n 's/cpu time per execution: median \([0-9.]*\) ms.*/\1/p')
      echo "r$r $f $b $v"
    done
  done
done
