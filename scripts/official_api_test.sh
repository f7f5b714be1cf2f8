#!/usr/bin/env bash
# The official ExecuTorch C++ API on an installed etr: installs the build tree
# into a temporary prefix, then builds examples/official_runner (an app written
# only in the official runtime API: Program, Method, MemoryManager, the data
# loaders, FlatTensorDataMap, prepare_input_tensors, EValue printing, ET_LOG)
#   - in each of the official package's CMake styles (imported targets with
#     COMPONENTS, the EXECUTORCH_* variables, the source-build target names),
#   - through pkg-config,
# and runs each on test/models/mlp.pte and on the XNNPACK model with external
# weights (.ptd), and examples/official_runner/custom_op.cpp (a custom
# operator registered with EXECUTORCH_LIBRARY) on test/models/custom_op.pte
# and custom_backend.cpp (a BackendInterface registered with
# register_backend) on test/models/custom_backend.pte, checked against PyTorch's outputs, and
# examples/official_runner/etdump.cpp (ETDumpGen as the method's EventTracer)
# on mlp.pte, whose ETDump must be framed as the official one and whose
# debug buffer must hold PyTorch's output (exit status = result).
# It also checks that a missing required component fails find_package with a
# message naming it. With OFFICIAL_EXECUTOR_RUNNER=path/to/executor_runner.cpp
# (the official examples/portable/executor_runner/executor_runner.cpp, not
# part of this repository) and gflags installed, that file is compiled
# unchanged (with ET_EVENT_TRACER_ENABLED, so its ETDumpGen is ours) against the
# prefix and run on mlp.pte too, writing an ETDump.
#   BUILD_DIR=build [OFFICIAL_EXECUTOR_RUNNER=...] bash scripts/official_api_test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libs=$(ninja -C "$BUILD_DIR" -t targets all | grep -oE '^[^:]*libetr_[a-z_]+\.a' | grep -v test_support)
ninja -C "$BUILD_DIR" -j"$JOBS" $libs > /dev/null
cmake --install "$BUILD_DIR" --prefix "$tmp/prefix" > /dev/null

mlp=(test/models/mlp.pte test/models/mlp/a_in0.npy test/models/mlp/a_out0.npy)
xp=test/models/xnnpack
ptd=($xp/external_weights.pte $xp/external_weights/a_in0.npy $xp/external_weights/a_out0.npy
     $xp/external_weights.ptd)
custom=(test/models/custom_op.pte test/models/custom_op/a_in0.npy test/models/custom_op/a_out0.npy)
backend=(test/models/custom_backend.pte test/models/custom_backend/a_in0.npy
         test/models/custom_backend/a_out0.npy)
for style in targets variables names; do
  cmake -S examples/official_runner -B "$tmp/build_$style" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSTYLE=$style -DCMAKE_PREFIX_PATH="$tmp/prefix" > /dev/null
  cmake --build "$tmp/build_$style" -j"$JOBS" > /dev/null
  "$tmp/build_$style/official_runner" "${mlp[@]}" > /dev/null
  "$tmp/build_$style/official_runner" "${ptd[@]}" > /dev/null
  "$tmp/build_$style/official_custom_op" "${custom[@]}" > /dev/null
  "$tmp/build_$style/official_custom_backend" "${backend[@]}" > /dev/null
  "$tmp/build_$style/official_etdump" "${mlp[@]}" "$tmp/mlp_$style.etdp" "$tmp/mlp_$style.bin" \
    > /dev/null
  echo "official runner, custom operator, custom backend and ETDumpGen ($style): ok"
done
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" \
  g++ -std=c++17 -fno-rtti examples/official_runner/main.cpp -o "$tmp/official_runner_pc" \
  $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs etr)
"$tmp/official_runner_pc" "${mlp[@]}" > /dev/null
echo "official runner (pkg-config): ok"

# A required component the package lacks: not found, with its name in the message.
mkdir -p "$tmp/missing"
cat > "$tmp/missing/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(missing LANGUAGES CXX)
find_package(executorch CONFIG REQUIRED COMPONENTS no_such_component)
CMAKE
if cmake -S "$tmp/missing" -B "$tmp/missing/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
     > "$tmp/missing.log" 2>&1; then
  echo "find_package accepted a missing component"; exit 1
fi
grep -q "no_such_component" "$tmp/missing.log"
echo "missing component: reported"

# Versions: the package implements the official 1.5 API; another major is refused.
for want in "1.5:found" "1.0...<2.0:found" "1.5.1:found" "2.0:missing" "1.9:missing"; do
  mkdir -p "$tmp/version"
  cat > "$tmp/version/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(version LANGUAGES CXX)
find_package(executorch ${want%%:*} CONFIG REQUIRED)
message(STATUS "EXECUTORCH_BUILD_VERSION=\${EXECUTORCH_BUILD_VERSION}")
CMAKE
  rm -rf "$tmp/version/build"
  if cmake -S "$tmp/version" -B "$tmp/version/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
       > "$tmp/version.log" 2>&1; then got=found; else got=missing; fi
  if [ "$got" != "${want##*:}" ]; then
    echo "find_package(executorch ${want%%:*}): $got, expected ${want##*:}"; cat "$tmp/version.log"; exit 1
  fi
done
echo "package version: 1.5 requests found, other majors refused"

if [ -n "${OFFICIAL_EXECUTOR_RUNNER:-}" ]; then
  # With the tracer hooks compiled in, as its ETDump build: ETDumpGen comes from etr.
  g++ -std=c++17 -fno-rtti -DET_EVENT_TRACER_ENABLED "$OFFICIAL_EXECUTOR_RUNNER" \
    -o "$tmp/executor_runner" \
    $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs etr) -lgflags
  python3 - "$tmp" <<'PY'
import struct, sys
# The .npy input as raw bytes (the runner reads raw input files).
data = open("test/models/mlp/a_in0.npy", "rb").read()
start = 10 + data[8] + 256 * data[9]
open(sys.argv[1] + "/in0.bin", "wb").write(data[start:])
PY
  "$tmp/executor_runner" --model_path test/models/mlp.pte --inputs "$tmp/in0.bin" \
    --output_file "$tmp/out" --print_output none --etdump_path "$tmp/official_runner.etdp"
  head -c 12 "$tmp/official_runner.etdp" | tail -c 4 | grep -q ED00
  echo "official executor_runner.cpp: ETDump written"
  python3 - "$tmp" <<'PY'
import struct, sys
ref = open("test/models/mlp/a_out0.npy", "rb").read()
ref = ref[10 + ref[8] + 256 * ref[9]:]
out = open(sys.argv[1] + "/out-0.bin", "rb").read()
want = struct.unpack("<%df" % (len(ref) // 4), ref)
got = struct.unpack("<%df" % (len(out) // 4), out)
worst = max(abs(a - b) for a, b in zip(want, got)) if len(want) == len(got) else float("inf")
print("official executor_runner.cpp: max abs error %g" % worst)
sys.exit(0 if worst <= 1e-5 else 1)
PY
fi
