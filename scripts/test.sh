#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
# Turns tests back on whatever an earlier command configured (run_example.sh turns them
# off), and fails when no test ran.
bash scripts/build.sh -DETR_BUILD_TESTS=ON
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --no-tests=error -j"$(nproc)"
