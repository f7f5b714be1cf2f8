#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, builds examples/embedding
# against it with find_package(executorch), runs it on test/models/mlp.pte and
# checks its output against the PyTorch value (exit status = result). Also
# checks that etr.pc links the same example.
#   BUILD_DIR=build bash scripts/embedding_test.sh
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
