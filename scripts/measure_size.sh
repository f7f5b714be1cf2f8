#!/usr/bin/env bash
# Footprint figures (issue 10). Every build is MinSizeRel with the usual
# embedded size flags: -ffunction-sections -fdata-sections, no unwind tables
# (the core has no exceptions), no PIE, --gc-sections; binaries are stripped.
#
#   bash scripts/measure_size.sh            etr_size_test: core + executor + platform +
#                                           file loader, full verification, no kernels;
#                                           logs on and compiled out (ETR_STRIP_LOGS=ON),
#                                           without and with LTO (the 32 KiB target: LTO,
#                                           logs compiled out)
#   bash scripts/measure_size.sh --runner   also executor_runner with every kernel, and
#                                           selective builds for bench/models/mobilenet_v2.pte
#                                           and test/models/transformer.pte (slow: full builds)
#
# Build directories: ${SIZE_BUILD_PREFIX:-build-size}-<variant>; ccache is used when present.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${SIZE_BUILD_PREFIX:-build-size}
runner=0
[ "${1:-}" = "--runner" ] && runner=1
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
flags="-ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-pie"

configure() {  # configure DIR [cmake args...]
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DETR_BUILD_TESTS=OFF \
    "${launcher[@]}" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--gc-sections -no-pie" "$@" > /dev/null
}

# text+data of a stripped copy of $1 (Berkeley `size`: text includes rodata).
text_data() {
  strip -o "$1.stripped" "$1"
  size "$1.stripped" |
    awk 'NR == 2 { printf "%d bytes text+data (text %d, data %d; bss %d)", $1 + $2, $1, $2, $3 }'
}

for lto in OFF ON; do
for logs in on stripped; do
  strip_logs=OFF
  [ $logs = stripped ] && strip_logs=ON
  dir=$prefix-core-lto-$lto-logs-$logs
  # Kernel fusion only pays with the optimized kernels, which this binary does not link
  # (it is off in bare-metal builds too); it would add about 3 KB to the executor.
  configure "$dir" -DETR_BUILD_EXAMPLES=OFF -DETR_STRIP_LOGS=$strip_logs \
    -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=$lto -DETR_KERNEL_FUSION=OFF
  cmake --build "$dir" --target etr_size_test > /dev/null
  echo "== etr_size_test, LTO $lto, logs $logs: $(text_data "$dir/etr_size_test")"
  # Static memory of the runtime itself: data+bss symbols other than the test
  # program's own arenas (g_method_pool, g_planned_pool: the caller's memory).
  total=0
  while read -r _ sz kind name; do
    case "$kind" in b|B|d|D) ;; *) continue ;; esac
    case "$name" in *g_method_pool*|*g_planned_pool*) continue ;; esac
    total=$((total + 16#$sz))
  done < <(nm -C -S "$dir/etr_size_test")
  echo "   runtime static memory (data+bss, the test's arenas excluded): $total bytes"
done
done
[ $runner -eq 1 ] || exit 0

mobilenet=bench/models/mobilenet_v2.pte
if [ ! -f $mobilenet ]; then
  echo "$mobilenet is missing: /opt/tv/bin/python bench/export_bench_models.py" >&2
  exit 1
fi
for logs in on stripped; do
  strip_logs=OFF
  [ $logs = stripped ] && strip_logs=ON
  for sel in all mobilenet_v2 transformer; do
    case $sel in
      all) select=() ;;
      mobilenet_v2) select=("-DETR_SELECT_OPS_FROM_PTE=$mobilenet") ;;
      transformer) select=(-DETR_SELECT_OPS_FROM_PTE=test/models/transformer.pte) ;;
    esac
    dir=$prefix-runner-$sel-logs-$logs
    configure "$dir" -DETR_BUILD_EXAMPLES=ON -DETR_STRIP_LOGS=$strip_logs "${select[@]}"
    cmake --build "$dir" --target executor_runner > /dev/null
    ops=$(grep -c '^    "' "$dir/selective_build/runtime/kernel/selected_operators.h" 2> /dev/null \
      || echo all)
    echo "== executor_runner, kernels: $sel ($ops operators), logs $logs:" \
      "$(text_data "$dir/examples/executor_runner/executor_runner")"
  done
done
