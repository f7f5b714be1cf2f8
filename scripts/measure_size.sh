#!/usr/bin/env bash
# Measures the stripped size of etr_size_test (core + executor + platform +
# file loader, no kernels) with full verification compiled in.
set -euo pipefail
cd "$(dirname "$0")/.."
for cfg in Release MinSizeRel; do
  dir=build-size-$cfg
  cmake -S . -B $dir -G Ninja -DCMAKE_BUILD_TYPE=$cfg -DETR_BUILD_TESTS=OFF -DETR_BUILD_EXAMPLES=OFF \
    -DCMAKE_CXX_FLAGS="-ffunction-sections -fdata-sections" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--gc-sections" > /dev/null
  cmake --build $dir --target etr_size_test > /dev/null
  strip -o $dir/etr_size_test.stripped $dir/etr_size_test
  echo "== $cfg: $(stat -c %s $dir/etr_size_test.stripped) bytes stripped"
  size $dir/etr_size_test.stripped
done
