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
  # Static memory of the runtime itself: data+bss symbols other than the test
  # program's own arenas (g_method_pool, g_planned_pool: the caller's memory).
  total=0
  while read -r _ sz kind name; do
    case "$kind" in b|B|d|D) ;; *) continue ;; esac
    case "$name" in *g_method_pool*|*g_planned_pool*) continue ;; esac
    total=$((total + 16#$sz))
  done < <(nm -C -S $dir/etr_size_test)
  echo "   runtime static memory (data+bss, the test's arenas excluded): $total bytes"
done
