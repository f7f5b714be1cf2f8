#!/usr/bin/env bash
# The sanitizer job: builds everything (tests and fuzz harnesses) with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer into build-fuzz/, and runs
# the whole test suite there. scripts/fuzz.sh reuses the same build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
CXX=clang++ CC=clang BUILD_DIR=build-fuzz BUILD_TYPE=Debug bash scripts/build.sh \
  -DCMAKE_CXX_FLAGS_DEBUG=-O1 -DETR_SANITIZE=ON -DETR_BUILD_FUZZERS=ON
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Leaks inside the lavapipe Vulkan driver (not ours) are suppressed.
export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan_suppressions.txt
ctest --test-dir build-fuzz --output-on-failure -j"$(nproc)"
