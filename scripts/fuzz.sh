#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan+UBSan) and runs each one.
#   bash scripts/fuzz.sh [seconds-per-fuzzer]    (default 60)
# Longer campaigns: FUZZ_SECONDS=3600 bash scripts/fuzz.sh, or by hand:
#   build-fuzz/program_fuzzer -jobs=2 build-fuzz/corpus/program
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-${FUZZ_SECONDS:-60}}
bash scripts/install_deps.sh
CXX=clang++ CC=clang BUILD_DIR=build-fuzz BUILD_TYPE=RelWithDebInfo bash scripts/build.sh \
  -DETR_BUILD_FUZZERS=ON -DETR_BUILD_TESTS=OFF -DETR_BUILD_EXAMPLES=OFF
mkdir -p build-fuzz/corpus/program build-fuzz/corpus/npy
cp test/models/*.pte build-fuzz/corpus/program/
find test/models -name '*.npy' -exec cp {} build-fuzz/corpus/npy/ \;
status=0
for f in program npy; do
  echo "== ${f}_fuzzer for ${SECONDS_PER}s"
  log=build-fuzz/${f}_fuzzer.log
  if ./build-fuzz/${f}_fuzzer -max_total_time="$SECONDS_PER" -max_len=65536 -timeout=20 \
       -rss_limit_mb=4096 -print_final_stats=1 build-fuzz/corpus/$f > "$log" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::new_units_added|Done" "$log" || true
  else
    echo "${f}_fuzzer FAILED:"; tail -60 "$log"; status=1
  fi
done
exit $status
