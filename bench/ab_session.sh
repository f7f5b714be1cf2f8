#!/bin/bash
# A/B: the runner at stop 26 (1775468) vs this session's final runner,
# inference at 1 thread, interleaved, 3 rounds.
OLD=/work/wt/old1775/build/examples/executor_runner/executor_runner
NEW=/work/main/build/examples/executor_runner/executor_runner
cd /work/main
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
