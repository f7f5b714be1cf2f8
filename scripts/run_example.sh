#!/usr/bin/env bash
# Installs dependencies, builds, and runs executor_runner on a bundled model
# (a small CNN exported by the official ExecuTorch exporter) with the input
# PyTorch used, writing outputs to build/example_out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
bash scripts/build.sh -DETR_BUILD_TESTS=OFF
mkdir -p build/example_out
./build/examples/executor_runner/executor_runner --model_path=test/models/cnn.pte \
  --input=test/models/cnn/a_in0.npy --output_dir=build/example_out --num_executions=10
