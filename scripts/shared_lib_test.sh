#!/usr/bin/env bash
# The official wheel's shared libraries (-DETR_BUILD_SHARED=ON, cmake/shared_libs.cmake):
# builds them into $BUILD_DIR (default build-shared), installs to a temporary
# prefix, then
#   - builds examples/official_runner in each CMake style of the official
#     package and checks that the apps load libexecutorch.so (no static copy),
#   - links main.cpp with the wheel's plain link line
#     (-lexecutorch -lexecutorch_kernels_optimized),
# and runs each on test/models/mlp.pte, the custom operator and the custom
# backend against PyTorch's outputs (exit status = result).
#   bash scripts/shared_lib_test.sh        # BUILD_DIR=build-shared JOBS=2
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-shared}
JOBS=${JOBS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DETR_BUILD_SHARED=ON \
  -DETR_BUILD_TESTS=OFF -DETR_BUILD_EXAMPLES=OFF -DETR_WERROR=OFF "${launcher[@]}" > /dev/null
cmake --build "$BUILD_DIR" -j"$JOBS" > /dev/null
cmake --install "$BUILD_DIR" --prefix "$tmp/prefix" > /dev/null
ls "$tmp/prefix/lib"/libexecutorch*.so > /dev/null

mlp=(test/models/mlp.pte test/models/mlp/a_in0.npy test/models/mlp/a_out0.npy)
custom=(test/models/custom_op.pte test/models/custom_op/a_in0.npy test/models/custom_op/a_out0.npy)
backend=(test/models/custom_backend.pte test/models/custom_backend/a_in0.npy
         test/models/custom_backend/a_out0.npy)
for style in targets variables names; do
  cmake -S examples/official_runner -B "$tmp/build_$style" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSTYLE=$style -DCMAKE_PREFIX_PATH="$tmp/prefix" > /dev/null
  cmake --build "$tmp/build_$style" -j"$JOBS" > /dev/null
  for app in official_runner official_custom_op official_custom_backend; do
    ldd "$tmp/build_$style/$app" | grep -q "libexecutorch.so => $tmp/prefix" ||
      { echo "$style/$app does not load the installed libexecutorch.so"; exit 1; }
    # The runtime lives in the shared library, not in the app.
    if nm -C --defined-only "$tmp/build_$style/$app" | grep -q "etr::Program::load"; then
      echo "$style/$app carries a static copy of the runtime"; exit 1
    fi
  done
  "$tmp/build_$style/official_runner" "${mlp[@]}" > /dev/null
  "$tmp/build_$style/official_custom_op" "${custom[@]}" > /dev/null
  "$tmp/build_$style/official_custom_backend" "${backend[@]}" > /dev/null
  echo "shared libraries, $style: official runner, custom operator and custom backend ok"
done
# The wheel's link line, no CMake.
g++ -std=c++17 -fno-rtti examples/official_runner/main.cpp -o "$tmp/plain_runner" \
  -I"$tmp/prefix/include" -L"$tmp/prefix/lib" -lexecutorch -lexecutorch_kernels_optimized \
  -Wl,-rpath,"$tmp/prefix/lib"
"$tmp/plain_runner" "${mlp[@]}" > /dev/null
echo "shared libraries, -lexecutorch -lexecutorch_kernels_optimized: ok"
