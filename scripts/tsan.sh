#!/usr/bin/env bash
# Builds the thread pool suite with ThreadSanitizer into build-tsan/ and runs
# it; any TSan report fails the run (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DETR_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" "$@" > /dev/null
cmake --build build-tsan --target etr_threadpool_tests
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan_suppressions.txt" ./build-tsan/test/etr_threadpool_tests
