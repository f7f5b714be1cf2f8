#!/usr/bin/env bash
# Runs every libFuzzer harness (built by scripts/sanitize.sh with clang and
# ASan+UBSan) for a bounded time, seeded from the test fixtures.
#   bash scripts/fuzz.sh [seconds-per-fuzzer]    (default 60)
# Longer campaigns: bash scripts/fuzz.sh 3600, or by hand, e.g.
#   build-fuzz/program_fuzzer -fork=2 -ignore_crashes=1 build-fuzz/corpus/program
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-${FUZZ_SECONDS:-60}}
if [ ! -x build-fuzz/program_fuzzer ] || [ ! -x build-fuzz/npy_fuzzer ] ||
   [ ! -x build-fuzz/flat_tensor_fuzzer ] || [ ! -x build-fuzz/xnnpack_payload_fuzzer ] ||
   [ ! -x build-fuzz/weight_cache_fuzzer ] ||
   [ ! -x build-fuzz/bundled_program_fuzzer ] || [ ! -x build-fuzz/mmap_loader_fuzzer ] ||
   [ ! -x build-fuzz/hf_tokenizer_fuzzer ] || [ ! -x build-fuzz/tiktoken_tokenizer_fuzzer ] ||
   [ ! -x build-fuzz/sp_tokenizer_fuzzer ] || [ ! -x build-fuzz/llama2c_tokenizer_fuzzer ] ||
   { pkg-config --exists vulkan 2>/dev/null && command -v glslc > /dev/null &&
     [ ! -x build-fuzz/vulkan_payload_fuzzer ]; }; then
  bash scripts/install_deps.sh
  CXX=clang++ CC=clang BUILD_DIR=build-fuzz BUILD_TYPE=Debug bash scripts/build.sh \
    -DCMAKE_CXX_FLAGS_DEBUG=-O1 -DETR_SANITIZE=ON -DETR_BUILD_FUZZERS=ON
fi
mkdir -p build-fuzz/corpus/program build-fuzz/corpus/npy build-fuzz/corpus/flat_tensor \
  build-fuzz/corpus/xnnpack_payload build-fuzz/corpus/bundled_program \
  build-fuzz/corpus/mmap_loader build-fuzz/corpus/hf_tokenizer build-fuzz/corpus/tiktoken_tokenizer \
  build-fuzz/corpus/sp_tokenizer build-fuzz/corpus/llama2c_tokenizer build-fuzz/corpus/vulkan_payload \
  build-fuzz/corpus/weight_cache build-fuzz/artifacts
# Packed-weight cache files: the runner writes one for an XNNPACK fixture.
build-fuzz/examples/executor_runner/executor_runner --model_path=test/models/xnnpack/mlp.pte \
  --weight_cache_dir=build-fuzz/corpus/weight_cache > /dev/null 2>&1 || true
# XNNPACK payloads: the harness starts at the first XH00 header, so whole
# XNNPACK-lowered programs (small ones) seed it.
find test/models -name '*.pte' -size -100k -exec cp {} build-fuzz/corpus/xnnpack_payload/ \;
cp test/models/*.pte build-fuzz/corpus/program/
# Vulkan payloads: the same idea with VH00 (the official exporter's Vulkan programs).
cp test/models/vulkan/*.pte build-fuzz/corpus/vulkan_payload/
# The mmap loader harness runs whole programs through a file mapping.
cp test/models/*.pte build-fuzz/corpus/mmap_loader/
# The LLM exporter's flavours (test/models/llm: llama:: custom operators, KV
# cache buffers, 4-bit embeddings, XNNPACK 8da4w, mutable-buffer data) and the
# llama:: kernels' own KV-attention program. They are 0.4 to 1 MB, so these
# two harnesses take inputs up to PROGRAM_MAX_LEN (below).
for f in test/models/llm/*.pte kernels/llm/test/*.pte; do
  cp "$f" build-fuzz/corpus/program/
  cp "$f" build-fuzz/corpus/mmap_loader/
done
# Inputs that once crashed a harness stay in its seed corpus: libFuzzer runs
# every seed first, so a regression fails the run at once.
for d in test/fuzz/regressions/*/; do
  [ -d "$d" ] && cp "$d"* "build-fuzz/corpus/$(basename "$d")/"
done
find test/models -name '*.npy' -exec cp {} build-fuzz/corpus/npy/ \;
# .ptd seeds: any fixture in test/models, plus the valid file the unit test writes.
find test/models -name '*.ptd' -exec cp {} build-fuzz/corpus/flat_tensor/ \;
# .bpte seeds: the official fixtures (export_bundled.py).
cp test/models/bundled/*.bpte build-fuzz/corpus/bundled_program/
# tokenizer.json seeds: the fixtures the `tokenizers` package trained (byte-level and
# SentencePiece-style); their reference files (UTF-8 text, with the NFC-sensitive
# strings) seed the text side.
for d in test/tokenizers/data/*/; do
  [ -f "${d}tokenizer.json" ] || continue
  cp "${d}tokenizer.json" "build-fuzz/corpus/hf_tokenizer/$(basename "$d").json"
  for r in "${d}"*reference.json; do
    cp "$r" "build-fuzz/corpus/hf_tokenizer/$(basename "$d")_$(basename "$r")"
  done
done
# tiktoken, SentencePiece and llama2.c seeds: the fixtures make_more_tokenizer_fixtures.py
# wrote, and their reference files as text.
cp test/tokenizers/data/tiktoken/tokenizer.model build-fuzz/corpus/tiktoken_tokenizer/ranks.model
cp test/tokenizers/data/tiktoken/reference.json build-fuzz/corpus/tiktoken_tokenizer/
for m in sp_bpe sp_unigram; do
  cp "test/tokenizers/data/$m/tokenizer.model" "build-fuzz/corpus/sp_tokenizer/$m.model"
  cp "test/tokenizers/data/$m/reference.json" "build-fuzz/corpus/sp_tokenizer/${m}_reference.json"
done
cp test/tokenizers/data/llama2c/tokenizer.bin build-fuzz/corpus/llama2c_tokenizer/
cp test/tokenizers/data/llama2c/reference.json build-fuzz/corpus/llama2c_tokenizer/
if [ -x build-fuzz/test/etr_flat_tensor_tests ]; then
  ETR_PTD_SEED_DIR=build-fuzz/corpus/flat_tensor build-fuzz/test/etr_flat_tensor_tests \
    --gtest_filter='FlatTensorTest.ReadsThroughFileDataLoaderAndWritesFuzzSeed' > /dev/null
fi
status=0
PROGRAM_MAX_LEN=1048576
fuzzers=(program mmap_loader npy flat_tensor xnnpack_payload weight_cache bundled_program
         hf_tokenizer tiktoken_tokenizer sp_tokenizer llama2c_tokenizer)
# Built when the Vulkan headers, loader and glslc are installed.
[ -x build-fuzz/vulkan_payload_fuzzer ] && fuzzers+=(vulkan_payload)
for f in "${fuzzers[@]}"; do
  echo "== ${f}_fuzzer for ${SECONDS_PER}s"
  log=build-fuzz/${f}_fuzzer.log
  max_len=65536
  case $f in program | mmap_loader) max_len=$PROGRAM_MAX_LEN ;; esac
  # Known leaks inside the lavapipe driver (not ours): scripts/lsan_suppressions.txt.
  if LSAN_OPTIONS="suppressions=$PWD/scripts/lsan_suppressions.txt" ./build-fuzz/${f}_fuzzer \
       -max_total_time="$SECONDS_PER" -max_len="$max_len" -timeout=25 \
       -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ \
       build-fuzz/corpus/$f > "$log" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::new_units_added|Done" "$log" || true
  else
    echo "${f}_fuzzer FAILED:"; tail -60 "$log"; status=1
  fi
done
exit $status
