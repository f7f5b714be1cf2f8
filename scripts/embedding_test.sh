#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds two apps against
# it, each run on test/models/mlp.pte and checked against the PyTorch value
# (exit status = result):
#   examples/embedding         etr::Module, through find_package(executorch),
#                              through etr.pc (pkg-config), and built from source
#                              with add_subdirectory (examples/embedding/from_source);
#   examples/official_api_app  written only with the official ExecuTorch C++
#                              API names, linked through the official
#                              component names.
#   BUILD_DIR=build [FROM_SOURCE=1] bash scripts/embedding_test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --build "$BUILD_DIR" --target etr_module -j"$JOBS"
# Every library the install rules name must exist.
libs=$(ninja -C "$BUILD_DIR" -t targets all | grep -oE '^[^:]*libetr_[a-z_]+\.a' | grep -v test_support)
ninja -C "$BUILD_DIR" -j"$JOBS" $libs > /dev/null
cmake --install "$BUILD_DIR" --prefix "$tmp/prefix" > /dev/null
cmake -S examples/embedding -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" > /dev/null
cmake --build "$tmp/build" -j"$JOBS" > /dev/null
"$tmp/build/embedding_example" test/models/mlp.pte test/models/mlp/a_in0.npy test/models/mlp/a_out0.npy
# The same program through pkg-config.
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" \
  g++ -std=c++17 -fno-rtti examples/embedding/main.cpp -o "$tmp/embedding_pc" \
  $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs etr)
"$tmp/embedding_pc" test/models/mlp.pte test/models/mlp/a_in0.npy test/models/mlp/a_out0.npy
echo "embedding: ok"
# The same app with the runtime built from source inside its own build (add_subdirectory).
# It compiles the runtime once more, so CI leaves it out: FROM_SOURCE=1 runs it.
if [ "${FROM_SOURCE:-0}" = 1 ]; then
  cmake -S examples/embedding/from_source -B "$tmp/build_src" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    > /dev/null
  cmake --build "$tmp/build_src" -j"$JOBS" --target embedding_example > /dev/null
  "$tmp/build_src/embedding_example" test/models/mlp.pte test/models/mlp/a_in0.npy \
    test/models/mlp/a_out0.npy
  echo "embedding (add_subdirectory): ok"
fi
test -f "$tmp/prefix/include/executorch/extension/module/module.h"
cmake -S examples/official_api_app -B "$tmp/build_official" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" > /dev/null
cmake --build "$tmp/build_official" -j"$JOBS" > /dev/null
"$tmp/build_official/official_api_app" test/models/mlp.pte test/models/mlp/a_in0.npy \
  test/models/mlp/a_out0.npy
echo "official API app: ok"
